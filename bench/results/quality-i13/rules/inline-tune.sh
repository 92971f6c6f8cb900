#!/usr/bin/env bash
# issue 13: inline citations in the citation grammar, tuning items (HotpotQA 130-139, MuSiQue 80-89),
# the tree of this session before commit (claim guard, add nothing, backbone facts = 2 as defaults)
set -uo pipefail
export PYTHONPATH=/work/qpkg11 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
D=/work/shared/data
O=/work/qout11
cd /work/qrun11
r() { nice $V -q run --no-progress --out $O/tune.jsonl "$@"; }
r --method vericite --data $D/hotpotqa.jsonl --start 130 --limit 10 --inline-citations --label vericite-inline
r --method vericite --data $D/musique.jsonl --start 80 --limit 10 --inline-citations --label vericite-inline
r --method vanilla --data $D/hotpotqa.jsonl --start 130 --limit 10 --inline-citations --label vanilla-inline
r --method vanilla --data $D/musique.jsonl --start 80 --limit 10 --inline-citations --label vanilla-inline
echo done > $O/tune.done
