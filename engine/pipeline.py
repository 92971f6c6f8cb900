"""The VeriCite pipeline: stage 1 (answer) -> stage 2 (evidence) -> stage 3 (refine) -> final check.

Faithful to Qian et al. (SIGIR-AP 2025) and the authors' vericite.py; every place where this
code differs is listed in README.md ("Differences from the authors' code").
"""
from __future__ import annotations

import logging
import re
import time
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator, Protocol, Sequence

import numpy as np

from . import records as R
from .citations import format_citations, invalid_citations, merge_adjacent, parse_citations, strip_citations
from .errors import ConfigError, InputError
from .grading import grade, is_verbatim
from .grammar import YES_NO, citation_grammar
from .prompts import PromptSet, completion_prompt
from .records import Document, LLMCall, Span, Statement, StageTrace, VerifiedAnswer
from .relevance import trim_document
from .splitter import check_language, split_statements

log = logging.getLogger(__name__)

_MARGIN_TOKENS = 48  # chat-template tokens and rounding slack when fitting documents into n_ctx


class LLM(Protocol):
    name: str
    n_ctx: int

    def chat(self, messages: list[dict[str, str]], *, max_tokens: int, purpose: str,
             grammar: str | None = None) -> LLMCall: ...

    def count_tokens(self, text: str) -> int: ...

    def yes_probability(self, messages: list[dict[str, str]], *, purpose: str) -> tuple[float, LLMCall]: ...

    def truncate(self, text: str, max_tokens: int) -> tuple[str, bool]: ...


class Checker(Protocol):
    name: str

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray: ...


@dataclass(frozen=True)
class Settings:
    """Pipeline settings.

    threshold: P(entailment) needed to keep a statement (from models.toml by default).
    lang: sentence-splitter language ("en", "ru", ...) or "auto" (Cyrillic in the question -> "ru").
    gate_grammar: constrain the usefulness gate to "Yes" | "No" with a GBNF grammar.
    gate: "grammar" (the LLM answers Yes/No, greedy; the authors' rule) or "scored" (one forward
        pass; the document is useful if P(Yes) = softmax(logit Yes, logit No)[0] >= gate_threshold,
        a per-model threshold calibrated with ``vericite bench gate``).
    min_statement_words: statements and facts with fewer words are dropped before the NLI check
        (0, the default, keeps all, as the authors do). A bare fragment ("Murcia", "1939") is
        "entailed" by any document that mentions it; dropping fragments reads better but, on 5
        HotpotQA items with the 1.5B model, lost one correct answer ("Murcia") of two.
    checker_languages: languages the NLI checker reads; an answer in another language carries a
        warning that its verdicts are not meaningful (they are still computed and reported).
    citation_grammar: constrain stages 1 and 3 with :func:`~vericite.engine.grammar.citation_grammar`
        (every sentence ends with in-range citations); for small models that otherwise omit them.
    schedule: "overlap" (default): NLI checks are submitted to the checker's queue
        (:class:`~vericite.engine.batching.DynamicBatcher`) and the LLM moves on; stage 3 waits for
        every check. "sequential": the authors' order, each check computed before the next LLM call.
        The schedule changes timing, never results. A checker without ``submit`` runs sequentially.
    prompt_format: "chat" (default): prompts go through the GGUF's chat template; "completion":
        the same text as one plain prompt (:func:`~vericite.engine.prompts.completion_prompt`).
    doc_tokens: if > 0, every document shown to the LLM is trimmed to its most question-relevant
        sentences within this many tokens (:func:`~vericite.engine.relevance.trim_document`); the
        NLI checks always use the full document. 0 (default) shows documents whole.
    grade_bands: the checker's calibrated ``[b1, b2, b3]`` (models.toml); when set, every checked
        sentence gets a grade 1-4 (:func:`~vericite.engine.grading.grade`, grade 1 decided by the
        text: the sentence occurs verbatim in its premise). The keep/drop verdict still uses
        ``threshold`` alone.
    """

    threshold: float = 0.5
    lang: str = "auto"
    gate_grammar: bool = True
    citation_grammar: bool = False
    min_statement_words: int = 0
    gate: str = "grammar"
    gate_threshold: float = 0.5
    checker_languages: tuple[str, ...] = ("en",)
    schedule: str = "overlap"
    prompt_format: str = "chat"
    doc_tokens: int = 0
    grade_bands: tuple[float, float, float] | None = None


