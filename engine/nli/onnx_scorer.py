"""The ONNX Runtime pair scorer under both checker families (cross-encoders and T5 TRUE-style).

:class:`OnnxPairScorer` owns what they share: the session (its feeds chosen from the model's own
input names), the tokenizer, premise windows, long-hypothesis parts, length-bucketed batches under a
token budget, the max over a pair's windows, the min over its hypothesis parts, and statistics. A
family supplies how a (premise, hypothesis part) becomes rows of token ids
(:meth:`OnnxPairScorer.encode_part`) and how one batch's outputs become probabilities
(:meth:`OnnxPairScorer.run_batch`). What runs a padded batch is pluggable (a :class:`BatchRunner`):
an ONNX Runtime session in process (:class:`SessionRunner`, the default), or a Triton server
(engine/nli/triton.py), so tokenization, windows and batches stay on this side either way.

Premise windows (:func:`plan_premise_windows`) are of two kinds, and a pair's score is the max over
all of them:

- token windows: ``budget`` tokens overlapping by half (:func:`premise_windows`);
- sentence windows (``sentence_window`` = K > 0): every run of 1..K consecutive sentences
  (:func:`sentence_windows`). Why: a small checker scores a one-sentence paraphrase far lower once
  unrelated sentences share its window (the MiniLM checker on a paraphrase of the last sentence of
  a 560-token document: 0.28 in 128-token windows, 0.89 with K = 2, tests/*/test_premise_windows.py),
  so each sentence, and each sentence with its neighbours (for "It ..."), is also scored on its
  own. The cost: rows per pair grow with the premise's sentences (K x sentences, at most
  :data:`MAX_SENTENCE_WINDOWS` more), but sentence rows are short.

A hypothesis longer than the family's part limit is never cut: it is split into sentences (a
sentence still too long into clause and then token chunks, :func:`split_hypothesis`), each part is
scored against the premise, and the pair's score is the min over parts: every part must be entailed.
"""
from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from ..errors import ConfigError, InferenceError, ModelFileError
from .batching import DEFAULT_BATCH_TOKENS, DEFAULT_MAX_BATCH, plan_batches

log = logging.getLogger(__name__)

#: Premises are cut to this many tokens before windowing (a huge document must not cost
#: thousands of windows; the LLM never sees more than its context of it anyway).
MAX_PREMISE_TOKENS = 8192
#: Sentence windows per pair at most (40 sentences with K = 2 make 79): beyond it the widest are
#: dropped first, then the single sentences past the cap (logged once per process).
MAX_SENTENCE_WINDOWS = 64

_logged: set[str] = set()  # messages logged once per process


def _log_once(key: str, msg: str, *args) -> None:
    """``msg`` at INFO the first time ``key`` is seen, at DEBUG afterwards."""
    level = logging.DEBUG if key in _logged else logging.INFO
    _logged.add(key)
    log.log(level, msg, *args)


#: Environment variable that picks the checker's execution provider (``vericite --nli-ep`` sets it).
NLI_EP_ENV = "VERICITE_NLI_EP"
#: Execution-provider choices: "auto" = CUDA when this onnxruntime build has it, else CPU;
#: "cuda" = CUDA or an error (never a silent CPU run); "cpu" = CPU even on onnxruntime-gpu.
NLI_EPS = {"auto": ("CUDAExecutionProvider", "CPUExecutionProvider"), "cuda": ("CUDAExecutionProvider",),
           "cpu": ("CPUExecutionProvider",)}
_GPU_FIX = ("install the GPU build of ONNX Runtime: pip uninstall -y onnxruntime onnxruntime-gpu && "
            "pip install -e '.[gpu]' (docs/gpu.md)")


