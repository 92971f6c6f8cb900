"""Run the pipeline over the first N items of a data file and summarise what each stage kept.

`vericite bench items --data FILE --limit N [--llm NAME] [--out results.jsonl] [--json]`

Per item: seconds, stage-1 statements kept / dropped by reason, stage-2 gates (Yes/No) and facts
kept / dropped, final sentences supported / total, whether the gold answer string appears.
Models are loaded once; the first item is not excluded (load time is reported separately).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from tqdm import tqdm

from vericite.engine import records as R


def summarise(result, gold: str | None) -> dict:
    """One row of counts from a VerifiedAnswer (see module docstring)."""
    s1, s2, s3 = result.stages
    v1 = Counter(s.verdict for s in s1.statements)
    v2 = Counter(s.verdict for s in s2.statements)
    gates = [c.text for c in s2.llm_calls if c.purpose.startswith("gate")]
    golds = [gold] if isinstance(gold, str) else list(gold or [])
    return {
        "question": result.question,
        "seconds": round(result.wall_ms / 1000, 2),
        "s1_statements": len(s1.statements), "s1_kept": v1[R.KEPT],
        "s1_dropped_no_citation": v1[R.DROPPED_NO_CITATION], "s1_dropped_out_of_range": v1[R.DROPPED_OUT_OF_RANGE],
        "s1_dropped_nli": v1[R.DROPPED_NLI], "s1_dropped_fragment": v1[R.DROPPED_FRAGMENT],
        "gates_yes": sum(g.startswith("Yes") for g in gates), "gates_no": sum(g.startswith("No") for g in gates),
        "s2_facts": len(s2.statements), "s2_kept": v2[R.KEPT], "s2_dropped_nli": v2[R.DROPPED_NLI],
        "s2_dropped_fragment": v2[R.DROPPED_FRAGMENT],
        "final_sentences": len(result.final),
        "final_supported": sum(s.verdict == R.SUPPORTED for s in result.final),
        "final_all_cited": all(s.citations and s.verdict != R.NO_CITATION for s in result.final),
        "answer_nonempty": bool(result.answer),
        "gold_in_answer": any(g.lower() in result.answer.lower() for g in golds if g) if golds else None,
        "prompt_tokens": sum(st.prompt_tokens for st in result.stages),
        "prompt_tokens_computed": sum(c.prompt_tokens_computed for st in result.stages for c in st.llm_calls),
        "completion_tokens": sum(st.completion_tokens for st in result.stages),
        "nli_pairs": sum(st.nli_pairs for st in result.stages),
        "nli_ms": round(sum(st.nli_ms for st in result.stages), 1),
        "answer": result.answer,
    }


_TOTALS = ["seconds", "s1_statements", "s1_kept", "s1_dropped_no_citation", "s1_dropped_out_of_range",
           "s1_dropped_nli", "s1_dropped_fragment", "gates_yes", "gates_no", "s2_facts", "s2_kept",
           "s2_dropped_nli", "s2_dropped_fragment",
           "final_sentences", "final_supported", "prompt_tokens", "prompt_tokens_computed",
           "completion_tokens", "nli_pairs", "nli_ms"]


def totals(rows: list[dict]) -> dict:
    """Sums of the count columns, mean seconds per item and rates over items."""
    t = {k: round(sum(r[k] for r in rows), 2) for k in _TOTALS}
    n = len(rows) or 1
    t["items"] = len(rows)
    t["seconds_per_item"] = round(t["seconds"] / n, 2)
    t["answers_nonempty"] = sum(r["answer_nonempty"] for r in rows)
    t["gold_in_answer"] = sum(bool(r["gold_in_answer"]) for r in rows)
    t["final_all_cited_items"] = sum(r["final_all_cited"] and r["answer_nonempty"] for r in rows)
    return t


def markdown(rows: list[dict], tot: dict) -> str:
    cols = ["seconds", "s1_kept", "s1_statements", "gates_yes", "s2_kept", "s2_facts", "final_supported",
            "final_sentences", "gold_in_answer"]
    lines = ["| item | " + " | ".join(cols) + " |", "|" + "---|" * (len(cols) + 1)]
    for i, r in enumerate(rows):
        lines.append(f"| {i} | " + " | ".join(str(r[c]) for c in cols) + " |")
    lines.append("| total | " + " | ".join(str(tot.get(c, "")) for c in cols) + " |")
    return "\n".join(lines)


def read_items(path: str) -> list[dict]:
    """The items of a JSON/JSONL file (question + docs).

    Raises:
        InputError: missing or malformed file (with line), or a row that is not an item with docs.
    """
    from vericite.engine.docs import read_json_or_jsonl
    from vericite.engine.errors import InputError

    rows = read_json_or_jsonl(path)
    rows = [rows] if isinstance(rows, dict) else rows
    for n, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or "docs" not in row:
            raise InputError(f"{path}: item {n} is not an item with 'docs'")
    return rows


def main(argv: list[str] | None = None, *, models_toml: str | None = None) -> int:
    from vericite.engine.docs import item_input
    from vericite.engine.loader import build_pipeline

    ap = argparse.ArgumentParser(prog="vericite bench items", description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="JSONL of items (question + docs), e.g. shared/data/hotpotqa.jsonl")
    ap.add_argument("--limit", type=int, default=5, help="first N items (default 5)")
    ap.add_argument("--ndoc", type=int, default=5, help="documents per item (default 5)")
    ap.add_argument("--llm", help="LLM name in models.toml (default: the default LLM)")
    ap.add_argument("--nli", help="NLI checker name in models.toml (default: the default checker)")
    ap.add_argument("--threads", type=int, help="LLM CPU threads (default: all cores)")
    ap.add_argument("--gate", choices=R.GATES, help="override the LLM profile's gate")
    ap.add_argument("--out", help="write one JSON trace per item here (JSONL)")
    ap.add_argument("--json", action="store_true", help="print rows and totals as JSON instead of markdown")
    args = ap.parse_args(argv)

    rows_in = read_items(args.data)
    t0 = time.perf_counter()
    pipe = build_pipeline(models_toml=models_toml, llm=args.llm, nli=args.nli, threads=args.threads, gate=args.gate)
    load_s = time.perf_counter() - t0
    golds = [r.get("answer") for r in rows_in][: args.limit]
    rows = []
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    for i in tqdm(range(min(args.limit, len(golds))), desc=pipe.llm.name, file=sys.stderr):
        q, docs = item_input(rows_in[i], ndoc=args.ndoc, where=f"{args.data} item {i}")
        res = pipe.answer(q, docs)
        rows.append(summarise(res, golds[i]))
        if out:
            out.write(json.dumps(res.to_json(), ensure_ascii=False) + "\n")
            out.flush()
    tot = totals(rows)
    tot.update({"llm": pipe.llm.name, "nli": pipe.checker.name, "load_s": round(load_s, 2), "data": args.data,
                "gate": pipe.settings.gate, "gate_threshold": pipe.settings.gate_threshold})
    if args.json:
        json.dump({"rows": rows, "totals": tot}, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(markdown(rows, tot))
        print(json.dumps(tot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
