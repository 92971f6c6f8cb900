"""GPU check: the checker, a TRUE-shaped T5 and the LLM measured in one prepared run on an NVIDIA GPU.

`python -m vericite.bench.gpu_check --out DIR [--quick] [--device auto|cuda|cpu] [--no-nli] [--no-t5]
[--no-llm] [--llm NAME|PATH] [--t5-shape tiny|t5-base|t5-large|t5-3b] [--threads N]`
(also `vericite bench gpu --out DIR ...`)

One command, so a short GPU lease is spent measuring, not typing. On a machine with CUDA
(``--device auto`` finds it through torch) it measures

1. **nli**: the shipped checker (``nli-minilm-l6-bin-int8``: int8 weights, fp32 compute) in pairs/s
   through the engine's own scorer (:func:`~vericite.engine.nli.load.load_checker`: premise
   windows, length-bucketed batches) with ONNX Runtime's CUDA execution provider; beside it the
   same weights dequantized to fp32 and an fp16 copy of that (onnxruntime's own float16 converter,
   inputs and outputs kept int64/fp32), and with ``--nli-src`` an fp32 export of the original
   Hugging Face model, each with its agreement with the shipped model (max |dP|, share of equal
   decisions at the checker's threshold); and the shipped model on the CPU EP over the first
   pairs, to show what CUDA changes in its scores;
2. **t5**: a TRUE-shaped T5 with random weights (:mod:`vericite.export.tiny_t5` with t5-large's
   sizes on a GPU, the tiny one on CPU), exported by :func:`~vericite.export.t5_true.export_t5_true`
   (fp32, encoder + first decoder step -> P("1")) and scored by the engine's
   :class:`~vericite.engine.nli.t5.OnnxT5Checker`, against Hugging Face transformers in bf16 one pair
   per call and bf16 batched (and fp32 batched as the reference), all on the same device; pairs/s,
   the ratios ours / HF, and agreement (max |dP|, share of equal decisions at 0.5) between them;
3. **llm**: llama.cpp's prompt-eval and generation tokens/s (:class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM`,
   every prompt evaluated from scratch) for a GGUF given by path or models.toml name, with
   ``n_gpu_layers=-1`` when CUDA is used and this llama-cpp-python build can offload.

On CPU the same code runs on small inputs (tiny T5, the tiny test GGUF), so CI tests it. Pairs
come from ``<shared>/data/nli`` (ANLI test + RTE dev, as ``vericite bench nli``), else from the
built-in :data:`SAMPLE_PAIRS`. Every variant is warmed up, then timed once over all its pairs
(``time.perf_counter``; torch is synchronised before the clock is read). Writes ``gpu_check.json``
and ``gpu_check.md`` to ``--out``, naming the device (GPU, driver, CUDA, onnxruntime and its
providers, torch, llama-cpp-python). A section that fails is reported with its error and the
others still run; the exit code is then 1.

Sizes (pairs, T5 shape, LLM tokens) are the :data:`PLANS` below; a full GPU run is sized for
about 5 minutes on an H200 after start-up (most of it building and exporting the t5-large-shaped
model on the CPU), ``--quick`` for about 2.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from vericite.engine.nli.batching import DEFAULT_MAX_BATCH, plan_batches
from vericite.engine.errors import ConfigError
from vericite.engine.config.registry import Registry, model_path, tokenizer_path, verify
from vericite.engine.nli.onnx_scorer import ep_providers
from vericite.engine.config.paths import REPO_ROOT, shared_dir

from .common import git_revision

log = logging.getLogger(__name__)

REPORT_JSON = "gpu_check.json"
REPORT_MD = "gpu_check.md"
TINY_GGUF = REPO_ROOT / "tests" / "data" / "tiny-qwen2.gguf"
#: The T5 parity gate for random weights (their many scores near 0.5): bench/nli_t5.py's.
T5_GATE = {"min_agreement": 0.95, "max_abs_dp": 0.1}
#: Decision threshold of the T5 scores (TRUE: the first token is "1").
T5_THRESHOLD = 0.5


class SectionSkipped(Exception):
    """A section cannot run on this install (a package is missing); reported as skipped with the reason."""


@dataclass(frozen=True)
class Plan:
    """What one run measures; one line per size, so the whole run reads on one screen."""

    nli_pairs: int          # pairs per checker variant (the one-by-one HF T5 variant is the slow one, not this)
    nli_batch_tokens: int   # padded tokens per ONNX Runtime call (a GPU wants bigger batches than a CPU)
    nli_max_batch: int      # rows per call at most
    cpu_ep_pairs: int       # pairs also scored on the CPU EP to compare with CUDA (0: not on a CPU run)
    t5_shape: str           # a key of T5_SHAPES
    t5_pairs: int           # pairs per T5 variant
    t5_parity_pairs: int    # pairs of the export's parity gate (scored on the CPU during the export)
    t5_batch_tokens: int    # padded tokens per call, ours and HF batched alike
    llm_prompt_tokens: int  # prompt tokens per LLM call (evaluated from scratch every call)
    llm_gen_tokens: int     # generation cap per call
    llm_repeats: int        # timed calls after one warm-up call


PLANS = {
    "cuda": Plan(nli_pairs=4096, nli_batch_tokens=65536, nli_max_batch=512, cpu_ep_pairs=256, t5_shape="t5-large",
                 t5_pairs=256, t5_parity_pairs=16, t5_batch_tokens=32768, llm_prompt_tokens=1024,
                 llm_gen_tokens=256, llm_repeats=3),
    "cuda-quick": Plan(nli_pairs=1024, nli_batch_tokens=65536, nli_max_batch=512, cpu_ep_pairs=64, t5_shape="t5-base",
                       t5_pairs=64, t5_parity_pairs=8, t5_batch_tokens=32768, llm_prompt_tokens=512,
                       llm_gen_tokens=128, llm_repeats=2),
    "cpu": Plan(nli_pairs=64, nli_batch_tokens=8192, nli_max_batch=DEFAULT_MAX_BATCH, cpu_ep_pairs=0, t5_shape="tiny",
                t5_pairs=32, t5_parity_pairs=8, t5_batch_tokens=8192, llm_prompt_tokens=64, llm_gen_tokens=16,
                llm_repeats=2),
    "cpu-quick": Plan(nli_pairs=16, nli_batch_tokens=8192, nli_max_batch=DEFAULT_MAX_BATCH, cpu_ep_pairs=0,
                      t5_shape="tiny", t5_pairs=8, t5_parity_pairs=4, t5_batch_tokens=8192, llm_prompt_tokens=32,
                      llm_gen_tokens=8, llm_repeats=1),
}

#: T5 v1.0 sizes (TRUE's layout: relu FFN, tied embeddings) over :data:`~vericite.export.tiny_t5.TINY_T5_CONFIG`;
#: the vocabulary stays the tiny tokenizer's (~2000 pieces against 32128: the LM head of one decoder
#: step is a small share of the work). TRUE itself is T5-11B (d_model 1024, 128 heads x 128, d_ff 65536).
T5_SHAPES: dict[str, dict[str, int]] = {
    "tiny": {},
    "t5-base": {"d_model": 768, "d_kv": 64, "num_heads": 12, "d_ff": 3072, "num_layers": 12, "num_decoder_layers": 12},
    "t5-large": {"d_model": 1024, "d_kv": 64, "num_heads": 16, "d_ff": 4096, "num_layers": 24,
                 "num_decoder_layers": 24},
    "t5-3b": {"d_model": 1024, "d_kv": 128, "num_heads": 32, "d_ff": 16384, "num_layers": 24,
              "num_decoder_layers": 24},
}

#: Pairs used when ``<shared>/data/nli`` is absent (e.g. on a lent GPU machine): label 1 = entailed.
SAMPLE_PAIRS: tuple[tuple[str, str, int], ...] = (
    ("The Eiffel Tower was completed in 1889 for the World's Fair in Paris.", "The Eiffel Tower is in Paris.", 1),
    ("The Eiffel Tower was completed in 1889 for the World's Fair in Paris.", "The Eiffel Tower opened in 1925.", 0),
    ("Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.",
     "Marie Curie won two Nobel Prizes.", 1),
    ("Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.",
     "Marie Curie never won a Nobel Prize.", 0),
    ("Rush is a Canadian rock band formed in Toronto in 1968 by Alex Lifeson and John Rutsey.",
     "Rush was formed in 1968.", 1),
    ("Rush is a Canadian rock band formed in Toronto in 1968 by Alex Lifeson and John Rutsey.",
     "Rush is a jazz trio from Chicago.", 0),
    ("A man in a red jacket is riding a bicycle down a busy city street.", "A person is riding a bike.", 1),
    ("A man in a red jacket is riding a bicycle down a busy city street.", "The man is asleep at home.", 0),
    ("Two children are playing with a ball on the beach while their parents watch.", "Kids are outside.", 1),
    ("Two children are playing with a ball on the beach while their parents watch.", "The children are in school.", 0),
    ("The Amazon river flows through Brazil, Peru and Colombia before reaching the Atlantic Ocean.",
     "The Amazon reaches the Atlantic.", 1),
    ("The Amazon river flows through Brazil, Peru and Colombia before reaching the Atlantic Ocean.",
     "The Amazon flows into the Pacific.", 0),
    ("The company reported revenue of 4.2 billion dollars in 2021, up 12 percent from the year before.",
     "Revenue grew in 2021.", 1),
    ("The company reported revenue of 4.2 billion dollars in 2021, up 12 percent from the year before.",
     "Revenue fell by half in 2021.", 0),
    ("A woman is slicing vegetables in a kitchen next to a pot of boiling water.", "Someone is cooking.", 1),
    ("A woman is slicing vegetables in a kitchen next to a pot of boiling water.", "A woman is swimming.", 0),
    ("The museum is open from nine in the morning until six in the evening, except on Mondays.",
     "The museum is closed on Mondays.", 1),
    ("The museum is open from nine in the morning until six in the evening, except on Mondays.",
     "The museum never closes.", 0),
    ("An old dog sleeps on the porch of a wooden house as the sun goes down.", "A dog is resting.", 1),
    ("An old dog sleeps on the porch of a wooden house as the sun goes down.", "A cat chases a mouse.", 0),
    ("The treaty was signed by twelve countries in Washington on the fourth of April.",
     "Twelve countries signed the treaty.", 1),
    ("The treaty was signed by twelve countries in Washington on the fourth of April.",
     "The treaty was signed in Moscow.", 0),
    ("Students gathered in the library to prepare for their final examinations next week.",
     "Students are studying.", 1),
    ("Students gathered in the library to prepare for their final examinations next week.",
     "The library has been closed for years.", 0),
)


# -- the device ---------------------------------------------------------------------------------------------
def _dist_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _nvidia_smi() -> dict[str, Any]:
    """GPU name, driver, memory and the driver's CUDA version from ``nvidia-smi`` (empty without one)."""
    exe = shutil.which("nvidia-smi")
    if not exe:
        return {}
    out: dict[str, Any] = {}
    try:
        q = subprocess.run([exe, "--query-gpu=name,driver_version,memory.total,compute_cap",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=30, check=False)
        rows = [[c.strip() for c in line.split(",")] for line in q.stdout.strip().splitlines() if line.strip()]
        out["gpus"] = [dict(zip(("name", "driver", "memory", "compute_cap"), r)) for r in rows]
        head = subprocess.run([exe], capture_output=True, text=True, timeout=30, check=False).stdout
        if "CUDA Version:" in head:
            out["driver_cuda"] = head.split("CUDA Version:")[1].split()[0]
    except (OSError, subprocess.SubprocessError) as e:
        out["error"] = str(e)
    return out


def device_info() -> dict[str, Any]:
    """What the run ran on: CPU, GPU (nvidia-smi), torch, onnxruntime and its providers, llama-cpp-python."""
    import onnxruntime as ort

    info: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpu": _cpu_name(),
        "nvidia_smi": _nvidia_smi(),
        "onnxruntime": {"version": ort.__version__, "providers": ort.get_available_providers(),
                        "built_for_cuda": _ort_cuda_version(),
                        "distributions": {d: _dist_version(d) for d in ("onnxruntime", "onnxruntime-gpu")}},
        "git": git_revision(),
    }
    dists = info["onnxruntime"]["distributions"]
    if dists["onnxruntime"] and dists["onnxruntime-gpu"]:
        info["warnings"] = ["onnxruntime and onnxruntime-gpu are both installed: they overwrite each other's files; "
                            "pip uninstall -y onnxruntime onnxruntime-gpu, then install one ('.[cpu]' or '.[gpu]')"]
    try:
        import torch

        info["torch"] = {"version": torch.__version__, "cuda": torch.version.cuda,
                         "cuda_available": torch.cuda.is_available()}
        if torch.cuda.is_available():
            info["torch"]["device"] = torch.cuda.get_device_name(0)
            info["torch"]["bf16_supported"] = torch.cuda.is_bf16_supported()
    except ImportError:
        info["torch"] = None
    try:
        import llama_cpp

        info["llama_cpp"] = {"version": llama_cpp.__version__,
                             "gpu_offload": bool(llama_cpp.llama_supports_gpu_offload())}
    except ImportError:
        info["llama_cpp"] = None
    return info


