"""The verify step, as the pipeline runs it, against careful readers' claim-support labels.

`vericite bench support [--data FILE] [--nli NAME] [--set KEY=VALUE ...] [--limit N] [--items even|odd] [--out FILE.jsonl]
[--nli-cache FILE] [--threads N] [--json]`

The data (``../shared/data/support/claims_dev.jsonl``, see its README.md and GUIDE.md) are claims the
pipeline itself wrote (stage-1 statements, stage-2 facts, stage-3 final sentences) with the documents
they cite, each labelled by a careful reader ``supported`` / ``partial`` / ``not_supported``. The
positive class is ``supported``: a ``partial`` claim counts as not supported (the labels are strict
by design).

Each claim goes through the verify step of the pipeline that would answer its question: the same
checker (:meth:`VeriCite.route`: a Russian question gets models.toml's ``[nli_by_language]``
checker), with its number guard and premise windows, threshold, ``cite_each``, ``recite`` and
splitter, and no LLM (a :class:`NoLLM` stands in; the verify step never calls it):

- ``answer``: the text ``claim [c1][c2]...`` (the cited numbers appended) through
  :func:`~vericite.engine.verifier.answer_claims` (``final=False``), verdicts kept / dropped;
- ``refine``: the same with ``final=True``, verdicts supported / unsupported;
- ``evidence``: :func:`~vericite.engine.verifier.fact_claims` against the one cited document
  (:func:`~vericite.engine.verifier.joint_fact_claims` when a fact cites several);

then :meth:`Verifier.submit` / :meth:`Verifier.resolve`. A claim the splitter cuts into several
sentences is kept only when every part that was checked passes (a part without a citation is not
checked, as in the pipeline); its score is then the lowest of the parts' scores. A claim with no
checked part is not kept and scores 0. The claims are the sentences the pipeline checked, so they
are checked as written: no fragment is rewritten (``claim_words`` does not apply).

Metrics per group (all, by language, dataset and stage): n; precision of kept (the share of kept
claims labelled supported); recall of supported (the share of supported claims kept); balanced
accuracy; ROC AUC of the score. ``false_accepts_by_reason``: the kept claims labelled partial or
not supported, bucketed by the readers' flags and note (:func:`reason`). The same metrics from each
row's ``recorded`` verdict and score (the run that produced the claim) are printed beside them.
"""
from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from tqdm import tqdm
from vericite.engine import records as R
from vericite.engine.config import settings as S
from vericite.engine.config.paths import shared_dir
from vericite.engine.errors import InputError
from vericite.engine.inputs import read_rows
from vericite.engine.loader import build_pipeline
from vericite.engine.pipeline import VeriCite
from vericite.engine.records import Document, StageTrace
from vericite.engine.verifier import answer_claims, fact_claims, joint_fact_claims

from .gate import roc_auc

log = logging.getLogger(__name__)

LABELS = ("supported", "partial", "not_supported")
STAGES = (R.ANSWER, R.EVIDENCE, R.REFINE)
#: verdicts (pass, fail) each stage's check gives, as in the pipeline
VERDICTS = {R.ANSWER: (R.KEPT, R.DROPPED_NLI), R.EVIDENCE: (R.KEPT, R.DROPPED_NLI),
            R.REFINE: (R.SUPPORTED, R.UNSUPPORTED)}
#: the buckets of :func:`reason`, in the order its rules are tried
REASONS = ("fragment", "contradicted", "wrong_document", "two_hop", "extra_detail", "entity", "number_or_date",
           "swapped", "other")
_FIELDS = ("id", "lang", "dataset", "question", "documents", "claim", "cited", "stage", "label")


def default_data() -> Path:
    """The shared development claims: ``<shared>/data/support/claims_dev.jsonl``."""
    return shared_dir() / "data" / "support" / "claims_dev.jsonl"


