"""Evaluation items from the ../shared/data files: ASQA, ELI5, HotpotQA, MuSiQue, XQuAD-ru.

:func:`load_items` returns one dict per item::

    {"id": str, "index": int (0-based row in the file),
     "dataset": "asqa" | "eli5" | "hotpotqa" | "musique" | "xquad-ru",
     "question": str, "docs": [Document] (at most ndoc, default 5), "gold": {...},
     "supporting": [bool] per document (``is_supporting`` flags) or None}

gold: ASQA ``{"qa_pairs": [{"question", "short_answers"}], "answer"}``; ELI5 ``{"claims", "answer"}``;
HotpotQA / MuSiQue / XQuAD-ru ``{"answers": [answer, *aliases]}``.

Documents:

- ASQA, ELI5: the first ``ndoc`` documents (the retriever's order), as ALCE does. XQuAD-ru: the
  first ``ndoc`` of the item's ``docs`` (paragraphs of the question's article, as the file orders them).
- HotpotQA, MuSiQue (items with ``is_supporting`` flags): every supporting document plus the
  distractors BM25 ranks highest, ``ndoc`` in all, presented in BM25 rank order (ties broken by
  the original index), so supporting documents are not always first. BM25: ``rank_bm25.BM25Okapi``
  (k1 = 1.5, b = 0.75, epsilon = 0.25) over the item's own documents (title + text), tokens =
  lower-cased ``\\w+`` runs; the query is the question. Deterministic. If more documents are
  supporting than ``ndoc``, the ``ndoc`` best-ranked supporting ones are kept.
  (:func:`oracle_documents` is the simpler oracle of ``vericite bench latency``: supporting + first
  distractors in file order. ``vericite answer`` uses neither: it takes the first ``ndoc``.)

The dataset is read from the item's fields (``qa_pairs`` -> asqa, ``claims`` -> eli5,
``question_decomposition`` / ``answer_aliases`` -> musique, ``supporting_facts`` /
``supporting_titles`` -> hotpotqa, ``context`` with ``lang`` "ru" -> xquad-ru), never guessed from the
file name; ``dataset=`` overrides.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vericite.engine.inputs import read_rows
from vericite.engine.errors import InputError
from vericite.engine.records import Document
from vericite.engine.text.relevance import bm25_scores

DATASETS = ("asqa", "eli5", "hotpotqa", "musique", "xquad-ru")


def read_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each row of a JSONL file, or (1, row) for each row of a file
    holding one JSON list (:func:`vericite.engine.inputs.read_rows`).

    Raises:
        InputError: missing/unreadable file, or malformed JSON (names the file, line and column).
    """
    yield from read_rows(path)


def detect_dataset(row: dict) -> str | None:
    """The dataset an item belongs to, from its fields (None if unknown)."""
    if row.get("qa_pairs"):
        return "asqa"
    if row.get("claims"):
        return "eli5"
    if "question_decomposition" in row or "answer_aliases" in row:
        return "musique"
    if "supporting_facts" in row or "supporting_titles" in row or "_id" in row:
        return "hotpotqa"
    if "context" in row and row.get("lang") == "ru":
        return "xquad-ru"
    return None


def bm25_order(question: str, docs: list[Document]) -> list[int]:
    """Indices of ``docs`` by BM25 score against ``question``, highest first, ties by index."""
    scores = bm25_scores(question, [f"{d.title} {d.text}" for d in docs])
    return sorted(range(len(docs)), key=lambda i: (-scores[i], i))


def select_bm25(question: str, docs: list[Document], supporting: list[bool], ndoc: int) -> list[int]:
    """Indices of the documents to use: all supporting (best-ranked first if more than ``ndoc``)
    plus the best-ranked distractors, ``ndoc`` in all, in BM25 rank order."""
    order = bm25_order(question, docs)
    sup = [i for i in order if supporting[i]][:ndoc]
    dis = [i for i in order if not supporting[i]][: ndoc - len(sup)]
    keep = set(sup) | set(dis)
    return [i for i in order if i in keep]


def _doc(raw: Any, where: str) -> Document:
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
        raise InputError(f"{where}: a document must be an object with a 'text' string")
    return Document(title=str(raw.get("title") or ""), text=raw["text"].strip())


def _gold(row: dict, dataset: str, where: str) -> dict:
    if dataset == "asqa":
        pairs = row.get("qa_pairs") or []
        if not pairs or not all(isinstance(p, dict) and p.get("short_answers") for p in pairs):
            raise InputError(f"{where}: ASQA item needs 'qa_pairs' with 'short_answers'")
        return {"qa_pairs": [{"question": p.get("question", ""), "short_answers": list(p["short_answers"])} for p in pairs],
                "answer": row.get("answer", "")}
    if dataset == "eli5":
        if not row.get("claims"):
            raise InputError(f"{where}: ELI5 item needs 'claims'")
        return {"claims": list(row["claims"]), "answer": row.get("answer", "")}
    answers = [row.get("answer")] + list(row.get("answers") or []) + list(row.get("answer_aliases") or [])
    answers = list(dict.fromkeys(a for a in answers if isinstance(a, str) and a.strip()))
    if not answers:
        raise InputError(f"{where}: {dataset} item needs 'answer'")
    return {"answers": answers}


