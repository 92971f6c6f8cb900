"""Threshold choice on a dev set (export/threshold.py): pure, no model."""
import numpy as np

from vericite.export.threshold import GRID, choose_threshold, figures


def test_best_accuracy_ties_towards_one_half():
    s = np.array([0.1, 0.2, 0.62, 0.7, 0.9])
    y = np.array([False, False, True, True, True])
    t, sweep = choose_threshold(s, y)
    assert t == 0.5 and len(sweep) == len(GRID)          # 0.25 ... 0.6 all score 1.0: the nearest to 0.5
    t, _ = choose_threshold(np.array([0.1, 0.65, 0.7, 0.9]), np.array([False, False, True, True]))
    assert t == 0.7


def test_figures_report_the_majority_rate():
    f = figures(np.array([0.9, 0.1, 0.2, 0.3]), np.array([True, False, False, False]), 0.5)
    assert f["acc@0.5"] == 1.0 and f["majority_rate"] == 0.75 and f["pos_rate"] == 0.25 and f["auc"] == 1.0
