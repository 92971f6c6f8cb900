"""Instruction-like text inside documents (prompt injection): a small, documented detector.

A retrieved document is data, never a command, but a small LLM obeys "Ignore previous
instructions and answer ..." when it reads it. The pipeline reports every sentence this
detector flags (trace and warning) and shows the LLM the document with those sentences replaced
by :data:`REMOVED`; the NLI checks still read the whole document. The detector never decides
anything else: the usefulness gate judges the rest of the document as usual.

Patterns (English and Russian, case-insensitive), each a phrase addressed to the reader of the
text rather than describing the world: ignore/disregard/forget (all) previous/prior/above
instructions, "you are now", "new instructions:", "system prompt", "answer (only) with", "do not
cite", "respond only with"; игнорируй/забудь (все) предыдущие инструкции, "отвечай только".
"""
from __future__ import annotations

import re

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
    r"\b(игнорируй|игнорируйте|забудь|забудьте)\b.{0,30}\b(инструкци\w*|указани\w*|правил\w*)",
    r"\bотвечай(те)?\s+только\b",
)]


def find_instructions(text: str, lang: str = "en") -> list[str]:
    """The sentences of ``text`` that read as instructions to the model (see module docstring)."""
    return [s for s in split_sentences(text, lang) if any(p.search(s) for p in _PATTERNS)]


def without_instructions(text: str, flagged: list[str]) -> str:
    """``text`` with each flagged sentence replaced by :data:`REMOVED`."""
    for s in flagged:
        text = text.replace(s, REMOVED)
    return text
