"""Small typed records passed between the stages (dicts appear only at the JSON boundary)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

# The three stages, one name each: in traces (StageTrace.name), statements (Statement.stage) and
# prompts. Their LLM calls are named by step: "answer"; "gate:N" and "extract:N" (document N); "select"
# (stage 3's answer step) or "refine" (the authors' merge).
ANSWER = "answer"      # stage 1: initial answer with citations, each statement checked
EVIDENCE = "evidence"  # stage 2: per document, usefulness gate then fact extraction, each fact checked
REFINE = "refine"      # stage 3: the answer from the verified statements (picked or merged); each final sentence checked
READ_BACK = "read_back"  # stage 3: an own-words final sentence read back by the LLM against its cited documents
STAGES = (ANSWER, EVIDENCE, REFINE)

# Verdicts a statement can carry in the trace.
KEPT = "kept"                      # passed the NLI check (stages 1, 2)
DROPPED_NO_CITATION = "dropped:no_citation"
DROPPED_OUT_OF_RANGE = "dropped:citation_out_of_range"
DROPPED_NLI = "dropped:not_entailed"
DROPPED_FRAGMENT = "dropped:not_a_statement"  # fewer words than a claim needs ("Murcia", "1939")
DROPPED_TEMPLATE = "dropped:template_fill"  # the question's own wording with a name put in its slot
DROPPED_RELATION = "dropped:unstated_relation"  # states the question's relation; its documents never do
DROPPED_ALTERED = "dropped:altered_copy"  # a document's sentence copied with its negation or a name changed
SUPPORTED = "supported"            # final check passed (stage 3)
UNSUPPORTED = "unsupported"        # final check failed: reported, not removed
NO_CITATION = "no_citation"        # final sentence without a valid citation: reported


@dataclass(frozen=True)
class Document:
    """One retrieved passage. ``title`` may be empty; documents are cited 1-based as [N]."""

    title: str
    text: str


@dataclass(frozen=True)
class Quote:
    """The span of a cited document that carries a sentence, so a reader can check it at a glance.

    ``document`` is the 1-based document number; ``start``/``end`` are character offsets into that
    document's text as given (``text == documents[document - 1].text[start:end]``); ``score`` is
    P(entailment) of the sentence against this span alone, in [0, 1]; ``grade`` the brief's scale
    (None when the checker has no grade bands).
    """

    document: int
    start: int
    end: int
    text: str
    score: float
    grade: int | None = None


@dataclass(frozen=True)
class Statement:
    """A sentence (stage 1 statement, stage 2 fact or stage 3 final sentence) and its check.

    ``text`` is the sentence without citation marks (the NLI hypothesis); ``citations`` are
    1-based document numbers in the order written; ``score`` is P(entailment) in [0, 1] from the
    checker, or None when no check ran (no or invalid citation); ``grade`` is the brief's scale
    (1 verbatim, 2 paraphrase, 3 partial, 4 not supported) from the checker's ``grade_bands``
    (:mod:`~vericite.engine.nli.grading`), or None when the checker has no bands or no check ran.
    ``quotes``: for a final sentence, per cited document the span that carries it best (:class:`Quote`).
    ``partial`` lists the citations marked with an asterisk in the answer (lenient strictness);
    ``removed`` the citations the sentence was written with that did not carry it (removed from
    ``citations``); ``rewritten`` says ``text`` is the question-aware claim made from the fragment
    in ``raw`` (:mod:`~vericite.engine.claims`); ``recited`` the citations added because the
    written ones did not carry the sentence and these do (``recite``).
    """

    stage: str            # "answer" | "evidence" | "refine" (STAGES)
    text: str
    citations: tuple[int, ...]
    verdict: str
    score: float | None = None
    raw: str = ""         # the sentence as the LLM wrote it
    grade: int | None = None
    partial: tuple[int, ...] = ()  # lenient strictness: citations that support it only partly, marked [N*]
    removed: tuple[int, ...] = ()  # citations removed: they did not carry the sentence (cite_each, ALCE's rule)
    rewritten: bool = False        # a fragment rewritten with the question: ``text`` is the full claim checked
    recited: tuple[int, ...] = ()  # citations added: the written ones did not carry it, these do (recite)
    quotes: tuple[Quote, ...] = ()  # final sentences: per cited document, the span that carries it best


@dataclass(frozen=True)
class LLMCall:
    """One LLM call: what it was for and what it cost.

    Token counts are llama.cpp tokens; ``prompt_tokens_computed`` is how many prompt tokens were
    actually evaluated (the rest came from the KV cache); times are milliseconds.
    """

    purpose: str          # e.g. "answer", "gate:3", "extract:3", "refine"
    prompt_tokens: int
    prompt_tokens_computed: int
    completion_tokens: int
    prompt_eval_ms: float
    generation_ms: float
    wall_ms: float
    finish_reason: str
    text: str
    score: float | None = None  # scored Yes/No answers: P(Yes) from the next-token logits


@dataclass(frozen=True)
class Span:
    """One interval of work on a question's timeline, ms since the question started.

    kind: "llm" (one LLM call), "nli" (checks scored inline, sequential schedule) or "wait"
    (the pipeline blocked on queued NLI checks, overlap schedule).
    """

    kind: str
    label: str
    start_ms: float
    end_ms: float


@dataclass
class StageTrace:
    """What one stage did: its LLM calls, its statements with verdicts, and its timings (ms)."""

    name: str
    wall_ms: float = 0.0
    llm_calls: list[LLMCall] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    nli_pairs: int = 0
    nli_ms: float = 0.0   # NLI time on this stage's critical path: scoring (sequential) or waiting (overlap)
    notes: list[str] = field(default_factory=list)

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.llm_calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.llm_calls)


@dataclass
class VerifiedAnswer:
    """The pipeline's result: the final answer text and the full trace that produced it."""

    question: str
    answer: str
    documents: list[Document]
    stages: list[StageTrace]
    final: list[Statement]
    settings: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    wall_ms: float = 0.0
    timeline: list[Span] = field(default_factory=list)
    #: instruction-like sentences found in documents, hidden from the LLM: {"document": N, "sentence": text}
    instructions: list[dict[str, Any]] = field(default_factory=list)
    #: documents that disagree with a verified claim (engine/conflicts.Conflict records)
    conflicts: list[Any] = field(default_factory=list)
    #: why the answer is empty ("" when it is not; engine/draft.Draft.empty_reason)
    empty_reason: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: every statement and fact with citations, score, verdict and stage,
        per-stage timings (ms) and token counts."""
        stages = []
        for s in self.stages:
            d = asdict(s)
            d["prompt_tokens"] = s.prompt_tokens
            d["completion_tokens"] = s.completion_tokens
            stages.append(d)
        return {
            "question": self.question,
            "answer": self.answer,
            "final_check": [asdict(x) for x in self.final],
            "all_sentences_supported": bool(self.final) and all(x.verdict == SUPPORTED for x in self.final),
            "stages": stages,
            "documents": [asdict(d) for d in self.documents],
            "settings": self.settings,
            "warnings": self.warnings,
            "empty_reason": self.empty_reason,
            "instructions_in_documents": self.instructions,
            "conflicts": [asdict(c) for c in self.conflicts],
            "wall_ms": self.wall_ms,
            "timeline": [asdict(x) for x in self.timeline],
        }
