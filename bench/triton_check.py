"""The checker on Triton against the same checker in process: scores and pairs/s on the same pairs.

`vericite bench triton [--n-snli 300] [--n-items 5] [--callers 4] [--instances 1] [--json]`

Exports the default checker as a Triton repository (``--backend python``: the tritonserver binary of
nvidia-pytriton has no onnxruntime backend, so model.py runs the same model.onnx with ONNX Runtime
inside Triton), starts it on a free loopback port (export/triton_server.py), and scores the same
pairs (SNLI test pairs, HotpotQA paragraphs against one of their sentences and against another
paragraph's: token and sentence windows) with

  a. ``in_process``:   the checker as ``vericite answer`` loads it (ONNX Runtime, 1 intra-op thread)
  b. ``triton_1``:     the ``format = "triton"`` checker, one caller
  c. ``triton_C``:     the same, C threads each scoring 1/C of the pairs at once (what Triton's
                       dynamic batcher joins: executions vs requests come from its statistics)

after one warm-up call each; pairs/s = pairs / wall seconds. Scores: max |a - b| and verdicts that
differ at the checker's threshold. Server and in-process ONNX Runtime both get 1 intra-op thread per
instance, so on a small CPU the comparison is the client/HTTP overhead, not parallelism.
"""
from __future__ import annotations

import argparse
import json
import logging
import tempfile
import threading
import time
import tomllib

import numpy as np

from vericite.engine.nli.load import load_checker
from vericite.engine.config.registry import Registry
from vericite.engine.config.paths import shared_dir

from .common import git_revision

log = logging.getLogger(__name__)


def bench_pairs(n_snli: int, n_items: int) -> list[tuple[str, str]]:
    """SNLI test pairs in file order, then two pairs per HotpotQA paragraph of the first items.

    Raises:
        FileNotFoundError: a shared data file is missing.
    """
    shared = shared_dir()
    pairs: list[tuple[str, str]] = []
    with (shared / "data" / "nli" / "snli_test.jsonl").open(encoding="utf-8") as fh:
        for line, _ in zip(fh, range(n_snli)):
            r = json.loads(line)
            pairs.append((r["premise"], r["hypothesis"]))
    with (shared / "data" / "hotpotqa.jsonl").open(encoding="utf-8") as fh:
        items = [json.loads(line) for line, _ in zip(fh, range(n_items))]
    texts = [d["text"] for it in items for d in it["docs"][:5] if d.get("text")]
    for i, t in enumerate(texts):
        pairs += [(t, t.split(". ")[0]), (t, texts[(i + 1) % len(texts)].split(". ")[0])]
    return pairs


