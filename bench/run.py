"""Quality benchmark commands: run a method over a data file, evaluate results with ALCE
metrics, report methods side by side.

    vericite run --method vericite --data ../shared/data/hotpotqa.jsonl --limit 20 --out results.jsonl
    vericite run --method vericite --checker llm-batch --checker-batch 5 --data ... --out results.jsonl
    vericite eval results.jsonl --json
    vericite report results.jsonl --out report.md          # also report.png (bar chart)

``run`` is resumable: each finished item is appended to ``--out`` as one JSON line, then flushed
and fsync'd, so a crash loses at most the item in flight; a rerun skips items already there
(key: method, dataset, id) and repairs a torn last line. An item that fails stops the run
(finished items stay). ``eval`` scores result rows with the evaluator's NLI model (``--nli``, a
setting separate from the pipeline's checker; both names are reported with every result) through the
premise-hypothesis cache (sqlite, ``--nli-cache``: a rerun scores nothing). Metric rules: ``bench/alce.py``. Also ``python -m vericite.bench.run
{run,eval,report} ...``.
"""
from __future__ import annotations

import argparse
import fcntl
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

from tqdm import tqdm
from vericite.engine.config import settings as S
from vericite.engine.errors import ConfigError, InputError

from . import alce
from .datasets import DATASETS, load_items, read_jsonl

log = logging.getLogger(__name__)

REQUIRED = ("id", "dataset", "method", "output", "docs", "gold")


# -- results files -----------------------------------------------------------------------------
def repair_tail(path: Path) -> bool:
    """Make a results file end on a complete line: a torn last line (a crash mid-write) is cut;
    a complete last line without its newline gets one. Returns True if the file was changed."""
    if not path.is_file():
        return False
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return False
    cut = data.rfind(b"\n") + 1
    try:
        json.loads(data[cut:])
    except json.JSONDecodeError:
        log.warning("%s: removing a torn last line (%d bytes) left by an interrupted run", path, len(data) - cut)
        with open(path, "r+b") as f:
            f.truncate(cut)
            f.flush()
            os.fsync(f.fileno())
        return True
    with open(path, "ab") as f:
        f.write(b"\n")
        f.flush()
        os.fsync(f.fileno())
    return True


def has_rows(path: Path) -> bool:
    """Whether a results file exists and holds anything but blank lines (a run killed before its
    first item leaves an empty file: that is no results, not a bad file)."""
    return path.is_file() and bool(path.read_bytes().strip())


def _lock(f, path: Path) -> None:
    """An exclusive lock on the open results file ``f``, held until it is closed.

    Raises:
        ConfigError: another process holds it (another `vericite run` writes to this --out).
    """
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ConfigError(f"{path}: another `vericite run` is writing to this file; wait for it to end or "
                          "write to another --out") from None


def read_results(path: str | Path) -> list[dict]:
    """Result rows of a JSONL file, each checked for the fields evaluation needs.

    Raises:
        InputError: missing file, malformed line, or a row without a needed field (file:line named).
    """
    rows = []
    for line, row in read_jsonl(path):
        if not isinstance(row, dict):
            raise InputError(f"{path}:{line}: a result row must be an object")
        missing = [k for k in REQUIRED if k not in row]
        if missing:
            raise InputError(f"{path}:{line}: result row misses {', '.join(missing)}")
        if not isinstance(row["docs"], list) or not isinstance(row["gold"], dict):
            raise InputError(f"{path}:{line}: 'docs' must be a list and 'gold' an object")
        row["_where"] = f"{path}:{line}"
        rows.append(row)
    return rows


def result_key(row: dict) -> tuple[str, str, str]:
    return (str(row["method"]), str(row["dataset"]), str(row["id"]))


def _append(f, row: dict) -> None:
    f.write(json.dumps(row, ensure_ascii=False) + "\n")
    f.flush()
    os.fsync(f.fileno())


