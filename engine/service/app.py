"""The HTTP routes: :func:`create_app` builds the FastAPI app around one pipeline (or a factory
that loads it in the background).

- ``POST /v1/answer``: ``{question, documents: [{title, text}], options: {...}, stream}`` ->
  exactly ``VerifiedAnswer.to_json()``, or server-sent events with ``"stream": true``
  (:mod:`.runner`).
- ``GET /``: the web page (engine/service/page/index.html: plain HTML, CSS and JS, no build step).
- ``GET /health`` (the process is alive), ``GET /ready`` (models loaded; 503 while loading,
  after a failed load, or while draining), ``GET /v1/models``, ``GET /metrics`` (Prometheus).
- OpenAPI at ``/openapi.json`` and ``/docs``.

Errors are ``{"error": {"type", "message"}}`` (:mod:`.errors`); the optional API key guards
``/v1/*`` and ``/metrics`` (probes and docs stay open).
"""
from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import Cancelled, VeriCiteError
from ..pipeline import VeriCite, check_input
from . import errors as E
from .admission import Admission
from .errors import Rejected
from .limits import (
    BodyLimit,
    Limits,
    check_documents,
    check_options,
    check_question,
    option_names,
)
from .metrics import Metrics
from .runner import Runner
from .schema import AnswerOut, AnswerRequest, ErrorOut, ModelsOut, StatusOut

log = logging.getLogger(__name__)

ROUTES = {"/", "/v1/answer", "/v1/models", "/health", "/ready", "/metrics"}
_ERRORS: dict[int | str, dict[str, Any]] = {code: {"model": ErrorOut, "description": text} for code, text in {
    400: "malformed JSON", 401: "missing or wrong API key", 408: "the body did not arrive within --body-timeout",
    413: "body over --max-body-bytes",
    422: "a field, limit or option is wrong (the message names it); an InputError or ConfigError of the engine",
    429: "the queue is full (Retry-After)", 502: "a model call failed (InferenceError)",
    503: "models loading, load failed, or shutting down", 504: "the request's deadline passed (its result is dropped)",
}.items()}


class Service:
    """What the routes share: the pipeline (once loaded), the admission queue, the metrics.

    Args:
        source: a loaded :class:`VeriCite`, or a function returning one (called in a thread at startup).
        limits: :class:`~.limits.Limits`.
        owns_pipeline: close the pipeline's checker (the NLI batcher) at shutdown.
        on_load_failed: called with the error message when the factory fails.
    """

    def __init__(self, source: VeriCite | Callable[[], VeriCite], limits: Limits, *, owns_pipeline: bool = True,
                 on_load_failed: Callable[[str], None] | None = None):
        self.limits = limits
        self.owns_pipeline = owns_pipeline
        self.on_load_failed = on_load_failed
        self.runner: Runner | None = None
        self.admission: Admission | None = None
        self.load_error: str | None = None
        self.draining = False
        self.clock = time.monotonic
        self._factory = None if isinstance(source, VeriCite) else source
        self.metrics = Metrics(lambda: self.admission, lambda: self.runner and self.runner.pipeline.checker, ROUTES)
        if isinstance(source, VeriCite):  # as self._factory is None
            self._loaded(source)

    def start(self) -> None:
        self.admission = Admission(self.limits.workers, self.limits.queue_size, clock=self.clock)
        if self._factory is not None and self.runner is None:
            threading.Thread(target=self._load, name="load-models", daemon=True).start()

    def stop(self) -> None:
        """After uvicorn drained the open requests: stop the threads, close the batcher."""
        self.draining = True
        if self.admission is not None:
            self.admission.close(timeout=self.limits.timeout_s)
        if self.runner is not None and self.owns_pipeline:
            self.runner.pipeline.close()
            log.info("NLI batchers closed")

    def status(self) -> tuple[int, str, str | None]:
        if self.draining:
            return 503, "draining", None
        if self.load_error:
            return 503, "failed", self.load_error
        if self.runner is None:
            return 503, "loading", None
        return 200, "ready", None

    def ready_runner(self) -> Runner:
        code, status, error = self.status()
        if code != 200:
            raise Rejected(503, status, {"draining": "the server is shutting down",
                                         "loading": "the models are loading; see GET /ready",
                                         "failed": f"the models failed to load: {error}"}[status])
        assert self.runner is not None  # status() says ready only with a runner (never unset)
        return self.runner

    def _loaded(self, pipeline: VeriCite) -> None:
        self.runner = Runner(pipeline, on_llm_call=self.metrics.llm_call)

    def _load(self) -> None:
        assert self._factory is not None  # start() runs this only with a factory
        try:
            self._loaded(self._factory())
            log.info("models loaded: ready")
        except Exception as e:  # noqa: BLE001  reported by /ready and the log; the process stays up
            self.load_error = str(e) if isinstance(e, VeriCiteError) else f"{type(e).__name__}: {e}"
            log.error("loading the models failed: %s", self.load_error, exc_info=not isinstance(e, VeriCiteError))
            if self.on_load_failed:
                self.on_load_failed(self.load_error)


