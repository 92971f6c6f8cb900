"""The VeriCite pipeline: stage 1 (answer) -> stage 2 (evidence) -> stage 3 (refine) -> final check.

Faithful to Qian et al. (SIGIR-AP 2025) and the authors' vericite.py; every place where this
code differs is listed in README.md ("Differences from the authors' code"). :meth:`VeriCite.answer`
is the method in one place; each stage is one method below it returning a :class:`Stage`.
"""
from __future__ import annotations

import copy
import logging
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Protocol

from . import records as R
from . import settings as S
from .checks import Checker, CheckBatch, Claim, Verifier, answer_claims, fact_claims, joint_fact_claims
from .claims import complete_claims, is_fragment
from .content import FUNCTION_WORDS, adds, carried, content_free, stems
from .grading import grade
from .citations import format_citations, merge_adjacent
from .conflicts import Conflict, find_conflicts
from .errors import InputError
from .fitting import fit_document, fit_documents, prompt_budget, warn_once
from .grammar import YES_NO, citation_grammar
from .instructions import find_instructions, without_instructions
from .language import MIN_CONFIDENCE, detect, detect_or
from .prompts import PromptSet, completion_prompt
from .records import Document, LLMCall, StageTrace, Statement, VerifiedAnswer
from .relevance import bm25_scores, relevant_sentences, trim_document
from .settings import Settings
from .timeline import Timeline

log = logging.getLogger(__name__)

__all__ = ["LLM", "Checker", "Question", "Settings", "Stage", "VeriCite"]


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


