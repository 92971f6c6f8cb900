"""Shared fixtures: paths to the project's carried models and to ../shared (optional)."""
from __future__ import annotations

from pathlib import Path

import pytest
from vericite.engine.paths import REPO_ROOT, shared_dir

REPO = REPO_ROOT
SHARED = shared_dir()
TINY_GGUF = REPO / "tests" / "data" / "tiny-qwen2.gguf"


@pytest.fixture(scope="session")
def checker():
    """The real default NLI checker (ONNX int8 MiniLM carried in models/)."""
    from vericite.engine.models import Registry
    from vericite.engine.checkers import load_checker

    reg = Registry.load()
    return load_checker(reg.get(None, "nli"))


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"no shared data folder at {SHARED}")
    return SHARED
