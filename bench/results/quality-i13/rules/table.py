"""Markdown table from eval-*-e1/e2 JSONs + mean words per answer from the result files.
usage: table.py E1.json E2.json [order...]"""
import json, sys, re
e1, e2 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
order = sys.argv[3:]
rows = {}
for tag, d in (('e1', e1), ('e2', e2)):
    for r in d['results']:
        rows.setdefault((r['dataset'], r['method']), {})[tag] = r
words = {}
for f in e1['evaluator']['files']:
    for l in open(f):
        r = json.loads(l)
        t = re.sub(r"\[[\d,\s*]+\]", "", r['output'])
        words.setdefault((r['dataset'], r['method']), []).append(len(t.split()))
def key(k):
    return (k[0], order.index(k[1]) if k[1] in order else 99, k[1])
print('| dataset | method | n | citation F1 e1 | citation F1 e2 | R / P (e1) | correctness | metric | answered % | words/answer |')
print('|---|---|---:|---:|---:|---|---:|---|---:|---:|')
for k in sorted(rows, key=key):
    if order and k[1] not in order: continue
    a, b = rows[k]['e1'], rows[k].get('e2', {})
    w = words.get(k, [0]); 
    print(f"| {k[0]} | {k[1]} | {a['items']} | {a['citation_f1']} | {b.get('citation_f1')} | {a['citation_recall']} / {a['citation_precision']} | {a['correctness']} | {a['correctness_metric']} | {a['answered']} | {sum(w)/len(w):.0f} |")
