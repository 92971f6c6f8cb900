"""The cross-encoder's pluggable batch runner (what Triton plugs into) on the real carried
checker.

The same subject in other tiers: tests/unit/test_triton.py, tests/lab/test_triton.py, tests/external/test_triton.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from vericite.engine.config.registry import Registry
from vericite.engine.nli.onnx_scorer import SessionRunner


@pytest.fixture(scope="module")
def spec():
    return Registry.load().get(None, "nli")


def test_the_cross_encoder_takes_any_runner_and_pads_to_the_buckets(spec):
    """The refactor's point: only the runner changes; windows, batches and scores stay the same."""
    from vericite.engine.config.registry import model_path, tokenizer_path
    from vericite.engine.nli.cross_encoder import OnnxCrossEncoder

    path, tok = model_path(spec), tokenizer_path(spec)
    inner = SessionRunner(path, intra_op_threads=1)
    widths = []

    class Recording:
        what, label, ep, intra_op_threads = "Recording", "rec", "test", 1
        input_names, output_names = inner.input_names, inner.output_names

        def __call__(self, feeds, outputs=None):
            widths.append(feeds["input_ids"].shape[1])
            return inner(feeds, outputs)

    kw = dict(max_length=spec.max_length, premise_window=spec.premise_window, sentence_window=spec.sentence_window)
    local = OnnxCrossEncoder(path, tok, intra_op_threads=1, **kw)
    remote = OnnxCrossEncoder(None, tok, runner=Recording(), width_buckets=(16, 32, 64, 96, 128, 192, 256, 320), **kw)
    doc = ("Rush is a Canadian rock band formed in Toronto in 1968. The band was composed of Geddy Lee, Alex "
           "Lifeson and Neil Peart. " * 6)
    pairs = [(doc, "Rush was formed in 1968."), (doc, "Rush is a jazz trio from Ohio."),
             ("A man plays a guitar on stage.", "A man plays music."), ("", "Nothing.")]
    assert np.abs(local.scores(pairs) - remote.scores(pairs)).max() < 1e-5
    assert widths and set(widths) <= {16, 32, 64, 96, 128, 192, 256, 320}
    assert remote.name == "rec" and remote.ep == "test" and "rec" in remote.cache_id
