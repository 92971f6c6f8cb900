"""Reader-judged quality: blinded packets of two methods' answers for careful readers, and their labels scored.

`vericite bench judge prepare A.jsonl B.jsonl --out DIR [--a-method M] [--b-method M] [--dataset D] [--limit N]
[--per-packet K] [--seed S]`
`vericite bench judge score DIR [--labels FILE ...] [--json]`

The string metric (is a gold answer somewhere in the output) counts an answer buried in a list of
facts as correct; a careful reader does not. ``prepare`` takes two ``vericite run`` result files,
keeps the items both answered (same dataset and id), and writes ``DIR/packet-NN.json`` (items in a
seeded order, each with the question, the gold answers, the documents and the two outputs under
the names "X" and "Y", drawn at random per item so the reader cannot tell which method is which),
``DIR/key.json`` (which method each name stands for: keep it from the readers) and
``DIR/GUIDE.md`` (what to judge and how to write the labels, one JSON line per output).

``score`` reads the labels (``DIR/labels*.jsonl`` unless ``--labels`` names files), joins them to
the key, and prints per method and dataset: the share judged correct, correct or partial, wrong, no
answer; the share of the outputs' cited sentences judged supported by their citations (partial
counts as not); words per answer; and the gold string in the output beside them.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

from vericite.engine.text.citations import parse_citations, strip_citations
from vericite.engine.errors import InputError
from vericite.engine.text.splitter import split_statements

from .alce import answer_match
from .run import read_results

CORRECTNESS = ("correct", "partial", "wrong", "no_answer")
SUPPORT = ("supported", "partial", "not_supported")

GUIDE = """# Judging answers (blind)

You judge answers to questions, each written from the documents given with it. Each packet (JSON) is a list
of items: {item, question, gold, documents: [{n, title, text}], outputs: [{o, text, sentences: [{s, text,
cited}]}]}. The two outputs of an item come from two systems in a random order; do not guess which is which.

For every output:
- "correct": the output states the answer to the question (a gold answer or an equivalent), as its answer,
  early and plainly (a yes/no question says yes or no).
- "partial": the answer is there but buried among unrelated facts, hedged, mixed with a wrong answer, or only
  one part of a multi-part answer is given.
