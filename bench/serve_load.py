"""Load test of the HTTP service: many concurrent clients against ``POST /v1/answer``.

`vericite bench serve --url URL | --spawn [--llm NAME] [--parallel-docs N] [--deadline S] --concurrency 32 --requests 64
 --data ../shared/data/hotpotqa.jsonl [--ndoc 5] [--out-dir bench-out/serve]`

``--url`` measures a running server; ``--spawn`` starts ``vericite serve`` on a free loopback port
with the named models, waits for ``/ready`` and stops it (SIGTERM, graceful) at the end. Items of
``--data`` (questions and their documents, BM25-ordered for HotpotQA/MuSiQue as in
:func:`~vericite.bench.datasets.load_items`) are sent in turn, cycling when there are fewer items
than requests. ``--warmup`` requests go first, one at a time, and are not measured.

Reports: latency p50/p95/max of the answered (200) requests and of all, throughput (answered
requests/s over the run's wall time), counts by status (429 = refused by the bounded queue),
and, from ``/metrics`` before and after the run, the NLI batcher's mean batch size (check
batches merged per batcher step: > 1 means requests were checked together; and pairs per step),
the score cache's hit rate and the queue's peak depth. Writes ``serve.md`` and ``serve.json`` to
``--out-dir``; every record carries the git sha and the server's models (``/v1/models``).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import numpy as np
from tqdm import tqdm

from vericite.engine.errors import ConfigError, InputError
from .common import git_revision

#: Metrics read before and after the run (their difference is the run's).
NLI_COUNTERS = ("vericite_nli_submissions", "vericite_nli_steps", "vericite_nli_pairs",
                "vericite_nli_cache_hits", "vericite_nli_cache_misses")


def scrape(client, url: str) -> dict[str, float]:
    """``/metrics`` as {sample name: value} (samples without labels, counters by their family name)."""
    from prometheus_client.parser import text_string_to_metric_families

    r = client.get(f"{url}/metrics")
    r.raise_for_status()
    out: dict[str, float] = {}
    for fam in text_string_to_metric_families(r.text):
        for s in fam.samples:
            if not s.labels:
                out[fam.name if s.name == fam.name + "_total" else s.name] = s.value
    return out


def one_request(client, url: str, item: dict, timeout: float) -> dict:
    body = {"question": item["question"], "documents": [{"title": d.title, "text": d.text} for d in item["docs"]]}
    t0 = time.perf_counter()
    try:
        r = client.post(f"{url}/v1/answer", json=body, timeout=timeout)
        status, ok = r.status_code, r.status_code == 200 and r.json().get("question") == item["question"]
    except Exception as e:  # noqa: BLE001  a transport failure is a result of the load test, counted
        status, ok = f"error:{type(e).__name__}", False
    return {"id": item["id"], "status": status, "latency_s": time.perf_counter() - t0, "matches": ok}


def run_load(url: str, items: list[dict], *, requests: int, concurrency: int, warmup: int = 1,
             headers: dict | None = None, timeout: float = 600.0, progress: bool = True) -> dict:
    """Send ``requests`` answers (items in turn) with ``concurrency`` clients; the summary dict."""
    import httpx

    limits = httpx.Limits(max_connections=concurrency + 2, max_keepalive_connections=concurrency + 2)
    with httpx.Client(headers=headers or {}, limits=limits) as client:
        models = client.get(f"{url}/v1/models", timeout=30).json()
        for k in range(warmup):
            one_request(client, url, items[k % len(items)], timeout)
        before = scrape(client, url)
        t0 = time.perf_counter()
        rows = []
        with ThreadPoolExecutor(concurrency) as pool, tqdm(total=requests, desc="requests", unit="req",
                                                           disable=not progress) as bar:
            futures = [pool.submit(one_request, client, url, items[k % len(items)], timeout) for k in range(requests)]
            for f in as_completed(futures):
                rows.append(f.result())
                bar.update(1)
        wall = time.perf_counter() - t0
        after = scrape(client, url)
    return summarise(rows, wall, before, after) | {"models": models, "requests": rows}


def summarise(rows: list[dict], wall_s: float, before: dict, after: dict) -> dict:
    def pct(values: list[float]) -> dict:
        if not values:
            return {"p50": None, "p95": None, "max": None}
        a = np.asarray(values)
        return {"p50": round(float(np.percentile(a, 50)), 3), "p95": round(float(np.percentile(a, 95)), 3),
                "max": round(float(a.max()), 3)}

    d = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in NLI_COUNTERS}
    ok = [r for r in rows if r["status"] == 200]
    lookups = d["vericite_nli_cache_hits"] + d["vericite_nli_cache_misses"]
    return {
        "n": len(rows),
        "wall_s": round(wall_s, 3),
        "throughput_rps": round(len(ok) / wall_s, 3) if wall_s else None,
        "status": {str(k): v for k, v in sorted(Counter(r["status"] for r in rows).items(), key=lambda kv: str(kv[0]))},
        "mismatched_answers": sum(1 for r in ok if not r["matches"]),
        "latency_ok_s": pct([r["latency_s"] for r in ok]),
        "latency_all_s": pct([r["latency_s"] for r in rows]),
        "nli_batch_submissions_mean": round(d["vericite_nli_submissions"] / d["vericite_nli_steps"], 3)
        if d["vericite_nli_steps"] else None,
        "nli_batch_pairs_mean": round(d["vericite_nli_pairs"] / d["vericite_nli_steps"], 3)
        if d["vericite_nli_steps"] else None,
        "nli_pairs": int(d["vericite_nli_pairs"]),
        "nli_cache_hit_rate": round(d["vericite_nli_cache_hits"] / lookups, 3) if lookups else None,
        "queue_depth_peak": after.get("vericite_queue_depth_peak"),
        "queue_size": after.get("vericite_queue_size"),
    }


def markdown(s: dict, meta: dict) -> str:
    lat, lat_all = s["latency_ok_s"], s["latency_all_s"]
    status = ", ".join(f"{k}: {v}" for k, v in s["status"].items())
    rows = [
        ("requests (concurrency)", f"{s['n']} ({meta['concurrency']})"),
        ("status counts", status),
        ("latency p50 / p95 / max, 200s (s)", f"{lat['p50']} / {lat['p95']} / {lat['max']}"),
        ("latency p50 / p95, all (s)", f"{lat_all['p50']} / {lat_all['p95']}"),
        ("throughput (answered/s)", s["throughput_rps"]),
        ("wall (s)", s["wall_s"]),
        ("NLI batch size: check batches / pairs per step", f"{s['nli_batch_submissions_mean']} / {s['nli_batch_pairs_mean']}"),
        ("NLI pairs, cache hit rate", f"{s['nli_pairs']}, {s['nli_cache_hit_rate']}"),
        ("queue peak / bound", f"{s['queue_depth_peak']} / {s['queue_size']}"),
    ]
    m = meta["models"]
    head = (f"# vericite bench serve\n\nserver {meta['url']} ({'spawned' if meta['spawned'] else 'given'}); "
            f"LLM {m['llm']['name']}, NLI {m['nli']['name']}, prompts {m['prompts']}; data {meta['data']} "
            f"(ndoc {meta['ndoc']}); git {meta['git_sha']}\n\n")
    return head + "| measure | value |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows)


# -- spawning a server ---------------------------------------------------------------------------
def free_port() -> int:
    """A free TCP port on 127.0.0.1 (free when asked: a server started next binds it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(args, models_toml: str | None) -> tuple[subprocess.Popen, str]:
    """Start ``vericite serve`` on a free loopback port; returns once ``/ready`` answers 200."""
    port = free_port()
    cmd = [sys.executable, "-m", "vericite.engine.cli", "-q"] + (["--models", models_toml] if models_toml else [])
    cmd += ["serve", "--host", "127.0.0.1", "--port", str(port), "--workers", str(args.workers),
            "--queue-size", str(args.queue_size)]
    cmd += [x for k in ("llm", "nli") if getattr(args, k) for x in (f"--{k}", getattr(args, k))]
    if args.parallel_docs:
        cmd += ["--parallel-docs", str(args.parallel_docs)]
    if args.deadline:
        cmd += ["--timeout", f"{args.deadline:g}"]
    proc = subprocess.Popen(cmd)
    return proc, wait_ready(proc, f"http://127.0.0.1:{port}", cmd, args.spawn_timeout)


def wait_ready(proc: subprocess.Popen, url: str, cmd: list[str], timeout_s: float, poll_s: float = 0.5) -> str:
    """``url`` once the server that ``proc`` runs answers ``/ready`` with 200.

    Raises:
        ConfigError: the process exited, or it was not ready within ``timeout_s`` seconds (it is then stopped).
    """
    import httpx

    t_end = time.monotonic() + timeout_s
    while time.monotonic() < t_end:
        if proc.poll() is not None:
            raise ConfigError(f"the spawned server exited with code {proc.returncode}: {' '.join(cmd)}")
        try:
            if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                return url
        except httpx.TransportError:
            pass
        time.sleep(poll_s)
    proc.terminate()
    proc.wait(30)
    raise ConfigError(f"the spawned server was not ready within {timeout_s:g} s")


def main(argv: list[str] | None = None, models_toml: str | None = None) -> int:
    from .datasets import load_items

    ap = argparse.ArgumentParser(prog="vericite bench serve", description=__doc__.split("\n\n")[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a running server, e.g. http://127.0.0.1:8000")
    where.add_argument("--spawn", action="store_true", help="start `vericite serve` on a free loopback port")
    ap.add_argument("--llm", help="with --spawn: LLM name in models.toml")
    ap.add_argument("--nli", help="with --spawn: NLI checker name in models.toml")
    ap.add_argument("--workers", type=int, default=2, help="with --spawn: request threads (default 2)")
    ap.add_argument("--parallel-docs", type=int, help="with --spawn: stage-2 documents decoded at once "
                                                       "(the server's setting; default: its default, 1)")
    ap.add_argument("--queue-size", type=int, default=8, help="with --spawn: queue bound (default 8)")
    ap.add_argument("--deadline", type=float, help="with --spawn: the server's per-request deadline, s (its "
                                                  "--timeout; default: its default, 300)")
    ap.add_argument("--spawn-timeout", type=float, default=900, help="with --spawn: seconds to wait for /ready")
    ap.add_argument("--data", required=True, help="JSONL of items with question + docs (e.g. ../shared/data/hotpotqa.jsonl)")
    ap.add_argument("--ndoc", type=int, default=5, help="documents per request (default 5)")
    ap.add_argument("--start", type=int, default=0, help="first item (0-based)")
    ap.add_argument("--concurrency", type=int, default=32, help="concurrent clients (default 32)")
    ap.add_argument("--requests", type=int, default=64, help="measured requests (default 64)")
    ap.add_argument("--warmup", type=int, default=1, help="unmeasured requests first, one at a time (default 1)")
    ap.add_argument("--timeout", type=float, default=900, help="client timeout per request, s")
    ap.add_argument("--api-key", help="bearer key (default: $VERICITE_API_KEY)")
    ap.add_argument("--out-dir", type=Path, default=Path("bench-out/serve"), help="where serve.md and serve.json go")
    ap.add_argument("--json", action="store_true", help="print the JSON summary")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    if args.concurrency < 1 or args.requests < 1:
        raise InputError("--concurrency and --requests must be >= 1")

    items = load_items(args.data, ndoc=args.ndoc, start=args.start, limit=args.requests)
    if not items:
        raise InputError(f"{args.data}: no items from {args.start}")
    key = args.api_key or os.environ.get("VERICITE_API_KEY")
    proc, url = spawn(args, models_toml) if args.spawn else (None, args.url.rstrip("/"))
    try:
        summary = run_load(url, items, requests=args.requests, concurrency=args.concurrency, warmup=args.warmup,
                           headers={"Authorization": f"Bearer {key}"} if key else None, timeout=args.timeout,
                           progress=not args.no_progress)
    finally:
        if proc is not None:
            proc.terminate()  # SIGTERM: the server drains and exits
            proc.wait(timeout=120)
    rows, models = summary.pop("requests"), summary.pop("models")
    meta = {"url": url, "spawned": proc is not None, "data": args.data, "ndoc": args.ndoc, "concurrency": args.concurrency,
            "warmup": args.warmup, "git_sha": git_revision(), "models": models}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "serve.json").write_text(json.dumps({"meta": meta, "summary": summary, "requests": rows}, indent=2))
    (args.out_dir / "serve.md").write_text(markdown(summary, meta))
    print(json.dumps({"meta": meta, **summary}, indent=2) if args.json else markdown(summary, meta))
    print(f"# wrote {args.out_dir}/serve.md, serve.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
