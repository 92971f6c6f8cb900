#!/usr/bin/env bash
# issue 13: ASQA 0-9 again with every default of this stop (answer_retry included), tree of 4e9195a
set -uo pipefail
export PYTHONPATH=/work/qpkg14 VERICITE_SHARED=/work/shared
cd /work/qrun14
nice /work/main/.venv/bin/vericite -q run --no-progress --out /work/qout14/asqa.jsonl --method vericite --data /work/shared/data/asqa.jsonl --start 0 --limit 10
echo done > /work/qout14/done
