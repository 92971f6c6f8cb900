"""Before stage 1: the input checked, the question's language, the documents as the LLM sees them
(instruction-like sentences hidden, trimmed when ``doc_tokens`` is set)."""
from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from .. import cancel
from ..errors import InputError
from ..llm.fitting import warn_once
from ..records import Document
from ..text.instructions import find_instructions, without_instructions
from ..text.language import MIN_CONFIDENCE, detect, detect_or
from ..text.relevance import trim_document
from .context import Question

if TYPE_CHECKING:
    from .method import VeriCite

log = logging.getLogger(__name__)


def prepare(pipe: VeriCite, question: str, documents: Sequence[Document]) -> Question:
    """Check the input, pick the language, and make the documents as the LLM sees them.

    Documents are cited by position, so a document without text is an error, not dropped.
    Instruction-like sentences in a document (:mod:`~vericite.engine.text.instructions`) are
    reported and hidden from the LLM; the checks read the whole document.

    Raises:
        InputError: empty question, no documents, or a document without text.
        Cancelled: the question was stopped (checked per document and inside sentence splitting).
    """
    text = check_input(question, documents)
    lang = language(pipe, text, documents)
    q = Question(text, list(documents), [], lang, prompts=pipe.prompts.for_language(lang), verifier=pipe.verifier())
    detected = [detect(d.text) for d in documents]  # once per document: its splitter and the warning
    split_langs = [pipe.settings.lang if pipe.settings.lang != "auto" else (c if p >= MIN_CONFIDENCE else lang)
                   for c, p in detected]
    for i, (d, dl) in enumerate(zip(documents, split_langs), start=1):
        cancel.check()
        for sent in find_instructions(d.title, dl) + find_instructions(d.text, dl):  # titles reach the LLM too
            q.instructions.append({"document": i, "sentence": sent})
            warn_once(q.warnings, f"document [{i}] contains instruction-like text, hidden from the LLM: {sent!r}")
    flagged = [[x["sentence"] for x in q.instructions if x["document"] == i] for i in range(1, len(documents) + 1)]
    hidden = [replace(d, title=without_instructions(d.title, f), text=without_instructions(d.text, f))
              for d, f in zip(documents, flagged)]
    q.shown = shown_documents(pipe, text, hidden, lang)
    if q.prompts is not pipe.prompts:
        log.info("prompt set %s for a %r question", q.prompts.tag, lang)
    readable = pipe.settings.checker_languages
    if lang not in readable:
        warn_once(q.warnings, f"the NLI checker {pipe.checker.name} reads {', '.join(readable)} "
                              f"only; its verdicts on {lang!r} text are not meaningful")
    other: dict[str, list[int]] = {}
    for i, (code, p) in enumerate(detected, start=1):
        if p >= MIN_CONFIDENCE and code not in readable and code != lang:
            other.setdefault(code, []).append(i)
    for code, nums in other.items():
        warn_once(q.warnings, f"document(s) {nums} are in {code!r}, which the NLI checker {pipe.checker.name} "
                              f"does not read ({', '.join(readable)} only); checks against them are not meaningful")
    return q


def check_input(question: str, documents: Sequence[Document]) -> str:
    """The question stripped, once the input is one the pipeline can read (no model, no language needed:
    the service runs this before admitting a request, so a bad input never waits in its queue).

    Raises:
        InputError: empty question, no documents, a lone surrogate in the question, a title or a document,
            or a document without text (zero-width characters alone count as none).
    """
    text = (question or "").strip()
    if not text:
        raise InputError("the question is empty")
    if not documents:
        raise InputError("no documents given")
    _valid_unicode("the question", text)
    for i, d in enumerate(documents, start=1):
        _valid_unicode(f"document [{i}]'s title", d.title)
        _valid_unicode(f"document [{i}]", d.text)
    empty = [i for i, d in enumerate(documents, start=1) if not _INVISIBLE.sub("", d.text).strip()]
    if empty:
        raise InputError(f"document(s) {empty} have no text: nothing could be checked against them; remove "
                         "them or give them text (documents are cited by their position)")
    return text


def language(pipe: VeriCite, question: str, documents: Sequence[Document] = ()) -> str:
    """The question's language: the ``lang`` setting, or for "auto" the detected one
    (:mod:`~vericite.engine.text.language`; a question too short to tell is read with its documents)."""
    if pipe.settings.lang != "auto":
        return pipe.settings.lang
    code, p = detect(question)
    if p >= MIN_CONFIDENCE or not documents:
        return code
    return detect_or(question + "\n" + "\n".join(d.text for d in documents)[:2000], code)


def document_languages(documents: Sequence[Document]) -> set[str]:
    """The languages the documents are confidently in (:data:`~vericite.engine.text.language.MIN_CONFIDENCE`),
    each read from its first 2,000 characters."""
    found = (detect(d.text[:2000]) for d in documents)
    return {code for code, p in found if p >= MIN_CONFIDENCE}


def shown_documents(pipe: VeriCite, question: str, docs: Sequence[Document], lang: str = "en") -> list[Document]:
    """The documents as the LLM sees them: trimmed to ``settings.doc_tokens`` by question
    relevance when set (:func:`~vericite.engine.text.relevance.trim_document`), else unchanged."""
    if not pipe.settings.doc_tokens:
        return list(docs)
    return [replace(d, text=trim_document(question, d.text, pipe.settings.doc_tokens, pipe.llm.count_tokens, lang)[0])
            for d in docs]


#: zero-width and byte-order characters: a document of only these has no text
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")


def _valid_unicode(what: str, text: str) -> None:
    """Raises InputError when ``text`` holds a lone surrogate (valid in JSON as "\\ud800", not a
    character): no tokenizer or checker can read it, and it must never reach a shared batch."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InputError(f"{what} holds invalid Unicode (a lone surrogate {text[e.start]!r} at character "
                         f"{e.start}); send UTF-8 text") from None
