"""The benchmark subcommands of `vericite` (registered through the ``vericite.commands`` entry point):
``bench NAME ...``, and the quality benchmark's ``run``, ``eval``, ``report``."""
from __future__ import annotations

import argparse
import functools
import importlib

from vericite.engine.errors import InputError
from vericite.engine.config.paths import shared_dir

BENCHES = {
    "items": ("vericite.bench.items", "run N items and count what each stage kept"),
    "gate": ("vericite.bench.gate", "calibrate the usefulness gate on labelled documents"),
    "nli": ("vericite.bench.nli_speed", "NLI pairs/s: PyTorch one pair per call vs ONNX batched, cache"),
    "conflicts": ("vericite.bench.conflicts", "conflict detection: planted number/year conflicts, false alarms, the brief's example"),
    "remote-stage2": ("vericite.bench.remote_stage2", "stage-2 wall time: in-process llama.cpp vs a llama-server on the same items"),
    "latency": ("vericite.bench.latency", "the authors' sequential order vs the scheduler, per stage"),
    "citation-check": ("vericite.bench.citation_check", "a checker on held-out NLI, swap pairs, HotpotQA support, the brief's example"),
    "gpu": ("vericite.bench.gpu_check", "one prepared GPU run: checker, TRUE-shaped T5 (ours vs HF bf16), LLM tokens/s"),
    "triton": ("vericite.bench.triton_check", "the checker on a local Triton server vs in process: scores, pairs/s"),
    "replay": ("vericite.bench.replay", "recorded runs through today's stage rules (recorded LLM replies, real checker)"),
    "serve": ("vericite.bench.serve_load", "load test of `vericite serve`: p50/p95, throughput, 429s, NLI batch size"),
    "serve-mix": ("vericite.bench.serve_mix", "honest and hostile requests mixed through `vericite serve`: "
                                              "honest answers as alone, 4xx for hostile, no 5xx, /health < 1 s"),
    "judge": ("vericite.bench.judge", "reader-judged quality: blinded packets of two methods' answers, their labels scored"),
    "support": ("vericite.bench.support", "the verify step against careful readers' support labels: precision of kept, recall, by language/dataset/stage"),
}
QUALITY = {
    "run": ("run_main", "run a method (vanilla, vericite, ablations) over a data file; resumable"),
    "eval": ("eval_main", "ALCE citation recall / precision / F1 and correctness of results files"),
    "report": ("report_main", "markdown table and bar chart of all methods side by side"),
}


def _data_errors(cmd):
    """A missing data file (most benches read ../shared) ends in one ``error:`` line, not a traceback."""
    @functools.wraps(cmd)
    def run(args: argparse.Namespace) -> int:
        try:
            return cmd(args)
        except FileNotFoundError as e:
            raise InputError(f"{e}; this benchmark reads the shared data folder ({shared_dir()}; "
                             "set VERICITE_SHARED to move it)") from e
    return run


@_data_errors
def _cmd_bench(args: argparse.Namespace) -> int:
    module = importlib.import_module(BENCHES[args.what][0])
    if args.what == "citation-check":  # takes its registry as --models
        return module.main(args.rest + (["--models", args.models] if args.models else []))
    return module.main(args.rest, models_toml=args.models)


@_data_errors
def _cmd_quality(args: argparse.Namespace) -> int:
    from . import run as quality

    return getattr(quality, QUALITY[args.command][0])(args.rest, models_toml=args.models)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``bench``, ``run``, ``eval`` and ``report`` to the `vericite` command line (options are
    parsed by each benchmark: ``vericite bench NAME --help``)."""
    b = sub.add_parser("bench", help="benchmarks (bench/): " + "; ".join(f"{k} = {v[1]}" for k, v in BENCHES.items()))
    b.add_argument("what", choices=list(BENCHES))
    b.add_argument("rest", nargs=argparse.REMAINDER, help="options of the benchmark (see --help after its name)")
    b.set_defaults(func=_cmd_bench)
    for name, (_, text) in QUALITY.items():
        q = sub.add_parser(name, help=text, add_help=False, prefix_chars="\x00")
        q.add_argument("rest", nargs=argparse.REMAINDER)
        q.set_defaults(func=_cmd_quality)
