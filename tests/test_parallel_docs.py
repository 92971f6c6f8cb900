"""Stage 2's documents together (``parallel_docs``, issues 16-17): the same outputs as one at a time.

In-process: the tiny random GGUF, its stage-2 calls decoded as parallel sequences of one llama.cpp
context (engine/llm_batch.py); the gates judge some of the six documents not useful. On this model
every text, token count and verdict is identical (0 of 10-11 calls differ at 2, 3, 4 or 6 at once);
the scored gate's raw P(Yes) moves by float rounding of batched evaluation on nearly every document
(at most 1.5e-5; after rounding to 4 decimals 1 of 6 gate scores differs at 6 at once), never
across the threshold. Server: llama-server with 2 slots against the in-process sequential run. Fakes: the
thread path (an LLM without ``batched``).
"""
from __future__ import annotations

import gc
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from vericite.engine import settings as S
from vericite.engine.batching import DynamicBatcher
from vericite.engine.errors import ConfigError
from vericite.engine.grammar import YES_NO
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Document

from .conftest import TINY_GGUF
from .fakes import ScriptedLLM, WordChecker
from .test_llm_decoding import CASES
from .test_pipeline_rules import DOCS, Q

MORE = [Document("Rush (band)", "Rush was a Canadian rock band formed in Toronto in 1968. Its drummer was Neil Peart."),
        Document("Moving Pictures", "Moving Pictures is the eighth studio album by Rush, released in 1981."),
        Document("The Who", "The Who are an English rock band formed in London in 1964.")]
ALL = DOCS + MORE
N_CTX = 1024
PIPELINES = {  # name: (prompt set, settings); thresholds chosen so that some documents are judged not useful
    "grammar-gate": ("paper-en-kv", Settings(schedule="sequential", citation_grammar=True)),
    "scored-gate": ("compact-en", Settings(schedule="sequential", citation_grammar=True, gate="scored",
                                           gate_threshold=0.3)),
    "relative-gate": ("compact-en", Settings(schedule="sequential", gate="relative", gate_threshold=0.5)),
}
WIDTHS = (2, 3, 6)


def calls(result):
    return [(c.purpose, c.text, c.prompt_tokens, c.completion_tokens, c.finish_reason)
            for st in result.stages for c in st.llm_calls]


def verdicts(result):
    return [(s.stage, s.text, s.citations, s.verdict, s.score) for st in result.stages for s in st.statements] + \
        [(s.text, s.citations, s.verdict) for s in result.final]


def outcomes(result):
    return [(s.stage, s.citations, s.verdict) for st in result.stages for s in st.statements] + \
        [(s.citations, s.verdict) for s in result.final]


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
    from vericite.engine.llm import LlamaCppLLM

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
    from vericite.engine.llm import LlamaCppLLM

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


# -- the thread path, on fakes ---------------------------------------------------------------------
REPLIES = {"answer": "Rush released Counterparts [2].", "gate": "Yes",
           "extract": "Neil Peart was the drummer of the rock band Rush.", "extract:4": "Rush was formed in Toronto.",
           "refine": "Rush released Counterparts [2]. Neil Peart was the drummer of the rock band Rush [1]."}
GATES = {"grammar": {"gate:2": "No", "gate:5": "No"},  # the Yes/No reply, or P(Yes) for the scored gates
         "scored": {"p_yes": 0.8, "gate:3": 0.2, "gate:6": 0.1},
         "relative": {"p_yes": 0.8, "gate:3": 0.2, "gate:6": 0.1}}


@pytest.mark.parametrize("gate", ["grammar", "scored", "relative"])
def test_fakes_parallel_equals_sequential(gate):
    def run(n):
        llm = ScriptedLLM({**REPLIES, **GATES[gate]})
        pipe = VeriCite(llm, WordChecker(), prompts=PromptSet.load("paper-en"),
                        settings=Settings(gate=gate, claim_words=0, parallel_docs=n))
        return pipe.answer(Q, ALL)
    seq = run(1)
    assert sum("judged not useful" in n for n in seq.stages[1].notes) == 2  # two documents
    for n in (2, 4, 8):
        par = run(n)
        assert par.answer == seq.answer and calls(par) == calls(seq) and verdicts(par) == verdicts(seq), n
        assert par.stages[1].notes == seq.stages[1].notes


def test_one_at_a_time_never_batches():
    """parallel_docs = 1 is the sequential path: no batch session, no threads."""
    class NoBatch(ScriptedLLM):
        def batched(self, **kw):
            raise AssertionError("batched() called with parallel_docs = 1")

    import threading
    llm = NoBatch({**REPLIES, **GATES["grammar"]})
    seen = set()
    chat = llm.chat

    def chat_here(*a, **kw):
        seen.add(threading.current_thread().name)
        return chat(*a, **kw)
    llm.chat = chat_here
    VeriCite(llm, WordChecker(), prompts=PromptSet.load("paper-en"), settings=Settings(claim_words=0)).answer(Q, ALL)
    assert seen == {threading.current_thread().name}


