"""`vericite bench replay`: recorded LLM replies through the stage rules again (bench/replay.py)."""
from __future__ import annotations

import json
from dataclasses import asdict

from vericite.bench.replay import Replayer, main, parse_set
from vericite.engine.batching import DynamicBatcher
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Document

from .fakes import ScriptedLLM, WordChecker

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
    assert new["output"] == row["output"] == "The Lakers won the finals 16 times [1]."
    assert new["replay"] == {"from": "vericite", "overrides": {}, "missing": [], "live": [], "stale_refine": False,
                            "same_output": True}
    assert new["method"] == "again" and new["trace"]["stages"][1]["statements"] == row["trace"]["stages"][1]["statements"]


def test_an_override_changes_what_a_rule_decides_and_says_when_stage_3_is_stale():
    row = recorded(WordChecker(), claim_words=5, backbone_facts=0, claim_guard=False)
    facts = Replayer(checker=WordChecker(), overrides={"backbone_facts": 2}).replay(row, "facts")
    assert facts["output"] == ("The Lakers won the finals 16 times [1]. The Lakers won the finals six times in the "
                               "1960s [1]. The Celtics won the finals 17 times [2].")
    assert not facts["replay"]["same_output"] and not facts["replay"]["stale_refine"]
    # the guard drops the rewrite of "According to Document!" that stage 1 kept: stage 3's input changed
    guard = Replayer(checker=WordChecker(), overrides={"claim_guard": True}).replay(row, "guard")
    assert guard["replay"]["stale_refine"] and guard["replay"]["missing"] == []


def test_the_cli_replays_a_file_with_the_real_checker_and_names_a_missing_one(tmp_path, checker, capsys):
    batcher = DynamicBatcher(checker)
    row = recorded(batcher, claim_words=5)
    batcher.close()
    path, out = tmp_path / "run.jsonl", tmp_path / "replay.jsonl"
    path.write_text(json.dumps(row) + "\n")
    assert main([str(path), "--out", str(out), "--no-progress", "--nli-cache", ""]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["rows"], summary["same_output"]) == (1, 1)
    assert json.loads(out.read_text())["output"] == row["output"]
    bad = dict(row, trace=dict(row["trace"], settings=dict(row["trace"]["settings"], nli="word-checker")))
    path.write_text(json.dumps(bad) + "\n")
    assert main([str(path), "--out", str(out), "--no-progress", "--nli-cache", ""]) == 2
    assert "unknown nli model 'word-checker'" in capsys.readouterr().err
    assert main([str(path), "--out", str(out), "--set", "nonsense=1"]) == 2
    assert "unknown setting(s) ['nonsense']" in capsys.readouterr().err


def test_parse_set_reads_json_values():
    assert parse_set(["backbone_facts=0", "add_nothing=false", "strictness=lenient", "threshold=0.5"]) == \
        {"backbone_facts": 0, "add_nothing": False, "strictness": "lenient", "threshold": 0.5}
