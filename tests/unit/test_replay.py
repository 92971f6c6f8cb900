"""`vericite bench replay`: recorded LLM replies through the stage rules again (bench/replay.py).

The same subject in other tiers: tests/integration/test_replay.py.
"""
from __future__ import annotations

from dataclasses import asdict

from vericite.bench.replay import Replayer
from vericite.engine.config.settings import parse_assignments
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Document

from tests.fakes import ScriptedLLM, WordChecker


DOCS = [Document("Lakers", "The Lakers won the finals six times in the 1960s and 16 times in all."),
        Document("Celtics", "The Celtics won the finals 17 times.")]
Q = "How many times have the Lakers won the finals?"
REPLIES = {"answer": "According to Document [1][2]! The Lakers won the finals 16 times [1].", "gate": "Yes",
           "extract:1": "The Lakers won the finals six times in the 1960s.", "extract:2": "The Celtics won the finals 17 times.",
           "claim": "The Lakers won the finals six times.", "refine": "The Lakers won the finals 16 times [1]."}


def recorded(checker, **settings) -> dict:
    """A `vericite run` row answered by the scripted LLM."""
    pipe = VeriCite(ScriptedLLM(REPLIES), checker, prompts=PromptSet.load("paper-en"), settings=Settings(**settings))
    res = pipe.answer(Q, DOCS)
    trace = res.to_json()
    trace.pop("documents")
    return {"id": "t0", "index": 0, "dataset": "toy", "method": "vericite", "question": Q, "output": res.answer,
            "docs": [asdict(d) for d in DOCS], "gold": {}, "seconds": 1.0, "warnings": res.warnings, "trace": trace}


def test_replay_with_the_recorded_settings_gives_the_recorded_answer_without_the_llm():
    row = recorded(WordChecker(), claim_words=5, backbone_facts=0, claim_guard=False)
    new = Replayer(checker=WordChecker()).replay(row, "again")  # recorded settings, no override
    # "six" is content: the refined answer lost stage 1's verified "six times", which is put back
    assert new["output"] == row["output"] == "The Lakers won the finals six times [1]. The Lakers won the finals 16 times [1]."
    assert new["replay"] == {"from": "vericite", "overrides": {}, "missing": [], "live": [], "stale_refine": False,
                            "same_output": True}
    assert new["method"] == "again" and new["trace"]["stages"][1]["statements"] == row["trace"]["stages"][1]["statements"]


def test_an_override_changes_what_a_rule_decides_and_says_when_stage_3_is_stale():
    row = recorded(WordChecker(), claim_words=5, backbone_facts=0, claim_guard=False)
    facts = Replayer(checker=WordChecker(), overrides={"backbone_facts": 2}).replay(row, "facts")
    assert facts["output"] == ("The Lakers won the finals six times [1]. The Lakers won the finals 16 times [1]. "
                               "The Celtics won the finals 17 times [2].")
    assert not facts["replay"]["same_output"] and not facts["replay"]["stale_refine"]
    # the guard drops the rewrite of "According to Document!" that stage 1 kept: stage 3's input changed
    guard = Replayer(checker=WordChecker(), overrides={"claim_guard": True}).replay(row, "guard")
    assert guard["replay"]["stale_refine"] and guard["replay"]["missing"] == []


def test_set_values_are_read_as_json_else_text():
    assert parse_assignments(["backbone_facts=0", "add_nothing=false", "strictness=lenient", "threshold=0.5"]) == \
        {"backbone_facts": 0, "add_nothing": False, "strictness": "lenient", "threshold": 0.5}


def test_quote_counts_count_supported_citations_and_quotes_that_pass_the_threshold():
    from vericite.bench.replay import quote_counts

    trace = {"settings": {"threshold": 0.7}, "final_check": [
        {"verdict": "supported", "citations": [1, 2], "quotes": [{"document": 1, "score": 0.9},
                                                                  {"document": 2, "score": 0.4}]},
        {"verdict": "supported", "citations": [3], "quotes": []},
        {"verdict": "unsupported", "citations": [1], "quotes": [{"document": 1, "score": 0.99}]}]}
    assert quote_counts(trace) == (3, 1)
    assert quote_counts({"settings": {"threshold": 0.7}, "final_check": None}) == (0, 0)


def test_a_select_call_over_other_sentences_than_recorded_is_asked_live():
    """The answer step's recorded picks ("Sentences: S2") number the recorded list of verified
    sentences; when a rule changed that list, a live LLM answers the new prompt, as a new run would."""
    from vericite.bench.replay import ReplayLLM

    call = {"purpose": "select", "prompt_tokens": 1, "prompt_tokens_computed": 1, "completion_tokens": 1,
            "prompt_eval_ms": 0.0, "generation_ms": 0.0, "wall_ms": 0.0, "finish_reason": "stop",
            "text": "Sentences: S2\nAnswer: 16", "score": None}
    trace = {"stages": [
        {"name": "answer", "llm_calls": [], "statements": [
            {"text": "The Lakers won the finals 16 times.", "citations": [1], "verdict": "kept"}]},
        {"name": "evidence", "llm_calls": [], "statements": [
            {"text": "The Celtics won the finals 17 times.", "citations": [2], "verdict": "kept"},
            {"text": "Rush is a band.", "citations": [2], "verdict": "dropped:not_entailed"}]},
        {"name": "refine", "llm_calls": [call], "statements": []}]}
    same = [{"role": "user", "content": "Q\nS1: The Celtics won the finals 17 times.\nS2: The Lakers won the finals 16 times."}]
    other = [{"role": "user", "content": "Q\nS1: The Lakers won the finals 16 times."}]
    live = ScriptedLLM({"select": "Sentences: S1\nAnswer: 16"})
    assert ReplayLLM(trace, live=live).chat(same, max_tokens=9, purpose="select").text == call["text"]
    replay = ReplayLLM(trace, live=live)
    assert replay.chat(other, max_tokens=9, purpose="select").text == "Sentences: S1\nAnswer: 16"
    assert replay.asked == ["select"]
    # without a live LLM the recorded reply stands (the row is counted as stale_refine)
    assert ReplayLLM(trace).chat(other, max_tokens=9, purpose="select").text == call["text"]


def test_a_scored_step_the_recording_lacks_is_scored_live_and_a_recorded_one_replayed():
    from vericite.bench.replay import ReplayLLM

    call = {"purpose": "read_back", "prompt_tokens": 1, "prompt_tokens_computed": 1, "completion_tokens": 0,
            "prompt_eval_ms": 0.0, "generation_ms": 0.0, "wall_ms": 0.0, "finish_reason": "scored",
            "text": "No", "score": 0.25}
    msgs = [{"role": "user", "content": "Claim: Rush is a band."}]
    live = ScriptedLLM({"read_back": "0.8"})
    fresh = ReplayLLM({"stages": []}, live=live)
    assert fresh.yes_probability(msgs, purpose="read_back")[0] == 0.8 and fresh.asked == ["read_back"]
    recorded = ReplayLLM({"stages": [{"name": "refine", "llm_calls": [call], "statements": []}]}, live=live)
    assert recorded.yes_probability(msgs, purpose="read_back")[0] == 0.25 and recorded.asked == []
    assert ReplayLLM({"stages": []}).yes_probability(msgs, purpose="read_back")[0] == 0.0  # no live LLM: nothing
