"""The `vericite` command line: answer, models, export."""
from __future__ import annotations

import argparse
import json
import logging
import sys

from . import records as R
from .errors import VeriCiteError

log = logging.getLogger("vericite")


def _cmd_answer(args: argparse.Namespace) -> int:
    from .docs import load_input
    from .loader import build_pipeline

    question, docs = load_input(args.docs, question=args.question, index=args.index, ndoc=args.ndoc)
    pipe = build_pipeline(llm=args.llm, nli=args.nli, models_toml=args.models, prompts=args.prompts,
                          n_ctx=args.n_ctx, threads=args.threads, gpu_layers=args.gpu_layers,
                          threshold=args.threshold, lang=args.lang, citation_grammar=args.citation_grammar,
                          gate=args.gate, schedule=args.schedule, nli_threads=args.nli_threads,
                          prompt_format=args.prompt_format, doc_tokens=args.doc_tokens,
                          nli_cache=args.nli_cache)
    log.info("question: %s (%d documents)", question, len(docs))
    try:
        result = pipe.answer(question, docs)
    finally:
        pipe.checker.close()
    if args.json:
        out = result.to_json()
        out["settings"]["nli_ep"] = pipe.checker.ep
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        _print_answer(result)
    return 0


def _print_answer(result) -> None:
    print(result.answer or "(no answer: no statement could be verified against the documents)")
    cited = sorted({c for s in result.final for c in s.citations if 1 <= c <= len(result.documents)})
    if cited:
        print()
        for c in cited:
            print(f"[{c}] {result.documents[c - 1].title}")
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for s in result.final:
        if s.verdict != R.SUPPORTED:
            score = "n/a" if s.score is None else f"{s.score:.2f}"
            print(f"warning: final sentence {s.verdict} (P(entailment) {score}): {s.raw}", file=sys.stderr)
    kept = [sum(1 for s in st.statements if s.verdict == R.KEPT) for st in result.stages[:2]]
    total = [len(st.statements) for st in result.stages[:2]]
    print(f"# statements kept {kept[0]}/{total[0]}, facts kept {kept[1]}/{total[1]}, "
          f"{result.wall_ms / 1000:.1f} s", file=sys.stderr)