def _ort_cuda_version() -> str | None:
    """The CUDA version this onnxruntime was built for (None for a CPU build)."""
    try:
        from onnxruntime.capi import build_and_package_info as build
    except ImportError:
        return None
    return getattr(build, "cuda_version", None) or None


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def resolve_device(device: str) -> str:
    """"cuda" or "cpu" for ``--device`` (auto: cuda when torch sees a GPU).

    Raises:
        ConfigError: "cuda" asked for and torch sees no GPU (or is not installed).
    """
    if device not in ("auto", "cuda", "cpu"):
        raise ConfigError(f"--device {device!r}: expected auto, cuda or cpu")
    if device == "cpu":
        return "cpu"
    try:
        import torch

        has_cuda = torch.cuda.is_available()
    except ImportError:
        has_cuda = False
    if device == "cuda" and not has_cuda:
        raise ConfigError("--device cuda: torch sees no CUDA GPU (a CUDA build of torch and an NVIDIA driver are "
                          "needed; torch comes with the export extra)")
    return "cuda" if has_cuda else "cpu"


# -- inputs -------------------------------------------------------------------------------------------------
def load_pairs(n: int, shared: Path | None = None) -> tuple[list[tuple[str, str]], str]:
    """``n`` (premise, hypothesis) pairs and where they came from: the shared ANLI + RTE files as
    ``vericite bench nli`` reads them, else :data:`SAMPLE_PAIRS` repeated."""
    from .nli_speed import load_pairs as shared_pairs

    try:
        pairs = shared_pairs(n, shared or shared_dir())
        if len(pairs) >= min(n, 2):
            return pairs, "shared data/nli (ANLI test + RTE dev)"
    except FileNotFoundError:
        pass
    base = [(p, h) for p, h, _ in SAMPLE_PAIRS]
    return [base[i % len(base)] for i in range(n)], f"built-in SAMPLE_PAIRS ({len(base)} pairs, repeated)"


