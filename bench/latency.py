"""Latency benchmark: the authors' sequential order against the scheduler, and one plain LLM pass, on the same items.

`vericite bench latency --data FILE --limit N [--llm NAME] [--modes reference,scheduled,parallel,vanilla]
[--parallel-docs N] [--[no-]lazy-grammar] [--draft-tokens N] [--json] [--out-dir DIR]`

Each item runs in every mode with one loaded LLM and checker, alternating (so background load hits all):

  reference: the authors' order. Every LLM prompt is evaluated from scratch (separate API calls
             share no KV cache) and each NLI check is computed before the next LLM call.
  scheduled: NLI checks go to the checker's queue while the LLM moves on (stage 3 waits for all
             of them); the KV cache is kept between calls and stage 1's is restored for stage 3,
             so shared prompt prefixes are evaluated once.
  parallel:  as scheduled, with stage 2's documents decoded together (``--parallel-docs N``,
             default 4: parallel sequences of one llama.cpp context, or concurrent requests to a
             server LLM). Not in the default modes: ask for it (``--modes scheduled,parallel``).
  vanilla:   one greedy LLM pass as ``vericite run --method vanilla`` makes it (bench/methods.py
             ``Vanilla``: ALCE's prompt, ``--shots`` demos, the citation grammar when the LLM's
             profile decodes under it), from an empty KV cache: what a plain cited answer costs.

The two pipeline modes use the same prompts (the LLM's profile, e.g. paper-en-kv: documents before instructions)
and the same premise-hypothesis cache setting: the cache is cleared before every run.

Per stage and mode: wall ms, LLM prompt tokens submitted / computed, generated tokens and
generation tokens/s, NLI pairs, NLI ms on the critical path. Totals: ``wall_s_sequential``,
``wall_s_scheduled``, ``speedup`` (= sequential / scheduled), ``llm_busy_s`` (scheduled LLM call
time), ``overlap_ratio`` (= scheduled wall / LLM busy time: 1.0 means NLI costs nothing on the
critical path), ``stage2_prompt_tokens_saved`` (1 - computed / submitted in stage 2),
``identical_answers`` (final answers) and ``identical_traces`` (every statement, fact, verdict and
score as well). ``wall_s_vanilla`` and ``vericite_over_vanilla`` (= scheduled wall / vanilla
wall) compare with the plain pass. With the parallel mode: ``wall_s_parallel``,
``parallel_speedup`` (= scheduled wall / parallel wall), ``stage2_parallel_speedup`` (the same for
stage 2's wall), ``identical_answers_parallel`` / ``identical_traces_parallel`` (items whose final
answer / whole trace equals the scheduled run's, of ``items``) and ``stage2_texts_differing_parallel``
(stage-2 LLM texts that differ from the scheduled run's, of ``stage2_calls``). Per stage,
``stage_tokens_per_s`` is generated tokens / the stage's wall time (the throughput that batching
raises; the per-call ``generation_tokens_per_s`` of a batched call counts the shared steps).
``llm_busy_s`` is the union of the LLM spans (parallel calls overlap).

Grammar cost (issue 17), per stage and mode, over the calls decoded under a grammar:
``grammar_overhead_ms`` (wall - prompt eval - generation: the grammar plus the call's small fixed
cost; the same for unconstrained calls is ``other_overhead_ms``), ``grammar_ms`` (time measured
inside the grammar by the LLM's own loop, ``--lazy-grammar`` or ``--draft-tokens``; None where
llama-cpp-python's loop decoded), ``grammar_tokens_per_s`` (generated / (generation +
overhead)), ``unconstrained_tokens_per_s`` (the same for unconstrained generating calls), and
``draft_proposed`` / ``draft_accepted``. The levers: ``--no-lazy-grammar`` masks the whole
vocabulary every token (llama-cpp-python's sampler chain); ``--draft-tokens N`` turns on
prompt-lookup drafts of up to N tokens. Writes ``latency.md`` (table), ``latency.json`` and
``timeline.png`` (first item) to ``--out-dir``.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

from tqdm import tqdm
from vericite.engine.records import STAGES

log = logging.getLogger(__name__)

MODES = ("reference", "scheduled", "parallel", "vanilla")
DEFAULT_MODES = ("reference", "scheduled", "vanilla")
PIPE_MODES = ("reference", "scheduled", "parallel")  # the modes that run the pipeline (per stage, NLI, timeline)
#: per-stage sums in the summary (rates are derived from them after summing)
SUM_KEYS = ("wall_ms", "prompt_tokens_submitted", "prompt_tokens_computed", "generated_tokens", "prompt_eval_ms",
            "generation_ms", "nli_pairs", "nli_ms", "grammar_calls", "grammar_generated_tokens", "grammar_generation_ms",
            "grammar_overhead_ms", "grammar_ms", "other_generated_tokens", "other_generation_ms", "other_overhead_ms",
            "draft_proposed", "draft_accepted")


class CallLog:
    """Which LLM calls ran under a grammar, and the LLM's own-loop statistics of each.

    Wraps ``llm.chat`` on the instance (any backend), and the ``chat`` of the sessions
    ``llm.batched`` returns (stage 2's documents together; no per-call grammar time there); an
    LLMCall returned by it is looked up by identity (the log keeps it alive, so ids are not reused). Scored calls (``yes_probability``)
    are not chat calls and count as unconstrained.
    """

    def __init__(self, llm):
        self.llm = llm
        self.entries: list[tuple[object, dict]] = []
        self._by_id: dict[int, dict] = {}
        chat = llm.chat

        def logged_chat(*args, **kwargs):
            call = chat(*args, **kwargs)
            info = {"grammar": kwargs.get("grammar") is not None, **(getattr(llm, "last_call_stats", None) or {})}
            self.entries.append((call, info))
            self._by_id[id(call)] = info
            return call

        llm.chat = logged_chat
        batched = getattr(llm, "batched", None)
        if batched is not None:  # stage 2's documents together: their calls go through a batch session
            def logged_batched(*args, **kwargs):
                session = batched(*args, **kwargs)
                session_chat = session.chat

                def logged_session_chat(*a, **kw):
                    call = session_chat(*a, **kw)
                    info = {"grammar": kw.get("grammar") is not None}  # no per-call grammar time measured
                    self.entries.append((call, info))
                    self._by_id[id(call)] = info
                    return call
                session.chat = logged_session_chat
                return session
            llm.batched = logged_batched

    def info(self, call) -> dict:
        return self._by_id.get(id(call), {"grammar": False})


def _rate(tokens: float, ms: float) -> float | None:
    return round(tokens / ms * 1000, 1) if ms > 0 else None


def _with_rates(row: dict) -> dict:
    """``row`` with tokens/s derived from its sums: decoding only, and with each call's overhead."""
    row["generation_tokens_per_s"] = _rate(row["generated_tokens"], row["generation_ms"])
    row["stage_tokens_per_s"] = _rate(row["generated_tokens"], row["wall_ms"])
    row["grammar_tokens_per_s"] = _rate(row["grammar_generated_tokens"],
                                        row["grammar_generation_ms"] + row["grammar_overhead_ms"])
    row["unconstrained_tokens_per_s"] = _rate(row["other_generated_tokens"],
                                              row["other_generation_ms"] + row["other_overhead_ms"])
    return row


def _calls_row(calls, log: CallLog) -> dict:
    """LLM sums of ``calls`` (LLMCall): tokens, ms, and the grammar's share (see the module docstring)."""
    row = dict.fromkeys(SUM_KEYS, 0.0)
    measured = True
    for c in calls:
        info = log.info(c)
        overhead = max(0.0, c.wall_ms - c.prompt_eval_ms - c.generation_ms)
        row["prompt_tokens_computed"] += c.prompt_tokens_computed
        row["prompt_eval_ms"] += c.prompt_eval_ms
        row["generation_ms"] += c.generation_ms
        row["generated_tokens"] += c.completion_tokens
        row["draft_proposed"] += info.get("draft_proposed", 0)
        row["draft_accepted"] += info.get("draft_accepted", 0)
        if info["grammar"]:
            row["grammar_calls"] += 1
            row["grammar_generated_tokens"] += c.completion_tokens
            row["grammar_generation_ms"] += c.generation_ms
            row["grammar_overhead_ms"] += overhead
            measured = measured and "grammar_ms" in info
            row["grammar_ms"] += info.get("grammar_ms", 0.0)
        elif c.completion_tokens:  # scored calls generate nothing: no decoding rate to compare
            row["other_generated_tokens"] += c.completion_tokens
            row["other_generation_ms"] += c.generation_ms
            row["other_overhead_ms"] += overhead
    row = {k: round(v, 1) for k, v in row.items()}
    if not measured:
        row["grammar_ms"] = None  # llama-cpp-python's loop: only the overhead says what the grammar cost
    return row


def _stage_row(stage, log: CallLog) -> dict:
    row = _calls_row(stage.llm_calls, log)
    row.update({
        "wall_ms": stage.wall_ms,
        "llm_calls": len(stage.llm_calls),
        "prompt_tokens_submitted": stage.prompt_tokens,
        "generated_tokens": stage.completion_tokens,
        "nli_pairs": stage.nli_pairs,
        "nli_ms": stage.nli_ms,
    })
    return _with_rates(row)


def _configure(pipe, mode: str, parallel_docs: int = 4):
    """The loaded pipeline for one order (its settings), every cache cleared."""
    pipe.llm.reuse_prefix = mode != "reference"
    pipe.llm.reset_cache()
    cache = getattr(pipe.checker, "cache", None)
    if cache is not None:
        cache.clear_memory()
    return pipe.with_settings(schedule="sequential" if mode == "reference" else "overlap",
                              parallel_docs=parallel_docs if mode == "parallel" else 1)


def _union_s(spans) -> float:
    """Seconds covered by the (start_ms, end_ms) intervals (overlaps counted once)."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(spans):
        if b > end:
            total += b - max(a, end)
            end = b
    return total / 1000


def run_item(pipe, question, docs, mode: str, log: CallLog, parallel_docs: int = 4) -> tuple[object, dict]:
    """Answer one item in ``mode`` (one of PIPE_MODES); return the VerifiedAnswer and its measurements."""
    pipe = _configure(pipe, mode, parallel_docs)
    batcher = pipe.checker
    cache = getattr(batcher, "cache", None)
    hits0 = cache.hits if cache is not None else 0
    n_events = len(getattr(batcher, "events", []))
    t0 = time.perf_counter()
    res = pipe.answer(question, docs)
    wall = time.perf_counter() - t0
    events = [{"start_ms": round((e.start - t0) * 1000, 1), "end_ms": round((e.end - t0) * 1000, 1),
               "pairs": e.pairs, "computed": e.computed} for e in getattr(batcher, "events", [])[n_events:]]
    llm_busy = _union_s([(s.start_ms, s.end_ms) for s in res.timeline if s.kind == "llm"])
    row = {
        "wall_s": round(wall, 2),
        "llm_busy_s": round(llm_busy, 2),
        "stages": {st.name: _stage_row(st, log) for st in res.stages},
        "cache_hits": (cache.hits - hits0) if cache is not None else 0,
        "answer": res.answer,
        "stage2_texts": [[c.purpose, c.text] for c in res.stages[1].llm_calls],
        "trace": [[[x.text, list(x.citations), x.verdict, x.score] for x in st.statements] for st in res.stages]
                 + [[[x.text, list(x.citations), x.verdict, x.score] for x in res.final]],
        "timeline": [s.__dict__ for s in res.timeline],
        "nli_batches": events,
    }
    return res, row


def run_vanilla(pipe, vanilla, question, docs, log: CallLog) -> dict:
    """One plain pass (bench/methods.py ``Vanilla``) from an empty KV cache; its measurements.

    Raises:
        InputError: the documents do not fit; InferenceError: the LLM call failed.
    """
    pipe.llm.reuse_prefix = True
    pipe.llm.reset_cache()  # as the pipeline modes: each item from scratch (no demo prefix kept between items)
    n0 = len(log.entries)
    t0 = time.perf_counter()
    out = vanilla({"question": question, "docs": docs})
    wall = time.perf_counter() - t0
    calls = [c for c, _ in log.entries[n0:]]
    row = _calls_row(calls, log)
    row.update({"wall_ms": round(wall * 1000, 1), "llm_calls": len(calls),
                "prompt_tokens_submitted": sum(c.prompt_tokens for c in calls), "nli_pairs": 0, "nli_ms": 0.0})
    return {"wall_s": round(wall, 2), "llm_busy_s": round(sum(c.wall_ms for c in calls) / 1000, 2),
            "stages": {"answer": _with_rates(row)}, "answer": out["output"],
            "finish_reason": calls[-1].finish_reason if calls else None, "warnings": out["warnings"]}


def summarise(items: list[dict], modes: tuple[str, ...] = MODES) -> dict:
    """Totals over items (see the module docstring for each key); keys of modes not run are None."""
    def tot(mode, key):
        return sum(it[mode][key] for it in items) if mode in modes else None

    def stage_tot(mode, stage, key):
        vals = [it[mode]["stages"].get(stage, {}).get(key, 0) for it in items]
        return None if any(v is None for v in vals) else sum(vals)  # grammar_ms: None unless measured everywhere

    def ratio(a, b):
        return round(a / b, 3) if a is not None and b else None

    seq, sch, van = tot("reference", "wall_s"), tot("scheduled", "wall_s"), tot("vanilla", "wall_s")
    busy = tot("scheduled", "llm_busy_s")
    sub = stage_tot("scheduled", "evidence", "prompt_tokens_submitted") if "scheduled" in modes else None
    comp = stage_tot("scheduled", "evidence", "prompt_tokens_computed") if "scheduled" in modes else None
    per_stage = {}
    for m in modes:
        stages = ("answer",) if m == "vanilla" else STAGES
        per_stage[m] = {st: _with_rates({k: (round(v, 1) if v is not None else None)
                                         for k in SUM_KEYS for v in [stage_tot(m, st, k)]})
                        for st in stages}
    both = "reference" in modes and "scheduled" in modes
    par = "parallel" in modes and "scheduled" in modes
    s2 = {m: stage_tot(m, "evidence", "wall_ms") for m in ("scheduled", "parallel") if m in modes}
    extra = {}
    if par:
        pairs = [(it["scheduled"], it["parallel"]) for it in items]
        extra = {
            "wall_s_parallel": round(tot("parallel", "wall_s"), 2),
            "parallel_speedup": ratio(sch, tot("parallel", "wall_s")),
            "stage2_parallel_speedup": ratio(s2["scheduled"], s2["parallel"]),
            "identical_answers_parallel": sum(a["answer"] == b["answer"] for a, b in pairs),
            "identical_traces_parallel": sum(a["trace"] == b["trace"] for a, b in pairs),
            "stage2_calls": sum(len(a["stage2_texts"]) for a, _ in pairs),
            "stage2_texts_differing_parallel": sum(
                sum(x != y for x, y in zip(a["stage2_texts"], b["stage2_texts"]))
                + abs(len(a["stage2_texts"]) - len(b["stage2_texts"])) for a, b in pairs),
        }
    return {
        "items": len(items),
        "modes": list(modes),
        "wall_s_sequential": round(seq, 2) if seq is not None else None,
        "wall_s_scheduled": round(sch, 2) if sch is not None else None,
        "wall_s_vanilla": round(van, 2) if van is not None else None,
        "speedup": ratio(seq, sch),
        "vericite_over_vanilla": ratio(sch, van),
        "llm_busy_s": round(busy, 2) if busy is not None else None,
        "overlap_ratio": ratio(sch, busy),
        "stage2_prompt_tokens_submitted": sub,
        "stage2_prompt_tokens_computed": comp,
        "stage2_prompt_tokens_saved": round(1 - comp / sub, 3) if sub else None,
        "cache_hits": {m: tot(m, "cache_hits") for m in modes if m in PIPE_MODES},
        "identical_answers": all(it["reference"]["answer"] == it["scheduled"]["answer"] for it in items) if both else None,
        # every statement, fact, verdict and score equal too (KV-cache reuse evaluates a prompt in other
        # chunks than a fresh evaluation; float rounding can flip a greedy near-tie, rarely)
        "identical_traces": all(it["reference"]["trace"] == it["scheduled"]["trace"] for it in items) if both else None,
        **extra,
        "per_stage": per_stage,
    }


def _fmt(v, spec: str = ".0f") -> str:
    return "-" if v is None else format(v, spec)


def markdown(summary: dict, meta: dict) -> str:
    """The benchmark's markdown tables (per stage and mode, the grammar's cost, then totals)."""
    ps = summary["per_stage"]
    lines = [f"Latency: {summary['items']} items of {meta['data']}, LLM {meta['llm']} ({meta['llm_threads']} threads, "
             f"lazy grammar {meta.get('lazy_grammar')}, draft tokens {meta.get('draft_tokens')}, "
             f"parallel docs {meta.get('parallel_docs')}), "
             f"NLI {meta['nli']} ({meta['nli_threads']} threads, EP {meta['ep']}), prompts {meta['prompts']}", "",
             "| mode | stage | wall s | prompt tokens submitted | computed | generated | tokens/s (stage wall) | "
             "NLI pairs | NLI ms (critical path) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for m, stages in ps.items():
        for s, r in stages.items():
            lines.append(f"| {m} | {s} | {r['wall_ms'] / 1000:.1f} | {int(r['prompt_tokens_submitted'])} | "
                         f"{int(r['prompt_tokens_computed'])} | {int(r['generated_tokens'])} | "
                         f"{_fmt(r['stage_tokens_per_s'], '.1f')} | {int(r['nli_pairs'])} | "
                         f"{r['nli_ms']:.0f} |")
    lines += ["", "| mode | stage | tokens under grammar | grammar overhead ms | grammar ms (measured) | "
                  "tokens/s under grammar | tokens/s unconstrained | decode tokens/s | drafts accepted / proposed |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for m, stages in ps.items():
        for s, r in stages.items():
            lines.append(f"| {m} | {s} | {int(r['grammar_generated_tokens'])} | {r['grammar_overhead_ms']:.0f} | "
                         f"{_fmt(r['grammar_ms'])} | {_fmt(r['grammar_tokens_per_s'], '.1f')} | "
                         f"{_fmt(r['unconstrained_tokens_per_s'], '.1f')} | {_fmt(r['generation_tokens_per_s'], '.1f')} | "
                         f"{int(r['draft_accepted'])} / {int(r['draft_proposed'])} |")
    lines += ["", "| total | value |", "|---|---:|"]
    for k in ("wall_s_sequential", "wall_s_scheduled", "wall_s_vanilla", "speedup", "vericite_over_vanilla",
              "llm_busy_s", "overlap_ratio", "stage2_prompt_tokens_saved", "identical_answers", "identical_traces",
              "wall_s_parallel", "parallel_speedup", "stage2_parallel_speedup", "identical_answers_parallel",
              "identical_traces_parallel", "stage2_texts_differing_parallel", "stage2_calls"):
        if k in summary:
            lines.append(f"| {k} | {summary[k]} |")
    return "\n".join(lines) + "\n"


def timeline_png(item: dict, path: Path) -> None:
    """Gantt-style chart of one item: LLM calls and NLI work on a time axis, one row per pipeline mode run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = [m for m in PIPE_MODES if m in item]
    if not modes:
        return
    fig, axes = plt.subplots(len(modes), 1, figsize=(12, 2.25 * len(modes) + 0.5), sharex=True, squeeze=False)
    axes = axes[:, 0]
    colours = {"answer": "tab:blue", "gate": "tab:orange", "extract": "tab:green", "refine": "tab:purple",
               "select": "tab:purple"}
    for ax, mode in zip(axes, modes):
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


