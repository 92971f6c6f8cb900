#!/usr/bin/env bash
# 1) finish the inline-citations tuning run (MuSiQue 80-89, tree /work/qrun11, vanilla-inline dropped);
# 2) issue 13's real runs with this session's defaults (tree /work/qrun12 = 1c27d6d): ASQA 0-9, ELI5 0-19;
# 3) the no-NLI ablation on HotpotQA 100-129. One llama.cpp process at a time.
set -uo pipefail
V=/work/main/.venv/bin/vericite
D=/work/shared/data
while pgrep -f "qout11/tune.jsonl" > /dev/null; do sleep 10; done
export VERICITE_SHARED=/work/shared
(cd /work/qrun11 && PYTHONPATH=/work/qpkg11 nice $V -q run --no-progress --out /work/qout11/tune.jsonl --method vericite --data $D/musique.jsonl --start 80 --limit 10 --inline-citations --label vericite-inline)
echo done > /work/qout11/tune.done
O=/work/qout12
cd /work/qrun12
export PYTHONPATH=/work/qpkg12
r() { nice $V -q run --no-progress "$@"; }
r --out $O/vericite.jsonl --method vericite --data $D/asqa.jsonl --start 0 --limit 10
r --out $O/vericite.jsonl --method vericite --data $D/eli5.jsonl --start 0 --limit 20
echo done > $O/longform.done
r --out $O/no-nli.jsonl --method vericite-no-nli --data $D/hotpotqa.jsonl --start 100 --limit 30
echo done > $O/all.done