def run_items(method: Callable[[dict], dict], items: Sequence[dict], out: str | Path, *,
              progress: bool = True) -> dict:
    """Run ``method`` over ``items``, appending one row per finished item to ``out``.

    Items whose (method, dataset, id) is already in ``out`` are skipped. Row fields: id, index,
    dataset, method, question, output, docs [{title, text}], gold, seconds (wall time of the
    method call), run (the method's stamp), warnings, trace.

    Returns:
        {"done": items run now, "skipped": items already there, "seconds": [per item run now]}.

    Raises:
        ConfigError: ``out`` holds rows of this method made with another LLM or checker, or another
            process is writing to it (an exclusive lock is held while items run).
        Whatever the method raises (the rows written so far stay).
    """
    out = Path(out)
    stamp = getattr(method, "stamp", {}) or {}
    done: set[tuple[str, str, str]] = set()
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "a", encoding="utf-8") as f:
        _lock(f, out)  # read what is done and append under one lock: two runs never write the same items
        repair_tail(out)
        for row in (read_results(out) if has_rows(out) else []):
            if row["method"] == method.name:
                run = row.get("run") or {}
                for k in ("llm", "checker"):
                    if k in stamp and k in run and run[k] != stamp[k]:
                        raise ConfigError(f"{row['_where']}: method {method.name} was run with {k} {run[k]!r}, "
                                          f"this run uses {stamp[k]!r}; write to another --out")
            done.add(result_key(row))
        todo = [it for it in items if (method.name, it["dataset"], it["id"]) not in done]
        secs: list[float] = []
        for it in tqdm(todo, desc=method.name, file=sys.stderr, disable=not progress):
            t0 = time.perf_counter()
            res = method(it)
            dt = time.perf_counter() - t0
            secs.append(dt)
            _append(f, {
                "id": it["id"], "index": it.get("index"), "dataset": it["dataset"], "method": method.name,
                "question": it["question"], "output": res["output"],
                "docs": [asdict(d) for d in it["docs"]], "gold": it["gold"], "seconds": round(dt, 2),
                "run": stamp, "warnings": res.get("warnings", []), "trace": res.get("trace", {}),
            })
    return {"done": len(todo), "skipped": len(items) - len(todo), "seconds": secs}


# -- evaluation --------------------------------------------------------------------------------
def evaluate_rows(rows: Sequence[dict], scores: alce.ScoreFn, rules: alce.Rules, *, progress: bool = True,
                  details: list | None = None) -> list[dict]:
    """Metrics per (method, dataset) group, in order of first appearance.

    Each result: method, dataset, llm, checker, checker_ep, pipeline_threshold (from the rows'
    run stamps), correctness_metric, correctness, and :func:`alce.aggregate`'s metrics (percent).
    ``details``, if a list, receives one dict per row (key + per-item metrics + sentence checks).

    Raises:
        InputError: two rows with the same (method, dataset, id), or a row whose gold does not
            fit its dataset.
    """
    groups: dict[tuple[str, str], list[dict]] = {}
    seen: dict[tuple[str, str, str], str] = {}
    for row in rows:
        key = result_key(row)
        if key in seen:
            raise InputError(f"{row.get('_where', '?')}: duplicate result for {key} (first at {seen[key]})")
        seen[key] = row.get("_where", "?")
        groups.setdefault((key[0], key[1]), []).append(row)
    results = []
    for (method, dataset), grp in groups.items():
        per_item = []
        for row in tqdm(grp, desc=f"eval {method}/{dataset}", file=sys.stderr, disable=not progress):
            try:
                m = alce.evaluate_item(row, scores, rules, details=details is not None)
            except (KeyError, ValueError) as e:
                raise InputError(f"{row.get('_where', '?')}: cannot evaluate this row: {e}") from e
            if details is not None:
                details.append({"method": method, "dataset": dataset, "id": row["id"], **m})
                m = {k: v for k, v in m.items() if k != "sentences"}
            per_item.append(m)
        run = grp[0].get("run") or {}
        agg = alce.aggregate(per_item, seconds=[float(r["seconds"]) for r in grp if r.get("seconds") is not None])
        metric = alce.CORRECTNESS.get(dataset)
        results.append({
            "method": method, "dataset": dataset, "llm": run.get("llm"), "checker": run.get("checker"),
            "checker_ep": run.get("checker_ep"), "pipeline_threshold": run.get("threshold"),
            "correctness_metric": metric, "correctness": agg.get(metric), **agg})
    return results


