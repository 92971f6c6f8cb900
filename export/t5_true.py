"""Export a T5 "TRUE-style" NLI checker to ONNX as one graph: encoder + first decoder step -> P("1").

TRUE (Honovich et al. 2022, "TRUE: Re-evaluating Factual Consistency Evaluation";
``google/t5_xxl_true_nli_mixture``, T5-11B v1.0) reads ``premise: {premise} hypothesis:
{hypothesis}`` and generates "1" (entailed) or "0"; its authors call ``generate(max_new_tokens=10)``
one pair at a time. The verdict is decided by the first generated token, so the graph here runs
the encoder once and the decoder for one step from the start token (``<pad>``), and returns

    p_true[b] = softmax(lm_logits[b, 0, :])[id("1")]        float32, shape [batch]

over the whole vocabulary (``id("1")`` = 209 in T5's vocabulary; looked up from the tokenizer).
With greedy decoding the first generated token is "1" exactly when it is the arg-max, so
``p_true > 0.5`` implies generation starts with "1" (the tests check the value against the
first-step score of ``generate``). Scoring is one encoder pass + one decoder step, batched.

Export: ``torch.onnx.export`` with the TorchScript exporter (``dynamo=False``; the dynamo exporter
of torch 2.13 needs ``onnxscript``, which this project does not install), opset :data:`OPSET`,
dynamic batch and sequence axes. A model whose fp32 weights exceed :data:`EXTERNAL_DATA_BYTES`
(TRUE: 44 GB, far over protobuf's 2 GB limit) is written as ``model.onnx`` (graph) +
``model.onnx.data`` (all weights, one file); ``external_data=True`` forces that layout for small
models, which is how the tests cover the path an 11B user runs. The weights are streamed tensor
by tensor when rewritten or int8-quantized, but the export itself needs the torch model in memory
plus the exporter's copy: plan on roughly 2-3x the fp32 size in RAM for 11B (~100+ GB).

Quantization: as :mod:`vericite.export.nli_onnx` (``int8`` weight-only, batch-invariant, the
default; ``int8-dynamic`` onnxruntime dynamic quantization; ``none``), except that the T5 FFN
output projections ``DenseReluDense.wo`` stay fp32: their inputs carry the largest activations of
T5 and transformers keeps exactly these modules in fp32 for half-precision T5
(``T5PreTrainedModel._keep_in_fp32_modules = ["wo"]``).

Parity gate (as the cross-encoder's): the fixed pair set is scored by the PyTorch fp32 single-step
P("1") and by the written ONNX model in onnxruntime; if label agreement at 0.5 is below
``min_agreement`` or max |dP| exceeds ``max_abs_dp``, :class:`ExportValidationError` is raised
and nothing is written to ``out``. The default limits (0.99, 0.05) are the cross-encoder's; they
are checked here on a tiny random T5 only, not on the 11B checkpoint.
"""
from __future__ import annotations

import json
import logging
import shutil
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vericite.engine.config.registry import sha256_file
from vericite.engine.nli.t5 import (  # the runtime's template and output name
    OUTPUT_NAME,
    TRUE_TEMPLATE,
)

from .nli_onnx import (  # the exporters' shared skeleton and weight passes
    ExportValidationError,
    _check_options,
    _fast_tokenizer,
    _file_record,
    _gate_pairs,
    _opset,
    _parity_gate,
    _publish,
    _quantize_weights_int8,
    _read_json,
    _rewrite_weights,
    _stage_tokenizer_and_config,
    _staging_dir,
    _version,
    export_cross_encoder,
)

log = logging.getLogger(__name__)

__all__ = ["TRUE_TEMPLATE", "export_nli", "export_t5_true", "first_step_module", "is_t5_wo", "true_token_id"]

