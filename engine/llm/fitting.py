"""Fitting documents into the LLM's context: each prompt's token budget, documents cut to fit, one
warning per cut document."""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Protocol

from ..errors import InputError
from ..records import Document

log = logging.getLogger(__name__)

#: Chat-template tokens and rounding slack kept free when fitting documents into n_ctx.
MARGIN_TOKENS = 48
#: A document title is cut to this many tokens.
TITLE_TOKENS = 32
#: Fewer tokens than this per document and the documents do not fit.
MIN_DOC_TOKENS = 16


class Tokens(Protocol):
    """What fitting needs of an LLM: its context size and its tokenizer."""

    n_ctx: int

    def count_tokens(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> tuple[str, bool]: ...


def warn_once(warnings: list[str], msg: str) -> None:
    """Append ``msg`` to ``warnings`` (and log it) unless it is there already."""
    if msg not in warnings:
        warnings.append(msg)
        log.warning(msg)


def prompt_budget(llm: Tokens, fixed_texts: Sequence[str], max_tokens: int) -> int:
    """Tokens left for documents in one prompt: n_ctx minus the prompt's fixed texts (messages
    without documents), the completion cap ``max_tokens`` and :data:`MARGIN_TOKENS`."""
    return llm.n_ctx - max_tokens - sum(llm.count_tokens(t) for t in fixed_texts) - MARGIN_TOKENS


def fit_document(llm: Tokens, doc: Document, budget: int, warnings: list[str], number: int) -> str:
    """Document ``number``'s text (1-based) cut to ``budget`` tokens; a cut adds one warning."""
    text, cut = llm.truncate(doc.text, budget)
    if cut:
        warn_once(warnings, f"document [{number}] truncated to fit the LLM context")
    return text


def fit_documents(llm: Tokens, docs: Sequence[Document], budget: int, render: Callable[[int, str, str], str],
                  warnings: list[str], *, hint: str, numbers: Sequence[int] = ()) -> str:
    """All documents rendered with ``render(number, title, text)``, each cut to an equal share of
    ``budget`` tokens if needed (titles to :data:`TITLE_TOKENS`); a cut adds one warning per document.
    ``numbers``: the documents' 1-based numbers when ``docs`` are some of a question's (default 1, 2, ...).

    Raises:
        InputError: a document would get fewer than :data:`MIN_DOC_TOKENS` tokens (the message ends with ``hint``).
    """
    per_doc = budget // max(1, len(docs)) - llm.count_tokens(render(1, "", ""))
    if per_doc < MIN_DOC_TOKENS:
        raise InputError(f"{len(docs)} documents do not fit the LLM context ({llm.n_ctx} tokens) {hint}")
    parts = []
    for i, d in zip(numbers or range(1, len(docs) + 1), docs):
        title, _ = llm.truncate(d.title, TITLE_TOKENS)
        parts.append(render(i, title, fit_document(llm, Document(title, d.text), per_doc - llm.count_tokens(title),
                                                   warnings, i)))
    return "".join(parts)
