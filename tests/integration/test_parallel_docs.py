"""Stage 2's documents together (``parallel_docs``, issues 16-17): the same outputs as one at a time.

In-process: the tiny random GGUF, its stage-2 calls decoded as parallel sequences of one llama.cpp
context (engine/llm/batch.py); the gates judge some of the six documents not useful. On this model
every text, token count and verdict is identical (0 of 10-11 calls differ at 2, 3, 4 or 6 at once);
the scored gate's raw P(Yes) moves by float rounding of batched evaluation on nearly every document
(at most 1.5e-5; after rounding to 4 decimals 1 of 6 gate scores differs at 6 at once), never
across the threshold. Server: llama-server with 2 slots against the in-process sequential run. Fakes: the
thread path (an LLM without ``batched``).

The same subject in other tiers: tests/unit/test_parallel_docs.py, tests/external/test_parallel_docs.py.
"""
from __future__ import annotations

import gc
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from vericite.engine.nli.batching import DynamicBatcher
from vericite.engine.errors import ConfigError
from vericite.engine.llm.grammar import YES_NO
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet

from tests.conftest import TINY_GGUF
from tests.fakes import WordChecker
from tests.integration.test_llm_decoding import CASES
from tests.unit.test_pipeline_rules import Q
from tests.unit.test_parallel_docs import ALL, calls, verdicts


N_CTX = 1024
PIPELINES = {  # name: (prompt set, settings); thresholds chosen so that some documents are judged not useful
    "grammar-gate": ("paper-en-kv", Settings(schedule="sequential", citation_grammar=True)),
    "scored-gate": ("compact-en", Settings(schedule="sequential", citation_grammar=True, gate="scored",
                                           gate_threshold=0.3)),
    "relative-gate": ("compact-en", Settings(schedule="sequential", gate="relative", gate_threshold=0.5)),
}
WIDTHS = (2, 3, 6)


def gate_scores(result):
    return [c.score for c in result.stages[1].llm_calls if c.purpose.startswith("gate")]


def answer(llm, name, checker=None, **changes):
    prompts, settings = PIPELINES[name]
    llm_reset = getattr(llm, "reset_cache", None)
    if llm_reset:
        llm_reset()
    pipe = VeriCite(llm, checker or WordChecker(), prompts=PromptSet.load(prompts), settings=replace(settings, **changes))
    return pipe.answer(Q, ALL)


@pytest.fixture(scope="module")
def results():
    """Every in-process run (sequential, then each width), and the batched calls of CASES; the model
    is freed before the server test starts its own llama.cpp."""
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

    llm = LlamaCppLLM(TINY_GGUF, n_ctx=N_CTX, n_threads=1)  # 1 thread: robust on a busy 2-core machine
    out = {"cases": _cases(llm)}  # first: its first session makes the batch context (256 cells)
    out.update({name: {n: answer(llm, name, parallel_docs=n) for n in (1, *WIDTHS)} for name in PIPELINES})
    batcher = DynamicBatcher(WordChecker())
    try:  # the overlap schedule: facts checked in the batcher's thread while other documents decode
        out["overlap"] = {n: answer(llm, "grammar-gate", checker=batcher, schedule="overlap", parallel_docs=n)
                          for n in (1, 3)}
    finally:
        batcher.close()
    out["stats"] = dict(llm.stats)
    del llm
    gc.collect()
    return out


def _cases(llm):
    """CASES (chat with and without grammar, completion prompts, a cut by max_tokens) one at a time
    and batched in 1, 2 and 8 slots (8 also in a KV buffer too small for all: calls wait for room),
    each with a scored call on the same prompt."""
    ref = []
    for m, g, n in CASES:
        llm.reset_cache()
        c = llm.chat(m, max_tokens=n, purpose="t", grammar=g)
        llm.reset_cache()
        ref.append((c, llm.yes_probability(m, purpose="s")))
    got = {}
    # 256 cells: a few calls fit at a time; then the context is remade larger (and serves 1 and 2 slots)
    for slots, cells in ((8, 256), (1, None), (2, None), (8, None)):
        session = llm.batched(slots=slots, clients=len(CASES), cells=cells)

        def work(k):
            m, g, n = CASES[k]
            with session.client(k):
                return session.chat(m, max_tokens=n, purpose="t", grammar=g), session.yes_probability(m, purpose="s")
        with session, ThreadPoolExecutor(len(CASES)) as pool:
            got[slots, cells] = list(pool.map(work, range(len(CASES)))), session.peak
    return ref, got


