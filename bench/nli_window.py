"""Premise window size vs citation-check accuracy of the NLI checker on real HotpotQA facts.

`python -m vericite.bench.nli_window [--data shared/data/hotpotqa.jsonl] [--start 5] [--windows 0,256,192,128,96]`

Positive pair: a supporting-fact sentence (HotpotQA sentence-level supporting_facts) vs a premise
made, as stage 1 makes it, of two documents joined by a newline: a distractor then the fact's own
paragraph. Negative pair: the same sentence vs two distractor paragraphs. Prints, per window size
(0 = whole premise up to max_length), recall (positives accepted), false accepts (negatives
accepted) at the checker's threshold, and the number of windows scored; then, at the checker's
own window, recall and false accepts for a range of thresholds (to calibrate ``threshold``).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vericite.engine.config.registry import Registry
from vericite.engine.nli.load import load_checker
from vericite.engine.config.paths import shared_dir


def pairs_from_hotpotqa(path: Path, limit: int, start: int = 0) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(positive, negative) (premise, hypothesis) pairs from items ``start .. start+limit`` (see module doc)."""
    pos, neg = [], []
    for line in list(path.open(encoding="utf-8"))[start:start + limit]:
        r = json.loads(line)
        if not r.get("supporting_facts") or not r.get("context"):
            continue
        ctx = {t: s for t, s in r["context"]}
        titles = [t for t, _ in r["context"]]
        title, i = r["supporting_facts"][0]
        if title not in ctx or i >= len(ctx[title]):
            continue
        distractors = [t for t in titles if t not in {s[0] for s in r["supporting_facts"]}]
        if len(distractors) < 2:
            continue
        sent = ctx[title][i].strip()
        a, b = ("".join(ctx[d]) for d in distractors[:2])
        pos.append((a + "\n" + "".join(ctx[title]), sent))
        neg.append((a + "\n" + b, sent))
    return pos, neg


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(shared_dir() / "data" / "hotpotqa.jsonl"))
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--start", type=int, default=5, help="first item (default 5: items 0-4 are the evaluation items)")
    ap.add_argument("--nli")
    ap.add_argument("--windows", default="0,256,192,128,96")
    args = ap.parse_args(argv)
    spec = Registry.load().get(args.nli, "nli")
    pos, neg = pairs_from_hotpotqa(Path(args.data), args.limit, args.start)
    print(f"{spec.name}: {len(pos)} positive / {len(neg)} negative pairs, threshold {spec.threshold}")
    print("| window (tokens) | recall | false accepts | windows scored |\n|---|---|---|---|")
    for w in (int(x) for x in args.windows.split(",")):
        checker = load_checker(spec)
        checker.premise_window = w or None
        p, n = checker.scores(pos), checker.scores(neg)
        print(f"| {w or 'whole'} | {(p >= spec.threshold).mean():.3f} | {(n >= spec.threshold).mean():.3f} "
              f"| {checker.stats['windows']} |")
    checker = load_checker(spec)
    p, n = checker.scores(pos), checker.scores(neg)
    print(f"\nwindow {spec.premise_window or 'whole'} (models.toml):\n| threshold | recall | false accepts |\n|---|---|---|")
    for t in (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9):
        print(f"| {t} | {(p >= t).mean():.3f} | {(n >= t).mean():.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
