#!/usr/bin/env bash
# VeriCite columns of issue 13's measurement (after the vanilla column), then ablations on 10 HotpotQA items.
set -uo pipefail
export PYTHONPATH=/work/qpkg2 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
D=/work/shared/data
O=/work/qout
cd /work/qrun2
while [ ! -f $O/vanilla.done ]; do sleep 20; done
r() { nice $V -q run --no-progress --out $O/vericite.jsonl "$@"; }
r --method vericite --data $D/hotpotqa.jsonl --start 100 --limit 30
r --method vericite --data $D/musique.jsonl --start 50 --limit 30
# ablations: everything of issue 13 off (= before), then one change off at a time
r --method vericite --data $D/hotpotqa.jsonl --start 100 --limit 10 --claim-words 0 --no-cite-each --no-backbone --label vericite-before
r --method vericite --data $D/hotpotqa.jsonl --start 100 --limit 10 --claim-words 0 --label vericite-no-claims
r --method vericite --data $D/hotpotqa.jsonl --start 100 --limit 10 --no-backbone --label vericite-no-backbone
r --method vericite --data $D/asqa.jsonl --start 0 --limit 10
r --method vericite --data $D/eli5.jsonl --start 0 --limit 20
r --method vericite --data $D/hotpotqa.jsonl --start 100 --limit 10 --no-cite-each --label vericite-no-cite-each
echo done > $O/vericite.done
