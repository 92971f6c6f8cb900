#!/usr/bin/env bash
# issue 13: the 5 reported MuSiQue rows whose replay had a stale stage 3, run for real (tree of 4e9195a)
set -uo pipefail
export PYTHONPATH=/work/qpkg14 VERICITE_SHARED=/work/shared
cd /work/qrun14
for i in 50 54 62 63 69; do
  nice /work/main/.venv/bin/vericite -q run --no-progress --out /work/qout14/stale.jsonl --method vericite --data /work/shared/data/musique.jsonl --start $i --limit 1
done
echo done > /work/qout14/stale.done
