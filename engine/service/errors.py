"""What the service answers when a request fails: one JSON shape, one status per kind of failure.

Engine errors map to statuses (:func:`status_of`): InputError and ConfigError are the client's
(422), InferenceError is a model call that failed (502). :class:`Rejected` is the service's own
refusal (limits, admission, deadline, authentication). The body is always
``{"error": {"type": ..., "message": ...}}``; never a traceback.
"""
from __future__ import annotations

from ..errors import Cancelled, ConfigError, InferenceError, InputError, ModelFileError

#: Engine error type -> HTTP status.
STATUS = {InputError: 422, ConfigError: 422, InferenceError: 502, ModelFileError: 503, Cancelled: 504}


class Rejected(Exception):
    """The service refuses a request: ``status``, a ``kind`` ("limit", "queue_full", "deadline",
    "auth", ...), a message for the client and optional headers (Retry-After)."""

    def __init__(self, status: int, kind: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.headers = headers or {}


class DeadlineExceeded(Cancelled):
    """Raised inside a request's thread when its deadline passed or its client left: the pipeline
    stops at its next check (:mod:`vericite.engine.cancel`: within a token, a prompt batch, an NLI
    wait slice or a splitter piece) and the result is dropped."""


def status_of(exc: BaseException) -> int:
    """The HTTP status for ``exc`` (500 for anything the engine did not raise on purpose)."""
    if isinstance(exc, Rejected):
        return exc.status
    for cls, status in STATUS.items():
        if isinstance(exc, cls):
            return status
    return 500


def body(exc: BaseException) -> dict:
    """The JSON error body for ``exc``; unexpected errors say only that (the log has the traceback)."""
    if isinstance(exc, Rejected):
        return {"error": {"type": exc.kind, "message": exc.message}}
    if status_of(exc) == 500:
        return {"error": {"type": "internal", "message": "internal error (the server log has the details)"}}
    return {"error": {"type": type(exc).__name__, "message": str(exc)}}