def read_claims(path: str | Path, limit: int | None = None) -> list[dict]:
    """The labelled claims of a JSONL file (the first ``limit`` when given).

    Raises:
        InputError: unreadable or malformed file, a row without a field this bench reads, an unknown
            label or stage, or a citation outside the row's documents (file and line named).
        FileNotFoundError: no such file.
    """
    if not Path(path).exists():
        raise FileNotFoundError(f"no claims file {path}")
    out = []
    for line, row in read_rows(path):
        where = f"{path}:{line}"
        missing = [k for k in _FIELDS if k not in row] if isinstance(row, dict) else list(_FIELDS)
        if missing:
            raise InputError(f"{where}: a claim row needs {', '.join(missing)}")
        if row["label"] not in LABELS or row["stage"] not in STAGES:
            raise InputError(f"{where}: label {row['label']!r} / stage {row['stage']!r}: expected one of {LABELS} / "
                             f"{STAGES}")
        if not row["cited"] or any(not 1 <= c <= len(row["documents"]) for c in row["cited"]):
            raise InputError(f"{where}: cited {row['cited']} is empty or outside documents 1-{len(row['documents'])}")
        out.append(row)
        if limit is not None and len(out) >= limit:
            break
    return out


def documents(row: Mapping) -> list[Document]:
    """The row's documents in citation order (by their ``n``)."""
    return [Document(title=str(d.get("title") or ""), text=d["text"])
            for d in sorted(row["documents"], key=lambda d: d["n"])]


def load_pipeline(*, models_toml: str | None = None, nli: str | None = None, overrides: Mapping | None = None,
                  threads: int = 1, nli_cache: str | None = None) -> VeriCite:
    """The pipeline ``vericite answer`` builds (:func:`vericite.engine.loader.build_pipeline`) with
    no LLM loaded (:class:`~vericite.engine.loader.NoLLM` stands in): the checker ``nli`` (None or
    "auto": the default plus models.toml's ``[nli_by_language]`` routes), settings resolved from
    the default LLM entry's profile, the checker's and ``overrides`` (errors name ``--set``).

    Raises:
        ConfigError: unknown model name or setting, a value that breaks its rule, bad prompt set.
        ModelFileError: the checker's file is missing or corrupt.
    """
    return build_pipeline(models_toml=models_toml, nli=nli, nli_threads=threads, nli_cache=nli_cache,
                          load_llm=False, overrides_origin="--set", **dict(overrides or {}))


def claim_items(pipe: VeriCite, row: Mapping, docs: Sequence[Document], lang: str) -> list:
    """The row's claim as the stage that wrote it hands it to the Verifier (module docstring):
    :class:`~vericite.engine.verifier.Claim` s to check and decided Statements."""
    s = pipe.settings
    if row["stage"] == R.EVIDENCE:
        if len(row["cited"]) == 1:
            n = row["cited"][0]
            return fact_claims(R.EVIDENCE, row["claim"], n, docs[n - 1], lang, min_words=s.min_statement_words)
        return joint_fact_claims(R.EVIDENCE, row["claim"], [(n, docs[n - 1]) for n in row["cited"]], lang,
                                 min_words=s.min_statement_words)
    text = row["claim"] + " " + "".join(f"[{c}]" for c in row["cited"])
    return answer_claims(row["stage"], text, docs, lang, final=row["stage"] == R.REFINE,
                         min_words=s.min_statement_words, recite=s.recite)


def score_claims(pipe: VeriCite, rows: Sequence[Mapping], *, progress: bool = False) -> list[dict]:
    """Each row's claim through the verify step of the pipeline that answers its question.

    Every claim is split first; then, one checker at a time, its claims are all submitted (with the
    overlap schedule its batcher scores them in large batches) and resolved. A claim re-cited by
    ``recite`` (kept only with other documents) counts as not kept: its label is about the
    documents it was written with (``recited`` lists the new ones).

    Returns:
        One dict per row, in order: ``id``, ``lang``, ``dataset``, ``stage``, ``label``, the reader's
        ``note``, ``contradicted``, ``fragment``, ``cited``; ``checker`` (its name) and ``threshold``;
        ``kept`` (bool), ``verdict`` (the pipeline's), ``score`` (P(entailment) the verdict used, in
        [0, 1]; None when no part was checked), ``citations`` (kept), ``removed``, ``recited``,
        ``parts`` (sentences the splitter made); ``recorded`` {``kept``, ``score``} (None without
        a ``recorded`` block).

    Raises:
        InputError: a row the pipeline refuses (empty question, a document without text).
        InferenceError: the checker failed.
    """
    prepared: dict[tuple, tuple] = {}
    groups: dict[int, list] = {}  # id(pipeline) -> [(row number, row, pipeline, question, items)]
    for i, row in enumerate(rows):
        docs = documents(row)
        key = (row["question"], tuple(d.text for d in docs))
        if key not in prepared:  # several claims share a question: its route and language once
            p = pipe.route(row["question"], docs)
            prepared[key] = (p, p.prepare(row["question"], docs))
        p, q = prepared[key]
        groups.setdefault(id(p), []).append((i, row, p, q, claim_items(p, row, docs, q.lang)))
    out: list[dict | None] = [None] * len(rows)
    with tqdm(total=len(rows), desc="support", unit="claim", disable=not progress, file=sys.stderr) as bar:
        for group in groups.values():
            verifier = group[0][2].verifier()
            pending = []
            for i, row, p, q, items in group:
                trace = StageTrace(row["stage"])
                pending.append((i, row, p, q, trace, verifier.submit(items, VERDICTS[row["stage"]], trace, q.timeline)))
            for i, row, p, q, trace, batch in pending:
                out[i] = _result(row, p, verifier.resolve(batch, trace, q.timeline))
                bar.update()
    return out  # type: ignore[return-value]


