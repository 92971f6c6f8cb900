"""Run llama.cpp's own HTTP server (llama-server) on a GGUF file, from the ``xllamacpp`` wheel.

``xllamacpp`` (``pip install -e '.[llama-server]'``) ships llama.cpp's native server compiled into a
Python extension: ``xllamacpp.Server(CommonParams)`` loads the model and starts listening on
``params.hostnames[0]:params.port`` at once; deleting the object stops it. It has no console
script, so this module is the command line::

    python -m vericite.engine.llm.llama_server MODEL.gguf --port 8080 [--ctx 4096] [--parallel 1] [--threads 2]

It prints one line ``listening on http://HOST:PORT`` on stdout when ready and serves until SIGTERM or
SIGINT. A models.toml entry with ``format = "openai"``, ``server = "llama-server"`` then talks to it
(:class:`~vericite.engine.llm.openai_compat.OpenAICompatLLM`). The slot context is ``ctx / parallel``:
for stage 2's documents as concurrent requests (``parallel_docs = N``) give ``--parallel N --ctx
<the entry's context x N>``, so each slot keeps the context the pipeline plans with.
"""
from __future__ import annotations

import argparse
import signal
import sys
import threading


def start(model: str, *, port: int, host: str = "127.0.0.1", n_ctx: int = 4096, parallel: int = 1,
          threads: int = 2, n_gpu_layers: int = 0, flash_attn: bool = False):
    """Load ``model`` into a llama-server listening on ``host:port``; returns the ``xllamacpp.Server``
    (keep a reference: the server stops when it is garbage-collected). ``flash_attn`` off by default,
    as :class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM` runs (llama-server's own default, "auto", turns it on
    where supported, which moves logits by ~1e-2 and so long greedy generations of a weak model).

    Raises:
        ImportError: xllamacpp is not installed.
    """
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = str(model)
    p.n_ctx = n_ctx
    p.n_parallel = parallel
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    p.n_gpu_layers = n_gpu_layers
    fa = xlc.llama_flash_attn_type
    p.flash_attn_type = fa.LLAMA_FLASH_ATTN_TYPE_ENABLED if flash_attn else fa.LLAMA_FLASH_ATTN_TYPE_DISABLED
    p.hostnames = [host]
    p.port = port
    p.cache_prompt = True
    p.endpoint_props = True  # GET /props: the client reads the slot context from it
    return xlc.Server(p)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vericite.engine.llm.llama_server", description=__doc__.split("\n")[0])
    ap.add_argument("model", help="GGUF file")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--ctx", type=int, default=4096, help="total context (tokens), split over the slots")
    ap.add_argument("--parallel", type=int, default=1, help="slots (requests decoded together)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--gpu-layers", type=int, default=0)
    ap.add_argument("--flash-attn", action="store_true", help="flash attention (default off, as in-process)")
    args = ap.parse_args(argv)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    server = start(args.model, port=args.port, host=args.host, n_ctx=args.ctx, parallel=args.parallel,
                   threads=args.threads, n_gpu_layers=args.gpu_layers, flash_attn=args.flash_attn)
    print(f"listening on {server.listening_address}", flush=True)
    while not stop.wait(0.5):
        pass
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
