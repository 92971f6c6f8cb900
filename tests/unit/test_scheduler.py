"""The overlap schedule on fakes: stage 3 waits for every check, results equal the
sequential order, checker failures surface.

The same subject in other tiers: tests/integration/test_scheduler.py.
"""
from __future__ import annotations

import threading
import time

import pytest

from vericite.engine import records as R
from vericite.engine.nli.batching import DynamicBatcher
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet

from tests.fakes import ScriptedLLM, WordChecker
from tests.unit.test_pipeline_rules import DOCS, Q


REPLIES = {
    "answer": "Rush released the song Counterparts in 1993 [2]. Neil Peart was the drummer of Rush [1]. "
              "Keith Moon was the drummer of Rush [3].",
    "gate": "Yes",
    "extract:1": "Neil Peart was the drummer of the rock band Rush. He was inducted into the Hall of Fame in 1983.",
    "extract:2": "Counterparts is a song by Rush. It was released in 1993.",
    "extract:3": "Keith Moon was an English drummer.",
    "refine": "Rush released Counterparts in 1993 [2]. Peart was the drummer of Rush [1].",
}


@pytest.fixture
def checker():
    """The fake checker (overrides conftest's real one: scheduling rules need no real model)."""
    return WordChecker()


class SlowChecker:
    """A checker slowed down, recording when each scoring call ended."""

    def __init__(self, checker, delay=0.2):
        self.inner, self.delay, self.name = checker, delay, checker.name
        self.ends: list[float] = []

    def scores(self, pairs):
        time.sleep(self.delay)
        out = self.inner.scores(pairs)
        self.ends.append(time.perf_counter())
        return out


class TimedLLM(ScriptedLLM):
    def __init__(self, replies):
        super().__init__(replies)
        self.times: dict[str, float] = {}

    def chat(self, messages, *, max_tokens, purpose, grammar=None):
        self.times[purpose] = time.perf_counter()
        return super().chat(messages, max_tokens=max_tokens, purpose=purpose, grammar=grammar)


def _pipe(llm, checker, schedule):
    return VeriCite(llm, checker, prompts=PromptSet.load("paper-en-kv"), settings=Settings(schedule=schedule))


def _verdicts(res):
    return [[(s.text, s.citations, s.verdict, s.score) for s in st.statements] for st in res.stages] + \
           [[(s.text, s.verdict, s.score) for s in res.final]]


def test_stage3_waits_for_every_check_and_results_match_sequential(checker):
    slow = SlowChecker(checker)
    llm = TimedLLM(REPLIES)
    with DynamicBatcher(slow) as batcher:
        overlap = _pipe(llm, batcher, "overlap").answer(Q, DOCS)
    refine_at = llm.times["refine"]
    # every stage-1/2 check finished before the refine call started; after it come the final check,
    # one check per put-back (backbone) note and the quotes' scoring
    after = 1 + sum(n.startswith("backbone: put back") for n in overlap.stages[2].notes) + \
        any(s.quotes for s in overlap.final)
    assert len(slow.ends) > after and sorted(slow.ends)[-after - 1] <= refine_at
    assert all(t > refine_at for t in sorted(slow.ends)[-after:])
    assert any(s.kind == "wait" for s in overlap.timeline)       # the pipeline did block on NLI
    # the LLM did not wait for stage 1's check before stage 2: extraction 1 started before it ended
    assert llm.times["extract:1"] < slow.ends[0]
    sequential = _pipe(ScriptedLLM(REPLIES), checker, "sequential").answer(Q, DOCS)
    assert overlap.answer == sequential.answer
    assert _verdicts(overlap) == _verdicts(sequential)
    assert overlap.settings["schedule"] == "overlap" and sequential.settings["schedule"] == "sequential"
    kept = [s.text for s in overlap.stages[0].statements if s.verdict == R.KEPT]
    assert "Keith Moon was the drummer of Rush." not in kept


class Exploding:
    name = "exploding"

    def scores(self, pairs):
        raise RuntimeError("NLI worker failed")


def test_checker_failure_surfaces_instead_of_hanging():
    box: dict = {}
    with DynamicBatcher(Exploding()) as batcher:
        pipe = _pipe(ScriptedLLM(REPLIES), batcher, "overlap")

        def run():
            try:
                pipe.answer(Q, DOCS)
            except Exception as e:  # noqa: BLE001 - the test inspects it
                box["error"] = e

        t = threading.Thread(target=run)
        t.start()
        t.join(30)
        assert not t.is_alive(), "the pipeline hung on a failed NLI check"
    assert "NLI worker failed" in str(box.get("error"))
    assert not batcher._thread.is_alive()  # clean shutdown after the failure