def _result(row: Mapping, pipe: VeriCite, statements: Sequence) -> dict:
    ok = VERDICTS[row["stage"]][0]
    checked = [s for s in statements if s.score is not None]
    # a claim kept only with other citations (``recite``) is not kept as the reader judged it:
    # the label is about the documents it was written with
    kept = bool(checked) and all(s.verdict == ok and not s.recited for s in checked)
    failed = [s.verdict for s in statements if s.verdict != ok]
    rec = row.get("recorded")
    return {
        "id": row["id"], "lang": row["lang"], "dataset": row["dataset"], "stage": row["stage"], "label": row["label"],
        "note": row.get("note") or "", "contradicted": bool(row.get("contradicted")),
        "fragment": bool(row.get("fragment")), "cited": list(row["cited"]),
        "checker": pipe.checker.name, "threshold": pipe.settings.threshold,
        "kept": kept, "verdict": ok if kept else (failed[0] if failed else R.DROPPED_NLI),
        "score": min(s.score for s in checked) if checked else None,
        "citations": list(dict.fromkeys(c for s in checked for c in s.citations)),
        "removed": sorted({c for s in checked for c in s.removed}),
        "recited": sorted({c for s in checked for c in s.recited}),
        "parts": len(statements),
        "recorded": None if not rec else {"kept": rec.get("verdict") in (R.KEPT, R.SUPPORTED),
                                          "score": rec.get("score")},
    }


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def metrics(results: Sequence[Mapping]) -> dict:
    """Verdicts against labels, ``supported`` positive (``partial`` and ``not_supported`` negative).

    Args:
        results: dicts with ``label``, ``kept`` (bool) and ``score`` (float, None counts as 0).

    Returns:
        {"n", "precision_kept" (kept and supported / kept), "recall_supported" (kept and supported /
        supported), "balanced_accuracy" (mean of recall on supported and on the rest), "auc" (ROC AUC
        of score vs label, ties one half)}; a rate with an empty denominator (or the AUC and balanced
        accuracy with one class only) is None. Rates rounded to 4 places.
    """
    y = np.array([r["label"] == "supported" for r in results], dtype=bool)
    k = np.array([bool(r["kept"]) for r in results], dtype=bool)
    s = np.array([r["score"] if r["score"] is not None else 0.0 for r in results], dtype=np.float64)
    tp, pos, neg = int((k & y).sum()), int(y.sum()), int((~y).sum())
    tn = int((~k & ~y).sum())
    auc = roc_auc(s, y) if len(y) else None
    return {"n": len(results), "precision_kept": _rate(tp, int(k.sum())), "recall_supported": _rate(tp, pos),
            "balanced_accuracy": round((tp / pos + tn / neg) / 2, 4) if pos and neg else None,
            "auc": None if auc is None else round(auc, 4)}


_DOC = re.compile(r"\bdoc(?:ument)?s?\s*\[?(\d+)", re.I)
_ELSEWHERE = re.compile(r"uncited|another doc|other doc|comes from|text is from", re.I)
_TWO_HOP = re.compile(r"\bhops?\b|two-hop|multi-hop|\bbridge\b|never (?:identifies|links)|not identified|"
                      r"no cited doc (?:identifies|names)", re.I)
