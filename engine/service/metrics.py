"""Prometheus metrics of one app, in its own :class:`CollectorRegistry` (several apps in one
process, as in the tests, never share counters).

Counted as they happen: requests by route and status, request latency, wall time per pipeline
stage, time waiting in the queue, LLM prompt tokens computed / reused (KV cache) and completion
tokens. Read when scraped: queue depth (and its peak), running requests, the NLI batcher's pairs,
requests and steps (mean batch size = requests or pairs per step), the score cache's hits and misses.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from ..records import LLMCall, VerifiedAnswer

SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


class Metrics:
    """The app's metrics.

    Args:
        admission: returns the :class:`~.admission.Admission` (or None before start).
        batcher: returns the NLI checker (a DynamicBatcher: ``stats``, ``cache``), or None while loading.
        routes: the paths counted by name; any other path is counted as "other".
    """

    content_type = CONTENT_TYPE_LATEST

    def __init__(self, admission: Callable[[], object], batcher: Callable[[], object], routes: set[str]):
        self.registry = CollectorRegistry()
        self.routes = routes
        r = self.registry
        self.requests = Counter("vericite_requests", "HTTP requests by route and status", ["route", "status"], registry=r)
        self.latency = Histogram("vericite_request_seconds", "HTTP request latency (s), to the last byte",
                                 ["route"], buckets=SECONDS, registry=r)
        self.stage = Histogram("vericite_stage_seconds", "wall time of each pipeline stage (s)", ["stage"],
                               buckets=SECONDS, registry=r)
        self.queue_wait = Histogram("vericite_queue_wait_seconds", "time an admitted request waited for a thread (s)",
                                    buckets=SECONDS, registry=r)
        self.prompt_tokens = Counter("vericite_llm_prompt_tokens", "LLM prompt tokens: computed, or reused from the KV cache",
                                     ["kind"], registry=r)
        self.completion_tokens = Counter("vericite_llm_completion_tokens", "LLM completion tokens", registry=r)
        self.llm_calls = Counter("vericite_llm_calls", "LLM calls", registry=r)
        r.register(_Live(admission, batcher))

    def llm_call(self, call: LLMCall) -> None:
        self.llm_calls.inc()
        self.prompt_tokens.labels("computed").inc(call.prompt_tokens_computed)
        self.prompt_tokens.labels("reused").inc(max(0, call.prompt_tokens - call.prompt_tokens_computed))
        self.completion_tokens.inc(call.completion_tokens)

    def answered(self, result: VerifiedAnswer, queue_wait_s: float) -> None:
        self.queue_wait.observe(queue_wait_s)
        for st in result.stages:
            self.stage.labels(st.name).observe(st.wall_ms / 1000)

    def text(self) -> bytes:
        return generate_latest(self.registry)

    def middleware(self, app):
        """ASGI middleware counting every HTTP request by route and status, with its latency.

        A request answered nothing because its client closed the connection first (while sending its
        body) counts as 499, "client closed request"; one the app failed without answering, as 500.
        """
        metrics = self

        async def counted(scope, receive, send):
            if scope["type"] != "http":
                return await app(scope, receive, send)
            route = scope["path"] if scope["path"] in metrics.routes else "other"
            seen = {"status": None, "left": False, "failed": False}
            t0 = time.perf_counter()

            async def listen():
                msg = await receive()
                if msg["type"] == "http.disconnect":
                    seen["left"] = True
                return msg

            async def watch(msg):
                if msg["type"] == "http.response.start":
                    seen["status"] = msg["status"]
                await send(msg)

            try:
                await app(scope, listen, watch)
            except BaseException:
                seen["failed"] = True
                raise
            finally:
                code = seen["status"] or (499 if seen["left"] and not seen["failed"] else 500)
                metrics.requests.labels(route, str(code)).inc()
                metrics.latency.labels(route).observe(time.perf_counter() - t0)

        return counted


class _Live:
    """Values read at scrape time from the admission queue, the batcher and its cache."""

    def __init__(self, admission, batcher):
        self.admission = admission
        self.batcher = batcher

    def collect(self):
        adm = self.admission()
        if adm is not None:
            yield GaugeMetricFamily("vericite_queue_depth", "requests waiting for a thread", value=adm.waiting)
            yield GaugeMetricFamily("vericite_queue_depth_peak", "largest queue depth seen", value=adm.peak_waiting)
            yield GaugeMetricFamily("vericite_queue_size", "the queue's bound (--queue-size)", value=adm.queue_size)
            yield GaugeMetricFamily("vericite_requests_running", "requests in a request thread", value=adm.running)
            yield CounterMetricFamily("vericite_requests_abandoned", "requests dropped at their deadline",
                                      value=adm.abandoned)
        b = self.batcher()
        stats = getattr(b, "stats", None)
        if stats:
            steps = stats["steps"]
            yield CounterMetricFamily("vericite_nli_pairs", "NLI pairs submitted to the batcher", value=stats["pairs"])
            yield CounterMetricFamily("vericite_nli_computed_pairs", "NLI pairs the model scored (the rest: cache, duplicates)",
                                      value=stats["computed_pairs"])
            yield CounterMetricFamily("vericite_nli_submissions", "check batches submitted to the batcher",
                                      value=stats["requests"])
            yield CounterMetricFamily("vericite_nli_steps", "batcher steps (one model call each at most)", value=steps)
            yield GaugeMetricFamily("vericite_nli_batch_submissions_mean",
                                    "mean check batches merged per batcher step (> 1: requests batched together)",
                                    value=stats["requests"] / steps if steps else 0.0)
            yield GaugeMetricFamily("vericite_nli_batch_pairs_mean", "mean NLI pairs per batcher step",
                                    value=stats["pairs"] / steps if steps else 0.0)
        cache = getattr(b, "cache", None)
        if cache is not None:
            c = cache.stats()
            yield CounterMetricFamily("vericite_nli_cache_hits", "score cache hits (pairs)", value=c["hits"])
            yield CounterMetricFamily("vericite_nli_cache_misses", "score cache misses (pairs)", value=c["misses"])
            yield GaugeMetricFamily("vericite_nli_cache_hit_rate", "score cache hits / lookups", value=c["hit_rate"])
