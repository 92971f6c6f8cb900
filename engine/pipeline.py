"""The VeriCite pipeline: stage 1 (answer) -> stage 2 (evidence) -> stage 3 (refine) -> final check.

Faithful to Qian et al. (SIGIR-AP 2025) and the authors' vericite.py; every place where this
code differs is listed in README.md ("Differences from the authors' code").
"""
from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, replace
from typing import Protocol, Sequence

import numpy as np

from . import records as R
from .citations import format_citations, invalid_citations, merge_adjacent, parse_citations, strip_citations
from .errors import ConfigError, InputError
from .grammar import YES_NO, citation_grammar
from .prompts import PromptSet
from .records import Document, LLMCall, Statement, StageTrace, VerifiedAnswer
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
    """

    threshold: float = 0.5
    lang: str = "auto"
    gate_grammar: bool = True
    citation_grammar: bool = False
    min_statement_words: int = 0
    gate: str = "grammar"
    gate_threshold: float = 0.5
    checker_languages: tuple[str, ...] = ("en",)


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
        t0 = time.perf_counter()
        s1 = self._stage1(question, docs, lang, warnings)
        s2 = self._stage2(question, docs, lang, warnings)
        verified = [s for s in s2.statements + s1.statements if s.verdict == R.KEPT]  # authors' order
        s3, text, final = self._stage3(question, docs, verified, lang, warnings)
        return VerifiedAnswer(
            question=question, answer=text, documents=docs, stages=[s1, s2, s3], final=final,
            settings={
                "llm": self.llm.name, "nli": self.checker.name, "threshold": self.settings.threshold,
                "prompts": self.prompts.tag, "lang": lang, "gate": self.settings.gate, "gate_threshold": self.settings.gate_threshold,
                "gate_grammar": self.settings.gate_grammar,
                "citation_grammar": self.settings.citation_grammar,
                "n_ctx": self.llm.n_ctx,
            },
            warnings=warnings, wall_ms=round((time.perf_counter() - t0) * 1000, 1))

    # -- stages ---------------------------------------------------------------------------
    def _stage1(self, question: str, docs: list[Document], lang: str, warnings: list[str]) -> StageTrace:
        """Initial answer from all documents; keep each statement whose cited documents entail it."""
        trace = StageTrace("initial_answer")
        t0 = time.perf_counter()
        step = self.prompts.steps["initial_answer"]
        block = self._docs_block("initial_answer", question, docs, warnings)
        log.info("stage 1: answering from %d documents", len(docs))
        call = self.llm.chat(self.prompts.messages("initial_answer", question=question, docs=block),
                             max_tokens=step.max_tokens, purpose="answer", grammar=self._cite_grammar(len(docs)))
        trace.llm_calls.append(call)
        trace.statements = self._check_sentences("initial", call.text, docs, lang, trace, keep_failed=False)
        trace.wall_ms = round((time.perf_counter() - t0) * 1000, 1)
        return trace

    def _stage2(self, question: str, docs: list[Document], lang: str, warnings: list[str]) -> StageTrace:
        """Per document: usefulness gate, then fact extraction; each fact checked against its document."""
        trace = StageTrace("evidence")
        t0 = time.perf_counter()
        for i, doc in enumerate(docs, start=1):
            text = self._fit_one("evidence_answer", question, doc, warnings, i)
            log.info("stage 2: document %d/%d", i, len(docs))
            gate = self._gate(self.gate_messages(question, doc, i, warnings), i)
            trace.llm_calls.append(gate)
            if gate.text.strip().startswith("No"):  # the authors' rule: anything else counts as Yes
                trace.notes.append(f"document [{i}] judged not useful")
                continue
            ext = self.llm.chat(self.prompts.messages("evidence_answer", question=question, docs=text),
                                max_tokens=self.prompts.steps["evidence_answer"].max_tokens, purpose=f"extract:{i}")
            trace.llm_calls.append(ext)
            facts = [strip_citations(s) for s in split_statements(ext.text, lang)]
            fragments = [f for f in facts if f and not self._is_statement(f)]
            facts = [f for f in facts if f and self._is_statement(f)]
            trace.statements += [Statement("evidence", f, (i,), R.DROPPED_FRAGMENT, None, f) for f in fragments]
            if not facts:
                continue
            probs = self._score([(doc.text, f) for f in facts], trace)
            for f, p in zip(facts, probs):
                verdict = R.KEPT if p >= self.settings.threshold else R.DROPPED_NLI
                trace.statements.append(Statement("evidence", f, (i,), verdict, round(float(p), 4), f))
        trace.wall_ms = round((time.perf_counter() - t0) * 1000, 1)
        return trace

    def _stage3(self, question: str, docs: list[Document], verified: list[Statement], lang: str,
                warnings: list[str]) -> tuple[StageTrace, str, list[Statement]]:
        """Merge verified statements into one answer; then check each final sentence (report, never drop)."""
        trace = StageTrace("refine")
        t0 = time.perf_counter()
        if not verified:
            trace.notes.append("no verified statement: nothing to refine, the answer is empty")
            warnings.append("no statement survived the NLI checks; the answer is empty")
            trace.wall_ms = round((time.perf_counter() - t0) * 1000, 1)
            return trace, "", []
        lines = "\n".join(_with_citations(s) for s in verified)
        log.info("stage 3: refining %d verified statements", len(verified))
        step = self.prompts.steps["summary"]
        block = self._docs_block("summary", question, docs, warnings, statements=lines)
        call = self.llm.chat(self.prompts.messages("summary", question=question, docs=block, statements=lines),
                             max_tokens=step.max_tokens, purpose="refine", grammar=self._cite_grammar(len(docs)))
        trace.llm_calls.append(call)
        text = merge_adjacent(call.text.strip())
        if call.finish_reason == "length":
            text = _drop_unfinished_tail(text, trace)
        final = self._check_sentences("final", text, docs, lang, trace, keep_failed=True)
        bad = [s for s in final if s.verdict != R.SUPPORTED]
        if bad:
            warnings.append(f"{len(bad)} of {len(final)} final sentences failed the final check (see final_check)")
        trace.wall_ms = round((time.perf_counter() - t0) * 1000, 1)
        return trace, text, final

    # -- helpers --------------------------------------------------------------------------
    def _check_sentences(self, stage: str, text: str, docs: list[Document], lang: str, trace: StageTrace,
                         *, keep_failed: bool) -> list[Statement]:
        """Split ``text`` into sentences; NLI-check each against the joined text of its cited documents.

        Stage 1 (``keep_failed=False``) marks failures as dropped; the final check
        (``keep_failed=True``) marks them unsupported / no_citation and keeps them in the answer.
        """
        out: list[Statement | None] = []
        pairs, slots = [], []
        for sent in split_statements(text, lang):
            cites = parse_citations(sent)
            clean = strip_citations(sent)
            if not clean:
                continue
            if not keep_failed and not self._is_statement(clean):
                out.append(Statement(stage, clean, cites, R.DROPPED_FRAGMENT, None, sent))
                continue
            if not cites:
                out.append(Statement(stage, clean, (), R.NO_CITATION if keep_failed else R.DROPPED_NO_CITATION, None, sent))
                continue
            if invalid_citations(cites, len(docs)):
                out.append(Statement(stage, clean, cites, R.NO_CITATION if keep_failed else R.DROPPED_OUT_OF_RANGE, None, sent))
                continue
            premise = "\n".join(docs[c - 1].text for c in cites)  # authors: texts joined by newlines
            pairs.append((premise, clean))
            slots.append((len(out), clean, cites, sent))
            out.append(None)
        if pairs:
            probs = self._score(pairs, trace)
            ok, ko = (R.SUPPORTED, R.UNSUPPORTED) if keep_failed else (R.KEPT, R.DROPPED_NLI)
            for (j, clean, cites, sent), p in zip(slots, probs):
                out[j] = Statement(stage, clean, cites, ok if p >= self.settings.threshold else ko, round(float(p), 4), sent)
        return [s for s in out if s is not None]

    def _score(self, pairs: list[tuple[str, str]], trace: StageTrace) -> np.ndarray:
        t0 = time.perf_counter()
        probs = self.checker.scores(pairs)
        trace.nli_ms = round(trace.nli_ms + (time.perf_counter() - t0) * 1000, 1)
        trace.nli_pairs += len(pairs)
        return probs

    def _budget(self, step: str, question: str, statements: str = "") -> int:
        """Tokens left for documents in one prompt of ``step`` (n_ctx minus prompt, completion, margin)."""
        fixed = sum(self.llm.count_tokens(m["content"]) for m in
                    self.prompts.messages(step, question=question, statements=statements))
        return self.llm.n_ctx - self.prompts.steps[step].max_tokens - fixed - _MARGIN_TOKENS

    def _docs_block(self, step: str, question: str, docs: list[Document], warnings: list[str],
                    statements: str = "") -> str:
        """All documents rendered for ``step``, each cut to an equal share of the context if needed."""
        budget = self._budget(step, question, statements)
        per_doc = budget // len(docs) - self.llm.count_tokens(self.prompts.doc(1, "", ""))
        if per_doc < 16:
            raise InputError(f"{len(docs)} documents do not fit the LLM context ({self.llm.n_ctx} tokens) for "
                             f"{step}; pass fewer documents (--ndoc) or use a model with a larger context")
        parts = []
        for i, d in enumerate(docs, start=1):
            title, _ = self.llm.truncate(d.title, 32)
            text, cut = self.llm.truncate(d.text, per_doc - self.llm.count_tokens(title))
            if cut:
                _warn_once(warnings, f"document [{i}] truncated to fit the LLM context")
            parts.append(self.prompts.doc(i, title, text))
        return "".join(parts)

    def _fit_one(self, step: str, question: str, doc: Document, warnings: list[str], number: int) -> str:
        text, cut = self.llm.truncate(doc.text, self._budget(step, question))
        if cut:
            _warn_once(warnings, f"document [{number}] truncated to fit the LLM context")
        return text

    def gate_messages(self, question: str, doc: Document, number: int, warnings: list[str]) -> list[dict[str, str]]:
        """The usefulness-check prompt for document ``number`` (1-based), the document cut to fit
        the context as stage 2 cuts it (also used by ``vericite bench gate`` to calibrate)."""
        text = self._fit_one("evidence_answer", question, doc, warnings, number)
        return self.prompts.messages("evidence_check", question=question, docs=text)

    def _gate(self, msgs: list[dict[str, str]], number: int) -> LLMCall:
        """The usefulness check of one document: an LLMCall whose text is "Yes" or "No"."""
        if self.settings.gate == "scored":
            p_yes, call = self.llm.yes_probability(msgs, purpose=f"gate:{number}")
            return replace(call, text="Yes" if p_yes >= self.settings.gate_threshold else "No", score=round(p_yes, 4))
        return self.llm.chat(msgs, max_tokens=self.prompts.steps["evidence_check"].max_tokens,
                             purpose=f"gate:{number}", grammar=YES_NO if self.settings.gate_grammar else None)

    def _is_statement(self, text: str) -> bool:
        return len(text.split()) >= self.settings.min_statement_words

    def _cite_grammar(self, n_docs: int) -> str | None:
        return citation_grammar(n_docs) if self.settings.citation_grammar else None

    def _lang(self, question: str) -> str:
        if self.settings.lang != "auto":
            return self.settings.lang
        return "ru" if re.search(r"[а-яА-ЯёЁ]", question) else "en"


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
