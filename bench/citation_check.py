"""Citation check: how well an ONNX NLI checker accepts supported sentences and rejects edited ones.

``python -m vericite.bench.citation_check [--nli NAME | --model-dir DIR] [--threshold T] [--calibrate] [--json]``

Every figure is computed with the run-time scorer (``engine/nli/cross_encoder.py``: ONNX Runtime, the
registry's ``max_length`` and ``premise_window``), from ``shared/data``:

``nli``       binary accuracy (entailment vs the rest) at P >= 0.5 and at the threshold, and ROC
              AUC, on held-out SNLI test (seeded sample of ``--n-snli``; tokenised text) and the
              MNLI dev-mismatched sample (1000). Neither set is in any training mix of
              ``export/train_nli.py``.
``swaps``     rejection rate (P < threshold) of hard negatives (``export/hard_negatives.py``: year,
              date, number, quantity, entity, negation, role swap; every kind that applies, seed
              ``--seed``) made from (a) HotpotQA supporting-fact sentences of the test items, premise
              = the fact's own paragraph (as stage 2 checks a fact against its document), and
              (b) the entailed pairs of the SNLI test sample. Per kind, plus the acceptance rate
              of the unedited originals and the share of swaps scored below their original.
``hotpotqa``  support accuracy on the test items' supporting facts (all of them): positive =
              fact vs (first distractor + newline + its own paragraph), as stage 1 builds a premise;
              negative = fact vs the first two distractor paragraphs (``bench/nli_window.py``'s
              construction). Recall, false-accept rate and balanced accuracy; also the share of
              facts accepted against their own paragraph alone (stage 2's premise), which is
              the recall that the swap-rejection rate trades against, and against their own
              paragraph followed by a distractor (``recall_own_first``: position bias).
``demo``      the brief's example (``demo_yandex_market.json``): "launched in 2000" accepted and
              "launched in 2001" rejected against document 1, each product category accepted
              against its document; in the Russian original and in an English translation
              written for this bench (the checker reads English only).
``xnli_ru``   binary accuracy and AUC on a seeded sample of XNLI-ru test.

HotpotQA split (``shared/data/hotpotqa.jsonl``; items 0-199 carry sentence-level supporting facts):
items 0-4 are the pipeline's evaluation items (unused here); items 5-99 are the *calibration*
items (``--calibrate``: threshold and grade bands); items 100-199 are the *test* items of this
bench; items 200-399 are left for training (``export/train_nli.py --qa-items 200:400``). The old
threshold 0.7 of ``nli-minilm-l6-bin-int8`` was chosen on items 5-204 (``bench/nli_window.py``),
so that checker has seen the test items' scores once, when its threshold was picked.
SNLI test: the bench's sample and the calibration sample are disjoint seeded samples.

Calibration (``--calibrate``): :func:`calibrate_threshold` picks the lowest threshold whose
precision reaches ``--target-precision`` on a balanced calibration set (positives: facts of items
5-99 vs distractor + own paragraph (stage 1) and vs their own paragraph alone (stage 2); as many
negatives, half of them facts vs two distractors, half
hard negatives of the facts vs their own paragraph, seeded samples; precision depends on this
base rate of 0.5, so it is recorded with the false-accept rates of both negative kinds), also
reported for other targets (``by_target``); then :func:`calibrate_bands` places the graded scale
(1 verbatim, 2 paraphrase, 3 partial, 4 not supported) on the score axis: b2 = the threshold, b1
between verbatim facts (grade 1) and entailed SNLI test pairs of a calibration sample disjoint
from the bench's (grade 2), b3 between half-supported claims (the fact plus an unrelated
sentence, grade 3) and facts against distractors (grade 4); where the hard negatives land is
reported. The report then uses the calibrated threshold unless ``--threshold`` is given.
``--write-calibration FILE`` stores threshold, target, bands and figures as JSON (e.g. next to the
model, ``calibration.json``, which ``--model-dir`` then reads).
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vericite.engine.nli.grading import grade, is_verbatim  # noqa: F401  (re-exported for the bench's users)
from vericite.engine.nli.guard import NumberGuard
from vericite.engine.config.registry import Registry, model_path, sha256_file, verify
from vericite.engine.nli.load import load_checker
from vericite.engine.nli.cross_encoder import OnnxCrossEncoder
from vericite.engine.config.paths import shared_dir
from vericite.export.train_nli import auc, seeded_sample
from vericite.bench.common import git_revision

log = logging.getLogger(__name__)

METRIC_VERSION = "citation_check@1"
SHARED = shared_dir()
#: HotpotQA item ranges (start, end) of the split described in the module docstring.
CALIBRATION_ITEMS = (5, 100)
TEST_ITEMS = (100, 200)
TRAIN_ITEMS = (200, 400)
GRADES = {1: "verbatim", 2: "paraphrase", 3: "partial", 4: "not supported"}


# ------------------------------------------------------------------------------------------------
# calibration and grades (pure numpy)

@dataclass(frozen=True)
class Calibration:
    """A threshold chosen for a precision target, and what it achieves on the calibration data.

    Attributes:
        threshold: accept when P(entailment) >= threshold.
        target_precision: the target it was chosen for.
        precision, recall: at ``threshold`` on the calibration pairs.
        n_pos, n_neg: calibration pairs by label.
    """

    threshold: float
    target_precision: float
    precision: float
    recall: float
    n_pos: int
    n_neg: int


def calibrate_threshold(scores: Sequence[float], labels: Sequence[int | bool], target_precision: float) -> Calibration:
    """The lowest threshold (largest recall) whose precision on (scores, labels) reaches the target.

    Candidates are the distinct scores; accepting ``score >= s`` for candidate ``s`` gives
    precision TP/(TP+FP) and recall TP/P. Of the candidates with precision >= target the lowest
    is chosen, and the returned threshold is the midpoint between it and the next lower distinct
    score (the same decisions on these data, but not sitting on a data point).

    Args:
        scores: P(entailment), shape [n], floats in [0, 1].
        labels: 1/True = entailed, shape [n].
        target_precision: in (0, 1].

    Returns:
        A :class:`Calibration`.

    Raises:
        ValueError: empty or mismatched inputs, no positive label, a target outside (0, 1], or no
            threshold reaching the target (the message gives the best precision available).
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    if s.shape != y.shape or s.ndim != 1 or len(s) == 0:
        raise ValueError(f"scores and labels must be 1-D and of equal non-zero length, got {s.shape} and {y.shape}")
    if not 0.0 < target_precision <= 1.0:
        raise ValueError(f"target_precision must be in (0, 1], got {target_precision}")
    n_pos = int(y.sum())
    if n_pos == 0:
        raise ValueError("no positive labels: precision is undefined")
    order = np.argsort(-s, kind="mergesort")
    s_sorted, y_sorted = s[order], y[order]
    tp = np.cumsum(y_sorted)
    fp = np.cumsum(~y_sorted)
    # only the last index of each run of equal scores is a real cut ("accept >= s" takes all ties)
    last = np.r_[s_sorted[1:] != s_sorted[:-1], True]
    prec = tp / (tp + fp)
    ok = np.flatnonzero(last & (prec >= target_precision - 1e-12))
    if len(ok) == 0:
        best = float(prec[last].max())
        raise ValueError(f"no threshold reaches precision {target_precision} (best {best:.4f})")
    i = int(ok.max())
    cut = s_sorted[i]
    lower = s_sorted[i + 1] if i + 1 < len(s_sorted) else None
    threshold = float(cut if lower is None else (cut + lower) / 2.0)
    return Calibration(threshold=round(threshold, 6), target_precision=target_precision,
                       precision=round(float(prec[i]), 4), recall=round(float(tp[i] / n_pos), 4),
                       n_pos=n_pos, n_neg=int(len(y) - n_pos))


