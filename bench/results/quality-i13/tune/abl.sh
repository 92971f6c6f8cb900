#!/usr/bin/env bash
# Issue 13 ablations on tuning items (HotpotQA 130-139, MuSiQue 80-89): not the reported items.
set -uo pipefail
export PYTHONPATH=/work/qpkg4 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
D=/work/shared/data
O=/work/qout5
cd /work/qrun4
r() { nice $V -q run --no-progress "$@"; }
for ds in "hotpotqa 130" "musique 80"; do set -- $ds
  r --out $O/tune.jsonl --method vanilla --data $D/$1.jsonl --start $2 --limit 10
done
for ds in "hotpotqa 130" "musique 80"; do set -- $ds
  r --out $O/tune.jsonl --method vericite --data $D/$1.jsonl --start $2 --limit 10
  r --out $O/tune.jsonl --method vericite --data $D/$1.jsonl --start $2 --limit 10 --multihop --label vericite-multihop
  r --out $O/tune.jsonl --method vericite --data $D/$1.jsonl --start $2 --limit 10 --recite --label vericite-recite
  r --out $O/tune.jsonl --method vericite --data $D/$1.jsonl --start $2 --limit 10 --gate relative --gate-threshold 0.9607 --label vericite-relgate
done
echo done > $O/abl.done