def load_evaluator(*, models_toml: str | None, nli: str | None, threshold: float | None,
                   nli_cache: str | None = None):
    """(memoised scores, evaluator description) for the NLI model ``nli`` of models.toml.

    Raises:
        ConfigError, ModelFileError: unknown or missing model.
    """
    from vericite.engine.config.registry import Registry
    from vericite.engine.nli.load import load_checker

    spec = Registry.load(models_toml).get(nli, "nli")
    checker = load_checker(spec)
    thr = spec.threshold if threshold is None else threshold
    if not 0.0 < thr < 1.0:
        raise ConfigError(f"--threshold must be in (0, 1), got {thr}")
    memo = alce.cached_scores(checker, nli_cache or None)
    desc = {"nli": checker.name, "nli_sha256": spec.sha256, "ep": checker.ep, "threshold": thr}  # name says "+number-guard"
    return memo, desc


def evaluate_files(paths: Sequence[str], *, models_toml: str | None, nli: str | None, threshold: float | None,
                   alce_compat: bool, at_most: int, progress: bool, details: list | None = None,
                   nli_cache: str | None = None) -> dict:
    """Evaluate results files: {"evaluator": {...}, "results": [...]} (see :func:`evaluate_rows`)."""
    rows = [r for p in paths for r in read_results(p)]
    if not rows:
        raise InputError(f"no result rows in {', '.join(paths)}")
    memo, desc = load_evaluator(models_toml=models_toml, nli=nli, threshold=threshold, nli_cache=nli_cache)
    rules = alce.Rules(threshold=desc["threshold"], alce_compat=alce_compat, at_most_citations=at_most)
    t0 = time.perf_counter()
    results = evaluate_rows(rows, memo, rules, progress=progress, details=details)
    desc.update({"metric_version": alce.METRIC_VERSION, "alce_compat": alce_compat, "at_most_citations": at_most,
                 "sentence_splitter": "pysbd (engine/text/splitter.py)", "nli_pairs_scored": memo.misses,
                 "nli_cache_hits": memo.hits, "seconds": round(time.perf_counter() - t0, 2),
                 "files": [str(p) for p in paths]})
    for r in results:
        r["evaluator_nli"] = desc["nli"]
        r["evaluator_threshold"] = desc["threshold"]
        r["self_evaluated"] = same_family(r.get("checker"), desc["nli"])
        if r["self_evaluated"]:
            log.warning("%s on %s was checked by %s, a sibling of the evaluator %s: its citation scores say the "
                        "pipeline agrees with itself, not that a careful reader would (`vericite bench support`)",
                        r["method"], r["dataset"], r.get("checker"), desc["nli"])
    return {"evaluator": desc, "results": results}


def same_family(checker: str | None, evaluator: str) -> bool:
    """Whether a pipeline's ``checker`` and the ``evaluator`` are one checker or siblings: the same
    model name once guards ("+number-guard"), quantization ("-int8") and the last tag are removed
    (``nli-minilm-l6-bin-int8+number-guard`` and ``nli-minilm-l6-hn-int8`` are both
    ``nli-minilm-l6``)."""
    if not checker:
        return False

    def family(name: str) -> str:
        base = name.split("+")[0].removesuffix("-int8").removesuffix("-fp16")
        return "-".join(base.split("-")[:3])

    return family(checker) == family(evaluator)


# -- report ------------------------------------------------------------------------------------
def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.1f}"
    return str(x)


