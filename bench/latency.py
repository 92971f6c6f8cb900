"""Latency benchmark: the authors' sequential order against the scheduler, on the same items.

`vericite bench latency --data FILE --limit N [--llm NAME] [--json] [--out-dir DIR]`

Each item runs twice with one loaded LLM and checker, alternating (so background load hits both):

  reference: the authors' order. Every LLM prompt is evaluated from scratch (separate API calls
             share no KV cache) and each NLI check is computed before the next LLM call.
  scheduled: NLI checks go to the checker's queue while the LLM moves on (stage 3 waits for all
             of them); the KV cache is kept between calls and stage 1's is restored for stage 3,
             so shared prompt prefixes are evaluated once.

Both use the same prompts (the LLM's profile, e.g. paper-en-kv: documents before instructions)
and the same premise-hypothesis cache setting: the cache is cleared before every run.

Per stage and mode: wall ms, LLM prompt tokens submitted / computed, generated tokens and
generation tokens/s, NLI pairs, NLI ms on the critical path. Totals: ``wall_s_sequential``,
``wall_s_scheduled``, ``speedup`` (= sequential / scheduled), ``llm_busy_s`` (scheduled LLM call
time), ``overlap_ratio`` (= scheduled wall / LLM busy time: 1.0 means NLI costs nothing on the
critical path), ``stage2_prompt_tokens_saved`` (1 - computed / submitted in stage 2),
``identical_answers`` (final answers) and ``identical_traces`` (every statement, fact, verdict and
score as well). Writes ``latency.md`` (table) and ``timeline.png`` (first item) to
``--out-dir``.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from dataclasses import replace
from pathlib import Path

from tqdm import tqdm
from vericite.engine.records import STAGES

log = logging.getLogger(__name__)

MODES = ("reference", "scheduled")


def _stage_row(stage) -> dict:
    gen_ms = sum(c.generation_ms for c in stage.llm_calls)
    gen = stage.completion_tokens
    return {
        "wall_ms": stage.wall_ms,
        "llm_calls": len(stage.llm_calls),
        "prompt_tokens_submitted": stage.prompt_tokens,
        "prompt_tokens_computed": sum(c.prompt_tokens_computed for c in stage.llm_calls),
        "generated_tokens": gen,
        "generation_tokens_per_s": round(gen / gen_ms * 1000, 1) if gen_ms else None,
        "prompt_eval_ms": round(sum(c.prompt_eval_ms for c in stage.llm_calls), 1),
        "nli_pairs": stage.nli_pairs,
        "nli_ms": stage.nli_ms,
    }


def _configure(pipe, mode: str) -> None:
    """Switch one loaded pipeline between the two orders and clear every cache."""
    pipe.llm.reuse_prefix = mode == "scheduled"
    pipe.llm.reset_cache()
    pipe.settings = replace(pipe.settings, schedule="overlap" if mode == "scheduled" else "sequential")
    cache = getattr(pipe.checker, "cache", None)
    if cache is not None:
        cache.clear_memory()


def run_item(pipe, question, docs, mode: str) -> tuple[object, dict]:
    """Answer one item in ``mode``; return the VerifiedAnswer and its measurements."""
    _configure(pipe, mode)
    batcher = pipe.checker
    cache = getattr(batcher, "cache", None)
    hits0 = cache.hits if cache is not None else 0
    n_events = len(getattr(batcher, "events", []))
    t0 = time.perf_counter()
    res = pipe.answer(question, docs)
    wall = time.perf_counter() - t0
    events = [{"start_ms": round((e.start - t0) * 1000, 1), "end_ms": round((e.end - t0) * 1000, 1),
               "pairs": e.pairs, "computed": e.computed} for e in getattr(batcher, "events", [])[n_events:]]
    llm_busy = sum(s.end_ms - s.start_ms for s in res.timeline if s.kind == "llm") / 1000
    row = {
        "wall_s": round(wall, 2),
        "llm_busy_s": round(llm_busy, 2),
        "stages": {st.name: _stage_row(st) for st in res.stages},
        "cache_hits": (cache.hits - hits0) if cache is not None else 0,
        "answer": res.answer,
        "trace": [[[x.text, list(x.citations), x.verdict, x.score] for x in st.statements] for st in res.stages]
                 + [[[x.text, list(x.citations), x.verdict, x.score] for x in res.final]],
        "timeline": [s.__dict__ for s in res.timeline],
        "nli_batches": events,
    }
    return res, row


def summarise(items: list[dict]) -> dict:
    """Totals over items (see the module docstring for each key)."""
    def tot(mode, key):
        return sum(it[mode][key] for it in items)

    def stage_tot(mode, stage, key):
        return sum(it[mode]["stages"][stage][key] for it in items)

    seq, sch = tot("reference", "wall_s"), tot("scheduled", "wall_s")
    busy = tot("scheduled", "llm_busy_s")
    sub = stage_tot("scheduled", "evidence", "prompt_tokens_submitted")
    comp = stage_tot("scheduled", "evidence", "prompt_tokens_computed")
    per_stage = {m: {s: {k: round(stage_tot(m, s, k), 1) for k in
                         ("wall_ms", "prompt_tokens_submitted", "prompt_tokens_computed", "generated_tokens",
                          "prompt_eval_ms", "nli_pairs", "nli_ms")} for s in STAGES} for m in MODES}
    return {
        "items": len(items),
        "wall_s_sequential": round(seq, 2),
        "wall_s_scheduled": round(sch, 2),
        "speedup": round(seq / sch, 3) if sch else None,
        "llm_busy_s": round(busy, 2),
        "overlap_ratio": round(sch / busy, 3) if busy else None,
        "stage2_prompt_tokens_submitted": sub,
        "stage2_prompt_tokens_computed": comp,
        "stage2_prompt_tokens_saved": round(1 - comp / sub, 3) if sub else None,
        "cache_hits": {m: tot(m, "cache_hits") for m in MODES},
        "identical_answers": all(it["reference"]["answer"] == it["scheduled"]["answer"] for it in items),
        # every statement, fact, verdict and score equal too (KV-cache reuse evaluates a prompt in other
        # chunks than a fresh evaluation; float rounding can flip a greedy near-tie, rarely)
        "identical_traces": all(it["reference"]["trace"] == it["scheduled"]["trace"] for it in items),
        "per_stage": per_stage,
    }


def markdown(summary: dict, meta: dict) -> str:
    """The benchmark's markdown table (per stage and mode, then totals)."""
    ps = summary["per_stage"]
    lines = [f"Latency: {summary['items']} items of {meta['data']}, LLM {meta['llm']} ({meta['llm_threads']} threads), "
             f"NLI {meta['nli']} ({meta['nli_threads']} threads, EP {meta['ep']}), prompts {meta['prompts']}", "",
             "| mode | stage | wall s | prompt tokens submitted | computed | generated | NLI pairs | NLI ms (critical path) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for m in MODES:
        for s in STAGES:
            r = ps[m][s]
            lines.append(f"| {m} | {s} | {r['wall_ms'] / 1000:.1f} | {int(r['prompt_tokens_submitted'])} | "
                         f"{int(r['prompt_tokens_computed'])} | {int(r['generated_tokens'])} | {int(r['nli_pairs'])} | "
                         f"{r['nli_ms']:.0f} |")
    lines += ["", "| total | value |", "|---|---:|"]
    for k in ("wall_s_sequential", "wall_s_scheduled", "speedup", "llm_busy_s", "overlap_ratio",
              "stage2_prompt_tokens_saved", "identical_answers", "identical_traces"):
        lines.append(f"| {k} | {summary[k]} |")
    return "\n".join(lines) + "\n"


def timeline_png(item: dict, path: Path) -> None:
    """Gantt-style chart of one item: LLM calls and NLI work on a time axis, both modes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(12, 4.5), sharex=True)
    colours = {"answer": "tab:blue", "gate": "tab:orange", "extract": "tab:green", "refine": "tab:purple"}
    for ax, mode in zip(axes, MODES):
        row = item[mode]
        for s in row["timeline"]:
            if s["kind"] == "llm":
                c = colours.get(s["label"].split(":")[0], "tab:gray")
                ax.barh(1, (s["end_ms"] - s["start_ms"]) / 1000, left=s["start_ms"] / 1000, color=c, edgecolor="k", lw=0.3)
            elif s["kind"] == "nli":
                ax.barh(0, max((s["end_ms"] - s["start_ms"]) / 1000, 0.05), left=s["start_ms"] / 1000, color="tab:red")
            elif s["kind"] == "wait":
                ax.barh(1, (s["end_ms"] - s["start_ms"]) / 1000, left=s["start_ms"] / 1000, color="white",
                        edgecolor="tab:red", hatch="//")
        for e in row["nli_batches"]:
            ax.barh(0, max((e["end_ms"] - e["start_ms"]) / 1000, 0.05), left=e["start_ms"] / 1000, color="tab:red")
        ax.set_yticks([0, 1], ["NLI", "LLM"])
        ax.set_title(f"{mode}: {row['wall_s']:.1f} s", fontsize=10, loc="left")
    axes[-1].set_xlabel("seconds since the question started")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()] + [plt.Rectangle((0, 0), 1, 1, color="tab:red")]
    fig.legend(handles, [*colours, "NLI"], loc="upper right", ncol=5, fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None, models_toml: str | None = None) -> int:
    from vericite.engine.docs import item_input, read_json_or_jsonl

    from .datasets import oracle_documents
    from vericite.engine.errors import InputError
    from vericite.engine.loader import build_pipeline, default_nli_threads

    ap = argparse.ArgumentParser(prog="vericite bench latency", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="JSONL of items with question + docs (e.g. ../shared/data/hotpotqa.jsonl)")
    ap.add_argument("--limit", type=int, default=5, help="items (default 5)")
    ap.add_argument("--start", type=int, default=0, help="first item (0-based)")
    ap.add_argument("--ndoc", type=int, default=5, help="documents per item (default 5)")
    ap.add_argument("--llm", help="LLM name in models.toml (default: the default LLM)")
    ap.add_argument("--nli", help="NLI checker name (default: the default checker)")
    ap.add_argument("--prompts", help="prompt set (default: the LLM's profile)")
    ap.add_argument("--threads", type=int, help="llama.cpp threads (default: the cores the checker leaves)")
    ap.add_argument("--nli-threads", type=int, help=f"ONNX Runtime threads (default {default_nli_threads()})")
    ap.add_argument("--out-dir", type=Path, default=Path("bench-out/latency"), help="where latency.md, timeline.png, latency.json go")
    ap.add_argument("--json", action="store_true", help="print the JSON summary")
    args = ap.parse_args(argv)

    rows = read_json_or_jsonl(args.data)
    if not isinstance(rows, list):
        rows = [rows]
    items = rows[args.start:args.start + args.limit]
    if not items:
        raise InputError(f"{args.data}: no items in [{args.start}, {args.start + args.limit})")
    pipe = build_pipeline(llm=args.llm, nli=args.nli, models_toml=models_toml, prompts=args.prompts,
                          threads=args.threads, nli_threads=args.nli_threads)
    out: list[dict] = []
    try:
        for k, raw in enumerate(tqdm(items, desc="items (reference + scheduled)", unit="item")):
            raw = {**raw, "docs": oracle_documents(raw.get("docs") or [], args.ndoc)}  # as earlier runs of this bench
            question, docs = item_input(raw, ndoc=args.ndoc, where=f"{args.data} item {args.start + k}")
            row = {"question": question}
            for mode in MODES:
                _, row[mode] = run_item(pipe, question, docs, mode)
            out.append(row)
    finally:
        pipe.checker.close()
    summary = summarise(out)
    meta = {"data": args.data, "llm": pipe.llm.name, "llm_threads": pipe.llm.n_threads, "nli": pipe.checker.name,
            "nli_threads": getattr(pipe.checker.checker, "intra_op_threads", None), "ep": pipe.checker.ep,
            "prompts": pipe.prompts.tag}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "latency.json").write_text(json.dumps({"meta": meta, "summary": summary, "items": out}, indent=2))
    (args.out_dir / "latency.md").write_text(markdown(summary, meta))
    timeline_png(out[0], args.out_dir / "timeline.png")
    print(json.dumps({"meta": meta, **summary}, indent=2) if args.json else markdown(summary, meta))
    print(f"# wrote {args.out_dir}/latency.md, timeline.png, latency.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
