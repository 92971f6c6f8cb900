"""Export a binary NLI cross-encoder (sequence classification) to ONNX, optionally int8.

The checker scores ``P(entailment | premise, hypothesis)`` from a BERT-style
sequence-classification model with two labels (by default ``0=not_entailment``,
``1=entailment``). Inputs are ``tokenizer(premise, hypothesis)`` with
``truncation="only_first"`` (only the premise is cut) and ``max_length`` tokens;
the probability is ``softmax(logits, -1)[:, entailment_index]``.

:func:`export_cross_encoder` exports the model with optimum (fp32, dynamic batch
and sequence axes), optionally applies onnxruntime dynamic int8 quantization,
and only writes into the output folder after a parity gate against the PyTorch
fp32 model has passed.

Two int8 modes. ``int8`` (default) stores weights as int8 and computes in fp32:
scores do not depend on batch composition and it passes the default gate
(0.99 / 0.05). ``int8-dynamic`` (onnxruntime dynamic quantization, per-tensor
uint8 activations) is faster but not batch-invariant: on ``nli-minilm-l6-bin``
it flips ~1.5-2.5% of SNLI labels relative to PyTorch fp32 (max |dP| ~0.35), so
it must be given looser limits explicitly (they are recorded in the manifest).

Heavy imports (torch, transformers, optimum,
onnxruntime) happen inside the functions, so importing this module is cheap.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from vericite.engine.config.registry import sha256_file
from vericite.engine.config.paths import shared_dir

log = logging.getLogger(__name__)

__all__ = ["ExportValidationError", "default_parity_pairs", "export_cross_encoder"]

#: ONNX opset used for the export (optimum's recommended minimum for BERT).
OPSET = 18
#: Number of SNLI test pairs used by the parity gate when none are given.
DEFAULT_PARITY_N = 200
#: Batch size used when scoring parity pairs (both PyTorch and onnxruntime).
_SCORE_BATCH = 32
#: Files that make up an exported model folder; nothing else is written to ``out``.
MODEL_FILE = "model.onnx"
OUTPUT_FILES = (MODEL_FILE, "tokenizer.json", "config.json", "manifest.json")
#: "int8": int8 weights (per output channel, symmetric), fp32 activations and compute: scores do
#: not depend on what else is in the batch. "int8-dynamic": onnxruntime dynamic quantization
#: (int8 weights and per-tensor uint8 activations): faster, but a pair's score depends on its
#: batch (activation scale is per tensor, padding included). "none": fp32.
QUANT_MODES = ("int8", "int8-dynamic", "none")


class ExportValidationError(Exception):
    """The exported model failed a check (parity gate, label layout or head loading).

    Attributes:
        figures: the parity figures when the parity gate failed (``n``,
            ``agreement``, ``max_abs_dp``, ``mean_abs_dp``, limits), else ``{}``.
    """

    def __init__(self, message: str, figures: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.figures: dict[str, Any] = dict(figures or {})


def default_parity_pairs(n: int = DEFAULT_PARITY_N, path: str | Path | None = None) -> list[tuple[str, str]]:
    """The first ``n`` (premise, hypothesis) pairs of the SNLI test file.

    Args:
        n: number of pairs (file order, all labels).
        path: a JSONL file with ``premise`` and ``hypothesis`` fields; defaults
            to ``<shared>/data/nli/snli_test.jsonl`` where ``<shared>`` is
            ``$VERICITE_SHARED`` or the ``shared`` folder next to the repo root.

    Returns:
        A list of at most ``n`` ``(premise, hypothesis)`` string tuples.

    Raises:
        FileNotFoundError: the file does not exist (pass ``parity_pairs`` to
            :func:`export_cross_encoder` instead).
    """
    p = Path(path) if path is not None else shared_dir() / "data" / "nli" / "snli_test.jsonl"
    if not p.is_file():
        raise FileNotFoundError(
            f"parity pairs file not found: {p} (set VERICITE_SHARED or pass parity_pairs explicitly)"
        )
    pairs: list[tuple[str, str]] = []
    with p.open(encoding="utf-8") as fh:
        for line in fh:
            if len(pairs) >= n:
                break
            if not line.strip():
                continue
            row = json.loads(line)
            pairs.append((str(row["premise"]), str(row["hypothesis"])))
    return pairs


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _read_json(path: Path) -> Any:
    """A JSON file's content, or None when it is missing or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _check_pairs(pairs: Iterable[Sequence[str]]) -> list[tuple[str, str]]:
    out = []
    for i, pair in enumerate(pairs):
        if len(pair) != 2 or not all(isinstance(s, str) for s in pair):
            raise ValueError(f"parity pair {i} is not a (premise, hypothesis) pair of strings: {pair!r}")
        out.append((pair[0], pair[1]))
    if not out:
        raise ValueError("parity_pairs is empty")
    return out