def _balanced_cut(hi: np.ndarray, lo: np.ndarray, low: float, high: float) -> tuple[float, float]:
    """The cut in [low, high] maximising balanced accuracy between ``hi`` (should be >= cut) and
    ``lo`` (should be < cut); midpoints between distinct scores are the candidates.

    Returns:
        ``(cut, balanced accuracy at the cut)``.
    """
    cand = np.unique(np.r_[hi, lo, low, high])
    cand = cand[(cand >= low) & (cand <= high)]
    mids = np.unique(np.r_[low, high, (cand[1:] + cand[:-1]) / 2.0])
    best, best_cut = -1.0, high
    for c in mids:
        ba = 0.5 * ((hi >= c).mean() if len(hi) else 1.0) + 0.5 * ((lo < c).mean() if len(lo) else 1.0)
        if ba > best + 1e-12:
            best, best_cut = ba, float(c)
    return best_cut, best


def calibrate_bands(scores_by_grade: Mapping[int, Sequence[float]], accept_threshold: float,
                    min_gain: float = 0.05) -> dict[str, float]:
    """Score bands for the graded scale: grade 1 if P >= b1, 2 if P >= b2, 3 if P >= b3, else 4.

    ``b2`` is the accept threshold (grades 1-2 are "supported"); ``b1`` in [b2, 1] maximises
    balanced accuracy between verbatim (grade 1) and paraphrase (grade 2) scores; ``b3`` in
    [0, b2] does the same between partial (3) and not-supported (4) scores. A cut that separates
    its two grades no better than chance + ``min_gain`` (balanced accuracy <= 0.5 + min_gain) is
    not a band: then b1 = 1.0 (grade 1 only from a verbatim check, see :func:`grade`) or b3 = 0.0
    (no "partial" band).

    Args:
        scores_by_grade: grade (1-4) -> P(entailment) of calibration examples of that grade.
        accept_threshold: the calibrated threshold.

    Returns:
        ``{"1": b1, "2": b2, "3": b3}`` (lower bounds, b1 >= b2 >= b3), the form :func:`grade` takes.
    """
    g = {k: np.asarray(scores_by_grade.get(k, ()), dtype=np.float64) for k in (1, 2, 3, 4)}
    b2 = float(accept_threshold)
    b1, ba1 = _balanced_cut(g[1], g[2], b2, 1.0)
    b3, ba3 = _balanced_cut(g[3], g[4], 0.0, b2)
    if ba1 <= 0.5 + min_gain:
        b1 = 1.0
    if ba3 <= 0.5 + min_gain:
        b3 = 0.0
    return {"1": round(b1, 6), "2": round(b2, 6), "3": round(b3, 6)}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def hotpot_facts(items: Sequence[dict]) -> list[dict]:
    """Supporting facts of HotpotQA items with sentence-level ``supporting_facts``.

    Returns:
        ``[{"item", "fact", "own", "d1", "d2", "d3"}]``: the fact sentence, its own paragraph and
        the first three distractor paragraphs (texts as joined by HotpotQA). Items with fewer than
        three distractors or a missing sentence are skipped.
    """
    out = []
    for r in items:
        if not r.get("supporting_facts") or not r.get("context"):
            continue
        ctx = {t: s for t, s in r["context"]}
        support = {t for t, _ in r["supporting_facts"]}
        distractors = ["".join(ctx[t]) for t, _ in r["context"] if t not in support]
        if len(distractors) < 3:
            continue
        for title, i in r["supporting_facts"]:
            if title not in ctx or i >= len(ctx[title]) or not ctx[title][i].strip():
                continue
            out.append({"item": r.get("_id"), "fact": ctx[title][i].strip(), "own": "".join(ctx[title]),
                        "d1": distractors[0], "d2": distractors[1], "d3": distractors[2]})
    return out