def _agreement(p: np.ndarray, ref: np.ndarray, threshold: float) -> dict[str, float]:
    p, ref = np.asarray(p, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    return {"max_abs_dp": round(float(np.abs(p - ref).max()), 6),
            "same_decisions": round(float(((p >= threshold) == (ref >= threshold)).mean()), 4)}


def _timed(fn: Callable[[list], Any], pairs: list, sync: Callable[[], None] = lambda: None) -> tuple[np.ndarray, float]:
    fn(pairs[: min(8, len(pairs))])  # warm-up: first-call allocations and kernel choices are not the steady state
    sync()
    t0 = time.perf_counter()
    out = np.asarray(fn(pairs), dtype=np.float64)
    sync()
    return out, time.perf_counter() - t0


def _rate(n: int, seconds: float) -> float:
    return round(n / seconds, 1) if seconds > 0 else float("inf")


# -- 1. the NLI checker ---------------------------------------------------------------------------------------
def _dequantized_copy(int8_model: Path, tokenizer: Path, out_dir: Path) -> Path:
    """The shipped int8-weight model with its weights dequantized to fp32 initializers: every
    DequantizeLinear of constant inputs replaced by its result, w = (q - zero_point) * scale along
    its axis. Same weights, so the same scores up to rounding, but fp32 compute with no dequantization
    per call, and a graph the float16 converter can take; no Hugging Face folder or torch needed."""
    import onnx
    from onnx import numpy_helper

    out_dir.mkdir(parents=True, exist_ok=True)
    dst = out_dir / "model.onnx"
    if not dst.is_file():
        model = onnx.load(str(int8_model))
        inits = {i.name: i for i in model.graph.initializer}
        keep, made, used = [], [], set()
        for node in model.graph.node:
            if node.op_type != "DequantizeLinear" or not all(i in inits for i in node.input):
                keep.append(node)
                continue
            q, scale, *zp = (numpy_helper.to_array(inits[i]) for i in node.input)
            axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
            shape = [1] * q.ndim
            if scale.ndim == 1 and q.ndim:
                shape[axis] = scale.size
            zero = zp[0].astype(np.float32).reshape(shape) if zp else np.float32(0)
            w = (q.astype(np.float32) - zero) * scale.astype(np.float32).reshape(shape)
            made.append(numpy_helper.from_array(w.astype(np.float32), node.output[0]))
            used.update(node.input)
        still = {i for n in keep for i in n.input}
        kept_inits = [i for i in model.graph.initializer if i.name not in used or i.name in still]
        del model.graph.node[:]
        model.graph.node.extend(keep)
        del model.graph.initializer[:]
        model.graph.initializer.extend(kept_inits + made)
        onnx.checker.check_model(model)
        onnx.save(model, str(dst))
    shutil.copy2(tokenizer, out_dir / "tokenizer.json")
    return dst


def _fp16_copy(fp32_dir: Path, out_dir: Path) -> Path:
    """An fp16 copy of an fp32 export (onnxruntime's float16 converter; int64 inputs, fp32 logits)."""
    import onnx
    from onnxruntime.transformers.float16 import convert_float_to_float16

    out_dir.mkdir(parents=True, exist_ok=True)
    dst = out_dir / "model.onnx"
    if not dst.is_file():
        model = convert_float_to_float16(onnx.load(str(fp32_dir / "model.onnx")), keep_io_types=True)
        onnx.save(model, str(dst))
    shutil.copy2(fp32_dir / "tokenizer.json", out_dir / "tokenizer.json")
    return dst


def bench_nli(plan: Plan, *, device: str, threads: int, workdir: Path, nli: str | None = None,
              nli_src: Path | None = None, models_toml: str | None = None) -> dict[str, Any]:
    """Section 1 (module docstring): the shipped checker and its weights in fp32 and fp16, in pairs/s."""
    from vericite.engine.nli.load import load_checker
    from vericite.engine.nli.cross_encoder import OnnxCrossEncoder

    spec = replace(Registry.load(models_toml).get(nli or "nli-minilm-l6-bin-int8", "nli"), number_guard=False)
    ep = "cuda" if device == "cuda" else "cpu"
    providers = ep_providers(ep)
    pairs, source = load_pairs(plan.nli_pairs)
    opts = dict(intra_op_threads=threads, batch_tokens=plan.nli_batch_tokens, batch_size=plan.nli_max_batch)
    shipped = load_checker(spec, providers=providers, **opts)
    mean_tokens = float(np.mean([len(shipped.ids(p)) + len(shipped.ids(h)) + 3 for p, h in pairs]))
    res: dict[str, Any] = {"model": spec.name, "pairs_source": source, "n_pairs": len(pairs),
                           "mean_tokens": round(mean_tokens, 1), "threshold": spec.threshold, "ep": shipped.ep,
                           "threads": threads, "batch_tokens": plan.nli_batch_tokens, "max_batch": plan.nli_max_batch,
                           "premise_window": spec.premise_window, "sentence_window": spec.sentence_window,
                           "variants": {}}
    ref, secs = _timed(shipped.scores, pairs)
    res["variants"]["int8"] = {"pairs_per_s": _rate(len(pairs), secs), "seconds": round(secs, 3), "ep": shipped.ep,
                               "rows": shipped.stats["windows"], **_agreement(ref, ref, spec.threshold)}

    # fp32 and fp16 of the shipped weights: the formats a GPU may prefer (the CPU EP runs them too, so a
    # CPU run covers the path); an fp32 export of the original model only when its HF folder is given
    fp32 = _dequantized_copy(verify(spec), tokenizer_path(spec), workdir / f"{spec.name}-dequantized-fp32")
    variants = {"fp32": fp32, "fp16": _fp16_copy(fp32.parent, workdir / f"{spec.name}-dequantized-fp16")}
    res["variant_sources"] = {"int8": "the shipped model (int8 weights, fp32 compute)",
                              "fp32": "the shipped int8 weights dequantized to fp32 (what the int8 graph computes "
                                      "unoptimized; onnxruntime's CPU optimizer rewrites its DequantizeLinear -> MatMul, "
                                      "so the two differ by ~0.01 there)",
                              "fp16": "that fp32 graph through onnxruntime's float16 converter (io kept)"}
    if nli_src is not None:
        from vericite.export.nli_onnx import export_cross_encoder

        hf_dir = workdir / f"{Path(nli_src).name}-hf-fp32"
        if not (hf_dir / "manifest.json").is_file():
            log.info("exporting %s to ONNX fp32 in %s", nli_src, hf_dir)
            export_cross_encoder(Path(nli_src), hf_dir, quantize="none", parity_pairs=pairs[:32])
        variants["fp32_hf"] = hf_dir / "model.onnx"
        res["variant_sources"]["fp32_hf"] = f"fp32 export of {nli_src} (before int8)"
    for name, path in variants.items():
        model = OnnxCrossEncoder(path, path.parent / "tokenizer.json", max_length=spec.max_length,
                                 entailment_index=spec.entailment_index, premise_window=spec.premise_window,
                                 sentence_window=spec.sentence_window, name=f"{spec.name}-{name}",
                                 providers=providers, **opts)
        p, secs = _timed(model.scores, pairs)
        res["variants"][name] = {"pairs_per_s": _rate(len(pairs), secs), "seconds": round(secs, 3),
                                 "ep": model.ep, "rows": model.stats["windows"], **_agreement(p, ref, spec.threshold)}
    if plan.cpu_ep_pairs and device == "cuda":
        n = min(plan.cpu_ep_pairs, len(pairs))
        cpu = load_checker(spec, providers=ep_providers("cpu"), **{**opts, "intra_op_threads": os.cpu_count()})
        p, secs = _timed(cpu.scores, pairs[:n])
        res["variants"]["int8_cpu_ep"] = {"pairs_per_s": _rate(n, secs), "seconds": round(secs, 3), "ep": cpu.ep,
                                          "n_pairs": n, "threads": os.cpu_count(),
                                          **_agreement(ref[:n], p, spec.threshold)}
    base = res["variants"]["int8"]["pairs_per_s"]
    res["ratios_vs_int8"] = {k: round(v["pairs_per_s"] / base, 2) for k, v in res["variants"].items()}
    return res


# -- 2. a TRUE-shaped T5: our export against HF transformers ------------------------------------------------------
def _t5_corpus(workdir: Path) -> tuple[Path, str]:
    """The tokenizer corpus for :func:`make_tiny_t5`: shared SNLI test, else :data:`SAMPLE_PAIRS` as JSONL."""
    snli = shared_dir() / "data" / "nli" / "snli_test.jsonl"
    if snli.is_file():
        return snli, "snli"
    path = workdir / "sample_pairs.jsonl"
    workdir.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for p, h, y in SAMPLE_PAIRS * 8:  # the Unigram trainer wants more than 24 lines
            fh.write(json.dumps({"premise": p, "hypothesis": h, "label": "entailment" if y else "contradiction"}) + "\n")
    return path, "sample"


def bench_t5(plan: Plan, *, device: str, threads: int, workdir: Path, shape: str | None = None) -> dict[str, Any]:
    """Section 2 (module docstring): a TRUE-shaped random T5, our ONNX export vs HF bf16 one by one / batched.
    torch runs on ``threads`` CPU threads throughout (building, exporting, measuring)."""
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as e:
        raise SectionSkipped(f"needs torch and transformers (pip install -e '.[export]'): {e}") from e
    prev_threads = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _bench_t5(plan, device=device, threads=threads, workdir=workdir, shape=shape)
    finally:
        torch.set_num_threads(prev_threads)


def _bench_t5(plan: Plan, *, device: str, threads: int, workdir: Path, shape: str | None) -> dict[str, Any]:
    import torch
    from transformers import AutoTokenizer, T5ForConditionalGeneration
    from vericite.engine.nli.t5 import OnnxT5Checker
    from vericite.export.nli_onnx import ExportValidationError
    from vericite.export.t5_true import TRUE_TEMPLATE, export_t5_true, first_step_module, true_token_id
    from vericite.export.tiny_t5 import make_tiny_t5

    shape = shape or plan.t5_shape
    if shape not in T5_SHAPES:
        raise ConfigError(f"--t5-shape {shape!r}: expected one of {sorted(T5_SHAPES)}")
    pairs, source = load_pairs(plan.t5_pairs)
    corpus, tag = _t5_corpus(workdir)
    t0 = time.perf_counter()
    src = workdir / f"t5-{shape}-{tag}"
    if not (src / "model.safetensors").is_file():
        log.info("building a random %s-shaped T5 in %s", shape, src)
        make_tiny_t5(src, corpus=corpus, config=T5_SHAPES[shape])
    out = workdir / f"t5-{shape}-{tag}-onnx-fp32"
    res: dict[str, Any] = {"shape": shape, "config": T5_SHAPES[shape] or "TINY_T5_CONFIG", "pairs_source": source,
                           "n_pairs": len(pairs), "threshold": T5_THRESHOLD, "device": device, "threads": threads,
                           "batch_tokens": plan.t5_batch_tokens, "variants": {}, "agreement": {}}
    try:
        if not (out / "manifest.json").is_file():
            log.info("exporting it to ONNX (fp32) in %s", out)
            export_t5_true(src, out, quantize="none", parity_pairs=pairs[:plan.t5_parity_pairs], **T5_GATE)
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        res["export"] = {k: manifest["parity"][k] for k in ("n", "agreement", "max_abs_dp")}
        res["export"]["external_data"] = bool(manifest.get("external_data"))
    except ExportValidationError as e:
        res["export"] = {"refused": str(e), **e.figures}
    res["build_and_export_s"] = round(time.perf_counter() - t0, 1)

    dev = torch.device(device)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    # the HF variants, on ``dev``
    tok = AutoTokenizer.from_pretrained(str(src), local_files_only=True)
    tid = true_token_id(tok)
    texts = {pr: TRUE_TEMPLATE.format(premise=pr[0], hypothesis=pr[1]) for pr in pairs}
    ids = {pr: tok(texts[pr], truncation=True, max_length=512)["input_ids"] for pr in texts}
    res["mean_tokens"] = round(float(np.mean([len(ids[pr]) for pr in pairs])), 1)

    def scorer(dtype):
        model = T5ForConditionalGeneration.from_pretrained(str(src), local_files_only=True, dtype=dtype)
        module = first_step_module(model.to(dev).eval(), tid)
        res.setdefault("params_m", round(sum(p.numel() for p in model.parameters()) / 1e6, 1))

        def run(rows: list[list[int]]) -> np.ndarray:
            width = max(len(r) for r in rows)
            x = torch.full((len(rows), width), tok.pad_token_id, dtype=torch.long)
            mask = torch.zeros_like(x)
            for j, r in enumerate(rows):
                x[j, :len(r)] = torch.tensor(r)
                mask[j, :len(r)] = 1
            with torch.inference_mode():
                return module(x.to(dev), mask.to(dev)).float().cpu().numpy()

        def one(batch):
            return np.concatenate([run([ids[pr]]) for pr in batch])

        def batched(batch):
            rows = [ids[pr] for pr in batch]
            p = np.zeros(len(batch))
            for idx in plan_batches([len(r) for r in rows], max_tokens=plan.t5_batch_tokens,
                                    max_batch=DEFAULT_MAX_BATCH * 4):
                p[idx] = run([rows[i] for i in idx])
            return p

        return one, batched

    scores: dict[str, np.ndarray] = {}
    seconds: dict[str, float] = {}
    one32, batched32 = scorer(torch.float32)
    scores["hf_fp32_batched"], seconds["hf_fp32_batched"] = _timed(batched32, pairs, sync)
    del one32, batched32
    one16, batched16 = scorer(torch.bfloat16)
    scores["hf_bf16_one"], seconds["hf_bf16_one"] = _timed(one16, pairs, sync)
    scores["hf_bf16_batched"], seconds["hf_bf16_batched"] = _timed(batched16, pairs, sync)
    del one16, batched16
    if device == "cuda":
        torch.cuda.empty_cache()  # the HF models' memory back before ONNX Runtime's session takes its own
    if "refused" not in res["export"]:
        ours = OnnxT5Checker(out / "model.onnx", out / "tokenizer.json", max_length=512,
                             providers=ep_providers("cuda" if device == "cuda" else "cpu"), intra_op_threads=threads,
                             batch_tokens=plan.t5_batch_tokens, max_batch=DEFAULT_MAX_BATCH * 4, name="onnx_fp32")
        res["ep"] = ours.ep
        scores["onnx_fp32"], seconds["onnx_fp32"] = _timed(ours.scores, pairs)
    n = len(pairs)
    for k in scores:
        res["variants"][k] = {"pairs_per_s": _rate(n, seconds[k]), "seconds": round(seconds[k], 3)}
    ref = scores["hf_fp32_batched"]
    for k, p in scores.items():
        if k != "hf_fp32_batched":
            res["agreement"][f"{k}_vs_hf_fp32_batched"] = _agreement(p, ref, T5_THRESHOLD)
    if "onnx_fp32" in scores:
        for k in ("hf_bf16_one", "hf_bf16_batched"):
            res["agreement"][f"onnx_fp32_vs_{k}"] = _agreement(scores["onnx_fp32"], scores[k], T5_THRESHOLD)
        res["ratios"] = {f"onnx_fp32_over_{k}": round(seconds[k] / seconds["onnx_fp32"], 2)
                         for k in ("hf_bf16_one", "hf_bf16_batched", "hf_fp32_batched")}
    res["agreement"]["hf_bf16_one_vs_hf_bf16_batched"] = _agreement(scores["hf_bf16_one"], scores["hf_bf16_batched"],
                                                                    T5_THRESHOLD)
    return res


# -- 3. the LLM ---------------------------------------------------------------------------------------------------
_PROMPT_TEXT = ("The river rises in the northern hills, passes three old mill towns and a long valley of orchards, "
                "and reaches the sea at a harbour that has traded wool, timber and salt for six hundred years. ")


def resolve_llm(llm: str | None, device: str, models_toml: str | None = None) -> tuple[Path, str]:
    """The GGUF to measure and its label: ``llm`` as a path or a models.toml name; by default the
    registry's default LLM when its file is present and the run is on CUDA, else the tiny test GGUF.

    Raises:
        ConfigError: an unknown name; ModelFileError: a named model's file is missing or corrupt.
    """
    if llm and Path(llm).is_file():
        return Path(llm), Path(llm).name
    reg = Registry.load(models_toml)
    if llm:
        spec = reg.get(llm, "llm")
        return verify(spec), spec.name
    if device == "cuda":
        spec = reg.get(None, "llm")
        if model_path(spec).is_file():
            return verify(spec), spec.name
    return TINY_GGUF, "tiny-qwen2 (tests/data)"


def bench_llm(plan: Plan, *, device: str, threads: int, llm: str | None = None, models_toml: str | None = None,
              llm_factory: Callable[..., Any] | None = None) -> dict[str, Any]:
    """Section 3 (module docstring): prompt-eval and generation tokens/s, every prompt from scratch."""
    path, label = resolve_llm(llm, device, models_toml)
    offload = False
    if llm_factory is None:
        try:
            import llama_cpp
        except ImportError as e:
            raise SectionSkipped("llama-cpp-python is not installed (docs/gpu.md: build it with CUDA)") from e
        from vericite.engine.llm.llama_cpp import LlamaCppLLM

        offload = bool(llama_cpp.llama_supports_gpu_offload())
        llm_factory = LlamaCppLLM
    gpu_layers = -1 if device == "cuda" and offload else 0
    n_ctx = plan.llm_prompt_tokens + plan.llm_gen_tokens + 64
    lm = llm_factory(path, n_ctx=n_ctx, n_threads=threads, n_gpu_layers=gpu_layers, reuse_prefix=False,
                     chat_format="chatml")
    text = _PROMPT_TEXT * (plan.llm_prompt_tokens // 8 + 1)
    prompt, _ = lm.truncate(text, plan.llm_prompt_tokens - 1)  # BOS is the last prompt token
    calls = []
    for i in range(plan.llm_repeats + 1):  # call 0 warms up
        call = lm.chat(prompt, max_tokens=plan.llm_gen_tokens, purpose=f"gpu-check:{i}")
        calls.append(call)
    timed = calls[1:]
    p_tok, p_ms = sum(c.prompt_tokens_computed for c in timed), sum(c.prompt_eval_ms for c in timed)
    g_tok, g_ms = sum(c.completion_tokens for c in timed), sum(c.generation_ms for c in timed)
    res = {"model": label, "path": str(path), "n_gpu_layers": gpu_layers, "gpu_offload_supported": offload,
           "threads": threads, "n_ctx": n_ctx, "prompt_tokens": timed[0].prompt_tokens,
           "max_tokens": plan.llm_gen_tokens, "timed_calls": len(timed),
           "prompt_tokens_per_s": round(p_tok / p_ms * 1000, 1) if p_ms > 0 else None,
           "generation_tokens_per_s": round(g_tok / g_ms * 1000, 1) if g_ms > 0 else None,
           "calls": [{k: getattr(c, k) for k in ("prompt_tokens_computed", "completion_tokens", "prompt_eval_ms",
                                                   "generation_ms", "wall_ms", "finish_reason")} for c in timed]}
    if device == "cuda" and not offload:
        res["warning"] = ("this llama-cpp-python build cannot offload to a GPU: measured on the CPU; rebuild it with "
                          "CMAKE_ARGS=\"-DGGML_CUDA=on\" (docs/gpu.md)")
    close = getattr(lm, "close", None)
    if callable(close):
        close()
    return res


# -- the run --------------------------------------------------------------------------------------------------------
def run(*, out: Path, device: str = "auto", quick: bool = False, sections: Sequence[str] = ("nli", "t5", "llm"),
        threads: int | None = None, workdir: Path | None = None, nli: str | None = None, nli_src: Path | None = None,
        t5_shape: str | None = None, llm: str | None = None, models_toml: str | None = None,
        llm_factory: Callable[..., Any] | None = None) -> dict[str, Any]:
    """Run the sections, write ``gpu_check.json`` and ``gpu_check.md`` to ``out``, return the report.

    A section's failure is caught, logged with its traceback and reported (``sections[name]["status"]
    == "error"`` with the message); the other sections still run.
    """
    t_start = time.perf_counter()
    dev = resolve_device(device)
    plan = PLANS[dev + ("-quick" if quick else "")]
    threads = threads or os.cpu_count() or 1
    workdir = workdir or Path.home() / ".cache" / "vericite" / "bench" / "gpu-check"
    workdir.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {
        "bench": "gpu_check", "schema": 1, "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "mode": dev, "quick": quick, "plan": asdict(plan), "device": device_info(), "sections": {},
    }
    if t5_shape:
        report["plan"]["t5_shape"] = t5_shape
    if dev == "cpu":
        report["note"] = ("CPU run: the GPU code path on small inputs and tiny models; these are not GPU figures "
                          "(ratios between variants of one run only)")
    steps = {
        "nli": lambda: bench_nli(plan, device=dev, threads=threads, workdir=workdir, nli=nli, nli_src=nli_src,
                                 models_toml=models_toml),
        "t5": lambda: bench_t5(plan, device=dev, threads=threads, workdir=workdir, shape=t5_shape),
        "llm": lambda: bench_llm(plan, device=dev, threads=threads, llm=llm, models_toml=models_toml,
                                 llm_factory=llm_factory),
    }
    for name in steps:
        if name not in sections:
            report["sections"][name] = {"status": "skipped", "reason": f"--no-{name}"}
            continue
        t0 = time.perf_counter()
        try:
            report[name] = steps[name]()
            report["sections"][name] = {"status": "ok", "seconds": round(time.perf_counter() - t0, 1)}
        except SectionSkipped as e:
            log.warning("section %s skipped: %s", name, e)
            report["sections"][name] = {"status": "skipped", "reason": str(e)}
        except Exception as e:  # reported in the file and the exit code; the GPU lease goes on to the next section
            log.error("section %s failed: %s", name, traceback.format_exc())
            report["sections"][name] = {"status": "error", "seconds": round(time.perf_counter() - t0, 1),
                                        "error": f"{type(e).__name__}: {e}"}
        log.info("section %s: %s", name, report["sections"][name])
    report["wall_s"] = round(time.perf_counter() - t_start, 1)
    out.mkdir(parents=True, exist_ok=True)
    (out / REPORT_JSON).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / REPORT_MD).write_text(markdown(report) + "\n", encoding="utf-8")
    return report


def _device_line(d: dict[str, Any]) -> str:
    smi = d.get("nvidia_smi") or {}
    gpus = ", ".join(f"{g.get('name')} ({g.get('memory')}, driver {g.get('driver')})" for g in smi.get("gpus", []))
    torch_info = d.get("torch") or {}
    llama = d.get("llama_cpp") or {}
    ort = d["onnxruntime"]
    return (f"GPU: {gpus or 'none'}; driver CUDA {smi.get('driver_cuda', '-')}; CPU: {d['cpu']} x {d['cpu_count']}; "
            f"torch {torch_info.get('version', '-')} (CUDA {torch_info.get('cuda') or '-'}); onnxruntime "
            f"{ort['version']} (CUDA {ort.get('built_for_cuda') or '-'}) {ort['providers']}; llama-cpp-python {llama.get('version', '-')} "
            f"(GPU offload: {llama.get('gpu_offload', '-')}); git {d['git']}")


def markdown(r: dict[str, Any]) -> str:
    """The report as markdown: the device, then one table per section."""
    lines = [f"# GPU check ({r['mode']}{', quick' if r['quick'] else ''}, {r['started_utc']}, {r['wall_s']} s)", "",
             _device_line(r["device"]), ""]
    if r.get("note"):
        lines += [f"Note: {r['note']}.", ""]
    for w in r["device"].get("warnings", []):
        lines += [f"Warning: {w}", ""]
    lines += ["| section | status | seconds |", "|---|---|---:|"]
    for k, s in r["sections"].items():
        lines.append(f"| {k} | {s['status']}{': ' + s.get('error', s.get('reason', '')) if s['status'] != 'ok' else ''}"
                     f" | {s.get('seconds', '')} |")
    if "nli" in r:
        n = r["nli"]
        lines += ["", f"## NLI checker: {n['model']}, {n['n_pairs']} pairs ({n['pairs_source']}, mean {n['mean_tokens']} "
                      f"tokens), batches of {n['batch_tokens']} tokens, decisions at {n['threshold']}", "",
                  "| variant | EP | pairs/s | vs int8 | max abs dP vs int8 | same decisions |", "|---|---|---:|---:|---:|---:|"]
        for k, v in n["variants"].items():
            lines.append(f"| {k} | {v['ep']} | {v['pairs_per_s']} | {n['ratios_vs_int8'][k]}x | {v['max_abs_dp']} | "
                         f"{v['same_decisions']} |")
        lines += ["", "; ".join(f"{k}: {v}" for k, v in n["variant_sources"].items())]
    if "t5" in r:
        t = r["t5"]
        lines += ["", f"## TRUE-shaped T5 ({t['shape']}, {t.get('params_m', '?')}M parameters, random weights), "
                      f"{t['n_pairs']} pairs (mean {t.get('mean_tokens', '?')} tokens) on {t['device']}, "
                      f"ONNX EP {t.get('ep', '-')}; built and exported in {t['build_and_export_s']} s; "
                      f"export gate {t.get('export')}", "",
                  "| variant | pairs/s | seconds |", "|---|---:|---:|"]
        for k, v in t["variants"].items():
            lines.append(f"| {k} | {v['pairs_per_s']} | {v['seconds']} |")
        if t.get("ratios"):
            lines += ["", "ratios (ours / HF, pairs/s): " + ", ".join(f"{k} {v}x" for k, v in t["ratios"].items())]
        lines += ["", "| agreement | max abs dP | same decisions at 0.5 |", "|---|---:|---:|"]
        for k, v in t["agreement"].items():
            lines.append(f"| {k} | {v['max_abs_dp']} | {v['same_decisions']} |")
    if "llm" in r:
        m = r["llm"]
        lines += ["", f"## LLM: {m['model']} (n_gpu_layers {m['n_gpu_layers']}, {m['threads']} threads), "
                      f"{m['prompt_tokens']}-token prompt from scratch, up to {m['max_tokens']} new tokens, "
                      f"{m['timed_calls']} timed calls", "",
                  f"prompt eval {m['prompt_tokens_per_s']} tokens/s; generation {m['generation_tokens_per_s']} tokens/s"]
        if m.get("warning"):
            lines += ["", f"Warning: {m['warning']}"]
    return "\n".join(lines)


def main(argv: list[str] | None = None, models_toml: str | None = None) -> int:
    ap = argparse.ArgumentParser(prog="vericite bench gpu", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help=f"folder for {REPORT_JSON} and {REPORT_MD}")
    ap.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"],
                    help="auto: CUDA when torch sees a GPU, else the CPU path on small inputs")
    ap.add_argument("--quick", action="store_true", help="smaller sizes (PLANS['cuda-quick'] / ['cpu-quick'])")
    for name in ("nli", "t5", "llm"):
        ap.add_argument(f"--no-{name}", action="store_true", help=f"skip the {name} section")
    ap.add_argument("--threads", type=int, help="CPU threads of ONNX Runtime, torch and llama.cpp (default: all cores)")
    ap.add_argument("--workdir", type=Path, help="models built and exported here, reused by later runs "
                                                 "(default ~/.cache/vericite/bench/gpu-check)")
    ap.add_argument("--nli", help="checker name in models.toml (default nli-minilm-l6-bin-int8)")
    ap.add_argument("--nli-src", type=Path, help="the checker's Hugging Face folder: adds an fp32 export of it "
                                                 "(e.g. ../shared/models/nli-minilm-l6-bin)")
    ap.add_argument("--t5-shape", choices=sorted(T5_SHAPES), help="T5 sizes (default: t5-large on CUDA, "
                                                                  "t5-base with --quick, tiny on CPU)")
    ap.add_argument("--llm", help="a GGUF path or a models.toml LLM name (default: the default LLM on CUDA when "
                                  "present, else tests/data/tiny-qwen2.gguf)")
    ap.add_argument("--models", dest="models_toml", help="another models.toml")
    args = ap.parse_args(argv)
    sections = [s for s in ("nli", "t5", "llm") if not getattr(args, f"no_{s}")]
    report = run(out=args.out, device=args.device, quick=args.quick, sections=sections, threads=args.threads,
                 workdir=args.workdir, nli=args.nli, nli_src=args.nli_src, t5_shape=args.t5_shape, llm=args.llm,
                 models_toml=args.models_toml or models_toml)
    print(markdown(report))
    print(f"\nwritten: {args.out / REPORT_JSON}, {args.out / REPORT_MD}")
    return 1 if any(s["status"] == "error" for s in report["sections"].values()) else 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    sys.exit(main())