@pytest.mark.parametrize("name", list(PIPELINES))
@pytest.mark.parametrize("n", WIDTHS)
def test_parallel_documents_equal_sequential(results, name, n):
    seq, par = results[name][1], results[name][n]
    gates = [c.text for c in seq.stages[1].llm_calls if c.purpose.startswith("gate")]
    assert "No" in gates and "Yes" in gates, gates  # some documents judged not useful, some useful
    assert par.answer == seq.answer
    assert calls(par) == calls(seq)
    assert verdicts(par) == verdicts(seq)
    assert par.stages[1].notes == seq.stages[1].notes and par.stages[1].nli_pairs == seq.stages[1].nli_pairs
    assert all(abs(a - b) <= 1e-3 for a, b in zip(gate_scores(par), gate_scores(seq)) if a is not None)


def test_scored_gate_rounding_is_small(results):
    """P(Yes) of the batched scored gate: float rounding only (counted here, never hidden)."""
    for name in ("scored-gate", "relative-gate"):
        seq = gate_scores(results[name][1])
        for n in WIDTHS:
            diffs = [abs(a - b) for a, b in zip(gate_scores(results[name][n]), seq)]
            assert max(diffs) <= 1e-3, (name, n, diffs)


def test_overlap_schedule_equals_sequential(results):
    seq, par = results["overlap"][1], results["overlap"][3]
    assert par.answer == seq.answer and calls(par) == calls(seq) and verdicts(par) == verdicts(seq)


def test_batched_calls_record_what_sequential_calls_do(results):
    par = results["grammar-gate"][3]
    ev = par.stages[1].llm_calls
    for c in ev:
        assert 0 < c.prompt_tokens_computed <= c.prompt_tokens and c.wall_ms > 0
        assert c.prompt_eval_ms >= 0 and c.generation_ms >= 0 and c.finish_reason in {"stop", "length"}
        if c.purpose.startswith("gate"):
            assert c.text in {"Yes", "No"}  # the Yes/No grammar, per sequence
    # a document's extraction reuses its gate's prompt (paper-en-kv: the document comes first)
    assert any(c.purpose.startswith("extract") and c.prompt_tokens_computed < c.prompt_tokens / 2 for c in ev)
    scored = results["scored-gate"][3].stages[1].llm_calls
    assert all(c.finish_reason == "scored" and c.completion_tokens == 0 and c.score is not None
               for c in scored if c.purpose.startswith("gate"))
    assert results["stats"]["batch_steps"] > 0 and results["stats"]["batch_rows"] > results["stats"]["batch_steps"]
    # the stage-2 timeline has overlapping LLM spans (several documents in flight at once)
    spans = sorted((s.start_ms, s.end_ms) for s in par.timeline if s.kind == "llm" and s.label.startswith("gate"))
    assert any(b[0] < a[1] for a, b in zip(spans, spans[1:]))


def test_batched_session_equals_one_at_a_time(results):
    ref, got = results["cases"]
    assert got[8, None][1] == len(CASES) and got[8, 256][1] < len(CASES) and got[1, None][1] == 1
    for slots, (out, _) in got.items():
        for k, ((c, (p, s)), (bc, (bp, bs))) in enumerate(zip(ref, out)):
            assert (bc.text, bc.finish_reason, bc.completion_tokens, bc.prompt_tokens) == \
                (c.text, c.finish_reason, c.completion_tokens, c.prompt_tokens), (slots, k)
            assert abs(bp - p) < 1e-4 and bs.text == s.text and bs.finish_reason == "scored", (slots, k)


def test_bad_grammar_and_client_rules():
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

    llm = LlamaCppLLM(TINY_GGUF, n_ctx=256, n_threads=1)
    session = llm.batched(slots=2, clients=2)
    msgs = [{"role": "user", "content": "Is it?"}]

    def work(k):
        with session.client(k):
            if k == 0:
                with pytest.raises(ConfigError, match="parse the GBNF"):
                    session.chat(msgs, max_tokens=4, purpose="bad", grammar="root ::= (")
            return session.chat(msgs, max_tokens=2, purpose="gate", grammar=YES_NO).text
    with session, ThreadPoolExecutor(2) as pool:
        texts = list(pool.map(work, range(2)))
    assert texts[0] == texts[1] and texts[0] in {"Yes", "No"}
    with pytest.raises(RuntimeError, match="session.client"):
        llm.batched(slots=1, clients=1).chat(msgs, max_tokens=2, purpose="x")
    with pytest.raises(ConfigError, match="slots"):
        llm.batched(slots=0, clients=1)
