#!/usr/bin/env bash
# Issue 14: Russian QA re-run with the current defaults (fallback quotes, facts prompts for en; ru routed), XQuAD-ru 0-19
set -uo pipefail
export PYTHONPATH=/work/qpkg10 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
O=/work/qout10
cd /work/qrun10
nice $V -q run --no-progress --out $O/ru.jsonl --method vericite --data /work/shared/data/ru_xquad.jsonl --start 0 --limit 20 2> $O/ru.err
echo done > $O/ru.done
# evaluation (vanilla rows = ru.jsonl's, method "vanilla"; the evaluator is the Russian checker, also the pipeline's own):
# vericite -q eval vanilla.jsonl ru.jsonl --nli nli-me5-small-ru-int8 --no-progress --json --out ru-eval.json
