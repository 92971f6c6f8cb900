"""One request through the pipeline, in a request thread: :meth:`VeriCite.answer` itself, on a
view of the shared pipeline with the request's settings, under the request's stop signal
(:func:`vericite.engine.cancel.stop_when`: its deadline or its client gone, checked between steps,
per LLM token and prompt batch, per NLI wait slice and splitter piece); the stream's events come
from the answer's hooks.

Each request gets its own :class:`~vericite.engine.pipeline.VeriCite` (cheap: no model is
loaded) over the *shared* LLM and NLI checker, so checks of concurrent requests meet in the one
batcher and its cache; the shared pipeline is never changed.

Stream events (``emit(name, data)``), in this order:

- ``stage1``: stage 1's answer and its statements with verdicts, as soon as their checks resolve
  (usually while stage 2's LLM calls run; at the latest when stage 2 ends);
- ``document``: one per document, in order, once stage 2's LLM calls end: whether the gate judged
  it useful, and its own facts with verdicts when their checks resolve;
- ``pair``: one per pair of documents read together (``multihop``), after the documents: the two
  numbers and the facts of the joint extraction;
- ``final``: the answer, the final check of each sentence (with its quotes) and the analyst's memo
  (Markdown, :mod:`~vericite.engine.memo`) when the answer is final;
- ``answer``: the whole :meth:`VerifiedAnswer.to_json`.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

from .. import cancel
from .. import records as R
from ..config.settings import Settings
from ..memo import memo
from ..pipeline import Hooks, Question, Stage, VeriCite
from ..prompts import PromptSet
from ..records import Document, LLMCall, StageTrace, VerifiedAnswer
from ..timeline import Timeline
from ..verifier import CheckBatch, Verifier

Emit = Callable[[str, dict], None]


class RequestLLM:
    """The shared LLM as one request sees it: before each call the request's ``before()`` runs
    (deadline check, stream events), after it ``after(call)`` (token counters); everything else
    (name, n_ctx, sha256, count_tokens, truncate) is the shared LLM's."""

    def __init__(self, llm, before: Callable[[], None], after: Callable[[LLMCall], None]):
        self._llm = llm
        self._before = before
        self._after = after

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)

    def chat(self, messages, **kwargs) -> LLMCall:
        self._before()
        call = self._llm.chat(messages, **kwargs)
        self._after(call)
        return call

    def yes_probability(self, messages, **kwargs) -> tuple[float, LLMCall]:
        self._before()
        p, call = self._llm.yes_probability(messages, **kwargs)
        self._after(call)
        return p, call


class Runner:
    """Runs requests on one loaded pipeline (its LLM, checker, prompts and settings are the defaults).

    Args:
        pipeline: the loaded :class:`VeriCite`.
        on_llm_call: called with every LLM call's record, from the request thread (metrics).
    """

    def __init__(self, pipeline: VeriCite, *, on_llm_call: Callable[[LLMCall], None] = lambda call: None):
        self.pipeline = pipeline
        self.on_llm_call = on_llm_call
        self._prompts = {pipeline.settings.prompts: pipeline.prompts}
        self._lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        return self.pipeline.settings

    def run(self, question: str, documents: Sequence[Document], settings: Settings, *,
            check: Callable[[], None] = lambda: None, emit: Emit | None = None) -> VerifiedAnswer:
        """Answer one request; ``check()`` raises (a :class:`~vericite.engine.errors.Cancelled`) to stop it.
        It runs before each LLM call and wherever the engine checks (:mod:`vericite.engine.cancel`),
        so a stopped request frees its thread within a token, a prompt batch or a splitter piece.

        Raises:
            InputError, ConfigError, InferenceError: from the engine; whatever ``check`` raises.
        """
        stream = _Stream(emit) if emit else None

        def before() -> None:
            check()
            if stream:
                stream.poll()

        llm = RequestLLM(self.pipeline.llm, before, self.on_llm_call)
        pipe = self.pipeline.with_llm(llm).with_settings(settings, prompts=self._prompt_set(settings.prompts))
        with cancel.stop_when(check):
            return pipe.answer(question, documents, hooks=stream)

    def _prompt_set(self, name: str) -> PromptSet:
        with self._lock:
            if name not in self._prompts:
                self._prompts[name] = PromptSet.load(name)
            return self._prompts[name]


class _Stream(Hooks):
    """The stream events of one request, emitted from its thread in order (the answer's hooks)."""

    def __init__(self, emit: Emit):
        self.emit = emit
        self.stage1_checks: tuple[Stage, Verifier] | None = None
        self._sent_stage1 = False

    def stage1(self, q: Question, answer: Stage) -> None:
        self.stage1_checks = (answer, q.verifier)

    def poll(self) -> None:
        """Before an LLM call: send stage 1 if its checks have resolved."""
        if self.stage1_checks is not None and not self._sent_stage1 and \
                all(_done(b) for b in self.stage1_checks[0].checks):
            self._send_stage1()

    def stage2(self, q: Question, evidence: Stage) -> None:
        if not self._sent_stage1:
            self._send_stage1()
        verifier = q.verifier
        for e in evidence.documents:
            facts = [asdict(s) for s in _statements(verifier, e.checks)] if e.checks is not None else []
            if len(e.documents) == 1:
                i = e.documents[0]
                self.emit("document", {"number": i, "title": q.documents[i - 1].title, "useful": e.useful,
                                       "gate": {"text": e.gate.text, "score": e.gate.score} if e.gate else None,
                                       "facts": facts})
            else:
                self.emit("pair", {"documents": list(e.documents), "facts": facts})

    def done(self, result: VerifiedAnswer) -> None:
        out = result.to_json()
        self.emit("final", {**{k: out[k] for k in ("answer", "final_check", "all_sentences_supported", "warnings")},
                            "memo": memo(result)})
        self.emit("answer", out)

    def _send_stage1(self) -> None:
        self._sent_stage1 = True
        assert self.stage1_checks is not None  # the pipeline calls stage1() before stage2(); poll() checks
        st, verifier = self.stage1_checks
        text = st.trace.llm_calls[0].text if st.trace.llm_calls else ""
        statements = [s for b in st.checks for s in _statements(verifier, b)]
        self.emit("stage1", {"stage": R.ANSWER, "text": text, "statements": [asdict(s) for s in statements]})


def _statements(verifier: Verifier, batch: CheckBatch):
    """The batch's sentences with verdicts by the pipeline's own rules (its traces are filled later)."""
    return verifier.resolve(batch, StageTrace("stream"), Timeline())  # waits for the scores


def _done(batch: CheckBatch) -> bool:
    return batch.future is None or batch.future.done()
