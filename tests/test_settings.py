"""One settings path: each setting declared once (engine/settings.py); models.toml keys, flags,
validation and the answer's stamp all derive from that declaration."""
from __future__ import annotations

import argparse
from dataclasses import fields

import pytest

from vericite.engine import settings as S
from vericite.engine.cli import build_parser
from vericite.engine.errors import ConfigError
from vericite.engine.models import Registry
from vericite.engine.pipeline import VeriCite
from vericite.engine.prompts import PromptSet

from .fakes import ScriptedLLM, WordChecker
from .test_pipeline_rules import DOCS, Q

BASE = '[models.x]\nrole = "llm"\nformat = "gguf"\nsource = "path"\npath = "x"\nsha256 = "' + "0" * 64 + '"\n'


def test_profile_keys_and_flags_come_from_the_declaration():
    assert S.profile_keys("llm") == {"prompts", "prompt_format", "citation_grammar", "inline_citations", "doc_tokens", "gate",
                                     "gate_threshold"}
    assert S.profile_keys("nli") == {"threshold", "languages", "grade_bands", "strictness", "conflict_threshold",
                                        "conflict_related"}
    answer = next(a for a in build_parser()._actions if a.dest == "command").choices["answer"]
    dests = {a.dest for a in answer._actions}
    flagged = {f.name for f in fields(S.Settings) if f.metadata["flag"]}
    assert flagged <= dests                       # every flagged setting is a flag of `vericite answer`
    assert "--doc-tokens" in answer.format_help() and "--gate-threshold" in answer.format_help()


def test_one_rule_and_the_error_names_where_the_value_came_from(tmp_path):
    toml = tmp_path / "models.toml"
    toml.write_text(BASE + "doc_tokens = 8\n")
    with pytest.raises(ConfigError, match=r'\[models\."x"\] doc_tokens = 8: must be 0 \(whole documents\) or >= 16'):
        Registry.load(toml)
    with pytest.raises(ConfigError, match=r"^--doc-tokens = 8: must be 0"):
        S.resolve(overrides={"doc_tokens": 8}, overrides_origin="flag")
    with pytest.raises(ConfigError, match=r"Settings\.doc_tokens"):
        VeriCite(ScriptedLLM({}), WordChecker(), prompts=PromptSet.load("paper-en"), settings=S.Settings(doc_tokens=8))
    with pytest.raises(ConfigError, match="threshold = 1.5: must be in"):
        S.resolve(overrides={"threshold": 1.5})
    with pytest.raises(ConfigError, match="expected a number"):
        S.check("threshold", "high", "--threshold")
    with pytest.raises(ConfigError, match="unknown setting"):
        S.resolve(overrides={"colour": "red"})


def test_resolve_order_defaults_then_profiles_then_overrides():
    s = S.resolve(({"gate": "scored", "gate_threshold": 0.4}, "llm"), ({"threshold": 0.7}, "nli"),
                  overrides={"gate_threshold": 0.6, "schedule": None})
    assert (s.gate, s.gate_threshold, s.threshold, s.schedule) == ("scored", 0.6, 0.7, "overlap")
    args = argparse.Namespace(**{**{f.name: None for f in fields(S.Settings)}, "doc_tokens": 32})
    assert S.from_arguments(args) == {"doc_tokens": 32}


def test_models_toml_profiles_reach_the_settings():
    reg = Registry.load()
    llm, nli = reg.get(None, "llm"), reg.get(None, "nli")
    s = S.resolve((llm.profile, llm.name), (nli.profile, nli.name))
    assert s.prompts == llm.profile["prompts"] and s.threshold == nli.profile["threshold"]
    assert s.checker_languages == tuple(nli.profile.get("checker_languages", ("en",)))


def test_the_stamp_is_every_setting_plus_the_models():
    settings = S.Settings(gate="scored", gate_threshold=0.6, min_statement_words=3)
    res = VeriCite(ScriptedLLM({"answer": "", "gate": "No"}), WordChecker(), prompts=PromptSet.load("paper-en"),
                   settings=settings).answer(Q, DOCS)
    stamp = res.settings
    assert {f.name for f in fields(S.Settings)} <= set(stamp)
    assert stamp["min_statement_words"] == 3 and stamp["grade_bands"] is None and stamp["checker_languages"] == ["en"]
    assert stamp["prompts"] == f"paper-en@{PromptSet.load('paper-en').version}" and stamp["lang"] == "en" and stamp["schedule"] == "sequential"
    assert (stamp["llm"], stamp["nli"], stamp["nli_ep"], stamp["n_ctx"]) == ("scripted", "word-checker", "test", 4096)