#: The demo documents in English (translated for this bench from demo_yandex_market.json).
DEMO_EN = [
    "Yandex was founded in 1997 as a search engine. In the following years the company launched many "
    "services: mail, news, maps. Yandex Market was launched in 2000 as a service for comparing prices in "
    "online shops. Later Yandex launched a taxi service and music streaming.",
    "The Russian e-commerce market is growing fast. Electronics, clothing, car goods, cosmetics and food "
    "are available on Market. Shoppers increasingly choose marketplaces over separate online shops.",
    "In an interview the head of the service talked about its development. After its launch in 2001 the "
    "service long remained a platform for comparing prices, and it started building its own logistics much "
    "later. Now the team is betting on delivery speed.",
    "Market offers household appliances, books and toys, and is also expanding its range of home goods. "
    "The press release also announces new order pick-up points in the regions.",
    "Ozon is overtaking Market in the number of orders, while Wildberries remains the leader in turnover. "
    "Analysts expect competition between marketplaces to intensify in the coming years.",
]
#: (doc index, hypothesis, expected accept) in English and Russian.
DEMO_CHECKS = {
    "en": [(0, "Yandex Market was launched in 2000.", True), (0, "Yandex Market was launched in 2001.", False)]
    + [(1, f"Market offers {c}.", True) for c in ("electronics", "clothing", "car goods", "cosmetics", "food")]
    + [(3, f"Market offers {c}.", True) for c in ("household appliances", "books", "toys", "home goods")],
    "ru": [(0, "Яндекс Маркет запущен в 2000 году.", True), (0, "Яндекс Маркет запущен в 2001 году.", False)]
    + [(1, f"Маркет предлагает {c}.", True) for c in ("электронику", "одежду", "автотовары", "косметику",
                                                        "продукты питания")]
    + [(3, f"Маркет предлагает {c}.", True) for c in ("бытовую технику", "книги", "игрушки", "товары для дома")],
}


# ------------------------------------------------------------------------------------------------
# evaluation

def _binary_figures(scores: np.ndarray, labels: np.ndarray, threshold: float) -> dict[str, Any]:
    a = auc(scores, labels)
    return {"n": len(labels), "acc@0.5": round(float(((scores >= 0.5) == labels).mean()), 4),
            "acc@t": round(float(((scores >= threshold) == labels).mean()), 4),
            "auc": None if a is None else round(a, 4), "pos_rate": round(float(labels.mean()), 3)}


