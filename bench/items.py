"""Run the pipeline over the first N items of one or more data files and summarise what each stage kept.

`vericite bench items --data FILE [--data FILE2 ...] --limit N [--llm NAME] [--baseline] [--out results.jsonl] [--json]`

Per item: seconds, stage-1 statements (how many carry an in-range citation, kept / dropped by
reason), stage-2 gates (Yes/No, and against the ``is_supporting`` flags where the data has them)
and facts kept / dropped, final sentences supported / total, whether a gold answer string appears
(HotpotQA/MuSiQue: any answer or alias, ALCE's exact presence; ASQA: the short answers of at least
one qa_pair, ALCE STR-EM > 0). Items come from :func:`vericite.bench.datasets.load_items` (HotpotQA:
supporting documents plus BM25 distractors). ``--baseline`` also answers each item in one LLM pass
with the same model and documents (the ALCE vanilla prompt, 0-shot, free-form: the "one-pass
baseline" of issue 7) and reports whether its output holds a gold string. Prompt options
(``--prompts``, ``--prompt-format``, ``--doc-tokens``, ``--citation-grammar``, ``--gate``) override
the LLM's profile, for comparing prompt configurations on the same items. Models are loaded once;
the first item is not excluded (load time is reported separately).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from tqdm import tqdm

from vericite.engine import records as R
from vericite.engine.config import settings as S


def gold_present(output: str, gold: dict) -> bool | None:
    """Whether ``output`` (citations removed) holds a gold answer string: answers/aliases by ALCE's
    exact presence, ASQA short answers of at least one qa_pair (STR-EM > 0); None for ELI5."""
    from .alce import answer_match, answer_text, str_em

    text = answer_text(output)
    if "answers" in gold:
        return bool(answer_match(text, gold["answers"])["in_output"])
    if "qa_pairs" in gold:
        return str_em(text, gold["qa_pairs"])[0] > 0
    return None


def gate_counts(result, supporting: list[bool] | None) -> dict:
    """Gate decisions against ``is_supporting`` flags: true/false positives and negatives."""
    calls = {int(c.purpose.split(":")[1]): c.text.startswith("Yes")
             for c in result.stages[1].llm_calls if c.purpose.startswith("gate:")}
    if not supporting:
        return {}
    c = Counter((calls.get(i, True), bool(s)) for i, s in enumerate(supporting, start=1))
    return {"gate_tp": c[(True, True)], "gate_fp": c[(True, False)], "gate_fn": c[(False, True)], "gate_tn": c[(False, False)]}


def summarise(result, gold: dict | None, supporting: list[bool] | None = None) -> dict:
    """One row of counts from a VerifiedAnswer (see module docstring)."""
    s1, s2, s3 = result.stages
    v1 = Counter(s.verdict for s in s1.statements)
    v2 = Counter(s.verdict for s in s2.statements)
    gates = [c.text for c in s2.llm_calls if c.purpose.startswith("gate")]
    return {
        "question": result.question,
        "seconds": round(result.wall_ms / 1000, 2),
        "s1_statements": len(s1.statements),
        "s1_cited": len(s1.statements) - v1[R.DROPPED_NO_CITATION] - v1[R.DROPPED_OUT_OF_RANGE], "s1_kept": v1[R.KEPT],
        "s1_dropped_no_citation": v1[R.DROPPED_NO_CITATION], "s1_dropped_out_of_range": v1[R.DROPPED_OUT_OF_RANGE],
        "s1_dropped_nli": v1[R.DROPPED_NLI], "s1_dropped_fragment": v1[R.DROPPED_FRAGMENT],
        "gates_yes": sum(g.startswith("Yes") for g in gates), "gates_no": sum(g.startswith("No") for g in gates),
        "s2_facts": len(s2.statements), "s2_kept": v2[R.KEPT], "s2_dropped_nli": v2[R.DROPPED_NLI],
        "s2_dropped_fragment": v2[R.DROPPED_FRAGMENT],
        "final_sentences": len(result.final),
        "final_supported": sum(s.verdict == R.SUPPORTED for s in result.final),
        "final_all_cited": all(s.citations and s.verdict != R.NO_CITATION for s in result.final),
        "answer_nonempty": bool(result.answer),
        "gold_in_answer": gold_present(result.answer, gold) if gold else None,
        **gate_counts(result, supporting),
        "prompt_tokens": sum(st.prompt_tokens for st in result.stages),
        "prompt_tokens_computed": sum(c.prompt_tokens_computed for st in result.stages for c in st.llm_calls),
        "completion_tokens": sum(st.completion_tokens for st in result.stages),
        "nli_pairs": sum(st.nli_pairs for st in result.stages),
        "nli_ms": round(sum(st.nli_ms for st in result.stages), 1),
        "answer": result.answer,
    }


_TOTALS = ["seconds", "s1_statements", "s1_cited", "s1_kept", "s1_dropped_no_citation", "s1_dropped_out_of_range",
           "s1_dropped_nli", "s1_dropped_fragment", "gates_yes", "gates_no", "s2_facts", "s2_kept",
           "s2_dropped_nli", "s2_dropped_fragment",
           "final_sentences", "final_supported", "prompt_tokens", "prompt_tokens_computed",
           "completion_tokens", "nli_pairs", "nli_ms"]


def totals(rows: list[dict]) -> dict:
    """Sums of the count columns, mean seconds per item and rates over items."""
    keys = _TOTALS + [k for k in ("gate_tp", "gate_fp", "gate_fn", "gate_tn", "baseline_seconds") if any(k in r for r in rows)]
    t = {k: round(sum(r.get(k, 0) for r in rows), 2) for k in keys}
    n = len(rows) or 1
    t["items"] = len(rows)
    t["seconds_per_item"] = round(t["seconds"] / n, 2)
    t["answers_nonempty"] = sum(r["answer_nonempty"] for r in rows)
    t["gold_in_answer"] = sum(bool(r["gold_in_answer"]) for r in rows)
    t["final_all_cited_items"] = sum(r["final_all_cited"] and r["answer_nonempty"] for r in rows)
    t["s1_cited_rate"] = round(t["s1_cited"] / t["s1_statements"], 3) if t["s1_statements"] else None
    if "gate_tp" in t:
        tp, fp, fn = t["gate_tp"], t["gate_fp"], t["gate_fn"]
        t["gate_recall"] = round(tp / (tp + fn), 3) if tp + fn else None
        t["gate_precision"] = round(tp / (tp + fp), 3) if tp + fp else None
    if any("baseline_gold" in r for r in rows):
        t["baseline_gold_in_answer"] = sum(bool(r.get("baseline_gold")) for r in rows)
        t["baseline_seconds_per_item"] = round(t["baseline_seconds"] / n, 2)
    return t


def markdown(rows: list[dict], tot: dict) -> str:
    cols = ["seconds", "s1_cited", "s1_kept", "s1_statements", "gates_yes", "s2_kept", "s2_facts", "final_supported",
            "final_sentences", "gold_in_answer"]
    lines = ["| item | " + " | ".join(cols) + " |", "|" + "---|" * (len(cols) + 1)]
    for i, r in enumerate(rows):
        lines.append(f"| {i} | " + " | ".join(str(r.get(c, "")) for c in cols) + " |")
    lines.append("| total | " + " | ".join(str(tot.get(c, "")) for c in cols) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None, *, models_toml: str | None = None) -> int:
    from vericite.engine.loader import build_pipeline

    from .datasets import load_items
    from .methods import Vanilla, VanillaPrompt

    ap = argparse.ArgumentParser(prog="vericite bench items", description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, action="append",
                    help="JSONL of items (question + docs), e.g. shared/data/hotpotqa.jsonl; repeat for several files")
    ap.add_argument("--limit", type=int, default=5, help="first N items of each file (default 5)")
    ap.add_argument("--ndoc", type=int, default=5, help="documents per item (default 5)")
    ap.add_argument("--llm", help="LLM name in models.toml (default: the default LLM)")
    ap.add_argument("--nli", help="NLI checker name in models.toml (default: the default checker)")
    ap.add_argument("--threads", type=int, help="LLM CPU threads (default: the cores the checker leaves)")
    S.add_arguments(ap)
    ap.add_argument("--baseline", action="store_true", help="also answer each item in one pass (ALCE vanilla, 0-shot)")
    ap.add_argument("--out", help="write one JSON trace per item here (JSONL)")
    ap.add_argument("--json", action="store_true", help="print rows and totals as JSON instead of markdown")
    args = ap.parse_args(argv)

    items = [it for path in args.data for it in load_items(path, ndoc=args.ndoc, limit=args.limit)]
    t0 = time.perf_counter()
    pipe = build_pipeline(models_toml=models_toml, llm=args.llm, nli=args.nli, threads=args.threads,
                          overrides_origin="flag", **S.from_arguments(args))
    load_s = time.perf_counter() - t0
    baseline = Vanilla(pipe.llm, prompt=VanillaPrompt.load(), demos=[], citation_grammar=False) if args.baseline else None
    rows = []
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    try:
        for it in tqdm(items, desc=pipe.llm.name, file=sys.stderr):
            res = pipe.answer(it["question"], it["docs"])
            row = {"dataset": it["dataset"], "id": it["id"], **summarise(res, it["gold"], it["supporting"])}
            if baseline is not None:
                b0 = time.perf_counter()
                b = baseline(it)
                row.update(baseline_seconds=round(time.perf_counter() - b0, 2), baseline_answer=b["output"],
                           baseline_gold=gold_present(b["output"], it["gold"]))
            rows.append(row)
            if out:
                rec = res.to_json()
                rec.update(dataset=it["dataset"], id=it["id"], baseline_answer=row.get("baseline_answer"))
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                out.flush()
    finally:
        if out:
            out.close()
        pipe.close()
    tot = totals(rows)
    tot.update({"llm": pipe.llm.name, "nli": pipe.checker.name, "load_s": round(load_s, 2), "data": args.data,
                "limit": args.limit, **{k: v for k, v in res.settings.items() if k in _SETTINGS}} if rows else {})
    if args.json:
        json.dump({"rows": rows, "totals": tot}, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(markdown(rows, tot))
        print(json.dumps(tot))
    return 0


_SETTINGS = ("prompts", "prompt_format", "doc_tokens", "citation_grammar", "gate", "gate_threshold", "threshold")


if __name__ == "__main__":
    sys.exit(main())
