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


def test_a_non_finite_logit_is_never_a_probability():
    """-inf for "not entailed" would be P = 1.0 after softmax; NaN and +inf too must end in the error."""
    import numpy as np

    from vericite.engine.errors import InferenceError
    from vericite.engine.nli.cross_encoder import _entailment_prob
    from vericite.engine.nli.onnx_scorer import require_finite

    logits = np.array([[-np.inf, 0.0], [0.0, np.inf], [np.nan, 1.0], [2.0, 0.0], [0.0, 2.0]], dtype=np.float32)
    p = _entailment_prob(logits, 1)
    assert np.isnan(p[:3]).all() and p[3] < 0.5 < p[4]
    assert np.isnan(_entailment_prob(np.array([[-np.inf]], dtype=np.float32), 0)).all()   # sigmoid head
    with pytest.raises(InferenceError, match="non-finite.*first: premise 'p0'"):
        require_finite(p, lambda: [(f"p{i}", f"h{i}") for i in range(5)], "m")
    assert np.array_equal(require_finite(p[3:], lambda: [], "m"), p[3:])
