"""The stage rules on the real default checker (nli-minilm-l6-bin-int8, carried in models/): the
same scripted LLM as tests/unit/test_pipeline_rules.py, real P(entailment) scores.

These test the model, by name: a checker change that breaks them is a quality change to measure,
not a rule change.
"""
from __future__ import annotations

from vericite.engine import records as R
from vericite.engine.pipeline import VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.config.settings import Settings

from tests.fakes import ScriptedLLM
from tests.unit.test_pipeline_rules import DOCS, Q, by_verdict


def test_minilm_keeps_supported_statements_and_drops_the_wrong_band(checker):
    llm = ScriptedLLM({
        "answer": ("Rush released the song Counterparts in 1993 [2]. "
                   "Neil Peart was inducted into the Modern Drummer Hall of Fame in 1983 [1][2]. "
                   "Keith Moon was the drummer of Rush [3]."),
        "gate:1": "Yes", "gate": "No",
        "extract:1": "Neil Peart was the drummer of Rush. Keith Moon played drums for Rush.",
        "refine": "Rush released Counterparts in 1993 [2]. Keith Moon drummed for Rush [3].",
    })
    res = VeriCite(llm, checker, prompts=PromptSet.load("paper-en"), settings=Settings(threshold=0.7)).answer(Q, DOCS)
    s1 = by_verdict(res.stages[0])
    assert s1[R.DROPPED_NLI] == ["Keith Moon was the drummer of Rush."]
    assert len(s1[R.KEPT]) == 2  # including the two-document citation
    s2 = by_verdict(res.stages[1])
    assert s2[R.KEPT] == ["Neil Peart was the drummer of Rush."] and s2[R.DROPPED_NLI] == ["Keith Moon played drums for Rush."]
    # the refinement dropped stage 1's verified Hall of Fame statement: the backbone puts it back, checked
    assert [s.verdict for s in res.stages[2].statements] == [R.SUPPORTED, R.SUPPORTED, R.UNSUPPORTED]
    # document 2 does not carry the Hall of Fame sentence (document 1 alone entails it): citation 2 removed
    assert [(s.citations, s.removed) for s in res.stages[0].statements] == [((2,), ()), ((1,), (2,)), ((3,), ())]
    assert res.answer == ("Neil Peart was inducted into the Modern Drummer Hall of Fame in 1983 [1]. "
                          "Rush released Counterparts in 1993 [2].")  # strict: the failed sentence removed
