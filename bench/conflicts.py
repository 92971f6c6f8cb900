"""Conflict detection on planted and consistent pairs (engine/conflicts.py).

`vericite bench conflicts [--nli NAME] [--data ../shared/data/hotpotqa.jsonl] [--ru ../shared/data/ru_xquad.jsonl] [--limit N]`

The checker (default: the default NLI checker, at its threshold) decides each candidate.

- Consistent: every sentence with a number of an item's supporting documents (HotpotQA: the
  ``is_supporting`` ones; XQuAD-ru: every paragraph) is taken as a verified fact citing its
  document and checked against the item's other documents, unchanged: each reported conflict is a
  false alarm (these documents are about related, not contradicting, things).
- Planted: the same sentence, its first number changed (a year +1..+3, another number x2 + 1) and
  its first two words dropped (so it is not a verbatim copy), is appended to another document of
  the item; a report of that document is a hit.
- The brief's example (../shared/data/demo_yandex_market.json): the 2000 statement [1] against document 3.

Prints recall on planted conflicts and the false-alarm rate per language, as a table and JSON.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys

from vericite.engine.conflicts import find_conflicts
from vericite.engine.docs import read_rows
from vericite.engine.guard import numbers
from vericite.engine.paths import shared_dir
from vericite.engine.records import Document, Statement
from vericite.engine.splitter import split_sentences


def _changed(sentence: str, rng: random.Random) -> str | None:
    m = re.search(r"\d+", sentence)
    if not m:
        return None
    n = int(m.group(0))
    new = n + rng.randint(1, 3) if 1000 <= n <= 2100 else 2 * n + 1
    words = (sentence[:m.start()] + str(new) + sentence[m.end():]).split()
    return " ".join(words[2:]) if len(words) > 5 else " ".join(words)


def _items(path, limit: int, lang: str):
    for _, row in read_rows(path)[:limit]:
        docs = [Document(str(d.get("title") or ""), d["text"]) for d in row["docs"]]
        flags = [bool(d.get("is_supporting", True)) for d in row["docs"]]
        yield docs, flags, lang


def measure(items, scores, threshold: float, seed: int = 0) -> dict:
    """Counts and rates over ``items`` of (documents, supporting flags, lang)."""
    rng = random.Random(seed)
    facts = alarms = planted = hits = 0
    for docs, flags, lang in items:
        if len(docs) < 2:
            continue
        for i, (d, sup) in enumerate(zip(docs, flags), start=1):
            if not sup:
                continue
            for s in split_sentences(d.text, lang):
                if not numbers(s):
                    continue
                fact = Statement("evidence", s, (i,), "kept", 1.0, s)
                facts += 1
                alarms += bool(find_conflicts([fact], docs, scores, threshold, lang))
                j = rng.choice([k for k in range(1, len(docs) + 1) if k != i])
                changed = _changed(s, rng)
                if changed is None:
                    continue
                docs2 = list(docs)
                docs2[j - 1] = Document(docs[j - 1].title, docs[j - 1].text + " " + changed)
                planted += 1
                hits += any(c.other_document == j for c in find_conflicts([fact], docs2, scores, threshold, lang))
    return {"facts_with_numbers": facts, "false_alarms": alarms, "false_alarm_rate": round(alarms / max(1, facts), 4),
            "planted": planted, "found": hits, "recall": round(hits / max(1, planted), 4)}


def main(argv: list[str] | None = None, models_toml: str | None = None) -> int:
    ap = argparse.ArgumentParser(prog="vericite bench conflicts", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(shared_dir() / "data" / "hotpotqa.jsonl"))
    ap.add_argument("--ru", default=str(shared_dir() / "data" / "ru_xquad.jsonl"))
    ap.add_argument("--limit", type=int, default=200, help="items per file (default 200)")
    ap.add_argument("--nli", help="checker name in models.toml (default: the default checker)")
    ap.add_argument("--model-dir", help="a checker folder (model.onnx + tokenizer.json) instead of a models.toml entry")
    ap.add_argument("--threshold", type=float, help="P(entailment) that counts (default: the checker's)")
    ap.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads (default 2)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.model_dir:
        from pathlib import Path

        from vericite.engine.nli import OnnxCrossEncoder

        d = Path(args.model_dir)
        checker = OnnxCrossEncoder(d / "model.onnx", d / "tokenizer.json", intra_op_threads=args.threads)
        thr = args.threshold or 0.5
    else:
        from vericite.engine.checkers import load_checker
        from vericite.engine.models import Registry

        spec = Registry.load(models_toml).get(args.nli, "nli")
        checker = load_checker(spec, intra_op_threads=args.threads)
        thr = args.threshold or spec.threshold
    out = {"checker": checker.name, "threshold": thr,
           "en (HotpotQA)": measure(_items(args.data, args.limit, "en"), checker.scores, thr),
           "ru (XQuAD-ru)": measure(_items(args.ru, args.limit, "ru"), checker.scores, thr)}
    demo = json.loads((shared_dir() / "data" / "demo_yandex_market.json").read_text(encoding="utf-8"))
    docs = [Document(d["title"], d["text"]) for d in demo["docs"]]
    stmt = Statement("answer", "Яндекс Маркет запущен в 2000 году.", (1,), "kept", 1.0)
    found = find_conflicts([stmt], docs, checker.scores, thr, "ru")
    out["brief's example"] = {"reported": [c.describe() for c in found],
                              "document_3_vs_1": any(c.other_document == 3 and c.document == 1 for c in found)}
    if args.json:
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"checker {checker.name}, threshold {thr}")
    print("| set | facts with numbers | false alarms | planted | found (recall) |\n|---|---:|---:|---:|---:|")
    for k, v in out.items():
        if isinstance(v, dict) and "planted" in v:
            print(f"| {k} | {v['facts_with_numbers']} | {v['false_alarms']} ({100 * v['false_alarm_rate']:.1f}%) | "
                  f"{v['planted']} | {v['found']} ({100 * v['recall']:.1f}%) |")
    print(f"brief's example: document [3] vs [1] reported: {out['brief' + chr(39) + 's example']['document_3_vs_1']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
