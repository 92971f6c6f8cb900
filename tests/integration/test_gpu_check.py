"""The checker's execution-provider fallback on the real carried model
(engine/nli/onnx_scorer.py): CUDA listed but not started.

The same subject in other tiers: tests/unit/test_gpu_check.py, tests/lab/test_gpu_check.py.
"""
from __future__ import annotations

import pytest
from vericite.engine.errors import ConfigError
from vericite.engine.nli.onnx_scorer import SessionRunner, ep_providers

from tests.conftest import REPO


CHECKER = REPO / "models" / "nli-minilm-l6-bin-int8" / "model.onnx"


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
