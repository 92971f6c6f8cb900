"""How long a request thread stays busy after its deadline (issue 31), on the fake-backed service
(tests/serve_fake.py) on loopback: a 30 s LLM call (10 ms tokens), 20 documents of 20,000
characters, one 1 MB document on one line (the service's limits raised for it); and on the tiny
GGUF, the delay from a stop to the end of a greedy generation.

`python -m tests.stop_latency [--no-tiny]` (from the repository root) prints one line per case:
the status, and the seconds from the deadline until the worker is free (5 ms polls). No model beyond the tiny GGUF is loaded.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time

import httpx
from vericite.engine.records import Document
from vericite.engine.service.app import create_app
from vericite.engine.service.limits import Limits
from vericite.engine.service.server import serve_in_thread

from .serve_fake import SLOW, fake_pipeline
from .unit.test_cancel import body, long_documents
from .unit.test_pipeline_rules import DOCS, Q


def busy_after_deadline(payload: dict, deadline_s: float, limits: Limits) -> tuple[int, float, float]:
    """(status, seconds to the answer, seconds from the deadline until no request thread is busy)."""
    pipe = fake_pipeline(slow_s=30)
    with serve_in_thread(create_app(pipe, limits=limits)) as srv, httpx.Client(base_url=srv.url, timeout=120) as c:
        adm = srv.server.service.admission
        c.post("/v1/answer", json=body())  # warm
        t0 = time.monotonic()
        r = c.post("/v1/answer", json={**payload, "options": {"deadline_s": deadline_s}})
        t1 = time.monotonic()
        while adm.running and time.monotonic() < t1 + 120:
            time.sleep(0.005)
        return r.status_code, t1 - t0, time.monotonic() - (t0 + deadline_s)


def tiny_stop_delay(after_s: float = 0.3) -> float | None:
    """Seconds from a stop (``after_s`` into a long greedy generation on the tiny GGUF, under a
    grammar: the own loop) until the call raises; None when it ended before the stop."""
    from vericite.engine import cancel
    from vericite.engine.errors import Cancelled
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

    from .conftest import TINY_GGUF

    llm = LlamaCppLLM(TINY_GGUF, n_ctx=4096, n_threads=1)
    stop = threading.Event()
    stopped_at: list[float] = []

    def check() -> None:
        if stop.is_set():
            raise Cancelled("stopped")

    def fire() -> None:
        stopped_at.append(time.monotonic())
        stop.set()

    threading.Timer(after_s, fire).start()
    msg = [{"role": "user", "content": "Write a long story about a band and its drummer."}]
    with cancel.stop_when(check):
        try:
            llm.chat(msg, max_tokens=3500, purpose="long", grammar='root ::= [a-z ]+ "."')
        except Cancelled:
            return time.monotonic() - stopped_at[0]
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.stop_latency", description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-tiny", action="store_true", help="skip the tiny GGUF case")
    args = ap.parse_args(argv)
    one_line = " ".join(f"Sentence {i} tells about the band and its drummer." for i in range(25_000))[:1_000_000]
    cases = [
        ("a 30 s LLM call, deadline 1 s", body(question=f"{Q} {SLOW}"), 1.0, Limits(workers=1, timeout_s=120)),
        ("20 documents of 20,000 characters, deadline 0.2 s", body(docs=long_documents()), 0.2,
         Limits(workers=1, timeout_s=120)),
        ("a 1 MB document on one line, deadline 0.5 s", body(docs=[Document("long", one_line), *DOCS]), 0.5,
         Limits(workers=1, timeout_s=120, max_doc_chars=1_100_000, max_body_bytes=4 * 1024 * 1024)),
    ]
    for name, payload, deadline, limits in cases:
        status, answered, busy = busy_after_deadline(payload, deadline, limits)
        print(f"{name}: HTTP {status} after {answered:.2f} s; worker free {busy:.2f} s after the deadline", flush=True)
    if not args.no_tiny:
        delay = tiny_stop_delay()
        print("tiny GGUF greedy generation stopped 0.3 s in: " +
              (f"raised {delay:.4f} s after the stop" if delay is not None else "it ended before the stop"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
