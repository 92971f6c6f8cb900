"""Choose an exported checker's threshold on a dev set, then report held-out NLI sets at it.

``python -m vericite.export.threshold MODEL_DIR --choose-on terra_val --eval xnli_ru_test [--threads 1] [--json]``

Scores are the run-time scorer's (``engine/nli/cross_encoder.py``: ONNX Runtime, ``max_length`` and entailment
index from ``manifest.json``, premise windows of ``--premise-window`` tokens and, with
``--sentence-window K``, of 1..K sentences, as the registry's ``sentence_window``); sets are
``export/train_nli.py``'s (binary: entailment vs the rest). The threshold is the one of the grid
0.05, 0.10, ..., 0.95 with the highest accuracy on the ``--choose-on`` set (ties: the one nearest
0.5); a coarse grid, because a dev set of a few hundred pairs cannot tell finer steps apart. The
evaluation sets are then scored once and reported at 0.5 and at the chosen threshold, with ROC AUC,
the true positive share and the majority-class rate (the accuracy of always answering the
commoner label). An evaluation set is never used to choose (``xnli_ru_test`` is test-only).
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from vericite.engine.config.registry import sha256_file
from vericite.engine.nli.cross_encoder import OnnxCrossEncoder
from vericite.export.train_nli import SETS, auc, load_set

log = logging.getLogger(__name__)

__all__ = ["GRID", "choose_threshold", "figures", "main"]

GRID = tuple(round(0.05 * i, 2) for i in range(1, 20))


def figures(scores: np.ndarray, labels: np.ndarray, threshold: float) -> dict[str, Any]:
    """Accuracy at 0.5 and at ``threshold``, AUC, positive share, majority-class rate, predicted positives."""
    pos = float(labels.mean())
    a = auc(scores.tolist(), labels.astype(int).tolist())
    return {"n": int(len(labels)), "acc@0.5": round(float(((scores >= 0.5) == labels).mean()), 4),
            "acc@t": round(float(((scores >= threshold) == labels).mean()), 4),
            "auc": None if a is None else round(a, 4), "pos_rate": round(pos, 4),
            "majority_rate": round(max(pos, 1 - pos), 4),
            "pred_pos_rate@t": round(float((scores >= threshold).mean()), 4)}


def choose_threshold(scores: np.ndarray, labels: np.ndarray, grid: tuple[float, ...] = GRID) -> tuple[float, list]:
    """``(threshold, [(t, accuracy) per grid point])``: best accuracy, ties broken towards 0.5."""
    accs = [(t, float(((scores >= t) == labels).mean())) for t in grid]
    best = max(accs, key=lambda ta: (round(ta[1], 10), -abs(ta[0] - 0.5)))
    return best[0], [(t, round(a, 4)) for t, a in accs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_dir", help="exported checker folder (model.onnx, tokenizer.json, manifest.json)")
    ap.add_argument("--choose-on", default="terra_val", help="dev set the threshold is chosen on")
    ap.add_argument("--eval", default="xnli_ru_test", help="comma-separated held-out sets reported at it")
    ap.add_argument("--threshold", type=float, help="report at this threshold instead of choosing one")
    ap.add_argument("--data-dir", help="NLI data folder (default <shared>/data/nli)")
    ap.add_argument("--premise-window", type=int, default=128)
    ap.add_argument("--sentence-window", type=int, default=0,
                    help="also score windows of 1..K premise sentences (the registry's sentence_window)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", help="also write the report JSON here")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    from vericite.engine.config.paths import shared_dir

    data = Path(args.data_dir) if args.data_dir else shared_dir() / "data" / "nli"
    d = Path(args.model_dir)
    man = json.loads((d / "manifest.json").read_text()) if (d / "manifest.json").is_file() else {}
    checker = OnnxCrossEncoder(d / "model.onnx", d / "tokenizer.json", max_length=man.get("max_length", 320),
                               entailment_index=man.get("entailment_index", 1), intra_op_threads=args.threads,
                               premise_window=args.premise_window or None,
                               sentence_window=args.sentence_window, name=d.name)
    evals = [s for s in args.eval.split(",") if s]
    if args.choose_on in evals:
        raise SystemExit(f"error: {args.choose_on} is both the choice set and an evaluation set")
    for s in [args.choose_on, *evals]:
        if s not in SETS:
            raise SystemExit(f"error: unknown set {s!r}; known: {', '.join(SETS)}")

    def score(name: str) -> tuple[np.ndarray, np.ndarray, float]:
        rows = load_set(name, data)
        t0 = time.perf_counter()
        s = checker.scores([(r["premise"], r["hypothesis"]) for r in rows]).astype(np.float64)
        return s, np.array([r["label"] == 1 for r in rows]), time.perf_counter() - t0

    rep: dict[str, Any] = {"model": d.name, "onnx_sha256": sha256_file(d / "model.onnx"),
                           "max_length": checker.max_length, "premise_window": checker.premise_window,
                           "sentence_window": checker.sentence_window,
                           "choose_on": args.choose_on}
    s, y, _ = score(args.choose_on)
    if args.threshold is None:
        thr, sweep = choose_threshold(s, y)
        rep["sweep"] = sweep
    else:
        thr = args.threshold
    rep["threshold"] = thr
    rep["sets"] = {args.choose_on: figures(s, y, thr)}
    for name in evals:
        s, y, secs = score(name)
        rep["sets"][name] = {**figures(s, y, thr), "seconds": round(secs, 1)}
    rep["command"] = "python -m vericite.export.threshold " + " ".join(argv if argv is not None else sys.argv[1:])
    text = json.dumps(rep, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    if args.json:
        print(text)
    else:
        print(f"threshold {thr} (chosen on {args.choose_on})" if args.threshold is None else f"threshold {thr}")
        for name, f in rep["sets"].items():
            print(f"{name:28s} n={f['n']:5d} acc@0.5={f['acc@0.5']:.4f} acc@t={f['acc@t']:.4f} auc={f['auc']} "
                  f"majority={f['majority_rate']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
