"""Citation marks in text: parse [N] / [N, M] / [N][M], strip them, merge adjacent groups.

Documents are numbered from 1 in prompts and answers ("Document [1]"), as in ALCE and VeriCite.
"""
from __future__ import annotations

import re

# One citation group: [3] or [1, 2] (spaces tolerated). Numbers only: "[a]" is not a citation.
_GROUP = re.compile(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]")
# A run of adjacent groups, e.g. "[1][2]" or "[1] [2, 3]".
_RUN = re.compile(r"(?:\[\s*\d+(?:\s*,\s*\d+)*\s*\]\s*)*\[\s*\d+(?:\s*,\s*\d+)*\s*\]")


def parse_citations(sentence: str) -> tuple[int, ...]:
    """Return the cited document numbers (1-based) in order of first appearance, deduplicated.

    >>> parse_citations("Rush is a band [1][3]. It is Canadian [1, 2].")
    (1, 3, 2)
    """
    seen: dict[int, None] = {}
    for group in _GROUP.findall(sentence):
        for n in group.split(","):
            seen.setdefault(int(n), None)
    return tuple(seen)


def invalid_citations(citations: tuple[int, ...], n_docs: int) -> tuple[int, ...]:
    """The citations that name no document: < 1 or > ``n_docs``."""
    return tuple(c for c in citations if c < 1 or c > n_docs)


def strip_citations(sentence: str) -> str:
    """The sentence without citation marks, spaces tidied ("in 1998 [1]." -> "in 1998.")."""
    out = _GROUP.sub("", sentence)
    out = re.sub(r"\s+([.,;:!?])", r"\1", out)
    return re.sub(r"\s{2,}", " ", out).strip()


def format_citations(citations: tuple[int, ...] | list[int]) -> str:
    """``(1, 2)`` -> ``"[1, 2]"``; empty -> ``""``."""
    return f"[{', '.join(str(c) for c in citations)}]" if citations else ""


def merge_adjacent(text: str) -> str:
    """Merge runs of adjacent citation groups into one sorted, deduplicated group.

    >>> merge_adjacent("Rush [2][1] [2].")
    'Rush [1, 2].'
    """
    def _merge(m: re.Match[str]) -> str:
        nums = sorted({int(n) for g in _GROUP.findall(m.group(0)) for n in g.split(",")})
        return format_citations(nums)

    return _RUN.sub(_merge, text)


def leading_citations(sentence: str) -> tuple[str, str]:
    """Split a sentence that starts with citation marks into (marks, rest).

    Sentence splitters put "[1]" of "... in 1998. [1] Next ..." at the start of the next
    sentence; the pipeline moves such marks back to the sentence they close.
    """
    m = re.match(r"\s*((?:\[\s*\d+(?:\s*,\s*\d+)*\s*\]\s*)+)", sentence)
    if not m:
        return "", sentence
    return m.group(1).strip(), sentence[m.end():].strip()
