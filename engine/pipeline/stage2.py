"""Stage 2: evidence, per document: the usefulness gate, then fact extraction; each fact's check
against its document is submitted. Also the documents read together (``parallel_docs``) and the
joint extractions of linked pairs (``multihop``)."""
from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .. import cancel
from .. import records as R
from ..llm.fitting import fit_document
from ..llm.grammar import YES_NO, says_no
from ..records import Document, LLMCall, StageTrace
from ..verifier import fact_claims, joint_fact_claims
from .calls import budget, chat, claims, split_lang
from .context import DocumentEvidence, Question, Stage
from .prepare import language, shown_documents

if TYPE_CHECKING:
    from .method import VeriCite

log = logging.getLogger(__name__)


def evidence(pipe: VeriCite, q: Question) -> Stage:
    """Per document: the usefulness gate, then fact extraction; each document's facts are
    submitted for checking against that document, and the LLM moves on to the next one.
    The relative gate scores every document first (it compares them). With ``parallel_docs``
    > 1 the documents run together (:func:`_documents_together`), with the same per-document
    steps and the trace in document order."""
    cancel.check()
    st = Stage(StageTrace(R.EVIDENCE))
    with q.timeline.span(None) as t:
        texts = [fit_document(pipe.llm, shown, budget(pipe, q.prompts, "extract", q.text), q.warnings, i)
                 for i, shown in enumerate(q.shown, start=1)]
        if pipe.settings.parallel_docs > 1:
            _documents_together(pipe, q, st, texts)
        else:
            gates = _relative_gates(pipe, q, texts) if pipe.settings.gate == "relative" else None
            for i, (doc, text) in enumerate(zip(q.documents, texts), start=1):
                log.info("stage 2: document %d/%d", i, len(q.documents))
                gate = gates[i - 1] if gates else _gate(pipe, q, text, i)
                st.documents.append(_evidence(pipe, q, st.trace, i, doc, text, gate))
        st.checks = [e.checks for e in st.documents if e.checks is not None]
        if pipe.settings.multihop:
            useful = [e.documents[0] for e in st.documents if e.useful]
            _multihop(pipe, q, st, useful, texts)
    st.trace.wall_ms = round(t.ms, 1)
    return st


def _evidence(pipe: VeriCite, q: Question, trace: StageTrace, i: int, doc: Document, text: str,
              gate: LLMCall) -> DocumentEvidence:
    """Document ``i`` after its gate: nothing more when judged not useful, else its extraction,
    whose facts are submitted for checking against it."""
    trace.llm_calls.append(gate)
    if says_no(gate.text):  # the authors' rule: anything else counts as Yes
        trace.notes.append(f"document [{i}] judged not useful")
        return DocumentEvidence((i,), gate, None)
    ext = chat(pipe, q, q.prompts.messages("extract", question=q.text, docs=text), step="extract",
                     purpose=f"extract:{i}")
    trace.llm_calls.append(ext)
    items = fact_claims(R.EVIDENCE, ext.text, i, doc, split_lang(pipe, q, ext.text),
                        min_words=pipe.settings.min_statement_words)
    items = claims(pipe, q, items, trace, f"{R.EVIDENCE}:{i}")
    return DocumentEvidence((i,), gate, pipe.verifier().submit(items, (R.KEPT, R.DROPPED_NLI), trace, q.timeline))


def _documents_together(pipe: VeriCite, q: Question, st: Stage, texts: list[str]) -> None:
    """Stage 2 with up to ``parallel_docs`` documents at once: one thread per document runs
    :func:`_evidence` (gate, extraction, claims, checks submitted as soon as its extraction
    ends). An LLM with ``batched`` (in-process llama.cpp) decodes the threads' calls as parallel
    sequences of one context (:mod:`~vericite.engine.llm.batch`); any other (a server) gets them
    as concurrent requests. Each document keeps its own trace, merged here in document order,
    so the trace reads as the sequential one; ``st.documents`` gets each document's result."""
    docs = list(zip(q.documents, texts))
    n = min(pipe.settings.parallel_docs, len(docs))  # never more sequences than documents

    def together(work) -> list:
        """``work(view, i)`` for every document i (1-based), ``view`` = this pipeline on the batching LLM."""
        batched = getattr(pipe.llm, "batched", None)
        # a BatchSession (its client(k) marks a thread) when the LLM batches, else the LLM itself
        session: AbstractContextManager[Any] = batched(slots=n, clients=len(docs)) if batched else nullcontext(pipe.llm)
        with session as lm:
            view = pipe.with_llm(lm)

            def run(i: int):
                with (lm.client(i - 1) if batched else nullcontext()):
                    return work(view, i)
            with ThreadPoolExecutor(max_workers=len(docs) if batched else min(n, len(docs)),
                                    thread_name_prefix="stage2") as pool:
                # each document's thread stops with the question (cancel.carry: its stop signal)
                futures = [pool.submit(cancel.carry(run), i) for i in range(1, len(docs) + 1)]
                return [f.result() for f in futures]

    gates = None
    if pipe.settings.gate == "relative":  # every document scored first, then the extractions
        scored = together(lambda view, i: _p_yes(view, q, texts[i - 1], i))
        gates = _relative_gates(pipe, q, texts, scored)

    def document(view: VeriCite, i: int) -> tuple[StageTrace, DocumentEvidence]:
        log.info("stage 2: document %d/%d (up to %d at once)", i, len(docs), n)
        trace = StageTrace(R.EVIDENCE)
        doc, text = docs[i - 1]
        gate = gates[i - 1] if gates else _gate(view, q, text, i)
        return trace, _evidence(view, q, trace, i, doc, text, gate)

    for trace, evidence in together(document):
        st.trace.llm_calls += trace.llm_calls
        st.trace.notes += trace.notes
        st.trace.nli_pairs += trace.nli_pairs
        st.trace.nli_ms = round(st.trace.nli_ms + trace.nli_ms, 1)
        st.documents.append(evidence)