#: ONNX opset (DequantizeLinear with per-axis scales needs >= 13).
OPSET = 18
#: fp32 weight bytes above which the weights go to an external data file (protobuf caps a file at 2 GB).
EXTERNAL_DATA_BYTES = 1_800_000_000
#: The external data file's name, next to model.onnx.
DATA_FILE = "model.onnx.data"
MODEL_FILE = "model.onnx"
#: Default parity-gate limit on max |P_torch - P_onnx| (the cross-encoder's default).
DEFAULT_MAX_ABS_DP = 0.05
#: Rows per batch when scoring parity pairs (torch and onnxruntime alike).
_SCORE_BATCH = 16
#: Model types this path exports (mT5 shares T5's modules).
_T5_TYPES = ("t5", "mt5")
#: Weight files a local Hugging Face folder may hold (any of them, possibly sharded).
_WEIGHT_GLOBS = ("model*.safetensors", "pytorch_model*.bin")


def is_t5_wo(node: Any) -> bool:
    """True for the MatMul of a T5 FFN output projection (``DenseReluDense.wo``) in an exported graph.

    The TorchScript exporter names nodes after the module path, e.g.
    ``/model/encoder/block.0/layer.1/DenseReluDense/wo/MatMul``.
    """
    return node.op_type == "MatMul" and ("/DenseReluDense/wo/" in node.name or "DenseReluDense.wo" in node.name)


def true_token_id(tokenizer: Any, text: str = "1") -> int:
    """The single token id that ``tokenizer(text, add_special_tokens=False)`` gives (T5: "1" -> 209).

    Raises:
        ExportValidationError: ``text`` is not exactly one token for this tokenizer.
    """
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    if len(ids) != 1:
        raise ExportValidationError(f"{text!r} is {len(ids)} tokens {ids} for this tokenizer; a TRUE-style checker "
                                    "needs it to be exactly one token (its answer is that token)")
    return int(ids[0])


