"""The VeriCite pipeline: stage 1 (answer) -> stage 2 (evidence) -> stage 3 (refine) -> final check.

Faithful to Qian et al. (SIGIR-AP 2025) and the authors' vericite.py; every place where this
code differs is listed in README.md ("Differences from the authors' code"). :meth:`VeriCite.answer`
is the method in one place; each stage is one method below it returning a :class:`Stage`.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Protocol

from . import draft as D
from . import records as R
from . import settings as S
from .checks import Checker, CheckBatch, Claim, Verifier, answer_claims, fact_claims, joint_fact_claims
from .claims import complete_claims, is_fragment
from .content import content_free
from .citations import merge_adjacent, strip_citations
from .conflicts import Conflict, find_conflicts
from .draft import Draft, with_citations
from .docs import as_documents
from .errors import InputError
from .fitting import fit_document, fit_documents, prompt_budget, warn_once
from .grammar import YES_NO, citation_grammar, says_no
from .instructions import find_instructions, without_instructions
from .language import MIN_CONFIDENCE, detect, detect_or
from .prompts import PromptSet, completion_prompt
from .records import Document, LLMCall, StageTrace, Statement, VerifiedAnswer
from .relevance import relevant_sentences, trim_document
from .selection import compose, numbered, parse_selection, ranked, select_grammar
from .settings import Settings
from .timeline import Timeline

log = logging.getLogger(__name__)

__all__ = ["LLM", "Checker", "DocumentEvidence", "Hooks", "Question", "Settings", "Stage", "VeriCite"]


class LLM(Protocol):
    """What the pipeline needs of an LLM (:class:`~vericite.engine.llm.LlamaCppLLM` has it).

    Optional: ``batched(slots=N, clients=D)``, a session that decodes D threads' calls together
    (:mod:`~vericite.engine.llm_batch`), used by stage 2 with ``parallel_docs`` > 1; an LLM without it
    gets the documents' calls from concurrent threads (a server batches them itself)."""

    name: str
    n_ctx: int

    def chat(self, messages: list[dict[str, str]] | str, *, max_tokens: int, purpose: str,
             grammar: str | None = None) -> LLMCall: ...

    def count_tokens(self, text: str) -> int: ...

    def yes_probability(self, messages: list[dict[str, str]] | str, *, purpose: str) -> tuple[float, LLMCall]: ...

    def truncate(self, text: str, max_tokens: int) -> tuple[str, bool]: ...


@dataclass
class Question:
    """One question in flight: its documents as given and as the LLM sees them, its language,
    its warnings and its clock."""

    text: str
    documents: list[Document]
    shown: list[Document]          # as the LLM sees them (trimmed when doc_tokens > 0, instructions removed)
    lang: str
    warnings: list[str] = field(default_factory=list)
    timeline: Timeline = field(default_factory=Timeline)
    #: instruction-like sentences found in the documents: {"document": N (1-based), "sentence": text}
    instructions: list[dict] = field(default_factory=list)
    #: the prompt set for this question's language (:meth:`PromptSet.for_language`)
    prompts: PromptSet | None = None
    #: the rules that turn this question's check scores into verdicts (its pipeline's)
    verifier: Verifier | None = None


@dataclass(frozen=True)
class DocumentEvidence:
    """Stage 2's result for one document, or for documents read together (``multihop``).

    ``documents``: (N,) for document N, (i, j) for a joint extraction; ``gate``: the usefulness
    check's call (None for a joint extraction); ``checks``: its facts, their checks possibly still
    in flight (None when the gate judged it not useful).
    """

    documents: tuple[int, ...]
    gate: LLMCall | None
    checks: CheckBatch | None

    @property
    def useful(self) -> bool:
        return self.checks is not None


@dataclass
class Stage:
    """What one stage produced: its trace, its sentences' checks (possibly still in flight); for
    stage 2 the result per document, for stage 3 the draft after the rules."""

    trace: StageTrace
    checks: list[CheckBatch] = field(default_factory=list)
    documents: list[DocumentEvidence] = field(default_factory=list)
    draft: Draft = field(default_factory=Draft)


class Hooks:
    """Called by :meth:`VeriCite.answer` as the stages end, from the answering thread (the
    service streams its events from them). Override what you need; each default does nothing.
    Checks may still be in flight when a hook runs (:meth:`Verifier.resolve` waits for them)."""

    def stage1(self, q: Question, answer: Stage) -> None:
        """Stage 1's answer is written; its statements' checks are submitted."""

    def stage2(self, q: Question, evidence: Stage) -> None:
        """Stage 2's LLM calls are done; ``evidence.documents`` holds each document's result."""

    def done(self, result: VerifiedAnswer) -> None:
        """The answer is final."""