def ep_providers(ep: str | None = None) -> list[str]:
    """The providers an execution-provider choice asks for (:data:`NLI_EPS`); ``ep`` None reads
    :data:`NLI_EP_ENV` (default "auto").

    Raises:
        ConfigError: an unknown choice, or "cuda" on an onnxruntime build without CUDA (names the fix).
    """
    import onnxruntime as ort

    source = "argument" if ep is not None else NLI_EP_ENV
    ep = (ep if ep is not None else os.environ.get(NLI_EP_ENV) or "auto").strip().lower()
    if ep not in NLI_EPS:
        raise ConfigError(f"NLI execution provider {ep!r} (from {source}) is not one of {sorted(NLI_EPS)}")
    available = ort.get_available_providers()
    if ep == "cuda" and "CUDAExecutionProvider" not in available:
        raise ConfigError(f"NLI execution provider 'cuda' (from {source}): onnxruntime {ort.__version__} has no "
                          f"CUDAExecutionProvider (it has {available}); {_GPU_FIX}")
    return list(NLI_EPS[ep])


def select_providers(prefer: Sequence[str] | None) -> list[str]:
    """ONNX Runtime execution providers to ask for, in order: ``prefer`` (default: the choice in
    :data:`NLI_EP_ENV`, "auto" = CUDA, then CPU; :func:`ep_providers`) filtered to those this
    onnxruntime build has (onnxruntime-gpu has CUDA; onnxruntime has CPU only).

    Raises:
        ConfigError: none of the wanted providers is available.
    """
    import onnxruntime as ort

    available = ort.get_available_providers()
    wanted = list(prefer) if prefer else ep_providers()
    chosen = [p for p in wanted if p in available]
    if not chosen:
        raise ConfigError(f"none of the execution providers {wanted} is available; have {available}")
    if "CUDAExecutionProvider" in chosen and hasattr(ort, "preload_dlls"):
        ort.preload_dlls()  # CUDA / cuDNN from the nvidia-* wheels of the [gpu] extra (onnxruntime-gpu >= 1.21)
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


def sentence_windows(sentences: Sequence[Sequence[int]], k: int, budget: int, *,
                     skip: set[tuple[int, ...]] | frozenset = frozenset(),
                     cap: int = MAX_SENTENCE_WINDOWS) -> list[list[int]]:
    """Windows of 1..``k`` consecutive sentences, as token ids.

    Args:
        sentences: each premise sentence's token ids, in order (the premise cut to
            :data:`MAX_PREMISE_TOKENS` tokens: later sentences are dropped).
        k: the widest window, in sentences (0 or less: none).
        budget: premise tokens a row has room for. A window of 2+ sentences over it is skipped (its
            sentences are scored in narrower windows); one sentence over it is cut into token
            windows of its own (:func:`premise_windows`, aligned to the sentence's start).
        skip: windows (tuples of ids) already scored, e.g. the token windows: not repeated (a
            one-sentence premise is not scored twice).
        cap: at most this many windows; single sentences come first (in order), then pairs, ...

    Returns:
        The windows, ordered by width then position, each a list of ids with at most ``budget``.
    """
    if k <= 0 or not sentences:
        return []
    sents, total = [], 0
    for sent in sentences:
        total += len(sent)
        if total > MAX_PREMISE_TOKENS:
            break
        sents.append(list(sent))
    seen = set(skip)
    out: list[list[int]] = []
    planned = 0
    for width in range(1, min(k, len(sents)) + 1):
        for start in range(len(sents) - width + 1):
            ids = [t for sent in sents[start:start + width] for t in sent]
            if not ids or (len(ids) > budget and width > 1):
                continue
            for w in (premise_windows(ids, budget) if len(ids) > budget else [ids]):
                key = tuple(w)
                if key in seen:
                    continue
                seen.add(key)
                planned += 1
                if len(out) < cap:
                    out.append(w)
    if planned > cap:
        _log_once("sentence-cap", "premise of %d sentences: %d sentence windows capped at %d "
                  "(MAX_SENTENCE_WINDOWS)", len(sents), planned, cap)
    return out