_EXTRA = re.compile(r"not stated|unstated|not said|doesn'?t say|does not say|never says|says nothing|lacks|absent|"
                    r"not given|no [\w' ]{1,30} (?:stated|given|mentioned)|qualifier|generali[sz]|overstat", re.I)
_ENTITY = re.compile(r"never mentions|mentions neither|neither doc|does not mention|doesn'?t mention|someone else|"
                     r"names? (?:another|a different)|is about|not about|nothing about|no link to", re.I)
_NUMBER = re.compile(r"\d|\bdates?\b|\byears?\b|\bnumbers?\b", re.I)
_SWAPPED = re.compile(r"[,;] not |\binvert|\brevers|\bswap", re.I)
#: the rules after the flags and the document rule, in order
_RULES = (("two_hop", _TWO_HOP), ("extra_detail", _EXTRA), ("entity", _ENTITY), ("number_or_date", _NUMBER),
          ("swapped", _SWAPPED))


def reason(row: Mapping) -> str:
    """Why a reader did not call a claim supported, as one bucket of :data:`REASONS`: the first rule
    that matches the row's flags and ``note`` (case aside):

    - ``fragment`` / ``contradicted``: the reader's flag;
    - ``wrong_document``: the note names a document number the claim does not cite ("text is from
      doc 1") or says "uncited", "another doc", "other doc", "comes from";
    - ``two_hop``: "hop", "bridge", "never identifies", "never links", "not identified", "no cited
      doc names" (one hop of a two-hop answer cited as if it carried both);
    - ``extra_detail``: "not stated", "unstated", "does not say", "never says", "lacks", "absent", "no ... stated",
      "qualifier", "generalizes", "overstated" (a supported core with a part the document lacks);
    - ``entity``: "never mentions", "mentions neither", "someone else", "is about", "not about",
      "no link to" (the claim's entity is not the document's);
    - ``number_or_date``: a digit (document numbers aside), "date", "year", "number";
    - ``swapped``: ", not " / "; not ", "inverted", "reversed", "swapped" (a relation or role the document gives
      to another);
    - ``other``: none of these.
    """
    note = row.get("note") or ""
    cited = set(row.get("cited") or ())
    if row.get("fragment"):
        return "fragment"
    if row.get("contradicted"):
        return "contradicted"
    if any(int(n) not in cited for n in _DOC.findall(note)) or _ELSEWHERE.search(note):
        return "wrong_document"
    bare = _DOC.sub("doc", note)  # "doc 3" is no number of the claim's
    return next((name for name, rule in _RULES if rule.search(bare)), "other")


def false_accepts(results: Sequence[Mapping]) -> dict[str, int]:
    """Kept claims labelled partial or not supported, counted per :func:`reason` (every bucket, in
    :data:`REASONS` order)."""
    counts = Counter(reason(r) for r in results if r["kept"] and r["label"] != "supported")
    return {k: counts.get(k, 0) for k in REASONS}


def summarize(results: Sequence[Mapping]) -> dict:
    """:func:`metrics` over all results and by ``lang``, ``dataset``, ``stage`` (groups sorted by
    name), and :func:`false_accepts`."""
    out: dict = {"all": metrics(results)}
    for field in ("lang", "dataset", "stage"):
        groups: dict[str, list] = defaultdict(list)
        for r in results:
            groups[r[field]].append(r)
        out[f"by_{field}"] = {k: metrics(v) for k, v in sorted(groups.items())}
    out["false_accepts_by_reason"] = false_accepts(results)
    return out


def recorded_view(results: Sequence[Mapping]) -> list[dict]:
    """The results with ``kept`` / ``score`` replaced by the recorded run's (rows without one left out)."""
    return [{**r, "kept": r["recorded"]["kept"], "score": r["recorded"]["score"]} for r in results if r["recorded"]]