def item_from_row(row: Any, *, index: int, where: str, dataset: str | None = None, ndoc: int = 5) -> dict:
    """One evaluation item (see module docstring) from one data row.

    Raises:
        InputError: not an object, no question, no documents, unknown dataset, missing gold.
    """
    if not isinstance(row, dict):
        raise InputError(f"{where}: expected an object, got {type(row).__name__}")
    ds = dataset or detect_dataset(row)
    if ds not in DATASETS:
        raise InputError(f"{where}: cannot tell the dataset from the item's fields; pass --dataset ({', '.join(DATASETS)})")
    question = str(row.get("question") or "").strip()
    if not question:
        raise InputError(f"{where}: no 'question'")
    raw_docs = row.get("docs")
    if not isinstance(raw_docs, list) or not raw_docs:
        raise InputError(f"{where}: no 'docs' list (the *_nodocs files cannot be run)")
    docs = [_doc(d, f"{where}, document {i + 1}") for i, d in enumerate(raw_docs)]
    supporting = [bool(isinstance(d, dict) and d.get("is_supporting")) for d in raw_docs]
    if ds in ("hotpotqa", "musique") and any(supporting):
        order = select_bm25(question, docs, supporting, ndoc)
        docs, flags = [docs[i] for i in order], [supporting[i] for i in order]
    else:
        docs, flags = docs[:ndoc], None
    rid = row.get("id") or row.get("_id") or row.get("sample_id")
    return {"id": str(rid) if rid not in (None, "") else f"{ds}-{index}", "index": index, "dataset": ds,
            "question": question, "docs": docs, "gold": _gold(row, ds, where), "supporting": flags}


def load_items(path: str | Path, *, dataset: str | None = None, ndoc: int = 5, start: int = 0,
               limit: int | None = None) -> list[dict]:
    """Items ``start .. start+limit-1`` (0-based rows) of a data file.

    Raises:
        InputError: unreadable/malformed file or row (file and line named), ndoc < 1,
            duplicate item ids.
    """
    if ndoc < 1:
        raise InputError(f"--ndoc must be >= 1, got {ndoc}")
    if dataset is not None and dataset not in DATASETS:
        raise InputError(f"unknown dataset {dataset!r}; known: {', '.join(DATASETS)}")
    items, seen = [], {}
    stop = None if limit is None else start + limit
    for index, (line, row) in enumerate(read_jsonl(path)):
        if index < start:
            continue
        if stop is not None and index >= stop:
            break
        item = item_from_row(row, index=index, where=f"{path}:{line}", dataset=dataset, ndoc=ndoc)
        if item["id"] in seen:
            raise InputError(f"{path}:{line}: duplicate item id {item['id']!r} (also at line {seen[item['id']]})")
        seen[item["id"]] = line
        items.append(item)
    return items


def load_demos(path: str | Path, ndoc: int = 5) -> list[dict]:
    """Few-shot demos ({question, answer, docs}) from an ALCE demos JSONL file.

    Raises:
        InputError: unreadable file or a demo without question/answer/docs.
    """
    demos = []
    for line, row in read_jsonl(path):
        where = f"{path}:{line}"
        if not isinstance(row, dict) or not row.get("question") or not row.get("answer") or not row.get("docs"):
            raise InputError(f"{where}: a demo needs 'question', 'answer' and 'docs'")
        demos.append({"question": row["question"], "answer": row["answer"],
                      "docs": [_doc(d, f"{where}, document {i + 1}") for i, d in enumerate(row["docs"][:ndoc])]})
    return demos


def oracle_documents(docs: list[dict], ndoc: int) -> list[dict]:
    """At most ``ndoc`` documents chosen with the gold labels (oracle retrieval, benches only).

    Items that flag supporting documents (``is_supporting``, HotpotQA/MuSiQue) keep every
    supporting one plus the first distractors, in their original order; other items keep the
    first ``ndoc``. ``vericite bench latency`` uses it, so its items match earlier latency runs.
    """
    if len(docs) <= ndoc:
        return docs
    if any(isinstance(d, dict) and d.get("is_supporting") for d in docs):
        supporting = [i for i, d in enumerate(docs) if d.get("is_supporting")][:ndoc]
        distractors = [i for i, d in enumerate(docs) if not d.get("is_supporting")]
        keep = set(supporting) | set(distractors[:ndoc - len(supporting)])
        return [d for i, d in enumerate(docs) if i in keep]
    return docs[:ndoc]
