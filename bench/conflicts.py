"""Conflict detection on planted and consistent pairs (engine/conflicts.py).

`vericite bench conflicts [--nli NAME] [--data ../shared/data/hotpotqa.jsonl] [--ru ../shared/data/ru_xquad.jsonl] [--limit N]
[--lang en|ru|both] [--start N] [--threshold T ...] [--related R ...]`

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
from collections.abc import Sequence

import numpy as np

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


def _items(path, limit: int, lang: str, start: int = 0):
    for _, row in read_rows(path)[start:start + limit]:
        docs = [Document(str(d.get("title") or ""), d["text"]) for d in row["docs"]]
        flags = [bool(d.get("is_supporting", True)) for d in row["docs"]]
        yield docs, flags, lang


def rules(thresholds: Sequence[float], related: Sequence[float]) -> list[tuple[float, float]]:
    """The (threshold, related bar) pairs to measure: each threshold with each bar not above it."""
    return [(t, r) for t in thresholds for r in related if r <= t]


def rule_name(t: float, r: float) -> str:
    """A row's key: "0.55", or "0.55/0.35" with a related bar."""
    return f"{t}/{r}" if r > 0 else str(t)


def measure(items, scores, thresholds: Sequence[float], seed: int = 0, related: Sequence[float] = (0.0,)) -> dict:
    """Counts and rates over ``items`` of (documents, supporting flags, lang), per (threshold,
    related bar) of :func:`rules` (one scoring: every rule reads the same memoised scores); keys
    :func:`rule_name`."""
    memo: dict[tuple[str, str], float] = {}

    def cached(pairs):
        todo = [p for p in dict.fromkeys(pairs) if p not in memo]
        if todo:
            memo.update(zip(todo, (float(x) for x in scores(todo))))
        return np.array([memo[p] for p in pairs], dtype=np.float32)

    rng = random.Random(seed)
    facts = planted = 0
    combos = rules(thresholds, related)
    alarms = dict.fromkeys(combos, 0)
    hits = dict.fromkeys(combos, 0)
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
                for t, r in combos:
                    alarms[t, r] += bool(find_conflicts([fact], docs, cached, t, lang, related=r))
                j = rng.choice([k for k in range(1, len(docs) + 1) if k != i])
                changed = _changed(s, rng)
                if changed is None:
                    continue
                docs2 = list(docs)
                docs2[j - 1] = Document(docs[j - 1].title, docs[j - 1].text + " " + changed)
                planted += 1
                for t, r in combos:
                    hits[t, r] += any(c.other_document == j
                                      for c in find_conflicts([fact], docs2, cached, t, lang, related=r))
    return {rule_name(t, r): {"facts_with_numbers": facts, "false_alarms": alarms[t, r],
                              "false_alarm_rate": round(alarms[t, r] / max(1, facts), 4),
                              "planted": planted, "found": hits[t, r], "recall": round(hits[t, r] / max(1, planted), 4)}
            for t, r in combos}


def main(argv: list[str] | None = None, models_toml: str | None = None) -> int:
    ap = argparse.ArgumentParser(prog="vericite bench conflicts", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(shared_dir() / "data" / "hotpotqa.jsonl"))
    ap.add_argument("--ru", default=str(shared_dir() / "data" / "ru_xquad.jsonl"))
    ap.add_argument("--limit", type=int, default=200, help="items per file (default 200)")
    ap.add_argument("--nli", help="checker name in models.toml (default: the default checker)")
    ap.add_argument("--model-dir", help="a checker folder (model.onnx + tokenizer.json) instead of a models.toml entry")
    ap.add_argument("--threshold", type=float, nargs="+",
                    help="P(entailment) that counts; several give one row each from one scoring (default: the "
                         "checker's conflict_threshold, else its threshold)")
    ap.add_argument("--related", type=float, nargs="+",
                    help="lower P(entailment) bars for a related other sentence (engine/conflicts.py); each is "
                         "measured with each threshold it does not exceed; 0 = off (default: the checker's "
                         "conflict_related)")
    ap.add_argument("--start", type=int, default=0, help="first item of each file (default 0)")
    ap.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads (default 2)")
    ap.add_argument("--lang", choices=("en", "ru", "both"), default="both",
                    help="which sets: en (HotpotQA), ru (XQuAD-ru and the brief's example), both (default); "
                         "measure each language with a checker that reads it")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.model_dir:
        from pathlib import Path

        from vericite.engine.nli import OnnxCrossEncoder

        d = Path(args.model_dir)
        checker = OnnxCrossEncoder(d / "model.onnx", d / "tokenizer.json", intra_op_threads=args.threads)
        thr = args.threshold or [0.5]
        rel = args.related or [0.0]
    else:
        from vericite.engine.checkers import load_checker
        from vericite.engine.models import Registry

        spec = Registry.load(models_toml).get(args.nli, "nli")
        checker = load_checker(spec, intra_op_threads=args.threads)
        thr = args.threshold or [spec.setting("conflict_threshold") or spec.threshold]
        rel = args.related or [spec.setting("conflict_related")]
    if not rules(thr, rel):
        raise SystemExit(f"vericite bench conflicts: every --related bar {rel} is above every threshold {thr}")
    out: dict = {"checker": checker.name, "threshold": thr, "related": rel, "start": args.start, "limit": args.limit}
    if args.lang in ("en", "both"):
        out["en (HotpotQA)"] = measure(_items(args.data, args.limit, "en", args.start), checker.scores, thr,
                                       related=rel)
    if args.lang in ("ru", "both"):
        out["ru (XQuAD-ru)"] = measure(_items(args.ru, args.limit, "ru", args.start), checker.scores, thr,
                                       related=rel)
        demo = json.loads((shared_dir() / "data" / "demo_yandex_market.json").read_text(encoding="utf-8"))
        docs = [Document(d["title"], d["text"]) for d in demo["docs"]]
        # the verified fact as the pipeline keeps it: document 1's own sentence with the 2000 launch
        launch = next(t for t in split_sentences(docs[0].text, "ru") if "2000" in t)
        stmt = Statement("evidence", launch, (1,), "kept", 1.0)
        out["brief's example"] = {}
        for t, r in rules(thr, rel):
            found = find_conflicts([stmt], docs, checker.scores, t, "ru", related=r)
            out["brief's example"][rule_name(t, r)] = {"reported": [c.describe() for c in found],
                                              "document_3_vs_1": any(c.other_document == 3 and c.document == 1
                                                                     for c in found)}
    if args.json:
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"checker {checker.name}, thresholds {thr}, related bars {rel}")
    print("| set | threshold[/related] | facts with numbers | false alarms | planted | found (recall) |\n|---|---:|---:|---:|---:|---:|")
    for k, rows in out.items():
        if not (isinstance(rows, dict) and k != "brief's example"):
            continue
        for t, v in rows.items():
            print(f"| {k} | {t} | {v['facts_with_numbers']} | {v['false_alarms']} ({100 * v['false_alarm_rate']:.1f}%) | "
                  f"{v['planted']} | {v['found']} ({100 * v['recall']:.1f}%) |")
    for t, v in out.get("brief's example", {}).items():
        print(f"brief's example at {t}: document [3] vs [1] reported: {v['document_3_vs_1']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
