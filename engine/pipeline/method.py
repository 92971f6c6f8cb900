"""The VeriCite method: stage 1 (answer) -> stage 2 (evidence) -> stage 3 (refine) -> rules.

Faithful to Qian et al. (SIGIR-AP 2025) and the authors' vericite.py; where this code differs is
listed in docs/differences.md. :meth:`VeriCite.answer` is the method in one place; each stage is a
module of this package (:mod:`.stage1`, :mod:`.stage2`, :mod:`.stage3`) whose functions take the
pipeline and the question in flight (:class:`~.context.Question`) and return a :class:`~.context.Stage`.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..config import settings as S
from ..config.settings import Settings
from ..conflicts import Conflict
from ..inputs import as_documents
from ..prompts import PromptSet, completion_prompt
from ..records import Document, VerifiedAnswer
from ..verifier import Checker, Verifier
from . import stage1, stage2, stage3
from .context import LLM, Hooks, Question, Stage
from .prepare import document_languages, language, prepare

log = logging.getLogger(__name__)


class VeriCite:
    """Answers a question from documents with NLI-verified citations.

    Args:
        llm: a chat LLM (:class:`LLM`).
        checker: an NLI scorer with ``scores(pairs) -> float32 [n]`` (:class:`~vericite.engine.verifier.Checker`).
        prompts: the prompt set; default: ``PromptSet.load(settings.prompts)``.
        settings: thresholds and switches (:class:`~vericite.engine.config.settings.Settings`).
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
                                  entity_guard=s.entity_guard, life_dates=s.life_dates)

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
            Cancelled: the caller stopped the question (:mod:`~vericite.engine.cancel`: checked between
                the steps, per token, prompt batch, NLI wait slice and splitter piece).
        """
        hooks = hooks or Hooks()
        documents = as_documents(documents)
        pipe = self.route(question, documents)           # a checker that reads the question's language
        q = prepare(pipe, question, documents)           # input checks, language, documents as the LLM sees them
        answer = stage1.answer(pipe, q)                  # initial answer; each statement's check submitted
        hooks.stage1(q, answer)
        evidence = stage2.evidence(pipe, q)              # per document: gate, extraction; each fact's check submitted
        hooks.stage2(q, evidence)
        verified = stage3.verified(pipe, q, answer, evidence)  # wait for the checks: kept facts, then kept statements
        conflicts = stage3.conflicts(pipe, q, verified)  # documents that give another number for a verified claim
        refine = stage3.refine(pipe, q, verified, answer)  # the answer from the verified sentences (a Draft)
        refine.draft = stage3.rules(pipe, q, refine, answer, verified)  # final check, strict, put-backs, marks
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
        """The pipeline that answers this question: this one when its checker reads the question's
        language (:meth:`language`) and, with ``lang`` = "auto", every language its documents are
        confidently in; else the route named for one of those languages whose checker reads the most
        of them (an English question over Russian documents goes to the checker that reads both), when
        it reads more than this one. Its answer's stamp names its checker."""
        if not self.routes:
            return self
        needed = {self.language(question, documents)} | (document_languages(documents) if self.settings.lang == "auto"
                                                         else set())
        reads = needed & set(self.settings.checker_languages)
        if reads == needed:
            return self
        best = max((self.routes[code] for code in sorted(needed) if code in self.routes),
                   key=lambda r: len(needed & set(r.settings.checker_languages)), default=None)
        if best is None or len(needed & set(best.settings.checker_languages)) <= len(reads):
            return self
        log.info("%s text: checked by %s", "/".join(sorted(needed)), best.checker.name)
        return best

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

    # -- records and what the stages share --------------------------------------------------

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

    def render(self, messages: list[dict[str, str]]) -> list[dict[str, str]] | str:
        """Chat messages as the LLM receives them: unchanged ("chat") or one completion prompt."""
        return completion_prompt(messages) if self.settings.prompt_format == "completion" else messages

    def verifier(self) -> Verifier:
        """The checks' rules for these settings (threshold, schedule, grade bands, strictness)."""
        return self._verifier

    def prepare(self, question: str, documents: Sequence[Document]) -> Question:
        """The question in flight (:func:`~vericite.engine.pipeline.prepare.prepare`: input checked,
        language, documents as the LLM sees them).

        Raises:
            InputError: empty question, no documents, or a document without text.
        """
        return prepare(self, question, documents)

    def language(self, question: str, documents: Sequence[Document] = ()) -> str:
        """The question's language (:func:`~vericite.engine.pipeline.prepare.language`)."""
        return language(self, question, documents)

    def gate_messages(self, question: str, doc: Document, number: int, warnings: list[str]) -> list[dict[str, str]]:
        """Stage 2's usefulness prompt for one document (:func:`~vericite.engine.pipeline.stage2.gate_messages`;
        ``vericite bench gate`` calibrates on it)."""
        return stage2.gate_messages(self, question, doc, number, warnings)
