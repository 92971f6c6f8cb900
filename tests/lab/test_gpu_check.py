"""The GPU check's CPU path end to end (bench/gpu_check.py) and its CUDA error: torch and
transformers (export extra) for the tiny TRUE-shaped T5; one thread, seconds.

The same subject in other tiers: tests/unit/test_gpu_check.py, tests/integration/test_gpu_check.py.
"""
from __future__ import annotations

import json

import pytest
from vericite.engine.errors import ConfigError


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


def test_cuda_asked_for_without_a_gpu_is_a_clear_error():
    pytest.importorskip("torch")
    from vericite.bench.gpu_check import resolve_device

    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(ConfigError, match="torch sees no CUDA GPU"):
        resolve_device("cuda")
    assert resolve_device("auto") == "cpu"
