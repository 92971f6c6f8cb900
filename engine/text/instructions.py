"""Instruction-like text inside documents (prompt injection): a small, documented detector.

A retrieved document is data, never a command, but a small LLM obeys "Ignore previous
instructions and answer ..." when it reads it. The pipeline reports every sentence this
detector flags (trace and warning) and shows the LLM the document with those sentences replaced
by :data:`REMOVED`; the NLI checks still read the whole document. The detector never decides
anything else: the usefulness gate judges the rest of the document as usual.

Patterns (English and Russian, case-insensitive), each a phrase addressed to the reader of the
text rather than describing the world: ignore/disregard/forget (all) previous/prior/above
instructions, "you are now", "new instructions:", "system prompt", "answer (only) with", "do not
cite", "respond only with"; игнорируй/забудь/не обращай внимания на (все) предыдущие инструкции,
"ты теперь", "новые инструкции:", "системный промпт", "отвечай только".

The scan reads a folded copy of each sentence (:func:`scan_form`: NFKC, zero-width characters
and soft hyphens removed, Cyrillic look-alike letters inside Latin words read as Latin, runs of
white space as one space), so "Ign\\u200bore", "Ignоre" with a Cyrillic "о" and full-width letters
do not hide an instruction; two neighbouring sentences are also read together, so an
instruction broken across a line still matches (both are flagged). What is hidden is the
sentence as written (:func:`without_instructions` matches it whatever white space or line
separators it held).
"""
from __future__ import annotations

import re
import unicodedata

from .splitter import split_sentences

REMOVED = "[instruction-like text removed]"

_PATTERNS = [re.compile(p, re.IGNORECASE) for p in (
    r"\b(ignore|disregard|forget|override)\b.{0,30}\b(previous|prior|above|earlier|all|any|your)\b.{0,20}"
    r"\b(instructions?|prompts?|rules|directions)\b",
    r"\byou are now\b",
    r"\bnew instructions?\s*:",
    r"\bsystem prompt\b",
    r"\b(answer|respond|reply)\s+(only\s+)?with\b",
    r"\bdo not cite\b",
    r"\b(игнорируй|игнорируйте|забудь|забудьте|не обращай(те)? внимания на)\b.{0,30}"
    r"\b(инструкци\w*|указани\w*|правил\w*)",
    r"\bотвечай(те)?\s+только\b",
    r"\bты теперь\b",
    r"\bнов(ые|ая) инструкци[яи]\s*:",
    r"\bсистемн(ый|ого) промпт",
)]

#: invisible characters a word may hide behind: zero-width space / non-joiner / joiner, word
#: joiner, byte-order mark, soft hyphen
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
#: Cyrillic letters drawn like Latin ones (lower and upper case), read as Latin inside a word that
#: also has Latin letters
_CONFUSABLES = str.maketrans("аеорсухіјѕԁӏАВЕКМНОРСТХІЈЅ", "aeopcyxijsdlABEKMHOPCTXIJS")
_WORD = re.compile(r"\w+")
_LATIN = re.compile(r"[A-Za-z]")


def scan_form(text: str) -> str:
    """``text`` as the scan reads it (never shown to anyone): NFKC, invisible characters removed,
    Cyrillic look-alikes read as Latin inside words with Latin letters, white space as one space."""
    text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    text = _WORD.sub(lambda m: m.group(0).translate(_CONFUSABLES) if _LATIN.search(m.group(0)) else m.group(0), text)
    return " ".join(text.split())


def _flagged(sentence: str) -> bool:
    return any(p.search(sentence) for p in _PATTERNS)


def find_instructions(text: str, lang: str = "en") -> list[str]:
    """The sentences of ``text`` that read as instructions to the model (see module docstring), as
    the splitter gives them; both of two neighbours when only together they match.

    Raises:
        Cancelled: the question was stopped while its text was split (:mod:`~vericite.engine.cancel`).
    """
    sents = split_sentences(text, lang)
    folded = [scan_form(s) for s in sents]
    hit = [_flagged(f) for f in folded]
    for i in range(len(sents) - 1):  # an instruction broken by a line break or a full stop
        if not hit[i] and not hit[i + 1] and _flagged(folded[i] + " " + folded[i + 1]):
            hit[i] = hit[i + 1] = True
    return [s for s, h in zip(sents, hit) if h]


def without_instructions(text: str, flagged: list[str]) -> str:
    """``text`` with each flagged sentence replaced by :data:`REMOVED`, matched whatever white space or
    line separators (``\\r``, ``\\v``, ...) stood between its words in ``text`` (the splitter reads
    those as spaces)."""
    for s in flagged:
        words = s.split()
        if words:
            text = re.sub(r"\s+".join(re.escape(w) for w in words), lambda m: REMOVED, text)
    return text
