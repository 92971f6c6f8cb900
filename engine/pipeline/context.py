"""What flows between the stages: the LLM protocol, the question in flight (:class:`Question`),
each stage's result (:class:`Stage`, :class:`DocumentEvidence`) and the hooks called as stages end."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ..draft import Draft
from ..prompts import PromptSet
from ..records import Document, LLMCall, StageTrace, VerifiedAnswer
from ..timeline import Timeline
from ..verifier import CheckBatch, Verifier

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)


class LLM(Protocol):
    """What the pipeline needs of an LLM (:class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM` has it).

    Optional: ``batched(slots=N, clients=D)``, a session that decodes D threads' calls together
    (:mod:`~vericite.engine.llm.batch`), used by stage 2 with ``parallel_docs`` > 1; an LLM without it
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
    #: the prompt set for this question's language (:meth:`PromptSet.for_language`; keyword, required)
    prompts: PromptSet = field(kw_only=True)
    #: the rules that turn this question's check scores into verdicts (its pipeline's; keyword, required)
    verifier: Verifier = field(kw_only=True)


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
