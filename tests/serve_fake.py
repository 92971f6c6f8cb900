"""A fake-backed VeriCite service for tests and load-test demos: the scripted LLM and the
word-containment checker (tests/fakes.py) behind a real DynamicBatcher and ScoreCache, with
optional delays (a slow LLM whose calls take turns, as llama.cpp's do; a slow checker).

`python -m tests.serve_fake --port 8000 [--llm-delay 0.05] [--nli-delay 0.02] [--slow-s 0.2]` serves it on
127.0.0.1 until SIGTERM (run from the repository root), answering only requests whose Host header names a
loopback host, as `vericite serve` on loopback does. No model is loaded.
"""
from __future__ import annotations

import argparse
import logging
import re
import sys
import threading
import time

from vericite.engine import cancel
from vericite.engine.errors import ConfigError, InferenceError, InputError
from vericite.engine.nli.batching import DynamicBatcher
from vericite.engine.nli.cache import ScoreCache
from vericite.engine.pipeline import VeriCite
from vericite.engine.prompts import PromptSet

from .fakes import ScriptedLLM, WordChecker

#: Replies per call purpose for tests/unit/test_pipeline_rules.py's DOCS and Q: stage 1 keeps one
#: statement of two, document 2 is judged not useful, stage 3 writes two supported sentences.
REPLIES = {
    "answer": "Rush released the song Counterparts in 1993 [2]. Keith Moon was the drummer of Rush [3].",
    "gate:1": "Yes", "gate:2": "No", "gate:3": "Yes",
    "extract:1": "Neil Peart was the drummer of Rush. Peart was inducted into the Hall of Fame in 1983.",
    "extract:3": "Keith Moon played drums for Rush. Keith Moon was an English drummer.",
    "refine": "Rush released Counterparts in 1993 [2]. Neil Peart was the drummer of Rush [1].",
}
#: A prompt containing this makes the fake LLM decode for ``slow_s`` seconds, in 10 ms "tokens"
#: with the stop signal checked before each, as the llama.cpp backend's own loop does.
SLOW = "[slow]"
#: A pair whose premise contains this takes the fake checker ``slow_s`` seconds (it never checks).
SLOW_NLI = "[slow-nli]"
#: A question containing one of these makes the fake LLM raise it (error mapping tests).
FAILURES = {"[fail:inference]": InferenceError("llama.cpp call 'answer' failed: fake decode error"),
            "[fail:input]": InputError("fake input error"), "[fail:config]": ConfigError("fake config error"),
            "[fail:bug]": RuntimeError("a bug with a secret /path/in/the/traceback")}


class FakeLLM(ScriptedLLM):
    """ScriptedLLM whose calls take turns under one lock and take ``delay`` seconds each (``slow_s``
    for a prompt holding :data:`SLOW`, stoppable per token); counts calls per question; raises
    :data:`FAILURES` for marked questions."""

    def __init__(self, replies=REPLIES, delay: float = 0.0, slow_s: float = 0.0):
        super().__init__(dict(replies))
        self.delay = delay
        self.slow_s = slow_s
        self.tokens = 0  # "tokens" decoded by slow calls
        self.per_question: dict[str, int] = {}
        self._lock = threading.Lock()

    def chat(self, messages, *, max_tokens, purpose, grammar=None):
        text = messages if isinstance(messages, str) else "\n".join(m["content"] for m in messages)
        with self._lock:
            for mark, exc in FAILURES.items():
                if mark in text:
                    raise exc
            q = re.search(r"\(request (\d+)\)", text)
            if q:
                self.per_question[q.group(1)] = self.per_question.get(q.group(1), 0) + 1
            if self.delay:
                time.sleep(self.delay)
            if SLOW in text:
                t_end = time.monotonic() + self.slow_s
                while time.monotonic() < t_end:
                    cancel.check()  # per token, as engine/llm/greedy.py
                    self.tokens += 1
                    time.sleep(0.01)
            return super().chat(messages, max_tokens=max_tokens, purpose=purpose, grammar=grammar)


class SlowChecker(WordChecker):
    """WordChecker taking ``delay`` seconds per call (``slow_s`` when a premise holds
    :data:`SLOW_NLI`); records each call's pairs in ``calls``."""

    def __init__(self, delay: float = 0.0, slow_s: float = 0.0):
        super().__init__()
        self.delay = delay
        self.slow_s = slow_s
        self.calls: list[list[tuple[str, str]]] = []

    def scores(self, pairs):
        self.calls.append(list(pairs))
        if self.delay:
            time.sleep(self.delay)
        if any(SLOW_NLI in p for p, _ in pairs):
            time.sleep(self.slow_s)
        return super().scores(pairs)


def fake_pipeline(*, llm_delay: float = 0.0, nli_delay: float = 0.0, replies=REPLIES, slow_s: float = 0.0) -> VeriCite:
    """The fake-backed pipeline; ``slow_s``: what a :data:`SLOW` LLM call or a :data:`SLOW_NLI` check takes."""
    checker = SlowChecker(nli_delay, slow_s)
    batcher = DynamicBatcher(checker, cache=ScoreCache(checker.cache_id))
    return VeriCite(FakeLLM(replies, llm_delay, slow_s), batcher, prompts=PromptSet.load("paper-en"))


def main(argv: list[str] | None = None) -> int:
    from vericite.engine.service.app import LOOPBACK_HOSTS, create_app
    from vericite.engine.service.limits import Limits
    from vericite.engine.service.server import serve

    ap = argparse.ArgumentParser(prog="python -m tests.serve_fake", description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--llm-delay", type=float, default=0.0, help="seconds per LLM call")
    ap.add_argument("--nli-delay", type=float, default=0.0, help="seconds per checker call")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--queue-size", type=int, default=8)
    ap.add_argument("--timeout", type=float, default=Limits().timeout_s, help="per-request deadline, s")
    ap.add_argument("--slow-s", type=float, default=0.0,
                    help=f"seconds an LLM call whose prompt holds {SLOW!r} decodes (10 ms tokens)")
    ap.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    args = ap.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    app = create_app(fake_pipeline(llm_delay=args.llm_delay, nli_delay=args.nli_delay, slow_s=args.slow_s),
                     limits=Limits(workers=args.workers, queue_size=args.queue_size, timeout_s=args.timeout),
                     allowed_hosts=LOOPBACK_HOSTS)
    return serve(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    sys.exit(main())
