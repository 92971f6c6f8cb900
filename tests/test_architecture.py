"""The architecture's rules, checked on the source: dependencies point one way (bench and export use
engine, never the reverse), the engine needs no torch stack, and its modules import no cycle.

No torch, data or model gate: these run on a `[cpu,test]` install.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from .conftest import REPO

ENGINE = REPO / "engine"
FORBIDDEN = ("torch", "transformers", "optimum", "onnx", "vericite.bench", "vericite.export")


def _imports(path: Path) -> set[str]:
    """Absolute module names imported anywhere in ``path`` (relative engine imports resolved)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: inside vericite.engine
                base = "vericite.engine" + (f".{node.module}" if node.module else "")
                out |= {base} if node.module else {f"vericite.engine.{a.name}" for a in node.names}
            elif node.module:
                out.add(node.module)
    return out


def _forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


def test_engine_source_never_imports_bench_export_or_the_torch_stack():
    bad = {str(p.relative_to(ENGINE)): sorted(m for m in _imports(p) if _forbidden(m))
           for p in ENGINE.rglob("*.py")}  # the service and the top-level package included
    assert "service/app.py" in bad and "toplevel/__init__.py" in bad
    assert {k: v for k, v in bad.items() if v} == {}


def test_importing_every_engine_module_loads_no_forbidden_package():
    code = ("import importlib, pkgutil, sys, vericite.engine as e\n"
            "for m in pkgutil.iter_modules(e.__path__): importlib.import_module('vericite.engine.' + m.name)\n"
            f"bad = [m for m in sys.modules if any(m == f or m.startswith(f + '.') for f in {FORBIDDEN!r})]\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_engine_modules_import_no_cycle():
    """Imports between engine modules form a DAG, lazy imports inside functions included."""
    mods = {p.stem: p for p in ENGINE.glob("*.py") if p.stem != "__init__"}
    graph = {m: {i.rsplit(".", 1)[-1] for i in _imports(p)
                 if i.startswith("vericite.engine.") and i.rsplit(".", 1)[-1] in mods} for m, p in mods.items()}
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


def test_the_cli_gets_bench_and_export_commands_through_entry_points():
    from importlib.metadata import entry_points

    from vericite.engine.cli import COMMANDS_GROUP, build_parser

    names = {e.name for e in entry_points(group=COMMANDS_GROUP)}
    assert {"bench", "export"} <= names
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert {"answer", "models", "bench", "run", "eval", "report", "export"} <= set(sub.choices)
