"""The `vericite export` subcommands (registered through the ``vericite.commands`` entry point):
``export nli`` (HF checker -> ONNX) and ``export train-nli`` (fine-tune a checker). Importing this
module needs no torch: the export extra is imported when a command runs."""
from __future__ import annotations

import argparse
import json
import sys

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


def _cmd_train(args: argparse.Namespace) -> int:
    try:
        from .train_nli import main as train_main
    except ImportError as e:
        raise VeriCiteError(f"training needs the `export` extra: pip install -e '.[export]' ({e})") from e
    return train_main(args.rest)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``export nli`` and ``export train-nli`` to the `vericite` command line."""
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
    et = esub.add_parser("train-nli", help="fine-tune a binary NLI cross-encoder (see `vericite export train-nli --help`)",
                         add_help=False, prefix_chars="\x00")
    et.add_argument("rest", nargs=argparse.REMAINDER)
    et.set_defaults(func=_cmd_train)
