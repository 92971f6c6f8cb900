"""NLI backend for T5 "TRUE-style" checkers: one encoder pass + one decoder step in ONNX Runtime.

TRUE (Honovich et al. 2022, ``google/t5_xxl_true_nli_mixture``) reads
``premise: {premise} hypothesis: {hypothesis}`` and generates "1" (entailed) or "0". The export
(:mod:`vericite.export.t5_true`) puts the encoder and the first decoder step in one graph whose
output ``p_true`` (float32, [batch]) is ``softmax(first-step logits)[id("1")]`` over the whole
vocabulary, so scoring needs no generation loop and no torch/transformers at run time.

This module owns the run-time side: building the token ids exactly as the Hugging Face
tokenizer would for the joined text (checked at export on the parity pairs), splitting long
premises into half-overlapping token windows and (``sentence_window``) sentence windows, max over
windows, and long hypotheses into parts, min over parts (both shared with
:mod:`vericite.engine.nli.cross_encoder` through :mod:`vericite.engine.nli.onnx_scorer`), length-bucketed
batching, and checking the external weight file (``model.onnx.data``) that large exports carry next to
``model.onnx``.
"""
from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..config.registry import ModelSpec, tokenizer_path, verify, verify_file
from ..errors import ConfigError, ModelFileError
from .batching import DEFAULT_BATCH_TOKENS, DEFAULT_MAX_BATCH
from .onnx_scorer import OnnxPairScorer, window_ids

log = logging.getLogger(__name__)

__all__ = [
    "OUTPUT_NAME",
    "TRUE_TEMPLATE",
    "OnnxT5Checker",
    "TrueInputEncoder",
    "check_external_data",
    "load_t5_checker",
]

#: TRUE's input text (the ``</s>`` end token is appended after it, as T5's tokenizer does).
TRUE_TEMPLATE = "premise: {premise} hypothesis: {hypothesis}"
#: The graph's output: P("1") per row, float32 [batch].
OUTPUT_NAME = "p_true"
#: Default tokens per encoder input (TRUE was trained and evaluated with 512-token inputs).
DEFAULT_MAX_LENGTH = 512


class TrueInputEncoder:
    """Token ids of ``template`` filled with a (premise, hypothesis) pair, one row per premise window.

    The ids are ``ids(prefix) + ids(premise window) + ids(middle) + ids(hypothesis) + ids(suffix)
    + [</s>]`` where prefix/middle/suffix are the template's literal parts (stripped) and each part is
    encoded on its own without special tokens. For T5's SentencePiece tokenizers (whitespace split,
    then "▁"-prefixed pieces per word) that equals encoding the joined text; the export checks this
    on its parity pairs and refuses a tokenizer for which it does not hold.

    Args:
        tokenizer: a ``tokenizers.Tokenizer`` (the model's tokenizer.json) with a ``</s>`` token.
        template: text with ``{premise}`` before ``{hypothesis}``.
        max_length: tokens per row, ``</s>`` included.
        premise_window: premise tokens per window (default: all that fit ``max_length``).
        sentence_window: K: also every window of 1..K consecutive premise sentences (0 = off).

    Raises:
        ModelFileError: the tokenizer has no ``</s>`` token.
        ConfigError: the template lacks ``{premise}`` or ``{hypothesis}`` or has them in the other order.
        ValueError: ``sentence_window`` < 0.
    """

    def __init__(self, tokenizer: Any, *, template: str = TRUE_TEMPLATE, max_length: int = DEFAULT_MAX_LENGTH,
                 premise_window: int | None = None, sentence_window: int = 0):
        if sentence_window < 0:
            raise ValueError(f"sentence_window must be >= 0, got {sentence_window}")
        ip, ih = template.find("{premise}"), template.find("{hypothesis}")
        if ip < 0 or ih < 0 or ih < ip:
            raise ConfigError(f"T5 input template {template!r} needs {{premise}} before {{hypothesis}}")
        eos = tokenizer.token_to_id("</s>")
        if eos is None:
            raise ModelFileError("T5 tokenizer.json has no '</s>' token")
        self._tok = tokenizer
        self.eos_id = int(eos)
        pieces = (template[:ip], template[ip + len("{premise}"):ih], template[ih + len("{hypothesis}"):])
        self._prefix, self._middle, self._suffix = (self._ids(s.strip()) for s in pieces)
        self.max_length = max_length
        self.premise_window = premise_window
        self.sentence_window = sentence_window

    def _ids(self, text: str) -> list[int]:
        return self._tok.encode(text, add_special_tokens=False).ids if text else []

    def field_ids(self, text: str) -> list[int]:
        """Token ids of a premise or hypothesis field (stripped: in the joined text, spaces around a
        field merge with the template's own space, as T5's normaliser collapses runs of spaces, but
        alone they would become extra "▁" pieces)."""
        return self._ids(text.strip())

    @property
    def hypothesis_limit(self) -> int:
        """Tokens per hypothesis part: half the row (a long hypothesis must not eat the premise window)."""
        return self.max_length // 2

    def rows(self, premise: str, hyp: list[int]) -> list[list[int]]:
        """Rows of token ids (``</s>`` included) for a premise and one hypothesis part (token ids, at
        most :attr:`hypothesis_limit`): one per premise window.

        The premise is cut to :data:`~vericite.engine.nli.onnx_scorer.MAX_PREMISE_TOKENS`, then split into
        windows of ``min(premise_window, what fits)`` tokens that overlap by half, plus its sentence
        windows when ``sentence_window`` > 0, as :class:`~vericite.engine.nli.cross_encoder.OnnxCrossEncoder` does.
        """
        fixed = len(self._prefix) + len(self._middle) + len(self._suffix) + len(hyp) + 1
        budget = max(1, self.max_length - fixed)
        if self.premise_window:
            budget = min(budget, self.premise_window)
        tail = [*self._middle, *hyp, *self._suffix, self.eos_id]
        return [[*self._prefix, *w, *tail] for w in window_ids(premise, self.field_ids, budget, self.sentence_window)]

    def windows(self, premise: str, hypothesis: str) -> list[list[int]]:
        """Rows of token ids (``</s>`` included) for one pair with a hypothesis that fits (at most
        :attr:`hypothesis_limit` tokens): one per premise window (:meth:`rows`).

        Raises:
            ValueError: the hypothesis is longer than :attr:`hypothesis_limit` (it is never cut:
                :meth:`OnnxT5Checker.scores` splits it into parts, min over parts).
        """
        hyp = self.field_ids(hypothesis)
        if len(hyp) > self.hypothesis_limit:
            raise ValueError(f"hypothesis of {len(hyp)} tokens is longer than {self.hypothesis_limit}; "
                             "score it with OnnxT5Checker.scores, which splits it into parts")
        return self.rows(premise, hyp)


