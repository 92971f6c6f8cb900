"""NLI backend: an ONNX Runtime cross-encoder that scores (premise, hypothesis) pairs.

``scores(pairs) -> P(entailment)``, float32, shape [n]. Pairs are tokenized with the model's
tokenizer.json (the `tokenizers` library, no transformers) as ``[CLS] premise [SEP] hypothesis
[SEP]``; batching, premise windows (token and sentence windows, max over windows) and long
hypotheses (split into parts, min over parts) come from
:class:`~vericite.engine.nli.onnx_scorer.OnnxPairScorer`.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .batching import DEFAULT_BATCH_TOKENS, DEFAULT_MAX_BATCH
from .onnx_scorer import BatchRunner, OnnxPairScorer, window_ids


class OnnxCrossEncoder(OnnxPairScorer):
    """A sequence-classification NLI model exported to ONNX.

    Args:
        model_path: the .onnx file.
        tokenizer_path: the model's tokenizer.json.
        max_length: tokens per pair (premise windowed to what is left after the hypothesis).
        entailment_index: which logit is "entailment".
        batch_size: at most this many rows (premise windows) per ONNX Runtime call.
        batch_tokens: padded-token budget per call, rows x longest row (see :func:`plan_batches`).
        providers: execution providers in order of preference (default CUDA, then CPU).
        intra_op_threads: ONNX Runtime intra-op threads (default: all cores).
        premise_window: premise tokens per window (default: all that fit ``max_length``); a small
            checker trained on short premises loses the fact in a long one, so shorter windows
            (max over windows) can be more accurate.
        sentence_window: K: also score the premise in every window of 1..K consecutive sentences
            (0 = token windows only); see :mod:`~vericite.engine.nli.onnx_scorer`.
        name: a label for traces.
        file_sha256: the model file's sha256 (for :attr:`cache_id`; default: its path).
        runner: what runs a padded batch instead of an in-process session (``model_path`` None),
            e.g. :class:`~vericite.engine.nli.triton.TritonRunner`; its first output is the logits.
        width_buckets: fixed padded widths (:func:`~vericite.engine.nli.onnx_scorer.bucket_width`).

    A hypothesis longer than ``max_length // 2`` tokens is split into sentences (then clauses,
    then chunks) scored one by one, min over them (:meth:`~OnnxPairScorer.hypothesis_parts`).

    Raises:
        ModelFileError: a file is missing or ONNX Runtime cannot load it.
        ValueError: ``sentence_window`` < 0.
    """

    def __init__(self, model_path: str | Path | None, tokenizer_path: str | Path, *, max_length: int = 320,
                 entailment_index: int = 1, batch_size: int = DEFAULT_MAX_BATCH,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS, providers: Sequence[str] | None = None,
                 intra_op_threads: int | None = None, premise_window: int | None = None,
                 sentence_window: int = 0, name: str = "", file_sha256: str = "",
                 runner: BatchRunner | None = None, width_buckets: Sequence[int] = ()):
        if sentence_window < 0:
            raise ValueError(f"sentence_window must be >= 0, got {sentence_window}")
        super().__init__(model_path, tokenizer_path, batch_tokens=batch_tokens, max_batch=batch_size,
                         providers=providers, intra_op_threads=intra_op_threads, name=name, runner=runner,
                         width_buckets=width_buckets)
        self.max_length = max_length
        self.premise_window = premise_window
        self.sentence_window = sentence_window
        self.entailment_index = entailment_index
        self._file_id = file_sha256 or (str(self.model_path.resolve()) if self.model_path else self._runner.label)
        self._cls = self._special(("[CLS]", "<s>"), 101)
        self._sep = self._special(("[SEP]", "</s>"), 102)

    @property
    def cache_id(self) -> str:
        """Identifies this model and every setting that changes a score (premise-hypothesis cache
        key); follows later changes of ``premise_window`` / ``sentence_window``."""
        return (f"cross-encoder|{self.name}|{self._file_id}|max_length={self.max_length}|"
                f"window={self.premise_window}|sentences={self.sentence_window}|hyp=split|"
                f"entail={self.entailment_index}")

    @property
    def hypothesis_limit(self) -> int:
        """Tokens per hypothesis part: half the row (a long hypothesis must not eat the premise window)."""
        return self.max_length // 2

    @property
    def batch_size(self) -> int:
        """Rows per ONNX Runtime call at most (the base's ``max_batch``)."""
        return self.max_batch

    def _special(self, toks: Sequence[str], default: int) -> int:
        """Id of the first of ``toks`` in the vocabulary (BERT ``[CLS]``/``[SEP]``, else XLM-R
        ``<s>``/``</s>``, the template of e.g. multilingual-e5), else ``default``."""
        for tok in toks:
            i = self._tok.token_to_id(tok)
            if i is not None:
                return i
        return default

    def encode_part(self, premise: str, hyp: list[int]) -> list[dict[str, list[int]]]:
        """Rows ``[CLS] window [SEP] hyp [SEP]`` with type ids 0 / 1, one per premise window (token
        windows, then sentence windows); ``hyp``: at most :attr:`hypothesis_limit` token ids."""
        budget = self.max_length - len(hyp) - 3
        if self.premise_window:
            budget = min(budget, self.premise_window)
        rows = []
        for w in window_ids(premise, self.ids, budget, self.sentence_window):
            ids = [self._cls, *w, self._sep, *hyp, self._sep]
            rows.append({"input_ids": ids, "attention_mask": [1] * len(ids),
                         "token_type_ids": [0] * (len(w) + 2) + [1] * (len(hyp) + 1)})
        return rows

    def run_batch(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        (logits,) = self._runner(feeds)[:1]
        return _entailment_prob(logits, self.entailment_index)


def _entailment_prob(logits: np.ndarray, index: int) -> np.ndarray:
    """P(entailment) per row of ``logits`` (float [n, labels]; one column: a sigmoid head), float32 [n].
    A row holding any NaN or infinite logit gives NaN, which :func:`~vericite.engine.nli.onnx_scorer.require_finite`
    refuses: softmax would turn a -inf "not entailed" logit into P = 1.0, a pass."""
    logits = logits.astype(np.float32)
    broken = ~np.isfinite(logits).all(axis=1) if logits.ndim == 2 else ~np.isfinite(logits)
    with np.errstate(invalid="ignore", over="ignore"):  # the broken rows become NaN below
        if logits.ndim == 2 and logits.shape[1] == 1:  # single-logit head: sigmoid
            p = 1.0 / (1.0 + np.exp(-logits[:, 0]))
        else:
            z = logits - logits.max(axis=1, keepdims=True)
            e = np.exp(z)
            p = e[:, index] / e.sum(axis=1)
    return np.where(broken, np.nan, p).astype(np.float32)
