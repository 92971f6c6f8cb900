#!/usr/bin/env bash
# Vanilla column of issue 13's measurement, on items nobody tuned on (HotpotQA 100-129, MuSiQue 50-79, all ASQA/ELI5 items with documents).
set -uo pipefail
export PYTHONPATH=/work/qpkg VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
D=/work/shared/data
O=/work/qout
cd /work/qrun
nice $V -q run --method vanilla --data $D/hotpotqa.jsonl --start 100 --limit 30 --out $O/vanilla.jsonl --no-progress
nice $V -q run --method vanilla --data $D/musique.jsonl --start 50 --limit 30 --out $O/vanilla.jsonl --no-progress
nice $V -q run --method vanilla --data $D/asqa.jsonl --start 0 --limit 10 --out $O/vanilla.jsonl --no-progress
nice $V -q run --method vanilla --data $D/eli5.jsonl --start 0 --limit 20 --out $O/vanilla.jsonl --no-progress
echo done > $O/vanilla.done