class CitationCheck:
    """Builds the bench's pairs once (seeded) and scores them with one checker.

    Args:
        shared: the shared folder (``data/hotpotqa.jsonl``, ``data/nli/``, ``data/demo_yandex_market.json``).
        n_snli, n_xnli: sample sizes (None = all); MNLI mismatched is used whole.
        seed: sampling and hard-negative seed.

    Raises:
        FileNotFoundError: a data file is missing.
    """

    def __init__(self, shared: Path = SHARED, *, n_snli: int | None = 2000, n_xnli: int | None = 1000,
                 n_calib_snli: int = 1000, seed: int = 0, n_mnli: int | None = None, n_facts: int | None = None):
        from vericite.export.hard_negatives import (
            KINDS,
            hard_negatives_for_pairs,
            perturb,
        )

        self.seed = seed
        data = shared / "data"
        hot = _jsonl(data / "hotpotqa.jsonl")
        self.test_facts = hotpot_facts(hot[TEST_ITEMS[0]:TEST_ITEMS[1]])
        if n_facts is not None:  # a seeded subset, for slow checkers (the LLM)
            self.test_facts, _ = seeded_sample(self.test_facts, n_facts, seed, "test_facts")
        self.calib_facts = hotpot_facts(hot[CALIBRATION_ITEMS[0]:CALIBRATION_ITEMS[1]])
        snli_all = _jsonl(data / "nli" / "snli_test.jsonl")
        self.snli, snli_idx = seeded_sample(snli_all, n_snli, seed, "snli_test")
        self.calib_snli, _ = seeded_sample(snli_all, n_calib_snli, seed, "snli_calib", exclude=set(snli_idx))
        self.mnli, _ = seeded_sample(_jsonl(data / "nli" / "mnli_dev_mismatched_sample.jsonl"), n_mnli, seed, "mnli")
        self.xnli, _ = seeded_sample(_jsonl(data / "nli" / "xnli_ru_test.jsonl"), n_xnli, seed, "xnli_ru")
        demo = json.loads((data / "demo_yandex_market.json").read_text(encoding="utf-8"))
        self.demo_docs = {"ru": [d["text"] for d in demo["docs"]], "en": DEMO_EN}

        def swaps(facts: list[dict]) -> list:
            out = []
            for f in facts:
                out.extend(perturb(f["own"], f["fact"], kinds=KINDS, seed=seed))
            return out

        self.hot_swaps = swaps(self.test_facts)
        snli_ent = [(r["premise"], r["hypothesis"]) for r in self.snli if r["label"] == "entailment"]
        self.snli_swaps = hard_negatives_for_pairs(snli_ent, per_pair=len(KINDS), seed=seed)
        self.calib_swaps = swaps(self.calib_facts)

    # -- pair sets ---------------------------------------------------------------------------
    @staticmethod
    def support_pairs(facts: list[dict]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """(positive, negative) pairs: fact vs d1 + newline + own paragraph; fact vs d1 + newline + d2."""
        pos = [(f["d1"] + "\n" + f["own"], f["fact"]) for f in facts]
        neg = [(f["d1"] + "\n" + f["d2"], f["fact"]) for f in facts]
        return pos, neg

    @staticmethod
    def partial_pairs(facts: list[dict]) -> list[tuple[str, str]]:
        """Half-supported claims: the fact plus the first sentence of a third distractor (not in the premise)."""
        from vericite.export.hard_negatives import split_sentences_regex

        out = []
        for f in facts:
            extra = (split_sentences_regex(f["d3"]) or [""])[0]
            if extra:
                out.append((f["d1"] + "\n" + f["own"], f["fact"].rstrip() + " " + extra))
        return out

    # -- scoring ------------------------------------------------------------------------------
    def run(self, checker: OnnxCrossEncoder, threshold: float) -> dict[str, Any]:
        """All sections at ``threshold``. Returns the report dict (see module docstring)."""
        t0 = time.perf_counter()
        rep: dict[str, Any] = {"threshold": threshold}
        stats0 = dict(getattr(checker, "stats", None) or {})

        def lab(rows: list[dict]) -> np.ndarray:
            return np.array([r["label"] == "entailment" for r in rows])

        sn = checker.scores([(r["premise"], r["hypothesis"]) for r in self.snli]).astype(np.float64)
        mn = checker.scores([(r["premise"], r["hypothesis"]) for r in self.mnli]).astype(np.float64)
        rep["nli"] = {"snli_test": _binary_figures(sn, lab(self.snli), threshold),
                      "mnli_dev_mismatched_sample": _binary_figures(mn, lab(self.mnli), threshold)}
        rep["nli"]["mean_acc@0.5"] = round((rep["nli"]["snli_test"]["acc@0.5"]
                                            + rep["nli"]["mnli_dev_mismatched_sample"]["acc@0.5"]) / 2, 4)

        # swaps: originals and edits
        hot_orig = checker.scores([(f["own"], f["fact"]) for f in self.test_facts]).astype(np.float64)
        hot_sw = checker.scores([(e.premise, e.hypothesis) for e in self.hot_swaps]).astype(np.float64)
        snli_sw = checker.scores([(e.premise, e.hypothesis) for e in self.snli_swaps]).astype(np.float64)
        snli_orig_map = {(r["premise"], r["hypothesis"]): s for r, s in zip(self.snli, sn)}
        hot_orig_map = {(f["own"], f["fact"]): s for f, s in zip(self.test_facts, hot_orig)}
        per_kind: dict[str, dict[str, Any]] = {}
        rows = [(e, s, hot_orig_map[(e.premise, e.source_hypothesis)], "hotpotqa") for e, s in zip(self.hot_swaps, hot_sw)]
        rows += [(e, s, snli_orig_map[(e.premise, e.source_hypothesis)], "snli") for e, s in zip(self.snli_swaps, snli_sw)]
        for src in ("hotpotqa", "snli", "all"):
            sel = [r for r in rows if src == "all" or r[3] == src]
            kinds = sorted({r[0].kind for r in sel})
            block = {}
            for k in kinds + ["all"]:
                kk = [r for r in sel if k == "all" or r[0].kind == k]
                s = np.array([r[1] for r in kk])
                o = np.array([r[2] for r in kk])
                block[k] = {"n": len(kk), "rejected": round(float((s < threshold).mean()), 4),
                            "below_original": round(float((s < o).mean()), 4),
                            "original_accepted": round(float((o >= threshold).mean()), 4)}
            per_kind[src] = block
        rep["swaps"] = per_kind
        rep["swap_rejection"] = per_kind["all"]["all"]["rejected"]

        pos, neg = self.support_pairs(self.test_facts)
        ps = checker.scores(pos).astype(np.float64)
        ns = checker.scores(neg).astype(np.float64)
        # the supporting paragraph first, a distractor after it (stage 1's premise when the first cited
        # document is the supporting one): a checker trained only on "distractor + own" can learn position
        pf = checker.scores([(f["own"] + "\n" + f["d1"], f["fact"]) for f in self.test_facts]).astype(np.float64)
        rec, fa = float((ps >= threshold).mean()), float((ns >= threshold).mean())
        rep["hotpotqa"] = {"items": f"{TEST_ITEMS[0]}-{TEST_ITEMS[1] - 1}", "n_pos": len(pos), "n_neg": len(neg),
                           "recall": round(rec, 4), "false_accept": round(fa, 4),
                           "recall_own_paragraph": round(float((hot_orig >= threshold).mean()), 4),
                           "recall_own_first": round(float((pf >= threshold).mean()), 4),
                           "accuracy": round((rec + 1 - fa) / 2, 4),
                           "auc": round(auc(np.r_[ps, ns], np.r_[np.ones(len(ps)), np.zeros(len(ns))]), 4)}

        demo: dict[str, Any] = {}
        for lang, checks in DEMO_CHECKS.items():
            docs = self.demo_docs[lang]
            sc = checker.scores([(docs[d], h) for d, h, _ in checks])
            items = [{"doc": d + 1, "hypothesis": h, "expect": "accept" if e else "reject", "score": round(float(s), 4),
                      "ok": bool((s >= threshold) == e)} for (d, h, e), s in zip(checks, sc)]
            demo[lang] = {"passed": sum(i["ok"] for i in items), "total": len(items),
                          "year_2000": items[0]["score"], "year_2001": items[1]["score"],
                          "year_ok": items[0]["ok"] and items[1]["ok"],
                          "categories_ok": sum(i["ok"] for i in items[2:]), "categories": len(items) - 2,
                          "checks": items}
        rep["demo"] = demo

        xs = checker.scores([(r["premise"], r["hypothesis"]) for r in self.xnli]).astype(np.float64)
        rep["xnli_ru"] = _binary_figures(xs, lab(self.xnli), threshold)

        # the same scores at other thresholds (operating points are comparable across checkers)
        demo_en = checker.scores([(self.demo_docs["en"][d], h) for d, h, _ in DEMO_CHECKS["en"]])
        demo_exp = np.array([e for _, _, e in DEMO_CHECKS["en"]])
        sn_y, mn_y = lab(self.snli), lab(self.mnli)
        all_sw = np.r_[hot_sw, snli_sw]
        rep["sweep"] = [{
            "threshold": t,
            "snli_acc": round(float(((sn >= t) == sn_y).mean()), 4),
            "mnli_acc": round(float(((mn >= t) == mn_y).mean()), 4),
            "swap_rejection": round(float((all_sw < t).mean()), 4),
            "swap_rejection_hotpotqa": round(float((hot_sw < t).mean()), 4),
            "hotpotqa_originals_accepted": round(float((hot_orig >= t).mean()), 4),
            "hotpotqa_recall": round(float((ps >= t).mean()), 4),
            "hotpotqa_false_accept": round(float((ns >= t).mean()), 4),
            "demo_en_passed": int(((demo_en >= t) == demo_exp).sum()),
        } for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)]
        rep["seconds"] = round(time.perf_counter() - t0, 1)
        stats = getattr(checker, "stats", None) or {}
        if "windows" in stats:  # the ONNX checkers: rows run per pair (premise windows x hypothesis parts)
            n = stats["pairs"] - stats0.get("pairs", 0)
            rows = stats["windows"] - stats0.get("windows", 0)
            rep["speed"] = {"pairs": n, "windows": rows, "windows_per_pair": round(rows / max(n, 1), 2),
                            "pairs_per_s": round(n / max(rep["seconds"], 1e-9), 1),
                            "split_hypotheses": stats.get("split_hypotheses", 0) - stats0.get("split_hypotheses", 0)}
        return rep

    def calibrate(self, checker: OnnxCrossEncoder, target_precision: float) -> dict[str, Any]:
        """Threshold for ``target_precision`` and grade bands, on the calibration items (5-99) and
        the calibration SNLI sample. Returns a JSON-ready dict (``threshold``, ``bands``, figures)."""
        pos, neg = self.support_pairs(self.calib_facts)
        ps1 = checker.scores(pos).astype(np.float64)  # stage 1: distractor + own paragraph
        ps2 = checker.scores([(f["own"], f["fact"]) for f in self.calib_facts]).astype(np.float64)  # stage 2
        ps = np.r_[ps1, ps2]
        ns = checker.scores(neg).astype(np.float64)
        sw = checker.scores([(e.premise, e.hypothesis) for e in self.calib_swaps]).astype(np.float64)
        # balanced set: every positive, as many negatives, half distractor pairs, half hard negatives
        rng = np.random.default_rng(self.seed)
        half = len(ps) // 2
        ns_b = ns[np.sort(rng.choice(len(ns), min(half, len(ns)), replace=False))]
        sw_b = sw[np.sort(rng.choice(len(sw), min(len(ps) - len(ns_b), len(sw)), replace=False))]
        scores = np.r_[ps, ns_b, sw_b]
        labels = np.r_[np.ones(len(ps)), np.zeros(len(ns_b) + len(sw_b))]
        cal = calibrate_threshold(scores, labels, target_precision)
        by_target: dict[str, Any] = {}
        for t in sorted({0.8, 0.9, 0.95, 0.98, target_precision}):
            try:
                by_target[str(t)] = asdict(calibrate_threshold(scores, labels, t))
            except ValueError as e:
                by_target[str(t)] = str(e)
        para = checker.scores([(r["premise"], r["hypothesis"]) for r in self.calib_snli
                               if r["label"] == "entailment"]).astype(np.float64)
        partial = checker.scores(self.partial_pairs(self.calib_facts)).astype(np.float64)
        # grade 4 = nothing of the claim is in the premise (distractors); a hard negative is
        # "partly supported" (all but one detail), so where swaps land is reported, not fitted
        by_grade = {1: ps1, 2: para, 3: partial, 4: ns}
        bands = calibrate_bands(by_grade, cal.threshold)
        recovered = {str(g): round(float(np.mean([grade(s, bands) == g for s in v])), 4) if len(v) else None
                     for g, v in by_grade.items()}
        swap_grades = {str(g): round(float(np.mean([grade(s, bands) == g for s in sw])), 4) for g in (1, 2, 3, 4)}
        return {
            "metric_version": METRIC_VERSION,
            "threshold": cal.threshold,
            "target_precision": target_precision,
            "calibration": asdict(cal),
            "by_target": by_target,
            "calibration_data": {
                "hotpotqa_items": f"{CALIBRATION_ITEMS[0]}-{CALIBRATION_ITEMS[1] - 1}",
                "positives": (f"{len(ps1)} supporting facts vs distractor + own paragraph (stage 1) and the same "
                              f"facts vs their own paragraph alone (stage 2)"),
                "recall_stage1": round(float((ps1 >= cal.threshold).mean()), 4),
                "recall_stage2": round(float((ps2 >= cal.threshold).mean()), 4),
                "negatives": (f"{len(ns_b)} of {len(ns)} facts vs two distractors + {len(sw_b)} of {len(sw)} hard "
                              f"negatives vs own paragraph (seeded sample, balanced with the positives)"),
                "base_rate": round(len(ps) / len(scores), 4),
                "false_accept_distractor": round(float((ns >= cal.threshold).mean()), 4),
                "false_accept_hard_negative": round(float((sw >= cal.threshold).mean()), 4),
            },
            "bands": bands,
            "grades": GRADES,
            "band_data": {"1": f"{len(ps1)} verbatim facts (HotpotQA calibration items, stage-1 premise)",
                          "2": f"{len(para)} entailed SNLI test pairs (calibration sample, disjoint from the bench's)",
                          "3": f"{len(partial)} facts with an unsupported distractor sentence appended",
                          "4": f"{len(ns)} facts vs two distractor paragraphs"},
            "grade_recovered_on_calibration": recovered,
            "hard_negative_grades_on_calibration": swap_grades,
        }


