"""Input loading: a documents file (JSON or JSONL) -> (question, documents).

Accepted shapes:
- a JSON list of ``{title, text}`` documents, or JSONL with one document per line (needs --question);
- a JSON object with ``question`` and ``docs`` (the ../shared/data item format), or JSONL of such
  items (pick one with ``index``, default 0).

The first ``ndoc`` documents are used, in the order given.
"""
from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import InputError
from .records import Document

log = logging.getLogger(__name__)


def _load(path: Path) -> tuple[bool, Any]:
    """(True, the value) for a file that is one JSON value, else (False, [(line, value)]) of its JSONL lines."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is no part of the JSON
    except FileNotFoundError as e:
        raise InputError(f"file not found: {path}") from e
    except IsADirectoryError as e:
        raise InputError(f"{path} is a directory; pass a JSON or JSONL file") from e
    except PermissionError as e:
        raise InputError(f"{path}: permission denied") from e
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text ({e})") from e
    if not text.strip():
        raise InputError(f"{path}: the file is empty")
    try:
        return True, json.loads(text)
    except json.JSONDecodeError as whole:
        rows = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append((n, json.loads(line)))
            except json.JSONDecodeError as e:
                if n == 1:  # neither JSON nor JSONL: report the JSON error
                    raise InputError(f"{path}: malformed JSON at line {whole.lineno}, column {whole.colno}: "
                                     f"{whole.msg}") from whole
                raise InputError(f"{path}: malformed JSONL at line {n}, column {e.colno}: {e.msg}") from e
        return False, rows


def read_rows(path: str | Path) -> list[tuple[int, Any]]:
    """The values of a JSON or JSONL file, each with the line it starts on: a JSON list gives its
    rows (all on line 1), another JSON value one row, a JSONL file one row per non-blank line.

    Raises:
        InputError: missing, unreadable, empty or malformed file (names the file, line and column).
    """
    whole, value = _load(Path(path))
    if not whole:
        return value
    return [(1, r) for r in value] if isinstance(value, list) else [(1, value)]


def read_json_or_jsonl(path: str | Path) -> list[Any] | dict:
    """A JSON document (list or object), or the rows of a JSONL file.

    Raises:
        InputError: missing, unreadable, empty or malformed file (with line and column).
    """
    whole, value = _load(Path(path))
    return value if whole else [r for _, r in value]


def as_documents(items: Sequence[Any]) -> list[Document]:
    """Documents as a caller has them: :class:`Document` s, plain strings (no title) or
    ``{"title", "text"}`` dicts, in order (they are cited by position, 1-based).

    Raises:
        InputError: ``items`` is a single string or not a sequence, or an item is none of these.
    """
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise InputError(f"documents must be a list (of strings, {{title, text}} objects or Documents), "
                         f"got {type(items).__name__}")
    out = []
    for n, raw in enumerate(items, start=1):
        if isinstance(raw, Document):
            out.append(raw)
        elif isinstance(raw, str):
            out.append(Document("", raw))
        else:
            out.append(_as_document(raw, f"document {n}"))
    return out


def _as_document(raw: Any, where: str) -> Document:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a document must be an object with 'title' and 'text', got {type(raw).__name__}")
    if "text" not in raw:
        raise InputError(f"{where}: a document needs a 'text' field (has: {sorted(raw)})")
    text = raw.get("text")
    if not isinstance(text, str):
        raise InputError(f"{where}: 'text' must be a string")
    return Document(title=str(raw.get("title") or ""), text=text.strip())


def load_input(path: str | Path, *, question: str | None = None, index: int = 0,
               ndoc: int = 5) -> tuple[str, list[Document]]:
    """Read a documents file and return (question, documents).

    Raises:
        InputError: unreadable or malformed file (with line and column), no question, index out
            of range, no documents, or a document without text (empty documents are never dropped).
    """
    path = Path(path)
    if ndoc < 1:
        raise InputError(f"--ndoc must be >= 1, got {ndoc}")
    if question is not None and not question.strip():
        raise InputError("the question is empty")
    data = read_json_or_jsonl(path)
    item: dict | None = None
    if isinstance(data, dict):
        if index != 0:
            raise InputError(f"{path} holds one item; --index applies to JSONL files of items")
        item = data
    elif isinstance(data, list) and data and any(isinstance(r, dict) and "docs" in r for r in data):
        for n, r in enumerate(data, start=1):
            if not isinstance(r, dict) or "docs" not in r:
                raise InputError(f"{path}: item {n} (line {n}) has no 'docs' list")
        if not 0 <= index < len(data):
            raise InputError(f"{path}: --index {index} out of range (the file has {len(data)} items)")
        item = data[index]
    if item is not None:
        return item_input(item, question=question, ndoc=ndoc, where=str(path))
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a list of documents or an object with 'question' and 'docs'")
    if index != 0:
        raise InputError(f"{path} is a list of documents; --index applies to JSONL files of items")
    if len(data) > ndoc:
        log.warning("using the first %d of %d documents (--ndoc)", ndoc, len(data))
    return _finish(question, data[:ndoc], str(path))


def item_input(item: dict, *, question: str | None = None, ndoc: int = 5, where: str = "item") -> tuple[str, list[Document]]:
    """(question, documents) of one item in the ../shared/data formats (question + docs): the
    first ``ndoc`` documents in the order given, as a retriever delivers them (gold labels such
    as ``is_supporting`` are never looked at).

    Raises:
        InputError: no 'docs' list, no question, no documents, or a document without text.
    """
    if not isinstance(item.get("docs"), list):
        raise InputError(f"{where}: an item needs a 'docs' list of {{title, text}} documents")
    return _finish(question or item.get("question"), item["docs"][:ndoc], where)


def _finish(question: Any, raw_docs: list, where: str) -> tuple[str, list[Document]]:
    if not question or not str(question).strip():
        raise InputError(f"{where}: no question in the file; pass --question")
    docs = [_as_document(d, f"{where}: document {i + 1}") for i, d in enumerate(raw_docs)]
    if not docs:
        raise InputError(f"{where}: no documents")
    empty = [i for i, d in enumerate(docs, start=1) if not d.text]
    if empty:
        raise InputError(f"{where}: document(s) {empty} have no text; remove them or give them text "
                         "(documents are cited by position, so none is dropped silently)")
    return str(question).strip(), docs
