"""One question's clock: every timed interval (LLM call, NLI scoring, waiting, a stage) goes through
:meth:`Timeline.span`, which returns the elapsed milliseconds and records a :class:`Span`."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .records import Span


@dataclass
class Elapsed:
    """Filled when the ``with`` block ends: milliseconds the block took."""

    ms: float = 0.0


@dataclass
class Timeline:
    """Spans of one question, in ms since :attr:`t0` (``time.perf_counter()`` when it started)."""

    t0: float = field(default_factory=time.perf_counter)
    spans: list[Span] = field(default_factory=list)

    @contextmanager
    def span(self, kind: str | None, label: str = "", *, min_ms: float = 0.0) -> Iterator[Elapsed]:
        """Time the ``with`` block.

        Args:
            kind: the :class:`Span` kind to record ("llm", "nli", "wait"), or None to only measure
                (a stage's wall time).
            label: what the span was, e.g. the call's purpose.
            min_ms: record the span only if it took longer than this (waits that did not block).

        Yields:
            :class:`Elapsed`, whose ``ms`` is set when the block ends (also when it raises).
        """
        out = Elapsed()
        start = time.perf_counter()
        try:
            yield out
        finally:
            end = time.perf_counter()
            out.ms = (end - start) * 1000
            if kind is not None and out.ms > min_ms:
                self.spans.append(Span(kind, label, (start - self.t0) * 1000, (end - self.t0) * 1000))

    def elapsed_ms(self) -> float:
        """Milliseconds since the question started, rounded to 0.1."""
        return round((time.perf_counter() - self.t0) * 1000, 1)
