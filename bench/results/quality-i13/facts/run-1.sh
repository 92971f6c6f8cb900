#!/usr/bin/env bash
# (stopped after the latency run; the ASQA/ELI5 lines ran in run-2.sh with the fallback quotes)
# Session 2026-12-01b: the brief's example, issue 13's reported items with the new defaults (facts-en-kv,
# fact dedupe), issue 17's 10-item latency run. One llama.cpp process at a time, in this order.
set -uo pipefail
export PYTHONPATH=/work/qpkg8 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
D=/work/shared/data
O=/work/qout8
cd /work/qrun8
nice $V -q answer --json --docs examples/demo_yandex_market.json > $O/brief.json 2> $O/brief.err
r() { nice $V -q run --no-progress --out $O/vericite.jsonl "$@"; }
r --method vericite --data $D/hotpotqa.jsonl --start 100 --limit 30
r --method vericite --data $D/musique.jsonl --start 50 --limit 30
echo done > $O/quality.done
nice $V -q bench latency --data $D/hotpotqa.jsonl --start 300 --limit 10 --modes reference,scheduled,vanilla --out-dir $O/latency --json > $O/latency.json 2> $O/latency.err
echo done > $O/latency.done
r --method vericite --data $D/asqa.jsonl --start 0 --limit 10
r --method vericite --data $D/eli5.jsonl --start 0 --limit 20
echo done > $O/all.done
