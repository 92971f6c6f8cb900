"""Stopping a question's work part-way: one signal, checked by long work at bounded intervals.

A caller that may give up on a question (the service: the request's deadline passed or its client
left) runs it inside ``with stop_when(check):``, where ``check()`` raises
:class:`~vericite.engine.errors.Cancelled` (or a subclass) once the work must stop. The work calls
:func:`check` wherever it can stop cleanly, so a stopped question frees its thread within one of
these intervals:

- between the pipeline's steps (:meth:`VeriCite.answer <vericite.engine.pipeline.VeriCite.answer>`);
- in llama.cpp's own greedy loop, before each generated token and each prompt batch (``n_batch``
  tokens, the library's own chunking, so logits are unchanged); in the batching session before each
  step; a server LLM's HTTP call is waited for in slices of :data:`POLL_S` (:func:`call`: the
  call is left to end in the background, and the server finishes its work);
- while waiting for NLI scores (slices of :data:`POLL_S`), and in the NLI batcher before each step:
  a stopped question's pairs are never scored, the other questions' are;
- in sentence splitting, per line piece of at most 4,000 characters (hence in instruction scanning).

What is shared stays usable: the greedy loop leaves the KV cache holding exactly the tokens it
evaluated (the next call reuses or drops them as usual), the batching session drops its sequences,
the NLI batcher resolves only the stopped question's futures with the error.

The signal lives in a context variable, so the shared models need no new argument; a thread started
for the question (stage 2's documents, the batching worker) runs under :func:`carry`, and the NLI
batcher keeps :func:`current` with each request. Outside ``stop_when`` every check is a no-op.
"""
from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import TypeVar

from .errors import Cancelled

#: Raises :class:`Cancelled` (or a subclass) when the question's work must stop; returns otherwise.
Check = Callable[[], None]
T = TypeVar("T")

#: Seconds between two checks while a thread waits for another (NLI scores, a server's answer).
POLL_S = 0.05

_CURRENT: contextvars.ContextVar[Check | None] = contextvars.ContextVar("vericite_stop", default=None)


@contextmanager
def stop_when(check_fn: Check) -> Iterator[None]:
    """Run the block's work under ``check_fn``: every :func:`check` inside it (this thread, and the
    threads it starts under :func:`carry`) calls it."""
    token = _CURRENT.set(check_fn)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> Check | None:
    """The check of the work running in this context (None: nothing can stop it)."""
    return _CURRENT.get()


def check() -> None:
    """Raise :class:`Cancelled` if this context's work must stop (a no-op outside :func:`stop_when`)."""
    fn = _CURRENT.get()
    if fn is not None:
        fn()


def stopped(check_fn: Check | None) -> Cancelled | None:
    """What ``check_fn`` raises now (None: the work may go on, or there is no check)."""
    if check_fn is None:
        return None
    try:
        check_fn()
    except Cancelled as e:
        return e
    return None


def carry(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` run in a copy of this context: a thread started for this work (a pool's task) stops with it."""
    ctx = contextvars.copy_context()
    return lambda *args, **kwargs: ctx.run(fn, *args, **kwargs)


def wait(future: Future, poll_s: float = POLL_S):
    """``future.result()``, checking this context's signal every ``poll_s`` seconds while it waits.

    Raises:
        Cancelled: the work must stop (the future is left to end on its own); whatever the future raises.
    """
    if _CURRENT.get() is None:
        return future.result()
    while True:
        check()
        try:
            return future.result(timeout=poll_s)
        except FutureTimeout:
            if future.done():  # the future's own TimeoutError, not the wait's
                raise


def call(fn: Callable[..., T], *args) -> T:
    """``fn(*args)``, stoppable while it blocks: under a stop signal it runs in a thread of its own and
    this one waits for it with :func:`wait` (a stop leaves ``fn`` to end in the background: use it
    for work that holds no shared state, such as one HTTP call); without one, directly.

    Raises:
        Cancelled: the work must stop; whatever ``fn`` raises.
    """
    if _CURRENT.get() is None:
        return fn(*args)
    future: Future = Future()

    def run() -> None:
        try:
            future.set_result(fn(*args))
        except BaseException as e:  # noqa: BLE001  handed to the waiting caller
            future.set_exception(e)

    threading.Thread(target=run, name="stoppable-call", daemon=True).start()
    return wait(future)