def _modes(text: str) -> tuple[str, ...]:
    """``--modes`` as a tuple in the canonical order.

    Raises:
        argparse.ArgumentTypeError: an unknown or no mode.
    """
    asked = {m.strip() for m in text.split(",") if m.strip()}
    if not asked or asked - set(MODES):
        raise argparse.ArgumentTypeError(f"modes are a comma list of {', '.join(MODES)}; got {text!r}")
    return tuple(m for m in MODES if m in asked)


def _vanilla(pipe, args, first_row: dict):
    """The vanilla method on the loaded LLM, as ``vericite run --method vanilla`` builds it.

    Raises:
        InputError: no demos file (pass --demos FILE or --shots 0).
    """
    from vericite.engine.errors import InputError

    from .datasets import detect_dataset, load_demos
    from .methods import Vanilla, VanillaPrompt, default_demos_path, pick_demos

    demos = []
    if args.shots > 0:
        dataset = detect_dataset(first_row) or "asqa"
        path = Path(args.demos) if args.demos else default_demos_path(args.data, dataset)
        if not path.is_file():
            raise InputError(f"vanilla needs a demos file ({path}); pass --demos FILE or --shots 0")
        demos = pick_demos(load_demos(path), args.shots)
    return Vanilla(pipe.llm, prompt=VanillaPrompt.load(), demos=demos, citation_grammar=pipe.settings.citation_grammar)


