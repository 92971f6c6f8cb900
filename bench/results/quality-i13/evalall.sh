#!/usr/bin/env bash
# Both evaluators over every results file; prints one row per (evaluator, dataset, method)
export PYTHONPATH=/work/qpkg3 VERICITE_SHARED=/work/shared
cd /work/qrun3
V=/work/main/.venv/bin/vericite
F="/work/qout/vanilla.jsonl /work/qout/vericite.jsonl $*"
nice $V -q eval $F --no-progress --nli-cache /work/qout/eval-cache.sqlite --json --out /work/qout/eval-e1.json --details /work/qout/details-e1.jsonl > /dev/null
nice $V -q eval $F --no-progress --nli nli-minilm-l6-hn-int8 --threshold 0.5056 --nli-cache /work/qout/eval-cache.sqlite --json --out /work/qout/eval-e2.json --details /work/qout/details-e2.jsonl > /dev/null
python3 - <<'PY'
import json
for e in ['e1','e2']:
    d=json.load(open(f'/work/qout/eval-{e}.json'))
    for r in sorted(d['results'], key=lambda r:(r['dataset'], r['method'])):
        print(e, r['dataset'], r['method'], r['items'], 'F1', r['citation_f1'], 'R', r['citation_recall'], 'P', r['citation_precision'],
              'corr', r['correctness_metric'], r['correctness'], 'EM', r.get('answer_em'), 'F1a', r.get('answer_f1'), 'ans', r['answered'], 's', r['seconds_per_item'])
PY
