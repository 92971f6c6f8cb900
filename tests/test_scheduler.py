"""The overlap schedule: stage 3 waits for every check, results equal the sequential order,
checker failures surface, and KV-cache anchors on a tiny real model."""
from __future__ import annotations

import threading
import time

import pytest

from vericite.engine import records as R
from vericite.engine.batching import DynamicBatcher
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet

from .conftest import TINY_GGUF
from .fakes import ScriptedLLM, WordChecker
from .test_pipeline_rules import DOCS, Q

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


@pytest.fixture(scope="module")
def tiny():
    from vericite.engine.llm import LlamaCppLLM

    return LlamaCppLLM(TINY_GGUF, n_ctx=1024, n_threads=2, anchor_min_tokens=64)


def test_kv_anchor_restores_a_shared_prefix_with_identical_output(tiny):
    from vericite.engine.llm import LlamaCppLLM

    shared = "References:\n" + "".join(f"Document [{i}]: the drummer of band {i} was born in {1950 + i}.\n" for i in range(8))
    first = [{"role": "user", "content": shared + "Question: who?\nAnswer:"}]
    other = [{"role": "user", "content": "Something unrelated entirely."}]
    later = [{"role": "user", "content": shared + "Question: who?\nSummarise the statements.\nAnswer:"}]
    tiny.chat(first, max_tokens=4, purpose="answer")      # long prompt: anchored
    tiny.chat(other, max_tokens=4, purpose="gate:1")       # overwrites the live KV cache
    reused = tiny.chat(later, max_tokens=8, purpose="refine")
    assert reused.prompt_tokens_computed < reused.prompt_tokens / 2  # the documents came from the anchor
    fresh = LlamaCppLLM(TINY_GGUF, n_ctx=1024, n_threads=2, reuse_prefix=False)
    scratch = fresh.chat(later, max_tokens=8, purpose="refine")
    assert scratch.prompt_tokens_computed == scratch.prompt_tokens
    assert reused.text == scratch.text


def test_tiny_model_pipeline_same_answer_in_both_orders(tiny, checker):
    """The real llama.cpp path: reference (no KV reuse, inline NLI) vs scheduled (anchors, queue)."""
    tiny.reuse_prefix = False
    seq = VeriCite(tiny, checker, prompts=PromptSet.load("paper-en-kv"),
                   settings=Settings(schedule="sequential", citation_grammar=True)).answer(Q, DOCS)
    tiny.reuse_prefix = True
    with DynamicBatcher(checker) as batcher:
        sch = VeriCite(tiny, batcher, prompts=PromptSet.load("paper-en-kv"),
                       settings=Settings(schedule="overlap", citation_grammar=True)).answer(Q, DOCS)
    assert _verdicts(seq) == _verdicts(sch) and seq.answer == sch.answer
    computed = [sum(c.prompt_tokens_computed for c in st.llm_calls) for st in sch.stages]
    submitted = [st.prompt_tokens for st in sch.stages]
    assert computed[1] < submitted[1]  # stage 2 reused shared prefixes
    assert all(c.prompt_tokens_computed == c.prompt_tokens for st in seq.stages for c in st.llm_calls)