SCHEDULES = ("overlap", "sequential")


@dataclass
class _Pending:
    """Sentences waiting for their NLI scores: ``out[j]`` is filled from ``slots`` when ``future`` resolves."""

    trace: StageTrace
    out: list[Statement | None]
    slots: list[Statement]            # score and verdict still unset; j = position in ``out``
    positions: list[int]
    verdicts: tuple[str, str]         # (pass, fail)
    future: Future | None = None
    premises: list[str] = field(default_factory=list)  # per slot, for grading

    def resolve(self, threshold: float, spans: list[Span], t0: float,
                bands: tuple[float, float, float] | None = None) -> list[Statement]:
        if self.future is not None:
            w0 = time.perf_counter()
            probs = self.future.result()  # re-raises a checker failure here, in the caller's thread
            w1 = time.perf_counter()
            self.trace.nli_ms = round(self.trace.nli_ms + (w1 - w0) * 1000, 1)
            if w1 - w0 > 1e-3:
                spans.append(Span("wait", f"{self.trace.name}: waiting for NLI", (w0 - t0) * 1000, (w1 - t0) * 1000))
            ok, ko = self.verdicts
            for k, (j, st, p) in enumerate(zip(self.positions, self.slots, probs)):
                g = (grade(float(p), bands, verbatim=is_verbatim(self.premises[k], st.text))
                     if bands and k < len(self.premises) else None)
                self.out[j] = replace(st, verdict=ok if p >= threshold else ko, score=round(float(p), 4), grade=g)
            self.future = None
        return [x for x in self.out if x is not None]


@dataclass
class _Job:
    """One question between stage 2 and stage 3: LLM work done, NLI checks possibly in flight."""

    question: str
    docs: list[Document]
    lang: str
    warnings: list[str]
    t0: float
    s1: StageTrace
    s2: StageTrace
    pending: list[_Pending] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    shown: list[Document] = field(default_factory=list)  # the documents as the LLM sees them (maybe trimmed)


