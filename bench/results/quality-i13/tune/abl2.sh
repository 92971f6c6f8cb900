#!/usr/bin/env bash
# Issue 13 ablations, second part (multihop stopped after 6 items: 248 s/item under load)
set -uo pipefail
export PYTHONPATH=/work/qpkg4 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
D=/work/shared/data
O=/work/qout5
cd /work/qrun4
r() { nice $V -q run --no-progress "$@"; }
r --out $O/tune.jsonl --method vericite --data $D/hotpotqa.jsonl --start 130 --limit 10 --recite --label vericite-recite
r --out $O/tune.jsonl --method vericite --data $D/hotpotqa.jsonl --start 130 --limit 10 --gate relative --gate-threshold 0.9607 --label vericite-relgate
echo done > $O/abl2.done
