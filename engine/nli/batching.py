"""NLI batching: length-bucketed batch planning, and a dynamic batcher that serves many threads.

:func:`plan_batches` (used by every NLI runtime, cross-encoder and T5/TRUE): rows (one per premise
window) are sorted by token length, then cut into batches whose padded size
``len(batch) * longest_row`` stays within a token budget: short pairs go many to a batch, long
ones few, and padding stays small because neighbours have similar lengths.

:class:`DynamicBatcher`: callers in any thread submit pairs and get futures; one worker gathers
what is queued (waiting a few ms for more), consults the premise-hypothesis cache, and scores the
rest in one checker call.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .. import cancel
from ..errors import InferenceError

log = logging.getLogger(__name__)

#: Default padded tokens per ONNX Runtime call (rows x longest row); 64 rows of ~128 tokens.
DEFAULT_BATCH_TOKENS = 8192
#: Default cap on rows per call, whatever their length.
DEFAULT_MAX_BATCH = 64


def plan_batches(lengths: Sequence[int], *, max_tokens: int = DEFAULT_BATCH_TOKENS,
                 max_batch: int = DEFAULT_MAX_BATCH) -> list[list[int]]:
    """Group row indices into length-bucketed batches under a padded-token budget.

    Args:
        lengths: token count of each row (>= 1).
        max_tokens: budget per batch in padded tokens, ``len(batch) * max(lengths in batch)``.
            A single row longer than the budget still gets a batch of its own.
        max_batch: at most this many rows per batch.

    Returns:
        Lists of row indices; every index appears exactly once; rows inside and across batches
        are in ascending length order (ties keep input order).

    Raises:
        ValueError: ``max_tokens`` or ``max_batch`` < 1.
    """
    if max_tokens < 1 or max_batch < 1:
        raise ValueError(f"max_tokens and max_batch must be >= 1, got {max_tokens}, {max_batch}")
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    cur: list[int] = []
    for i in order:
        width = max(1, lengths[i])  # ascending order: the new row is the longest so far
        if cur and ((len(cur) + 1) * width > max_tokens or len(cur) >= max_batch):
            batches.append(cur)
            cur = []
        cur.append(i)
    if cur:
        batches.append(cur)
    return batches


# -- dynamic batching ------------------------------------------------------------------------

#: How long the worker waits for more requests after the first one of a batch (ms).
DEFAULT_MAX_WAIT_MS = 2.0
#: Pairs gathered from the queue per worker step (the checker then splits them by token budget).
DEFAULT_MAX_PAIRS = 256
_STOP = object()


@dataclass
class _Request:
    pairs: list[tuple[str, str]]
    future: Future
    t_submit: float = field(default_factory=time.perf_counter)
    #: the submitting question's stop signal (:mod:`~vericite.engine.cancel`), checked before its pairs are scored
    stop: cancel.Check | None = field(default_factory=cancel.current)


@dataclass(frozen=True)
class BatchEvent:
    """One worker step, for timelines: times are ``time.perf_counter()`` seconds."""

    start: float
    end: float
    requests: int
    pairs: int       # pairs requested in this step
    computed: int    # pairs actually scored by the model (the rest: cache hits or duplicates)


class DynamicBatcher:
    """Checker front-end that batches requests from many threads into few model calls.

    Callers (any thread) ``submit(pairs)`` and get a :class:`~concurrent.futures.Future` that
    resolves to float32 ``[len(pairs)]`` P(entailment); ``scores(pairs)`` is the blocking form, so
    a batcher can stand wherever a checker does. One worker thread takes the first queued request,
    waits at most ``max_wait_ms`` for more (up to ``max_pairs`` pairs), looks the pairs up in the
    cache, scores the distinct missing ones in one ``checker.scores`` call (which sorts by length
    and cuts batches by token budget, see :func:`plan_batches`) and resolves every future.

    ONNX Runtime releases the GIL while it computes, so the worker overlaps with LLM work in
    other threads. When the checker fails on a step of several requests, each is scored again
    alone, so only the requests whose own pairs fail see the exception (one client's bad text
    never fails another's); nothing hangs and the worker goes on. A request whose question was
    stopped (:mod:`~vericite.engine.cancel`) before its step is resolved with that error, unscored.

    Args:
        checker: anything with ``name`` and ``scores(pairs) -> float32 [n]``.
        cache: a :class:`~vericite.engine.nli.cache.ScoreCache`, or None.
        max_wait_ms: extra wait for more work after the first request of a step (ms).
        max_pairs: pairs gathered per step.

    Raises (from submit/scores):
        InferenceError: the batcher is closed, or the checker failed on this step.
    """

    #: the model file's sha256 from models.toml, set by the loader (absent otherwise: read it with getattr)
    sha256: str | None

    def __init__(self, checker, *, cache=None, max_wait_ms: float = DEFAULT_MAX_WAIT_MS,
                 max_pairs: int = DEFAULT_MAX_PAIRS):
        self.checker = checker
        self.cache = cache
        self.name = checker.name
        self.ep = getattr(checker, "ep", "")
        self.max_wait_s = max(0.0, max_wait_ms) / 1000
        self.max_pairs = max(1, max_pairs)
        self.events: list[BatchEvent] = []
        self.stats = {"requests": 0, "pairs": 0, "steps": 0, "computed_pairs": 0, "busy_ms": 0.0}
        self._q: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="nli-batcher", daemon=True)
        self._thread.start()

    # -- public -------------------------------------------------------------------------------
    def submit(self, pairs) -> Future:
        """Queue ``(premise, hypothesis)`` pairs; the future resolves to float32 ``[len(pairs)]``.

        Raises:
            InferenceError: the batcher is closed.
        """
        pairs = [(str(p), str(h)) for p, h in pairs]
        fut: Future = Future()
        if not pairs:
            fut.set_result(np.zeros(0, dtype=np.float32))
            return fut
        with self._lock:  # closed-check and enqueue are atomic: nothing lands behind the stop mark
            if self._closed:
                raise InferenceError("the NLI batcher is closed")
            self._q.put(_Request(pairs, fut))
        return fut

    def scores(self, pairs) -> np.ndarray:
        """Blocking :meth:`submit`: float32 ``[len(pairs)]`` P(entailment).

        Raises:
            InferenceError: as :meth:`submit`, or the checker failed on these pairs.
            Cancelled: the calling question was stopped while it waited (:mod:`~vericite.engine.cancel`).
        """
        return cancel.wait(self.submit(pairs))

    def close(self, timeout: float | None = None) -> None:
        """Stop accepting requests, finish every queued one, and join the worker."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._q.put(_STOP)
        self._thread.join(timeout)

    def __enter__(self) -> "DynamicBatcher":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- worker -------------------------------------------------------------------------------
    def _run(self) -> None:
        stop = False
        while not stop:
            first = self._q.get()
            if first is _STOP:
                break
            step, n = [first], len(first.pairs)
            deadline = time.perf_counter() + self.max_wait_s
            while n < self.max_pairs:
                left = deadline - time.perf_counter()
                try:
                    nxt = self._q.get(timeout=left) if left > 0 else self._q.get_nowait()
                except queue.Empty:
                    break
                if nxt is _STOP:
                    stop = True  # finish this step, then exit: STOP is the last item ever queued
                    break
                step.append(nxt)
                n += len(nxt.pairs)
            self._process(step)

    def _process(self, step: list[_Request]) -> None:
        live = [r for r in step if r.future.set_running_or_notify_cancel()]
        for r in list(live):  # a stopped question's pairs are not scored; the others' step goes on
            why = cancel.stopped(r.stop)
            if why is not None:
                live.remove(r)
                r.future.set_exception(why)
        if not live:
            return
        t0 = time.perf_counter()
        computed = 0
        try:
            computed = self._score(live)
        except BaseException as e:  # noqa: BLE001
            if len(live) == 1:
                log.error("NLI request failed: %s", e)
                live[0].future.set_exception(e)
            else:  # one request's bad pair must not fail the others: each again alone
                log.warning("NLI batch of %d requests failed (%s); scoring each alone", len(live), e)
                for r in live:
                    try:
                        computed += self._score([r])
                    except BaseException as e1:  # noqa: BLE001  this caller sees its own failure
                        log.error("NLI request failed: %s", e1)
                        r.future.set_exception(e1)
        t1 = time.perf_counter()
        self.events.append(BatchEvent(t0, t1, len(live), sum(len(r.pairs) for r in live), computed))
        self.stats["requests"] += len(live)
        self.stats["pairs"] += sum(len(r.pairs) for r in live)
        self.stats["steps"] += 1
        self.stats["computed_pairs"] += computed
        self.stats["busy_ms"] += (t1 - t0) * 1000

    def _score(self, reqs: list[_Request]) -> int:
        """Resolve ``reqs``' futures: cached scores, the distinct missing pairs scored in one checker
        call. Returns the number of pairs computed; raises what the checker raises (no future is
        resolved then)."""
        unique: dict[tuple[str, str], float | None] = {}
        for r in reqs:
            for pair in r.pairs:
                unique.setdefault(pair, None)
        keys = list(unique)
        if self.cache is not None:
            for pair, v in zip(keys, self.cache.get_many(keys)):
                unique[pair] = v
        todo = [pair for pair in keys if unique[pair] is None]
        if todo:
            probs = np.asarray(self.checker.scores(todo), dtype=np.float32)
            if probs.shape != (len(todo),):
                raise InferenceError(f"checker returned shape {probs.shape} for {len(todo)} pairs")
            for pair, p in zip(todo, probs):
                unique[pair] = float(p)
            if self.cache is not None:
                self.cache.put_many(todo, probs.tolist())
        for r in reqs:
            r.future.set_result(np.array([unique[pair] for pair in r.pairs], dtype=np.float32))
        return len(todo)
