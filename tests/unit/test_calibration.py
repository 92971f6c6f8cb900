"""Threshold calibration and grade bands (bench/citation_check.py), and the seeded samples and ROC AUC
they share with export/train_nli.py. Pure numpy: no torch, no shared data."""
from __future__ import annotations

import random

import numpy as np
import pytest
from vericite.bench.citation_check import (
    calibrate_bands,
    calibrate_threshold,
    grade,
    is_verbatim,
)
from vericite.export.train_nli import auc, seeded_sample

def test_calibrate_threshold_known_answer():
    s = [0.9, 0.8, 0.7, 0.6, 0.5]
    y = [1, 1, 0, 1, 0]
    c = calibrate_threshold(s, y, 1.0)
    assert c.threshold == pytest.approx(0.75) and c.precision == 1.0 and c.recall == pytest.approx(2 / 3, abs=1e-4)
    c = calibrate_threshold(s, y, 0.75)  # accepting 0.6 and above: 3 TP, 1 FP
    assert c.threshold == pytest.approx(0.55) and c.precision == 0.75 and c.recall == 1.0
    assert (c.n_pos, c.n_neg) == (3, 2)
    # ties: a cut cannot split equal scores
    c = calibrate_threshold([0.9, 0.8, 0.8, 0.1], [1, 1, 0, 0], 1.0)
    assert c.threshold == pytest.approx(0.85)
    rng = np.random.default_rng(0)
    pos, neg = rng.uniform(0.6, 1.0, 500), rng.uniform(0.0, 0.7, 500)
    c = calibrate_threshold(np.r_[pos, neg], np.r_[np.ones(500), np.zeros(500)], 0.999)
    assert 0.69 < c.threshold < 0.71  # the top of the negatives
    with pytest.raises(ValueError, match="best"):
        calibrate_threshold([0.9, 0.8], [0, 1], 1.0)
    with pytest.raises(ValueError):
        calibrate_threshold([0.5], [0], 0.9)


def test_grade_bands():
    bands = {"1": 0.97, "2": 0.7, "3": 0.3}
    assert [grade(s, bands) for s in (0.99, 0.97, 0.8, 0.7, 0.5, 0.3, 0.1)] == [1, 1, 2, 2, 3, 3, 4]
    assert grade(0.8, {1: 0.97, 2: 0.7, 3: 0.3}) == 2
    with pytest.raises(ValueError):
        grade(0.5, {"1": 0.5, "2": 0.7, "3": 0.3})
    with pytest.raises(ValueError):
        grade(0.5, {"1": 0.9})
    # grade 1 decided by the text when the caller knows it
    assert grade(0.8, bands, verbatim=True) == 1 and grade(0.99, bands, verbatim=False) == 2
    assert grade(0.5, bands, verbatim=True) == 3
    assert is_verbatim("Yandex Market was launched in 2000 as a service.", "yandex market was  launched in 2000.")
    assert not is_verbatim("Yandex Market was launched in 2000.", "Yandex Market was launched in 2001.")
    by_grade = {1: [0.99, 0.995, 0.98], 2: [0.8, 0.85, 0.9], 3: [0.4, 0.5, 0.45], 4: [0.05, 0.1, 0.2]}
    b = calibrate_bands(by_grade, 0.7)
    assert b["2"] == 0.7 and 0.9 < b["1"] <= 0.98 and 0.2 < b["3"] <= 0.4
    assert all(grade(s, b) == g for g, v in by_grade.items() for s in v)
    # verbatim scoring no higher than paraphrase: no score band for grade 1
    b = calibrate_bands({1: [0.8, 0.85], 2: [0.9, 0.95], 3: [0.4], 4: [0.1]}, 0.7)
    assert b["1"] == 1.0 and grade(0.99, b) == 2 and grade(0.99, b, verbatim=True) == 1


def test_seeded_sample():
    rows = [f"r{i}" for i in range(50)]
    got, idx = seeded_sample(rows, 10, 0, "k")
    assert idx == sorted(random.Random("0:k").sample(range(50), 10)) and got == [rows[i] for i in idx]
    assert seeded_sample(rows, 10, 0, "k") == (got, idx) and seeded_sample(rows, 10, 0, "other")[1] != idx
    assert seeded_sample(rows, None, 0, "k") == (rows, list(range(50))) == seeded_sample(rows, 50, 0, "k")
    rest, ridx = seeded_sample(rows, 10, 0, "calib", exclude=set(idx))  # disjoint from the first sample
    assert len(rest) == 10 and not set(ridx) & set(idx)
    assert seeded_sample(rows, 45, 0, "calib", exclude=set(idx))[1] == sorted(set(range(50)) - set(idx))


def test_auc_counts_ties_one_half():
    assert auc([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 0]) == 1.0
    assert auc([0.1, 0.9], [1, 0]) == 0.0
    assert auc([0.5, 0.5, 0.5], [1, 0, 0]) == 0.5
    assert auc([0.9, 0.5, 0.5, 0.1], np.array([True, True, False, False])) == pytest.approx(7 / 8)
    assert auc([0.2, 0.3], [1, 1]) is None and auc([0.2], [0]) is None
