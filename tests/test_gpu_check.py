"""The GPU check's CPU path (bench/gpu_check.py) and the checker's execution-provider choice
(engine/onnx_scorer.py ``ep_providers``, ``vericite answer --nli-ep``).

No GGUF is loaded here: the LLM section runs on a fake LLM (the real one is the tiny GGUF, run by
hand under the one-llama.cpp-at-a-time rule). The end-to-end test needs torch and transformers
(export extra) for the tiny TRUE-shaped T5; it runs on one thread, in seconds.
"""
from __future__ import annotations

import json
import os

import pytest
from vericite.engine.errors import ConfigError
from vericite.engine.onnx_scorer import NLI_EP_ENV, SessionRunner, ep_providers, select_providers
from vericite.engine.records import LLMCall

from .conftest import REPO

CHECKER = REPO / "models" / "nli-minilm-l6-bin-int8" / "model.onnx"


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


@pytest.mark.filterwarnings("ignore:Specified provider 'CUDAExecutionProvider'")
def test_cuda_listed_but_not_started_is_an_error_or_a_warned_fallback(monkeypatch, caplog):
    """onnxruntime-gpu lists CUDA even when its libraries are missing; the session then runs on CPU.
    Simulated here: a CPU build told it has CUDA falls back the same way."""
    import onnxruntime as ort

    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    monkeypatch.setattr(ort, "preload_dlls", lambda *a, **k: None, raising=False)
    with pytest.raises(ConfigError, match="could not start CUDAExecutionProvider"):
        SessionRunner(CHECKER, providers=ep_providers("cuda"), intra_op_threads=1)
    with caplog.at_level("WARNING"):
        runner = SessionRunner(CHECKER, providers=ep_providers("auto"), intra_op_threads=1)
    assert runner.ep == "CPUExecutionProvider"
    assert "running on CPU" in caplog.text


def test_the_nli_ep_flag_sets_the_variable_the_sessions_read(monkeypatch):
    from vericite.engine import cli

    seen = {}

    def answer(args):
        seen["ep"] = os.environ.get(NLI_EP_ENV)
        return 0

    monkeypatch.setenv(NLI_EP_ENV, "auto")  # restored (unset) afterwards: main() writes os.environ itself
    monkeypatch.setattr(cli, "_cmd_answer", answer)
    assert cli.main(["answer", "--docs", "x.json", "--nli-ep", "cpu"]) == 0
    assert seen["ep"] == "cpu"


# -- the GPU check on CPU ----------------------------------------------------------------------------------
def test_cpu_path_runs_end_to_end_and_the_report_has_its_fields(tmp_path, monkeypatch):
    """Without the shared folder, as on a lent GPU machine: the built-in pairs, the tiny T5's tokenizer
    trained on them."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from vericite.bench import gpu_check

    monkeypatch.setenv("VERICITE_SHARED", str(tmp_path / "no-shared"))

    prev = torch.get_num_threads()
    try:
        rc = gpu_check.main(["--out", str(tmp_path / "out"), "--device", "cpu", "--quick", "--no-llm", "--threads", "1",
                             "--workdir", str(tmp_path / "work")])
    finally:
        torch.set_num_threads(prev)
    assert rc == 0
    r = json.loads((tmp_path / "out" / gpu_check.REPORT_JSON).read_text())
    md = (tmp_path / "out" / gpu_check.REPORT_MD).read_text()
    assert r["mode"] == "cpu" and r["quick"] is True and "not GPU figures" in r["note"]
    d = r["device"]
    assert "CPUExecutionProvider" in d["onnxruntime"]["providers"] and d["torch"]["version"] == torch.__version__
    assert {"nvidia_smi", "cpu", "git", "llama_cpp"} <= set(d)
    assert {k: v["status"] for k, v in r["sections"].items()} == {"nli": "ok", "t5": "ok", "llm": "skipped"}

    nli = r["nli"]
    assert nli["ep"] == "CPUExecutionProvider" and nli["n_pairs"] == gpu_check.PLANS["cpu-quick"].nli_pairs
    assert nli["pairs_source"].startswith("built-in") and r["t5"]["pairs_source"].startswith("built-in")
    assert nli["variants"]["int8"]["pairs_per_s"] > 0 and nli["variants"]["int8"]["same_decisions"] == 1.0
    assert set(nli["variants"]) == {"int8", "fp32", "fp16"} and set(nli["ratios_vs_int8"]) == set(nli["variants"])
    # the same weights dequantized: not bit-equal, since onnxruntime 1.32's CPU optimizer rewrites the int8
    # graph's DequantizeLinear -> MatMul (logits 0.994 against 1.007 with optimizations off, on one pair)
    assert nli["variants"]["fp32"]["max_abs_dp"] < 0.05 and nli["variants"]["fp16"]["max_abs_dp"] < 0.05

    t5 = r["t5"]
    assert t5["shape"] == "tiny" and t5["ep"] == "CPUExecutionProvider" and t5["export"]["agreement"] == 1.0
    assert set(t5["variants"]) == {"onnx_fp32", "hf_bf16_one", "hf_bf16_batched", "hf_fp32_batched"}
    assert all(v["pairs_per_s"] > 0 for v in t5["variants"].values())
    assert set(t5["ratios"]) == {"onnx_fp32_over_hf_bf16_one", "onnx_fp32_over_hf_bf16_batched",
                                 "onnx_fp32_over_hf_fp32_batched"}
    for key in ("onnx_fp32_vs_hf_bf16_one", "onnx_fp32_vs_hf_bf16_batched", "onnx_fp32_vs_hf_fp32_batched"):
        assert set(t5["agreement"][key]) == {"max_abs_dp", "same_decisions"}
    assert t5["agreement"]["onnx_fp32_vs_hf_fp32_batched"]["max_abs_dp"] < 1e-3  # fp32 against fp32
    assert "# GPU check (cpu, quick" in md and "## TRUE-shaped T5" in md and "ratios (ours / HF" in md


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


def test_cuda_asked_for_without_a_gpu_is_a_clear_error():
    pytest.importorskip("torch")
    from vericite.bench.gpu_check import resolve_device

    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(ConfigError, match="torch sees no CUDA GPU"):
        resolve_device("cuda")
    assert resolve_device("auto") == "cpu"
