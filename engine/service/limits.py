"""What one request may be: documents per request, characters per document, body bytes, the
per-request options (pipeline settings by name, and ``deadline_s``; those that scale a request's work
or the shared models' memory capped, :data:`CAPS`), and the service's capacity.

Every refusal names the limit, its value and the flag that sets it, e.g.
``documents: 500 given; the limit is max_docs = 20 (--max-docs)``.
"""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, fields, replace
from typing import Any

from ..config import settings as S
from ..errors import ConfigError
from ..prompts import PROMPTS_DIR
from ..records import Document
from .errors import Rejected

#: The one per-request option that is not a pipeline setting.
DEADLINE = "deadline_s"


@dataclass(frozen=True)
class Limits:
    """The service's limits and capacity (each is a ``vericite serve`` flag, named in its refusals)."""

    max_docs: int = 20                    # documents per request (at least 1)
    max_doc_chars: int = 20_000           # characters per document text
    max_body_bytes: int = 2 * 1024 * 1024  # request body
    workers: int = 2                      # request threads (LLM calls take turns; NLI of one overlaps LLM of another)
    queue_size: int = 8                   # admitted requests waiting for a thread; beyond: 429
    timeout_s: float = 300.0              # per-request deadline from admission (option deadline_s may lower it)
    # option parallel_docs: documents decoded at once; in process each is a sequence of a second llama.cpp
    # context of n_ctx * (N + 2) / 2 KV cells that the shared LLM keeps after the request
    max_parallel_docs: int = 4
    max_option_count: int = 10            # options counting sentences or words that each cost work (CAPS)
    body_timeout_s: float = 30.0          # seconds to receive a request's whole body (a client that stalls: 408)
    max_connections: int = 100            # open connections and requests at once (uvicorn's limit; beyond: 503)

    def __post_init__(self):
        for f in fields(self):
            if getattr(self, f.name) <= 0 and not (f.name == "queue_size" and self.queue_size == 0):
                raise ConfigError(f"{flag(f.name)} = {getattr(self, f.name)}: must be > 0")

    def describe(self, name: str) -> str:
        """``max_docs = 20 (--max-docs)``."""
        return f"{name} = {getattr(self, name)} ({flag(name)})"


#: Per-request options whose value scales the request's work or the shared models' memory -> the
#: limit (a :class:`Limits` field) a request's value may not exceed. parallel_docs: KV memory and
#: threads; claim_words: one LLM call per sentence under that many words; fallback_quotes,
#: fallback_sentences, backbone_facts: sentences scored and kept. (The others are switches whose
#: work is bounded by ``max_docs``, or thresholds.)
CAPS = {"parallel_docs": "max_parallel_docs", "claim_words": "max_option_count",
        "fallback_quotes": "max_option_count", "fallback_sentences": "max_option_count",
        "backbone_facts": "max_option_count"}


def flag(name: str) -> str:
    return {"timeout_s": "--timeout", "body_timeout_s": "--body-timeout"}.get(name, "--" + name.replace("_", "-"))


def option_names() -> list[str]:
    """Every option a request may set: ``deadline_s`` and each pipeline setting."""
    return [DEADLINE, *(f.name for f in fields(S.Settings))]


def check_documents(documents: list[Any], limits: Limits) -> list[Document]:
    """The request's documents as records, after the count and size limits.

    Raises:
        Rejected: 422 naming the limit.
    """
    if not documents:
        raise Rejected(422, "limit", "documents: none given; a request needs at least 1 document")
    if len(documents) > limits.max_docs:
        raise Rejected(422, "limit", f"documents: {len(documents)} given; the limit is {limits.describe('max_docs')}")
    out = []
    for i, d in enumerate(documents):
        if len(d.text) > limits.max_doc_chars:
            raise Rejected(422, "limit", f"documents[{i}].text: {len(d.text)} characters; the limit is "
                                         f"{limits.describe('max_doc_chars')}")
        out.append(Document(title=d.title, text=d.text))
    return out


def check_question(question: str) -> str:
    if not question.strip():
        raise Rejected(422, "invalid", "question: empty")
    return question


