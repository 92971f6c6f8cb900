#!/usr/bin/env bash
# issue 13's table this stop: vanilla (quality-i13/vanilla.jsonl), vericite before (paper-en-kv, quality-i13/vericite.jsonl),
# vericite now = /work/qout8/vericite.jsonl with its 5 empty answers run again after the fallback quotes (/work/qout9)
# /work/qout8/eval/before.jsonl = ../vericite.jsonl's rows of method "vericite" relabelled "vericite-paper-en-kv"
export PYTHONPATH=/work/qpkg9 VERICITE_SHARED=/work/shared OMP_NUM_THREADS=1
cd /work/qrun9
V=/work/main/.venv/bin/vericite
O=/work/qout9
python3 - <<'PY'
import json
new={}
for l in open('/work/qout9/vericite.jsonl'):
    r=json.loads(l); new[(r['dataset'],r['index'])]=l
with open('/work/qout9/vericite-now.jsonl','w') as f:
    for l in open('/work/qout8/vericite.jsonl'):
        r=json.loads(l); f.write(new.pop((r['dataset'],r['index']), l))
    for l in new.values(): f.write(l)   # ASQA / ELI5 rows
PY
F="/work/main/bench/results/quality-i13/vanilla.jsonl /work/qout8/eval/before.jsonl $O/vericite-now.jsonl"
nice $V -q eval $F --no-progress --nli-cache /work/qout5/eval-cache.sqlite --json --out $O/eval-e1.json > /dev/null 2> $O/e1.err
nice $V -q eval $F --no-progress --nli nli-minilm-l6-hn-int8 --threshold 0.5056 --nli-cache /work/qout5/eval-cache.sqlite --json --out $O/eval-e2.json > /dev/null 2> $O/e2.err
echo done > $O/eval.done
