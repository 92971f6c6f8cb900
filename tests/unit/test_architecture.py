"""The architecture's rules, checked on the source: dependencies point one way (bench and export use
engine, never the reverse), the engine needs no torch stack, its modules import no cycle, the pipeline
depends on the LLM and checker protocols, never on a backend, and text rules read no model.

No torch, data or model gate: these run on a `[cpu,test]` install.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

ENGINE = REPO / "engine"
FORBIDDEN = ("torch", "transformers", "optimum", "onnx", "vericite.bench", "vericite.export")
#: the run-time extras (pyproject.toml: serve, openai, triton, llama-server) a `[cpu,test]` install lacks
OPTIONAL = ("fastapi", "pydantic", "uvicorn", "prometheus_client", "httpx", "tenacity", "tritonclient", "xllamacpp")
#: the backends: what the loader builds and the pipeline only sees through the LLM and Checker protocols
BACKENDS = ("vericite.engine.llm.llama_cpp", "vericite.engine.llm.batch", "vericite.engine.llm.openai_compat",
            "vericite.engine.llm.llama_server", "vericite.engine.nli.cross_encoder", "vericite.engine.nli.onnx_scorer",
            "vericite.engine.nli.t5", "vericite.engine.nli.triton", "vericite.engine.nli.load",
            "vericite.engine.nli.batching", "vericite.engine.nli.cache", "vericite.engine.loader")


def _module(path: Path) -> str:
    """``engine/pipeline/stage1.py`` -> ``vericite.engine.pipeline.stage1`` (a package: its own name)."""
    parts = list(path.relative_to(ENGINE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if parts[:1] == ["toplevel"]:
        return "vericite"
    return ".".join(["vericite", "engine", *parts])


def _imports(path: Path) -> set[str]:
    """Absolute module names imported anywhere in ``path``, lazy imports included (imports for type
    checkers only, under ``if TYPE_CHECKING:``, are not run: left out); a relative import resolved from
    the file's package, ``from PKG import NAME`` as ``PKG.NAME``."""
    name = _module(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                   for n in ast.walk(node)}
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out |= {f"{mod}.{a.name}" for a in node.names}
    return out


def _engine_modules() -> dict[str, Path]:
    return {_module(p): p for p in ENGINE.rglob("*.py") if _module(p) != "vericite"}


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == f or name.startswith(f + ".") for f in prefixes)


def test_engine_source_never_imports_bench_export_or_the_torch_stack():
    bad = {str(p.relative_to(ENGINE)): sorted(m for m in _imports(p) if _within(m, FORBIDDEN))
           for p in ENGINE.rglob("*.py")}  # the service and the top-level package included
    assert "service/app.py" in bad and "toplevel/__init__.py" in bad
    assert {k: v for k, v in bad.items() if v} == {}


def test_importing_every_engine_module_loads_no_forbidden_package():
    # a module that needs an optional extra this install lacks (the service's fastapi, ...) is left out
    code = ("import importlib, pkgutil, sys, vericite.engine as e\n"
            f"optional = {OPTIONAL!r}\n"
            "for m in pkgutil.walk_packages(e.__path__, 'vericite.engine.'):\n"
            "    try: importlib.import_module(m.name)\n"
            "    except ModuleNotFoundError as x:\n"
            "        if (x.name or '').split('.')[0] not in optional: raise\n"
            f"bad = [m for m in sys.modules if any(m == f or m.startswith(f + '.') for f in {FORBIDDEN!r})]\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_engine_modules_import_no_cycle():
    """Imports between engine modules (sub-packages included) form a DAG, lazy imports included; a
    package's ``__init__`` re-exporting its modules is not an edge back into them."""
    mods = _engine_modules()
    graph = {m: {i for i in _imports(p) if i in mods and i != m and not (p.name == "__init__.py" and i.startswith(m + "."))}
             for m, p in mods.items()}
    seen: dict[str, int] = {}  # 1 = on the path, 2 = done

    def visit(m: str, path: list[str]) -> None:
        if seen.get(m) == 1:
            raise AssertionError("import cycle: " + " -> ".join(path + [m]))
        if seen.get(m) == 2:
            return
        seen[m] = 1
        for n in sorted(graph[m]):
            visit(n, path + [m])
        seen[m] = 2

    for m in sorted(graph):
        visit(m, [])


def test_the_pipeline_sees_the_llm_and_the_checker_only_through_their_protocols():
    bad = {m: sorted(i for i in _imports(p) if _within(i, BACKENDS))
           for m, p in _engine_modules().items() if _within(m, ("vericite.engine.pipeline",))}
    assert "vericite.engine.pipeline.method" in bad
    assert {k: v for k, v in bad.items() if v} == {}


def test_text_rules_and_settings_load_no_model_and_no_stage():
    """engine/text reads text only; engine/config is read by everything, so it reads nothing above it."""
    above = ("vericite.engine.llm", "vericite.engine.nli", "vericite.engine.pipeline", "vericite.engine.service",
             "vericite.engine.loader", "vericite.engine.verifier", "vericite.engine.draft")
    bad = {m: sorted(i for i in _imports(p) if _within(i, above))
           for m, p in _engine_modules().items() if _within(m, ("vericite.engine.text", "vericite.engine.config"))}
    assert "vericite.engine.text.splitter" in bad and "vericite.engine.config.settings" in bad
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_cli_gets_bench_and_export_commands_through_entry_points():
    from importlib.metadata import entry_points

    from vericite.engine.cli import COMMANDS_GROUP, build_parser

    names = {e.name for e in entry_points(group=COMMANDS_GROUP)}
    assert {"bench", "export"} <= names
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {"answer", "models", "bench", "run", "eval", "report", "export", "settings"} <= set(sub.choices)