# ------------------------------------------------------------------------------------------------
# CLI

def load(args: argparse.Namespace) -> tuple[OnnxCrossEncoder, float, dict[str, Any]]:
    """The checker, its threshold and a stamp, from ``--model-dir`` or the registry (``--nli``).

    ``--model-dir``: ``model.onnx`` + ``tokenizer.json`` (+ ``manifest.json`` for max_length and
    entailment index); threshold from ``--threshold``, else ``calibration.json`` there, else 0.5.

    Raises:
        ConfigError / ModelFileError (registry), FileNotFoundError (folder).
    """
    threads = args.threads or None
    if args.model_dir:
        d = Path(args.model_dir)
        if not (d / "model.onnx").is_file():
            raise FileNotFoundError(f"{d}: no model.onnx")
        man = json.loads((d / "manifest.json").read_text()) if (d / "manifest.json").is_file() else {}
        checker = OnnxCrossEncoder(d / "model.onnx", d / "tokenizer.json", max_length=man.get("max_length", 320),
                                   entailment_index=man.get("entailment_index", 1), intra_op_threads=threads,
                                   premise_window=args.premise_window or None,
                                   sentence_window=args.sentence_window or 0, name=d.name)
        cal = d / "calibration.json"
        thr = args.threshold if args.threshold is not None else (
            json.loads(cal.read_text())["threshold"] if cal.is_file() else 0.5)
        stamp = {"model": d.name, "path": str(d), "onnx_sha256": sha256_file(d / "model.onnx"),
                 "premise_window": checker.premise_window, "sentence_window": checker.sentence_window,
                 "max_length": checker.max_length}
    else:
        spec = Registry.load(args.models).get(args.nli, "nli")
        checker = load_checker(spec, intra_op_threads=threads)
        if args.premise_window is not None:
            checker.premise_window = args.premise_window or None
        if args.sentence_window is not None:
            checker.sentence_window = args.sentence_window
        thr = args.threshold if args.threshold is not None else spec.threshold
        stamp = {"model": spec.name, "path": str(model_path(spec)), "onnx_sha256": spec.sha256,
                 "premise_window": checker.premise_window, "sentence_window": checker.sentence_window,
                 "max_length": checker.max_length}
    return checker, float(thr), stamp


