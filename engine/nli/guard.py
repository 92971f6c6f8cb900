"""Number guard: reject a hypothesis that states a number its premise does not contain.

Small NLI checkers are weak exactly where citations go wrong: a statement that copies its
document but changes a year, a date or a quantity ("launched in 2001" against "launched in 2000")
often still scores as entailed (``vericite bench citation-check``, swap pairs). The guard is a
deterministic rule in front of the score: every number in the hypothesis (digits, the number
words two-twenty and the tens, the ordinals second-twentieth) and every magnitude word
(thousand, million, billion, trillion) must occur in the premise, in digits or in words ("2"
matches "two" and "second"). "one" and "first" are not checked (too often not numbers: "one of
the", "first album" for "debut album"). A pair that fails gets the score 0.0; every other pair
keeps the checker's score.

Numbers are runs of digits with optional thousands separators or a decimal part ("1,000" and
"1000" are the same number, "3.5" stays "3.5"); a trailing "s"/"th"/"st" is ignored ("1990s" ->
"1990"). Number words are English and Russian, 0-20, the tens, and the ordinals up to "twentieth".
The rule cannot catch an entity, negation or role swap; it can reject a correct paraphrase
whose number is derived ("45 years old" from two dates), which is rare in extracted statements
(the support-recall cost is measured by the citation-check bench).
"""
from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from ..text.content import ORDINALS_EN, WORDS_EN

_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])|\d+(?:\.\d+)?")
# the English number words the guard reads are engine/text/content.py's (also the hard-negative generators'
# table, export/hard_negatives.py)
TENS_EN = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
           "hundred": 100, "thousand": 1000}
_WORDS_RU = ("ноль один два три четыре пять шесть семь восемь девять десять одиннадцать двенадцать тринадцать "
             "четырнадцать пятнадцать шестнадцать семнадцать восемнадцать девятнадцать двадцать").split()
_WORD_VALUES = {w: i for i, w in enumerate(WORDS_EN)} | {w: i for i, w in enumerate(ORDINALS_EN)} | TENS_EN \
    | {w: i for i, w in enumerate(_WORDS_RU)} | {"одна": 1, "две": 2}
_UNCHECKED = {"zero", "one", "zeroth", "first", "ноль", "один", "одна"}  # hypothesis words too often not numbers
_MAGNITUDES = {"thousand", "million", "billion", "trillion", "тысяча", "миллион", "миллиард"}


def numbers(text: str) -> set[str]:
    """The numbers written in digits in ``text``, normalised ("1,000" -> "1000", "07" -> "7")."""
    out = set()
    for m in _NUMBER.finditer(text):
        s = m.group(0).replace(",", "")
        whole, _, frac = s.partition(".")
        out.add((whole.lstrip("0") or "0") + (f".{frac}" if frac else ""))
    return out


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def premise_numbers(text: str) -> set[str]:
    """:func:`numbers` of ``text`` plus the values of all its number words ("two" -> "2", "third"
    -> "3") and its magnitude words ("million")."""
    words = _words(text)
    return numbers(text) | {str(_WORD_VALUES[w]) for w in words if w in _WORD_VALUES} | (set(words) & _MAGNITUDES)


def hypothesis_numbers(text: str) -> set[str]:
    """What the guard checks in a hypothesis: :func:`numbers`, the values of its number words
    except "one"/"first" (and "zero"), and its magnitude words."""
    words = _words(text)
    return numbers(text) | {str(_WORD_VALUES[w]) for w in words if w in _WORD_VALUES and w not in _UNCHECKED} \
        | (set(words) & _MAGNITUDES)


def unsupported_numbers(premise: str, hypothesis: str) -> set[str]:
    """Numbers and magnitude words of ``hypothesis`` that ``premise`` does not contain (empty set:
    the guard passes)."""
    return hypothesis_numbers(hypothesis) - premise_numbers(premise)


class NumberGuard:
    """An NLI checker with the number guard in front: same interface, ``scores(pairs) -> float32 [n]``.

    Args:
        checker: the wrapped checker (``scores``, ``name``; ``cache_id``, ``ep`` and the rest
            are passed through). The cache id gains "+number-guard", so cached scores of the
            bare checker are never mixed with guarded ones.
    """

    def __init__(self, checker):
        self.checker = checker
        self.name = f"{checker.name}+number-guard"

    _OWN = ("checker", "name")

    @property
    def cache_id(self) -> str:
        """The wrapped checker's cache id + "+number-guard" (read each time: it follows settings such
        as ``sentence_window`` changed on the checker); AttributeError when the checker has none."""
        return f"{self.checker.cache_id}+number-guard"

    def __getattr__(self, name: str):
        return getattr(self.checker, name)

    def __setattr__(self, name: str, value) -> None:  # settings such as premise_window reach the checker
        if name in self._OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self.checker, name, value)

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The checker's P(entailment), 0.0 where the hypothesis has a number the premise lacks.

        Shapes: ``pairs`` n (premise, hypothesis) strings -> float32 [n]. Raises what the
        wrapped checker raises.
        """
        out = np.asarray(self.checker.scores(pairs), dtype=np.float32).copy()
        for i, (p, h) in enumerate(pairs):
            if unsupported_numbers(p, h):
                out[i] = 0.0
        return out
