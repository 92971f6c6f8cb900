"""The brief's graded scale on a checker's score: 1 verbatim, 2 paraphrase, 3 partial, 4 not supported.

Bands are lower bounds on P(entailment), calibrated per checker on held-out data by
``vericite bench citation-check --calibrate`` (``calibrate_bands`` there) and stored with the
model: ``grade_bands = [b1, b2, b3]`` in models.toml, where b2 is the decision threshold. The
pipeline stamps every checked sentence with its grade (``Statement.grade``).
"""
from __future__ import annotations

import re
from typing import Mapping, Sequence


def _norm(s: str) -> str:
    """Lower case, one space between words, no closing or opening punctuation."""
    return " ".join(s.lower().split()).strip(" .!?;:")


def is_verbatim(premise: str, hypothesis: str) -> bool:
    """True when the hypothesis (case, whitespace and final punctuation ignored) occurs in the premise."""
    h = _norm(hypothesis)
    return bool(h) and h in _norm(premise)


def is_own_sentence(premise: str, hypothesis: str) -> bool:
    """True when the hypothesis (case, whitespace and final punctuation ignored) is one whole sentence of the
    premise: it starts the premise or follows a full stop, "!" or "?", and ends it or is followed by one. A
    piece of a sentence is not ("Paris is in Spain" of "It is false that Paris is in Spain.")."""
    h = _norm(hypothesis)
    text = " ".join(premise.lower().split())  # its stops kept: they bound its sentences
    if not h:
        return False
    for m in re.finditer(re.escape(h), text):
        before, after = text[:m.start()].rstrip(), text[m.end():]
        if (not before or before[-1] in ".!?\"”") and (not after or after[0] in ".!?"):
            return True
    return False


def grade(score: float, bands: Mapping[str, float] | Sequence[float], *, verbatim: bool | None = None) -> int:
    """The graded verdict of one P(entailment): 1 verbatim, 2 paraphrase, 3 partial, 4 not supported.

    P(entailment) says how sure the checker is, not whether the words are the premise's own, so
    band b1 separates verbatim from paraphrase only as well as the calibration data allow (see
    ``grade_recovered_on_calibration`` in calibration.json). Pass ``verbatim`` (e.g.
    :func:`is_verbatim`) to decide grade 1 by the text instead: then b1 is not used.

    Args:
        score: P(entailment) in [0, 1].
        bands: lower bounds ``{"1": b1, "2": b2, "3": b3}`` with b1 >= b2 >= b3 (as stored in
            ``calibration.json``; integer keys are accepted too), or the sequence ``[b1, b2, b3]``
            (models.toml's ``grade_bands``).
        verbatim: None = bands only; True/False = grade 1 iff verbatim and score >= b2.

    Returns:
        1 if score >= b1, 2 if score >= b2, 3 if score >= b3, else 4 (with ``verbatim``: 1 if
        verbatim and score >= b2).

    Raises:
        ValueError: missing keys or bands not in decreasing order.
    """
    try:
        if isinstance(bands, Mapping):
            b = [float(bands[k] if k in bands else bands[int(k)]) for k in ("1", "2", "3")]  # type: ignore[index]
        else:
            if len(bands) != 3:
                raise KeyError("need three bands")
            b = [float(x) for x in bands]
    except KeyError as e:
        raise ValueError(f"bands need keys '1', '2', '3', got {sorted(map(str, bands))}") from e
    if not b[0] >= b[1] >= b[2]:
        raise ValueError(f"bands must decrease (b1 >= b2 >= b3), got {b}")
    if verbatim is not None and score >= b[1]:
        return 1 if verbatim else 2
    for g, lower in zip((1, 2, 3), b):
        if score >= lower:
            return g
    return 4
