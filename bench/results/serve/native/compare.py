"""Serial runs, llama-server (1 slot) vs in process: answers, every LLM call's text, gate P(Yes)."""
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = {r["index"]: r for r in map(json.loads, open(sys.argv[2]))}
tot = dict(items=0, answers=0, calls=0, texts=0)
dp = 0.0
for r in a:
    o = b.get(r["index"])
    if not o: continue
    ca = [c for s in r["trace"]["stages"] for c in s["llm_calls"]]
    cb = [c for s in o["trace"]["stages"] for c in s["llm_calls"]]
    same = [x["text"] == y["text"] for x, y in zip(ca, cb)]
    for x, y in zip(ca, cb):
        if x.get("score") is not None and y.get("score") is not None:
            dp = max(dp, abs(x["score"] - y["score"]))
    tot["items"] += 1; tot["answers"] += r["output"] == o["output"]; tot["calls"] += len(ca); tot["texts"] += sum(same)
    print(r["index"], "answer equal:", r["output"] == o["output"], f"calls {len(ca)} vs {len(cb)}, texts equal {sum(same)}",
          f"{r['seconds']:.1f} s vs {o['seconds']:.1f} s")
    for x, y, s in zip(ca, cb, same):
        if not s: print(f"   {x['purpose']}: server {x['text'][:120]!r} | inproc {y['text'][:120]!r}")
print(tot, "max |dP(Yes)|", round(dp, 4))
