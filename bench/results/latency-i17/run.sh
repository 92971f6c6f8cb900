#!/usr/bin/env bash
# Issue 14: Russian QA, XQuAD-ru items 0-19 (the article's paragraphs as documents), vanilla (Russian ALCE prompt, 0 shots) and vericite (routed to the Russian checker)
set -uo pipefail
export PYTHONPATH=/work/qpkg6 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
O=/work/qout5
cd /work/qrun6
r() { nice $V -q run --no-progress "$@"; }
r --out $O/ru.jsonl --method vanilla --shots 0 --data /work/shared/data/ru_xquad.jsonl --start 0 --limit 20
r --out $O/ru.jsonl --method vericite --data /work/shared/data/ru_xquad.jsonl --start 0 --limit 20
echo done > $O/ru.done
nice $V -q bench latency --data /work/shared/data/hotpotqa.jsonl --start 300 --limit 5 --modes scheduled,parallel,vanilla --parallel-docs 4 --out-dir $O/latency-1.5b --json > $O/latency-1.5b.json 2> $O/latency-1.5b.err
echo done > $O/lat.done
