#!/usr/bin/env bash
# After 29db9c1 (fallback quotes): the reported items whose answer was empty in /work/qout8 (same code
# otherwise; stages 1-2 are deterministic), then ASQA 0-9 and ELI5 0-9 with the new defaults.
set -uo pipefail
export PYTHONPATH=/work/qpkg9 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
D=/work/shared/data
O=/work/qout9
cd /work/qrun9
r() { nice $V -q run --no-progress --out $O/vericite.jsonl "$@"; }
r --method vericite --data $D/hotpotqa.jsonl --start 125 --limit 1
for i in 56 59 71 72; do r --method vericite --data $D/musique.jsonl --start $i --limit 1; done
echo done > $O/empties.done
r --method vericite --data $D/asqa.jsonl --start 0 --limit 10
echo done > $O/asqa.done
r --method vericite --data $D/eli5.jsonl --start 0 --limit 10
echo done > $O/all.done