def plan_premise_windows(ids: list[int], budget: int, sentences: Sequence[Sequence[int]] | None = None,
                         sentence_window: int = 0, cap: int = MAX_SENTENCE_WINDOWS) -> list[list[int]]:
    """All premise windows of one row budget: the token windows (:func:`premise_windows`), then the
    sentence windows (:func:`sentence_windows`) that are not already among them.

    Args:
        ids: the premise's token ids.
        budget: premise tokens per row (>= 1).
        sentences: the premise's sentences as token ids (needed only when ``sentence_window`` > 0).
        sentence_window: K, the widest sentence window; 0 = token windows only.
        cap: sentence windows at most.

    Returns:
        Lists of token ids, at least one (an empty premise gives ``[[]]``).
    """
    windows = premise_windows(ids, budget)
    if sentence_window > 0 and sentences:
        windows += sentence_windows(sentences, sentence_window, budget, skip={tuple(w) for w in windows}, cap=cap)
    return windows


@lru_cache(maxsize=4096)
def text_sentences(text: str) -> tuple[str, ...]:
    """``text``'s sentences (:func:`~vericite.engine.text.splitter.split_sentences`, pysbd) in its detected
    language (English when unsure). Cached: a premise is met once per hypothesis it is checked against."""
    from ..text.language import detect_or
    from ..text.splitter import split_sentences

    return tuple(split_sentences(text, detect_or(text, "en")))


def window_ids(premise: str, ids: Callable[[str], list[int]], budget: int, sentence_window: int = 0,
               cap: int = MAX_SENTENCE_WINDOWS) -> list[list[int]]:
    """A premise's windows for one row budget (:func:`plan_premise_windows`), tokenized by ``ids``.

    Args:
        premise: the premise text.
        ids: text -> token ids without special tokens (the family's tokenization).
        budget: premise tokens per row.
        sentence_window: K (0: token windows only; the premise is then not split).
        cap: sentence windows at most.
    """
    sentences = [ids(s) for s in text_sentences(premise)] if sentence_window > 0 and premise.strip() else None
    return plan_premise_windows(ids(premise), budget, sentences, sentence_window, cap)


#: Where a sentence too long for one hypothesis part is cut first: after , ; : and around dashes.
_CLAUSE = re.compile(r"(?<=[,;:])\s+|\s+(?=[\u2013\u2014-]\s)")


def split_hypothesis(text: str, ids: Callable[[str], list[int]], limit: int) -> list[list[int]]:
    """A hypothesis as parts of at most ``limit`` tokens each, for one score per part.

    Sentences first (:func:`text_sentences`); a sentence over ``limit`` is cut at clause boundaries
    (commas, semicolons, colons, dashes), consecutive clauses packed while they fit; a clause still
    over ``limit`` is cut into ``limit``-token chunks. Nothing is dropped: the parts together hold
    every token of ``text`` (as tokenized piecewise).

    Args:
        text: the hypothesis.
        ids: text -> token ids without special tokens.
        limit: tokens per part (>= 1).

    Returns:
        Token id lists, each non-empty and at most ``limit`` long; ``[ids(text)]`` when it fits.

    Raises:
        ValueError: ``limit`` < 1.
    """
    if limit < 1:
        raise ValueError(f"hypothesis part limit must be >= 1, got {limit}")
    whole = ids(text)
    if len(whole) <= limit:
        return [whole]
    parts: list[list[int]] = []
    for sent in text_sentences(text) or (text,):
        sid = ids(sent)
        if len(sid) <= limit:
            if sid:
                parts.append(sid)
            continue
        current = ""
        for clause in _CLAUSE.split(sent):
            joined = f"{current} {clause}".strip()
            if len(ids(joined)) <= limit:
                current = joined
                continue
            if current:
                parts.append(ids(current))
            cid = ids(clause)
            if len(cid) <= limit:
                current = clause
            else:  # no clause boundary left: fixed token chunks
                parts.extend(cid[i:i + limit] for i in range(0, len(cid), limit))
                current = ""
        if current:
            parts.append(ids(current))
    return [p for p in parts if p] or [whole[i:i + limit] for i in range(0, len(whole), limit)]


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


def bucket_width(width: int, buckets: Sequence[int]) -> int:
    """The padded width of a batch whose longest row has ``width`` tokens: the smallest of
    ``buckets`` (ascending) that holds it, else ``width`` itself (no buckets, or wider than all).

    Why: a server that batches the requests of many callers (Triton's dynamic batcher) can join
    only tensors of one shape, so a remote checker pads every batch to one of a few fixed widths.
    In process no buckets are set and a batch is padded to its longest row. Padding never changes a
    row's score beyond float rounding: padded positions have attention mask 0.
    """
    for b in buckets:
        if b >= width:
            return b
    return width


