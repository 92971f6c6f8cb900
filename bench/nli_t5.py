"""Speed of the TRUE-style T5 checker path: the authors' generate() loop against one-step ONNX.

`python -m vericite.bench.nli_t5 [--n 64] [--data ../shared/data/nli/snli_test.jsonl] [--json]`

The same (premise, hypothesis) pairs are scored by

  a. ``torch_generate``:    PyTorch fp32 ``generate(max_new_tokens=10)``, one pair per call (how the
                            TRUE authors run it; the reference); label = first generated token is "1"
  b. ``torch_single_step``: PyTorch fp32, encoder + first decoder step -> P("1"), length-bucketed
                            batches (:func:`~vericite.engine.nli.batching.plan_batches`)
  c. ``onnx_fp32``:         the exported graph (``quantize="none"``) in :class:`OnnxT5Checker`
  d. ``onnx_int8``:         the same with int8 weights (``wo`` kept fp32); also ``onnx_int8_dynamic``
                            when that mode is asked for

on a tiny random T5 with TRUE's layout (:mod:`vericite.export.tiny_t5`) unless a model folder is
given: the ratios say what the batching and the single step save, not how fast 11B runs. On the
tiny model ``generate`` rarely emits ``</s>``, so it runs all 10 steps, while TRUE itself stops
after "1"/"0" + ``</s>`` (2 steps); ``reference_mean_new_tokens`` reports what (a) really ran, and
``torch_generate_2steps`` (the same call with ``max_new_tokens=2``) is what TRUE's own loop costs.
Each variant is warmed up on two pairs, then timed once over all pairs (``time.perf_counter``).
Threads: torch and ONNX Runtime intra-op both ``threads`` (default 2), set for the measurement.
Labels of (b)-(d) are P("1") > 0.5; agreement is the fraction of pairs whose label equals (a)'s.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from vericite.engine.nli.batching import (
    DEFAULT_BATCH_TOKENS,
    DEFAULT_MAX_BATCH,
    plan_batches,
)
from vericite.engine.nli.t5 import OnnxT5Checker
from vericite.engine.config.paths import shared_dir

log = logging.getLogger(__name__)

#: Export gate for the tiny random model: its many scores near 0.5 make int8 flip ~1% of labels
#: (see export/tiny_t5.py); a real checkpoint is exported with the default gate.
TINY_GATE = {"min_agreement": 0.95, "max_abs_dp": 0.1}
#: Variant names of the ONNX modes.
_VARIANT = {"none": "onnx_fp32", "int8": "onnx_int8", "int8-dynamic": "onnx_int8_dynamic"}
#: The authors' generation length.
MAX_NEW_TOKENS = 10


def _timed(fn, pairs: Sequence[tuple[str, str]]) -> tuple[Any, float]:
    fn(pairs[:2])  # warm-up: first-call allocations are not the steady state
    t0 = time.perf_counter()
    out = fn(pairs)
    return out, time.perf_counter() - t0


def bench_t5(pairs: Sequence[tuple[str, str]], workdir: str | Path, *,
             quantize_modes: Sequence[str] = ("none", "int8"), model_dir: str | Path | None = None,
             threads: int = 2, max_length: int = 512) -> dict:
    """Measure pairs/s and label agreement of the T5 TRUE-style variants (module docstring).

    Args:
        pairs: (premise, hypothesis) pairs (at least 2).
        workdir: folder for the tiny model and the exports (created; reused exports are overwritten).
        quantize_modes: ONNX modes to export and time (``"none"``, ``"int8"``, ``"int8-dynamic"``).
        model_dir: a local T5 checkpoint folder; default: a tiny random T5 made in ``workdir``.
        threads: torch threads and ONNX Runtime intra-op threads during the measurement.
        max_length: tokens per input (torch truncation, runtime window size).

    Returns:
        ``pairs_per_s`` (variant -> pairs/s), ``speedup_vs_reference`` (variant -> x over
        ``torch_generate``), ``agreement_vs_reference`` (variant -> fraction), ``ep`` (ONNX Runtime
        execution provider), ``max_abs_dp_vs_single_step`` (ONNX variant -> max |P - P_torch|),
        ``reference_mean_new_tokens``, ``parity`` (each export's gate figures, or the refusal),
        ``threads``, ``n_pairs``, ``mean_tokens``, ``model``.

    Raises:
        ValueError: fewer than 2 pairs or an unknown mode.
        ExportValidationError: not raised: a mode whose export is refused is reported under
            ``parity`` and left out of the timings.
    """
    import torch
    from transformers import AutoTokenizer, T5ForConditionalGeneration
    from vericite.export.nli_onnx import ExportValidationError
    from vericite.export.t5_true import (
        TRUE_TEMPLATE,
        export_t5_true,
        first_step_module,
        true_token_id,
    )
    from vericite.export.tiny_t5 import make_tiny_t5

    pairs = list(pairs)
    if len(pairs) < 2:
        raise ValueError("bench_t5 needs at least 2 pairs")
    unknown = [m for m in quantize_modes if m not in _VARIANT]
    if unknown:
        raise ValueError(f"unknown quantize modes {unknown}; expected some of {list(_VARIANT)}")
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    tiny = model_dir is None
    src = make_tiny_t5(workdir / "tiny-t5") if tiny else Path(model_dir)
    gate = TINY_GATE if tiny else {}

    prev_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        parity: dict[str, Any] = {}
        exported: dict[str, Path] = {}
        for mode in quantize_modes:
            out = workdir / f"onnx-{mode}"
            try:
                manifest = export_t5_true(src, out, quantize=mode, max_length=max_length, parity_pairs=pairs, **gate)
            except ExportValidationError as e:
                parity[mode] = {"refused": str(e), **e.figures}
                continue
            parity[mode] = {k: manifest["parity"][k] for k in ("n", "agreement", "max_abs_dp", "mean_abs_dp")}
            exported[mode] = out

        tok = AutoTokenizer.from_pretrained(str(src), local_files_only=True)
        model = T5ForConditionalGeneration.from_pretrained(str(src), local_files_only=True, dtype=torch.float32).eval()
        tid = true_token_id(tok)
        module = first_step_module(model, tid)
        texts = {pr: TRUE_TEMPLATE.format(premise=pr[0], hypothesis=pr[1]) for pr in pairs}
        new_tokens: list[int] = []

        def generate(batch, max_new_tokens=MAX_NEW_TOKENS):
            labels = []
            with torch.inference_mode():
                for pr in batch:
                    enc = tok(texts[pr], truncation=True, max_length=max_length, return_tensors="pt")
                    seq = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False, num_beams=1)
                    labels.append(int(seq[0, 1]) == tid)  # seq[0, 0] is the decoder start token
                    if max_new_tokens == MAX_NEW_TOKENS:
                        new_tokens.append(int(seq.shape[1]) - 1)
            return np.array(labels)

        def single_step(batch):
            ids = [tok(texts[pr], truncation=True, max_length=max_length)["input_ids"] for pr in batch]
            p = np.zeros(len(batch))
            with torch.inference_mode():
                for idx in plan_batches([len(r) for r in ids], max_tokens=DEFAULT_BATCH_TOKENS,
                                        max_batch=DEFAULT_MAX_BATCH):
                    width = max(len(ids[i]) for i in idx)
                    x = torch.full((len(idx), width), tok.pad_token_id, dtype=torch.long)
                    mask = torch.zeros_like(x)
                    for j, i in enumerate(idx):
                        x[j, :len(ids[i])] = torch.tensor(ids[i])
                        mask[j, :len(ids[i])] = 1
                    p[idx] = module(x, mask).double().numpy()
            return p

        ref_labels, ref_s = _timed(generate, pairs)
        n_new = new_tokens[2:]  # the timed calls only
        two_labels, two_s = _timed(lambda b: generate(b, 2), pairs)
        step_p, step_s = _timed(single_step, pairs)
        seconds = {"torch_generate": ref_s, "torch_generate_2steps": two_s, "torch_single_step": step_s}
        labels = {"torch_generate": ref_labels, "torch_generate_2steps": two_labels, "torch_single_step": step_p > 0.5}
        max_dp: dict[str, float] = {}
        ep = None
        for mode, out in exported.items():
            checker = OnnxT5Checker(out / "model.onnx", out / "tokenizer.json", max_length=max_length,
                                    intra_op_threads=threads, name=_VARIANT[mode])
            ep = checker.ep
            p, s = _timed(checker.scores, pairs)
            seconds[_VARIANT[mode]] = s
            labels[_VARIANT[mode]] = p > 0.5
            max_dp[_VARIANT[mode]] = round(float(np.abs(p - step_p).max()), 6)
    finally:
        torch.set_num_threads(prev_threads)

    n = len(pairs)
    return {
        "model": "tiny random T5, TRUE v1.0 layout (export/tiny_t5.py)" if tiny else str(src),
        "n_pairs": n,
        "mean_tokens": round(float(np.mean([len(tok(t)["input_ids"]) for t in texts.values()])), 1),
        "threads": threads,
        "reference": f"PyTorch fp32 generate(max_new_tokens={MAX_NEW_TOKENS}), one pair per call; "
                     "label = first generated token is '1'",
        "reference_mean_new_tokens": round(float(np.mean(n_new)), 2),
        "pairs_per_s": {k: round(n / s, 1) for k, s in seconds.items()},
        "speedup_vs_reference": {k: round(ref_s / s, 2) for k, s in seconds.items()},
        "agreement_vs_reference": {k: round(float((v == ref_labels).mean()), 4) for k, v in labels.items()},
        "max_abs_dp_vs_single_step": max_dp,
        "parity": parity,
        "ep": ep,
    }


def table(res: dict) -> str:
    """The result as a markdown table (one row per variant)."""
    head = (f"T5 TRUE-style path: {res['n_pairs']} pairs (mean {res['mean_tokens']} tokens), {res['model']}, "
            f"EP {res['ep']}, {res['threads']} threads; reference ran {res['reference_mean_new_tokens']} "
            "decoder steps per pair")
    lines = [head, "",
             "| variant | pairs/s | speedup vs torch_generate | label agreement vs torch_generate |",
             "|---|---:|---:|---:|"]
    for k, v in res["pairs_per_s"].items():
        lines.append(f"| {k} | {v} | {res['speedup_vs_reference'][k]}x | {res['agreement_vs_reference'][k]:.4f} |")
    lines += ["", f"max |dP| vs torch single step: {res['max_abs_dp_vs_single_step']}",
              f"export gates: {res['parity']}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(shared_dir() / "data" / "nli" / "snli_test.jsonl"),
                    help="JSONL with premise and hypothesis fields (default: shared SNLI test)")
    ap.add_argument("--n", type=int, default=64, help="pairs, in file order (default 64)")
    ap.add_argument("--modes", default="none,int8", help="ONNX quantize modes (default none,int8)")
    ap.add_argument("--model", help="a local T5 checkpoint folder (default: the tiny random T5)")
    ap.add_argument("--workdir", help="folder for the model and exports (default: a temporary folder)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    with open(args.data, encoding="utf-8") as fh:
        rows = [json.loads(line) for line, _ in zip(fh, range(args.n))]
    pairs = [(r["premise"], r["hypothesis"]) for r in rows]
    with tempfile.TemporaryDirectory(prefix="vericite-t5-bench-") as tmp:
        res = bench_t5(pairs, args.workdir or tmp, quantize_modes=args.modes.split(","), model_dir=args.model,
                       threads=args.threads)
    print(json.dumps(res, indent=2) if args.json else table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
