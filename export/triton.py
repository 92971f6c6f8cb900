"""`vericite export triton`: a Triton model repository for an exported NLI checker.

Writes, for the checker ``M`` (a models.toml ``format = "onnx"`` cross-encoder entry)::

    OUT/M/config.pbtxt      platform onnxruntime_onnx (or backend python), max_batch_size, the
                            inputs and outputs named and typed from the ONNX graph, dynamic batching
                            (max queue delay, preferred sizes), instance group, and parameters the
                            client reads (the ONNX file's sha256, the padded width buckets, max_length)
    OUT/M/1/model.onnx      the checker, byte for byte
    OUT/M/1/model.py        only with ``backend = "python"``: the same ONNX file run by ONNX Runtime
                            inside Triton's Python backend (for a Triton without the onnxruntime backend,
                            e.g. the one inside the nvidia-pytriton wheel)
    OUT/M/tokenizer.json    the tokenizer the client needs (Triton ignores files that are not versions)
    OUT/M/vericite.json     manifest: source entry and files with sha256, the config's choices, and the
                            models.toml entry that points the engine at the served model

:func:`graph_io` reads the graph's inputs and outputs; :func:`check_config` compares a written
config against them (it parses the text with Triton's own ModelConfig schema when tritonclient is
installed, see :func:`parse_config`).
"""
from __future__ import annotations

import json
import logging
import shutil
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vericite.engine.config.registry import ModelSpec, sha256_file, tokenizer_path
from vericite.engine.nli.triton import (
    DEFAULT_WIDTH_BUCKETS,
    PARAM_BUCKETS,
    PARAM_MAX_LENGTH,
    PARAM_SHA256,
    width_buckets,
)

log = logging.getLogger(__name__)

BACKENDS = ("onnxruntime", "python")
KINDS = ("cpu", "gpu")
#: ONNX TensorProto element type -> Triton data type (those a checker's graph can have)
_ONNX_TO_TRITON = {1: "TYPE_FP32", 6: "TYPE_INT32", 7: "TYPE_INT64", 10: "TYPE_FP16", 11: "TYPE_FP64", 9: "TYPE_BOOL"}


@dataclass(frozen=True)
class Tensor:
    """One graph input or output: name, Triton data type, dims with the batch dim first (-1 = dynamic)."""

    name: str
    data_type: str
    dims: tuple[int, ...]


def graph_io(onnx_path: str | Path) -> tuple[list[Tensor], list[Tensor]]:
    """The ONNX graph's inputs (initializers excluded) and outputs, in graph order.

    Raises:
        ValueError: a tensor type Triton cannot take here.
    """
    import onnx

    model = onnx.load(str(onnx_path), load_external_data=False)
    inits = {i.name for i in model.graph.initializer}

    def tensors(values) -> list[Tensor]:
        out = []
        for v in values:
            if v.name in inits:
                continue
            t = v.type.tensor_type
            if t.elem_type not in _ONNX_TO_TRITON:
                raise ValueError(f"{onnx_path}: {v.name} has ONNX element type {t.elem_type}, not one Triton takes here")
            dims = tuple(d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim)
            out.append(Tensor(v.name, _ONNX_TO_TRITON[t.elem_type], dims))
        return out

    return tensors(model.graph.input), tensors(model.graph.output)


def preferred_sizes(max_batch_size: int) -> list[int]:
    """Powers of two from 8 up to ``max_batch_size`` (and ``max_batch_size`` itself)."""
    sizes = [s for s in (8, 16, 32, 64, 128, 256) if s < max_batch_size]
    return sizes + [max_batch_size]


def config_text(name: str, inputs: Sequence[Tensor], outputs: Sequence[Tensor], *, max_batch_size: int,
                queue_delay_us: int, preferred: Sequence[int], instances: int, kind: str, backend: str,
                threads: int, parameters: dict[str, str]) -> str:
    """config.pbtxt for the model (protobuf text format of Triton's ModelConfig)."""
    def tensor_block(ts: Sequence[Tensor]) -> str:
        items = []
        for t in ts:
            dims = t.dims[1:] if max_batch_size > 0 else t.dims  # Triton adds the batch dim itself
            items.append(f'  {{\n    name: "{t.name}"\n    data_type: {t.data_type}\n'
                         f'    dims: [ {", ".join(str(d) for d in dims)} ]\n  }}')
        return "[\n" + ",\n".join(items) + "\n]"

    head = 'platform: "onnxruntime_onnx"' if backend == "onnxruntime" else 'backend: "python"'
    params = {**parameters}
    if kind == "cpu":
        # the onnxruntime backend's thread settings (the python model.py reads the same keys)
        params.setdefault("intra_op_thread_count", str(threads))
        params.setdefault("inter_op_thread_count", "1")
    lines = [
        "# written by `vericite export triton`; inputs and outputs are the ONNX graph's",
        f'name: "{name}"',
        head,
        f"max_batch_size: {max_batch_size}",
        f"input {tensor_block(inputs)}",
        f"output {tensor_block(outputs)}",
    ]
    if max_batch_size > 0:
        lines.append("dynamic_batching {\n"
                     f"  preferred_batch_size: [ {', '.join(str(p) for p in preferred)} ]\n"
                     f"  max_queue_delay_microseconds: {queue_delay_us}\n}}")
    lines.append(f"instance_group [\n  {{\n    count: {instances}\n    kind: KIND_{kind.upper()}\n  }}\n]")
    for k, v in params.items():
        lines.append(f'parameters {{\n  key: "{k}"\n  value {{ string_value: "{v}" }}\n}}')
    return "\n".join(lines) + "\n"


