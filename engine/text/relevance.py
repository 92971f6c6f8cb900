"""Document trimming for small-model prompts: keep the sentences of a passage most relevant to the
question, within a token budget.

Relevance is BM25 (Okapi, ``rank_bm25.BM25Okapi``, k1 = 1.5, b = 0.75) of each sentence against
the question's words, the sentences of the one passage being the corpus; words are lower-cased
``\\w+`` runs. The passage's first sentence is always kept: in Wikipedia-style passages it names
the subject that later sentences refer to as "he", "it" or "the band". Kept sentences stay in their
original order. Only the LLM's prompt is trimmed: NLI always checks against the full passage.
"""
from __future__ import annotations

import re
from typing import Callable, Sequence

import numpy as np
from rank_bm25 import BM25Okapi, BM25Plus

from .splitter import split_sentences

_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    """Lower-cased word tokens for BM25."""
    return _WORD.findall(text.lower())


def bm25_scores(query: str, texts: Sequence[str]) -> np.ndarray:
    """BM25 (Okapi) score of each of ``texts`` against ``query``, the texts being the corpus:
    float64 [len(texts)]. Empty texts score as a placeholder word (BM25Okapi rejects them)."""
    return np.asarray(BM25Okapi([words(t) or ["_"] for t in texts]).get_scores(words(query)), dtype=np.float64)


def few_scores(query: str, texts: Sequence[str]) -> np.ndarray:
    """BM25+ (``rank_bm25.BM25Plus``: its IDF, log((N + 1) / n), stays positive) of each of a few
    ``texts`` against ``query``, the texts being the corpus: float64 [len(texts)]. For choosing
    among two or three candidates, where Okapi's IDF of a word most of them hold is negative and
    ranks the sentence saying more of the question last ("The English king Harold Godwinson is
    buried in Waltham Abbey" below a long sentence naming him)."""
    return np.asarray(BM25Plus([words(t) or ["_"] for t in texts]).get_scores(words(query)), dtype=np.float64)


def relevant_sentences(question: str, texts: Sequence[str], k: int, lang: str = "en",
                       min_words: int = 4, part: Callable[[str], str | None] | None = None) -> list[tuple[int, str]]:
    """The ``k`` sentences of ``texts`` with the highest BM25 score against ``question``, all the
    texts' sentences being the corpus, best first (ties: the earlier text, then the earlier
    sentence), as (0-based index of the text, sentence). Sentences of fewer than ``min_words``
    words and sentences sharing no word with the question (score 0) are left out, so fewer than
    ``k`` may come back. With ``part``, each sentence is given back as ``part`` makes it (ranked as
    it was written: the corpus stays every sentence), and left out when it gives None."""
    sents = [(i, s) for i, t in enumerate(texts) for s in split_sentences(t, lang) if len(s.split()) >= min_words]
    if not sents or k < 1:
        return []
    scores = bm25_scores(question, [s for _, s in sents])
    out = []
    for j in sorted((j for j in range(len(sents)) if scores[j] > 0), key=lambda j: (-scores[j], j)):
        i, s = sents[j]
        shown = part(s) if part else s
        if shown:
            out.append((i, shown))
        if len(out) == k:
            break
    return out


def trim_document(question: str, text: str, budget: int, count_tokens: Callable[[str], int],
                  lang: str = "en") -> tuple[str, bool]:
    """``text`` reduced to its first sentence plus the sentences with the highest BM25 score
    against ``question``, in original order, within ``budget`` tokens (as ``count_tokens``
    counts them; a space between sentences counts one).

    Returns:
        (text, trimmed): the passage unchanged and False when it already fits; otherwise the
        kept sentences joined by spaces and True. If even the first sentence does not fit, it
        is kept alone (the caller's own truncation to the context still applies).

    Raises:
        ValueError: budget < 1.
    """
    if budget < 1:
        raise ValueError(f"budget must be >= 1 token, got {budget}")
    if count_tokens(text) <= budget:
        return text, False
    sents = split_sentences(text, lang)
    if len(sents) <= 1:
        return text, False
    scores = bm25_scores(question, sents)
    keep, used = {0}, count_tokens(sents[0])
    for i in sorted(range(1, len(sents)), key=lambda i: (-scores[i], i)):
        n = count_tokens(sents[i]) + 1
        if used + n <= budget:
            keep.add(i)
            used += n
    return " ".join(sents[i] for i in sorted(keep)), True
