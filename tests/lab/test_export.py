"""HF -> ONNX export of the NLI cross-encoder (needs the `export` extra and ../shared)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("optimum.onnxruntime")

from vericite.export.nli_onnx import ExportValidationError, default_parity_pairs, export_cross_encoder  # noqa: E402

from tests.conftest import SHARED  # noqa: E402
SRC = SHARED / "models" / "nli-minilm-l6-bin"
SNLI = SHARED / "data" / "nli" / "snli_test.jsonl"

pytestmark = pytest.mark.skipif(
    not (SRC / "model.safetensors").is_file() or not SNLI.is_file(),
    reason=f"shared NLI checker or SNLI test data missing under {SHARED}",
)

ENTAILED = ("A man is playing a guitar on stage.", "A man is playing music.")
CONTRADICTED = ("A man is playing a guitar on stage.", "A woman is sleeping at home.")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _p_entail(model_dir: Path, pairs: list[tuple[str, str]]) -> list[float]:
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_truncation(320, strategy="only_first")
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    enc = tok.encode_batch(pairs)
    feeds = {
        "input_ids": np.array([e.ids for e in enc], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64),
    }
    sess = ort.InferenceSession(str(model_dir / "model.onnx"), providers=["CPUExecutionProvider"])
    (logits,) = sess.run(["logits"], feeds)
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return p[:, 1].tolist()


def test_export_int8_passes_gate(tmp_path):
    pairs = default_parity_pairs(200, SNLI)  # the gate's default set (one label flip in 64 would be 98.4%)
    out = tmp_path / "nli-int8"
    # the default int8 (weights only, fp32 compute) passes the default gate limits (0.99 / 0.05)
    manifest = export_cross_encoder(SRC, out, quantize="int8", parity_pairs=pairs)

    assert sorted(p.name for p in out.iterdir()) == ["config.json", "manifest.json", "model.onnx", "tokenizer.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["nli-int8"]  # temp folder cleaned up
    assert json.loads((out / "manifest.json").read_text()) == manifest

    gate = manifest["parity"]
    assert gate["n"] == 200
    assert gate["agreement"] >= 0.99
    assert gate["max_abs_dp"] <= 0.05
    assert 0.0 < gate["mean_abs_dp"] < 0.01  # int8 weights are close, but not bit-identical
    assert gate["min_agreement"] == 0.99 and gate["max_abs_dp_limit"] == 0.05

    model = out / "model.onnx"
    assert manifest["onnx"]["sha256"] == _sha256(model)
    assert manifest["onnx"]["size_bytes"] == model.stat().st_size < 30_000_000
    assert manifest["source"]["model_safetensors_sha256"] == _sha256(SRC / "model.safetensors")
    assert manifest["quantization"]["mode"] == "int8" and manifest["quantization"]["per_channel"] is True
    assert manifest["quantization"]["batch_invariant"] is True
    assert manifest["opset"] >= 14
    assert manifest["labels"] == {"0": "not_entailment", "1": "entailment"}
    assert manifest["entailment_index"] == 1 and manifest["max_length"] == 320
    assert manifest["input_names"] == ["input_ids", "attention_mask", "token_type_ids"]
    assert (out / "config.json").read_bytes() == (SRC / "config.json").read_bytes()

    p_ent, p_con = _p_entail(out, [ENTAILED, CONTRADICTED])
    assert p_ent > 0.5 > p_con


def test_dynamic_int8_needs_looser_limits(tmp_path):
    """onnxruntime dynamic int8 moves scores too far for the default gate on this model."""
    pairs = default_parity_pairs(200, SNLI)
    with pytest.raises(ExportValidationError) as info:
        export_cross_encoder(SRC, tmp_path / "dyn", quantize="int8-dynamic", parity_pairs=pairs)
    assert info.value.figures["max_abs_dp"] > 0.05
    assert not (tmp_path / "dyn" / "model.onnx").exists()


def test_gate_refuses_and_leaves_no_model(tmp_path):
    out = tmp_path / "refused"
    pairs = default_parity_pairs(16, SNLI)
    with pytest.raises(ExportValidationError) as info:
        export_cross_encoder(SRC, out, quantize="none", parity_pairs=pairs, min_agreement=1.01)
    assert info.value.figures["n"] == 16
    assert info.value.figures["agreement"] == 1.0  # fp32 ONNX agrees; only the impossible limit refused it
    assert not (out / "model.onnx").exists()
    assert list(tmp_path.rglob("*.onnx")) == []  # no temp export left behind either