def first_step_module(model: Any, token_id: int) -> Any:
    """A torch module: (input_ids, attention_mask) int64 [batch, seq] -> P(token_id) float32 [batch]."""
    import torch

    class FirstStepPTrue(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.start = int(model.config.decoder_start_token_id)

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            start = torch.full_like(input_ids[:, :1], self.start)  # [batch, 1], traced with a dynamic batch
            # the model's own forward: includes the d_model**-0.5 scaling of tied-embedding (v1.0) heads
            logits = self.model(input_ids=input_ids, attention_mask=attention_mask, decoder_input_ids=start,
                                use_cache=False, return_dict=True).logits[:, 0, :]
            return torch.softmax(logits.float(), dim=-1)[:, token_id]

    return FirstStepPTrue().eval()


def _texts(pairs: Sequence[tuple[str, str]], template: str) -> list[str]:
    return [template.format(premise=p, hypothesis=h) for p, h in pairs]


def _score_torch(module: Any, tokenizer: Any, texts: list[str], max_length: int) -> Any:
    """P("1") per text from the torch single-step module: float64 [n]."""
    import numpy as np
    import torch

    out = []
    with torch.inference_mode():
        for i in range(0, len(texts), _SCORE_BATCH):
            enc = tokenizer(texts[i:i + _SCORE_BATCH], padding=True, truncation=True, max_length=max_length,
                            return_tensors="pt")
            out.append(module(enc["input_ids"], enc["attention_mask"]).double().numpy())
    return np.concatenate(out)


def _score_onnx(session: Any, tokenizer: Any, texts: list[str], max_length: int) -> Any:
    """P("1") per text from an onnxruntime session of the export: float64 [n]."""
    import numpy as np

    out = []
    for i in range(0, len(texts), _SCORE_BATCH):
        enc = tokenizer(texts[i:i + _SCORE_BATCH], padding=True, truncation=True, max_length=max_length,
                        return_tensors="np")
        feeds = {k: np.asarray(enc[k], dtype=np.int64) for k in ("input_ids", "attention_mask")}
        (p,) = session.run([OUTPUT_NAME], feeds)
        out.append(np.asarray(p, dtype=np.float64))
    return np.concatenate(out)


def _check_runtime_tokenization(tokenizer: Any, tok_json: Path, pairs: Sequence[tuple[str, str]],
                                template: str, max_length: int) -> dict[str, Any]:
    """Check that the runtime's piecewise ids (:class:`~vericite.engine.nli.t5.TrueInputEncoder`) equal the
    Hugging Face tokenizer's ids of the joined text, on every pair short enough for one window.

    Raises:
        ExportValidationError: a pair's ids differ (names the first one).
    """
    from tokenizers import Tokenizer
    from vericite.engine.nli.t5 import TrueInputEncoder

    fast = Tokenizer.from_file(str(tok_json))
    fast.no_padding()
    fast.no_truncation()
    enc = TrueInputEncoder(fast, template=template, max_length=max_length)
    n = 0
    for p, h in pairs:
        want = tokenizer(template.format(premise=p, hypothesis=h))["input_ids"]
        if len(want) > max_length:
            continue
        got = enc.windows(p, h)
        if got != [want]:
            raise ExportValidationError(
                f"the runtime tokenization differs from the tokenizer's on pair {(p, h)!r}: {got} vs {want}; "
                "this tokenizer cannot be served by the piecewise T5 runtime")
        n += 1
    return {"pairs_checked": n, "identical": True}


def _weight_files(src: Path) -> list[Path]:
    files = sorted({f for g in _WEIGHT_GLOBS for f in src.glob(g) if f.is_file()})
    if not files:
        raise FileNotFoundError(f"{src} has no model*.safetensors or pytorch_model*.bin weights")
    return files


def export_t5_true(
    src: str | Path,
    out: str | Path,
    *,
    quantize: str = "int8",
    max_length: int = 512,
    parity_pairs: list[tuple[str, str]] | None = None,
    min_agreement: float = 0.99,
    max_abs_dp: float = DEFAULT_MAX_ABS_DP,
    external_data: bool | None = None,
) -> dict:
    """Export a T5 TRUE-style checker (encoder + first decoder step -> P("1")) to ONNX behind a parity gate.

    The graph takes ``input_ids`` and ``attention_mask`` (int64, shape ``[batch, seq]``, both axes
    dynamic; right padding with the pad id, ids of ``TRUE_TEMPLATE`` filled in, ``</s>`` last) and
    returns ``p_true`` (float32, ``[batch]``): softmax over the full vocabulary of the first decoder
    step's logits, at the id of "1" (module docstring).

    Steps: load ``src`` with ``T5ForConditionalGeneration`` (local files only, fp32); score the
    parity pairs with the torch single-step module; export it with ``torch.onnx.export``
    (TorchScript exporter, opset :data:`OPSET`) into a temporary folder next to ``out``; store the
    weights inline or in one ``model.onnx.data``; quantize; score the pairs with onnxruntime (CPU);
    check the gate; check that the runtime's tokenization equals the tokenizer's on those pairs;
    only then move ``model.onnx`` (+ ``model.onnx.data``), ``tokenizer.json``, ``config.json`` and
    ``manifest.json`` (written last) into ``out``. Other files in ``out`` are left alone, except
    that a stale ``model.onnx.data`` is removed when the new model has inline weights.

    Args:
        src: local Hugging Face T5 folder (``config.json``, safetensors or .bin weights, possibly
            sharded, and a fast tokenizer: ``tokenizer.json``, or ``spiece.model`` that
            transformers converts). Nothing is downloaded.
        out: output folder (created if missing); must differ from ``src``.
        quantize: ``"int8"`` (int8 weights, fp32 compute, batch-invariant; default),
            ``"int8-dynamic"`` (onnxruntime dynamic quantization; batch-dependent) or ``"none"``
            (fp32). In both int8 modes the ``wo`` MatMuls stay fp32.
        max_length: tokenizer ``max_length`` (truncation) for the gate; recorded in the manifest
            (TRUE: 512).
        parity_pairs: ``(premise, hypothesis)`` pairs; default: the first 200 SNLI test pairs
            (:func:`~vericite.export.nli_onnx.default_parity_pairs`).
        min_agreement: minimum fraction of pairs whose label at P = 0.5 agrees.
        max_abs_dp: maximum allowed ``|P_torch - P_onnx|`` over the pairs.
        external_data: True: weights in ``model.onnx.data``; False: inline (refused above 2 GB);
            None (default): external when the fp32 weights exceed :data:`EXTERNAL_DATA_BYTES`.

    Returns:
        The manifest dict (also ``out/manifest.json``): source (path, weight files with size and
        sha256, model type), opset, exporter, versions, quantization record (incl.
        ``kept_fp32_nodes``), onnx file sha256/size, ``external_data`` (list of ``{file, sha256,
        size_bytes}``, empty when inline), ``input_format``, ``true_token`` (text and id),
        decoder start and pad ids, ``max_length``, input/output names, ``tokenization`` check and
        ``parity`` figures (``n``, ``agreement``, ``max_abs_dp``, ``mean_abs_dp``, limits).

    Raises:
        ValueError: unknown ``quantize``, bad ``max_length``, ``out == src``, empty or malformed
            ``parity_pairs``, or ``external_data=False`` for weights over 2 GB.
        FileNotFoundError: ``src`` is not a local model folder with weights, or the default SNLI
            file is missing.
        ExportValidationError: not a T5 model; "1" is not a single token; no fast tokenizer; the
            ``wo`` MatMuls were not found; the runtime tokenization differs; or the parity gate
            failed (figures on ``.figures``). Nothing is written to ``out`` in any of these cases.
        ImportError: torch / transformers / onnx / onnxruntime missing.
    """
    _check_options(quantize, max_length, 16)
    src = Path(src).resolve()
    out = Path(out).resolve()
    if not (src / "config.json").is_file():
        raise FileNotFoundError(f"{src} is not a local model folder (no config.json)")
    weights = _weight_files(src)
    if out == src:
        raise ValueError("out must differ from src")
    config = json.loads((src / "config.json").read_text(encoding="utf-8"))
    if config.get("model_type") not in _T5_TYPES:
        raise ExportValidationError(f"{src}: model_type {config.get('model_type')!r}; the TRUE-style export "
                                    f"handles {_T5_TYPES} only")
    pairs, pairs_source = _gate_pairs(parity_pairs)

    import onnx
    import onnxruntime as ort
    import torch
    from transformers import T5ForConditionalGeneration

    log.info("loading %s (fp32)", src)
    tokenizer = _fast_tokenizer(src)
    token_id = true_token_id(tokenizer, "1")
    model = T5ForConditionalGeneration.from_pretrained(str(src), local_files_only=True, dtype=torch.float32)
    model = model.float().eval()
    param_bytes = sum(p.numel() * 4 for p in model.parameters())
    external = param_bytes > EXTERNAL_DATA_BYTES if external_data is None else bool(external_data)
    if not external and param_bytes > 2_000_000_000:
        raise ValueError(f"{src}: {param_bytes / 1e9:.1f} GB of fp32 weights cannot be stored inline "
                         "(protobuf limit 2 GB); use external_data=True")
    module = first_step_module(model, token_id)
    texts = _texts(pairs, TRUE_TEMPLATE)
    p_ref = _score_torch(module, tokenizer, texts, max_length)
    n_ffn = int(model.config.num_layers) + int(model.config.num_decoder_layers)

    with _staging_dir(out) as tmp:
        fp32_dir = tmp / "fp32"
        fp32_dir.mkdir()
        fp32_model = fp32_dir / MODEL_FILE
        dummy = tokenizer(texts[:2] if len(texts) > 1 else texts * 2, padding=True, truncation=True,
                          max_length=max_length, return_tensors="pt")
        log.info("exporting fp32 ONNX (opset %d, %.2f GB of weights) to %s", OPSET, param_bytes / 1e9, fp32_dir)
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore", category=torch.jit.TracerWarning)
            warnings.simplefilter("ignore", category=DeprecationWarning)  # "legacy TorchScript-based ONNX export"
            torch.onnx.export(
                module,
                (dummy["input_ids"], dummy["attention_mask"]),
                str(fp32_model),  # a str path: the exporter writes > 2 GB weights as external files beside it
                input_names=["input_ids", "attention_mask"],
                output_names=[OUTPUT_NAME],
                dynamic_axes={"input_ids": {0: "batch", 1: "sequence"},
                              "attention_mask": {0: "batch", 1: "sequence"},
                              OUTPUT_NAME: {0: "batch"}},
                opset_version=OPSET,
                dynamo=False,
            )
        del model, module  # the weights now live in the ONNX files; free the torch copy before quantizing

        fp32_graph = onnx.load(str(fp32_model), load_external_data=False)
        wo_nodes = [n.name for n in fp32_graph.graph.node if is_t5_wo(n)]
        opset = _opset(fp32_graph, OPSET)
        del fp32_graph
        if quantize != "none" and len(wo_nodes) != n_ffn:
            raise ExportValidationError(f"found {len(wo_nodes)} DenseReluDense/wo MatMuls in the exported graph, "
                                        f"expected {n_ffn} (one per layer); refusing to quantize them blindly")

        stage = tmp / "stage"
        stage.mkdir()
        staged = stage / MODEL_FILE
        data_name = DATA_FILE if external else None
        if quantize == "int8":
            qsettings = _quantize_weights_int8(fp32_model, staged, keep_fp32=is_t5_wo, external_data=data_name)
        elif quantize == "int8-dynamic":
            from onnxruntime.quantization import QuantType, quantize_dynamic

            dyn = tmp / "dynamic" / MODEL_FILE
            dyn.parent.mkdir()
            log.info("quantizing (dynamic, per-channel QInt8; %d wo MatMuls kept fp32)", len(wo_nodes))
            quantize_dynamic(fp32_model, dyn, per_channel=True, reduce_range=False, weight_type=QuantType.QInt8,
                             nodes_to_exclude=wo_nodes, use_external_data_format=external)
            _rewrite_weights(dyn, staged, external_data=data_name)
            qsettings = {"mode": "int8-dynamic", "method": "onnxruntime.quantization.quantize_dynamic",
                         "weight_type": "QInt8", "activation_type": "QUInt8 (dynamic)", "per_channel": True,
                         "reduce_range": False, "op_types": "default", "batch_invariant": False,
                         "kept_fp32_nodes": wo_nodes}
        else:
            _rewrite_weights(fp32_model, staged, external_data=data_name)
            qsettings = {"mode": "none", "dtype": "float32", "kept_fp32_nodes": []}
        qsettings["keep_fp32_rule"] = "T5 FFN output projection DenseReluDense.wo (MatMul)"
        shutil.rmtree(fp32_dir)
        staged_files = sorted(p.name for p in stage.iterdir())
        if staged_files != sorted([MODEL_FILE] + ([DATA_FILE] if external else [])):
            raise ExportValidationError(f"unexpected files next to the ONNX model: {staged_files}")

        sess = ort.InferenceSession(str(staged), providers=["CPUExecutionProvider"])
        input_names = [i.name for i in sess.get_inputs()]
        p_onnx = _score_onnx(sess, tokenizer, texts, max_length)
        del sess
        figures = _parity_gate(p_ref, p_onnx, batch_size=_SCORE_BATCH, pairs_source=pairs_source,
                               min_agreement=min_agreement, max_abs_dp=max_abs_dp, src=src, quantize=quantize,
                               out=out, dp_digits=5, logger=log,
                               reference="PyTorch fp32 single step: softmax(first-step logits)[id('1')]")

        _stage_tokenizer_and_config(src, tokenizer, stage)
        tokenization = _check_runtime_tokenization(tokenizer, stage / "tokenizer.json", pairs, TRUE_TEMPLATE,
                                                   max_length)

        data_entries = [_file_record(stage / DATA_FILE)] if external else []
        manifest: dict[str, Any] = {
            "schema": 1,
            "kind": "nli-t5-true",
            "source": {
                "path": str(src),
                "model_type": config.get("model_type"),
                "architectures": config.get("architectures"),
                "weights": [{"file": f.name, "size_bytes": f.stat().st_size, "sha256": sha256_file(f)} for f in weights],
                "metrics": _read_json(src / "metrics.json"),
            },
            "opset": int(opset),
            "exporter": "torch.onnx.export (TorchScript, dynamo=False)",
            "versions": {
                "torch": torch.__version__,
                "transformers": _version("transformers"),
                "onnx": _version("onnx"),
                "onnxruntime": ort.__version__,
                "tokenizers": _version("tokenizers"),
            },
            "quantization": qsettings,
            "onnx": _file_record(staged),
            "external_data": data_entries,
            "input_format": TRUE_TEMPLATE,
            "eos_appended": True,
            "true_token": {"text": "1", "id": token_id},
            "output": "softmax over the full vocabulary of the first decoder step's logits, at true_token.id",
            "decoder_start_token_id": int(config.get("decoder_start_token_id", 0) or 0),
            "pad_token_id": int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0),
            "vocab_size": int(config.get("vocab_size", 0)),
            "fp32_weight_bytes": int(param_bytes),
            "max_length": max_length,
            "truncation": "runtime: premise windows (max over windows); gate: tokenizer truncation at max_length",
            "input_names": input_names,
            "output_name": OUTPUT_NAME,
            "tokenization": tokenization,
            "parity": figures,
        }
        # weights before the graph, manifest last: a manifest always matches its files
        _publish(stage, out, manifest, ([DATA_FILE] if external else []) + [MODEL_FILE, "tokenizer.json", "config.json"])
        if not external and (out / DATA_FILE).exists():
            (out / DATA_FILE).unlink()  # a previous external export's weights; the new graph is self-contained
        log.info("wrote %s (%d bytes%s)", out / MODEL_FILE, manifest["onnx"]["size_bytes"],
                 f" + {data_entries[0]['size_bytes']} bytes of external weights" if external else "")
        return manifest