#: the Host names a loopback server answers for (``vericite serve --host 127.0.0.1``, the default)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _host_name(host: str) -> str:
    """The host of a ``Host`` header, lower case, without its port ("[::1]:8000" -> "::1")."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class HostCheck:
    """ASGI middleware: an HTTP request whose ``Host`` header (its port aside) is not in ``allowed`` gets 400
    with the JSON error shape (``"type": "host"``).

    A plain ASGI wrapper, not Starlette's ``BaseHTTPMiddleware``: that one hands the route a ``receive``
    that never reports the client's ``http.disconnect``, so a non-streaming request whose client left
    would run to its end.
    """

    def __init__(self, app, allowed: frozenset[str]):
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            host = next((v for k, v in scope["headers"] if k == b"host"), b"").decode("latin-1")
            if _host_name(host) not in self.allowed:
                refusal = Rejected(400, "host", "the Host header names a host this server does not answer for")
                return await JSONResponse(E.body(refusal), status_code=400)(scope, receive, send)
        return await self.app(scope, receive, send)


def create_app(source: VeriCite | Callable[[], VeriCite], *, limits: Limits = Limits(), api_key: str | None = None,
               owns_pipeline: bool = True, on_load_failed: Callable[[str], None] | None = None,
               allowed_hosts: Sequence[str] | None = None) -> FastAPI:
    """The FastAPI app serving ``source`` (a loaded pipeline, or a factory run in a thread at startup).

    Args:
        limits: request limits and capacity (:class:`~.limits.Limits`).
        api_key: when set, ``/v1/*`` and ``/metrics`` need ``Authorization: Bearer KEY``.
        owns_pipeline: close the pipeline's NLI batcher at shutdown.
        on_load_failed: called with the message when the factory raises.
        allowed_hosts: when set, a request whose ``Host`` header names another host (its port aside) gets
            400 with the JSON error shape: a web page elsewhere cannot reach a loopback server through a
            DNS name that resolves to 127.0.0.1 (DNS rebinding). ``vericite serve`` on loopback sets
            :data:`LOOPBACK_HOSTS`.
    """
    svc = Service(source, limits, owns_pipeline=owns_pipeline, on_load_failed=on_load_failed)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        svc.start()
        yield
        svc.stop()

    app = FastAPI(title="VeriCite", version=_version(), lifespan=lifespan,
                  description="Answers with NLI-verified citations from the documents you send (on-prem, offline).")
    app.state.service = svc
    if allowed_hosts is not None:
        allowed = frozenset(h.lower() for h in allowed_hosts)
        app.add_middleware(_ASGI, factory=lambda inner: HostCheck(inner, allowed))
    bearer = HTTPBearer(auto_error=False, description="required when the server has an API key "
                                                      "(--api-key or VERICITE_API_KEY)")

    def authorised(creds: HTTPAuthorizationCredentials | None = Depends(bearer)) -> None:
        if api_key is None:
            return
        given = creds.credentials if creds is not None else ""
        if not hmac.compare_digest(given.encode("utf-8"), api_key.encode("utf-8")):
            raise Rejected(401, "auth", "missing or wrong API key (Authorization: Bearer KEY)",
                           {"WWW-Authenticate": "Bearer"})

    @app.exception_handler(Rejected)
    async def rejected(request: Request, exc: Rejected):
        return JSONResponse(E.body(exc), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(VeriCiteError)
    async def engine_error(request: Request, exc: VeriCiteError):
        return _failure(exc, svc.limits.timeout_s)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        return _invalid(exc.errors())

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        return JSONResponse({"error": {"type": "http", "message": str(exc.detail)}}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.post("/v1/answer", response_model=None, dependencies=[Depends(authorised)],
              responses={200: {"model": AnswerOut, "description": "VerifiedAnswer.to_json(), as `vericite answer "
                                                                  "--json`; with stream: server-sent events",
                               "content": {"text/event-stream": {}}}, **_ERRORS})
    async def answer(req: AnswerRequest, request: Request):
        """Answer a question from the given documents with verified citations."""
        runner = svc.ready_runner()
        question = check_question(req.question)
        docs = check_documents(req.documents, svc.limits)
        check_input(question, docs)  # an InputError (422) here, before admission and before a stream's 200
        settings, deadline = check_options(req.options, runner.settings, svc.limits)
        if req.stream:
            return await _stream(svc, runner, question, docs, settings, deadline)
        assert svc.admission is not None  # start() made it (the app's lifespan) before requests are served
        job = svc.admission.submit(lambda job: runner.run(question, docs, settings, check=lambda: job.check(svc.clock())),
                                   deadline)
        try:
            result = await _result(job, request, timeout=max(0.0, job.deadline - svc.clock()))
        except asyncio.TimeoutError:
            svc.admission.abandon(job)
            return JSONResponse(E.body(_deadline(deadline)), status_code=504)
        except _ClientGone:  # nobody reads the answer: stop the work (its thread is freed at its next check)
            svc.admission.abandon(job)
            log.info("client left before its answer: request abandoned")
            return Response(status_code=499)
        except Exception as e:  # noqa: BLE001  every failure becomes its status; the server goes on
            return _failure(e, deadline)
        svc.metrics.answered(result, (job.started or job.admitted) - job.admitted)
        return JSONResponse(result.to_json())

    page = (Path(__file__).parent / "page" / "index.html").read_text(encoding="utf-8")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index():
        """The web page: documents and a question in, the stages streamed, the answer with its quotes."""
        return HTMLResponse(page, headers={"Cache-Control": "no-store"})

    @app.get("/health", response_model=StatusOut)
    async def health():
        """The process is alive (models may still be loading)."""
        return {"status": "ok"}

    @app.get("/ready", response_model=StatusOut, responses={503: {"model": StatusOut}})
    async def ready():
        """200 once the models are loaded; 503 while loading, after a failed load, or while draining."""
        code, status, error = svc.status()
        return JSONResponse({"status": status, "error": error}, status_code=code)

    @app.get("/v1/models", response_model=ModelsOut, dependencies=[Depends(authorised)],
             responses={k: _ERRORS[k] for k in (401, 503)})
    async def models():
        """The loaded LLM and NLI checker (names, sha256), the prompt set and the settings stamp."""
        pipe = svc.ready_runner().pipeline
        return {"llm": {"name": pipe.llm.name, "sha256": getattr(pipe.llm, "sha256", None), "n_ctx": pipe.llm.n_ctx},
                "nli": {"name": pipe.checker.name, "sha256": getattr(pipe.checker, "sha256", None),
                        "ep": getattr(pipe.checker, "ep", None)},
                "prompts": pipe.prompts.tag, "settings": pipe.stamp(pipe.settings.lang), "options": option_names()}

    @app.get("/metrics", response_class=Response, dependencies=[Depends(authorised)],
             responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}, 401: _ERRORS[401]})
    async def metrics():
        """Prometheus metrics (text format)."""
        return Response(svc.metrics.text(), media_type=svc.metrics.content_type)

    return _wrap(app, svc)


def _wrap(app: FastAPI, svc: Service) -> FastAPI:
    """Put the body limit and the request counter around the app (outermost: the counter)."""
    app.add_middleware(_ASGI, factory=lambda inner: BodyLimit(inner, svc.limits))
    app.add_middleware(_ASGI, factory=svc.metrics.middleware)
    return app


class _ASGI:
    """Adapts a ``factory(app) -> asgi`` wrapper to Starlette's ``add_middleware``."""

    def __init__(self, app, factory):
        self._asgi = factory(app)

    async def __call__(self, scope, receive, send):
        await self._asgi(scope, receive, send)


async def _stream(svc: Service, runner: Runner, question, docs, settings, deadline: float) -> StreamingResponse:
    loop = asyncio.get_running_loop()
    events: asyncio.Queue = asyncio.Queue()

    def put(item) -> None:
        try:
            loop.call_soon_threadsafe(events.put_nowait, item)
        except RuntimeError:  # the loop is gone (shutdown): nobody is listening
            pass

    assert svc.admission is not None  # start() made it (the app's lifespan) before requests are served
    job = svc.admission.submit(lambda job: runner.run(question, docs, settings, check=lambda: job.check(svc.clock()),
                                                       emit=lambda name, data: put((name, data))), deadline)
    job.future.add_done_callback(lambda f: put(("", f)))

    async def sse():
        try:
            while True:
                try:
                    name, data = await asyncio.wait_for(events.get(), timeout=max(0.0, job.deadline - svc.clock()))
                except asyncio.TimeoutError:
                    svc.admission.abandon(job)
                    yield _event("error", {"status": 504, **E.body(_deadline(deadline))})
                    return
                if name:
                    yield _event(name, data)
                    continue
                exc = _deadline(deadline) if data.cancelled() else data.exception()
                if isinstance(exc, Cancelled):
                    exc = _deadline(deadline)
                if exc is not None:
                    _log_unexpected(exc)
                    yield _event("error", {"status": E.status_of(exc), **E.body(exc)})
                else:
                    svc.metrics.answered(data.result(), (job.started or job.admitted) - job.admitted)
                return
        finally:
            if not job.future.done():  # the client left, or the deadline passed
                svc.admission.abandon(job)

    return StreamingResponse(sse(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


class _ClientGone(Exception):
    """The client of a non-streaming request closed its connection before the answer."""


#: seconds between two looks at a non-streaming request's connection while its answer is computed
DISCONNECT_POLL_S = 0.1


async def _result(job, request: Request, *, timeout: float):
    """The job's result, watching the client's connection meanwhile.

    Raises:
        asyncio.TimeoutError: ``timeout`` seconds passed first.
        _ClientGone: the client closed its connection first (uvicorn reports it as ``http.disconnect``).
        Whatever the job raised.
    """
    async def gone() -> None:
        while not await request.is_disconnected():
            await asyncio.sleep(DISCONNECT_POLL_S)

    result = asyncio.ensure_future(asyncio.wrap_future(job.future))
    watch = asyncio.ensure_future(gone())
    try:
        done, _ = await asyncio.wait({result, watch}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
    if result in done:
        return result.result()
    result.cancel()
    if watch in done:
        raise _ClientGone
    raise asyncio.TimeoutError


def _event(name: str, data: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _deadline(seconds: float) -> Rejected:
    return Rejected(504, "deadline", f"the request took longer than its deadline of {seconds:g} s "
                                     "(option deadline_s, server --timeout); its result is dropped")


def _failure(exc: BaseException, deadline: float) -> JSONResponse:
    if isinstance(exc, Cancelled):
        exc = _deadline(deadline)
    _log_unexpected(exc)
    return JSONResponse(E.body(exc), status_code=E.status_of(exc), headers=getattr(exc, "headers", None))


def _log_unexpected(exc: BaseException) -> None:
    if E.status_of(exc) == 500:
        log.error("request failed", exc_info=exc)
    elif E.status_of(exc) >= 502:
        log.warning("request failed: %s", exc)


def _invalid(errors) -> JSONResponse:
    """A validation error as one message: 400 for malformed JSON, else 422 naming the fields."""
    for e in errors:
        if e.get("type") == "json_invalid":
            where = e.get("loc", ())[-1] if len(e.get("loc", ())) > 1 else "?"
            why = (e.get("ctx") or {}).get("error", e.get("msg", ""))
            return JSONResponse({"error": {"type": "malformed_json", "message": f"malformed JSON body: {why} "
                                                                                f"(at character {where})"}},
                                status_code=400)
    parts = []
    for e in errors:
        loc = [str(x) for x in e.get("loc", ()) if x != "body"]
        path = "".join(f"[{x}]" if x.isdigit() else f".{x}" for x in loc).lstrip(".") or "body"
        parts.append(f"{path}: {e.get('msg', 'invalid')}")
    return JSONResponse({"error": {"type": "invalid", "message": "; ".join(parts)}}, status_code=422)


def _version() -> str:
    try:
        return version("vericite")
    except PackageNotFoundError:
        return "0"


def openapi_text(app: FastAPI) -> str:
    """The app's OpenAPI document as committed in ``engine/service/openapi.json``."""
    return json.dumps(app.openapi(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
