"""Test doubles: a scripted LLM and a deterministic word-containment NLI checker.

Stage rules are tested with these, so a rule test depends on the rule, never on one model's scores.
"""
from __future__ import annotations

import re

import numpy as np

from vericite.engine.records import LLMCall

_WORD = re.compile(r"\w+")


class ScriptedLLM:
    """Returns ``replies[purpose]`` (or ``replies[purpose prefix]``); records every prompt."""

    name = "scripted"
    n_ctx = 4096

    def __init__(self, replies: dict[str, str]):
        self.replies = replies
        self.calls: list[tuple[str, list[dict] | str, str | None]] = []

    def chat(self, messages, *, max_tokens, purpose, grammar=None):
        self.calls.append((purpose, messages, grammar))
        text = self.replies.get(purpose, self.replies.get(purpose.split(":")[0], ""))
        return LLMCall(purpose, 10, 10, len(text.split()), 1.0, 1.0, 2.0, "stop", text)

    def yes_probability(self, messages, *, purpose):
        p = float(self.replies.get(purpose, self.replies.get("p_yes", 0.0)))
        self.calls.append((purpose, messages, "scored"))
        return p, LLMCall(purpose, 10, 10, 0, 1.0, 0.0, 1.0, "scored", "Yes" if p >= 0.5 else "No")

    def count_tokens(self, text):
        return len(text.split())

    def truncate(self, text, max_tokens):
        words = text.split()
        return (text, False) if len(words) <= max_tokens else (" ".join(words[:max_tokens]), True)


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


class WordChecker:
    """P(entailment) = 1.0 when every word of the hypothesis occurs in the premise, else a tenth
    of the share that does (so at most 0.1): entailed exactly when nothing new is claimed.

    Records every pair it scored in ``pairs``.
    """

    name = "word-checker"
    ep = "test"
    cache_id = "word-checker"

    def __init__(self):
        self.pairs: list[tuple[str, str]] = []

    @staticmethod
    def score(premise: str, hypothesis: str) -> float:
        h, p = words(hypothesis), words(premise)
        if not h:
            return 0.0
        return 1.0 if h <= p else 0.1 * len(h & p) / len(h)

    def scores(self, pairs):
        self.pairs += list(pairs)
        return np.array([self.score(p, h) for p, h in pairs], dtype=np.float32)
