"""``vericite serve``: its flags and the command (the parser itself lives in engine/cli.py).

Nothing here imports the ``serve`` extra until the command runs, so ``vericite --help`` works
without it and ``vericite serve`` without it ends with one ``error:`` line naming the extra.
"""
from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from . import require
from .limits import Limits, flag

log = logging.getLogger(__name__)

_D = Limits()


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The service's own flags (host, port, capacity, limits, key, --write-openapi)."""
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--llm", help="LLM name in models.toml (default: [defaults] llm)")
    p.add_argument("--nli", help="NLI checker name in models.toml; default 'auto': [defaults] nli, and for a "
                   "question in a language it "
                   "does not read, the checker models.toml's [nli_by_language] names")
    p.add_argument(flag("workers"), type=int, default=_D.workers,
                   help=f"request threads (default {_D.workers}: LLM calls take turns, so a second thread lets one "
                        "request's NLI checks overlap another's LLM work)")
    p.add_argument(flag("queue_size"), type=int, default=_D.queue_size,
                   help=f"admitted requests that may wait for a thread; beyond, 429 (default {_D.queue_size})")
    p.add_argument(flag("timeout_s"), dest="timeout_s", type=float, default=_D.timeout_s,
                   help=f"per-request deadline in seconds from admission, else 504 (default {_D.timeout_s:g})")
    p.add_argument("--api-key", help="require Authorization: Bearer KEY on /v1/* and /metrics "
                                     "(default: $VERICITE_API_KEY; none: open)")
    p.add_argument(flag("max_docs"), type=int, default=_D.max_docs, help=f"documents per request (default {_D.max_docs})")
    p.add_argument(flag("max_doc_chars"), type=int, default=_D.max_doc_chars,
                   help=f"characters per document (default {_D.max_doc_chars})")
    p.add_argument(flag("max_body_bytes"), type=int, default=_D.max_body_bytes,
                   help=f"request body bytes (default {_D.max_body_bytes})")
    p.add_argument(flag("max_parallel_docs"), type=int, default=_D.max_parallel_docs,
                   help=f"highest option parallel_docs a request may set: documents decoded at once, each a sequence of "
                        f"a KV context the LLM keeps (default {_D.max_parallel_docs})")
    p.add_argument(flag("max_option_count"), type=int, default=_D.max_option_count,
                   help="highest value a request may give an option that counts sentences or words, each costing work "
                        f"(claim_words, fallback_quotes, fallback_sentences, backbone_facts; default {_D.max_option_count})")
    p.add_argument(flag("body_timeout_s"), dest="body_timeout_s", type=float, default=_D.body_timeout_s,
                   help="seconds to receive a request's whole body; a client that stalls gets 408 "
                        f"(default {_D.body_timeout_s:g})")
    p.add_argument(flag("max_connections"), type=int, default=_D.max_connections,
                   help="open connections and requests at once; beyond them 503 (uvicorn's limit_concurrency; "
                        f"default {_D.max_connections})")
    p.add_argument("--write-openapi", metavar="PATH",
                   help="write the OpenAPI document to PATH and exit (loads no model; "
                        "engine/service/openapi.json is the committed copy)")


def run(args: argparse.Namespace) -> int:
    """Serve until a signal (or write the OpenAPI document)."""
    require()
    from .app import LOOPBACK_HOSTS, create_app, openapi_text
    from .server import serve

    limits = Limits(max_docs=args.max_docs, max_doc_chars=args.max_doc_chars, max_body_bytes=args.max_body_bytes,
                    workers=args.workers, queue_size=args.queue_size, timeout_s=args.timeout_s,
                    max_parallel_docs=args.max_parallel_docs, max_option_count=args.max_option_count,
                    body_timeout_s=args.body_timeout_s, max_connections=args.max_connections)
    if args.write_openapi:
        path = Path(args.write_openapi)
        path.write_text(openapi_text(create_app(_never, limits=limits)), encoding="utf-8")
        print(f"wrote {path}")
        return 0

    from ..loader import build_pipeline, pipeline_arguments

    arguments = pipeline_arguments(args)  # a bad --set fails here, before the server starts

    def load():
        return build_pipeline(**arguments)

    api_key = args.api_key or os.environ.get("VERICITE_API_KEY") or None
    if api_key is None and args.host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("serving on %s without an API key (--api-key or VERICITE_API_KEY)", args.host)
    # on loopback, only requests that name a loopback host (a DNS-rebinding page names its own domain)
    hosts = LOOPBACK_HOSTS if args.host in LOOPBACK_HOSTS else None
    return serve(create_app(load, limits=limits, api_key=api_key, allowed_hosts=hosts), host=args.host, port=args.port,
                 log_level="debug" if args.verbose else "warning" if args.quiet else "info")


def _never():
    raise AssertionError("--write-openapi loads no model")
