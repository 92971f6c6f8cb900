import json
rows={}
for e in ['e1','e2']:
    d=json.load(open(f'/work/qout9/eval-{e}.json'))
    for r in d['results']: rows.setdefault((r['dataset'], r['method']),{})[e]=r
name={'vanilla':'vanilla','vericite-paper-en-kv':'vericite before (paper-en-kv, last stop)','vericite':'vericite now (facts-en-kv, quotes)'}
print('| dataset | method | n | citation F1 e1 | citation F1 e2 | R / P (e1) | correctness | metric | answered % | s/item |')
print('|---|---|---:|---:|---:|---|---:|---|---:|---:|')
for (ds,m) in sorted(rows, key=lambda k:(k[0], ['vanilla','vericite-paper-en-kv','vericite'].index(k[1]) if k[1] in name else 9)):
    a,b=rows[(ds,m)]['e1'],rows[(ds,m)]['e2']
    print(f"| {ds} | {name.get(m,m)} | {a['items']} | {a['citation_f1']} | {b['citation_f1']} | {a['citation_recall']} / {a['citation_precision']} | {a['correctness']} | {a['correctness_metric']} | {a['answered']} | {a['seconds_per_item']} |")