class VeriCite:
    """Answers a question from documents with NLI-verified citations.

    Args:
        llm: a chat LLM (:class:`LLM`).
        checker: an NLI scorer with ``scores(pairs) -> float32 [n]`` (:class:`~vericite.engine.checks.Checker`).
        prompts: the prompt set; default: ``PromptSet.load(settings.prompts)``.
        settings: thresholds and switches (:class:`~vericite.engine.settings.Settings`).
        routes: language code -> the pipeline (same LLM, another checker and its settings) that
            answers questions in a language this checker does not read (:meth:`route`).

    Raises:
        ConfigError: a setting breaks its rule.
    """

    def __init__(self, llm: LLM, checker: Checker, *, prompts: PromptSet | None = None, settings: Settings = Settings(),
                 routes: Mapping[str, VeriCite] | None = None):
        self.llm = llm
        self.checker = checker
        self._settings = S.validate(settings)
        self.prompts = prompts or PromptSet.load(settings.prompts)
        self.routes = dict(routes or {})
        s = self._settings
        self._verifier = Verifier(checker, threshold=s.threshold, schedule=s.schedule, grade_bands=s.grade_bands,
                                  lenient=s.strictness == "lenient", cite_each=s.cite_each,
                                  entity_guard=s.entity_guard)

    @property
    def settings(self) -> Settings:
        """The settings (read-only: :meth:`with_settings` gives a pipeline with others)."""
        return self._settings

    # -- the method -------------------------------------------------------------------------
    def answer(self, question: str, documents: Sequence[Document | str | dict], *,
               hooks: Hooks | None = None) -> VerifiedAnswer:
        """Run the three stages and stage 3's rules: the method, in one place.

        Args:
            question: the user's question (non-empty).
            documents: the retrieved passages, cited 1-based in this order: :class:`Document` s,
                plain strings or ``{"title", "text"}`` dicts.
            hooks: called as the stages end (:class:`Hooks`; the service streams from them).

        Returns:
            VerifiedAnswer: the final answer text (citations merged, e.g. "[1, 2]") and the trace.

        Raises:
            InputError: empty question, no documents, a document without text or of another type.
            InferenceError: an LLM or NLI call failed.
        """
        hooks = hooks or Hooks()
        documents = as_documents(documents)
        pipe = self.route(question, documents)  # a checker that reads the question's language
        q = pipe.prepare(question, documents)   # input checks, language, documents as the LLM sees them
        answer = pipe.stage1_answer(q)          # initial answer; each statement's check submitted
        hooks.stage1(q, answer)
        evidence = pipe.stage2_evidence(q)      # per document: gate, extraction; each fact's check submitted
        hooks.stage2(q, evidence)
        verified = pipe.verified(q, answer, evidence)  # wait for the checks: kept facts, then kept statements
        conflicts = pipe.conflicts(q, verified)        # documents that give another number for a verified claim
        refine = pipe.stage3_refine(q, verified, answer)  # the answer from the verified sentences (a Draft)
        refine.draft = pipe.stage3_rules(q, refine, answer, verified)  # final check, strict, put-backs, marks
        result = pipe.result(q, [answer, evidence, refine], conflicts)
        hooks.done(result)
        return result

    def with_settings(self, settings: Settings | None = None, *, prompts: PromptSet | None = None,
                      **changes) -> VeriCite:
        """This pipeline (same models, no copy) with other settings: ``settings`` whole, or these
        ``changes`` to the current ones; the routes get the same changes on top of their own.
        The prompt set is reloaded when ``prompts`` (the setting) changes, unless given.

        Raises:
            ConfigError: a setting breaks its rule.
        """
        new = replace(settings or self.settings, **changes)
        diff = S.changed(self.settings, new)
        if prompts is None and new.prompts != self.settings.prompts:
            prompts = PromptSet.load(new.prompts)
        routes = {lang: r.with_settings(replace(r.settings, **diff)) for lang, r in self.routes.items()}
        return type(self)(self.llm, self.checker, prompts=prompts or self.prompts, settings=new, routes=routes)

    def with_llm(self, llm: LLM) -> VeriCite:
        """This pipeline and its routes with another LLM (a view of the shared one: a request's,
        a batching session's); settings, checker and prompts unchanged."""
        routes = {lang: r.with_llm(llm) for lang, r in self.routes.items()}
        return type(self)(llm, self.checker, prompts=self.prompts, settings=self.settings, routes=routes)

    def route(self, question: str, documents: Sequence[Document] = ()) -> VeriCite:
        """The pipeline that answers this question: this one, or when its checker does not read the
        question's language (:meth:`language`) and ``routes`` has one for it, that one. Its answer's
        stamp names its checker."""
        if not self.routes:
            return self
        lang = self.language(question, documents)
        if lang in self.settings.checker_languages or lang not in self.routes:
            return self
        log.info("a %r question: checked by %s", lang, self.routes[lang].checker.name)
        return self.routes[lang]

    def __enter__(self) -> VeriCite:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop the checkers' batchers (this pipeline's and its routes'); the LLM stays loaded."""
        for pipe in (self, *self.routes.values()):
            close = getattr(pipe.checker, "close", None)
            if close:
                close()

    # -- the stages ---------------------------------------------------------------------------
    def prepare(self, question: str, documents: Sequence[Document]) -> Question:
        """Check the input, pick the language, and make the documents as the LLM sees them.

        Documents are cited by position, so a document without text is an error, not dropped.
        Instruction-like sentences in a document (:mod:`~vericite.engine.instructions`) are
        reported and hidden from the LLM; the checks read the whole document.

        Raises:
            InputError: empty question, no documents, or a document without text.
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
        lang = self.language(text, documents)
        q = Question(text, list(documents), [], lang, prompts=self.prompts.for_language(lang), verifier=self._verifier)
        detected = [detect(d.text) for d in documents]  # once per document: its splitter and the warning
        split_langs = [self.settings.lang if self.settings.lang != "auto" else (c if p >= MIN_CONFIDENCE else lang)
                       for c, p in detected]
        for i, (d, dl) in enumerate(zip(documents, split_langs), start=1):
            for sent in find_instructions(d.text, dl):
                q.instructions.append({"document": i, "sentence": sent})
                warn_once(q.warnings, f"document [{i}] contains instruction-like text, hidden from the LLM: {sent!r}")
        hidden = [without_instructions(d.text, [x["sentence"] for x in q.instructions if x["document"] == i])
                  for i, d in enumerate(documents, start=1)]
        q.shown = self.shown_documents(text, [replace(d, text=h) for d, h in zip(documents, hidden)], lang)
        if q.prompts is not self.prompts:
            log.info("prompt set %s for a %r question", q.prompts.tag, lang)
        readable = self.settings.checker_languages
        if lang not in readable:
            warn_once(q.warnings, f"the NLI checker {self.checker.name} reads {', '.join(readable)} "
                                  f"only; its verdicts on {lang!r} text are not meaningful")
        other: dict[str, list[int]] = {}
        for i, (code, p) in enumerate(detected, start=1):
            if p >= MIN_CONFIDENCE and code not in readable and code != lang:
                other.setdefault(code, []).append(i)
        for code, nums in other.items():
            warn_once(q.warnings, f"document(s) {nums} are in {code!r}, which the NLI checker {self.checker.name} "
                                  f"does not read ({', '.join(readable)} only); checks against them are not meaningful")
        return q

    def stage1_answer(self, q: Question) -> Stage:
        """Initial answer from all documents; each statement's check against its cited documents is submitted."""
        st = Stage(StageTrace(R.ANSWER))
        with q.timeline.span(None) as t:
            log.info("stage 1: answering from %d documents", len(q.documents))
            block = self._documents_block(R.ANSWER, q)

            def ask(grammar: str | None) -> list[Statement | Claim]:
                call = self._chat(q, q.prompts.messages(R.ANSWER, question=q.text, docs=block), step=R.ANSWER,
                                  purpose=R.ANSWER, grammar=grammar)
                st.trace.llm_calls.append(call)
                return answer_claims(R.ANSWER, call.text, q.documents, self._split_lang(q, call.text), final=False,
                                     min_words=self.settings.min_statement_words, recite=self.settings.recite)

            items = ask(self._cite_grammar(len(q.documents)))
            if self._said_nothing(items):  # "According to Document [4][1][2]!": the grammar cut the sentence short
                st.trace.notes.append(f"stage 1 said nothing ({st.trace.llm_calls[-1].text.strip()!r}): asked again "
                                      "with citations allowed inside sentences (answer_retry)")
                items = ask(citation_grammar(len(q.documents), inline=True))
            items = self.complete(q, items, st.trace, R.ANSWER)  # fragments -> full sentences with the question
            st.checks.append(self._verifier.submit(items, (R.KEPT, R.DROPPED_NLI), st.trace, q.timeline))
        st.trace.wall_ms = round(t.ms, 1)
        return st

    def _said_nothing(self, items: list[Statement | Claim]) -> bool:
        """Whether stage 1, decoded under the end-only citation grammar with ``answer_retry`` on,
        wrote only sentences without content (:func:`~vericite.engine.content.content_free`)."""
        s = self.settings
        return (s.answer_retry and s.citation_grammar and not s.inline_citations
                and all(content_free(x.text) for x in items))

    def stage2_evidence(self, q: Question) -> Stage:
        """Per document: the usefulness gate, then fact extraction; each document's facts are
        submitted for checking against that document, and the LLM moves on to the next one.
        The relative gate scores every document first (it compares them). With ``parallel_docs``
        > 1 the documents run together (:meth:`_documents_together`), with the same per-document
        steps and the trace in document order."""
        st = Stage(StageTrace(R.EVIDENCE))
        with q.timeline.span(None) as t:
            texts = [fit_document(self.llm, shown, self._budget(q.prompts, "extract", q.text), q.warnings, i)
                     for i, shown in enumerate(q.shown, start=1)]
            if self.settings.parallel_docs > 1:
                self._documents_together(q, st, texts)
            else:
                gates = self._relative_gates(q, texts) if self.settings.gate == "relative" else None
                for i, (doc, text) in enumerate(zip(q.documents, texts), start=1):
                    log.info("stage 2: document %d/%d", i, len(q.documents))
                    gate = gates[i - 1] if gates else self._gate(q, text, i)
                    st.documents.append(self._evidence(q, st.trace, i, doc, text, gate))
            st.checks = [e.checks for e in st.documents if e.checks is not None]
            if self.settings.multihop:
                useful = [e.documents[0] for e in st.documents if e.useful]
                self._multihop(q, st, useful, texts)
        st.trace.wall_ms = round(t.ms, 1)
        return st

    def _evidence(self, q: Question, trace: StageTrace, i: int, doc: Document, text: str,
                  gate: LLMCall) -> DocumentEvidence:
        """Document ``i`` after its gate: nothing more when judged not useful, else its extraction,
        whose facts are submitted for checking against it."""
        trace.llm_calls.append(gate)
        if says_no(gate.text):  # the authors' rule: anything else counts as Yes
            trace.notes.append(f"document [{i}] judged not useful")
            return DocumentEvidence((i,), gate, None)
        ext = self._chat(q, q.prompts.messages("extract", question=q.text, docs=text), step="extract",
                         purpose=f"extract:{i}")
        trace.llm_calls.append(ext)
        items = fact_claims(R.EVIDENCE, ext.text, i, doc, self._split_lang(q, ext.text),
                            min_words=self.settings.min_statement_words)
        items = self.complete(q, items, trace, f"{R.EVIDENCE}:{i}")
        return DocumentEvidence((i,), gate, self._verifier.submit(items, (R.KEPT, R.DROPPED_NLI), trace, q.timeline))

    def _documents_together(self, q: Question, st: Stage, texts: list[str]) -> None:
        """Stage 2 with up to ``parallel_docs`` documents at once: one thread per document runs
        :meth:`_evidence` (gate, extraction, claims, checks submitted as soon as its extraction
        ends). An LLM with ``batched`` (in-process llama.cpp) decodes the threads' calls as parallel
        sequences of one context (:mod:`~vericite.engine.llm_batch`); any other (a server) gets them
        as concurrent requests. Each document keeps its own trace, merged here in document order,
        so the trace reads as the sequential one; ``st.documents`` gets each document's result."""
        docs = list(zip(q.documents, texts))
        n = min(self.settings.parallel_docs, len(docs))  # never more sequences than documents

        def together(work) -> list:
            """``work(view, i)`` for every document i (1-based), ``view`` = this pipeline on the batching LLM."""
            batched = getattr(self.llm, "batched", None)
            session = batched(slots=n, clients=len(docs)) if batched else nullcontext(self.llm)
            with session as lm:
                view = self.with_llm(lm)

                def run(i: int):
                    with (lm.client(i - 1) if batched else nullcontext()):
                        return work(view, i)
                with ThreadPoolExecutor(max_workers=len(docs) if batched else min(n, len(docs)),
                                        thread_name_prefix="stage2") as pool:
                    futures = [pool.submit(run, i) for i in range(1, len(docs) + 1)]
                    return [f.result() for f in futures]

        gates = None
        if self.settings.gate == "relative":  # every document scored first, then the extractions
            scored = together(lambda view, i: view._p_yes(q, texts[i - 1], i))
            gates = self._relative_gates(q, texts, scored)

        def document(view: VeriCite, i: int) -> tuple[StageTrace, DocumentEvidence]:
            log.info("stage 2: document %d/%d (up to %d at once)", i, len(docs), n)
            trace = StageTrace(R.EVIDENCE)
            doc, text = docs[i - 1]
            gate = gates[i - 1] if gates else view._gate(q, text, i)
            return trace, view._evidence(q, trace, i, doc, text, gate)

        for trace, evidence in together(document):
            st.trace.llm_calls += trace.llm_calls
            st.trace.notes += trace.notes
            st.trace.nli_pairs += trace.nli_pairs
            st.trace.nli_ms = round(st.trace.nli_ms + trace.nli_ms, 1)
            st.documents.append(evidence)

    def verified(self, q: Question, answer: Stage, evidence: Stage) -> list[Statement]:
        """Wait for the checks of stages 1 and 2 (their verdicts go into the traces); the kept
        sentences, stage 2's facts first (the authors' order)."""
        for st in (answer, evidence):
            st.trace.statements = [s for b in st.checks for s in self._verifier.resolve(b, st.trace, q.timeline)]
        return [s for s in evidence.trace.statements + answer.trace.statements if s.verdict == R.KEPT]

    def conflicts(self, q: Question, verified: list[Statement]) -> list[Conflict]:
        """Where another document gives a different number or year for a verified claim
        (:mod:`~vericite.engine.conflicts`: the checker must entail the claim with the other
        document's number)."""
        if not self.settings.conflicts or not verified:
            return []
        with q.timeline.span("nli", "conflicts"):
            threshold = self.settings.conflict_threshold or self.settings.threshold
            found = find_conflicts(verified, q.documents, self.checker.scores, threshold,
                                   self._split_lang(q, " ".join(d.text for d in q.documents)[:2000]),
                                   related=self.settings.conflict_related,
                                   restated=self.settings.conflict_restated)
        return found

    def stage3_refine(self, q: Question, verified: list[Statement], answer: Stage | None = None) -> Stage:
        """The stage's draft from the verified statements: the answer step's picks (:meth:`_pick`),
        else the authors' merge (:meth:`_merge`); no verified statement: the fallback quotes, or an
        empty draft. ``answer`` (stage 1) gives the answer step its first answer as written."""
        st = Stage(StageTrace(R.REFINE))
        with q.timeline.span(None) as t:
            quotes = self.quotes(q) if not verified else []
            if quotes:
                st.draft = Draft.of(" ".join(quotes), [f"no verified statement: the answer quotes the {len(quotes)} "
                                                       "document sentence(s) most relevant to the question (fallback_quotes)"])
                st.draft = st.draft.warn(D.FALLBACK_QUOTES, "no generated statement survived the NLI checks; the answer "
                                         "quotes the documents' most relevant sentences instead (--fallback-quotes 0: "
                                         "an empty answer)")
            elif not verified:
                st.draft = Draft.of("", ["no verified statement: nothing to refine, the answer is empty"])
                st.draft = st.draft.warn(D.EMPTY_NOTHING_VERIFIED, "no statement survived the NLI checks; the answer is empty")
            else:
                first = " ".join(strip_citations(s.raw or s.text) for s in answer.trace.statements) if answer else ""
                st.draft = self._pick(q, st, verified, first) or self._merge(q, st, verified)
        st.trace.wall_ms = round(t.ms, 1)
        return st

    def _pick(self, q: Question, st: Stage, verified: list[Statement], first: str = "") -> Draft | None:
        """The answer step (``refine`` = answer, :mod:`~vericite.engine.selection`): the LLM names
        the short answer and picks the verified sentences that show it; the draft is those
        sentences with their citations; ``first`` (stage 1's answer, unchecked: it read every
        document at once) helps it find the answer. None (the merge runs instead) when the setting
        is off, the prompt set has no select step, or the reply cannot be read."""
        if self.settings.refine != "answer" or "select" not in q.prompts.steps:
            return None
        log.info("stage 3: picking the answer from %d verified statements", len(verified))
        verified = ranked(verified, q.text, first)  # listed most relevant first
        lines = numbered(verified)
        uses_docs = "{D}" in q.prompts.steps["select"].template  # the built-in sets pick from the sentences alone
        block = self._documents_block("select", q, statements=lines) if uses_docs else ""
        call = self._chat(q, q.prompts.messages("select", question=q.text, docs=block, statements=lines,
                                                 first=first or "-"),
                          step="select", purpose="select", grammar=select_grammar(len(verified)))
        st.trace.llm_calls.append(call)
        sel = parse_selection(call.text, len(verified))
        if sel is None:
            st.trace.notes.append(f"answer step: no 'Answer:' line in the reply {call.text[:200]!r}; merged instead")
            return None
        picked = compose(sel, verified, q.text, q.lang, titles=[d.title for d in q.documents])
        draft = Draft.of(merge_adjacent(" ".join(with_citations(s) for s in picked.sentences)), picked.notes,
                         picked=True)
        return draft.warn(picked.caveat.code, picked.caveat.text) if picked.caveat else draft

    def _merge(self, q: Question, st: Stage, verified: list[Statement]) -> Draft:
        """The authors' refinement: every verified statement given to the LLM; its reply (citing
        only documents they cite) is the draft."""
        log.info("stage 3: refining %d verified statements", len(verified))
        lines = "\n".join(with_citations(s) for s in verified)
        block = self._documents_block(R.REFINE, q, statements=lines)
        cited = {c for s in verified for c in s.citations}
        call = self._chat(q, q.prompts.messages(R.REFINE, question=q.text, docs=block, statements=lines),
                          step=R.REFINE, purpose=R.REFINE, grammar=self._cite_grammar(len(q.documents), cited))
        st.trace.llm_calls.append(call)
        text = merge_adjacent(call.text.strip())
        if call.finish_reason == "length":
            text, cut = _drop_unfinished_tail(text)
            draft = Draft.of(text, [cut] if cut else [])
            if not text:
                draft = draft.warn(D.EMPTY_TOKEN_CAP, f"the refinement reached its "
                                   f"{q.prompts.steps[R.REFINE].max_tokens}-token cap before its first "
                                   "sentence ended; the answer is empty")
            return draft
        draft = Draft.of(text)
        return draft if text else draft.warn(D.EMPTY_NO_TEXT, "the refinement step returned no text; the answer is empty")

    def quotes(self, q: Question) -> list[str]:
        """The fallback answer when nothing was verified (``fallback_quotes`` = N > 0): the N
        sentences of the documents as the LLM saw them that are most relevant to the question
        (:func:`~vericite.engine.relevance.relevant_sentences`), verbatim, each ending with its
        document's citation, in document order; the final check then checks them like any answer."""
        n = self.settings.fallback_quotes
        if n < 1:
            return []
        texts = [d.text for d in q.shown]
        found = relevant_sentences(q.text, texts, n, self._split_lang(q, " ".join(texts)[:2000]))
        in_order = sorted(found, key=lambda f: (f[0], texts[f[0]].find(f[1])))
        return [with_citations(Statement(R.REFINE, sent, (i + 1,), R.KEPT, None, sent)) for i, sent in in_order]

    def stage3_rules(self, q: Question, refine: Stage, answer: Stage, verified: list[Statement]) -> Draft:
        """Stage 3's rules (:data:`~vericite.engine.draft.RULES`) over the refinement's draft; the
        stage-3 trace gets the checked sentences, the rules' notes, and the LLM calls and NLI
        pairs of their checks; the question gets their warnings.

        Returns:
            The final draft: its sentences with verdicts, its text the answer.
        """
        facts = D.Facts(question=q.text, lang=q.lang, documents=q.documents, verified=verified,
                        statements=answer.trace.statements, settings=self.settings,
                        check=lambda text: self._check_final(q, refine, text), scores=self.checker.scores)
        draft = D.apply(refine.draft, facts)
        refine.trace.statements = list(draft.checked)
        refine.trace.notes += draft.notes
        q.warnings += [w.text for w in draft.warnings]
        return draft

    def complete(self, q: Question, items: list[Statement | Claim], trace: StageTrace, where: str,
                 failed: str = R.DROPPED_FRAGMENT) -> list[Statement | Claim]:
        """Question-aware claims (:mod:`~vericite.engine.claims`): every claim with fewer than
        ``claim_words`` words rewritten as a full sentence with the question (one LLM call each,
        purpose ``claim:<where>``, recorded in ``trace``); a fragment that cannot be gets ``failed``."""
        n = self.settings.claim_words
        if not any(isinstance(x, Claim) and is_fragment(x.text, n) for x in items):
            return items
        if "claim" not in q.prompts.steps:
            warn_once(q.warnings, f"prompt set {q.prompts.tag} has no claim step: fragments are not checked "
                                  "as claims and are dropped")
            return complete_claims(items, None, n, question=q.text, lang=q.lang, failed=failed)

        def rewrite(fragment: str) -> str:
            call = self._chat(q, q.prompts.messages("claim", question=q.text, statements=fragment), step="claim",
                              purpose=f"claim:{where}")
            trace.llm_calls.append(call)
            return call.text

        return complete_claims(items, rewrite, n, question=q.text, lang=q.lang, guard=self.settings.claim_guard, failed=failed,
                               notes=trace.notes)

    def _check_final(self, q: Question, refine: Stage, text: str) -> tuple[D.Block, list[str]]:
        """The final check of ``text`` (stage 3's rules call it): every sentence checked against
        its cited documents; LLM calls (fragment rewrites) and NLI pairs are recorded in the
        stage-3 trace.

        Returns:
            (the block: ``text`` and its sentences with verdicts, each passing sentence in its
            checked form: a fragment as its question-aware claim, citations that did not carry it
            removed; the trace notes the check wrote).
        """
        scratch = StageTrace(R.REFINE)  # the notes go to the draft, in the rules' order
        with q.timeline.span(None) as t:
            items = answer_claims(R.REFINE, text, q.documents, self._split_lang(q, text), final=True,
                                  recite=self.settings.recite)
            items = self.complete(q, items, scratch, R.REFINE, failed=R.UNSUPPORTED)
            refine.trace.llm_calls += scratch.llm_calls
            batch = self._verifier.submit(items, (R.SUPPORTED, R.UNSUPPORTED), refine.trace, q.timeline)
            final = self._verifier.resolve(batch, refine.trace, q.timeline)
        refine.trace.wall_ms = round(refine.trace.wall_ms + t.ms, 1)
        out = []
        for s in final:
            if s.verdict == R.SUPPORTED and (s.rewritten or s.removed or s.recited) and s.raw in text:
                s = replace(s, raw=merge_adjacent(with_citations(s)))
            out.append(s)
        return D.Block(text, tuple(out), tuple(s.raw for s in final)), scratch.notes

    def result(self, q: Question, stages: list[Stage], conflicts: Sequence[Conflict] = ()) -> VerifiedAnswer:
        """The answer record: the final draft's text and sentences, every stage's trace, the
        conflicts between documents and the settings stamp."""
        draft = stages[-1].draft
        return VerifiedAnswer(question=q.text, answer=draft.text(), documents=q.documents,
                              stages=[s.trace for s in stages], final=draft.sentences,
                              settings=self.stamp(q.lang, q.prompts), warnings=q.warnings,
                              wall_ms=q.timeline.elapsed_ms(), timeline=q.timeline.spans,
                              instructions=q.instructions, conflicts=list(conflicts),
                              empty_reason=draft.empty_reason())

    # -- the stamp ----------------------------------------------------------------------------
    def stamp(self, lang: str, prompts: PromptSet | None = None) -> dict:
        """What every answer records about how it was made: every setting, the prompt set used
        (``prompts``, default the configured one), the language used, the schedule that ran, and the
        models (name, sha256, n_ctx, execution provider)."""
        out = self.settings.stamp()
        out.update({"lang": lang, "prompts": (prompts or self.prompts).tag, "schedule": self._verifier.schedule,
                    "llm": self.llm.name, "llm_sha256": getattr(self.llm, "sha256", None), "n_ctx": self.llm.n_ctx,
                    "nli": self.checker.name, "nli_sha256": getattr(self.checker, "sha256", None),
                    "nli_ep": getattr(self.checker, "ep", None)})
        return out

    # -- shared by the stages (and by `vericite bench gate`) ----------------------------------
    def language(self, question: str, documents: Sequence[Document] = ()) -> str:
        """The question's language: the ``lang`` setting, or for "auto" the detected one
        (:mod:`~vericite.engine.language`; a question too short to tell is read with its documents)."""
        if self.settings.lang != "auto":
            return self.settings.lang
        code, p = detect(question)
        if p >= MIN_CONFIDENCE or not documents:
            return code
        return detect_or(question + "\n" + "\n".join(d.text for d in documents)[:2000], code)

    def _split_lang(self, q: Question, text: str) -> str:
        """The splitter's language for ``text`` (an answer, an extraction, a document): the setting,
        or for "auto" the text's own language when detected with confidence, else the question's."""
        return self.settings.lang if self.settings.lang != "auto" else detect_or(text, q.lang)

    def render(self, messages: list[dict[str, str]]) -> list[dict[str, str]] | str:
        """Chat messages as the LLM receives them: unchanged ("chat") or one completion prompt."""
        return completion_prompt(messages) if self.settings.prompt_format == "completion" else messages

    def shown_documents(self, question: str, docs: Sequence[Document], lang: str = "en") -> list[Document]:
        """The documents as the LLM sees them: trimmed to ``settings.doc_tokens`` by question
        relevance when set (:func:`~vericite.engine.relevance.trim_document`), else unchanged."""
        if not self.settings.doc_tokens:
            return list(docs)
        return [replace(d, text=trim_document(question, d.text, self.settings.doc_tokens, self.llm.count_tokens, lang)[0])
                for d in docs]

    def gate_messages(self, question: str, doc: Document, number: int, warnings: list[str]) -> list[dict[str, str]]:
        """The usefulness-check prompt for document ``number`` (1-based), the document trimmed and
        cut to fit the context as stage 2 does (also used by ``vericite bench gate`` to calibrate)."""
        shown = self.shown_documents(question, [doc], self.language(question, [doc]))[0]
        prompts = self.prompts.for_language(self.language(question, [doc]))
        text = fit_document(self.llm, shown, self._budget(prompts, "extract", question), warnings, number)
        return prompts.messages("gate", question=question, docs=text)

    def _multihop(self, q: Question, st: Stage, useful: list[int], texts: list[str]) -> None:
        """Multi-hop evidence (the paper's named weakness: stage 2 reads one document at a time):
        each pair of useful documents sharing a name the question lacks (:func:`linked_pairs`) is
        read together; its facts cite both and are checked against both (a citation that does not
        carry a fact is removed)."""
        for i, j in linked_pairs(q.text, [(n, q.documents[n - 1].text) for n in useful]):
            block = q.prompts.doc(i, q.shown[i - 1].title, texts[i - 1]) + q.prompts.doc(j, q.shown[j - 1].title,
                                                                                          texts[j - 1])
            ext = self._chat(q, q.prompts.messages("extract", question=q.text, docs=block), step="extract",
                             purpose=f"extract:{i}+{j}")
            st.trace.llm_calls.append(ext)
            items = joint_fact_claims(R.EVIDENCE, ext.text, [(i, q.documents[i - 1]), (j, q.documents[j - 1])],
                                      self._split_lang(q, ext.text), min_words=self.settings.min_statement_words)
            items = self.complete(q, items, st.trace, f"{R.EVIDENCE}:{i}+{j}")
            batch = self._verifier.submit(items, (R.KEPT, R.DROPPED_NLI), st.trace, q.timeline)
            st.documents.append(DocumentEvidence((i, j), None, batch))
            st.checks.append(batch)

    def _relative_gates(self, q: Question, texts: list[str],
                        scored: list[tuple[float, LLMCall]] | None = None) -> list[LLMCall]:
        """The relative gate: P(Yes) of every document, then "Yes" where P(Yes) divided by the
        highest of the question's documents is >= ``gate_threshold`` (the best document always
        passes). A small model says "Yes" to nearly every document; which documents it prefers
        discriminates far better than its absolute P(Yes)."""
        if scored is None:  # (given: scored together by stage 2's parallel path)
            scored = [self._p_yes(q, text, i) for i, text in enumerate(texts, start=1)]
        top = max(p for p, _ in scored)
        return [replace(call, text="Yes" if top > 0 and p / top >= self.settings.gate_threshold else "No",
                        score=round(p, 4)) for p, call in scored]

    def _p_yes(self, q: Question, text: str, number: int) -> tuple[float, LLMCall]:
        """P(Yes) of the usefulness prompt for document ``number`` (1-based), one forward pass."""
        purpose = f"gate:{number}"
        with q.timeline.span("llm", purpose):
            return self.llm.yes_probability(self.render(q.prompts.messages("gate", question=q.text, docs=text)),
                                            purpose=purpose)

    def _gate(self, q: Question, text: str, number: int) -> LLMCall:
        """The usefulness check of one document: an LLMCall whose text is "Yes" or "No"."""
        if self.settings.gate == "scored":
            p_yes, call = self._p_yes(q, text, number)
            return replace(call, text="Yes" if p_yes >= self.settings.gate_threshold else "No", score=round(p_yes, 4))
        return self._chat(q, q.prompts.messages("gate", question=q.text, docs=text), step="gate",
                          purpose=f"gate:{number}", grammar=YES_NO if self.settings.gate_grammar else None)

    def _chat(self, q: Question, messages: list[dict[str, str]], *, step: str, purpose: str,
              grammar: str | None = None) -> LLMCall:
        with q.timeline.span("llm", purpose):
            return self.llm.chat(self.render(messages), max_tokens=q.prompts.steps[step].max_tokens,
                                 purpose=purpose, grammar=grammar)

    def _budget(self, prompts: PromptSet, step: str, question: str, statements: str = "") -> int:
        """Tokens left for documents in one prompt of ``step``."""
        fixed = [m["content"] for m in prompts.messages(step, question=question, statements=statements)]
        return prompt_budget(self.llm, fixed, prompts.steps[step].max_tokens)

    def _documents_block(self, step: str, q: Question, statements: str = "") -> str:
        """All documents rendered for ``step``, each cut to an equal share of the context if needed."""
        return fit_documents(self.llm, q.shown, self._budget(q.prompts, step, q.text, statements), q.prompts.doc, q.warnings,
                             hint=f"for {step}; pass fewer documents (--ndoc) or use a model with a larger context")

    def verifier(self) -> Verifier:
        """The checks' rules for these settings (threshold, schedule, grade bands, strictness)."""
        return self._verifier

    def _cite_grammar(self, n_docs: int, allowed: set[int] | None = None) -> str | None:
        return citation_grammar(n_docs, allowed=allowed, inline=self.settings.inline_citations) \
            if self.settings.citation_grammar else None


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


def _drop_unfinished_tail(text: str) -> tuple[str, str]:
    """Cut a trailing fragment the token cap left unfinished (no closing punctuation): (the text
    kept, the trace note; "" when nothing was cut)."""
    m = re.search(r"[.!?](?:\s*\[\d+(?:,\s*\d+)*\])*[\"')]?\s*$", text)
    if m or not text:
        return text, ""
    last = max(text.rfind(". "), text.rfind("! "), text.rfind("? "))
    kept = text[:last + 1].rstrip() if last >= 0 else ""
    return kept, f"token cap reached: unfinished tail removed: {text[len(kept):].strip()!r}"