def main(argv: list[str] | None = None, models_toml: str | None = None) -> int:
    from vericite.engine.inputs import item_input, read_json_or_jsonl

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
    ap.add_argument("--modes", type=_modes, default=DEFAULT_MODES,
                    help=f"comma list of modes to run, of {','.join(MODES)} (default: {','.join(DEFAULT_MODES)})")
    ap.add_argument("--parallel-docs", type=int, default=4, metavar="N",
                    help="parallel mode: stage-2 documents decoded at once (default 4)")
    ap.add_argument("--lazy-grammar", action=argparse.BooleanOptionalAction, default=True,
                    help="check only the greedy token against a grammar, mask the vocabulary only on a rejection "
                         "(default; --no-lazy-grammar: llama-cpp-python masks the whole vocabulary every token)")
    ap.add_argument("--draft-tokens", type=int, default=0, metavar="N",
                    help="prompt-lookup decoding: draft up to N tokens from the prompt and verify them in one batch (default 0: off)")
    ap.add_argument("--shots", type=int, default=2, help="vanilla: demos (default 2, as vericite run)")
    ap.add_argument("--demos", help="vanilla: demos JSONL (default: next to --data, as vericite run)")
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
                          threads=args.threads, nli_threads=args.nli_threads, lazy_grammar=args.lazy_grammar,
                          draft_tokens=args.draft_tokens)
    log = CallLog(pipe.llm)
    out: list[dict] = []
    try:
        vanilla = _vanilla(pipe, args, items[0]) if "vanilla" in args.modes else None
        for k, raw in enumerate(tqdm(items, desc=f"items ({' + '.join(args.modes)})", unit="item")):
            raw = {**raw, "docs": oracle_documents(raw.get("docs") or [], args.ndoc)}  # as earlier runs of this bench
            question, docs = item_input(raw, ndoc=args.ndoc, where=f"{args.data} item {args.start + k}")
            row = {"question": question}
            for mode in args.modes:
                if mode == "vanilla":
                    row[mode] = run_vanilla(pipe, vanilla, question, docs, log)
                else:
                    _, row[mode] = run_item(pipe, question, docs, mode, log, args.parallel_docs)
            out.append(row)
    finally:
        pipe.close()
    summary = summarise(out, args.modes)
    summary["llm_stats"] = dict(getattr(pipe.llm, "stats", {}) or {})
    meta = {"data": args.data, "start": args.start, "llm": pipe.llm.name, "llm_threads": pipe.llm.n_threads,
            "lazy_grammar": getattr(pipe.llm, "lazy_grammar", None), "draft_tokens": getattr(pipe.llm, "draft_tokens", None),
            "parallel_docs": args.parallel_docs if "parallel" in args.modes else None,
            "nli": pipe.checker.name, "nli_threads": getattr(pipe.checker.checker, "intra_op_threads", None),
            "ep": pipe.checker.ep, "prompts": pipe.prompts.tag}
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "latency.json").write_text(json.dumps({"meta": meta, "summary": summary, "items": out}, indent=2))
    (args.out_dir / "latency.md").write_text(markdown(summary, meta))
    timeline_png(out[0], args.out_dir / "timeline.png")
    print(json.dumps({"meta": meta, **summary}, indent=2) if args.json else markdown(summary, meta))
    print(f"# wrote {args.out_dir}/latency.md, timeline.png, latency.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
