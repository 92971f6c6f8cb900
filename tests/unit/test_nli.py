"""The ONNX NLI backend without a real model: a corrupt model file.

The same subject in other tiers: tests/integration/test_nli.py.
"""
import pytest

from vericite.engine.errors import ModelFileError
from vericite.engine.config.registry import Registry, model_path, tokenizer_path
from vericite.engine.nli.cross_encoder import OnnxCrossEncoder


def test_corrupt_onnx_file(tmp_path):
    spec = Registry.load().get(None, "nli")
    bad = tmp_path / "model.onnx"
    bad.write_bytes(model_path(spec).read_bytes()[:1000])
    with pytest.raises(ModelFileError, match="could not load"):
        OnnxCrossEncoder(bad, tokenizer_path(spec))
    with pytest.raises(ModelFileError, match="not found"):
        OnnxCrossEncoder(tmp_path / "none.onnx", tokenizer_path(spec))
