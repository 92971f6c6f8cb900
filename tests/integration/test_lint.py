"""engine/ stays clean under the configured linter and type checker (pyproject.toml [tool.ruff],
[tool.mypy]): ruff's E, F, W and import order; mypy's default checks. Both come with the `test` extra."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing_in_the_engine():
    pytest.importorskip("ruff")
    out = _run("ruff", "check", "engine")
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_finds_no_type_error_in_the_engine():
    pytest.importorskip("mypy")
    out = _run("mypy", "--python-executable", sys.executable)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "no issues found" in out.stdout
