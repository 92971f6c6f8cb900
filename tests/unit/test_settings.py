"""One settings path: each setting declared once (engine/config/settings.py); models.toml keys, flags,
validation and the answer's stamp all derive from that declaration."""
from __future__ import annotations

import argparse
from dataclasses import fields

import pytest

from vericite.engine.config import settings as S
from vericite.engine.cli import build_parser
from vericite.engine.errors import ConfigError
from vericite.engine.config.registry import Registry
from vericite.engine.pipeline import VeriCite
from vericite.engine.prompts import PromptSet

from tests.fakes import ScriptedLLM, WordChecker
from tests.unit.test_pipeline_rules import DOCS, Q

BASE = '[models.x]\nrole = "llm"\nformat = "gguf"\nsource = "path"\npath = "x"\nsha256 = "' + "0" * 64 + '"\n'


def test_profile_keys_and_flags_come_from_the_declaration():
    assert S.profile_keys("llm") == {"prompts", "prompt_format", "citation_grammar", "inline_citations", "doc_tokens", "gate",
                                     "gate_threshold", "read_back"}
    assert S.profile_keys("nli") == {"threshold", "languages", "grade_bands", "strictness", "conflict_threshold",
                                        "conflict_related"}
    answer = next(a for a in build_parser()._actions if a.dest == "command").choices["answer"]
    dests = {a.dest for a in answer._actions}
    flagged = {f.name for f in fields(S.Settings) if f.metadata["flag"]}
    assert flagged == {"threshold", "strictness", "refine"}
    assert flagged <= dests                       # every everyday setting is a flag of `vericite answer`
    assert {"preset", "assignments"} <= dests     # and every setting is --set NAME=VALUE


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
    ap = argparse.ArgumentParser()
    S.add_arguments(ap, ["doc_tokens", "gate"])       # a bench's own knobs
    ap.add_argument("--quotes", action="store_true")  # an option that shares a setting's name is not the setting
    assert S.from_arguments(ap.parse_args(["--doc-tokens", "32"])) == {"doc_tokens": 32}
    assert S.from_arguments(build_parser().parse_args(["answer", "--docs", "d"])) == {}   # `answer --quotes` unset


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


def _answer_parser():
    return next(a for a in build_parser()._actions if a.dest == "command").choices["answer"]


def test_answer_help_is_the_everyday_flags_and_every_other_setting_goes_through_set():
    answer = _answer_parser()
    options = [a for a in answer._actions if a.option_strings]
    assert len(options) <= 15                                   # -h included
    help_text = answer.format_help()
    assert "--preset" in help_text and "--set NAME=VALUE" in help_text and "--refine" in help_text
    assert "--doc-tokens" not in help_text and "--gate-threshold" not in help_text and "--n-ctx" not in help_text
    args = build_parser().parse_args(["answer", "--docs", "d.json", "--set", "doc_tokens=32", "--set", "gate=scored",
                                      "--set", "threads=3", "--set", "nli_cache=s.sqlite", "--refine", "merge"])
    given = S.given(args)
    assert given.settings == {"doc_tokens": 32, "gate": "scored", "refine": "merge"}
    assert given.resources == {"threads": 3, "nli_cache": "s.sqlite"} and given.models == {}


