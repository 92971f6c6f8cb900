#!/usr/bin/env bash
# issue 13 lever: fact-extraction prompt, tuning items (HotpotQA 130-139, MuSiQue 80-89)
# /work/qrun7: a copy of the tree at 0d4c30f's parent plus `vericite run --prompts` (bench/run.py, bench/methods.py); /work/exp/facts-en-kv.json = engine/prompts/facts-en-kv.json (the repeated-fact rule was not in it)
set -uo pipefail
export PYTHONPATH=/work/qpkg7 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
D=/work/shared/data
O=/work/qout7
cd /work/qrun7
r() { nice $V -q run --no-progress --out $O/tune.jsonl "$@"; }
r --method vericite --data $D/hotpotqa.jsonl --start 130 --limit 10 --prompts /work/exp/facts-en-kv.json --label vericite-facts
r --method vericite --data $D/musique.jsonl --start 80 --limit 10 --prompts /work/exp/facts-en-kv.json --label vericite-facts
r --method vericite --data $D/musique.jsonl --start 80 --limit 10
r --method vanilla --data $D/musique.jsonl --start 80 --limit 10
echo done > $O/facts.done