def _cmd_models(args: argparse.Namespace) -> int:
    from .models import Registry, fetch, model_path, status, verify

    reg = Registry.load(args.models)
    if args.action == "fetch" or args.action == "verify":
        names = args.names or ([reg.defaults[r] for r in ("llm", "nli") if r in reg.defaults] if args.defaults else [])
        if not names:
            raise VeriCiteError(f"name a model to {args.action} (or pass --defaults); known: {', '.join(reg.models)}")
        for name in names:
            spec = reg.named(name)
            path = fetch(spec, force=args.force) if args.action == "fetch" else verify(spec)
            print(f"{name}: ok ({path})")
        return 0
    rows = []
    for name, spec in reg.models.items():
        default = " (default)" if reg.defaults.get(spec.role) == name else ""
        rows.append({"name": name, "role": spec.role, "format": spec.format, "source": spec.source,
                     "status": status(spec), "path": str(model_path(spec)), "default": bool(default)})
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    width = max(len(r["name"]) for r in rows)
    print(f"{'NAME':<{width}}  ROLE FMT   {'STATUS':<10}  PATH")
    for r in rows:
        print(f"{r['name']:<{width}}  {r['role']:<3}  {r['format']:<4}  {r['status']:<10}  {r['path']}"
              f"{'  (default)' if r['default'] else ''}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    try:
        from vericite.export.nli_onnx import ExportValidationError
        from vericite.export.t5_true import export_nli
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


_BENCHES = {
    "items": ("vericite.bench.items", "run N items and count what each stage kept"),
    "gate": ("vericite.bench.gate", "calibrate the usefulness gate on labelled documents"),
    "nli": ("vericite.bench.nli_speed", "NLI pairs/s: PyTorch one pair per call vs ONNX batched, cache"),
    "latency": ("vericite.bench.latency", "the authors' sequential order vs the scheduler, per stage"),
    "citation-check": ("vericite.bench.citation_check", "a checker on held-out NLI, swap pairs, HotpotQA support, the brief's example"),
}


def _cmd_bench(args: argparse.Namespace) -> int:
    import importlib

    module = importlib.import_module(_BENCHES[args.what][0])
    if args.what == "citation-check":  # takes its registry as --models
        return module.main(args.rest + (["--models", args.models] if args.models else []))
    return module.main(args.rest, models_toml=args.models)


def _cmd_train(args: argparse.Namespace) -> int:
    try:
        from vericite.export.train_nli import main as train_main
    except ImportError as e:
        raise VeriCiteError(f"training needs the `export` extra: pip install -e '.[export]' ({e})") from e
    return train_main(args.rest)


def _cmd_quality(args: argparse.Namespace) -> int:
    from vericite.bench import run as quality

    main = {"run": quality.run_main, "eval": quality.eval_main, "report": quality.report_main}[args.command]
    return main(args.rest, models_toml=args.models)


def build_parser() -> argparse.ArgumentParser:
    from vericite.export.nli_onnx import QUANT_MODES  # stdlib-only at import time
    p = argparse.ArgumentParser(prog="vericite", description="Answers with verified citations, offline.")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    p.add_argument("-q", "--quiet", action="store_true", help="warnings and errors only")
    p.add_argument("--models", help="models.toml to use (default: the repo's, or $VERICITE_MODELS_TOML)")
    sub = p.add_subparsers(dest="command", required=True)

    a = sub.add_parser("answer", help="answer a question from documents with verified citations",
                       description="Answer a question from documents: stage 1 answer, stage 2 evidence, stage 3 "
                                   "refinement, each statement checked by NLI. Example: vericite answer --docs "
                                   "examples/hotpotqa-0.json --json")
    a.add_argument("--docs", required=True, help="JSON/JSONL of {title, text} documents, or items with question + docs")
    a.add_argument("--question", help="the question (default: the item's own question)")
    a.add_argument("--index", type=int, default=0, help="which item of a JSONL file of items (0-based)")
    a.add_argument("--ndoc", type=int, default=5, help="documents to use (default 5, as in the paper)")
    a.add_argument("--llm", help="LLM name in models.toml (default: [defaults] llm)")
    a.add_argument("--nli", help="NLI checker name in models.toml (default: [defaults] nli)")
    a.add_argument("--threshold", type=float, help="P(entailment) to keep a statement (default: the checker's)")
    a.add_argument("--prompts", help="prompt set name or JSON path (default: the LLM's profile in models.toml)")
    a.add_argument("--citation-grammar", action=argparse.BooleanOptionalAction, default=None,
                   help="force every sentence of stages 1 and 3 to cite (default: the LLM's profile)")
    a.add_argument("--prompt-format", choices=R.PROMPT_FORMATS,
                   help="chat: the GGUF's chat template; completion: one plain prompt (default: the LLM's profile)")
    a.add_argument("--doc-tokens", type=int,
                   help="trim each document the LLM sees to its most question-relevant sentences within this many "
                        "tokens, 0 = whole (default: the LLM's profile); NLI always checks the whole document")
    a.add_argument("--lang", default="auto", help="sentence-splitter language: auto, en, ru, ...")
    a.add_argument("--gate", choices=R.GATES,
                   help="usefulness gate: greedy Yes/No under a grammar, or P(Yes) >= the model's calibrated threshold")
    a.add_argument("--n-ctx", type=int, help="LLM context tokens (default: the model's entry)")
    a.add_argument("--threads", type=int, help="LLM CPU threads (default: all cores)")
    a.add_argument("--gpu-layers", type=int, default=0, help="LLM layers on GPU (needs a GPU build of llama.cpp)")
    a.add_argument("--nli-threads", type=int, help="ONNX Runtime threads for the checker (default: a quarter of the cores)")
    a.add_argument("--nli-cache", help="sqlite file that keeps NLI scores across runs (default: memory only)")
    a.add_argument("--schedule", choices=["overlap", "sequential"],
                   help="overlap (default): NLI checks run while the LLM goes on; sequential: the authors' order")
    a.add_argument("--json", action="store_true", help="print the full trace as JSON")
    a.set_defaults(func=_cmd_answer)

    m = sub.add_parser("models", help="list the models of models.toml, fetch or verify one")
    m.add_argument("action", nargs="?", choices=["list", "fetch", "verify"], default="list")
    m.add_argument("names", nargs="*", help="model names (fetch/verify)")
    m.add_argument("--defaults", action="store_true", help="fetch/verify the default models")
    m.add_argument("--force", action="store_true", help="fetch again even if present")
    m.add_argument("--json", action="store_true", help="machine-readable list")
    m.set_defaults(func=_cmd_models)

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
    b = sub.add_parser("bench", help="benchmarks (bench/): " + "; ".join(f"{k} = {v[1]}" for k, v in _BENCHES.items()))
    b.add_argument("what", choices=list(_BENCHES))
    b.add_argument("rest", nargs=argparse.REMAINDER, help="options of the benchmark (see --help after its name)")
    b.set_defaults(func=_cmd_bench)

    # quality benchmark (bench/run.py): options are parsed there (`vericite run --help`)
    for name, text in (("run", "run a method (vanilla, vericite, ablations) over a data file; resumable"),
                       ("eval", "ALCE citation recall / precision / F1 and correctness of results files"),
                       ("report", "markdown table and bar chart of all methods side by side")):
        q = sub.add_parser(name, help=text, add_help=False, prefix_chars="\x00")
        q.add_argument("rest", nargs=argparse.REMAINDER)
        q.set_defaults(func=_cmd_quality)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = logging.DEBUG if args.verbose else logging.WARNING if args.quiet else logging.INFO
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return args.func(args)
    except VeriCiteError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