def _check_cuda_loaded(asked: Sequence[str], got: Sequence[str], model_path: Path) -> None:
    """onnxruntime-gpu lists CUDA among its providers even when the CUDA / cuDNN libraries are
    missing, and a session then quietly runs on CPU: an error when CUDA was asked for alone, a
    warning when CPU was an allowed fallback.

    Raises:
        ConfigError: CUDA alone was asked for and the session did not get it.
    """
    if "CUDAExecutionProvider" not in asked or "CUDAExecutionProvider" in got:
        return
    msg = (f"ONNX Runtime could not start CUDAExecutionProvider for {model_path} (session providers {list(got)}): "
           "its CUDA 13 / cuDNN 9 libraries did not load; pip install -e '.[gpu]' installs them (docs/gpu.md)")
    if "CPUExecutionProvider" not in asked:
        raise ConfigError(msg)
    log.warning("%s; running on CPU", msg)


class SessionRunner:
    """What runs one padded batch in process: an ONNX Runtime session.

    A runner is the one pluggable part of :class:`OnnxPairScorer`: ``runner(feeds, outputs=None)``
    takes input name -> int64 ``[rows, width]`` and returns the graph's outputs (all, in graph
    order, or those named); it has ``input_names``, ``output_names``, ``ep``, ``intra_op_threads``,
    ``label`` (a default checker name) and ``what`` (for error messages). The Triton client
    (:class:`~vericite.engine.nli.triton.TritonRunner`) is the other one.

    Args:
        model_path: the .onnx file.
        providers: execution providers in order of preference (default CUDA, then CPU).
        intra_op_threads: ONNX Runtime intra-op threads (default: all cores).

    Raises:
        ModelFileError: ONNX Runtime cannot load the model.
        ConfigError: none of ``providers`` is available.
    """

    what = "ONNX Runtime"

    def __init__(self, model_path: str | Path, *, providers: Sequence[str] | None = None,
                 intra_op_threads: int | None = None):
        import onnxruntime as ort

        model_path = Path(model_path)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = intra_op_threads or os.cpu_count() or 1
        opts.log_severity_level = 3
        chosen = select_providers(providers)
        try:
            self.session = ort.InferenceSession(str(model_path), sess_options=opts, providers=chosen)
        except Exception as e:  # onnxruntime raises its own exception types for corrupt graphs
            raise ModelFileError(f"ONNX Runtime could not load {model_path}: {e}") from e
        _check_cuda_loaded(chosen, self.session.get_providers(), model_path)
        self.input_names = [i.name for i in self.session.get_inputs()]
        self.output_names = [o.name for o in self.session.get_outputs()]
        self.ep = self.session.get_providers()[0]
        self.intra_op_threads = opts.intra_op_num_threads
        self.label = model_path.parent.name

    def __call__(self, feeds: dict[str, np.ndarray], outputs: Sequence[str] | None = None) -> list[np.ndarray]:
        return self.session.run(list(outputs) if outputs else None, feeds)