def export_nli(src: str | Path, out: str | Path, **kwargs: Any) -> dict:
    """Export an NLI checker, choosing the path from ``src/config.json``.

    T5 checkpoints (``model_type`` "t5"/"mt5", or an architecture ending in
    ``ForConditionalGeneration``) go to :func:`export_t5_true`; everything else to
    :func:`~vericite.export.nli_onnx.export_cross_encoder` (sequence classification).

    Args:
        src: local Hugging Face model folder.
        out: output folder.
        **kwargs: passed to the chosen exporter (``quantize``, ``max_length``, ``parity_pairs``,
            ``min_agreement``, ``max_abs_dp``; ``external_data`` for T5 only).

    Returns:
        The manifest dict; its ``kind`` is ``"nli-t5-true"`` for the T5 path.

    Raises:
        FileNotFoundError: no ``src/config.json``.
        ValueError: unreadable config.json; otherwise whatever the chosen exporter raises
            (a non-T5 seq2seq model is refused by :func:`export_t5_true`).
    """
    cfg_path = Path(src) / "config.json"
    if not cfg_path.is_file():
        raise FileNotFoundError(f"{src} is not a local model folder (no config.json)")
    try:
        config = json.loads(cfg_path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ValueError(f"{cfg_path}: invalid JSON: {e}") from e
    seq2seq = any(str(a).endswith("ForConditionalGeneration") for a in config.get("architectures") or [])
    if config.get("model_type") in _T5_TYPES or seq2seq:
        return export_t5_true(src, out, **kwargs)
    return export_cross_encoder(src, out, **kwargs)
