"""NLI backend: an ONNX Runtime cross-encoder that scores (premise, hypothesis) pairs.

``scores(pairs) -> P(entailment)``, float32, shape [n]. Pairs are tokenized with the model's
tokenizer.json (the `tokenizers` library, no transformers), sorted by length and run in batches
to cut padding. A premise longer than the model's window is split into half-overlapping token
windows and the pair scores the maximum over windows (a fact stated anywhere in a long document counts).
"""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from .batching import DEFAULT_BATCH_TOKENS, DEFAULT_MAX_BATCH, plan_batches
from .errors import ConfigError, InferenceError, ModelFileError
from .models import ModelSpec, tokenizer_path, verify

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


class OnnxCrossEncoder:
    """A sequence-classification NLI model exported to ONNX.

    Args:
        model_path: the .onnx file.
        tokenizer_path: the model's tokenizer.json.
        max_length: tokens per pair (premise truncated first).
        entailment_index: which logit is "entailment".
        batch_size: at most this many rows (premise windows) per ONNX Runtime call.
        batch_tokens: padded-token budget per call, rows x longest row (see :func:`plan_batches`).
        providers: execution providers in order of preference (default CUDA, then CPU).
        intra_op_threads: ONNX Runtime intra-op threads (default: all cores).
        premise_window: premise tokens per window (default: all that fit ``max_length``); a small
            checker trained on short premises loses the fact in a long one, so shorter windows
            (max over windows) can be more accurate.
        name: a label for traces.

    Raises:
        ModelFileError: a file is missing or ONNX Runtime cannot load it.
    """

    def __init__(self, model_path: str | Path, tokenizer_path: str | Path, *, max_length: int = 320,
                 entailment_index: int = 1, batch_size: int = DEFAULT_MAX_BATCH,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS, providers: Sequence[str] | None = None,
                 intra_op_threads: int | None = None, premise_window: int | None = None, name: str = "",
                 file_sha256: str = ""):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_path, tokenizer_path = Path(model_path), Path(tokenizer_path)
        for p in (model_path, tokenizer_path):
            if not p.is_file():
                raise ModelFileError(f"NLI model file not found: {p}")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = intra_op_threads or os.cpu_count() or 1
        opts.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(str(model_path), sess_options=opts, providers=select_providers(providers))
        except Exception as e:  # onnxruntime raises its own exception types for corrupt graphs
            raise ModelFileError(f"ONNX Runtime could not load {model_path}: {e}") from e
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tok = Tokenizer.from_file(str(tokenizer_path))
        self._tok.no_padding()
        self._tok.no_truncation()
        self.max_length = max_length
        self.premise_window = premise_window
        self.entailment_index = entailment_index
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.name = name or model_path.parent.name
        self.ep = self._session.get_providers()[0]
        self.intra_op_threads = opts.intra_op_num_threads
        #: identifies this model and every setting that changes a score (premise-hypothesis cache key)
        self.cache_id = (f"cross-encoder|{self.name}|{file_sha256 or model_path.resolve()}|"
                         f"max_length={max_length}|window={premise_window}|entail={entailment_index}")
        self.stats = {"pairs": 0, "windows": 0, "ms": 0.0}

    # -- tokenization -----------------------------------------------------------------------
    def _encode(self, premise: str, hypothesis: str) -> list[tuple[list[int], list[int]]]:
        """Token ids and type ids for each premise window of one pair (ids include specials)."""
        hyp = self._tok.encode(hypothesis, add_special_tokens=False).ids
        hyp = hyp[: self.max_length // 2]  # a pathological hypothesis must not eat the window
        budget = self.max_length - len(hyp) - 3  # [CLS] premise [SEP] hypothesis [SEP]
        if self.premise_window:
            budget = min(budget, self.premise_window)
        ids = self._tok.encode(premise, add_special_tokens=False).ids
        if len(ids) > MAX_PREMISE_TOKENS:
            log.warning("premise of %d tokens cut to %d for NLI", len(ids), MAX_PREMISE_TOKENS)
            ids = ids[:MAX_PREMISE_TOKENS]
        windows: list[list[int]] = []
        if len(ids) <= budget:
            windows.append(ids)
        else:
            # half-overlapping token windows; the pair's score is the max over windows
            step = max(1, budget // 2)
            for start in range(0, len(ids), step):
                windows.append(ids[start:start + budget])
                if start + budget >= len(ids):
                    break
        out = []
        cls, sep = self._special(("[CLS]", "<s>"), 101), self._special(("[SEP]", "</s>"), 102)
        for w in windows:
            input_ids = [cls, *w, sep, *hyp, sep]
            type_ids = [0] * (len(w) + 2) + [1] * (len(hyp) + 1)
            out.append((input_ids, type_ids))
        return out

    def _special(self, toks: Sequence[str], default: int) -> int:
        """Id of the first of ``toks`` in the vocabulary (BERT ``[CLS]``/``[SEP]``, else XLM-R
        ``<s>``/``</s>``, the template of e.g. multilingual-e5), else ``default``."""
        for tok in toks:
            i = self._tok.token_to_id(tok)
            if i is not None:
                return i
        return default

    # -- scoring ----------------------------------------------------------------------------
    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(entailment) for each (premise, hypothesis) pair.

        Returns:
            float32 array, shape [len(pairs)], values in [0, 1].

        Raises:
            InferenceError: ONNX Runtime failed.
        """
        t0 = time.perf_counter()
        rows: list[tuple[int, list[int], list[int]]] = []
        for i, (premise, hypothesis) in enumerate(pairs):
            for ids, types in self._encode(premise, hypothesis):
                rows.append((i, ids, types))
        probs = np.zeros(len(rows), dtype=np.float32)
        for idx in plan_batches([len(r[1]) for r in rows], max_tokens=self.batch_tokens, max_batch=self.batch_size):
            width = max(len(rows[r][1]) for r in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            types = np.zeros_like(ids)
            mask = np.zeros_like(ids)
            for j, r in enumerate(idx):
                n = len(rows[r][1])
                ids[j, :n], types[j, :n], mask[j, :n] = rows[r][1], rows[r][2], 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            feeds = {k: v for k, v in feeds.items() if k in self._inputs}
            try:
                (logits,) = self._session.run(None, feeds)[:1]
            except Exception as e:
                raise InferenceError(f"ONNX Runtime failed on a batch of {len(idx)} pairs: {e}") from e
            probs[idx] = _entailment_prob(logits, self.entailment_index)
        out = np.zeros(len(pairs), dtype=np.float32)
        for (i, _, _), p in zip(rows, probs):
            out[i] = max(out[i], p)
        self.stats["pairs"] += len(pairs)
        self.stats["windows"] += len(rows)
        self.stats["ms"] += (time.perf_counter() - t0) * 1000
        return out


def _entailment_prob(logits: np.ndarray, index: int) -> np.ndarray:
    logits = logits.astype(np.float32)
    if logits.ndim == 2 and logits.shape[1] == 1:  # single-logit head: sigmoid
        return 1.0 / (1.0 + np.exp(-logits[:, 0]))
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return (e[:, index] / e.sum(axis=1)).astype(np.float32)


def load_checker(spec: ModelSpec, **kwargs):
    """Build the NLI checker a models.toml entry describes, after verifying its file.

    Raises:
        ModelFileError: missing or corrupt file (names the fix).
        ConfigError: not an NLI model, unknown input format, or no tokenizer.

    ``input_format = "t5-true"`` gives an :class:`~vericite.engine.nli_t5.OnnxT5Checker`;
    ``number_guard = true`` puts :class:`~vericite.engine.guard.NumberGuard` in front of either.
    """
    if spec.number_guard:
        from dataclasses import replace

        from .guard import NumberGuard

        return NumberGuard(load_checker(replace(spec, number_guard=False), **kwargs))
    if spec.role != "nli":
        raise ConfigError(f"model {spec.name!r} is not an NLI model")
    if spec.input_format == "t5-true":
        from .nli_t5 import load_t5_checker

        return load_t5_checker(spec, **kwargs)
    if spec.input_format != "cross-encoder":
        raise ConfigError(f"model {spec.name!r}: unknown input_format {spec.input_format!r} "
                          "(expected 'cross-encoder' or 't5-true')")
    path = verify(spec)
    tok = tokenizer_path(spec)
    if tok is None:
        raise ConfigError(f"model {spec.name!r}: cross-encoder needs 'tokenizer' (a tokenizer.json path)")
    return OnnxCrossEncoder(path, tok, max_length=spec.max_length, entailment_index=spec.entailment_index,
                            premise_window=spec.premise_window, name=spec.name, file_sha256=spec.sha256, **kwargs)
