"""The ONNX Runtime pair scorer under both checker families (cross-encoders and T5 TRUE-style).

:class:`OnnxPairScorer` owns what they share: the session (its feeds chosen from the model's own
input names), the tokenizer, premise windows, length-bucketed batches under a token budget, the
max over a pair's windows, and statistics. A family supplies how one pair becomes rows of token
ids (:meth:`OnnxPairScorer.encode`) and how one batch becomes probabilities
(:meth:`OnnxPairScorer.run_batch`).
"""
from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .batching import DEFAULT_BATCH_TOKENS, DEFAULT_MAX_BATCH, plan_batches
from .errors import ConfigError, InferenceError, ModelFileError

log = logging.getLogger(__name__)

#: Premises are cut to this many tokens before windowing (a huge document must not cost
#: thousands of windows; the LLM never sees more than its context of it anyway).
MAX_PREMISE_TOKENS = 8192


def select_providers(prefer: Sequence[str] | None) -> list[str]:
    """ONNX Runtime execution providers to ask for, in order: ``prefer`` (default CUDA, then CPU)
    filtered to those this onnxruntime build has (onnxruntime-gpu has CUDA; onnxruntime has CPU only).

    Raises:
        ConfigError: none of the wanted providers is available.
    """
    import onnxruntime as ort

    available = ort.get_available_providers()
    wanted = list(prefer) if prefer else ["CUDAExecutionProvider", "CPUExecutionProvider"]
    chosen = [p for p in wanted if p in available]
    if not chosen:
        raise ConfigError(f"none of the execution providers {wanted} is available; have {available}")
    return chosen