class VeriCite:
    """Answers a question from documents with NLI-verified citations.

    Args:
        llm: a chat LLM (:class:`~vericite.engine.llm.LlamaCppLLM`).
        checker: an NLI scorer with ``scores(pairs) -> float32 [n]``.
        prompts: the prompt set (:class:`~vericite.engine.prompts.PromptSet`).
        settings: thresholds and switches (:class:`Settings`).
    """

    def __init__(self, llm: LLM, checker: Checker, *, prompts: PromptSet, settings: Settings = Settings()):
        self.check_settings(settings)
        self.llm = llm
        self.checker = checker
        self.prompts = prompts
        self.settings = settings

    @staticmethod
    def check_settings(settings: Settings) -> None:
        """Raise ConfigError for a setting the pipeline cannot run with (language, gate, threshold)."""
        if settings.lang != "auto":
            check_language(settings.lang)
        if settings.gate not in R.GATES:
            raise ConfigError(f"gate must be one of {R.GATES}, got {settings.gate!r}")
        if not 0.0 < settings.threshold < 1.0:
            raise ConfigError(f"threshold must be in (0, 1), got {settings.threshold}")
        if settings.schedule not in SCHEDULES:
            raise ConfigError(f"schedule must be one of {SCHEDULES}, got {settings.schedule!r}")
        if settings.prompt_format not in R.PROMPT_FORMATS:
            raise ConfigError(f"prompt_format must be one of {R.PROMPT_FORMATS}, got {settings.prompt_format!r}")
        if settings.doc_tokens < 0 or 0 < settings.doc_tokens < 16:
            raise ConfigError(f"doc_tokens must be 0 (whole documents) or >= 16, got {settings.doc_tokens}")

    # -- public ---------------------------------------------------------------------------
    def answer(self, question: str, documents: Sequence[Document]) -> VerifiedAnswer:
        """Run the three stages and the final check.

        Args:
            question: the user's question (non-empty).
            documents: the retrieved passages, cited 1-based in this order.

        Returns:
            VerifiedAnswer: the final answer text (citations merged, e.g. "[1, 2]") and the trace.

        Raises:
            InputError: empty question or no documents.
            InferenceError: an LLM or NLI call failed.
        """
        return self._finish(self._begin(question, documents))

    def answer_many(self, items: Iterable[tuple[str, Sequence[Document]]]) -> Iterator[VerifiedAnswer]:
        """Answer several questions with one loaded model, in order.

        The LLM starts the next question's stages 1-2 before the previous question's stage 3, so
        the previous question's NLI checks finish behind LLM work (with the overlap schedule).

        Yields:
            VerifiedAnswer per item, in input order.

        Raises:
            InputError, InferenceError: as :meth:`answer`, for the first item that fails.
        """
        prev: _Job | None = None
        for question, docs in items:
            job = self._begin(question, docs)
            if prev is not None:
                yield self._finish(prev)
            prev = job
        if prev is not None:
            yield self._finish(prev)

    def _begin(self, question: str, documents: Sequence[Document]) -> _Job:
        """Validate input, run the LLM work of stages 1 and 2, and submit their NLI checks."""
        question = (question or "").strip()
        if not question:
            raise InputError("the question is empty")
        if not documents:
            raise InputError("no documents given")
        docs = list(documents)
        lang = self._lang(question)
        warnings: list[str] = []
        if lang not in self.settings.checker_languages:
            _warn_once(warnings, f"the NLI checker {self.checker.name} reads {', '.join(self.settings.checker_languages)} "
                                 f"only; its verdicts on {lang!r} text are not meaningful")
        job = _Job(question, docs, lang, warnings, time.perf_counter(), StageTrace("initial_answer"), StageTrace("evidence"))
        job.shown = self.shown_documents(question, docs, lang)
        self._stage1(job)
        self._stage2(job)
        return job

    def _finish(self, job: _Job) -> VerifiedAnswer:
        """Wait for the job's NLI checks, then stage 3 and the final check."""
        thr = self.settings.threshold
        for p in job.pending:
            p.trace.statements = p.resolve(thr, job.spans, job.t0, self.settings.grade_bands)
        s1, s2 = job.s1, job.s2
        verified = [s for s in s2.statements + s1.statements if s.verdict == R.KEPT]  # authors' order
        s3, text, final = self._stage3(job, verified)
        return VerifiedAnswer(
            question=job.question, answer=text, documents=job.docs, stages=[s1, s2, s3], final=final,
            settings={
                "llm": self.llm.name, "nli": self.checker.name, "threshold": thr,
                "prompts": self.prompts.tag, "lang": job.lang, "gate": self.settings.gate,
                "gate_threshold": self.settings.gate_threshold, "gate_grammar": self.settings.gate_grammar,
                "citation_grammar": self.settings.citation_grammar, "schedule": self._schedule(),
                "prompt_format": self.settings.prompt_format, "doc_tokens": self.settings.doc_tokens,
                "n_ctx": self.llm.n_ctx,
            },
            warnings=job.warnings, wall_ms=round((time.perf_counter() - job.t0) * 1000, 1), timeline=job.spans)

    # -- stages ---------------------------------------------------------------------------
    def _stage1(self, job: _Job) -> None:
        """Initial answer from all documents; each statement's check against its cited documents is submitted."""
        trace, step = job.s1, self.prompts.steps["initial_answer"]
        t0 = time.perf_counter()
        block = self._docs_block("initial_answer", job.question, job.shown, job.warnings)
        log.info("stage 1: answering from %d documents", len(job.docs))
        call = self._chat(job, self.prompts.messages("initial_answer", question=job.question, docs=block),
                          max_tokens=step.max_tokens, purpose="answer", grammar=self._cite_grammar(len(job.docs)))
        trace.llm_calls.append(call)
        job.pending.append(self._check_sentences("initial", call.text, job, trace, keep_failed=False))
        trace.wall_ms = round((time.perf_counter() - t0) * 1000, 1)

    def _stage2(self, job: _Job) -> None:
        """Per document: usefulness gate, then fact extraction; each fact's check against its
        document is submitted, and the LLM moves on to the next document."""
        trace = job.s2
        t0 = time.perf_counter()
        pending = _Pending(trace, [], [], [], (R.KEPT, R.DROPPED_NLI))
        job.pending.append(pending)
        for i, (doc, shown) in enumerate(zip(job.docs, job.shown), start=1):
            text = self._fit_one("evidence_answer", job.question, shown, job.warnings, i)
            log.info("stage 2: document %d/%d", i, len(job.docs))
            gate = self._gate(job, self._evidence_check(job.question, text), i)
            trace.llm_calls.append(gate)
            if gate.text.strip().startswith("No"):  # the authors' rule: anything else counts as Yes
                trace.notes.append(f"document [{i}] judged not useful")
                continue
            ext = self._chat(job, self.prompts.messages("evidence_answer", question=job.question, docs=text),
                             max_tokens=self.prompts.steps["evidence_answer"].max_tokens, purpose=f"extract:{i}")
            trace.llm_calls.append(ext)
            facts = [strip_citations(f) for f in split_statements(ext.text, job.lang)]
            facts = [f for f in facts if f]
            pairs, slots, positions = [], [], []
            for f in facts:
                if not self._is_statement(f):
                    pending.out.append(Statement("evidence", f, (i,), R.DROPPED_FRAGMENT, None, f))
                    continue
                pairs.append((doc.text, f))
                slots.append(Statement("evidence", f, (i,), "", None, f))
                positions.append(len(pending.out))
                pending.out.append(None)
            if pairs:
                part = _Pending(trace, pending.out, slots, positions, pending.verdicts, premises=[p for p, _ in pairs])
                part.future = self._submit(pairs, trace, job)
                job.pending.append(part)
        trace.wall_ms = round((time.perf_counter() - t0) * 1000, 1)

    def _stage3(self, job: _Job, verified: list[Statement]) -> tuple[StageTrace, str, list[Statement]]:
        """Merge verified statements into one answer; then check each final sentence (report, never drop)."""
        trace = StageTrace("refine")
        t0 = time.perf_counter()
        if not verified:
            trace.notes.append("no verified statement: nothing to refine, the answer is empty")
            job.warnings.append("no statement survived the NLI checks; the answer is empty")
            trace.wall_ms = round((time.perf_counter() - t0) * 1000, 1)
            return trace, "", []
        lines = "\n".join(_with_citations(s) for s in verified)
        log.info("stage 3: refining %d verified statements", len(verified))
        step = self.prompts.steps["summary"]
        block = self._docs_block("summary", job.question, job.shown, job.warnings, statements=lines)
        cited = {c for s in verified for c in s.citations}  # stage 3 may cite only where verified facts came from
        call = self._chat(job, self.prompts.messages("summary", question=job.question, docs=block, statements=lines),
                          max_tokens=step.max_tokens, purpose="refine", grammar=self._cite_grammar(len(job.docs), cited))
        trace.llm_calls.append(call)
        text = merge_adjacent(call.text.strip())
        if call.finish_reason == "length":
            text = _drop_unfinished_tail(text, trace)
        final = self._check_sentences("final", text, job, trace, keep_failed=True).resolve(
            self.settings.threshold, job.spans, job.t0, self.settings.grade_bands)
        bad = [s for s in final if s.verdict != R.SUPPORTED]
        if bad:
            job.warnings.append(f"{len(bad)} of {len(final)} final sentences failed the final check (see final_check)")
        trace.wall_ms = round((time.perf_counter() - t0) * 1000, 1)
        return trace, text, final

    # -- helpers --------------------------------------------------------------------------
    def _check_sentences(self, stage: str, text: str, job: _Job, trace: StageTrace, *, keep_failed: bool) -> _Pending:
        """Split ``text`` into sentences and submit an NLI check of each against the joined text of
        its cited documents; returns the pending result (resolve it for the statements).

        Stage 1 (``keep_failed=False``) marks failures as dropped; the final check
        (``keep_failed=True``) marks them unsupported / no_citation and keeps them in the answer.
        """
        docs = job.docs
        ok, ko = (R.SUPPORTED, R.UNSUPPORTED) if keep_failed else (R.KEPT, R.DROPPED_NLI)
        pending = _Pending(trace, [], [], [], (ok, ko))
        pairs = []
        for sent in split_statements(text, job.lang):
            cites = parse_citations(sent)
            clean = strip_citations(sent)
            if not clean:
                continue
            if not keep_failed and not self._is_statement(clean):
                pending.out.append(Statement(stage, clean, cites, R.DROPPED_FRAGMENT, None, sent))
                continue
            if not cites:
                pending.out.append(Statement(stage, clean, (), R.NO_CITATION if keep_failed else R.DROPPED_NO_CITATION, None, sent))
                continue
            if invalid_citations(cites, len(docs)):
                pending.out.append(Statement(stage, clean, cites, R.NO_CITATION if keep_failed else R.DROPPED_OUT_OF_RANGE, None, sent))
                continue
            premise = "\n".join(docs[c - 1].text for c in cites)  # authors: texts joined by newlines
            pairs.append((premise, clean))
            pending.premises.append(premise)
            pending.slots.append(Statement(stage, clean, cites, "", None, sent))
            pending.positions.append(len(pending.out))
            pending.out.append(None)
        if pairs:
            pending.future = self._submit(pairs, trace, job)
        return pending

    def _submit(self, pairs: list[tuple[str, str]], trace: StageTrace, job: _Job) -> Future:
        """Queue ``pairs`` for NLI (overlap schedule) or score them now (sequential); a future either way."""
        trace.nli_pairs += len(pairs)
        if self._schedule() == "overlap":
            return self.checker.submit(pairs)
        fut: Future = Future()
        t0 = time.perf_counter()
        try:
            fut.set_result(self.checker.scores(pairs))
        except Exception as e:  # surfaces at resolve(), in the caller's thread, like the overlap path
            fut.set_exception(e)
        t1 = time.perf_counter()
        trace.nli_ms = round(trace.nli_ms + (t1 - t0) * 1000, 1)
        job.spans.append(Span("nli", f"{trace.name}: {len(pairs)} pairs", (t0 - job.t0) * 1000, (t1 - job.t0) * 1000))
        return fut

    def _schedule(self) -> str:
        return self.settings.schedule if hasattr(self.checker, "submit") else "sequential"

    def _chat(self, job: _Job, messages: list[dict[str, str]], **kwargs) -> LLMCall:
        t0 = time.perf_counter()
        call = self.llm.chat(self.render(messages), **kwargs)
        job.spans.append(Span("llm", call.purpose, (t0 - job.t0) * 1000, (time.perf_counter() - job.t0) * 1000))
        return call

    def _budget(self, step: str, question: str, statements: str = "") -> int:
        """Tokens left for documents in one prompt of ``step`` (n_ctx minus prompt, completion, margin)."""
        fixed = sum(self.llm.count_tokens(m["content"]) for m in
                    self.prompts.messages(step, question=question, statements=statements))
        return self.llm.n_ctx - self.prompts.steps[step].max_tokens - fixed - _MARGIN_TOKENS

    def _docs_block(self, step: str, question: str, docs: list[Document], warnings: list[str],
                    statements: str = "") -> str:
        """All documents rendered for ``step``, each cut to an equal share of the context if needed."""
        return fit_documents(self.llm, docs, self._budget(step, question, statements), self.prompts.doc, warnings,
                             hint=f"for {step}; pass fewer documents (--ndoc) or use a model with a larger context")

    def _fit_one(self, step: str, question: str, doc: Document, warnings: list[str], number: int) -> str:
        text, cut = self.llm.truncate(doc.text, self._budget(step, question))
        if cut:
            _warn_once(warnings, f"document [{number}] truncated to fit the LLM context")
        return text

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
        shown = self.shown_documents(question, [doc], self._lang(question))[0]
        return self._evidence_check(question, self._fit_one("evidence_answer", question, shown, warnings, number))

    def _evidence_check(self, question: str, text: str) -> list[dict[str, str]]:
        return self.prompts.messages("evidence_check", question=question, docs=text)

    def _gate(self, job: _Job, msgs: list[dict[str, str]], number: int) -> LLMCall:
        """The usefulness check of one document: an LLMCall whose text is "Yes" or "No"."""
        if self.settings.gate == "scored":
            t0 = time.perf_counter()
            p_yes, call = self.llm.yes_probability(self.render(msgs), purpose=f"gate:{number}")
            job.spans.append(Span("llm", call.purpose, (t0 - job.t0) * 1000, (time.perf_counter() - job.t0) * 1000))
            return replace(call, text="Yes" if p_yes >= self.settings.gate_threshold else "No", score=round(p_yes, 4))
        return self._chat(job, msgs, max_tokens=self.prompts.steps["evidence_check"].max_tokens,
                          purpose=f"gate:{number}", grammar=YES_NO if self.settings.gate_grammar else None)

    def _is_statement(self, text: str) -> bool:
        return len(text.split()) >= self.settings.min_statement_words

    def _cite_grammar(self, n_docs: int, allowed: set[int] | None = None) -> str | None:
        return citation_grammar(n_docs, allowed=allowed) if self.settings.citation_grammar else None

    def _lang(self, question: str) -> str:
        if self.settings.lang != "auto":
            return self.settings.lang
        return "ru" if re.search(r"[а-яА-ЯёЁ]", question) else "en"


