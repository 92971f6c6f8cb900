"""Stage 2's documents together (``parallel_docs``) on fakes: the thread path (an LLM
without ``batched``) gives the same outputs as one at a time; `bench latency`'s
parallel summary.

The same subject in other tiers: tests/integration/test_parallel_docs.py, tests/external/test_parallel_docs.py.
"""
from __future__ import annotations

import pytest

from vericite.engine.config import settings as S
from vericite.engine.errors import ConfigError
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Document

from tests.fakes import ScriptedLLM, WordChecker
from tests.unit.test_pipeline_rules import DOCS, Q


MORE = [Document("Rush (band)", "Rush was a Canadian rock band formed in Toronto in 1968. Its drummer was Neil Peart."),
        Document("Moving Pictures", "Moving Pictures is the eighth studio album by Rush, released in 1981."),
        Document("The Who", "The Who are an English rock band formed in London in 1964.")]
ALL = DOCS + MORE


def calls(result):
    return [(c.purpose, c.text, c.prompt_tokens, c.completion_tokens, c.finish_reason)
            for st in result.stages for c in st.llm_calls]


def verdicts(result):
    return [(s.stage, s.text, s.citations, s.verdict, s.score) for st in result.stages for s in st.statements] + \
        [(s.text, s.citations, s.verdict) for s in result.final]


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
