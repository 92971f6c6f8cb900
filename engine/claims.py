"""Question-aware claims: a fragment answer becomes a full sentence before it is checked.

A bare name ("Berea College", "Norihiro Koizumi") is "entailed" by any document that mentions it,
so checking it as written tests that the name is in the document, never that it answers the
question. A sentence with fewer than ``claim_words`` words is therefore rewritten by the LLM, with
the question, as one full declarative sentence ("James Fieser received his B.A. from Berea
College") and that sentence is the hypothesis: a distractor that only names the entity fails.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from . import records as R
from .checks import Claim
from .citations import strip_citations
from .records import Statement


def is_fragment(text: str, min_words: int) -> bool:
    """Whether ``text`` (citation marks removed) has fewer than ``min_words`` words (0: never)."""
    return min_words > 0 and len(text.split()) < min_words


def clean_rewrite(text: str) -> str:
    """The rewrite step's reply as one sentence: its first line, citation marks and quotes removed."""
    line = next((ln.strip() for ln in text.strip().splitlines() if ln.strip()), "")
    return strip_citations(line).strip().strip('"“”«»').strip()


def complete_claims(items: Sequence[Statement | Claim], rewrite: Callable[[str], str] | None, min_words: int, *,
                    failed: str = R.DROPPED_FRAGMENT) -> list[Statement | Claim]:
    """``items`` with every fragment claim rewritten as a full sentence by ``rewrite``.

    Args:
        items: a stage's sorted sentences (:func:`~vericite.engine.checks.answer_claims` / ``fact_claims``).
        rewrite: fragment text -> the LLM's full sentence (the prompt set's claim step); None when
            the prompt set has no claim step (fragments then fail).
        min_words: a claim with fewer words is a fragment (:func:`is_fragment`); 0 changes nothing.
        failed: the verdict of a fragment that could not be made a full sentence (the rewrite is
            empty or still a fragment): ``dropped:not_a_statement`` in stages 1-2, ``unsupported``
            in the final check.

    Returns:
        The items in order; a rewritten claim keeps its citations, premise and ``raw`` (the
        sentence as first written) and gets the full sentence as ``text``, the hypothesis.
    """
    out: list[Statement | Claim] = []
    for x in items:
        if not isinstance(x, Claim) or not is_fragment(x.text, min_words):
            out.append(x)
            continue
        full = clean_rewrite(rewrite(x.text)) if rewrite else ""
        if not full or is_fragment(full, min_words):
            out.append(Statement(x.stage, x.text, x.citations, failed, None, x.raw))
        else:
            out.append(replace(x, text=full, rewritten=True))
    return out