def markdown_table(evaluation: dict) -> str:
    """All methods side by side: one row per (dataset, method); rates in percent."""
    ev = evaluation["evaluator"]
    head = ["dataset", "method", "LLM", "pipeline checker", "n", "answered %", "cit. recall", "cit. precision",
            "cit. F1", "correctness", "metric", "statements/answer", "s/item"]
    lines = [
        (f"Evaluator NLI: `{ev['nli']}` (entailed if P >= {ev['threshold']}), metrics {ev.get('metric_version', '?')}, "
         f"{'first line only (--alce-compat)' if ev.get('alce_compat') else 'whole output'}, "
         f"at most {ev.get('at_most_citations', 3)} citations per sentence. Rates in percent; citation recall/precision "
         "over answered items (ALCE skips outputs without sentences)."),
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    order = {d: i for i, d in enumerate(DATASETS)}
    for r in sorted(evaluation["results"], key=lambda r: (order.get(r["dataset"], 99), r["dataset"])):
        cells = [r["dataset"], r["method"], r.get("llm") or "-", r.get("checker") or "-", r["items"], r["answered"],
                 r["citation_recall"], r["citation_precision"], r["citation_f1"], r.get("correctness"),
                 r.get("correctness_metric") or "-", r["statements_per_answer"], r.get("seconds_per_item")]
        lines.append("| " + " | ".join(_fmt(c) for c in cells) + " |")
    own = sorted({f"{r['method']} ({r.get('checker')})" for r in evaluation["results"] if r.get("self_evaluated")})
    if own:
        lines += ["", f"**Self-evaluated**: {', '.join(own)} checked by the evaluator's own checker or a sibling of it: "
                      "their citation scores say the pipeline agrees with itself, not that a careful reader would "
                      "(`vericite bench support` scores the verify step against readers' labels)."]
    return "\n".join(lines) + "\n"


CHART_METRICS = (("citation_recall", "cit. recall"), ("citation_precision", "cit. precision"),
                 ("citation_f1", "cit. F1"), ("correctness", "correctness"))


def bar_chart(evaluation: dict, path: str | Path) -> None:
    """A PNG: one panel per dataset, grouped bars (methods) for citation recall, precision, F1
    and the dataset's correctness metric (percent). matplotlib, Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = evaluation["results"]
    datasets = [d for d in DATASETS if any(r["dataset"] == d for r in res)] + \
        sorted({r["dataset"] for r in res} - set(DATASETS))
    fig, axes = plt.subplots(1, len(datasets), figsize=(5.5 * len(datasets), 4), squeeze=False)
    for ax, ds in zip(axes[0], datasets):
        rows = [r for r in res if r["dataset"] == ds]
        width = 0.8 / max(1, len(rows))
        for j, r in enumerate(rows):
            xs = [i + (j - (len(rows) - 1) / 2) * width for i in range(len(CHART_METRICS))]
            ax.bar(xs, [r.get(k) or 0.0 for k, _ in CHART_METRICS], width, label=r["method"])
        ax.set_xticks(range(len(CHART_METRICS)))
        metric = rows[0].get("correctness_metric") or "correctness"
        ax.set_xticklabels([lbl if k != "correctness" else metric for k, lbl in CHART_METRICS], fontsize=8)
        ax.set_ylim(0, 100)
        ax.set_title(f"{ds} (n={rows[0]['items']})")
        ax.set_ylabel("percent")
        ax.legend(fontsize=7)
    fig.suptitle(f"evaluator NLI: {evaluation['evaluator']['nli']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


#: pipeline settings `vericite run` can change for an ablation row (each needs --label)
ABLATION_SETTINGS = ("prompts", "refine", "claim_words", "claim_guard", "cite_each", "recite", "backbone", "backbone_facts",
                     "add_nothing", "drop_unsupported", "multihop", "gate", "gate_threshold")


# -- commands ----------------------------------------------------------------------------------
def run_main(argv: list[str] | None = None, *, models_toml: str | None = None) -> int:
    """``vericite run``: run one method over the first items of a data file (resumable)."""
    from .methods import CHECKERS, METHODS, build_method, resolve_method

    ap = argparse.ArgumentParser(prog="vericite run", description="Run a method over a data file; one JSON line per "
                                 "finished item (resumable: a rerun skips finished items).")
    ap.add_argument("--method", required=True, choices=list(METHODS), help="vanilla, vericite or an ablation")
    ap.add_argument("--checker", choices=CHECKERS, help="vericite's checker (ablations): nli (default), none, llm, "
                    "llm-batch, graded-strict, graded-lenient")
    ap.add_argument("--no-nli", action="store_true", help="vericite with nothing checked (= --checker none)")
    ap.add_argument("--checker-batch", type=int, default=5, help="statements per prompt for --checker llm-batch (default 5)")
    ap.add_argument("--data", required=True, help="JSONL items (../shared/data/{asqa,eli5,hotpotqa,musique}.jsonl)")
    ap.add_argument("--dataset", choices=DATASETS, help="override the dataset read from the items' fields")
    ap.add_argument("--start", type=int, default=0, help="first item (0-based row, default 0)")
    ap.add_argument("--limit", type=int, default=5, help="number of items (default 5)")
    ap.add_argument("--ndoc", type=int, default=5, help="documents per item (default 5)")
    ap.add_argument("--out", required=True, help="results JSONL (appended to; finished items are skipped)")
    ap.add_argument("--llm", help="LLM name in models.toml (default: the default LLM)")
    ap.add_argument("--nli", help="the pipeline's NLI checker in models.toml (default: the default checker)")
    ap.add_argument("--threads", type=int, help="LLM CPU threads (default: the cores the checker leaves)")
    ap.add_argument("--n-ctx", type=int, help="LLM context tokens (default: the model's entry)")
    ap.add_argument("--shots", type=int, default=2, help="vanilla: demos (default 2; 0 = none)")
    ap.add_argument("--demos", help="vanilla: demos JSONL (default <data dir>/<dataset>_demos.jsonl; "
                    "HotpotQA/MuSiQue: asqa_demos.jsonl)")
    S.add_arguments(ap, ["citation_grammar", "inline_citations"])  # both methods
    S.add_arguments(ap, list(ABLATION_SETTINGS))  # vericite: one change off at a time
    S.add_arguments(ap)  # vericite: --preset, --set NAME=VALUE (any setting), the everyday flags
    ap.add_argument("--label", help="the method's name in --out and in reports (default: --method; give one to "
                    "every run with a changed setting, e.g. vericite-no-backbone)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args(argv)
    given = S.given(args)
    if given.resources:
        raise ConfigError(f"--set {', '.join(given.resources)}: what the run may use of the machine is given by this "
                          "command's own flags (--threads, --n-ctx)")
    overrides = {k: v for k, v in given.settings.items() if k not in ("citation_grammar", "inline_citations")}
    args.llm, args.nli = args.llm or given.models.get("llm"), args.nli or given.models.get("nli")
    if args.limit < 1 or args.start < 0:
        raise InputError(f"--limit must be >= 1 and --start >= 0, got {args.limit}, {args.start}")
    if args.checker_batch < 1:
        raise ConfigError(f"--checker-batch must be >= 1, got {args.checker_batch}")

    name = resolve_method(args.method, checker=args.checker, no_nli=args.no_nli)
    label = args.label or (f"{name}{args.checker_batch}" if name == "vericite-llm-batch" else name)
    if overrides and not args.label:
        raise ConfigError(f"changed settings {sorted(overrides)} need --label NAME, so their results are not "
                          f"mixed with {label!r}'s")
    items = load_items(args.data, dataset=args.dataset, ndoc=args.ndoc, start=args.start, limit=args.limit)
    if not items:
        raise InputError(f"{args.data}: no items from --start {args.start}")
    out = Path(args.out)
    repair_tail(out)
    if has_rows(out):
        have = {result_key(r) for r in read_results(out)}
        if all((label, it["dataset"], it["id"]) in have for it in items):
            summary = {"out": str(out), "method": label, "done": 0, "skipped": len(items), "note": "all items already in --out"}
            print(json.dumps(summary))
            return 0
    t0 = time.perf_counter()
    method = build_method(name, data_path=args.data, dataset=items[0]["dataset"], models_toml=models_toml,
                          llm=args.llm, nli=args.nli, threads=args.threads, n_ctx=args.n_ctx,
                          checker_batch=args.checker_batch, shots=args.shots, demos_path=args.demos,
                          citation_grammar=args.citation_grammar, inline_citations=args.inline_citations,
                          overrides=overrides, label=args.label)
    load_s = time.perf_counter() - t0
    res = run_items(method, items, out, progress=not args.no_progress)
    secs = res.pop("seconds")
    summary = {"out": str(out), "method": method.name, "llm": method.stamp.get("llm"),
               "checker": method.stamp.get("checker"), **res, "load_s": round(load_s, 2),
               "seconds_per_item": round(sum(secs) / len(secs), 2) if secs else None}
    print(json.dumps(summary) if args.json else
          f"{summary['method']}: {res['done']} items run, {res['skipped']} already in {out}"
          + (f", {summary['seconds_per_item']} s/item" if secs else ""))
    return 0


def _eval_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--nli", help="the evaluator's NLI model in models.toml (default: the default checker; "
                    "note it is then also the pipeline's checker)")
    ap.add_argument("--threshold", type=float, help="evaluator: P(entailment) counted as entailed (default: the model's)")
    ap.add_argument("--alce-compat", action="store_true", help="score only the first line of each output, as ALCE eval.py")
    ap.add_argument("--at-most-citations", type=int, default=alce.AT_MOST_CITATIONS,
                    help="citations per sentence that count (ALCE default 3)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--nli-cache", default=str(Path.home() / ".cache" / "vericite" / "nli-cache.sqlite"),
                    help="sqlite store of evaluator scores, so reruns score nothing "
                         "(default ~/.cache/vericite/nli-cache.sqlite; '' = memory only)")


def eval_main(argv: list[str] | None = None, *, models_toml: str | None = None) -> int:
    """``vericite eval``: ALCE metrics of results files, per (method, dataset)."""
    ap = argparse.ArgumentParser(prog="vericite eval", description="ALCE citation recall/precision/F1 and correctness "
                                 "of results files, per method and dataset (rules: bench/alce.py).")
    ap.add_argument("results", nargs="+", help="results JSONL files written by `vericite run`")
    _eval_args(ap)
    ap.add_argument("--json", action="store_true", help="print {evaluator, results} as JSON")
    ap.add_argument("--out", help="also write the JSON here")
    ap.add_argument("--details", help="write per-item metrics and per-sentence verdicts here (JSONL)")
    args = ap.parse_args(argv)
    details: list | None = [] if args.details else None
    ev = evaluate_files(args.results, models_toml=models_toml, nli=args.nli, threshold=args.threshold,
                        alce_compat=args.alce_compat, at_most=args.at_most_citations,
                        progress=not args.no_progress, details=details, nli_cache=args.nli_cache)
    if args.out:
        Path(args.out).write_text(json.dumps(ev, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    if details is not None:
        with open(args.details, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(d, ensure_ascii=False) + "\n" for d in details)
    if args.json:
        json.dump(ev, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(markdown_table(ev), end="")
    return 0


def report_main(argv: list[str] | None = None, *, models_toml: str | None = None) -> int:
    """``vericite report``: a markdown table of all methods side by side and a bar chart PNG."""
    ap = argparse.ArgumentParser(prog="vericite report", description="Markdown table (all methods side by side) and "
                                 "bar chart of results files (evaluated here) or `vericite eval --out` JSON files.")
    ap.add_argument("inputs", nargs="+", help="results JSONL files, or eval JSON files (not mixed)")
    ap.add_argument("--out", default="report.md", help="markdown file (default report.md)")
    ap.add_argument("--png", help="bar chart (default: --out with .png)")
    _eval_args(ap)
    args = ap.parse_args(argv)
    evals = [p for p in args.inputs if p.endswith(".json")]
    if evals and len(evals) != len(args.inputs):
        raise InputError("pass either results JSONL files or eval JSON files, not both")
    if evals:
        ev = _merge_evals(evals)
    else:
        ev = evaluate_files(args.inputs, models_toml=models_toml, nli=args.nli, threshold=args.threshold,
                            alce_compat=args.alce_compat, at_most=args.at_most_citations, progress=not args.no_progress,
                            nli_cache=args.nli_cache)
    out = Path(args.out)
    png = Path(args.png) if args.png else out.with_suffix(".png")
    bar_chart(ev, png)
    md = f"# Quality benchmark\n\n{markdown_table(ev)}\n![methods side by side]({png.name})\n"
    out.write_text(md, encoding="utf-8")
    print(f"wrote {out} and {png}")
    return 0


def _merge_evals(paths: list[str]) -> dict:
    """Eval JSON files with one evaluator into one.

    Raises:
        InputError: unreadable file, not an eval output, or different evaluator models/thresholds.
    """
    merged: dict | None = None
    for p in paths:
        try:
            ev = json.loads(Path(p).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise InputError(f"{p}: not a readable eval JSON file ({e})") from e
        if not isinstance(ev, dict) or "evaluator" not in ev or "results" not in ev:
            raise InputError(f"{p}: not a `vericite eval --out` file (needs 'evaluator' and 'results')")
        if merged is None:
            merged = {"evaluator": ev["evaluator"], "results": list(ev["results"])}
            continue
        a, b = merged["evaluator"], ev["evaluator"]
        for k in ("nli", "threshold", "alce_compat", "metric_version"):
            if a.get(k) != b.get(k):
                raise InputError(f"{p}: evaluator {k} {b.get(k)!r} differs from {a.get(k)!r}; evaluate all files together")
        merged["results"] += ev["results"]
    assert merged is not None
    return merged


def main(argv: list[str] | None = None) -> int:
    """``python -m vericite.bench.run {run,eval,report} ...``: the same as ``vericite run|eval|report``."""
    from vericite.engine.cli import main as cli_main

    return cli_main(list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
