"""The ONNX NLI backend with the real default checker (int8 MiniLM carried in models/).

The same subject in other tiers: tests/unit/test_nli.py.
"""
import json

import numpy as np


PREMISE = "Yandex Market was launched in 2000 as a price comparison service."


def test_entailed_above_contradicted(checker):
    p = checker.scores([
        (PREMISE, "Yandex Market was launched in 2000."),
        (PREMISE, "Yandex Market is a food delivery service."),
        ("A man is playing a guitar on stage.", "A man is performing music."),
        ("A man is playing a guitar on stage.", "A woman is sleeping at home."),
    ])
    assert p.dtype == np.float32 and p.shape == (4,)
    assert p[0] > 0.5 > p[1]
    assert p[2] > 0.5 > p[3]


def test_real_snli_pairs(checker, shared):
    rows = [json.loads(line) for line in (shared / "data" / "nli" / "snli_test.jsonl").open()][:200]
    labels = np.array([r["label"] == "entailment" for r in rows])
    p = checker.scores([(r["premise"], r["hypothesis"]) for r in rows])
    acc = float(((p >= 0.5) == labels).mean())
    assert acc >= 0.8, acc  # model card: 0.890 on the full SNLI test set


def test_batched_equals_one_by_one(checker):
    pairs = [(PREMISE, "Yandex Market was launched in 2000."),
             ("Rush is a Canadian rock band formed in 1968 in Toronto by Alex Lifeson and others.", "Rush is Canadian."),
             ("Short.", "A much longer hypothesis that talks about something else entirely, at length.")]
    batched = checker.scores(pairs)
    single = np.array([checker.scores([pr])[0] for pr in pairs])
    assert np.abs(batched - single).max() < 0.05
    assert ((batched >= 0.5) == (single >= 0.5)).all()


def test_long_premise_is_windowed(checker):
    filler = " ".join(f"Town number {i} has a small library and a bakery." for i in range(150))
    premise = filler + " Neil Peart was inducted into the Modern Drummer Hall of Fame in 1983."
    hyp = "Neil Peart was inducted into the Modern Drummer Hall of Fame."
    p = checker.scores([(premise, hyp), (filler, hyp)])
    assert p[0] > 0.5 > p[1]


def test_empty_input(checker):
    assert checker.scores([]).shape == (0,)
