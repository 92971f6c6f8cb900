"""Statement splitting: one sentence = one statement (offline, rule-based: pysbd)."""
from __future__ import annotations

from functools import lru_cache

import pysbd
from pysbd.languages import LANGUAGE_CODES

from .citations import leading_citations
from .errors import ConfigError


def known_language(lang: str) -> bool:
    """Whether pysbd can split ``lang`` (an ISO 639-1 code such as "en", "ru")."""
    return lang in LANGUAGE_CODES


def check_language(lang: str) -> None:
    """Raise ConfigError unless pysbd can split ``lang`` (an ISO 639-1 code such as "en", "ru")."""
    if lang not in LANGUAGE_CODES:
        raise ConfigError(f"sentence splitter: unknown language {lang!r}; known: {', '.join(sorted(LANGUAGE_CODES))}")


@lru_cache(maxsize=8)
def _segmenter(lang: str) -> pysbd.Segmenter:
    check_language(lang)
    return pysbd.Segmenter(language=lang, clean=False)


def split_sentences(text: str, lang: str = "en") -> list[str]:
    """Plain sentence split of a passage (pysbd), line by line, blank pieces dropped."""
    return [s.strip() for line in text.splitlines() for s in _segmenter(lang).segment(line) if s.strip()]


def split_statements(text: str, lang: str = "en") -> list[str]:
    """Split LLM output into sentences, keeping each sentence's citation marks with it.

    Citation marks a splitter leaves at the start of the next sentence ("... 1998. [1] It ...")
    are moved back to the sentence before; a lone citation line is attached to the previous
    sentence. Blank lines and list bullets are dropped. ``lang`` is an ISO code pysbd knows
    ("en", "ru", ...).
    """
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip().lstrip("-*• ").strip()
        if not line:
            continue
        for sent in _segmenter(lang).segment(line):
            sent = sent.strip()
            if not sent:
                continue
            marks, rest = leading_citations(sent)
            if marks and out:
                out[-1] = f"{out[-1]} {marks}"
                sent = rest
            elif marks and not rest:
                sent = marks
            if sent:
                out.append(sent)
    return out