def report(results: Sequence[Mapping]) -> dict:
    """The bench's JSON: :func:`summarize` of our verdicts, and under ``recorded`` the same of the
    recorded verdicts plus ``same_verdict`` (the share of claims where ours equals the recorded one)
    and ``mean_abs_score_diff``."""
    out = summarize(results)
    rec = recorded_view(results)
    if rec:
        both = [r for r in results if r["recorded"]]
        diffs = [abs((r["score"] or 0.0) - (r["recorded"]["score"] or 0.0)) for r in both]
        out["recorded"] = {**summarize(rec),
                           "same_verdict": _rate(sum(r["kept"] == r["recorded"]["kept"] for r in both), len(both)),
                           "mean_abs_score_diff": round(float(np.mean(diffs)), 4)}
    return out


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.3f}"


def print_table(out: dict, *, header: str) -> None:
    """The report as a markdown table, ours beside the recorded run's, then the false accepts."""
    rec = out.get("recorded", {})
    print(header)
    print("| set | n | precision of kept | recall of supported | balanced accuracy | AUC | recorded P / R / BA / AUC |")
    print("|---|---:|---:|---:|---:|---:|---|")
    rows = [("all", out["all"], rec.get("all"))]
    for field in ("by_lang", "by_dataset", "by_stage"):
        rows += [(f"{field[3:]} {k}", v, rec.get(field, {}).get(k)) for k, v in out[field].items()]
    for name, m, r in rows:
        theirs = " / ".join(_fmt(r[k]) for k in ("precision_kept", "recall_supported", "balanced_accuracy", "auc")) \
            if r else "-"
        print(f"| {name} | {m['n']} | {_fmt(m['precision_kept'])} | {_fmt(m['recall_supported'])} | "
              f"{_fmt(m['balanced_accuracy'])} | {_fmt(m['auc'])} | {theirs} |")
    fa = out["false_accepts_by_reason"]
    print(f"\nfalse accepts (kept, labelled partial / not supported): {sum(fa.values())}: "
          + ", ".join(f"{k} {v}" for k, v in fa.items()))
    if rec:
        rfa = rec["false_accepts_by_reason"]
        print(f"recorded run's false accepts: {sum(rfa.values())}: " + ", ".join(f"{k} {v}" for k, v in rfa.items()))
        print(f"same verdict as the recorded run: {_fmt(rec['same_verdict'])}; mean |score difference| "
              f"{rec['mean_abs_score_diff']:.4f}")


def main(argv: list[str] | None = None, models_toml: str | None = None) -> int:
    ap = argparse.ArgumentParser(prog="vericite bench support", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(default_data()), help="labelled claims, JSON lines (default: %(default)s)")
    ap.add_argument("--nli", help="checker name in models.toml (default: the default checker, with models.toml's "
                                  "[nli_by_language] routes; a named checker checks every claim)")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="a pipeline setting, e.g. threshold=0.8 or recite=true (repeatable; JSON values)")
    ap.add_argument("--limit", type=int, help="only the first N claims")
    ap.add_argument("--items", choices=("even", "odd"),
                    help="only claims of items whose index is even (the half rules were tuned on) or odd (kept apart)")
    ap.add_argument("--out", help="per-claim results, JSON lines (overwritten)")
    ap.add_argument("--nli-cache", help="sqlite premise-hypothesis score cache (reused across runs)")
    ap.add_argument("--threads", type=int, default=1, help="ONNX Runtime threads per checker (default 1)")
    ap.add_argument("--json", action="store_true", help="print the metrics as JSON")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    overrides = S.parse_assignments(args.sets)
    rows = read_claims(args.data, args.limit)
    if args.items:
        rows = [r for r in rows if int(r["index"]) % 2 == (args.items == "odd")]
    if not rows:
        raise InputError(f"no claims in {args.data}")
    t0 = time.perf_counter()
    pipe = load_pipeline(models_toml=models_toml, nli=args.nli, overrides=overrides, threads=args.threads,
                         nli_cache=args.nli_cache)
    try:
        t1 = time.perf_counter()
        results = score_claims(pipe, rows, progress=not args.no_progress)
    finally:
        pipe.close()
    t2 = time.perf_counter()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for r in results:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    out = report(results)
    if args.json:
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    used = sorted({(r["lang"], r["checker"], r["threshold"]) for r in results})
    print_table(out, header=f"{len(results)} claims from {args.data}; checkers: "
                            + ", ".join(f"{lang} -> {c} at {t}" for lang, c, t in used)
                            + (f"; overrides {overrides}" if overrides else "")
                            + f"; load {t1 - t0:.1f} s, verify {t2 - t1:.1f} s\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
