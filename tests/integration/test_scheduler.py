"""The overlap schedule and KV-cache anchors on the tiny real GGUF.

The same subject in other tiers: tests/unit/test_scheduler.py.
"""
from __future__ import annotations

import pytest

from vericite.engine.nli.batching import DynamicBatcher
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet

from tests.conftest import TINY_GGUF
from tests.unit.test_pipeline_rules import DOCS, Q
from tests.unit.test_scheduler import _verdicts
from tests.unit import test_scheduler as unit_part

checker = unit_part.checker  # fixture shared with tests/unit/test_scheduler.py


@pytest.fixture(scope="module")
def tiny():
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

    return LlamaCppLLM(TINY_GGUF, n_ctx=1024, n_threads=2, anchor_min_tokens=64)


def test_kv_anchor_restores_a_shared_prefix_with_identical_output(tiny):
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

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