def _entailment_index(id2label: dict[Any, str]) -> int:
    """Index of the ``entailment`` label in a 2-label ``id2label`` mapping."""
    labels = {int(k): str(v).lower() for k, v in id2label.items()}
    hits = [i for i, name in labels.items() if name == "entailment"]
    if len(labels) != 2 or len(hits) != 1:
        raise ExportValidationError(
            f"expected a 2-label classifier with exactly one 'entailment' label, got id2label={id2label!r}"
        )
    return hits[0]


def _encode(tokenizer: Any, pairs: Sequence[tuple[str, str]], max_length: int) -> dict[str, Any]:
    """Tokenise pairs as numpy int64 arrays of shape (batch, seq)."""
    return tokenizer(
        [p for p, _ in pairs],
        [h for _, h in pairs],
        truncation="only_first",
        max_length=max_length,
        padding=True,
        return_tensors="np",
    )


def _softmax_col(logits: Any, index: int) -> Any:
    import numpy as np

    z = np.asarray(logits, dtype=np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return (e[:, index] / e.sum(axis=-1)).astype(np.float64)


def _score_torch(model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], max_length: int, index: int) -> Any:
    """P(entailment) per pair from the PyTorch model: float64 array of shape (n,)."""
    import numpy as np
    import torch

    out = []
    with torch.inference_mode():
        for i in range(0, len(pairs), _SCORE_BATCH):
            enc = _encode(tokenizer, pairs[i : i + _SCORE_BATCH], max_length)
            feeds = {k: torch.from_numpy(np.asarray(v, dtype=np.int64)) for k, v in enc.items()}
            out.append(_softmax_col(model(**feeds).logits.float().numpy(), index))
    return np.concatenate(out)


def _score_onnx(
    session: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], max_length: int, index: int
) -> Any:
    """P(entailment) per pair from an onnxruntime session: float64 array of shape (n,)."""
    import numpy as np

    names = [i.name for i in session.get_inputs()]
    out = []
    for i in range(0, len(pairs), _SCORE_BATCH):
        enc = _encode(tokenizer, pairs[i : i + _SCORE_BATCH], max_length)
        feeds = {k: np.asarray(enc[k], dtype=np.int64) for k in names}
        (logits,) = session.run(["logits"], feeds)
        out.append(_softmax_col(logits, index))
    return np.concatenate(out)


def _parity_figures(p_ref: Any, p_onnx: Any, batch_size: int = _SCORE_BATCH) -> dict[str, Any]:
    import numpy as np

    d = np.abs(p_ref - p_onnx)
    agree = (p_ref > 0.5) == (p_onnx > 0.5)
    return {
        "n": int(len(d)),
        "threshold": 0.5,
        "batch_size": batch_size,
        "agreement": float(agree.mean()),
        "max_abs_dp": float(d.max()),
        "mean_abs_dp": float(d.mean()),
    }


# ------------------------------------------------------------------------------------------------
# The skeleton both exporters share (export_cross_encoder here, export/t5_true.py's export_t5_true):
# option checks, the gate's pairs, a staging folder next to ``out``, the parity gate, tokenizer and
# config, file records, and the move of the staged files into ``out`` with the manifest last.

def _check_options(quantize: str, max_length: int, min_max_length: int) -> None:
    """Raises ValueError for an unknown ``quantize`` or a ``max_length`` below ``min_max_length``."""
    if quantize not in QUANT_MODES:
        raise ValueError(f"quantize must be one of {QUANT_MODES}, got {quantize!r}")
    if max_length < min_max_length:
        raise ValueError(f"max_length too small: {max_length}")


