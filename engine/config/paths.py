"""Where the project's files are: the repository root and the shared data folder beside it."""
from __future__ import annotations

import os
from pathlib import Path

#: The repository root (engine/, models/, models.toml live here).
REPO_ROOT = Path(__file__).resolve().parents[2]  # engine/config/paths.py -> the repository


def shared_dir() -> Path:
    """The shared data and models folder: ``$VERICITE_SHARED``, else ``<repo root>/../shared``.

    The folder may not exist (benches and tests that need it say so); nothing here checks.
    """
    env = os.environ.get("VERICITE_SHARED")
    return Path(env) if env else REPO_ROOT.parent / "shared"