@dataclass
class Stage:
    """What one stage produced: its trace, its sentences' checks (possibly still in flight), and
    for stage 3 the refined text."""

    trace: StageTrace
    checks: list[CheckBatch] = field(default_factory=list)
    text: str = ""


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
        self.settings = S.validate(settings)
        self.prompts = prompts or PromptSet.load(settings.prompts)
        self.routes = dict(routes or {})

    # -- the method -------------------------------------------------------------------------
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
        pipe = self.route(question, documents)  # a checker that reads the question's language
        q = pipe.prepare(question, documents)
        answer = pipe.stage1_answer(q)      # initial answer; each statement's check submitted
        evidence = pipe.stage2_evidence(q)  # per document: gate, extraction; each fact's check submitted
        return pipe.finish(q, answer, evidence)

    def finish(self, q: Question, answer: Stage, evidence: Stage) -> VerifiedAnswer:
        """Wait for the checks of stages 1-2, then stage 3 and the final check."""
        verified = self.verified(q, answer, evidence)  # kept facts, then kept statements (authors' order)
        conflicts = self.conflicts(q, verified)        # documents that give another number for a verified claim
        refine = self.stage3_refine(q, verified)       # one merged answer from the verified sentences
        final = self.final_check(q, refine, verified)  # every final sentence checked; strict: failures removed
        final = self.keep_backbone(q, answer, refine, final, verified)  # verified answers the merge dropped, put back
        final = self.mark_partial(q, refine, final)    # lenient: citations that support only partly get [3*]
        return self.result(q, [answer, evidence, refine], final, conflicts)

    def answer_many(self, items: Iterable[tuple[str, Sequence[Document]]]) -> Iterator[VerifiedAnswer]:
        """Answer several questions with one loaded model, in order.

        The LLM starts the next question's stages 1-2 before the previous question's stage 3, so
        the previous question's NLI checks finish behind LLM work (with the overlap schedule).

        Yields:
            VerifiedAnswer per item, in input order.

        Raises:
            InputError, InferenceError: as :meth:`answer`, for the first item that fails.
        """
        prev: tuple[VeriCite, Question, Stage, Stage] | None = None
        for question, docs in items:
            pipe = self.route(question, docs)
            q = pipe.prepare(question, docs)
            started = (pipe, q, pipe.stage1_answer(q), pipe.stage2_evidence(q))
            if prev is not None:
                yield prev[0].finish(*prev[1:])
            prev = started
        if prev is not None:
            yield prev[0].finish(*prev[1:])

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
        empty = [i for i, d in enumerate(documents, start=1) if not d.text.strip()]
        if empty:
            raise InputError(f"document(s) {empty} have no text: nothing could be checked against them; remove "
                             "them or give them text (documents are cited by their position)")
        lang = self.language(text, documents)
        q = Question(text, list(documents), [], lang, prompts=self.prompts.for_language(lang))
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
            st.checks.append(self.verifier().submit(items, (R.KEPT, R.DROPPED_NLI), st.trace, q.timeline))
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
                useful = self._documents_together(q, st, texts)
            else:
                gates = self._relative_gates(q, texts) if self.settings.gate == "relative" else None
                useful = []
                for i, (doc, text) in enumerate(zip(q.documents, texts), start=1):
                    log.info("stage 2: document %d/%d", i, len(q.documents))
                    gate = gates[i - 1] if gates else self._gate(q, text, i)
                    batch = self._evidence(q, st.trace, i, doc, text, gate)
                    if batch is not None:
                        st.checks.append(batch)
                        useful.append(i)
            if self.settings.multihop:
                self._multihop(q, st, useful, texts)
        st.trace.wall_ms = round(t.ms, 1)
        return st

    def _evidence(self, q: Question, trace: StageTrace, i: int, doc: Document, text: str,
                  gate: LLMCall) -> CheckBatch | None:
        """Document ``i`` after its gate: nothing when judged not useful (None), else its extraction,
        whose facts are submitted for checking against it (their CheckBatch)."""
        trace.llm_calls.append(gate)
        if gate.text.strip().startswith("No"):  # the authors' rule: anything else counts as Yes
            trace.notes.append(f"document [{i}] judged not useful")
            return None
        ext = self._chat(q, q.prompts.messages("extract", question=q.text, docs=text), step="extract",
                         purpose=f"extract:{i}")
        trace.llm_calls.append(ext)
        items = fact_claims(R.EVIDENCE, ext.text, i, doc, self._split_lang(q, ext.text),
                            min_words=self.settings.min_statement_words)
        items = self.complete(q, items, trace, f"{R.EVIDENCE}:{i}")
        return self.verifier().submit(items, (R.KEPT, R.DROPPED_NLI), trace, q.timeline)

    def _documents_together(self, q: Question, st: Stage, texts: list[str]) -> list[int]:
        """Stage 2 with up to ``parallel_docs`` documents at once: one thread per document runs
        :meth:`_evidence` (gate, extraction, claims, checks submitted as soon as its extraction
        ends). An LLM with ``batched`` (in-process llama.cpp) decodes the threads' calls as parallel
        sequences of one context (:mod:`~vericite.engine.llm_batch`); any other (a server) gets them
        as concurrent requests. Each document keeps its own trace, merged here in document order,
        so the trace reads as the sequential one. Returns the useful documents' numbers."""
        docs = list(zip(q.documents, texts))
        n = min(self.settings.parallel_docs, len(docs))  # never more sequences than documents

        def together(work) -> list:
            """``work(view, i)`` for every document i (1-based), ``view`` = this pipeline on the batching LLM."""
            batched = getattr(self.llm, "batched", None)
            session = batched(slots=n, clients=len(docs)) if batched else nullcontext(self.llm)
            with session as lm:
                view = copy.copy(self)
                view.llm = lm

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

        def document(view: VeriCite, i: int) -> tuple[StageTrace, CheckBatch | None]:
            log.info("stage 2: document %d/%d (up to %d at once)", i, len(docs), n)
            trace = StageTrace(R.EVIDENCE)
            doc, text = docs[i - 1]
            gate = gates[i - 1] if gates else view._gate(q, text, i)
            return trace, view._evidence(q, trace, i, doc, text, gate)

        useful = []
        for i, (trace, batch) in enumerate(together(document), start=1):
            st.trace.llm_calls += trace.llm_calls
            st.trace.notes += trace.notes
            st.trace.nli_pairs += trace.nli_pairs
            st.trace.nli_ms = round(st.trace.nli_ms + trace.nli_ms, 1)
            if batch is not None:
                st.checks.append(batch)
                useful.append(i)
        return useful

    def verified(self, q: Question, answer: Stage, evidence: Stage) -> list[Statement]:
        """Wait for the checks of stages 1 and 2 (their verdicts go into the traces); the kept
        sentences, stage 2's facts first (the authors' order)."""
        for st in (answer, evidence):
            st.trace.statements = [s for b in st.checks for s in self.verifier().resolve(b, st.trace, q.timeline)]
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

    def stage3_refine(self, q: Question, verified: list[Statement]) -> Stage:
        """Merge the verified statements into one answer, citing only documents they cite."""
        st = Stage(StageTrace(R.REFINE))
        with q.timeline.span(None) as t:
            quotes = self.quotes(q) if not verified else []
            if quotes:
                st.text = " ".join(quotes)
                st.trace.notes.append(f"no verified statement: the answer quotes the {len(quotes)} document "
                                      "sentence(s) most relevant to the question (fallback_quotes)")
                q.warnings.append("no generated statement survived the NLI checks; the answer quotes the documents' "
                                  "most relevant sentences instead (--fallback-quotes 0: an empty answer)")
            elif not verified:
                st.trace.notes.append("no verified statement: nothing to refine, the answer is empty")
                q.warnings.append("no statement survived the NLI checks; the answer is empty")
            else:
                log.info("stage 3: refining %d verified statements", len(verified))
                lines = "\n".join(_with_citations(s) for s in verified)
                block = self._documents_block(R.REFINE, q, statements=lines)
                cited = {c for s in verified for c in s.citations}
                call = self._chat(q, q.prompts.messages(R.REFINE, question=q.text, docs=block, statements=lines),
                                  step=R.REFINE, purpose=R.REFINE, grammar=self._cite_grammar(len(q.documents), cited))
                st.trace.llm_calls.append(call)
                st.text = merge_adjacent(call.text.strip())
                if call.finish_reason == "length":
                    st.text = _drop_unfinished_tail(st.text, st.trace)
                    if not st.text:
                        q.warnings.append(f"the refinement reached its {q.prompts.steps[R.REFINE].max_tokens}-token "
                                          "cap before its first sentence ended; the answer is empty")
                elif not st.text:
                    q.warnings.append("the refinement step returned no text; the answer is empty")
        st.trace.wall_ms = round(t.ms, 1)
        return st

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
        return [_with_citations(Statement(R.REFINE, sent, (i + 1,), R.KEPT, None, sent)) for i, sent in in_order]

    def final_check(self, q: Question, refine: Stage, verified: list[Statement]) -> list[Statement]:
        """Check every final sentence against its cited documents.

        The stage-3 trace records every sentence the refinement wrote with its verdict. With
        ``drop_unsupported`` (strict, the default) a sentence that fails is removed from the answer,
        and when none passes the answer falls back to the verified sentences themselves (checked
        again, as final sentences); without it failures are only reported.

        Returns:
            The sentences of the answer, each with its verdict.
        """
        final, refine.text = self._check_final(q, refine, refine.text)
        if verified and self.settings.add_nothing:
            final = self._adds_nothing(q, refine, final, verified)
        refine.trace.statements = list(final)
        bad = [s for s in final if s.verdict != R.SUPPORTED]
        if not bad:
            return final
        if not self.settings.drop_unsupported:
            q.warnings.append(f"{len(bad)} of {len(final)} final sentences failed the final check (see final_check)")
            return final
        kept = [s for s in final if s.verdict == R.SUPPORTED]
        refine.trace.notes.append(f"strict: removed {len(bad)} of {len(final)} final sentences that failed the final "
                                  f"check: {[s.raw for s in bad]}")
        if kept:
            refine.text = " ".join(s.raw for s in kept)
            q.warnings.append(f"removed {len(bad)} of {len(final)} final sentences that failed the final check "
                              "(strict; --no-drop-unsupported keeps them)")
            return kept
        refine.text = merge_adjacent(" ".join(_with_citations(s) for s in verified))
        refine.trace.notes.append("strict: no final sentence passed; the answer is the verified sentences")
        q.warnings.append(f"no final sentence passed the final check; the answer is the {len(verified)} verified "
                          "sentences themselves")
        final, refine.text = self._check_final(q, refine, refine.text)
        failed = [s for s in final if s.verdict != R.SUPPORTED]
        if failed:  # strict holds for the fallback too (a sentence can read differently once split again)
            final = [s for s in final if s.verdict == R.SUPPORTED]
            refine.text = " ".join(s.raw for s in final)
            refine.trace.notes.append(f"strict: removed {len(failed)} verified sentence(s) that failed as final "
                                      f"sentences: {[s.raw for s in failed]}")
        return final

    def _adds_nothing(self, q: Question, refine: Stage, final: list[Statement],
                      verified: list[Statement]) -> list[Statement]:
        """Stage 3 adds nothing (``add_nothing``): a refined sentence that passed the checker but
        says what no verified sentence says, or only talks about the prompt
        (:func:`~vericite.engine.content.adds`), fails the final check."""
        sources = " ".join(v.text for v in verified)
        out = []
        for s in final:
            why = adds(s.text, sources, q.text, q.lang) if s.verdict == R.SUPPORTED else None
            if why:
                refine.trace.notes.append(f"add nothing: {s.raw!r} fails ({why} beyond the verified sentences)")
                s = replace(s, verdict=R.UNSUPPORTED)
            out.append(s)
        return out

    def keep_backbone(self, q: Question, answer: Stage, refine: Stage, final: list[Statement],
                      verified: Sequence[Statement] = ()) -> list[Statement]:
        """Put back the verified sentences that the refinement dropped (``backbone``,
        ``backbone_facts``).

        Stage 1 answers the question in full sentences; the merge sometimes keeps only a stage-2
        fragment or loses the answer. A kept stage-1 statement whose answer words (its words that
        are not in the question, :func:`~vericite.engine.content.carried`) are mostly missing from
        the final text is put before the refined sentences. Then up to ``backbone_facts`` verified
        stage-2 facts of ``verified`` that the final text lost (:func:`dropped_facts`) go after them.
        Each is checked again as a final sentence first.

        Returns:
            The final sentences: restored statements, refined sentences, restored facts.
        """
        if self.settings.backbone:
            missing = [s for s in answer.trace.statements
                       if s.verdict == R.KEPT and not carried(s.text, refine.text, q.text, q.lang)]
            final = self._put_back(q, refine, final, missing, "verified stage-1 statement(s)", before=True)
        if self.settings.backbone_facts:
            picked = dropped_facts(q.text, verified, refine.text, self.settings.backbone_facts, q.lang)
            final = self._put_back(q, refine, final, picked, "verified stage-2 fact(s)", before=False)
        return final

    def _put_back(self, q: Question, refine: Stage, final: list[Statement], missing: Sequence[Statement],
                  what: str, *, before: bool) -> list[Statement]:
        """``missing`` checked as final sentences and, those that pass (strict) or all, joined to
        the answer before or after its sentences; one trace note."""
        if not missing:
            return final
        restored, text = self._check_final(q, refine, " ".join(merge_adjacent(_with_citations(s)) for s in missing))
        if self.settings.drop_unsupported:
            restored = [s for s in restored if s.verdict == R.SUPPORTED]
            text = " ".join(s.raw for s in restored)
        if not restored:
            return final
        refine.text = (f"{text} {refine.text}" if before else f"{refine.text} {text}").strip()
        refine.trace.statements = restored + refine.trace.statements if before else refine.trace.statements + restored
        refine.trace.notes.append(f"backbone: put back {len(restored)} {what} the refinement dropped: "
                                  f"{[s.raw for s in restored]}")
        return restored + final if before else final + restored

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

    def mark_partial(self, q: Question, refine: Stage, final: list[Statement]) -> list[Statement]:
        """Lenient strictness: mark each citation that supports its final sentence only partly
        (grade 3, each cited document scored alone when there are several) with an asterisk in
        the answer, "[2, 3*]"; the Statement lists them in ``partial``. Strict: unchanged."""
        if self.settings.strictness != "lenient" or not final:
            return final
        bands = self.settings.grade_bands
        multi = [(s, c) for s in final if len(s.citations) > 1 for c in s.citations]
        alone = iter(self.checker.scores([(q.documents[c - 1].text, s.text) for s, c in multi])) if multi else iter(())
        out = []
        for s in final:
            if len(s.citations) > 1:
                grades = {c: grade(float(next(alone)), bands) for c in s.citations}
            else:
                grades = {c: s.grade for c in s.citations}
            partial = tuple(c for c in s.citations if grades[c] == 3)
            if partial and s.verdict == R.SUPPORTED:
                raw = re.sub(r"\[[\d,\s]+\]", format_citations(s.citations, partial), s.raw, count=1)
                refine.text = refine.text.replace(s.raw, raw, 1)
                s = replace(s, raw=raw, partial=partial)
            out.append(s)
        return out

    def _check_final(self, q: Question, refine: Stage, text: str) -> tuple[list[Statement], str]:
        """Check the sentences of ``text`` as final sentences.

        Returns:
            (the sentences with verdicts, ``text`` with each passing sentence written as checked:
            a fragment as its question-aware claim, citations that did not carry it removed).
        """
        if not text:
            return [], text
        with q.timeline.span(None) as t:
            items = answer_claims(R.REFINE, text, q.documents, self._split_lang(q, text), final=True,
                                  recite=self.settings.recite)
            items = self.complete(q, items, refine.trace, R.REFINE, failed=R.UNSUPPORTED)
            batch = self.verifier().submit(items, (R.SUPPORTED, R.UNSUPPORTED), refine.trace, q.timeline)
            final = self.verifier().resolve(batch, refine.trace, q.timeline)
        refine.trace.wall_ms = round(refine.trace.wall_ms + t.ms, 1)
        out = []
        for s in final:
            if s.verdict == R.SUPPORTED and (s.rewritten or s.removed or s.recited) and s.raw in text:
                raw = merge_adjacent(_with_citations(s))
                text = text.replace(s.raw, raw, 1)
                s = replace(s, raw=raw)
            out.append(s)
        return out, text

    def result(self, q: Question, stages: list[Stage], final: list[Statement],
               conflicts: Sequence[Conflict] = ()) -> VerifiedAnswer:
        """The answer record: the refined text, every stage's trace, the final check, the conflicts
        between documents and the settings stamp."""
        return VerifiedAnswer(question=q.text, answer=stages[-1].text, documents=q.documents,
                              stages=[s.trace for s in stages], final=final, settings=self.stamp(q.lang, q.prompts),
                              warnings=q.warnings, wall_ms=q.timeline.elapsed_ms(), timeline=q.timeline.spans,
                              instructions=q.instructions, conflicts=list(conflicts))

    # -- the stamp ----------------------------------------------------------------------------
    def stamp(self, lang: str, prompts: PromptSet | None = None) -> dict:
        """What every answer records about how it was made: every setting, the prompt set used
        (``prompts``, default the configured one), the language used, the schedule that ran, and the
        models (name, sha256, n_ctx, execution provider)."""
        out = self.settings.stamp()
        out.update({"lang": lang, "prompts": (prompts or self.prompts).tag, "schedule": self.verifier().schedule,
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
            st.checks.append(self.verifier().submit(items, (R.KEPT, R.DROPPED_NLI), st.trace, q.timeline))

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
        """The checks' rules for these settings (threshold, schedule, grade bands, strictness); built
        per use, since benches switch ``settings`` (schedule) on a loaded pipeline between runs."""
        s = self.settings
        return Verifier(self.checker, threshold=s.threshold, schedule=s.schedule, grade_bands=s.grade_bands,
                        lenient=s.strictness == "lenient", cite_each=s.cite_each)

    def _cite_grammar(self, n_docs: int, allowed: set[int] | None = None) -> str | None:
        return citation_grammar(n_docs, allowed=allowed, inline=self.settings.inline_citations) \
            if self.settings.citation_grammar else None


#: a verified fact the refinement dropped is put back only when it shares this many content-word
#: stems with the question (``backbone_facts``)
MIN_QUESTION_STEMS = 2

#: at most this many document pairs get a multi-hop extraction per question (each is one LLM call)
MAX_PAIRS = 3


def dropped_facts(question: str, verified: Sequence[Statement], text: str, n: int, lang: str = "en") -> list[Statement]:
    """Up to ``n`` verified stage-2 facts whose content ``text`` (the answer) does not carry
    (:func:`~vericite.engine.content.carried`), sharing at least :data:`MIN_QUESTION_STEMS` content
    stems with ``question``, the most relevant to it first (BM25 over those facts), none carried by
    one picked before it (no repeats)."""
    facts = [s for s in verified if s.stage == R.EVIDENCE and not carried(s.text, text, question, lang)]
    if not facts or n < 1:
        return []
    scores = bm25_scores(question, [s.text for s in facts])
    asked = stems(question, lang) - stems(" ".join(FUNCTION_WORDS), lang)
    picked: list[Statement] = []
    for k in sorted(range(len(facts)), key=lambda k: (-scores[k], k)):
        if len(picked) == n:
            break
        if len(asked & stems(facts[k].text, lang)) >= MIN_QUESTION_STEMS and \
                not carried(facts[k].text, " ".join(p.text for p in picked), question, lang):
            picked.append(facts[k])
    return picked


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
