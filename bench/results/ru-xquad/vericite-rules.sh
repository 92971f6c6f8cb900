#!/usr/bin/env bash
# Issue 14: Russian QA re-run with issue 13's content-word rules and stage-1 retry (the tree of b2f89e1 plus
# this stop's conflict changes, which do not touch answers), XQuAD-ru 0-19; 855 s for 20 questions
set -uo pipefail
export PYTHONPATH=/work/qpkg11 VERICITE_SHARED=/work/shared
V=/work/main/.venv/bin/vericite
O=/work/qout11
cd /work/qrun11
nice $V -q run --no-progress --out $O/ru.jsonl --method vericite --data /work/shared/data/ru_xquad.jsonl --start 0 --limit 20 2> $O/ru.err
# evaluation (vanilla rows = ru.jsonl's method "vanilla"; the evaluator is the Russian checker, also the pipeline's own):
# vericite -q eval vanilla.jsonl ru.jsonl --nli nli-me5-small-ru-int8 --no-progress --json --out ru-eval.json
