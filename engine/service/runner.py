"""One request through the pipeline, in a request thread: :meth:`VeriCite.answer`'s own calls
(``prepare``, ``stage1_answer``, ``stage2_evidence``, ``finish``) made one by one, with
per-request settings, the request's deadline checked before every LLM call, and the stream's
events emitted as each stage ends.

Each request gets its own :class:`~vericite.engine.pipeline.VeriCite` (cheap: no model is
loaded) over the *shared* LLM and NLI checker, so checks of concurrent requests meet in the one
batcher and its cache; the shared pipeline is never changed.

Stream events (``emit(name, data)``), in this order:

- ``stage1``: stage 1's answer and its statements with verdicts, as soon as their checks resolve
  (usually while stage 2's LLM calls run; at the latest when stage 2 ends);
- ``document``: one per document, in order, once stage 2's LLM calls end (stage 2 is one engine
  method): whether the gate judged it useful, and its facts with verdicts when their checks resolve;
- ``final``: the answer and the final check of each sentence (when ``finish`` returns);
- ``answer``: the whole :meth:`VerifiedAnswer.to_json`.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from typing import Any

from .. import records as R
from .. import settings as S
from ..checks import CheckBatch, Verifier
from ..pipeline import Stage, VeriCite
from ..prompts import PromptSet
from ..records import Document, LLMCall, StageTrace, VerifiedAnswer
from ..settings import Settings
from ..timeline import Timeline

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
        """Answer one request; ``check()`` runs before each LLM call and raises to stop the request.

        Raises:
            InputError, ConfigError, InferenceError: from the engine; whatever ``check`` raises.
        """
        stream: _Stream | None = None

        def before() -> None:
            check()
            if stream:
                stream.poll()

        llm = RequestLLM(self.pipeline.llm, before, self.on_llm_call)
        routed = self.pipeline.route(question, documents)  # a checker that reads the question's language
        if routed is not self.pipeline:  # the request's options on top of that checker's settings
            settings = replace(routed.settings, **S.changed(self.pipeline.settings, settings))
        pipe = VeriCite(llm, routed.checker, prompts=self._prompt_set(settings.prompts), settings=settings)
        stream = _Stream(emit, pipe.verifier()) if emit else None
        q = pipe.prepare(question, documents)
        answer = pipe.stage1_answer(q)
        if stream:
            stream.stage1 = answer
        evidence = pipe.stage2_evidence(q)
        if stream:
            stream.after_stage2(q.documents, evidence)
        result = pipe.finish(q, answer, evidence)  # wait for the checks, stage 3, the final check
        if stream:
            out = result.to_json()
            stream.emit("final", {k: out[k] for k in ("answer", "final_check", "all_sentences_supported", "warnings")})
            stream.emit("answer", out)
        return result

    def _prompt_set(self, name: str) -> PromptSet:
        with self._lock:
            if name not in self._prompts:
                self._prompts[name] = PromptSet.load(name)
            return self._prompts[name]


class _Stream:
    """The stream events of one request, emitted from its thread in order."""

    def __init__(self, emit: Emit, verifier: Verifier):
        self.emit = emit
        self.stage1: Stage | None = None
        self._sent_stage1 = False
        # verdicts for the events by the pipeline's own rules (its traces are filled later)
        self._verifier = verifier

    def poll(self) -> None:
        """Before an LLM call: send stage 1 if its checks have resolved."""
        if self.stage1 is not None and not self._sent_stage1 and all(_done(b) for b in self.stage1.checks):
            self._send_stage1()

    def after_stage2(self, documents: list[Document], evidence: Stage) -> None:
        if not self._sent_stage1:
            self._send_stage1()
        by_doc = {b.items[0].citations[0]: b for b in evidence.checks if b.items}
        purposes = {c.purpose: c for c in evidence.trace.llm_calls}
        for i, doc in enumerate(documents, start=1):
            gate = purposes.get(f"gate:{i}")
            useful = f"extract:{i}" in purposes
            facts = self._statements(by_doc[i]) if useful and i in by_doc else []
            self.emit("document", {"number": i, "title": doc.title, "useful": useful,
                                   "gate": {"text": gate.text, "score": gate.score} if gate else None,
                                   "facts": [asdict(s) for s in facts]})

    def _send_stage1(self) -> None:
        self._sent_stage1 = True
        st = self.stage1
        text = st.trace.llm_calls[0].text if st.trace.llm_calls else ""
        statements = [s for b in st.checks for s in self._statements(b)]
        self.emit("stage1", {"stage": R.ANSWER, "text": text, "statements": [asdict(s) for s in statements]})

    def _statements(self, batch: CheckBatch):
        return self._verifier.resolve(batch, StageTrace("stream"), Timeline())  # waits for the scores


def _done(batch: CheckBatch) -> bool:
    return batch.future is None or batch.future.done()