- "wrong": it answers something else, or gives a wrong answer.
- "no_answer": it says it cannot answer, or says nothing that addresses the question.
A long-form question (its gold is a written answer, a list of claims, or question/answer pairs for the
readings of an ambiguous question): "correct" when the output answers the question plainly, early, and its
points agree with the gold (for an ambiguous question, at least one reading answered clearly); "partial"
when only a side point of the gold is given or the answer is buried; "wrong" when it contradicts the gold or
answers another question.
For every sentence of the output (its "sentences" list), judge whether the documents it cites ("cited", by
number) say it, using only their text, as a strict fact-checker: "supported", "partial" (a substantive part
is not stated in the cited documents), "not_supported" (or it cites nothing). Template debris ("According to
Document [3]!") is "not_supported".

Write one JSON line per output, in packet order, to the labels file you are given:
{"item": "...", "o": "X", "correct": "correct|partial|wrong|no_answer", "sentences": ["supported", ...],
 "note": "at most 15 words"}
("sentences" has one label per sentence, in order.) Append as you go; validate at the end that every output
of the packet has one line and every line parses.
"""


def sentences(output: str, lang: str = "en") -> list[dict]:
    """The output's sentences as a reader judges them: {s (1-based), text (citation marks kept),
    cited (document numbers)}; sentences with no words are left out."""
    out = []
    for sent in split_statements(output or "", lang):
        if strip_citations(sent):
            out.append({"s": len(out) + 1, "text": sent, "cited": list(parse_citations(sent))})
    return out


def prepare(a_path: str, b_path: str, out: str | Path, *, dataset: str | None = None, limit: int | None = None,
            per_packet: int = 10, seed: int = 0, a_method: str | None = None, b_method: str | None = None) -> dict:
    """Write the blinded packets, the key and the guide (module docstring). Returns a summary dict.
    ``a_method`` / ``b_method`` pick one method of a file that holds several.

    Raises:
        InputError: unreadable results, a side with several methods and none picked, the same method on
            both sides, or no item in common.
    """
    a = [r for r in read_results(a_path) if a_method is None or r["method"] == a_method]
    b = [r for r in read_results(b_path) if b_method is None or r["method"] == b_method]
    methods = sorted({r["method"] for r in a}) + sorted({r["method"] for r in b})
    if len(set(methods)) != 2 or len(methods) != 2:
        raise InputError(f"each side must hold one method (pick it with --a-method / --b-method) and the two must "
                         f"differ; got {methods}")
    by_b = {(r["dataset"], str(r["id"])): r for r in b}
    pairs = [(r, by_b[(r["dataset"], str(r["id"]))]) for r in a
             if (r["dataset"], str(r["id"])) in by_b and (dataset is None or r["dataset"] == dataset)]
    if not pairs:
        raise InputError(f"no item is in both {a_path} and {b_path}" + (f" for {dataset}" if dataset else ""))
    rng = random.Random(seed)
    rng.shuffle(pairs)
    pairs = pairs[:limit] if limit else pairs
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    items, key = [], {}
    for k, (ra, rb) in enumerate(pairs, start=1):
        item = f"i{k:03d}"
        named = [("X", ra), ("Y", rb)] if rng.random() < 0.5 else [("X", rb), ("Y", ra)]
        lang = "ru" if ra["dataset"].endswith("-ru") else "en"
        key[item] = {"dataset": ra["dataset"], "id": str(ra["id"]), "gold": ra["gold"],
                     **{o: {"method": r["method"], "output": r.get("output") or ""} for o, r in named}}
        items.append({"item": item, "question": ra["question"], "gold": ra["gold"].get("answers") or ra["gold"],
                      "documents": [{"n": n, "title": d.get("title", ""), "text": d.get("text", "")}
                                    for n, d in enumerate(ra["docs"], start=1)],
                      "outputs": [{"o": o, "text": r.get("output") or "", "sentences": sentences(r.get("output"), lang)}
                                  for o, r in named]})
    packets = [items[i:i + per_packet] for i in range(0, len(items), per_packet)]
    for n, p in enumerate(packets, start=1):
        (out / f"packet-{n:02d}.json").write_text(json.dumps(p, ensure_ascii=False, indent=1), encoding="utf-8")
    (out / "key.json").write_text(json.dumps(key, ensure_ascii=False, indent=1), encoding="utf-8")
    (out / "GUIDE.md").write_text(GUIDE, encoding="utf-8")
    return {"items": len(items), "packets": len(packets), "methods": methods, "out": str(out)}


def score(folder: str | Path, labels: list[str] | None = None) -> dict:
    """Per method and dataset (and "all"): n, correct, correct_or_partial, wrong, no_answer (shares of
    outputs), supported_sentences (share of judged sentences labelled supported), words_per_answer,
    gold_in_output (the string metric), labelled (outputs with a label).

    Raises:
        InputError: no key in ``folder``, a label for an unknown item/output, or a bad label value.
    """
    folder = Path(folder)
    try:
        key = json.loads((folder / "key.json").read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise InputError(f"no key.json in {folder}: run `vericite bench judge prepare` first") from e
    paths = [Path(p) for p in labels] if labels else sorted(folder.glob("labels*.jsonl"))
    got: dict[tuple[str, str], dict] = {}
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            lab = json.loads(line)
            where = f"{path}:{n}"
            if lab.get("item") not in key or lab.get("o") not in ("X", "Y"):
                raise InputError(f"{where}: unknown item or output {lab.get('item')!r}/{lab.get('o')!r}")
            if lab.get("correct") not in CORRECTNESS:
                raise InputError(f"{where}: 'correct' must be one of {', '.join(CORRECTNESS)}")
            bad = [s for s in lab.get("sentences", []) if s not in SUPPORT]
            if bad:
                raise InputError(f"{where}: sentence labels must be {', '.join(SUPPORT)}; got {bad}")
            got[(lab["item"], lab["o"])] = lab
    rows: dict[tuple[str, str], list] = defaultdict(list)
    for item, k in key.items():
        for o in ("X", "Y"):
            lab = got.get((item, o))
            entry = k[o]
            gold = k["gold"].get("answers") or []
            row = (lab, len(entry["output"].split()), answer_match(entry["output"], gold)["in_output"] if gold else None)
            rows[(entry["method"], k["dataset"])].append(row)
            rows[(entry["method"], "all")].append(row)
    out: dict[str, dict] = {}
    for (method, ds), rs in sorted(rows.items()):
        labelled = [lab for lab, _, _ in rs if lab]
        sents = [s for lab in labelled for s in lab.get("sentences", [])]
        golds = [g for _, _, g in rs if g is not None]

        def share(x: str) -> float | None:
            return round(sum(lab["correct"] == x for lab in labelled) / len(labelled), 3) if labelled else None

        out.setdefault(method, {})[ds] = {
            "n": len(rs), "labelled": len(labelled), "correct": share("correct"),
            "correct_or_partial": (round(sum(lab["correct"] in ("correct", "partial") for lab in labelled)
                                         / len(labelled), 3) if labelled else None),
            "wrong": share("wrong"), "no_answer": share("no_answer"),
            "supported_sentences": round(sum(s == "supported" for s in sents) / len(sents), 3) if sents else None,
            "words_per_answer": round(sum(w for _, w, _ in rs) / len(rs), 1),
            "gold_in_output": round(sum(golds) / len(golds), 3) if golds else None}
    return out


def main(argv: list[str] | None = None, *, models_toml: str | None = None) -> int:
    ap = argparse.ArgumentParser(prog="vericite bench judge", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="action", required=True)
    p = sub.add_parser("prepare", help="blinded packets of two methods' outputs, the key and the readers' guide")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--out", required=True)
    p.add_argument("--dataset")
    p.add_argument("--limit", type=int)
    p.add_argument("--per-packet", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--a-method", help="the method of A to judge (A holds several)")
    p.add_argument("--b-method", help="the method of B to judge (B holds several)")
    s = sub.add_parser("score", help="the readers' labels per method and dataset")
    s.add_argument("folder")
    s.add_argument("--labels", nargs="*", help="label files (default: FOLDER/labels*.jsonl)")
    s.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.action == "prepare":
        print(json.dumps(prepare(args.a, args.b, args.out, dataset=args.dataset, limit=args.limit,
                                 per_packet=args.per_packet, seed=args.seed, a_method=args.a_method,
                                 b_method=args.b_method)))
        return 0
    res = score(args.folder, args.labels)
    if args.json:
        json.dump(res, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print("| method | dataset | n (labelled) | correct | correct or partial | wrong | no answer | supported sentences "
          "| words/answer | gold in output |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for method, by in res.items():
        for ds, m in by.items():
            cells = [method, ds, f"{m['n']} ({m['labelled']})", m["correct"], m["correct_or_partial"], m["wrong"],
                     m["no_answer"], m["supported_sentences"], m["words_per_answer"], m["gold_in_output"]]
            print("| " + " | ".join("-" if c is None else str(c) for c in cells) + " |")
    return 0
