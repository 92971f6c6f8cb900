"""Running the app under uvicorn: ``vericite serve`` (:func:`serve`), and a loopback server in
a thread for tests (:func:`serve_in_thread`).

Shutdown (SIGTERM or Ctrl-C, uvicorn's graceful shutdown): ``/ready`` turns 503 and new requests
get 503 at once; uvicorn stops listening, closes idle connections and waits for every in-flight
request (queued ones included) to end; then the app's shutdown stops the request threads and
closes the NLI batcher, and the process exits. A second signal exits at once.
"""
from __future__ import annotations

import logging
import socket
import threading
import time

import uvicorn

from ..errors import VeriCiteError

log = logging.getLogger(__name__)


class DrainingServer(uvicorn.Server):
    """uvicorn's server, telling the service to stop admitting as soon as the signal arrives."""

    def __init__(self, config: uvicorn.Config, service):
        super().__init__(config)
        self.service = service

    def handle_exit(self, sig, frame) -> None:
        self.service.draining = True
        super().handle_exit(sig, frame)


def serve(app, *, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info") -> int:
    """Serve ``app`` until a signal (returns 0).

    Raises:
        VeriCiteError: the models failed to load (the server stops at once).
    """
    svc = app.state.service
    # limit_concurrency bounds the connections slow clients can hold (503 beyond it); uvicorn has no
    # timeout for a request's headers: on a shared network put a reverse proxy in front (docs/service.md)
    server = DrainingServer(uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="on",
                                           timeout_graceful_shutdown=None,
                                           limit_concurrency=svc.limits.max_connections), svc)

    def failed(message: str) -> None:
        server.should_exit = True

    svc.on_load_failed = failed
    server.run()
    if svc.load_error:
        raise VeriCiteError(f"not serving: the models failed to load: {svc.load_error}")
    return 0


class Running:
    """A server started by :func:`serve_in_thread`: its ``url``; ``stop()`` drains and joins it."""

    def __init__(self, server: DrainingServer, thread: threading.Thread, url: str):
        self.server = server
        self.thread = thread
        self.url = url

    def stop(self, timeout: float = 30.0) -> None:
        self.server.service.draining = True
        self.server.should_exit = True
        self.thread.join(timeout)
        if self.thread.is_alive():
            raise RuntimeError(f"the server at {self.url} did not stop within {timeout} s")

    def __enter__(self) -> "Running":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def serve_in_thread(app, *, host: str = "127.0.0.1", start_timeout: float = 20.0) -> Running:
    """Start ``app`` on a free port of ``host`` (loopback by default) in a thread; returns when it listens."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=None)
    server = DrainingServer(config, app.state.service)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    t_end = time.monotonic() + start_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > t_end:
            raise RuntimeError(f"the server on {host}:{port} did not start")
        time.sleep(0.01)
    return Running(server, thread, f"http://{host}:{port}")
