"""Sentence-window premises and the long-hypothesis rule (issue 13), engine/nli/onnx_scorer.py:
pure tests of the window planner and the hypothesis splitter (no model).

The same subject in other tiers: tests/integration/test_premise_windows.py.
"""
from __future__ import annotations

import logging

import pytest

from vericite.engine.nli import onnx_scorer as O
from vericite.engine.nli.t5 import TrueInputEncoder

# ------------------------------------------------------------------------------------------------
# window planning (pure)


def test_three_sentences_k2_give_every_run_of_one_and_two():
    s = [[1, 2], [3], [4, 5]]
    assert O.sentence_windows(s, 2, budget=10) == [[1, 2], [3], [4, 5], [1, 2, 3], [3, 4, 5]]
    # the token window (the whole premise) comes first; K = 3 would repeat it: skipped
    assert O.plan_premise_windows([1, 2, 3, 4, 5], 10, s, 3) == [[1, 2, 3, 4, 5], [1, 2], [3], [4, 5], [1, 2, 3],
                                                                 [3, 4, 5]]


def test_sentence_window_zero_is_the_token_windows_alone():
    ids = list(range(300))
    sents = [ids[i:i + 30] for i in range(0, 300, 30)]
    assert O.plan_premise_windows(ids, 128, sents, 0) == O.premise_windows(ids, 128)
    assert O.plan_premise_windows(ids, 128, None, 2) == O.premise_windows(ids, 128)


def test_a_one_sentence_premise_is_scored_once():
    assert O.plan_premise_windows([7, 8, 9], 10, [[7, 8, 9]], 2) == [[7, 8, 9]]


def test_windows_over_the_budget():
    # two sentences of 6 tokens with budget 8: the pair does not fit and is skipped; a sentence of
    # 12 tokens is cut into token windows of its own, aligned to its start
    s = [list(range(6)), list(range(10, 16)), list(range(20, 32))]
    got = O.sentence_windows(s, 2, budget=8)
    assert got == [list(range(6)), list(range(10, 16)), list(range(20, 28)), list(range(24, 32))]
    assert all(len(w) <= 8 for w in got)


def test_cap_keeps_single_sentences_first_and_logs_once(monkeypatch, caplog):
    monkeypatch.setattr(O, "_logged", set())
    sents = [[i] for i in range(40)]                     # 40 sentences, K = 2: 40 + 39 = 79 windows
    assert len(O.sentence_windows(sents, 2, budget=100, cap=1000)) == 79
    with caplog.at_level(logging.INFO, logger=O.log.name):
        got = O.sentence_windows(sents, 2, budget=100)
        O.sentence_windows(sents, 2, budget=100)
    assert len(got) == O.MAX_SENTENCE_WINDOWS == 64
    assert got[:40] == sents and got[40] == [0, 1] and got[-1] == [23, 24]
    infos = [r for r in caplog.records if r.levelno == logging.INFO and "capped" in r.getMessage()]
    assert len(infos) == 1


def test_sentences_past_the_premise_token_cap_are_dropped():
    sents = [list(range(1000))] * 9                     # 9000 tokens > MAX_PREMISE_TOKENS = 8192
    assert len(O.sentence_windows(sents, 1, budget=1000)) == 1  # identical windows are kept once
    assert O.sentence_windows([[1]] * 3, 0, budget=10) == []


# ------------------------------------------------------------------------------------------------
# hypothesis parts (pure)

def _words(text: str) -> list[str]:
    return text.split()


def test_a_hypothesis_that_fits_is_one_part():
    assert O.split_hypothesis("Rush is a band. It is Canadian.", _words, 10) == [_words("Rush is a band. It is Canadian.")]


def test_a_long_hypothesis_is_split_into_sentences_then_clauses_then_chunks():
    text = ("Rush is a band. It formed in Toronto, it released many albums, and it toured widely. "
            "Aaaa bbbb cccc dddd eeee ffff gggg hhhh")
    parts = O.split_hypothesis(text, _words, 5)
    assert parts == [["Rush", "is", "a", "band."],
                     ["It", "formed", "in", "Toronto,"], ["it", "released", "many", "albums,"],
                     ["and", "it", "toured", "widely."],
                     ["Aaaa", "bbbb", "cccc", "dddd", "eeee"], ["ffff", "gggg", "hhhh"]]
    assert [t for p in parts for t in p] == _words(text)  # nothing dropped, order kept
    with pytest.raises(ValueError):
        O.split_hypothesis(text, _words, 0)


# ------------------------------------------------------------------------------------------------
# the T5 encoder shares the planner

class _WordTok:
    """One token per word: ids from a growing vocabulary; "</s>" is id 1."""

    def __init__(self):
        self.vocab: dict[str, int] = {}

    def token_to_id(self, t):
        return 1 if t == "</s>" else None

    def encode(self, text, add_special_tokens=False):
        return type("E", (), {"ids": [self.vocab.setdefault(w, 100 + len(self.vocab)) for w in text.split()]})()


def test_t5_encoder_adds_sentence_windows_and_refuses_to_cut():
    tok = _WordTok()
    premise = "The band formed in Toronto. It released albums. It toured widely."
    enc = TrueInputEncoder(tok, template="{premise} | {hypothesis}", max_length=40, sentence_window=2)
    ids = lambda t: tok.encode(t).ids
    rows = enc.windows(premise, "The band toured.")
    tail = [*ids("|"), *ids("The band toured."), 1]
    assert [r[:-len(tail)] for r in rows] == [ids(premise), ids("The band formed in Toronto."), ids("It released albums."),
                                              ids("It toured widely."),
                                              ids("The band formed in Toronto. It released albums."),
                                              ids("It released albums. It toured widely.")]
    assert all(r[-len(tail):] == tail for r in rows)
    enc.sentence_window = 0
    assert len(enc.windows(premise, "The band toured.")) == 1
    with pytest.raises(ValueError, match="longer than 20"):
        enc.windows(premise, " ".join(["word"] * 21))
    with pytest.raises(ValueError):
        TrueInputEncoder(tok, sentence_window=-1)
