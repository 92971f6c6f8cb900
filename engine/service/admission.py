"""Admission: a bounded queue in front of a fixed set of request threads, with per-request deadlines.

A request is admitted when a thread is free (it is handed to that thread) or the queue has room
(it waits there, first in first out); otherwise it is refused with 429 and a Retry-After estimate.
So at most ``workers`` requests run and at most ``queue_size`` wait; the queue depth never
exceeds its bound.

A request past its deadline (or whose client left) is *abandoned*: a waiting one leaves the
queue at once, freeing its place; a running one has its ``cancelled`` flag set, which
:meth:`Job.check` reads; the runner makes that the request's stop signal
(:mod:`vericite.engine.cancel`), so its thread is freed within a token, a prompt batch, an NLI
wait slice or a splitter piece (its result is dropped).

Pure queue logic: no HTTP, no models; the clock can be passed in.
"""
from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from .errors import DeadlineExceeded, Rejected

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Job:
    """One admitted request: ``fn(job)`` runs in a request thread; its result or error lands on ``future``."""

    fn: Callable[["Job"], Any]
    deadline: float                       # clock() value after which the request is abandoned
    admitted: float
    future: Future = field(default_factory=Future)
    cancelled: threading.Event = field(default_factory=threading.Event)
    started: float | None = None          # clock() when a thread took it

    def check(self, now: float) -> None:
        """Raise DeadlineExceeded if the job was abandoned (deadline, client gone) or its deadline passed."""
        if self.cancelled.is_set():
            raise DeadlineExceeded("abandoned: its deadline passed or its client left")
        if now > self.deadline:
            raise DeadlineExceeded("deadline passed")


class Admission:
    """``workers`` request threads behind a queue of at most ``queue_size`` waiting requests.

    Args:
        workers: request threads (>= 1).
        queue_size: waiting requests beyond the running ones (>= 0).
        clock: monotonic seconds (``time.monotonic``).

    Attributes:
        peak_waiting: the largest queue depth seen.
        completed, abandoned, rejected: counters.
    """

    def __init__(self, workers: int, queue_size: int, *, clock: Callable[[], float] = time.monotonic):
        self.workers = workers
        self.queue_size = queue_size
        self.clock = clock
        self.peak_waiting = 0
        self.completed = self.abandoned = self.rejected = 0
        self._busy = 0                      # threads running or reserved for a handed-over job
        self._ready: deque[Job] = deque()   # handed to a free thread, not yet taken
        self._waiting: deque[Job] = deque() # the queue
        self._cond = threading.Condition()
        self._closed = False
        self._service_s = 1.0               # moving average of run time (Retry-After)
        self._threads = [threading.Thread(target=self._work, name=f"request-{i}", daemon=True) for i in range(workers)]
        for t in self._threads:
            t.start()

    # -- state --------------------------------------------------------------------------------
    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @property
    def running(self) -> int:
        return self._busy

    # -- the caller's side --------------------------------------------------------------------
    def submit(self, fn: Callable[[Job], Any], deadline_s: float) -> Job:
        """Admit ``fn`` with a deadline of ``deadline_s`` seconds from now.

        Raises:
            Rejected: 429 (queue full, with Retry-After) or 503 (shutting down).
        """
        now = self.clock()
        job = Job(fn, now + deadline_s, now)
        with self._cond:
            if self._closed:
                raise Rejected(503, "shutting_down", "the server is shutting down")
            if self._busy < self.workers:
                self._busy += 1
                self._ready.append(job)
            elif len(self._waiting) < self.queue_size:
                self._waiting.append(job)
                self.peak_waiting = max(self.peak_waiting, len(self._waiting))
            else:
                self.rejected += 1
                wait = math.ceil(self._service_s * (1 + len(self._waiting) / self.workers))
                raise Rejected(429, "queue_full",
                               f"the queue is full ({len(self._waiting)} waiting, {self._busy} running; "
                               f"--queue-size {self.queue_size}, --workers {self.workers}); retry later",
                               {"Retry-After": str(max(1, wait))})
            self._cond.notify()
        return job

    def abandon(self, job: Job) -> None:
        """Give up on ``job`` (deadline or client gone): out of the queue if waiting, else flagged."""
        job.cancelled.set()
        with self._cond:
            if job in self._waiting:
                self._waiting.remove(job)
            else:
                return
            self.abandoned += 1
        job.future.cancel()

    def close(self, timeout: float | None = None) -> None:
        """Admit nothing more; refuse what still waits (503); let running jobs end; join the threads."""
        with self._cond:
            self._closed = True
            left = list(self._waiting) + list(self._ready)
            self._waiting.clear()
            self._ready.clear()
            self._cond.notify_all()
        for job in left:
            if job.future.set_running_or_notify_cancel():
                job.future.set_exception(Rejected(503, "shutting_down", "the server is shutting down"))
        for t in self._threads:
            t.join(timeout)

    # -- the threads --------------------------------------------------------------------------
    def _work(self) -> None:
        job = self._take()
        while job is not None:
            self._run(job)
            job = self._next()

    def _take(self) -> Job | None:
        """Block until a job is handed to this thread (None: closed)."""
        with self._cond:
            while not self._ready and not self._closed:
                self._cond.wait()
            return self._ready.popleft() if self._ready else None

    def _next(self) -> Job | None:
        """The next waiting job for this thread (it stays busy), or free the thread and block."""
        with self._cond:
            if self._waiting:
                return self._waiting.popleft()
            self._busy -= 1
        return self._take()

    def _run(self, job: Job) -> None:
        if not job.future.set_running_or_notify_cancel():
            return  # abandoned while handed over
        job.started = self.clock()
        try:
            job.check(job.started)
            result = job.fn(job)
        except BaseException as e:  # the request's handler answers it; this thread goes on
            if isinstance(e, DeadlineExceeded):
                self.abandoned += 1
                log.info("request dropped: %s", e)
            job.future.set_exception(e)
            return
        took = self.clock() - job.started
        with self._cond:
            self.completed += 1
            self._service_s = 0.8 * self._service_s + 0.2 * took
        job.future.set_result(result)