def test_parallel_docs_setting():
    assert S.default("parallel_docs") == 1
    assert S.check("parallel_docs", 4, "--parallel-docs") == 4
    with pytest.raises(ConfigError, match="--parallel-docs = 0: must be >= 1"):
        S.check("parallel_docs", 0, "--parallel-docs")


# -- llama-server with 2 slots ---------------------------------------------------------------------
def test_server_with_two_slots_equals_in_process_sequential(results):
    """Stage 2's calls sent concurrently to a 2-slot llama-server: the same calls and answer as the
    same server one call at a time, and as the in-process sequential run up to the one known
    difference of the server backend (engine/openai_llm.py): at the max_tokens cap llama-cpp-python
    decodes on while its text ends inside a UTF-8 character, the server stops (its text is then a
    prefix). On these six documents that is exactly one extraction per prompt set."""
    pytest.importorskip("httpx")
    from vericite.engine.openai_llm import OpenAICompatLLM

    from .test_openai_llm import LlamaServer

    srv = LlamaServer(ctx=2 * N_CTX, parallel=2, threads=1)  # each slot gets the whole N_CTX
    try:
        for name in ("grammar-gate", "scored-gate"):
            got = {}
            for n in (1, 2):
                with OpenAICompatLLM(srv.url, model="tiny", tokenizer_gguf=TINY_GGUF, n_ctx=N_CTX, n_probs=768) as lm:
                    got[n] = answer(lm, name, parallel_docs=n)
            assert calls(got[2]) == calls(got[1]) and verdicts(got[2]) == verdicts(got[1]), name
            ref = results[name][1]
            assert got[2].answer == ref.answer, name
            # the same verdicts (a fact of the cut extraction reads as its prefix)
            assert outcomes(got[2]) == outcomes(ref), name
            differ = [(a, b) for a, b in zip(calls(ref), calls(got[2])) if a != b]
            assert len(calls(ref)) == len(calls(got[2])) and len(differ) == 1, (name, differ)
            for a, b in differ:  # in-process ran past the cap inside a character; the server's text is its prefix
                assert a[0] == b[0] and a[3] > b[3] and b[4] == "length" and a[1].startswith(b[1]), (a, b)
            assert all(abs(a - b) <= 1e-3 for a, b in zip(gate_scores(got[2]), gate_scores(ref)) if a is not None)
    finally:
        srv.stop()


# -- vericite bench latency: the parallel mode's totals (no GGUF) ---------------------------------
def test_bench_latency_parallel_summary():
    from vericite.bench import latency as L
    from vericite.engine.records import STAGES

    def row(wall, answer, texts, s2_wall):
        stages = {s: L._with_rates({**dict.fromkeys(L.SUM_KEYS, 0.0), "wall_ms": s2_wall if s == "evidence" else 100.0,
                                    "generated_tokens": 50.0}) for s in STAGES}
        return {"wall_s": wall, "llm_busy_s": wall, "cache_hits": 0, "answer": answer, "trace": [[answer]],
                "stage2_texts": texts, "stages": stages}
    items = [{"scheduled": row(4.0, "A", [["gate:1", "Yes"], ["extract:1", "x"]], 2000.0),
              "parallel": row(3.0, "A", [["gate:1", "Yes"], ["extract:1", "x"]], 1000.0)},
             {"scheduled": row(4.0, "B", [["gate:1", "Yes"], ["extract:1", "y"]], 2000.0),
              "parallel": row(3.0, "C", [["gate:1", "Yes"], ["extract:1", "z"]], 1000.0)}]
    s = L.summarise(items, ("scheduled", "parallel"))
    assert (s["wall_s_parallel"], s["parallel_speedup"], s["stage2_parallel_speedup"]) == (6.0, 1.333, 2.0)
    assert (s["identical_answers_parallel"], s["identical_traces_parallel"]) == (1, 1)
    assert (s["stage2_texts_differing_parallel"], s["stage2_calls"]) == (1, 4)
    assert s["per_stage"]["parallel"]["evidence"]["stage_tokens_per_s"] == 50.0
    assert L._union_s([(0, 1000), (500, 1500), (2000, 2500)]) == 2.0
    md = L.markdown(s, {"data": "d", "llm": "m", "llm_threads": 1, "nli": "n", "nli_threads": 1, "ep": "cpu",
                        "prompts": "p", "parallel_docs": 4})
    assert "| stage2_parallel_speedup | 2.0 |" in md and "parallel docs 4" in md
    assert L._modes("parallel,scheduled") == ("scheduled", "parallel")