def check_external_data(model_path: str | Path, manifest: dict | None = None) -> list[Path]:
    """Verify the external weight files a T5 export's manifest lists next to ``model_path``.

    Each entry of ``manifest["external_data"]`` (``file``, ``size_bytes``, ``sha256``) must exist in
    the model's folder with that size and sha256. The hash is computed once per file version: a
    ``<file>.verified.json`` stamp (size, mtime, sha256) beside it lets later loads skip it
    (:func:`vericite.engine.config.registry.verify_file`, as for the main file).

    Args:
        model_path: the ``model.onnx`` file.
        manifest: the export's manifest dict; default: ``manifest.json`` next to the model (no
            manifest, or none listing external data: nothing to check).

    Returns:
        The verified external data paths (empty for a model with inline weights).

    Raises:
        ModelFileError: a listed file is missing, has another size or another sha256 (names the
            file and the fix), or the manifest is unreadable.
    """
    model_path = Path(model_path)
    if manifest is None:
        mpath = model_path.parent / "manifest.json"
        if not mpath.is_file():
            return []
        try:
            manifest = json.loads(mpath.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ModelFileError(f"{mpath}: unreadable manifest ({e}); re-export with `vericite export nli`") from e
    fix = "re-export the model with `vericite export nli` (the weights file must sit next to model.onnx)"
    return [verify_file(model_path.parent / e["file"], sha256=e["sha256"], size=int(e["size_bytes"]),
                        what=f"external weights file {e['file']} (listed in manifest.json)", fix=fix)
            for e in manifest.get("external_data") or []]


class OnnxT5Checker(OnnxPairScorer):
    """A T5 TRUE-style NLI checker exported to ONNX (encoder + first decoder step -> P("1")).

    Args:
        model_path: the .onnx file (its ``manifest.json`` and external weights, if any, beside it).
        tokenizer_path: the model's tokenizer.json.
        max_length: tokens per row (premise window + template + hypothesis + ``</s>``).
        premise_window: premise tokens per window (default: all that fit ``max_length``).
        sentence_window: K: also score every window of 1..K consecutive premise sentences (0 = off).
        batch_tokens: padded-token budget per ONNX Runtime call, rows x longest row.
        max_batch: at most this many rows per call.
        providers: execution providers in order of preference (default CUDA, then CPU).
        intra_op_threads: ONNX Runtime intra-op threads (default: all cores).
        name: a label for traces.
        file_sha256: the model file's sha256 (for :attr:`cache_id`; default: its path).

    Attributes:
        name, ep (the execution provider in use), stats (``pairs``, ``windows``, ``split_hypotheses``,
        ``batches``, ``ms``), cache_id (changes whenever scores would).

    Raises:
        ModelFileError: a file is missing, an external weights file is missing or corrupt, ONNX
            Runtime cannot load the model, or the graph has no ``p_true`` output.
        ConfigError: none of ``providers`` is available, or the manifest's template is unusable.
    """

    def __init__(self, model_path: str | Path, tokenizer_path: str | Path, *, max_length: int = DEFAULT_MAX_LENGTH,
                 premise_window: int | None = None, sentence_window: int = 0,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS, max_batch: int = DEFAULT_MAX_BATCH,
                 providers: Sequence[str] | None = None, intra_op_threads: int | None = None, name: str = "",
                 file_sha256: str = ""):
        model_path = Path(model_path)
        manifest = _read_manifest(model_path) if model_path.is_file() else None
        if manifest is not None:
            check_external_data(model_path, manifest)  # before ONNX Runtime reads the weights
        super().__init__(model_path, tokenizer_path, batch_tokens=batch_tokens, max_batch=max_batch,
                         providers=providers, intra_op_threads=intra_op_threads, name=name)
        outputs = list(self._runner.output_names)
        if OUTPUT_NAME not in outputs:
            raise ModelFileError(f"{model_path} is not a T5 TRUE-style export (outputs {outputs}, expected "
                                 f"{OUTPUT_NAME!r}); export it with `vericite export nli`")
        template = (manifest or {}).get("input_format", TRUE_TEMPLATE)
        self.encoder = TrueInputEncoder(self._tok, template=template, max_length=max_length,
                                        premise_window=premise_window, sentence_window=sentence_window)
        self.pad_id = int((manifest or {}).get("pad_token_id", self._tok.token_to_id("<pad>") or 0))
        self.pad_values = {"input_ids": self.pad_id}
        self.max_length = max_length
        self._file_id = file_sha256 or str(model_path.resolve())

    @property
    def cache_id(self) -> str:
        """Identifies this model and every setting that changes a score (premise-hypothesis cache
        key); follows later changes of ``premise_window`` / ``sentence_window``."""
        return (f"t5-true|{self.name}|{self._file_id}|max_length={self.max_length}|"
                f"window={self.premise_window}|sentences={self.sentence_window}|hyp=split")

    @property
    def premise_window(self) -> int | None:
        """Premise tokens per window (None: all that fit); settable, as on the cross-encoder."""
        return self.encoder.premise_window

    @premise_window.setter
    def premise_window(self, value: int | None) -> None:
        self.encoder.premise_window = value

    @property
    def sentence_window(self) -> int:
        """K of the sentence windows (0: off); settable, as on the cross-encoder."""
        return self.encoder.sentence_window

    @sentence_window.setter
    def sentence_window(self, value: int) -> None:
        self.encoder.sentence_window = value

    @property
    def hypothesis_limit(self) -> int:
        """Tokens per hypothesis part (the encoder's: half the row)."""
        return self.encoder.hypothesis_limit

    def hypothesis_ids(self, text: str) -> list[int]:
        """A hypothesis field's token ids, as the encoder writes them into a row."""
        return self.encoder.field_ids(text)

    def encode_part(self, premise: str, hyp: list[int]) -> list[dict[str, list[int]]]:
        """Rows of the TRUE template's token ids (``</s>`` included), one per premise window."""
        return [{"input_ids": ids, "attention_mask": [1] * len(ids)} for ids in self.encoder.rows(premise, hyp)]

    def run_batch(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        """P("1") per row: the graph's ``p_true`` output."""
        (p,) = self._runner(feeds, [OUTPUT_NAME])
        return np.asarray(p, dtype=np.float32).reshape(-1)


def _read_manifest(model_path: Path) -> dict | None:
    path = model_path.parent / "manifest.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ModelFileError(f"{path}: unreadable manifest ({e}); re-export with `vericite export nli`") from e


def load_t5_checker(spec: ModelSpec, **kwargs) -> OnnxT5Checker:
    """Build the T5 TRUE-style checker a models.toml entry describes, after verifying its files.

    ``spec.sha256``/``size`` cover ``model.onnx``; the ``manifest.json`` beside it must describe
    that same file (its ``onnx.sha256``), and the external weights it lists are then checked by
    :func:`check_external_data`. The tokenizer is ``spec.tokenizer`` or ``tokenizer.json`` beside
    the model.

    Args:
        spec: an ``nli`` entry with ``input_format = "t5-true"``.
        **kwargs: passed to :class:`OnnxT5Checker` (``providers``, ``intra_op_threads``, ...).

    Raises:
        ConfigError: not an NLI entry, or not ``t5-true``.
        ModelFileError: missing or corrupt model, manifest or external weights (names the fix).
    """
    if spec.role != "nli":
        raise ConfigError(f"model {spec.name!r} is not an NLI model")
    if spec.input_format != "t5-true":
        raise ConfigError(f"model {spec.name!r}: input_format {spec.input_format!r}, expected 't5-true'")
    path = verify(spec)
    manifest = _read_manifest(path)
    if manifest is not None and manifest.get("onnx", {}).get("sha256") not in (None, spec.sha256):
        raise ModelFileError(f"model {spec.name!r}: {path.parent / 'manifest.json'} describes another model.onnx "
                             f"(sha256 {manifest['onnx']['sha256']}); re-export with `vericite export nli`")
    tok = tokenizer_path(spec) or path.parent / "tokenizer.json"
    kwargs.setdefault("max_length", spec.max_length)
    return OnnxT5Checker(path, tok, premise_window=spec.premise_window, sentence_window=spec.sentence_window,
                         name=spec.name, file_sha256=spec.sha256, **kwargs)
