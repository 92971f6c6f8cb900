"""The JSON shapes of the HTTP API, as pydantic models (they make the OpenAPI document).

:class:`AnswerRequest` is what ``POST /v1/answer`` reads. :class:`AnswerOut` describes what it
returns, which is exactly :meth:`VerifiedAnswer.to_json` (the same JSON as
``vericite answer --json``); the service returns that dict as is, and a test checks it against
this model (extra keys forbidden), so the documentation cannot drift from the engine's records.
"""
from __future__ import annotations

import dataclasses
from dataclasses import MISSING
from typing import TYPE_CHECKING, Any, Optional, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..conflicts import Conflict
from ..records import Document, LLMCall, Span, Statement


class DocumentIn(BaseModel):
    """One retrieved passage; cited 1-based in the order given. Other keys are ignored."""

    title: str = ""
    text: str


class AnswerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="the user's question (non-empty)")
    documents: list[DocumentIn] = Field(description="the retrieved passages, cited [1], [2], ... in this order "
                                                    "(1 to --max-docs, each at most --max-doc-chars characters)")
    options: dict[str, Any] = Field(default_factory=dict, description=(
        "per-request pipeline settings by name (threshold, schedule, gate, ...; see GET /v1/models 'options'), "
        "each checked by its rule; and deadline_s, the seconds this request may take (at most --timeout)"))
    stream: bool = Field(False, description="answer as server-sent events: stage1, one document per document, "
                                            "final, then answer (the full JSON)")


class ErrorDetail(BaseModel):
    type: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorDetail


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _mirror(record: type, name: str) -> type[BaseModel]:
    """A strict pydantic model with the fields of the engine's dataclass ``record`` (one declaration:
    the record; this only describes its JSON)."""
    hints = get_type_hints(record)
    fields: dict[str, Any] = {f.name: (hints[f.name], f.default if f.default is not MISSING else ...)
                              for f in dataclasses.fields(record)}
    return create_model(name, __base__=_Strict, **fields)


if TYPE_CHECKING:  # the type checker cannot see fields made at run time: these stand for the mirrors below
    class StatementOut(_Strict): ...
    class LLMCallOut(_Strict): ...
    class DocumentOut(_Strict): ...
    class SpanOut(_Strict): ...
    class ConflictOut(_Strict): ...
else:
    StatementOut = _mirror(Statement, "StatementOut")
    LLMCallOut = _mirror(LLMCall, "LLMCallOut")
    DocumentOut = _mirror(Document, "DocumentOut")
    SpanOut = _mirror(Span, "SpanOut")
    ConflictOut = _mirror(Conflict, "ConflictOut")


class StageOut(_Strict):
    name: str
    wall_ms: float
    llm_calls: list[LLMCallOut]
    statements: list[StatementOut]
    nli_pairs: int
    nli_ms: float
    notes: list[str]
    prompt_tokens: int
    completion_tokens: int


class AnswerOut(_Strict):
    """``VerifiedAnswer.to_json()``: the answer, the final check of each sentence, every stage's trace."""

    question: str
    answer: str
    final_check: list[StatementOut]
    all_sentences_supported: bool
    stages: list[StageOut]
    documents: list[DocumentOut]
    settings: dict[str, Any]
    warnings: list[str]
    empty_reason: str = Field(description="why the answer is empty; \"\" when it is not")
    instructions_in_documents: list[dict[str, Any]] = Field(
        description="instruction-like sentences found in documents and hidden from the LLM: {document, sentence}")
    conflicts: list[ConflictOut] = Field(description="documents that give another number or year for a verified claim")
    wall_ms: float
    timeline: list[SpanOut]



class ModelsOut(BaseModel):
    llm: dict[str, Any]
    nli: dict[str, Any]
    prompts: str
    settings: dict[str, Any] = Field(description="the settings stamp every answer carries (lang: the setting)")
    options: list[str] = Field(description="the names a request's options may set")


class StatusOut(BaseModel):
    status: str
    error: Optional[str] = None
