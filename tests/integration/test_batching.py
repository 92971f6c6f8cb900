"""The dynamic batcher and the score cache on the real default checker.

The same subject in other tiers: tests/unit/test_batching.py.
"""
from __future__ import annotations

import random
import threading

import numpy as np

from vericite.engine.nli.batching import DynamicBatcher
from vericite.engine.nli.cache import ScoreCache


PAIRS = [
    ("Neil Peart was the drummer of the Canadian rock band Rush.", "Peart played drums in Rush."),
    ("Neil Peart was the drummer of the Canadian rock band Rush.", "Peart played guitar in Rush."),
    ("Counterparts is a song by Rush, released in 1993.", "Counterparts came out in 1993."),
    ("Counterparts is a song by Rush, released in 1993.", "Counterparts came out in 2001."),
    ("The market launched in 2000 and sells electronics, clothes and food. " * 6, "The market sells food."),
    ("Keith Moon was an English drummer of The Who.", "Keith Moon was English."),
    ("A man is playing a guitar on stage.", "A man performs music."),
    ("Paris is the capital of France.", "Berlin is the capital of France."),
]


def test_concurrent_requests_match_unbatched_scores(checker):
    reference = {pair: float(checker.scores([pair])[0]) for pair in PAIRS}
    rng = random.Random(1)
    jobs = [[rng.choice(PAIRS) for _ in range(rng.randint(1, 5))] for _ in range(48)]
    results: list = [None] * len(jobs)

    with DynamicBatcher(checker, max_wait_ms=5) as batcher:
        def worker(k: int) -> None:
            futs = [(j, batcher.submit(jobs[j])) for j in range(k, len(jobs), 12)]
            for j, f in futs:
                results[j] = f.result(timeout=60)

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        stats = dict(batcher.stats)
    for job, got in zip(jobs, results):
        assert got is not None and got.dtype == np.float32 and got.shape == (len(job),)
        np.testing.assert_allclose(got, [reference[p] for p in job], atol=1e-5)
    assert stats["requests"] == len(jobs)                      # none lost, none duplicated
    assert stats["pairs"] == sum(len(j) for j in jobs)
    assert stats["steps"] < len(jobs)                          # requests were batched together
    assert stats["computed_pairs"] <= stats["steps"] * len(PAIRS)  # duplicates inside a step scored once


def test_cache_hits_skip_the_model(checker):
    cache = ScoreCache(checker.cache_id)
    with DynamicBatcher(checker, cache=cache) as batcher:
        cold = batcher.scores(PAIRS)
        computed = batcher.stats["computed_pairs"]
        warm = batcher.scores(PAIRS)
        assert batcher.stats["computed_pairs"] == computed  # nothing recomputed
    np.testing.assert_array_equal(cold, warm)
    assert cache.stats()["hits"] == len(PAIRS) and cache.stats()["misses"] == len(PAIRS)
