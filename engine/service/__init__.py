"""The on-prem HTTP service of VeriCite (``vericite serve``; the ``serve`` extra).

One module per job: :mod:`.limits` (what a request may be), :mod:`.schema` (the JSON shapes),
:mod:`.admission` (the bounded queue in front of the request threads, deadlines),
:mod:`.runner` (one request through the pipeline's stages, with stream events),
:mod:`.metrics` (Prometheus), :mod:`.app` (the FastAPI routes: :func:`create_app`),
:mod:`.server` (uvicorn with a graceful drain).

Importing this package needs nothing beyond the engine; :func:`require` says which packages of
the ``serve`` extra are missing, and :func:`create_app` imports them.
"""
from __future__ import annotations

import importlib.util

from ..errors import ConfigError

#: Import names of the ``serve`` extra's packages.
SERVE_PACKAGES = ("fastapi", "uvicorn", "prometheus_client")


def require() -> None:
    """Raise ConfigError naming the ``serve`` extra when one of its packages is missing."""
    missing = [m for m in SERVE_PACKAGES if importlib.util.find_spec(m) is None]
    if missing:
        raise ConfigError(f"the HTTP service needs the serve extra ({', '.join(missing)} not installed): "
                          "pip install -e '.[serve]'")


def create_app(*args, **kwargs):
    """:func:`vericite.engine.service.app.create_app` (imported on first use)."""
    from .app import create_app as _create_app

    return _create_app(*args, **kwargs)


__all__ = ["SERVE_PACKAGES", "create_app", "require"]
