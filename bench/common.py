"""Small helpers every benchmark shares."""
from __future__ import annotations

import subprocess

from vericite.engine.config.paths import REPO_ROOT


def git_revision() -> str:
    """``git describe --always --dirty`` of this checkout (the commit a result came from), or "unknown"."""
    try:
        out = subprocess.run(["git", "-C", str(REPO_ROOT), "describe", "--always", "--dirty"], capture_output=True,
                             text=True, timeout=10, check=False)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"