class BatchRunner(Protocol):
    """What :class:`OnnxPairScorer` needs of a runner (:class:`SessionRunner` is the in-process one)."""

    # read-only members: the scorers only read them (so a runner's list of names is a Sequence[str])
    @property
    def what(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def ep(self) -> str: ...
    @property
    def intra_op_threads(self) -> int | None: ...
    @property
    def input_names(self) -> Sequence[str]: ...
    @property
    def output_names(self) -> Sequence[str]: ...

    def __call__(self, feeds: dict[str, np.ndarray], outputs: Sequence[str] | None = None) -> list[np.ndarray]: ...


class OnnxPairScorer:
    """Base of the ONNX checkers: ``scores(pairs) -> float32 [n]``, P(entailment) per pair.

    Args:
        model_path: the .onnx file (None when ``runner`` is given).
        tokenizer_path: the model's tokenizer.json.
        batch_tokens: padded-token budget per ONNX Runtime call, rows x longest row (:func:`plan_batches`).
        max_batch: at most this many rows (premise windows) per call.
        providers: execution providers in order of preference (default CUDA, then CPU).
        intra_op_threads: ONNX Runtime intra-op threads (default: all cores).
        name: a label for traces (default: the model's folder name).
        runner: what runs a padded batch (default: a :class:`SessionRunner` on ``model_path``;
            ``providers`` and ``intra_op_threads`` are its options).
        width_buckets: pad every batch to the smallest of these widths that holds it
            (:func:`bucket_width`; default none: to its longest row).

    Attributes:
        name, ep (the execution provider in use), intra_op_threads, input_names (the graph's inputs),
        stats: ``pairs`` scored, ``windows`` (rows run: premise windows, token and sentence ones, x
        hypothesis parts), ``split_hypotheses`` (pairs whose hypothesis was split into parts),
        ``batches``, ``ms`` (wall time in scores()).

    Raises:
        ModelFileError: a file is missing, unreadable, or ONNX Runtime cannot load the model.
        ConfigError: none of ``providers`` is available.
    """

    #: row padding per input name (subclasses: the tokenizer's pad id for ``input_ids``)
    pad_values: dict[str, int] = {}

    def __init__(self, model_path: str | Path | None, tokenizer_path: str | Path, *,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS, max_batch: int = DEFAULT_MAX_BATCH,
                 providers: Sequence[str] | None = None, intra_op_threads: int | None = None, name: str = "",
                 runner: "BatchRunner | None" = None, width_buckets: Sequence[int] = ()):
        from tokenizers import Tokenizer

        tokenizer_path = Path(tokenizer_path)
        if runner is None:
            if model_path is None:
                raise ValueError("OnnxPairScorer needs model_path or runner")
            model_path = Path(model_path)
            if not model_path.is_file():
                raise ModelFileError(f"NLI model file not found: {model_path}")
            runner = SessionRunner(model_path, providers=providers, intra_op_threads=intra_op_threads)
        if not tokenizer_path.is_file():
            raise ModelFileError(f"NLI model file not found: {tokenizer_path}")
        self.model_path = Path(model_path) if model_path is not None else None
        self._runner = runner
        self.input_names = set(runner.input_names)
        try:
            self._tok = Tokenizer.from_file(str(tokenizer_path))
        except Exception as e:  # tokenizers raises a bare Exception on a malformed file
            raise ModelFileError(f"could not read tokenizer {tokenizer_path}: {e}") from e
        self._tok.no_padding()
        self._tok.no_truncation()
        self.batch_tokens = batch_tokens
        self.max_batch = max_batch
        self.width_buckets = tuple(sorted({int(w) for w in width_buckets if int(w) > 0}))
        self.name = name or (self.model_path.parent.name if self.model_path else runner.label)
        self.ep = runner.ep
        self.intra_op_threads = runner.intra_op_threads
        self.stats = {"pairs": 0, "windows": 0, "split_hypotheses": 0, "batches": 0, "ms": 0.0}

    def ids(self, text: str) -> list[int]:
        """Token ids of ``text`` without special tokens."""
        return self._tok.encode(text, add_special_tokens=False).ids if text else []

    # -- what a family supplies ---------------------------------------------------------------
    @property
    def hypothesis_limit(self) -> int:
        """Tokens one hypothesis part may have (longer hypotheses are split, :meth:`hypothesis_parts`);
        read-only, as the families' own properties."""
        return 160

    def hypothesis_ids(self, text: str) -> list[int]:
        """Token ids of a hypothesis (or one part of it) as the family writes it into a row."""
        return self.ids(text)

    def encode_part(self, premise: str, hyp: list[int]) -> list[dict[str, list[int]]]:
        """One premise with one hypothesis part (token ids, at most :attr:`hypothesis_limit`) as
        rows, one per premise window: input name -> token-level values (int)."""
        raise NotImplementedError

    def run_batch(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        """P(entailment) per row of one padded batch (float32 [rows])."""
        raise NotImplementedError

    # -- pairs as rows -----------------------------------------------------------------------
    def hypothesis_parts(self, hypothesis: str) -> list[list[int]]:
        """The hypothesis as token id lists of at most :attr:`hypothesis_limit` tokens: one (the whole
        hypothesis) when it fits, else its sentences / clauses / chunks (:func:`split_hypothesis`)."""
        whole = self.hypothesis_ids(hypothesis)
        if len(whole) <= self.hypothesis_limit:
            return [whole]
        return split_hypothesis(hypothesis, self.hypothesis_ids, self.hypothesis_limit)

    def encode(self, premise: str, hypothesis: str) -> list[dict[str, list[int]]]:
        """One pair as rows: every premise window with every hypothesis part (inspection; scoring
        goes through :meth:`scores`, which keeps track of which part a row belongs to)."""
        return [row for part in self.hypothesis_parts(hypothesis) for row in self.encode_part(premise, part)]

    # -- scoring ----------------------------------------------------------------------------
    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(entailment) for each (premise, hypothesis) pair.

        A hypothesis part's score is the max over its premise windows (token and sentence windows);
        the pair's score is the min over its hypothesis parts (one part unless the hypothesis is
        longer than :attr:`hypothesis_limit`: then each sentence must be entailed on its own).

        Returns:
            float32 array, shape [len(pairs)], values in [0, 1].

        Raises:
            InferenceError: ONNX Runtime failed, or a window's score is NaN or infinite (names the pair).
        """
        t0 = time.perf_counter()
        unit_pair: list[int] = []  # pair index per (pair, hypothesis part)
        owner: list[int] = []      # unit index per row
        rows: list[dict[str, list[int]]] = []
        split = 0
        for i, (premise, hypothesis) in enumerate(pairs):
            parts = self.hypothesis_parts(hypothesis)
            if len(parts) > 1:
                split += 1
                _log_once(f"split-hypothesis:{self.name}", "%s: hypothesis of %d tokens is longer than %d: scored as "
                          "%d parts, min over parts (first: %r)", self.name, sum(map(len, parts)),
                          self.hypothesis_limit, len(parts), hypothesis[:80])
            for part in parts:
                for row in self.encode_part(premise, part):
                    owner.append(len(unit_pair))
                    rows.append(row)
                unit_pair.append(i)
        probs = np.zeros(len(rows), dtype=np.float32)
        batches = plan_batches([len(r["input_ids"]) for r in rows], max_tokens=self.batch_tokens,
                               max_batch=self.max_batch)
        for idx in batches:
            width = bucket_width(max(len(rows[r]["input_ids"]) for r in idx), self.width_buckets)
            feeds = {}
            for key in rows[idx[0]]:
                arr = np.full((len(idx), width), self.pad_values.get(key, 0), dtype=np.int64)
                for j, r in enumerate(idx):
                    arr[j, :len(rows[r][key])] = rows[r][key]
                feeds[key] = arr
            feeds = {k: v for k, v in feeds.items() if k in self.input_names}
            try:
                probs[idx] = self.run_batch(feeds)
            except InferenceError:
                raise  # a remote runner's own error (it names the server)
            except Exception as e:
                raise InferenceError(f"{self._runner.what} ({self.name}) failed on a batch of {len(idx)} rows x "
                                     f"{width} tokens: {e}") from e
        # checked per window: the max over windows would hide a NaN window behind a finite one
        require_finite(probs, lambda: [pairs[unit_pair[u]] for u in owner], self.name)
        unit = np.zeros(len(unit_pair), dtype=np.float32)
        if rows:
            np.maximum.at(unit, np.asarray(owner, dtype=np.int64), probs)
        out = np.full(len(pairs), np.inf, dtype=np.float32)
        if unit_pair:
            np.minimum.at(out, np.asarray(unit_pair, dtype=np.int64), unit)
        out[np.isinf(out)] = 0.0  # a pair without rows (never from the families here) is not entailed
        self.stats["pairs"] += len(pairs)
        self.stats["windows"] += len(rows)
        self.stats["split_hypotheses"] += split
        self.stats["batches"] += len(batches)
        self.stats["ms"] += (time.perf_counter() - t0) * 1000
        return out