def _gate_pairs(parity_pairs: list[tuple[str, str]] | None) -> tuple[list[tuple[str, str]], str]:
    """``(pairs, pairs_source)`` for the parity gate: the caller's pairs (checked) or :func:`default_parity_pairs`."""
    if parity_pairs is not None:
        return _check_pairs(parity_pairs), "caller"
    return default_parity_pairs(), f"snli_test.jsonl first {DEFAULT_PARITY_N}"


def _fast_tokenizer(src: Path) -> Any:
    """The Hugging Face tokenizer of ``src`` (local files only).

    Raises:
        ExportValidationError: it is not a fast tokenizer.
    """
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(src), local_files_only=True)
    if not getattr(tokenizer, "is_fast", False):
        raise ExportValidationError(f"{src}: a fast tokenizer (tokenizer.json) is required")
    return tokenizer


@contextmanager
def _staging_dir(out: Path) -> Iterator[Path]:
    """A temporary folder next to ``out`` (same file system: the final moves are renames), removed on exit."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _opset(model: Any, default: int) -> int:
    """The default-domain opset an ONNX ``ModelProto`` imports (``default`` when it names none)."""
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default)


def _parity_gate(p_ref: Any, p_onnx: Any, *, batch_size: int, pairs_source: str, min_agreement: float,
                 max_abs_dp: float, src: Path, quantize: str, out: Path, dp_digits: int = 4,
                 reference: str | None = None, logger: logging.Logger = log) -> dict[str, Any]:
    """The parity gate: figures of the written model's scores ``p_onnx`` against the reference ``p_ref``.

    Args:
        dp_digits: decimals of max|dP| in the log line and the error (mean|dP| gets one more).
        reference: a note on what ``p_ref`` is, recorded when given.
        logger: where the figures are logged (the calling exporter's logger).

    Returns:
        The manifest's ``parity`` record: :func:`_parity_figures` plus ``pairs_source``,
        ``min_agreement``, ``max_abs_dp_limit`` (and ``reference``).

    Raises:
        ExportValidationError: ``agreement < min_agreement`` or ``max|dP| > max_abs_dp`` (the
            figures are on ``.figures``).
    """
    figures = _parity_figures(p_ref, p_onnx, batch_size)
    figures.update(pairs_source=pairs_source, min_agreement=min_agreement, max_abs_dp_limit=max_abs_dp)
    if reference is not None:
        figures["reference"] = reference
    logger.info(f"parity gate: n=%d agreement=%.4f max|dP|=%.{dp_digits}f mean|dP|=%.{dp_digits + 1}f",
             figures["n"], figures["agreement"], figures["max_abs_dp"], figures["mean_abs_dp"])
    if figures["agreement"] < min_agreement or figures["max_abs_dp"] > max_abs_dp:
        raise ExportValidationError(
            f"parity gate failed for {src} ({quantize}): agreement {figures['agreement']:.4f} "
            f"(min {min_agreement}), max|dP| {figures['max_abs_dp']:.{dp_digits}f} (max {max_abs_dp}) "
            f"over {figures['n']} pairs; nothing written to {out}",
            figures,
        )
    return figures


def _stage_tokenizer_and_config(src: Path, tokenizer: Any, stage: Path) -> None:
    """Put ``tokenizer.json`` (the source's, verbatim; else saved from ``tokenizer``) and a verbatim
    ``config.json`` into ``stage``."""
    if (src / "tokenizer.json").is_file():
        shutil.copyfile(src / "tokenizer.json", stage / "tokenizer.json")
    else:  # e.g. converted from spiece.model by transformers
        tokenizer.backend_tokenizer.save(str(stage / "tokenizer.json"))
    shutil.copyfile(src / "config.json", stage / "config.json")


def _file_record(path: Path) -> dict[str, Any]:
    """``{"file": name, "sha256", "size_bytes"}`` of a written file, as the manifests list it."""
    return {"file": path.name, "sha256": sha256_file(path), "size_bytes": path.stat().st_size}


def _publish(stage: Path, out: Path, manifest: dict[str, Any], files: Sequence[str]) -> None:
    """Write ``manifest.json`` into ``stage``, then move ``files`` and the manifest into ``out``.

    The manifest moves last, so a manifest in ``out`` always matches the files next to it.
    """
    (stage / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    out.mkdir(parents=True, exist_ok=True)
    for name in [*files, "manifest.json"]:
        os.replace(stage / name, out / name)


#: Initializers smaller than this stay inside the .onnx file when weights go to an external file
#: (the same default as ``onnx.external_data_helper.convert_model_to_external_data``).
_EXTERNAL_MIN_BYTES = 1024
#: External tensors of at least 64 KiB start at a multiple of 64 KiB so ONNX Runtime can map them
#: from the file instead of copying (64 KiB covers both Linux pages and Windows' allocation granularity).
_EXTERNAL_ALIGN = 1 << 16


def _tensor_bytes(tensor: Any, base_dir: Path) -> bytes:
    """Raw little-endian bytes of an initializer, whether inline (raw or typed fields) or external."""
    from onnx import numpy_helper
    from onnx.external_data_helper import ExternalDataInfo, uses_external_data

    if uses_external_data(tensor):
        info = ExternalDataInfo(tensor)
        with (base_dir / info.location).open("rb") as fh:
            fh.seek(info.offset or 0)
            return fh.read(info.length) if info.length else fh.read()
    if tensor.HasField("raw_data"):
        return tensor.raw_data
    return numpy_helper.to_array(tensor).tobytes()


class _WeightSink:
    """Where a rewritten model's initializers go: inline in the .onnx file, or appended one by one
    to a single external data file next to it (``external_data`` = its file name).

    Streaming: only one tensor is in memory at a time, so an 11B model (44 GB fp32) can be
    rewritten or quantized without holding all of its weights.
    """

    def __init__(self, dst: Path, external_data: str | None):
        self.external_data = external_data
        self._fh = (dst.parent / external_data).open("wb") if external_data else None

    def put(self, tensor: Any, base_dir: Path) -> Any:
        """The initializer as the output model stores it (the caller replaces the original with it)."""
        from onnx import TensorProto, external_data_helper

        uses_external_data = external_data_helper.uses_external_data

        if self._fh is None:
            if uses_external_data(tensor):
                external_data_helper.load_external_data_for_tensor(tensor, str(base_dir))
                tensor.data_location = TensorProto.DEFAULT
                del tensor.external_data[:]
            return tensor
        data = _tensor_bytes(tensor, base_dir)
        if len(data) < _EXTERNAL_MIN_BYTES:
            if uses_external_data(tensor):
                tensor.raw_data = data
                tensor.data_location = TensorProto.DEFAULT
                del tensor.external_data[:]
            return tensor
        offset = self._fh.tell()
        if len(data) >= _EXTERNAL_ALIGN and offset % _EXTERNAL_ALIGN:
            self._fh.write(b"\0" * (_EXTERNAL_ALIGN - offset % _EXTERNAL_ALIGN))
            offset = self._fh.tell()
        self._fh.write(data)
        out = TensorProto(name=tensor.name, data_type=tensor.data_type, dims=list(tensor.dims))
        out.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self.external_data), ("offset", str(offset)), ("length", str(len(data)))):
            entry = out.external_data.add()
            entry.key, entry.value = key, value
        return out

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()


def _save_model(model: Any, dst: Path, external_data: str | None) -> None:
    """Save a model whose initializers came through a :class:`_WeightSink`, then check it."""
    import onnx

    if external_data is None:
        onnx.checker.check_model(model)
        onnx.save(model, str(dst))
    else:
        onnx.save(model, str(dst))
        onnx.checker.check_model(str(dst))  # by path: the weights stay on disk


def _rewrite_weights(src: Path, dst: Path, *, external_data: str | None) -> None:
    """Copy an ONNX model, storing every initializer inline or in one external file ``external_data``.

    Reads inline or (any number of) external data files of ``src``; streams tensor by tensor.
    """
    import onnx

    model = onnx.load(str(src), load_external_data=False)
    sink = _WeightSink(dst, external_data)
    try:
        inits = [sink.put(t, src.parent) for t in model.graph.initializer]
    finally:
        sink.close()
    del model.graph.initializer[:]
    model.graph.initializer.extend(inits)
    _save_model(model, dst, external_data)


def _weight_use(node: Any, inits: dict[str, Any], min_rows: int) -> tuple[int, int] | None:
    """(input slot, scale axis) when ``node`` consumes a weight the int8 pass quantizes, else None."""
    if node.op_type == "MatMul" and node.input[1] in inits and len(inits[node.input[1]].dims) == 2:
        return 1, 1  # weight [in, out]: one scale per output column
    if (node.op_type == "Gather" and node.input[0] in inits and len(inits[node.input[0]].dims) == 2
            and inits[node.input[0]].dims[0] >= min_rows):
        return 0, 0  # embedding table [rows, dim]: one scale per row
    return None


def _quantize_weights_int8(src: Path, dst: Path, *, min_rows: int = 1000,
                           keep_fp32: Callable[[Any], bool] | None = None,
                           external_data: str | None = None) -> dict[str, Any]:
    """Weight-only int8: each MatMul weight (per output column) and each large embedding table
    (per row) becomes int8 + fp32 scale behind a ``DequantizeLinear``; compute stays fp32.

    Symmetric, zero point 0, scale = max|w| / 127 per channel. A weight is quantized only when
    every node that reads it is such a use with the same axis and none of them is kept by
    ``keep_fp32`` (one ``DequantizeLinear`` then serves all of them, e.g. T5's embedding table read
    by both encoder and decoder).

    Args:
        src: fp32 model (weights inline or in external data files next to it).
        dst: output model path.
        min_rows: a Gather table needs at least this many rows to be quantized.
        keep_fp32: node predicate; the weights of the nodes it accepts stay fp32 (T5: the FFN
            output projections ``wo``). Their names are recorded in ``kept_fp32_nodes``.
        external_data: None: weights inline in ``dst`` (< 2 GB); else the file name, next to
            ``dst``, that receives every initializer of >= 1 KiB (streamed, for large models).

    Returns:
        The manifest's quantization record (counts of quantized tensors, kept nodes).
    """
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src), load_external_data=False)
    base = src.parent
    inits = {i.name: i for i in model.graph.initializer}
    readers: dict[str, int] = {}
    for node in model.graph.node:
        for name in node.input:
            if name in inits:
                readers[name] = readers.get(name, 0) + 1
    plan: dict[str, int] = {}     # initializer -> scale axis
    uses: dict[str, int] = {}
    blocked: set[str] = set()
    kept: list[str] = []
    for node in model.graph.node:
        use = _weight_use(node, inits, min_rows)
        if use is None:
            continue
        slot, axis = use
        name = node.input[slot]
        if keep_fp32 is not None and keep_fp32(node):
            kept.append(node.name)
            blocked.add(name)
        elif plan.setdefault(name, axis) != axis:
            blocked.add(name)
        uses[name] = uses.get(name, 0) + 1
    outputs = {o.name for o in model.graph.output}
    quant = {n: a for n, a in plan.items() if n not in blocked and n not in outputs and uses[n] == readers[n]}

    sink = _WeightSink(dst, external_data)
    new_inits = []
    try:
        for init in model.graph.initializer:
            name = init.name
            if name not in quant:
                new_inits.append(sink.put(init, base))
                continue
            axis = quant[name]
            w = numpy_helper.to_array(init, base_dir=str(base)).astype(np.float32)
            amax = np.abs(w).max(axis=1 - axis)
            scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
            shape = [1, 1]
            shape[axis] = -1
            q = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
            del w
            for arr, suffix in ((q, "int8"), (scale, "scale"), (np.zeros_like(scale, dtype=np.int8), "zp")):
                new_inits.append(sink.put(numpy_helper.from_array(arr, f"{name}_{suffix}"), base))
    finally:
        sink.close()
    del model.graph.initializer[:]
    model.graph.initializer.extend(new_inits)

    nodes, done, n_matmul, n_gather = [], set(), 0, 0
    for node in model.graph.node:
        use = _weight_use(node, inits, min_rows)
        if use is not None and node.input[use[0]] in quant:
            slot = use[0]
            name = node.input[slot]
            if name not in done:  # one DequantizeLinear per weight, just before its first reader
                done.add(name)
                nodes.append(helper.make_node("DequantizeLinear", [f"{name}_int8", f"{name}_scale", f"{name}_zp"],
                                              [f"{name}_dq"], axis=quant[name], name=f"{name}_DequantizeLinear"))
                n_matmul += node.op_type == "MatMul"
                n_gather += node.op_type == "Gather"
            node.input[slot] = f"{name}_dq"
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    _save_model(model, dst, external_data)
    log.info("int8 weights: %d MatMul weights, %d embedding tables; %d nodes kept fp32",
             n_matmul, n_gather, len(kept))
    return {"mode": "int8", "method": "weight-only int8 (DequantizeLinear), fp32 activations and compute",
            "weight_type": "int8 symmetric", "per_channel": True, "batch_invariant": True,
            "quantized_matmul_weights": n_matmul, "quantized_embedding_tables": n_gather,
            "kept_fp32_nodes": kept}


def export_cross_encoder(
    src: str | Path,
    out: str | Path,
    *,
    quantize: str = "int8",
    max_length: int = 320,
    parity_pairs: list[tuple[str, str]] | None = None,
    min_agreement: float = 0.99,
    max_abs_dp: float = 0.05,
) -> dict:
    """Export a 2-label NLI cross-encoder to ONNX (optionally int8) behind a parity gate.

    The graph takes ``input_ids``, ``attention_mask`` and ``token_type_ids``
    (int64, shape ``(batch, sequence)``, both axes dynamic) and returns
    ``logits`` (float32, shape ``(batch, 2)``); ``P(entailment)`` is
    ``softmax(logits, -1)[:, entailment_index]`` with the pair tokenised as
    ``tokenizer(premise, hypothesis, truncation="only_first", max_length=max_length)``.

    Steps: load ``src`` with ``AutoModelForSequenceClassification`` in fp32 and
    check the classifier head was loaded (not freshly initialised); export fp32
    ONNX with ``optimum.exporters.onnx.main_export`` (opset :data:`OPSET`) into
    a temporary folder next to ``out``; quantize (see ``quantize``); score ``parity_pairs`` with both PyTorch fp32 and the
    written ONNX model on onnxruntime CPU; only if the gate passes move
    ``model.onnx``, ``tokenizer.json``, ``config.json`` (verbatim copy of the
    source's) and ``manifest.json`` into ``out``. Other files already in
    ``out`` are left as they are; on failure ``out`` is not written to.

    Args:
        src: local Hugging Face model folder (``config.json``, ``model.safetensors``,
            tokenizer files). Nothing is downloaded.
        out: output folder (created if missing).
        quantize: ``"int8"`` (int8 weights, fp32 compute, batch-invariant; the default),
            ``"int8-dynamic"`` (onnxruntime dynamic quantization; faster, batch-dependent, needs
            looser gate limits) or ``"none"`` (fp32).
        max_length: tokenizer ``max_length`` for the gate, recorded in the manifest.
        parity_pairs: ``(premise, hypothesis)`` pairs for the gate; default:
            :func:`default_parity_pairs` (first 200 SNLI test pairs from the
            shared data folder).
        min_agreement: minimum fraction of pairs whose label at P=0.5 agrees
            between PyTorch and ONNX.
        max_abs_dp: maximum allowed ``|P_torch - P_onnx|`` over the pairs.

    Returns:
        The manifest dict (also written to ``out/manifest.json``): source path,
        sha256 and ``metrics.json`` content (or None), opset, library
        versions, quantization settings, onnx file sha256/size, labels,
        entailment_index, max_length, graph input names and the parity
        figures (``n``, ``agreement``, ``max_abs_dp``, ``mean_abs_dp`` and the
        limits used).

    Raises:
        ValueError: unknown ``quantize``, bad ``max_length`` or malformed/empty ``parity_pairs``.
        FileNotFoundError: ``src`` is not a local model folder, or no
            ``parity_pairs`` were given and the default SNLI file is missing.
        ExportValidationError: the classifier head is missing from the weights,
            the labels are not a 2-way entailment layout, or the parity gate
            failed (``agreement < min_agreement`` or ``max|dP| > max_abs_dp``;
            the figures are on ``.figures``).
        ImportError: torch / transformers / optimum-onnx / onnxruntime missing.
    """
    _check_options(quantize, max_length, 8)
    src = Path(src).resolve()
    out = Path(out).resolve()
    weights = src / "model.safetensors"
    if not (src / "config.json").is_file() or not weights.is_file():
        raise FileNotFoundError(f"{src} is not a local model folder with config.json and model.safetensors")
    if out == src:
        raise ValueError("out must differ from src")
    pairs, pairs_source = _gate_pairs(parity_pairs)

    import onnx
    import onnxruntime as ort
    import torch
    from optimum.exporters.onnx import main_export
    from transformers import AutoModelForSequenceClassification

    log.info("loading %s (fp32)", src)
    tokenizer = _fast_tokenizer(src)
    model, info = AutoModelForSequenceClassification.from_pretrained(
        str(src), local_files_only=True, dtype=torch.float32, output_loading_info=True
    )
    model = model.float().eval()
    missing = [k for k in info.get("missing_keys", []) if "classifier" in k or "score" in k]
    if missing:
        raise ExportValidationError(
            f"{src}: classifier head not in the weights (would be randomly initialised): {missing}"
        )
    id2label = {str(k): str(v) for k, v in model.config.id2label.items()}
    ent = _entailment_index(id2label)
    p_ref = _score_torch(model, tokenizer, pairs, max_length, ent)

    with _staging_dir(out) as tmp:
        fp32_dir = tmp / "fp32"
        log.info("exporting fp32 ONNX (opset %d) to %s", OPSET, fp32_dir)
        main_export(
            str(src),
            fp32_dir,
            task="text-classification",
            opset=OPSET,
            device="cpu",
            do_validation=False,
            local_files_only=True,
            library_name="transformers",
        )
        fp32_model = fp32_dir / MODEL_FILE
        stage = tmp / "stage"
        stage.mkdir()
        staged_model = stage / MODEL_FILE
        if quantize == "int8":
            qsettings = _quantize_weights_int8(fp32_model, staged_model)
        elif quantize == "int8-dynamic":
            from onnxruntime.quantization import QuantType, quantize_dynamic

            qsettings = {
                "mode": "int8-dynamic",
                "method": "onnxruntime.quantization.quantize_dynamic",
                "weight_type": "QInt8",
                "activation_type": "QUInt8 (dynamic)",
                "per_channel": True,
                "reduce_range": False,
                "op_types": "default",
            }
            log.info("quantizing (dynamic, per-channel QInt8)")
            quantize_dynamic(
                fp32_model, staged_model, per_channel=True, reduce_range=False, weight_type=QuantType.QInt8
            )
        else:
            qsettings = {"mode": "none", "dtype": "float32"}
            os.replace(fp32_model, staged_model)
        if any(p.name != MODEL_FILE for p in stage.iterdir()):
            raise ExportValidationError(f"unexpected extra files next to the ONNX model: {list(stage.iterdir())}")

        graph = onnx.load(str(staged_model), load_external_data=False)
        input_names = [i.name for i in graph.graph.input]
        opset = _opset(graph, OPSET)
        del graph

        sess = ort.InferenceSession(str(staged_model), providers=["CPUExecutionProvider"])
        p_onnx = _score_onnx(sess, tokenizer, pairs, max_length, ent)
        del sess
        figures = _parity_gate(p_ref, p_onnx, batch_size=_SCORE_BATCH, pairs_source=pairs_source,
                               min_agreement=min_agreement, max_abs_dp=max_abs_dp, src=src, quantize=quantize,
                               out=out)
        _stage_tokenizer_and_config(src, tokenizer, stage)

        manifest: dict[str, Any] = {
            "schema": 1,
            "kind": "nli-cross-encoder",
            "source": {
                "path": str(src),
                "model_safetensors_sha256": sha256_file(weights),
                # training provenance (base model, train/eval sets) when the source folder has it
                "metrics": _read_json(src / "metrics.json"),
            },
            "opset": int(opset),
            "versions": {
                "torch": torch.__version__,
                "transformers": _version("transformers"),
                "optimum": _version("optimum"),
                "optimum-onnx": _version("optimum-onnx"),
                "onnx": _version("onnx"),
                "onnxruntime": ort.__version__,
            },
            "quantization": qsettings,
            "onnx": _file_record(staged_model),
            "labels": {k: id2label[k] for k in sorted(id2label, key=int)},
            "entailment_index": ent,
            "max_length": max_length,
            "truncation": "only_first",
            "input_names": input_names,
            "output_name": "logits",
            "parity": figures,
        }
        _publish(stage, out, manifest, OUTPUT_FILES[:-1])  # OUTPUT_FILES ends with the manifest
        log.info("wrote %s (%d bytes, sha256 %s)", out / MODEL_FILE, manifest["onnx"]["size_bytes"], manifest["onnx"]["sha256"])
        return manifest