def _timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def run(*, n_snli: int = 300, n_items: int = 5, callers: int = 4, instances: int = 1, queue_delay_us: int = 2000,
        nli: str | None = None, models_toml: str | None = None) -> dict:
    """The measurement (see the module docstring); returns the record."""
    import tritonclient.http as httpclient

    from vericite.export.triton import export_triton
    from vericite.export.triton_server import LocalTritonServer, free_port

    registry = Registry.load(models_toml)
    spec = registry.get(nli, "nli")
    raw = tomllib.loads(registry.source.read_text(encoding="utf-8"))["models"][spec.name]
    pairs = bench_pairs(n_snli, n_items)
    local = load_checker(spec, intra_op_threads=1)
    with tempfile.TemporaryDirectory(prefix="vericite-triton-bench-") as tmp:
        port = free_port()
        manifest = export_triton(spec, tmp, backend="python", instances=instances, queue_delay_us=queue_delay_us,
                                 url=f"http://127.0.0.1:{port}", raw_entry=raw)
        entry_toml = f"{tmp}/models.toml"
        with open(entry_toml, "w", encoding="utf-8") as fh:
            fh.write(manifest["models_toml"])
        with LocalTritonServer(tmp, port=port, ready_timeout=120) as server:
            remote = load_checker(Registry.load(entry_toml).named(f"{spec.name}-triton"))
            warm = pairs[:8]
            local.scores(warm)
            remote.scores(warm)
            rows0 = local.stats["windows"]
            t_local, s_local = _timed(lambda: local.scores(pairs))
            rows = local.stats["windows"] - rows0
            t_remote, s_remote = _timed(lambda: remote.scores(pairs))
            client = httpclient.InferenceServerClient(server.url.split("//", 1)[1])
            before = client.get_inference_statistics(manifest["model_name"])["model_stats"][0]
            chunks = [pairs[k::callers] for k in range(callers)]
            out: dict[int, np.ndarray] = {}

            def score(k: int) -> None:
                out[k] = remote.scores(chunks[k])

            def concurrent() -> None:
                threads = [threading.Thread(target=score, args=(k,)) for k in range(callers)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()

            t_conc, _ = _timed(concurrent)
            after = client.get_inference_statistics(manifest["model_name"])["model_stats"][0]
            s_conc = np.zeros(len(pairs), dtype=np.float32)
            for k in range(callers):
                s_conc[k::callers] = out[k]
    thr = spec.threshold
    requests = int(after["inference_stats"]["success"]["count"]) - int(before["inference_stats"]["success"]["count"])
    return {
        "bench": "triton", "git": git_revision(), "checker": spec.name, "sha256": spec.sha256,
        "pairs": len(pairs), "threshold": thr, "rows": rows,
        "server": {"backend": "python (model.py: ONNX Runtime in Triton)", "instances": instances,
                   "threads_per_instance": 1, "queue_delay_us": queue_delay_us},
        "in_process": {"s": round(t_local, 3), "pairs_per_s": round(len(pairs) / t_local, 1)},
        "triton_1": {"s": round(t_remote, 3), "pairs_per_s": round(len(pairs) / t_remote, 1)},
        f"triton_{callers}": {"s": round(t_conc, 3), "pairs_per_s": round(len(pairs) / t_conc, 1),
                              "requests": requests,
                              "executions": int(after["execution_count"]) - int(before["execution_count"])},
        "max_abs_diff": float(max(np.abs(s_local - s_remote).max(), np.abs(s_local - s_conc).max())),
        "verdicts_differ": int(((s_local >= thr) != (s_remote >= thr)).sum() + ((s_local >= thr) != (s_conc >= thr)).sum()),
    }


def table(r: dict) -> str:
    conc = next(k for k in r if k.startswith("triton_") and k != "triton_1")
    lines = [f"{r['checker']} on {r['pairs']} pairs ({r['rows']} rows), git {r['git']}",
             f"{'variant':<12} {'s':>8} {'pairs/s':>9}"]
    for k in ("in_process", "triton_1", conc):
        lines.append(f"{k:<12} {r[k]['s']:>8.2f} {r[k]['pairs_per_s']:>9.1f}")
    lines.append(f"{conc}: {r[conc]['requests']} requests in {r[conc]['executions']} Triton executions")
    lines.append(f"max |in_process - triton| = {r['max_abs_diff']:.2e}; verdicts differing at {r['threshold']}: "
                 f"{r['verdicts_differ']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None, models_toml: str | None = None) -> int:
    ap = argparse.ArgumentParser(prog="vericite bench triton", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-snli", type=int, default=300, help="SNLI test pairs (default 300)")
    ap.add_argument("--n-items", type=int, default=5, help="HotpotQA items whose paragraphs make pairs (default 5)")
    ap.add_argument("--callers", type=int, default=4, help="concurrent callers for the batched run (default 4)")
    ap.add_argument("--instances", type=int, default=1, help="Triton model instances (default 1)")
    ap.add_argument("--queue-delay-us", type=int, default=2000, help="dynamic batching queue delay (default 2000)")
    ap.add_argument("--nli", help="checker name in models.toml (default: the default checker)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    res = run(n_snli=args.n_snli, n_items=args.n_items, callers=args.callers, instances=args.instances,
              queue_delay_us=args.queue_delay_us, nli=args.nli, models_toml=models_toml)
    print(json.dumps(res, indent=2) if args.json else table(res))
    return 0