def _multihop(pipe: VeriCite, q: Question, st: Stage, useful: list[int], texts: list[str]) -> None:
    """Multi-hop evidence (the paper's named weakness: stage 2 reads one document at a time):
    each pair of useful documents sharing a name the question lacks (:func:`linked_pairs`) is
    read together; its facts cite both and are checked against both (a citation that does not
    carry a fact is removed)."""
    for i, j in linked_pairs(q.text, [(n, q.documents[n - 1].text) for n in useful]):
        block = q.prompts.doc(i, q.shown[i - 1].title, texts[i - 1]) + q.prompts.doc(j, q.shown[j - 1].title,
                                                                                      texts[j - 1])
        ext = chat(pipe, q, q.prompts.messages("extract", question=q.text, docs=block), step="extract",
                         purpose=f"extract:{i}+{j}")
        st.trace.llm_calls.append(ext)
        items = joint_fact_claims(R.EVIDENCE, ext.text, [(i, q.documents[i - 1]), (j, q.documents[j - 1])],
                                  split_lang(pipe, q, ext.text), min_words=pipe.settings.min_statement_words)
        items = claims(pipe, q, items, st.trace, f"{R.EVIDENCE}:{i}+{j}")
        batch = pipe.verifier().submit(items, (R.KEPT, R.DROPPED_NLI), st.trace, q.timeline)
        st.documents.append(DocumentEvidence((i, j), None, batch))
        st.checks.append(batch)


def _relative_gates(pipe: VeriCite, q: Question, texts: list[str],
                    scored: list[tuple[float, LLMCall]] | None = None) -> list[LLMCall]:
    """The relative gate: P(Yes) of every document, then "Yes" where P(Yes) divided by the
    highest of the question's documents is >= ``gate_threshold`` (the best document always
    passes). A small model says "Yes" to nearly every document; which documents it prefers
    discriminates far better than its absolute P(Yes)."""
    if scored is None:  # (given: scored together by stage 2's parallel path)
        scored = [_p_yes(pipe, q, text, i) for i, text in enumerate(texts, start=1)]
    top = max(p for p, _ in scored)
    return [replace(call, text="Yes" if top > 0 and p / top >= pipe.settings.gate_threshold else "No",
                    score=round(p, 4)) for p, call in scored]


def _p_yes(pipe: VeriCite, q: Question, text: str, number: int) -> tuple[float, LLMCall]:
    """P(Yes) of the usefulness prompt for document ``number`` (1-based), one forward pass."""
    purpose = f"gate:{number}"
    cancel.check()
    with q.timeline.span("llm", purpose):
        return pipe.llm.yes_probability(pipe.render(q.prompts.messages("gate", question=q.text, docs=text)),
                                        purpose=purpose)


def _gate(pipe: VeriCite, q: Question, text: str, number: int) -> LLMCall:
    """The usefulness check of one document: an LLMCall whose text is "Yes" or "No"."""
    if pipe.settings.gate == "scored":
        p_yes, call = _p_yes(pipe, q, text, number)
        return replace(call, text="Yes" if p_yes >= pipe.settings.gate_threshold else "No", score=round(p_yes, 4))
    return chat(pipe, q, q.prompts.messages("gate", question=q.text, docs=text), step="gate",
                      purpose=f"gate:{number}", grammar=YES_NO if pipe.settings.gate_grammar else None)


def gate_messages(pipe: VeriCite, question: str, doc: Document, number: int, warnings: list[str]) -> list[dict[str, str]]:
    """The usefulness-check prompt for document ``number`` (1-based), the document trimmed and
    cut to fit the context as stage 2 does (also used by ``vericite bench gate`` to calibrate)."""
    shown = shown_documents(pipe, question, [doc], language(pipe, question, [doc]))[0]
    prompts = pipe.prompts.for_language(language(pipe, question, [doc]))
    text = fit_document(pipe.llm, shown, budget(pipe, prompts, "extract", question), warnings, number)
    return prompts.messages("gate", question=question, docs=text)


#: at most this many document pairs get a multi-hop extraction per question (each is one LLM call)
MAX_PAIRS = 3


def names(text: str) -> set[str]:
    """Capitalised words of 4+ letters (lower-cased): a cheap stand-in for the named entities a
    bridge between two documents goes through."""
    return {w.lower() for w in re.findall(r"\b[A-ZА-ЯЁ][\w-]{3,}", text)}


def linked_pairs(question: str, documents: Sequence[tuple[int, str]], limit: int = MAX_PAIRS) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, of the numbered ``documents`` that share a name the question does not
    contain (the bridge entity of a two-hop question), most shared names first, at most ``limit``."""
    asked = names(question) | {w.lower() for w in re.findall(r"\w+", question)}
    found = {n: names(t) - asked for n, t in documents}
    scored = [(len(found[a] & found[b]), a, b) for k, (a, _) in enumerate(documents) for b, _ in documents[k + 1:]]
    return [(a, b) for n, a, b in sorted(scored, key=lambda x: (-x[0], x[1], x[2])) if n > 0][:limit]