def test_preset_then_set_then_flags_and_each_error_names_its_origin():
    parse = build_parser().parse_args
    given = S.given(parse(["answer", "--docs", "d", "--preset", "paper", "--set", "claim_words=3", "--refine", "answer"]))
    assert given.settings["claim_words"] == 3 and given.settings["refine"] == "answer"   # --set, the flag win
    assert given.settings["entity_guard"] is False and given.settings["add_nothing"] is False  # the preset's
    assert S.given(parse(["answer", "--docs", "d", "--preset", "small-model"])).models == \
        {"llm": "qwen2.5-coder-0.5b-instruct-q4km"}
    with pytest.raises(ConfigError, match=r"^--set doc_tokens = 8: must be 0"):
        S.given(parse(["answer", "--docs", "d", "--set", "doc_tokens=8"]))
    with pytest.raises(ConfigError, match=r"^--set colour: unknown setting 'colour'"):
        S.given(parse(["answer", "--docs", "d", "--set", "colour=red"]))
    with pytest.raises(ConfigError, match=r"^--set needs NAME=VALUE, got 'gate'"):
        S.given(parse(["answer", "--docs", "d", "--set", "gate"]))
    with pytest.raises(ConfigError, match=r"^--set threads = 0: must be >= 1"):
        S.given(parse(["answer", "--docs", "d", "--set", "threads=0"]))
    with pytest.raises(ConfigError, match=r"^--set nli_ep = 'gpu': expected one of auto, cuda, cpu"):
        S.given(parse(["answer", "--docs", "d", "--set", "nli_ep=gpu"]))
    with pytest.raises(ConfigError, match="threshold = 1.5: must be in"):
        S.given(parse(["answer", "--docs", "d", "--threshold", "1.5"]))


def test_pipeline_arguments_route_resources_to_the_loader_and_the_execution_provider_to_the_environment(monkeypatch):
    from vericite.engine.loader import pipeline_arguments
    from vericite.engine.nli.onnx_scorer import NLI_EP_ENV

    monkeypatch.delenv(NLI_EP_ENV, raising=False)
    args = build_parser().parse_args(["answer", "--docs", "d", "--preset", "small-model", "--set", "n_ctx=2048",
                                      "--set", "gpu_layers=-1", "--set", "nli_ep=cpu", "--set", "fallback_quotes=0"])
    kw = pipeline_arguments(args)
    assert kw["llm"] == "qwen2.5-coder-0.5b-instruct-q4km" and kw["nli"] is None
    assert (kw["n_ctx"], kw["gpu_layers"], kw["fallback_quotes"]) == (2048, -1, 0) and "nli_ep" not in kw
    assert __import__("os").environ[NLI_EP_ENV] == "cpu"
    named = pipeline_arguments(build_parser().parse_args(["answer", "--docs", "d", "--llm", "other", "--preset",
                                                          "small-model"]))
    assert named["llm"] == "other"                              # a flag's model before the preset's


def test_every_preset_is_valid_and_paper_turns_off_what_the_authors_do_not_do():
    for name in S.PRESETS:
        S.validate(S.resolve(overrides=S.preset(name)), f"preset {name}")
    paper = S.resolve(overrides=S.preset("paper"))
    assert paper.refine == "merge" and paper.prompts == "paper-en" and not paper.citation_grammar
    assert not (paper.entity_guard or paper.cite_each or paper.add_nothing or paper.backbone or paper.conflicts
                or paper.drop_unsupported or paper.claim_words or paper.fallback_quotes)
    with pytest.raises(ConfigError, match="unknown preset 'fast'"):
        S.preset("fast")
    res = VeriCite(ScriptedLLM({"answer": "", "gate": "No"}), WordChecker(), prompts=PromptSet.load("paper-en"),
                   settings=paper).answer(Q, DOCS)
    assert res.settings["refine"] == "merge" and res.settings["entity_guard"] is False


def test_the_configuration_page_is_generated_from_the_declarations():
    from tests.conftest import REPO

    page = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert page == S.markdown(), "regenerate: vericite settings --markdown > docs/configuration.md"
    for group in S.GROUPS:
        assert all(r["group"] in S.GROUPS for r in S.table())
    assert {r["name"] for r in S.table()} == {f.name for f in fields(S.Settings)} | {f.name for f in fields(S.Resources)}
    experimental = {r["name"] for r in S.table() if r["experimental"]}
    assert {"recite", "multihop", "doc_tokens"} <= experimental
    assert all(r["flag"] is None or r["name"] in ("threshold", "strictness", "refine") for r in S.table())
