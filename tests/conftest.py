"""Shared fixtures (paths to the project's carried models and to ../shared, optional) and the tier
markers: every test under tests/<tier>/ gets the marker <tier> (unit, integration, e2e, lab, external;
registered in pyproject.toml), so `pytest -m "not external"` and the like select by tier.

- unit: fakes only, seconds, a `pip install -e '.[cpu,test]'` (no torch, no llama.cpp model, no download);
  tests of optional code (the service, the remote LLM) skip there through `pytest.importorskip`
- integration: the real small checker in models/, the tiny GGUF tests/data/tiny-qwen2.gguf
- e2e: the default models end to end
- lab: bench/export tooling that needs its extras (torch, transformers, optimum, onnx, matplotlib)
- external: real external servers (llama-server, Triton, a browser)

Helpers every tier imports the same way: ``from tests.fakes import ...``, ``from tests.conftest import
REPO``; test data stays in tests/data.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from vericite.engine.config.paths import REPO_ROOT, shared_dir

REPO = REPO_ROOT
SHARED = shared_dir()
TINY_GGUF = REPO / "tests" / "data" / "tiny-qwen2.gguf"
TESTS = Path(__file__).resolve().parent
TIERS = ("unit", "integration", "e2e", "lab", "external")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(config, items):
    """The tier marker from the folder: tests/<tier>/... -> pytest.mark.<tier>."""
    for item in items:
        try:
            tier = Path(item.path).resolve().relative_to(TESTS).parts[0]
        except ValueError:
            continue
        if tier in TIERS:
            item.add_marker(getattr(pytest.mark, tier))


@pytest.fixture(scope="session")
def checker():
    """The real default NLI checker (ONNX int8 MiniLM carried in models/)."""
    from vericite.engine.config.registry import Registry
    from vericite.engine.nli.load import load_checker

    reg = Registry.load()
    return load_checker(reg.get(None, "nli"))


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"no shared data folder at {SHARED}")
    return SHARED
