"""NLI speed benchmark: the authors' way (PyTorch, one pair per call) against our ONNX runtime.

`vericite bench nli [--n 512] [--json]`

The same real NLI pairs (ANLI test + RTE dev from ``../shared/data/nli``: premises of 40-100
words, about the length of a retrieved passage) are scored by

  a. ``torch_one``:      PyTorch fp32, one pair per call (the reference: how the authors call TRUE)
  b. ``torch_batched``:  PyTorch fp32, length-bucketed batches
  c. ``onnx_fp32``:      ONNX Runtime fp32, length-bucketed batches (exported on first use)
  d. ``onnx_int8_cold``: the shipped int8 model behind the dynamic batcher, empty cache
  e. ``cache_warm``:     the same pairs again through the same batcher: every pair a cache hit
  f. ``onnx_int8_dynamic``: onnxruntime dynamic int8 (integer compute; scores depend on the batch,
                         so it is not shipped), batched, for comparison

Each variant runs once over all pairs after one warm-up call; pairs/s = pairs / wall seconds.
Label agreement is measured against (a) at the checker's threshold (models.toml). Every runtime
uses all cores (torch threads = ORT intra-op threads = ``os.cpu_count()``). ONNX variants score
premises whole (no premise windows), as PyTorch does, so the comparison is like for like.

With ``--t5`` the same is measured for the TRUE-style T5 path on a tiny random T5 (speed only).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

import numpy as np

from vericite.engine.nli.batching import DynamicBatcher, plan_batches
from vericite.engine.config.registry import Registry, tokenizer_path, verify
from vericite.engine.nli.cross_encoder import OnnxCrossEncoder
from vericite.engine.nli.cache import ScoreCache
from vericite.engine.config.paths import shared_dir

log = logging.getLogger(__name__)

SHARED = shared_dir()
PAIR_FILES = ("anli_test.jsonl", "rte_dev.jsonl")


def load_pairs(n: int, shared: Path = SHARED) -> list[tuple[str, str]]:
    """``n`` (premise, hypothesis) pairs, alternating ANLI test and RTE dev rows in file order.

    Raises:
        FileNotFoundError: the shared NLI files are missing.
    """
    sources = []
    for name in PAIR_FILES:
        path = shared / "data" / "nli" / name
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found (set VERICITE_SHARED to the shared folder)")
        with path.open(encoding="utf-8") as fh:
            sources.append([(r["premise"], r["hypothesis"]) for r in map(json.loads, fh) if r.get("premise")])
    out, i = [], 0
    while len(out) < n and i < max(len(s) for s in sources):
        for s in sources:
            if i < len(s) and len(out) < n:
                out.append(s[i])
        i += 1
    return out


def _timed(fn, pairs) -> tuple[np.ndarray, float]:
    fn(pairs[:2])  # warm-up: first-call allocations are not the steady state
    t0 = time.perf_counter()
    p = np.asarray(fn(pairs), dtype=np.float64)
    return p, time.perf_counter() - t0


def torch_scorers(src: Path, max_length: int, threads: int):
    """(one-pair-per-call, batched) PyTorch fp32 scorers of P(entailment) for the HF folder ``src``."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.set_num_threads(threads)
    tok = AutoTokenizer.from_pretrained(str(src), local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(str(src), local_files_only=True).float().eval()
    ent = [i for i, v in model.config.id2label.items() if str(v).lower() == "entailment"][0]

    def run(batch):
        enc = tok([p for p, _ in batch], [h for _, h in batch], truncation="only_first", max_length=max_length,
                  padding=True, return_tensors="pt")
        with torch.inference_mode():
            return torch.softmax(model(**enc).logits.float(), -1)[:, ent].numpy()

    def one(pairs):
        return np.concatenate([run([pair]) for pair in pairs])

    def batched(pairs):
        lengths = [len(tok(p, h, truncation="only_first", max_length=max_length)["input_ids"]) for p, h in pairs]
        out = np.zeros(len(pairs))
        for idx in plan_batches(lengths):
            out[idx] = run([pairs[i] for i in idx])
        return out

    return one, batched


def exported(src: Path, cache_dir: Path, quantize: str) -> Path:
    """An ONNX export of ``src`` made once with ``export_cross_encoder(quantize=...)`` (int8-dynamic
    with the gate opened: it is measured, never shipped)."""
    out = cache_dir / f"{src.name}-{quantize}"
    if not (out / "manifest.json").is_file():
        from vericite.export.nli_onnx import export_cross_encoder

        log.info("exporting %s to ONNX (%s) in %s (once)", src, quantize, out)
        loose = {"min_agreement": 0.0, "max_abs_dp": 1.0} if quantize == "int8-dynamic" else {}
        export_cross_encoder(src, out, quantize=quantize, **loose)
    return out


def run(n: int, *, nli: str | None = None, src: Path | None = None, t5: bool = False,
        models_toml: str | None = None) -> dict:
    """Run variants a-e (and the T5 path with ``t5``); return the JSON-ready result.

    Returns:
        dict with ``pairs_per_s`` (variant -> pairs/s), ``speedup_vs_reference`` (variant -> x),
        ``agreement_vs_reference`` (variant -> fraction of equal labels at ``threshold``),
        ``max_abs_dp_vs_reference``, ``cache_warm_vs_cold`` (x), ``cache`` counters, ``ep``,
        ``threads``, ``n_pairs``, ``mean_tokens`` and the model names.
    """
    spec = Registry.load(models_toml).get(nli, "nli")
    if src is None:
        manifest = json.loads((verify(spec).parent / "manifest.json").read_text())
        src = Path(manifest["source"]["path"])
        if not src.is_dir():
            src = SHARED / "models" / src.name
    threads = os.cpu_count() or 1
    pairs = load_pairs(n)
    one, batched = torch_scorers(src, spec.max_length, threads)
    cache_dir = Path.home() / ".cache" / "vericite" / "bench"
    fp32_dir, dyn_dir = exported(src, cache_dir, "none"), exported(src, cache_dir, "int8-dynamic")
    onnx32, dyn = (OnnxCrossEncoder(d / "model.onnx", d / "tokenizer.json", max_length=spec.max_length,
                                    entailment_index=spec.entailment_index, name=d.name, intra_op_threads=threads)
                   for d in (fp32_dir, dyn_dir))
    int8 = OnnxCrossEncoder(verify(spec), tokenizer_path(spec), max_length=spec.max_length,
                            entailment_index=spec.entailment_index, name=spec.name, file_sha256=spec.sha256,
                            intra_op_threads=threads)
    tok = int8._tok
    mean_tokens = float(np.mean([len(tok.encode(p, h).ids) for p, h in pairs]))

    results: dict[str, tuple[np.ndarray, float]] = {}
    steps = [("torch_one", one), ("torch_batched", batched), ("onnx_fp32", onnx32.scores)]
    for name, fn in steps:
        log.info("%s: %d pairs", name, len(pairs))
        results[name] = _timed(fn, pairs)
    cache = ScoreCache(int8.cache_id)
    with DynamicBatcher(int8, cache=cache) as batcher:
        batcher.scores([("A warm-up premise.", "A warm-up hypothesis.")])  # not one of the pairs
        for name in ("onnx_int8_cold", "cache_warm"):
            log.info("%s: %d pairs", name, len(pairs))
            t0 = time.perf_counter()
            p = batcher.scores(pairs)
            results[name] = (np.asarray(p, dtype=np.float64), time.perf_counter() - t0)
    results["onnx_int8_dynamic"] = _timed(dyn.scores, pairs)
    ref, ref_s = results["torch_one"]
    thr = spec.threshold
    out = {
        "nli": spec.name, "reference_src": str(src), "n_pairs": len(pairs), "mean_tokens": round(mean_tokens, 1),
        "pair_files": list(PAIR_FILES), "threshold": thr, "ep": int8.ep, "threads": threads,
        "pairs_per_s": {k: round(len(pairs) / s, 1) for k, (_, s) in results.items()},
        "speedup_vs_reference": {k: round(ref_s / s, 2) for k, (_, s) in results.items()},
        "agreement_vs_reference": {k: round(float(((p >= thr) == (ref >= thr)).mean()), 4) for k, (p, _) in results.items()},
        "max_abs_dp_vs_reference": {k: round(float(np.abs(p - ref).max()), 4) for k, (p, _) in results.items()},
        "cache_warm_vs_cold": round(results["onnx_int8_cold"][1] / results["cache_warm"][1], 1),
        "cache": cache.stats(),
    }
    if t5:
        from vericite.bench.nli_t5 import bench_t5

        out["t5_true"] = bench_t5(pairs[: min(len(pairs), 64)], Path.home() / ".cache" / "vericite" / "bench" / "tiny-t5")
    return out


def table(res: dict) -> str:
    """The result as a markdown table (one row per variant)."""
    lines = [f"NLI speed: {res['n_pairs']} pairs (mean {res['mean_tokens']} tokens), EP {res['ep']}, "
             f"{res['threads']} threads, labels at P >= {res['threshold']}", "",
             "| variant | pairs/s | speedup vs torch_one | label agreement | max abs dP |", "|---|---:|---:|---:|---:|"]
    for k, v in res["pairs_per_s"].items():
        lines.append(f"| {k} | {v} | {res['speedup_vs_reference'][k]}x | {res['agreement_vs_reference'][k]:.4f} | "
                     f"{res['max_abs_dp_vs_reference'][k]:.4f} |")
    lines.append("")
    lines.append(f"cache: warm {res['cache_warm_vs_cold']}x faster than cold; {res['cache']}")
    if "t5_true" in res:
        t = res["t5_true"]
        lines += ["", "TRUE-style T5 path (tiny random T5, speed only):", "",
                  "| variant | pairs/s | speedup vs generate one-by-one |", "|---|---:|---:|"]
        for k, v in t["pairs_per_s"].items():
            lines.append(f"| {k} | {v} | {t['speedup_vs_reference'].get(k, '')}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None, models_toml: str | None = None) -> int:
    ap = argparse.ArgumentParser(prog="vericite bench nli", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=512, help="pairs to score (default 512)")
    ap.add_argument("--nli", help="checker name in models.toml (default: the default checker)")
    ap.add_argument("--src", type=Path, help="the checker's Hugging Face folder for the PyTorch reference "
                                             "(default: the source recorded in its manifest.json)")
    ap.add_argument("--t5", action="store_true", help="also measure the TRUE-style T5 path on a tiny random T5")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    res = run(args.n, nli=args.nli, src=args.src, t5=args.t5, models_toml=models_toml)
    print(json.dumps(res, indent=2) if args.json else table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
