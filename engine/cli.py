"""The `vericite` command line: answer and models here; export and bench commands are added by
their packages through the ``vericite.commands`` entry points."""
from __future__ import annotations

import argparse
import json
import logging
import sys
from importlib.metadata import entry_points
from typing import Any

from . import records as R
from .config import settings as S
from .errors import VeriCiteError

log = logging.getLogger("vericite")


def _cmd_answer(args: argparse.Namespace) -> int:
    from .inputs import load_input
    from .loader import build_pipeline, pipeline_arguments

    question, docs = load_input(args.docs, question=args.question, index=args.index, ndoc=args.ndoc)
    pipe = build_pipeline(**pipeline_arguments(args))
    log.info("question: %s (%d documents)", question, len(docs))
    try:
        result = pipe.answer(question, docs)
    finally:
        pipe.close()
    if args.json or args.format == "json":
        json.dump(result.to_json(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    elif args.format == "markdown":
        from .memo import memo

        sys.stdout.write(memo(result))
    else:
        _print_answer(result, quotes=args.quotes)
    return 0


def _cmd_settings(args: argparse.Namespace) -> int:
    if args.markdown:
        sys.stdout.write(S.markdown())
        return 0
    rows = S.table()
    if args.json:
        json.dump({"presets": S.PRESETS, "settings": rows}, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    for group in S.GROUPS:
        print(f"[{group}]")
        for r in rows:
            if r["group"] == group:
                extra = " (experimental)" if r["experimental"] else ""
                print(f"  {r['name']} = {json.dumps(r['default'])}{extra}")
    print("presets: " + ", ".join(S.PRESETS) + "  (docs/configuration.md: what each does)")
    return 0


def _print_answer(result, *, quotes: bool = False) -> None:
    print(result.answer or f"(no answer: {result.empty_reason})")
    if quotes:
        for s in result.final:
            if s.quotes:
                print(f"\n{s.raw}")
            for q in s.quotes:
                print(f"  [{q.document}] \"{q.text}\" (P {q.score:.2f}, characters {q.start}-{q.end})")
    cited = sorted({c for s in result.final for c in s.citations if 1 <= c <= len(result.documents)})
    if cited:
        print()
        for c in cited:
            print(f"[{c}] {result.documents[c - 1].title}")
    if result.conflicts:
        print()
    for c in result.conflicts:
        print(f"conflict: {c.describe()}")
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
    from .config.registry import Registry, fetch, model_path, status, verify

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
    rows: list[dict[str, Any]] = []
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


#: Entry-point group through which other packages add subcommands: each entry is a function
#: ``register(subparsers)`` that adds its parsers, each with ``set_defaults(func=...)``
#: (vericite.export adds ``export``; vericite.bench adds ``bench``, ``run``, ``eval``, ``report``).
COMMANDS_GROUP = "vericite.commands"


def build_parser() -> argparse.ArgumentParser:
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
    a.add_argument("--ndoc", type=int, default=5,
                   help="documents to use: the first N, in the order given (default 5, as in the paper)")
    a.add_argument("--llm", help="LLM name in models.toml (default: [defaults] llm)")
    a.add_argument("--nli", help="NLI checker name in models.toml; default 'auto': [defaults] nli, and for a "
                   "question in a language it "
                   "does not read, the checker models.toml's [nli_by_language] names")
    S.add_arguments(a)
    a.add_argument("--json", action="store_true", help="print the full trace as JSON (= --format json)")
    a.add_argument("--format", choices=["text", "json", "markdown"], default="text",
                   help="text: the answer and its sources; json: the full trace; markdown: the analyst's memo "
                        "(footnotes with the quotes that carry them, conflicts, what was left out)")
    a.add_argument("--quotes", action="store_true",
                   help="under the answer, each final sentence with the quote of each cited document that carries it")
    a.set_defaults(func=_cmd_answer)

    m = sub.add_parser("models", help="list the models of models.toml, fetch or verify one")
    m.add_argument("action", nargs="?", choices=["list", "fetch", "verify"], default="list")
    m.add_argument("names", nargs="*", help="model names (fetch/verify)")
    m.add_argument("--defaults", action="store_true", help="fetch/verify the default models")
    m.add_argument("--force", action="store_true", help="fetch again even if present")
    m.add_argument("--json", action="store_true", help="machine-readable list")
    m.set_defaults(func=_cmd_models)

    from .service import cli as serve_cli  # no fastapi import until the command runs

    v = sub.add_parser("serve", help="HTTP service: POST /v1/answer, /health, /ready, /v1/models, /metrics (serve extra)",
                       description="Serve VeriCite over HTTP (FastAPI + uvicorn). OpenAPI at /docs. Example: "
                                   "vericite serve --port 8000 --workers 2 --queue-size 8")
    serve_cli.add_arguments(v)
    S.add_arguments(v)
    v.set_defaults(func=serve_cli.run)

    c = sub.add_parser("settings", help="every setting and resource with its default, and the presets",
                       description="List the settings (what `--set name=value` takes) by group, with defaults.")
    c.add_argument("--json", action="store_true", help="machine-readable: presets and every setting")
    c.add_argument("--markdown", action="store_true", help="the configuration page (docs/configuration.md)")
    c.set_defaults(func=_cmd_settings)

    for ep in sorted(entry_points(group=COMMANDS_GROUP), key=lambda e: e.name):
        ep.load()(sub)
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