def premise_windows(ids: list[int], budget: int) -> list[list[int]]:
    """A premise's token ids as windows of at most ``budget`` tokens that overlap by half (one
    window when it fits); the ids are first cut to :data:`MAX_PREMISE_TOKENS`."""
    if len(ids) > MAX_PREMISE_TOKENS:
        log.warning("premise of %d tokens cut to %d for NLI", len(ids), MAX_PREMISE_TOKENS)
        ids = ids[:MAX_PREMISE_TOKENS]
    if len(ids) <= budget:
        return [ids]
    windows: list[list[int]] = []
    step = max(1, budget // 2)
    for start in range(0, len(ids), step):
        windows.append(ids[start:start + budget])
        if start + budget >= len(ids):
            break
    return windows


def require_finite(scores: np.ndarray, pairs: Callable[[], Sequence[tuple[str, str]]], model: str) -> np.ndarray:
    """``scores`` (float32 [n]) if every one is a finite number, else an error naming the model and
    the first bad pair: a NaN or inf score must never pass as "not entailed". ``pairs()`` gives the
    n (premise, hypothesis) pairs; it is called only to name the bad one.

    Raises:
        InferenceError: a score is NaN or infinite.
    """
    finite = np.isfinite(np.asarray(scores, dtype=np.float64))
    if not finite.all():
        bad = np.flatnonzero(~finite)
        i = int(bad[0])
        premise, hypothesis = pairs()[i]
        raise InferenceError(f"{model} returned a non-finite score ({scores[i]}) for {bad.size} of {len(finite)} pairs, "
                             f"first: premise {premise[:80]!r}..., hypothesis {hypothesis[:120]!r}")
    return scores


class OnnxPairScorer:
    """Base of the ONNX checkers: ``scores(pairs) -> float32 [n]``, P(entailment) per pair.

    Args:
        model_path: the .onnx file.
        tokenizer_path: the model's tokenizer.json.
        batch_tokens: padded-token budget per ONNX Runtime call, rows x longest row (:func:`plan_batches`).
        max_batch: at most this many rows (premise windows) per call.
        providers: execution providers in order of preference (default CUDA, then CPU).
        intra_op_threads: ONNX Runtime intra-op threads (default: all cores).
        name: a label for traces (default: the model's folder name).

    Attributes:
        name, ep (the execution provider in use), intra_op_threads, stats (``pairs``, ``windows``,
        ``batches``, ``ms``), input_names (the graph's inputs).

    Raises:
        ModelFileError: a file is missing, unreadable, or ONNX Runtime cannot load the model.
        ConfigError: none of ``providers`` is available.
    """

    #: row padding per input name (subclasses: the tokenizer's pad id for ``input_ids``)
    pad_values: dict[str, int] = {}

    def __init__(self, model_path: str | Path, tokenizer_path: str | Path, *, batch_tokens: int = DEFAULT_BATCH_TOKENS,
                 max_batch: int = DEFAULT_MAX_BATCH, providers: Sequence[str] | None = None,
                 intra_op_threads: int | None = None, name: str = ""):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_path, tokenizer_path = Path(model_path), Path(tokenizer_path)
        for p in (model_path, tokenizer_path):
            if not p.is_file():
                raise ModelFileError(f"NLI model file not found: {p}")
        self.model_path = model_path
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = intra_op_threads or os.cpu_count() or 1
        opts.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(str(model_path), sess_options=opts, providers=select_providers(providers))
        except Exception as e:  # onnxruntime raises its own exception types for corrupt graphs
            raise ModelFileError(f"ONNX Runtime could not load {model_path}: {e}") from e
        self.input_names = {i.name for i in self._session.get_inputs()}
        try:
            self._tok = Tokenizer.from_file(str(tokenizer_path))
        except Exception as e:  # tokenizers raises a bare Exception on a malformed file
            raise ModelFileError(f"could not read tokenizer {tokenizer_path}: {e}") from e
        self._tok.no_padding()
        self._tok.no_truncation()
        self.batch_tokens = batch_tokens
        self.max_batch = max_batch
        self.name = name or model_path.parent.name
        self.ep = self._session.get_providers()[0]
        self.intra_op_threads = opts.intra_op_num_threads
        self.stats = {"pairs": 0, "windows": 0, "batches": 0, "ms": 0.0}

    def ids(self, text: str) -> list[int]:
        """Token ids of ``text`` without special tokens."""
        return self._tok.encode(text, add_special_tokens=False).ids if text else []

    # -- what a family supplies ---------------------------------------------------------------
    def encode(self, premise: str, hypothesis: str) -> list[dict[str, list[int]]]:
        """One pair as rows, one per premise window: input name -> token-level values."""
        raise NotImplementedError

    def run_batch(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        """P(entailment) per row of one padded batch (float32 [rows])."""
        raise NotImplementedError

    # -- scoring ----------------------------------------------------------------------------
    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(entailment) for each (premise, hypothesis) pair: the max over its premise windows.

        Returns:
            float32 array, shape [len(pairs)], values in [0, 1].

        Raises:
            InferenceError: ONNX Runtime failed, or a score is NaN or infinite (names the pair).
        """
        t0 = time.perf_counter()
        owner: list[int] = []
        rows: list[dict[str, list[int]]] = []
        for i, (premise, hypothesis) in enumerate(pairs):
            for row in self.encode(premise, hypothesis):
                owner.append(i)
                rows.append(row)
        probs = np.zeros(len(rows), dtype=np.float32)
        batches = plan_batches([len(r["input_ids"]) for r in rows], max_tokens=self.batch_tokens,
                               max_batch=self.max_batch)
        for idx in batches:
            width = max(len(rows[r]["input_ids"]) for r in idx)
            feeds = {}
            for key in rows[idx[0]]:
                arr = np.full((len(idx), width), self.pad_values.get(key, 0), dtype=np.int64)
                for j, r in enumerate(idx):
                    arr[j, :len(rows[r][key])] = rows[r][key]
                feeds[key] = arr
            feeds = {k: v for k, v in feeds.items() if k in self.input_names}
            try:
                probs[idx] = self.run_batch(feeds)
            except Exception as e:
                raise InferenceError(f"ONNX Runtime ({self.name}) failed on a batch of {len(idx)} rows x {width} "
                                     f"tokens: {e}") from e
        # checked per window: the max over windows would hide a NaN window behind a finite one
        require_finite(probs, lambda: [pairs[i] for i in owner], self.name)
        out = np.zeros(len(pairs), dtype=np.float32)
        if rows:
            np.maximum.at(out, np.asarray(owner, dtype=np.int64), probs)
        self.stats["pairs"] += len(pairs)
        self.stats["windows"] += len(rows)
        self.stats["batches"] += len(batches)
        self.stats["ms"] += (time.perf_counter() - t0) * 1000
        return out
