"""ALCE citation scores and the LLM checkers on real models: the default checker
(models/) and the tiny GGUF (tests/data).

The same subject in other tiers: tests/unit/test_alce.py, tests/lab/test_alce.py.
"""
from __future__ import annotations

import numpy as np
from vericite.bench.alce import Rules, citation_scores
from vericite.bench.methods import (
    with_checker,
)
from vericite.engine import records as R
from vericite.bench.llm_checker import (
    AcceptAll,
    LLMBatchChecker,
    LLMGradedChecker,
    LLMYesNoChecker,
)
from vericite.engine.records import Document

from tests.conftest import TINY_GGUF
from tests.unit.test_pipeline_rules import ScriptedLLM
from tests.unit.test_alce import DOCS


def test_real_checker_entailment(checker):
    docs = [Document("Neil Peart", "Neil Peart was a Canadian musician. He was the drummer of the rock band Rush."),
            Document("Keith Moon", "Keith Moon was an English drummer of the rock band The Who.")]
    good = citation_scores("Neil Peart was the drummer of Rush [1].", docs, checker.scores, Rules(0.7))
    bad = citation_scores("Neil Peart was the drummer of Rush [2].", docs, checker.scores, Rules(0.7))
    assert good.recall == 1.0 and good.precision == 1.0
    assert bad.recall == 0.0 and bad.precision == 0.0


# -- checkers ----------------------------------------------------------------------------------
def test_accept_all_keeps_what_nli_would_drop(checker):
    from vericite.engine.pipeline import Settings, VeriCite
    from vericite.engine.prompts import PromptSet

    replies = {"answer": "Keith Moon was the drummer of Rush [1].", "gate": "No",
               "refine": "Keith Moon was the drummer of Rush [1]."}
    q = "Who drummed for Rush?"
    pipe = VeriCite(ScriptedLLM(replies), checker, prompts=PromptSet.load("paper-en"), settings=Settings(threshold=0.7))
    assert pipe.answer(q, DOCS[:2]).answer == ""
    ablated = with_checker(pipe, AcceptAll())
    res = ablated.answer(q, DOCS[:2])
    assert res.answer == "Keith Moon was the drummer of Rush [1]." and res.final[0].verdict == R.SUPPORTED


def test_llm_checkers_on_tiny_gguf():
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

    llm = LlamaCppLLM(TINY_GGUF, n_ctx=512, n_threads=2)
    pairs = [("Neil Peart was the drummer of Rush. " * 40, "Peart drummed for Rush."), ("Rush is a band.", "Rush is a band.")]
    yn = LLMYesNoChecker(llm).scores(pairs)
    assert yn.shape == (2,) and yn.dtype == np.float32 and ((yn >= 0) & (yn <= 1)).all()
    batch = LLMBatchChecker(llm, batch=5)
    assert set(batch.scores(pairs).tolist()) <= {0.0, 1.0} and batch.stats["format_warnings"] == 0
    graded = LLMGradedChecker(llm, keep=3)
    assert set(graded.scores(pairs).tolist()) <= {0.0, 0.5, 0.75, 1.0} and graded.stats["format_warnings"] == 0