def check_options(options: dict[str, Any], base: S.Settings, limits: Limits) -> tuple[S.Settings, float]:
    """The request's settings (``base`` with the options' values) and its deadline in seconds.

    Raises:
        Rejected: 422: unknown option, a value that breaks its setting's rule (the message names
            ``options.NAME``), a value over its cap (:data:`CAPS`, naming the limit and its flag), a
            prompt set that is not built in, or a deadline over the server's.
    """
    known = option_names()
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise Rejected(422, "invalid", f"options.{unknown[0]}: unknown option; known: {', '.join(known)}")
    deadline = limits.timeout_s
    values = {}
    for name, raw in options.items():
        if name == DEADLINE:
            deadline = _deadline(raw, limits)
            continue
        try:
            values[name] = S.check(name, raw, f"options.{name}")
        except ConfigError as e:
            raise Rejected(422, "invalid", str(e)) from None
        if name in CAPS and values[name] > getattr(limits, CAPS[name]):
            raise Rejected(422, "limit", f"options.{name} = {raw!r}: the limit is {limits.describe(CAPS[name])}")
        if name == "prompts" and values[name] not in builtin_prompt_sets():
            # a prompt set may also be a file path on the server: never from a request
            raise Rejected(422, "invalid", f"options.prompts = {raw!r}: expected a built-in prompt set "
                                           f"({', '.join(builtin_prompt_sets())})")
    return (replace(base, **values) if values else base), deadline


def builtin_prompt_sets() -> list[str]:
    return sorted(p.stem for p in PROMPTS_DIR.glob("*.json"))


def _deadline(raw: Any, limits: Limits) -> float:
    ok = isinstance(raw, (int, float)) and not isinstance(raw, bool) and 0 < raw <= limits.timeout_s
    if not ok:
        raise Rejected(422, "invalid", f"options.{DEADLINE} = {raw!r}: expected seconds in (0, {limits.timeout_s:g}] "
                                       f"(the server's {limits.describe('timeout_s')})")
    return float(raw)


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` is answered 413 before the app reads it,
    and one that has not fully arrived ``body_timeout_s`` after the request began, 408 (the
    connection is then closed: a client that promised a body and stalls holds nothing).

    The declared Content-Length is checked first; a body without one (chunked) is read up to the
    limit and then handed to the app as it came. Before a 413 the rest of the body is read and
    dropped (up to 8 times the limit, at least 64 MB; beyond, the connection is closed).
    """

    def __init__(self, app, limits: Limits):
        self.app = app
        self.limits = limits

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            return await self.app(scope, receive, send)
        limit = self.limits.max_body_bytes
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            drained = int(length) <= self._cap() and await self._discard(receive, 0)
            return await self._refuse(send, int(length), close=not drained)
        chunks, size, more = [], 0, True
        try:
            async with asyncio.timeout(self.limits.body_timeout_s):  # a client that promises a body and stalls
                while more:
                    msg = await receive()
                    if msg["type"] == "http.disconnect":
                        return
                    chunks.append(msg.get("body", b""))
                    size += len(chunks[-1])
                    more = msg.get("more_body", False)
                    if size > limit:
                        drained = await self._discard(receive, size) if more else True
                        return await self._refuse(send, size, at_least=more, close=not drained)
        except TimeoutError:
            text = (f"the request body did not arrive within {self.limits.describe('body_timeout_s')} "
                    f"({size} bytes received)")
            return await self._send(send, 408, "timeout", text, close=True)
        body, done = b"".join(chunks), False

        async def replay():
            nonlocal done
            if not done:
                done = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    def _cap(self) -> int:
        return max(8 * self.limits.max_body_bytes, 64 * 1024 * 1024)

    async def _discard(self, receive, size: int) -> bool:
        """Read and drop the rest of the body (up to a bound) before answering: a connection closed
        with unread data is reset, and the client would lose the 413. True if all was read."""
        while size <= self._cap():
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return False
            size += len(msg.get("body", b""))
            if not msg.get("more_body", False):
                return True
        return False

    async def _refuse(self, send, size: int, at_least: bool = False, close: bool = False) -> None:
        text = (f"request body of {'more than ' if at_least else ''}{size} bytes; the limit is "
                f"{self.limits.describe('max_body_bytes')}")
        await self._send(send, 413, "limit", text, close=close)

    @staticmethod
    async def _send(send, status: int, kind: str, text: str, close: bool = False) -> None:
        """A JSON error response (the service's shape) sent from the middleware."""
        payload = json.dumps({"error": {"type": kind, "message": text}}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        await send({"type": "http.response.start", "status": status,
                    "headers": headers + ([(b"connection", b"close")] if close else [])})
        await send({"type": "http.response.body", "body": payload})
