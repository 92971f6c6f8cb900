"""Citation marks in text: parse [N] / [N, M] / [N][M], strip them, merge adjacent groups.

Documents are numbered from 1 in prompts and answers ("Document [1]"), as in ALCE and VeriCite.
Forms other systems write are read as the same marks (:func:`normalise_citations`): "[1-3]",
"[1, 2-3]", "[1;2]", "[1—3]", "[^1]", "[[1]]", "[Document 1]", "[Doc 2, 3]", "【1】", "［1］";
superscripts and "(1)" are not citations (parentheses hold years, counts and list items too). A citation
number has at most two digits (:data:`MAX_CITATION`): "[2004]" after "et al." or "[100]" is text, never a citation.
"""
from __future__ import annotations

import re

#: The largest number read as a citation (two digits): larger bracketed numbers are years, pages...
MAX_CITATION = 99
_N = r"\d{1,2}(?!\d)"
# One citation group: [3] or [1, 2] (spaces tolerated). Numbers only: "[a]" is not a citation.
_GROUP = re.compile(rf"\[\s*({_N}(?:\s*,\s*{_N})*)\s*\]")
# A run of adjacent groups, e.g. "[1][2]" or "[1] [2, 3]".
_RUN = re.compile(rf"(?:\[\s*{_N}(?:\s*,\s*{_N})*\s*\]\s*)*\[\s*{_N}(?:\s*,\s*{_N})*\s*\]")
# Other systems' forms: 【1】 ［1］, [Document 1] / [Doc 1, 2] / [Passage 3] / [Source 2], [1-3].
_BRACKETS = str.maketrans({"【": "[", "】": "]", "［": "[", "］": "]"})
_NAMED = re.compile(rf"\[\s*(?:documents?|docs?|passages?|sources?|refs?)\.?\s*({_N}(?:\s*(?:,|and)\s*{_N})*)\s*\]",
                    re.IGNORECASE)
# A list with ranges, other separators, a footnote caret or doubled brackets: [1, 2-3], [1;2], [1—3],
# [^1], [[1]]. Superscripts and "(1)" are text: parentheses hold years, counts and list items too.
_ITEM = rf"{_N}(?:\s*[-–—]\s*{_N})?"
_LIST = re.compile(rf"\[\[?\s*\^?\s*({_ITEM}(?:\s*[,;]\s*\^?\s*{_ITEM})*)\s*\]\]?")
# Our own lenient marks: "[2, 3*]" (3 supports the sentence only partly) reads as [2, 3].
_STARRED = re.compile(rf"\[\s*{_N}\*?(?:\s*,\s*{_N}\*?)*\s*\]")


def normalise_citations(text: str) -> str:
    """``text`` with other systems' citation forms rewritten as ``[N]`` / ``[N, M]``.

    >>> normalise_citations("Rush [1-3], see [Document 4] and 【5】.")
    'Rush [1, 2, 3], see [4] and [5].'
    """
    text = text.translate(_BRACKETS)
    text = _STARRED.sub(lambda m: m.group(0).replace("*", ""), text)
    text = _NAMED.sub(lambda m: "[" + ", ".join(re.findall(r"\d+", m.group(1))) + "]", text)

    def _list(m: re.Match[str]) -> str:
        nums: list[int] = []
        for item in re.split(r"\s*[,;]\s*", m.group(1)):
            ends = [int(x) for x in re.findall(r"\d+", item)]
            if ends[0] > ends[-1]:
                return m.group(0)  # "[3-1]" is not a range
            nums += [n for n in range(ends[0], ends[-1] + 1) if n not in nums]
        return format_citations(nums)

    return _LIST.sub(_list, text)


def parse_citations(sentence: str) -> tuple[int, ...]:
    """Return the cited document numbers (1-based) in order of first appearance, deduplicated.

    >>> parse_citations("Rush is a band [1][3]. It is Canadian [1, 2].")
    (1, 3, 2)
    """
    seen: dict[int, None] = {}
    for group in _GROUP.findall(normalise_citations(sentence)):
        for n in group.split(","):
            seen.setdefault(int(n), None)
    return tuple(seen)


def invalid_citations(citations: tuple[int, ...], n_docs: int) -> tuple[int, ...]:
    """The citations that name no document: < 1 or > ``n_docs``."""
    return tuple(c for c in citations if c < 1 or c > n_docs)


def strip_citations(sentence: str) -> str:
    """The sentence without citation marks, spaces tidied ("in 1998 [1]." -> "in 1998.")."""
    out = _GROUP.sub("", normalise_citations(sentence))
    out = re.sub(r"\s+([.,;:!?])", r"\1", out)
    return re.sub(r"\s{2,}", " ", out).strip()


def format_citations(citations: tuple[int, ...] | list[int], partial: tuple[int, ...] | set[int] = ()) -> str:
    """``(1, 2)`` -> ``"[1, 2]"``; with ``partial=(2,)`` -> ``"[1, 2*]"`` (the brief's mark for a
    citation that supports the sentence only partly); empty -> ``""``."""
    return f"[{', '.join(f'{c}*' if c in partial else str(c) for c in citations)}]" if citations else ""


def merge_adjacent(text: str) -> str:
    """Merge runs of adjacent citation groups into one sorted, deduplicated group.

    >>> merge_adjacent("Rush [2][1] [2].")
    'Rush [1, 2].'
    """
    def _merge(m: re.Match[str]) -> str:
        nums = sorted({int(n) for g in _GROUP.findall(m.group(0)) for n in g.split(",")})
        return format_citations(nums)

    return _RUN.sub(_merge, normalise_citations(text))


def leading_citations(sentence: str) -> tuple[str, str]:
    """Split a sentence that starts with citation marks into (marks, rest).

    Sentence splitters put "[1]" of "... in 1998. [1] Next ..." at the start of the next
    sentence; the pipeline moves such marks back to the sentence they close.
    """
    m = re.match(rf"\s*((?:\[\s*{_N}(?:\s*,\s*{_N})*\s*\]\s*)+)", normalise_citations(sentence))
    if not m:
        return "", sentence
    return m.group(1).strip(), normalise_citations(sentence)[m.end():].strip()


def alce_citations(sentence: str) -> tuple[int, ...]:
    """The documents ALCE's eval.py reads from a sentence: every ``[N`` (regex ``\\[\\d+``), in
    order, duplicates kept ("[1, 2]" -> (1,); "[1][1]" -> (1, 1); "[2004]" -> (2004,))."""
    return tuple(int(r[1:]) for r in re.findall(r"\[\d+", sentence))
