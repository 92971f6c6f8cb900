"""Length-bucketed batch planning, the dynamic batcher under concurrency, and the score cache.

The same subject in other tiers: tests/integration/test_batching.py.
"""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from vericite.engine.nli.batching import DynamicBatcher, plan_batches
from vericite.engine.errors import ConfigError, InferenceError
from vericite.engine.nli.cache import ScoreCache


def test_plan_batches_covers_every_row_once_within_budget():
    rng = random.Random(0)
    lengths = [rng.randint(1, 300) for _ in range(500)]
    batches = plan_batches(lengths, max_tokens=2048, max_batch=16)
    flat = [i for b in batches for i in b]
    assert sorted(flat) == list(range(500))
    for b in batches:
        assert len(b) <= 16
        assert len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 2048
    widths = [lengths[i] for i in flat]
    assert widths == sorted(widths)  # length bucketing: neighbours have similar lengths
    assert plan_batches([5000], max_tokens=100) == [[0]]  # an over-budget row still runs alone
    with pytest.raises(ValueError):
        plan_batches([1], max_tokens=0)


class Failing:
    name = "failing"

    def __init__(self):
        self.calls = 0

    def scores(self, pairs):
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("ONNX Runtime exploded")
        return np.full(len(pairs), 0.25, dtype=np.float32)


def test_checker_failure_reaches_the_caller_and_worker_survives():
    with DynamicBatcher(Failing()) as batcher:
        with pytest.raises(RuntimeError, match="exploded"):
            batcher.scores([("p", "h")])
        assert batcher.scores([("p", "h2")]).tolist() == [0.25]


class Slow:
    name = "slow"

    def scores(self, pairs):
        time.sleep(0.05)
        return np.ones(len(pairs), dtype=np.float32)


def test_close_finishes_queued_work_and_refuses_new():
    batcher = DynamicBatcher(Slow(), max_pairs=1)
    futs = [batcher.submit([("p", f"h{i}")]) for i in range(5)]
    batcher.close()
    assert all(f.done() and f.result().tolist() == [1.0] for f in futs)
    assert not batcher._thread.is_alive()
    with pytest.raises(InferenceError, match="closed"):
        batcher.submit([("p", "h")])
    assert batcher.submit([]).result().shape == (0,)


def test_cache_lru_bound_disk_store_and_model_id(tmp_path):
    db = tmp_path / "nli.sqlite"
    a = ScoreCache("model-a", max_entries=2, path=db)
    a.put_many([("p", "1"), ("p", "2"), ("p", "3")], [0.1, 0.2, 0.3])
    assert len(a) == 2                                 # LRU bound in memory
    assert a.get_many([("p", "1")]) == [pytest.approx(0.1)]  # evicted from memory, served by sqlite
    assert a.disk_hits == 1
    a.close()
    b = ScoreCache("model-a", path=db)                 # a rerun: every score already on disk
    assert b.get_many([("p", "2"), ("p", "3"), ("p", "4")]) == [pytest.approx(0.2), pytest.approx(0.3), None]
    assert (b.hits, b.misses) == (2, 1)
    other = ScoreCache("model-b", path=db)             # another model never sees these scores
    assert other.get_many([("p", "2")]) == [None]
    with pytest.raises(ConfigError):
        ScoreCache("m", max_entries=0)


def test_one_requests_bad_pair_fails_only_that_request():
    """Several requests in one step; the checker fails on one request's pair: the others get their scores."""
    class Picky:
        name = "picky"

        def __init__(self):
            self.calls = 0

        def scores(self, pairs):
            self.calls += 1
            if any("BAD" in h for _, h in pairs):
                raise ValueError("cannot read this pair")
            return np.array([0.5] * len(pairs), dtype=np.float32)

    picky = Picky()
    with DynamicBatcher(picky, max_wait_ms=200) as b:
        futures = [b.submit([("premise", f"good {k}")]) for k in range(3)] + [b.submit([("premise", "BAD one")])]
        results = [f.exception(timeout=10) or f.result() for f in futures]
    assert [float(r[0]) for r in results[:3]] == [0.5, 0.5, 0.5]
    assert isinstance(results[3], ValueError)
    assert b.stats["steps"] == 1 and picky.calls == 5  # the step, then each request alone
