"""The `vericite export` subcommands (registered through the ``vericite.commands`` entry point):
``export nli`` (HF checker -> ONNX), ``export train-nli`` (fine-tune a checker) and ``export prune-vocab``
(cut a SentencePiece vocabulary to a corpus, export/prune_vocab.py). Importing this
module needs no torch: the export extra is imported when a command runs."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vericite.engine.errors import VeriCiteError

#: ``--quantize`` modes of ``export nli`` (the same tuple as export.nli_onnx.QUANT_MODES, which
#: imports nothing heavy at module level).
from .nli_onnx import QUANT_MODES


def _cmd_export(args: argparse.Namespace) -> int:
    try:
        from .nli_onnx import ExportValidationError
        from .t5_true import export_nli
    except ImportError as e:
        raise VeriCiteError(f"export needs the `export` extra: pip install -e '.[export]' ({e})") from e
    kw = {"quantize": args.quantize}
    for k in ("max_length", "min_agreement", "max_abs_dp", "external_data"):
        if getattr(args, k) is not None:
            kw[k] = getattr(args, k)
    try:
        manifest = export_nli(args.src, args.out, **kw)
    except (ExportValidationError, FileNotFoundError, ValueError) as e:
        raise VeriCiteError(str(e)) from e
    json.dump(manifest, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def _cmd_triton(args: argparse.Namespace) -> int:
    try:
        from .triton import main_export
    except ImportError as e:
        raise VeriCiteError(f"export triton needs the `export` extra (onnx): pip install -e '.[export]' ({e})") from e
    try:
        manifest = main_export(args)
    except (FileNotFoundError, ValueError) as e:
        raise VeriCiteError(str(e)) from e
    if args.json:
        json.dump(manifest, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    repo = Path(args.out).resolve()
    mdir = repo / manifest["model_name"]
    print(f"wrote {mdir}/config.pbtxt, {mdir}/1/model.onnx, {mdir}/tokenizer.json, {mdir}/vericite.json")
    if args.backend == "onnxruntime":
        print(f"serve it:  docker run --rm -p 8000:8000 -v {repo}:/models nvcr.io/nvidia/tritonserver:<yy.mm>-py3 "
              "tritonserver --model-repository=/models")
    else:
        print(f"serve it:  python -m vericite.export.triton_server {repo} --port 8000   (nvidia-pytriton's tritonserver)")
    print(f"then add this entry to models.toml and pass --nli {manifest['source']['entry']}-triton:\n")
    print(manifest["models_toml"])
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    try:
        from .train_nli import main as train_main
    except ImportError as e:
        raise VeriCiteError(f"training needs the `export` extra: pip install -e '.[export]' ({e})") from e
    return train_main(args.rest)


def _cmd_prune(args: argparse.Namespace) -> int:
    try:
        from .prune_vocab import PruneCheckError
        from .prune_vocab import main as prune_main
    except ImportError as e:
        raise VeriCiteError(f"pruning needs the `export` extra: pip install -e '.[export]' ({e})") from e
    try:
        return prune_main(args.rest)
    except (PruneCheckError, FileNotFoundError, ValueError) as e:
        raise VeriCiteError(str(e)) from e


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``export nli``, ``export train-nli`` and ``export prune-vocab`` to the `vericite` command line."""
    e = sub.add_parser("export", help="export a Hugging Face model to ONNX (needs the export extra)")
    esub = e.add_subparsers(dest="what", required=True)
    en = esub.add_parser("nli", help="an NLI checker: sequence-classification cross-encoder, or T5 TRUE-style "
                                     "(encoder + first decoder step -> P(\"1\")); the family is read from config.json")
    en.add_argument("src", help="local Hugging Face model folder")
    en.add_argument("out", help="output folder (model.onnx, tokenizer.json, manifest.json)")
    en.add_argument("--quantize", choices=QUANT_MODES, default="int8",
                    help="int8: int8 weights, fp32 compute (batch-invariant); int8-dynamic: onnxruntime dynamic "
                         "quantization (faster, batch-dependent); none: fp32")
    en.add_argument("--max-length", type=int, help="tokens per pair (default 320 cross-encoder, 512 T5)")
    en.add_argument("--min-agreement", type=float, help="parity gate: min label agreement with PyTorch (default 0.99)")
    en.add_argument("--max-abs-dp", type=float, help="parity gate: max |P_torch - P_onnx| (default 0.05)")
    en.add_argument("--external-data", action=argparse.BooleanOptionalAction, default=None,
                    help="T5 only: weights in model.onnx.data (automatic above 1.8 GB; TRUE-11B needs it)")
    en.set_defaults(func=_cmd_export)
    tr = esub.add_parser("triton", help="a Triton model repository for an exported checker (config.pbtxt, 1/model.onnx, "
                                        "tokenizer, manifest)",
                         description="Write OUT/<model>/config.pbtxt (onnxruntime_onnx, inputs/outputs from the ONNX "
                                     "graph, dynamic batching, instance group), OUT/<model>/1/model.onnx, the tokenizer "
                                     "and vericite.json (with the models.toml entry for format = \"triton\").")
    tr.add_argument("out", help="the model repository folder (the model's folder in it is replaced)")
    tr.add_argument("--nli", help="the ONNX cross-encoder entry of models.toml (default: [defaults] nli)")
    tr.add_argument("--model-name", help="the model's name in the repository (default: the entry's name)")
    tr.add_argument("--max-batch-size", type=int, default=64, help="rows per batch at most (default 64)")
    tr.add_argument("--queue-delay-us", type=int, default=2000,
                    help="dynamic batching: max_queue_delay_microseconds (default 2000)")
    tr.add_argument("--instances", type=int, default=1, help="model instances (default 1)")
    tr.add_argument("--kind", choices=("cpu", "gpu"), default="cpu", help="instance group kind (default cpu)")
    tr.add_argument("--threads", type=int, default=1, help="ONNX Runtime intra-op threads per CPU instance (default 1)")
    tr.add_argument("--backend", choices=("onnxruntime", "python"), default="onnxruntime",
                    help="onnxruntime: platform onnxruntime_onnx (default); python: a model.py that runs the same "
                         "file with ONNX Runtime in Triton's Python backend (a Triton without the onnxruntime backend)")
    tr.add_argument("--url", default="http://127.0.0.1:8000", help="server url for the printed models.toml entry")
    tr.add_argument("--json", action="store_true", help="print the manifest as JSON")
    tr.set_defaults(func=_cmd_triton)
    et = esub.add_parser("train-nli", help="fine-tune a binary NLI cross-encoder (see `vericite export train-nli --help`)",
                         add_help=False, prefix_chars="\x00")
    et.add_argument("rest", nargs=argparse.REMAINDER)
    et.set_defaults(func=_cmd_train)
    ep = esub.add_parser("prune-vocab", help="keep the pieces a corpus uses of a SentencePiece-Unigram model's "
                                             "vocabulary, remap its embeddings (see `vericite export prune-vocab --help`)",
                         add_help=False, prefix_chars="\x00")
    ep.add_argument("rest", nargs=argparse.REMAINDER)
    ep.set_defaults(func=_cmd_prune)