def _table(rep: dict[str, Any]) -> str:
    nli, hp, d = rep["nli"], rep["hotpotqa"], rep["demo"]
    sw = rep["swaps"]
    lines = [f"{rep['stamp']['model']} @ threshold {rep['threshold']} ({rep['seconds']} s)", "",
             "| metric | value |", "|---|---|",
             f"| SNLI test binary acc @0.5 / @t (n={nli['snli_test']['n']}) | {nli['snli_test']['acc@0.5']:.3f} / {nli['snli_test']['acc@t']:.3f} |",
             f"| MNLI mismatched binary acc @0.5 / @t (n={nli['mnli_dev_mismatched_sample']['n']}) | "
             f"{nli['mnli_dev_mismatched_sample']['acc@0.5']:.3f} / {nli['mnli_dev_mismatched_sample']['acc@t']:.3f} |",
             f"| swap rejection, all (n={sw['all']['all']['n']}) | {rep['swap_rejection']:.3f} |",
             f"| swap rejection, HotpotQA facts (n={sw['hotpotqa']['all']['n']}) | {sw['hotpotqa']['all']['rejected']:.3f} |",
             f"| swap rejection, SNLI (n={sw['snli']['all']['n']}) | {sw['snli']['all']['rejected']:.3f} |",
             f"| HotpotQA support: recall / false accepts / balanced acc (n={hp['n_pos']}+{hp['n_neg']}) | "
             f"{hp['recall']:.3f} / {hp['false_accept']:.3f} / {hp['accuracy']:.3f} |",
             f"| HotpotQA facts vs their own paragraph accepted (stage 2) | {hp.get('recall_own_paragraph', float('nan')):.3f} |",
             f"| demo (en): 2000 / 2001 scores, categories accepted | {d['en']['year_2000']:.3f} / "
             f"{d['en']['year_2001']:.3f}, {d['en']['categories_ok']}/{d['en']['categories']} |",
             f"| demo (ru): 2000 / 2001 scores, categories accepted | {d['ru']['year_2000']:.3f} / "
             f"{d['ru']['year_2001']:.3f}, {d['ru']['categories_ok']}/{d['ru']['categories']} |",
             f"| XNLI-ru binary acc @0.5 / @t (n={rep['xnli_ru']['n']}) | {rep['xnli_ru']['acc@0.5']:.3f} / {rep['xnli_ru']['acc@t']:.3f} |",
             *([f"| windows per pair, pairs/s (sentence_window={rep['stamp'].get('sentence_window')}) | "
                f"{rep['speed']['windows_per_pair']}, {rep['speed']['pairs_per_s']} |"] if "speed" in rep else []),
             "", "swap rejection by kind (HotpotQA / SNLI):", "| kind | HotpotQA | SNLI |", "|---|---|---|"]
    kinds = sorted(set(sw["hotpotqa"]) | set(sw["snli"]) - {"all"})
    for k in kinds:
        if k == "all":
            continue
        a = sw["hotpotqa"].get(k)
        b = sw["snli"].get(k)
        fmt = lambda x: f"{x['rejected']:.3f} (n={x['n']})" if x else "-"
        lines.append(f"| {k} | {fmt(a)} | {fmt(b)} |")
    lines += ["", "threshold sweep:", "| t | SNLI acc | MNLI acc | swap rej. | swap rej. HotpotQA | HotpotQA recall | "
              "HotpotQA false acc. | demo en |", "|---|---|---|---|---|---|---|---|"]
    for s in rep.get("sweep", []):
        lines.append(f"| {s['threshold']} | {s['snli_acc']:.3f} | {s['mnli_acc']:.3f} | {s['swap_rejection']:.3f} | "
                     f"{s['swap_rejection_hotpotqa']:.3f} | {s['hotpotqa_recall']:.3f} | {s['hotpotqa_false_accept']:.3f} | "
                     f"{s['demo_en_passed']}/{len(DEMO_CHECKS['en'])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nli", help="registry name (default: the default NLI model)")
    ap.add_argument("--models", help="models.toml to read (default: the repo's)")
    ap.add_argument("--model-dir", help="an exported folder (model.onnx, tokenizer.json, manifest.json) instead of --nli")
    ap.add_argument("--threshold", type=float, help="accept threshold (default: registry / calibration.json / 0.5)")
    ap.add_argument("--premise-window", type=int, help="premise tokens per window (default: registry's; 128 for --model-dir)")
    ap.add_argument("--sentence-window", type=int, help="also score windows of 1..K consecutive premise sentences "
                                                        "(0 = off; default: registry's sentence_window, 0 for --model-dir)")
    ap.add_argument("--shared", default=str(SHARED))
    ap.add_argument("--n-snli", type=int, default=2000)
    ap.add_argument("--n-xnli", type=int, default=1000)
    ap.add_argument("--n-mnli", type=int, help="MNLI sample size (default: all 1000)")
    ap.add_argument("--n-facts", type=int, help="HotpotQA test facts sample size (default: all; swaps are made from them)")
    ap.add_argument("--llm", help="score with the LLM as checker (bench/llm_checker.LLMYesNoChecker: P(Yes) from one "
                                  "forward pass; threshold 0.5 unless --threshold) instead of an NLI model; slow: "
                                  "use the --n-* options")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=0, help="ONNX Runtime intra-op threads (0 = all cores)")
    ap.add_argument("--calibrate", action="store_true", help="calibrate threshold and bands first, report at that threshold")
    ap.add_argument("--target-precision", type=float, default=0.95)
    ap.add_argument("--write-calibration", help="write the calibration JSON to this file")
    ap.add_argument("--calibrate-only", action="store_true", help="calibrate (and write), print it, skip the bench")
    ap.add_argument("--number-guard", action=argparse.BooleanOptionalAction, default=None,
                    help="put engine/nli/guard.py's number guard in front of the checker (default: the registry entry's "
                         "number_guard; off for --model-dir)")
    ap.add_argument("--json", action="store_true", help="print the full report as JSON")
    args = ap.parse_args(argv)
    if args.model_dir and args.premise_window is None:
        args.premise_window = 128
    logging.basicConfig(level=logging.WARNING)
    if args.llm:
        from vericite.engine.llm.llama_cpp import LlamaCppLLM
        from vericite.bench.llm_checker import LLMYesNoChecker

        spec = Registry.load(args.models).get(args.llm, "llm")
        lm = LlamaCppLLM(verify(spec), n_ctx=spec.context, n_threads=args.threads or None)
        lm.name = spec.name
        checker = LLMYesNoChecker(lm)
        thr = args.threshold if args.threshold is not None else checker.threshold
        stamp = {"model": checker.name, "path": str(model_path(spec)), "onnx_sha256": None, "llm_sha256": spec.sha256,
                 "premise_window": None, "max_length": None}
    else:
        checker, thr, stamp = load(args)
    if args.number_guard and not isinstance(checker, NumberGuard):
        checker = NumberGuard(checker)
    elif args.number_guard is False and isinstance(checker, NumberGuard):
        checker = checker.checker
    stamp["number_guard"] = isinstance(checker, NumberGuard)
    bench = CitationCheck(Path(args.shared), n_snli=args.n_snli, n_xnli=args.n_xnli, seed=args.seed,
                          n_mnli=args.n_mnli, n_facts=args.n_facts)
    cal = None
    if args.calibrate or args.calibrate_only:
        t0 = time.perf_counter()
        cal = bench.calibrate(checker, args.target_precision)
        cal["seconds"] = round(time.perf_counter() - t0, 1)
        cal["stamp"] = stamp
        if args.threshold is None:
            thr = cal["threshold"]
        if args.write_calibration:
            Path(args.write_calibration).write_text(json.dumps(cal, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        if args.calibrate_only:
            print(json.dumps(cal, indent=1, ensure_ascii=False))
            return 0
    rep = bench.run(checker, thr)
    rep["stamp"] = {**stamp, "metric_version": METRIC_VERSION, "git_sha": git_revision(), "seed": args.seed,
                    "n_snli": args.n_snli, "n_xnli": args.n_xnli, "n_mnli": args.n_mnli, "n_facts": args.n_facts, "hotpotqa_test_items": f"{TEST_ITEMS[0]}-{TEST_ITEMS[1] - 1}"}
    if cal is not None:
        rep["calibration"] = cal
    if args.json:
        print(json.dumps(rep, indent=1, ensure_ascii=False))
    else:
        print(_table(rep))
        if cal is not None:
            c = cal["calibration"]
            print(f"\ncalibrated: threshold {cal['threshold']} for precision >= {cal['target_precision']} "
                  f"(precision {c['precision']}, recall {c['recall']}, {c['n_pos']} pos / {c['n_neg']} neg); "
                  f"bands {cal['bands']}; grade recovered {cal['grade_recovered_on_calibration']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
