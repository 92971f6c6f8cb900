"""Calibrate and measure the usefulness gate on labelled documents (HotpotQA `is_supporting`).

`vericite bench gate --data shared/data/hotpotqa.jsonl --start 5 --limit 20 [--llm NAME]`

For each item, the documents :func:`vericite.bench.datasets.load_items` picks (``--ndoc``: the
supporting ones plus the distractors BM25 ranks highest, as the quality benchmarks use them) are
rendered as stage 2 renders them (the profile's prompt set, format and trimming, or the
overrides) and gated two ways: P(Yes) from one forward pass (``yes_probability``) and, with ``--greedy``, the
greedy Yes/No under the grammar. Prints recall and precision of "useful" against
``is_supporting`` for a range of thresholds and the recommended threshold: the highest one with
recall >= ``--target-recall`` (highest precision at that recall). The same for the relative gate
(each P(Yes) divided by the highest of its item's documents), and both rules' ROC AUC. Items from
``--start`` on, so calibration can avoid the items an evaluation uses.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from tqdm import tqdm

from vericite.engine.config import settings as S


def recall_precision(p: np.ndarray, y: np.ndarray, thr: float) -> tuple[float, float]:
    """Recall and precision of ``p >= thr`` against boolean labels ``y`` (precision 1.0 when nothing is predicted)."""
    pred = p >= thr
    tp = float((pred & y).sum())
    return tp / max(1, int(y.sum())), (tp / int(pred.sum())) if pred.sum() else 1.0


def roc_auc(p: np.ndarray, y: np.ndarray) -> float | None:
    """ROC AUC of scores ``p`` (float [n]) for boolean labels ``y`` [n]: the share of (positive,
    negative) pairs ranked right, ties counting half; None without both classes."""
    pos, neg = p[y], p[~y]
    if not len(pos) or not len(neg):
        return None
    diff = pos[:, None] - neg[None, :]
    return float(((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size)


def relative_scores(per_doc: list[dict]) -> np.ndarray:
    """Each document's P(Yes) divided by the highest P(Yes) of its item (float [n], in the rows' order)."""
    top: dict[int, float] = {}
    for d in per_doc:
        top[d["item"]] = max(top.get(d["item"], 0.0), d["p_yes"])
    return np.array([d["p_yes"] / top[d["item"]] if top[d["item"]] > 0 else 0.0 for d in per_doc])


def choose_threshold(p: np.ndarray, y: np.ndarray, target_recall: float) -> float:
    """The highest threshold among the observed scores whose recall is >= target_recall."""
    for thr in sorted(set(np.round(p, 4).tolist()), reverse=True):
        if recall_precision(p, y, thr)[0] >= target_recall:
            return float(thr)
    return 0.0


def main(argv: list[str] | None = None, *, models_toml: str | None = None) -> int:
    from vericite.engine.llm.grammar import YES_NO
    from vericite.engine.loader import build_pipeline

    from .datasets import load_items

    ap = argparse.ArgumentParser(prog="vericite bench gate", description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--start", type=int, default=5)
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--ndoc", type=int, default=5)
    ap.add_argument("--llm")
    ap.add_argument("--threads", type=int)
    ap.add_argument("--target-recall", type=float, default=0.8)
    ap.add_argument("--greedy", action="store_true", help="also run the greedy grammar gate (slower)")
    S.add_arguments(ap, ["prompts", "prompt_format", "doc_tokens"])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    pipe = build_pipeline(models_toml=models_toml, llm=args.llm, threads=args.threads, overrides_origin="flag",
                          **S.from_arguments(args))
    llm = pipe.llm
    items = load_items(args.data, ndoc=args.ndoc, start=args.start, limit=args.limit)
    scores, labels, greedy, per_doc = [], [], [], []
    t0 = time.perf_counter()
    for it in tqdm(items, desc=f"gate {llm.name}", file=sys.stderr):
        if not it["supporting"]:
            continue
        for i, (doc, flag) in enumerate(zip(it["docs"], it["supporting"]), start=1):
            msgs = pipe.render(pipe.gate_messages(it["question"], doc, i, []))
            p, _ = llm.yes_probability(msgs, purpose=f"gate:{i}")
            scores.append(p)
            labels.append(flag)
            per_doc.append({"item": it["index"], "doc": i, "p_yes": round(p, 4), "supporting": flag})
            if args.greedy:
                greedy.append(llm.chat(msgs, max_tokens=2, purpose=f"gate:{i}", grammar=YES_NO).text.startswith("Yes"))
    seconds = time.perf_counter() - t0
    p, y = np.array(scores), np.array(labels, dtype=bool)
    thr = choose_threshold(p, y, args.target_recall)
    table = []
    for t in sorted({0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, round(thr, 4)}):
        r, pr = recall_precision(p, y, t)
        table.append({"threshold": t, "recall": round(r, 3), "precision": round(pr, 3), "useful": int((p >= t).sum())})
    rel = relative_scores(per_doc) if per_doc else np.array([])
    rel_thr = choose_threshold(rel, y, args.target_recall) if len(rel) else 0.0
    out = {"llm": llm.name, "prompts": pipe.prompts.tag, "prompt_format": pipe.settings.prompt_format,
           "doc_tokens": pipe.settings.doc_tokens, "documents": len(p), "supporting": int(y.sum()), "seconds": round(seconds, 1),
           "argmax_recall_precision": [round(x, 3) for x in recall_precision(p, y, 0.5)],
           "recommended_threshold": thr, "target_recall": args.target_recall,
           "recommended_recall_precision": [round(x, 3) for x in recall_precision(p, y, thr)], "table": table,
           "auc": roc_auc(p, y) if len(p) else None,
           "relative": {"auc": roc_auc(rel, y) if len(rel) else None, "recommended_threshold": rel_thr,
                        "recommended_recall_precision": [round(x, 3) for x in recall_precision(rel, y, rel_thr)]
                        if len(rel) else None},
           "documents_scored": per_doc}
    if greedy:
        g = np.array(greedy)
        tp = float((g & y).sum())
        out["greedy_recall_precision"] = [round(tp / max(1, int(y.sum())), 3), round(tp / int(g.sum()), 3) if g.sum() else 1.0]
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(f"{llm.name}: {len(p)} documents ({int(y.sum())} supporting), {seconds:.0f} s")
        print("| threshold | recall | precision | judged useful |\n|---|---|---|---|")
        for r in table:
            print(f"| {r['threshold']} | {r['recall']} | {r['precision']} | {r['useful']} |")
        print(json.dumps({k: v for k, v in out.items() if k not in ("table", "documents_scored")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