#: model.py of ``backend = "python"``: the ONNX file run by ONNX Runtime inside Triton's Python backend.
MODEL_PY = '''"""Triton Python-backend model written by `vericite export triton --backend python`: runs model.onnx
(beside this file) with ONNX Runtime, for a Triton without the onnxruntime backend. Inputs and outputs
are the ones config.pbtxt declares; requests the dynamic batcher joins are run as one batch per shape."""
import json
import os

import numpy as np
import onnxruntime as ort
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        params = {k: v.get("string_value", "") for k, v in (config.get("parameters") or {}).items()}
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(params.get("intra_op_thread_count") or 1)
        opts.inter_op_num_threads = int(params.get("inter_op_thread_count") or 1)
        path = os.path.join(args["model_repository"], args["model_version"], "model.onnx")
        self.session = ort.InferenceSession(path, sess_options=opts, providers=["CPUExecutionProvider"])
        self.inputs = [i["name"] for i in config["input"]]
        self.outputs = [o["name"] for o in config["output"]]

    def execute(self, requests):
        feeds = [{n: pb_utils.get_input_tensor_by_name(r, n).as_numpy() for n in self.inputs} for r in requests]
        results = [None] * len(requests)
        groups = {}
        for i, f in enumerate(feeds):
            groups.setdefault(tuple(f[n].shape[1:] for n in self.inputs), []).append(i)
        for members in groups.values():
            joined = {n: np.concatenate([feeds[i][n] for i in members]) for n in self.inputs}
            outs = self.session.run(self.outputs, joined)
            start = 0
            for i in members:
                rows = len(feeds[i][self.inputs[0]])
                results[i] = [o[start:start + rows] for o in outs]
                start += rows
        return [pb_utils.InferenceResponse([pb_utils.Tensor(n, np.ascontiguousarray(o)) for n, o in zip(self.outputs, r)])
                for r in results]
'''