def fit_documents(llm: LLM, docs: Sequence[Document], budget: int, render, warnings: list[str], *, hint: str) -> str:
    """All documents rendered with ``render(number, title, text)``, each cut to an equal share of
    ``budget`` tokens if needed (titles to 32 tokens); a cut adds one warning per document.

    Raises:
        InputError: a document would get fewer than 16 tokens (the message ends with ``hint``).
    """
    per_doc = budget // max(1, len(docs)) - llm.count_tokens(render(1, "", ""))
    if per_doc < 16:
        raise InputError(f"{len(docs)} documents do not fit the LLM context ({llm.n_ctx} tokens) {hint}")
    parts = []
    for i, d in enumerate(docs, start=1):
        title, _ = llm.truncate(d.title, 32)
        text, cut = llm.truncate(d.text, per_doc - llm.count_tokens(title))
        if cut:
            _warn_once(warnings, f"document [{i}] truncated to fit the LLM context")
        parts.append(render(i, title, text))
    return "".join(parts)


def _with_citations(s: Statement) -> str:
    """'Rush is a band.' + (1, 2) -> 'Rush is a band [1][2].' (the authors' [1][2] style)."""
    marks = "".join(format_citations((c,)) for c in s.citations)
    text = s.text.rstrip()
    if text and text[-1] in ".!?":
        return f"{text[:-1]} {marks}{text[-1]}"
    return f"{text} {marks}"


def _drop_unfinished_tail(text: str, trace: StageTrace) -> str:
    """Cut a trailing fragment the token cap left unfinished (no closing punctuation)."""
    m = re.search(r"[.!?](?:\s*\[\d+(?:,\s*\d+)*\])*[\"')]?\s*$", text)
    if m or not text:
        return text
    last = max(text.rfind(". "), text.rfind("! "), text.rfind("? "))
    kept = text[:last + 1].rstrip() if last >= 0 else ""
    trace.notes.append(f"token cap reached: unfinished tail removed: {text[len(kept):].strip()!r}")
    return kept


def _warn_once(warnings: list[str], msg: str) -> None:
    if msg not in warnings:
        warnings.append(msg)
        log.warning(msg)
