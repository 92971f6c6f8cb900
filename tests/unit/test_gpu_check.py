"""The GPU check (bench/gpu_check.py) on a fake LLM and the checker's execution-provider
choice (engine/nli/onnx_scorer.py ``ep_providers``, ``vericite answer --nli-ep``).

No GGUF and no model is loaded here.

The same subject in other tiers: tests/integration/test_gpu_check.py, tests/lab/test_gpu_check.py.
"""
from __future__ import annotations

import json
import os

import pytest
from vericite.engine.errors import ConfigError
from vericite.engine.nli.onnx_scorer import NLI_EP_ENV, ep_providers, select_providers
from vericite.engine.records import LLMCall

from tests.conftest import REPO


# -- execution providers ----------------------------------------------------------------------------------
def test_ep_choices_map_to_providers(monkeypatch):
    monkeypatch.delenv(NLI_EP_ENV, raising=False)
    assert ep_providers("cpu") == ["CPUExecutionProvider"]
    assert ep_providers("auto") == ["CUDAExecutionProvider", "CPUExecutionProvider"]
    assert ep_providers() == ep_providers("auto")  # no variable: auto
    assert select_providers(None) == ["CPUExecutionProvider"]  # auto on a CPU-only onnxruntime


def test_cuda_on_a_cpu_onnxruntime_is_a_clear_error(monkeypatch):
    import onnxruntime as ort

    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CPUExecutionProvider"])
    with pytest.raises(ConfigError) as e:
        ep_providers("cuda")
    msg = str(e.value)
    assert "has no CUDAExecutionProvider" in msg and "'.[gpu]'" in msg and "pip uninstall -y onnxruntime" in msg


def test_the_environment_variable_picks_the_ep_and_bad_values_are_named(monkeypatch):
    import onnxruntime as ort

    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CPUExecutionProvider"])
    monkeypatch.setenv(NLI_EP_ENV, "cuda")
    with pytest.raises(ConfigError, match=f"from {NLI_EP_ENV}"):
        select_providers(None)  # what every session of the engine asks by default
    monkeypatch.setenv(NLI_EP_ENV, "CPU")
    assert select_providers(None) == ["CPUExecutionProvider"]
    monkeypatch.setenv(NLI_EP_ENV, "tpu")
    with pytest.raises(ConfigError, match=r"'tpu' \(from VERICITE_NLI_EP\) is not one of \['auto', 'cpu', 'cuda'\]"):
        select_providers(None)


def test_the_nli_ep_setting_sets_the_variable_the_sessions_read(monkeypatch):
    from vericite.engine import cli, loader

    seen = {}

    def build(**kw):
        seen["ep"], seen["kw"] = os.environ.get(NLI_EP_ENV), kw
        raise SystemExit(0)  # stop before any model loads

    monkeypatch.setenv(NLI_EP_ENV, "auto")  # restored afterwards: the command writes os.environ itself
    monkeypatch.setattr(loader, "build_pipeline", build)
    with pytest.raises(SystemExit):
        cli.main(["answer", "--docs", str(REPO / "examples" / "hotpotqa-0.json"), "--set", "nli_ep=cpu"])
    assert seen["ep"] == "cpu" and "nli_ep" not in seen["kw"]


class FakeLLM:
    """Stands in for LlamaCppLLM: records how it was built, answers with fixed timings."""

    built: dict = {}

    def __init__(self, path, **kwargs):
        FakeLLM.built = {"path": path, **kwargs}

    def truncate(self, text, max_tokens):
        return " ".join(text.split()[:max_tokens]), True

    def chat(self, prompt, *, max_tokens, purpose):
        return LLMCall(purpose=purpose, prompt_tokens=100, prompt_tokens_computed=100, completion_tokens=max_tokens,
                       prompt_eval_ms=50.0, generation_ms=max_tokens * 10.0, wall_ms=0.0, finish_reason="length",
                       text="x")


def test_llm_section_reports_prompt_and_generation_rates(tmp_path):
    from vericite.bench import gpu_check

    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")  # a path is taken as given; the fake never reads it
    r = gpu_check.run(out=tmp_path / "out", device="cpu", quick=True, sections=["llm"], threads=1, llm=str(gguf),
                      llm_factory=FakeLLM)
    assert r["sections"]["llm"]["status"] == "ok"
    m = r["llm"]
    assert FakeLLM.built["n_gpu_layers"] == 0 and FakeLLM.built["reuse_prefix"] is False  # every prompt from scratch
    assert m["prompt_tokens_per_s"] == 2000.0 and m["generation_tokens_per_s"] == 100.0
    assert m["timed_calls"] == gpu_check.PLANS["cpu-quick"].llm_repeats and m["path"] == str(gguf)
    assert "prompt eval 2000.0 tokens/s" in (tmp_path / "out" / gpu_check.REPORT_MD).read_text()


def test_a_failing_section_is_reported_and_the_exit_code_says_so(tmp_path, monkeypatch):
    from vericite.bench import gpu_check

    def boom(*a, **k):
        raise RuntimeError("no luck")

    monkeypatch.setattr(gpu_check, "bench_llm", boom)
    rc = gpu_check.main(["--out", str(tmp_path), "--device", "cpu", "--no-nli", "--no-t5", "--workdir", str(tmp_path)])
    r = json.loads((tmp_path / gpu_check.REPORT_JSON).read_text())
    assert rc == 1 and r["sections"]["llm"] == {"status": "error", "seconds": r["sections"]["llm"]["seconds"],
                                                "error": "RuntimeError: no luck"}