def export_triton(spec: ModelSpec, out: str | Path, *, model_name: str | None = None, max_batch_size: int = 64,
                  queue_delay_us: int = 2000, preferred: Sequence[int] | None = None, instances: int = 1,
                  kind: str = "cpu", backend: str = "onnxruntime", threads: int = 1,
                  buckets: Sequence[int] = DEFAULT_WIDTH_BUCKETS, url: str = "http://127.0.0.1:8000",
                  raw_entry: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Write the Triton model repository ``out`` for the checker ``spec`` (see the module docstring).

    Args:
        spec: a ``format = "onnx"``, ``input_format = "cross-encoder"`` NLI entry (its file is verified).
        out: the repository folder (created; the model's own folder in it is replaced).
        model_name: the model's name in the repository (default: the entry's name).
        max_batch_size: rows per batch at most (Triton's; the client sends no more per request).
        queue_delay_us: how long the dynamic batcher waits for more requests (microseconds).
        preferred: preferred batch sizes (default :func:`preferred_sizes`).
        instances: model instances (each its own session).
        kind: "cpu" or "gpu" (instance group kind).
        backend: "onnxruntime" (platform onnxruntime_onnx) or "python" (model.py runs the ONNX file).
        threads: ONNX Runtime intra-op threads per instance (cpu).
        buckets: padded widths the client rounds batches up to (capped at the entry's max_length).
        url: the server url written into the manifest's models.toml entry.
        raw_entry: the entry as models.toml has it: its checker settings (threshold, languages,
            grade bands, ...) are copied into that entry.

    Returns:
        The manifest (also written as ``vericite.json``).

    Raises:
        ValueError: a bad option, or an entry that is not an ONNX cross-encoder, or a graph whose
            first dimension is fixed while ``max_batch_size`` > 0.
        ModelFileError: the entry's file is missing or corrupt.
    """
    from vericite.engine.config.registry import verify

    if spec.role != "nli" or spec.format != "onnx" or spec.input_format != "cross-encoder":
        raise ValueError(f"model {spec.name!r}: `export triton` takes an ONNX cross-encoder NLI entry "
                         f"(got role {spec.role}, format {spec.format}, input_format {spec.input_format})")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if backend == "python" and kind == "gpu":
        raise ValueError("backend 'python' runs ONNX Runtime on CPU; use backend 'onnxruntime' for kind 'gpu'")
    for label, value, low in (("max_batch_size", max_batch_size, 0), ("queue_delay_us", queue_delay_us, 0),
                              ("instances", instances, 1), ("threads", threads, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{label} must be a whole number >= {low}, got {value!r}")
    preferred = list(preferred) if preferred else preferred_sizes(max_batch_size) if max_batch_size else []
    if any(p < 1 or p > max_batch_size for p in preferred):
        raise ValueError(f"preferred batch sizes {preferred} must lie in 1..max_batch_size ({max_batch_size})")
    src = verify(spec)
    tok = tokenizer_path(spec)
    if tok is None or not tok.is_file():
        raise ValueError(f"model {spec.name!r}: tokenizer {tok} not found")
    inputs, outputs = graph_io(src)
    if max_batch_size > 0:
        fixed = [t.name for t in (*inputs, *outputs) if not t.dims or t.dims[0] != -1]
        if fixed:
            raise ValueError(f"{src}: {fixed} have a fixed first dimension; Triton can batch only a dynamic one "
                             "(export with a dynamic batch axis, or --max-batch-size 0)")
    name = model_name or spec.name
    onnx_sha = spec.sha256 or sha256_file(src)
    bucket_list = width_buckets(spec.max_length, buckets)
    params = {PARAM_SHA256: onnx_sha, PARAM_BUCKETS: ",".join(map(str, bucket_list)),
              PARAM_MAX_LENGTH: str(spec.max_length)}
    text = config_text(name, inputs, outputs, max_batch_size=max_batch_size, queue_delay_us=queue_delay_us,
                       preferred=preferred, instances=instances, kind=kind, backend=backend, threads=threads,
                       parameters=params)
    problems = check_config(text, inputs, outputs)
    if problems:  # a bug here, never the user's: refuse to write a config Triton would reject
        raise ValueError(f"generated config.pbtxt is inconsistent: {problems}")
    out = Path(out)
    mdir = out / name
    if mdir.exists():
        shutil.rmtree(mdir)
    (mdir / "1").mkdir(parents=True)
    shutil.copyfile(src, mdir / "1" / "model.onnx")
    if backend == "python":
        (mdir / "1" / "model.py").write_text(MODEL_PY, encoding="utf-8")
    shutil.copyfile(tok, mdir / "tokenizer.json")
    (mdir / "config.pbtxt").write_text(text, encoding="utf-8")
    entry = models_toml_entry(spec, name, url=url, tokenizer=(mdir / "tokenizer.json").resolve(), sha256=onnx_sha,
                              raw_entry=raw_entry)
    manifest = {
        "schema": 1,
        "kind": "triton-model-repository",
        "model_name": name,
        "source": {"entry": spec.name, "path": str(src), "sha256": onnx_sha, "tokenizer": str(tok)},
        "files": [{"file": str(p.relative_to(mdir)), "sha256": sha256_file(p), "size_bytes": p.stat().st_size}
                  for p in sorted(mdir.rglob("*")) if p.is_file()],
        "config": {"backend": backend, "max_batch_size": max_batch_size, "queue_delay_us": queue_delay_us,
                   "preferred_batch_size": preferred, "instances": instances, "kind": kind, "threads": threads,
                   "width_buckets": list(bucket_list)},
        "inputs": [t.__dict__ | {"dims": list(t.dims)} for t in inputs],
        "outputs": [t.__dict__ | {"dims": list(t.dims)} for t in outputs],
        "nli": {"max_length": spec.max_length, "entailment_index": spec.entailment_index,
                "premise_window": spec.premise_window, "sentence_window": spec.sentence_window},
        "models_toml": entry,
    }
    (mdir / "vericite.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    log.info("wrote Triton model %s (%s, max_batch_size %d) to %s", name, backend, max_batch_size, mdir)
    return manifest


#: keys of an onnx entry that describe its file, not the checker: not copied into the triton entry
_FILE_KEYS = {"role", "format", "source", "path", "tokenizer", "sha256", "size", "description", "build", "licence",
              "input_format"}


def models_toml_entry(spec: ModelSpec, name: str, *, url: str, tokenizer: Path, sha256: str,
                      raw_entry: Mapping[str, Any] | None = None) -> str:
    """The models.toml entry that runs ``spec``'s checker on Triton: the served model, the local
    tokenizer, the spec's window keys, and every checker key of ``raw_entry`` (the entry as written:
    threshold, languages, grade bands, ...; without it the profile keeps its defaults)."""
    def toml(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        return json.dumps(list(v) if isinstance(v, tuple) else v)

    keys: dict[str, Any] = {"max_length": spec.max_length, "entailment_index": spec.entailment_index}
    if spec.premise_window:
        keys["premise_window"] = spec.premise_window
    if spec.sentence_window:
        keys["sentence_window"] = spec.sentence_window
    if spec.number_guard:
        keys["number_guard"] = True
    keys.update(raw_entry or {})
    lines = [f'[models."{spec.name}-triton"]', 'role = "nli"', 'format = "triton"', f"url = {toml(url)}",
             f"model_name = {toml(name)}", f"tokenizer = {toml(str(tokenizer))}", f"sha256 = {toml(sha256)}"]
    lines += [f"{k} = {toml(v)}" for k, v in keys.items() if k not in _FILE_KEYS]
    if spec.licence:
        lines.append(f"licence = {toml(spec.licence)}")
    lines.append(f"description = {toml(spec.name + ' served by Triton (`vericite export triton`)')}")
    return "\n".join(lines) + "\n"


def parse_config(text: str):
    """``text`` parsed as Triton's ``ModelConfig`` protobuf (unknown fields and bad enums fail).

    The schema is tritonclient's generated ``model_config_pb2`` (in the ``triton`` extra), loaded from
    its file so that the gRPC client's own imports are not needed.

    Raises:
        ImportError: tritonclient is not installed.
        google.protobuf.text_format.ParseError: not a valid ModelConfig.
    """
    import importlib.util

    import tritonclient
    from google.protobuf import text_format

    path = Path(tritonclient.__file__).parent / "grpc" / "model_config_pb2.py"
    spec = importlib.util.spec_from_file_location("_vericite_triton_model_config_pb2", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"tritonclient's model_config_pb2 not found at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return text_format.Parse(text, module.ModelConfig())


def check_config(text: str, inputs: Sequence[Tensor], outputs: Sequence[Tensor]) -> list[str]:
    """What in a config.pbtxt disagrees with the graph's inputs/outputs (empty: nothing).

    Checked: names (same set), data types, dims (without the batch dim when max_batch_size > 0),
    dynamic batching's preferred sizes within max_batch_size, and one instance at least. Without
    tritonclient the text is not parsed and only ``[]`` comes back (logged).
    """
    try:
        cfg = parse_config(text)
    except ImportError as e:
        log.info("config.pbtxt not parsed (tritonclient missing: %s)", e)
        return []
    from_enum = cfg.DESCRIPTOR.fields_by_name["input"].message_type.fields_by_name["data_type"].enum_type
    problems = []
    for what, declared, graph in (("input", cfg.input, inputs), ("output", cfg.output, outputs)):
        want = {t.name: t for t in graph}
        got = {t.name: t for t in declared}
        if set(want) != set(got):
            problems.append(f"{what} names {sorted(got)} != graph {sorted(want)}")
            continue
        for n, t in want.items():
            dt = from_enum.values_by_number[got[n].data_type].name
            if dt != t.data_type:
                problems.append(f"{what} {n}: data_type {dt} != graph {t.data_type}")
            dims = tuple(t.dims[1:] if cfg.max_batch_size > 0 else t.dims)
            if tuple(got[n].dims) != dims:
                problems.append(f"{what} {n}: dims {list(got[n].dims)} != graph {list(dims)}")
    if cfg.max_batch_size > 0 and cfg.HasField("dynamic_batching"):
        bad = [p for p in cfg.dynamic_batching.preferred_batch_size if not 0 < p <= cfg.max_batch_size]
        if bad:
            problems.append(f"preferred_batch_size {bad} outside 1..{cfg.max_batch_size}")
    if not cfg.instance_group or any(g.count < 1 for g in cfg.instance_group):
        problems.append("instance_group needs count >= 1")
    return problems


def main_export(args) -> dict[str, Any]:
    """`vericite export triton` (argparse namespace from export/cli.py)."""
    from vericite.engine.config.registry import Registry

    registry = Registry.load(args.models)
    spec = registry.get(args.nli, "nli")
    raw = tomllib.loads(registry.source.read_text(encoding="utf-8"))["models"][spec.name]
    return export_triton(spec, args.out, model_name=args.model_name, max_batch_size=args.max_batch_size,
                         queue_delay_us=args.queue_delay_us, instances=args.instances, kind=args.kind,
                         backend=args.backend, threads=args.threads, url=args.url, raw_entry=raw)


__all__ = ["BACKENDS", "KINDS", "MODEL_PY", "Tensor", "check_config", "config_text", "export_triton", "graph_io",
           "models_toml_entry", "parse_config", "preferred_sizes"]
