"""The NLI checker a models.toml entry describes: the one place that picks the checker family."""
from __future__ import annotations

from dataclasses import replace

from ..config.registry import ModelSpec, tokenizer_path, verify
from ..errors import ConfigError


def load_checker(spec: ModelSpec, **kwargs):
    """Build the NLI checker a models.toml entry describes, after verifying its file.

    ``input_format = "cross-encoder"`` gives an :class:`~vericite.engine.nli.cross_encoder.OnnxCrossEncoder`,
    ``"t5-true"`` an :class:`~vericite.engine.nli.t5.OnnxT5Checker`; ``format = "triton"`` the
    cross-encoder with its model on a Triton server (engine/nli/triton.py); ``number_guard = true`` puts
    :class:`~vericite.engine.nli.guard.NumberGuard` in front of either. ``kwargs`` go to the checker
    (``providers``, ``intra_op_threads``, ...).

    Returns:
        a checker with ``name``, ``ep``, ``cache_id`` and ``scores(pairs) -> float32 [n]``.

    Raises:
        ModelFileError: missing or corrupt file (names the fix).
        ConfigError: not an NLI model, unknown input format, or no tokenizer.
    """
    if spec.role != "nli":
        raise ConfigError(f"model {spec.name!r} is not an NLI model")
    if spec.number_guard:
        from .guard import NumberGuard

        return NumberGuard(load_checker(replace(spec, number_guard=False), **kwargs))
    if spec.format == "triton":  # the model on a Triton server, tokenization and windows here
        from .triton import load_triton_checker

        return load_triton_checker(spec, **kwargs)
    if spec.input_format == "t5-true":
        from .t5 import load_t5_checker

        return load_t5_checker(spec, **kwargs)
    if spec.input_format != "cross-encoder":
        raise ConfigError(f"model {spec.name!r}: unknown input_format {spec.input_format!r} "
                          "(expected 'cross-encoder' or 't5-true')")
    from .cross_encoder import OnnxCrossEncoder

    path = verify(spec)
    tok = tokenizer_path(spec)
    if tok is None:
        raise ConfigError(f"model {spec.name!r}: cross-encoder needs 'tokenizer' (a tokenizer.json path)")
    return OnnxCrossEncoder(path, tok, max_length=spec.max_length, entailment_index=spec.entailment_index,
                            premise_window=spec.premise_window, sentence_window=spec.sentence_window, name=spec.name,
                            file_sha256=spec.sha256, **kwargs)
