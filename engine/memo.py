"""The analyst's memo: an answer as Markdown a manager can check at a glance.

``[1, 3*]`` in the answer becomes Markdown footnotes (``[^1][^3]``, a partial one marked), each
footnote names its document and quotes the spans of it that carry the sentences citing it (overlapping
spans once, in reading order)
(:class:`~vericite.engine.records.Quote`); then the conflicts between documents, what the marks
mean, and what was left out and why (statements and facts the checks dropped, in a collapsible
list). Headings follow the answer's language (Russian or English).
"""
from __future__ import annotations

import re

from . import records as R
from .records import VerifiedAnswer

_MARK = re.compile(r"\[(\d+\*?(?:,\s*\d+\*?)*)\]")

_TEXT = {
    "en": {"sources": "Sources", "conflicts": "Conflicts between documents", "marks": "Marks",
           "left": "Left out", "dropped": "statements not supported by the documents they cite",
           "partial": "`*` after a footnote: that document supports the sentence only in part (lenient mode); "
                      "check it before you rely on it.",
           "gives": "document {o} gives {ov} where document {d} gives {v}", "none": "(no answer: {why})",
           "document": "Document", "p": "P", "note": "Note"},
    "ru": {"sources": "Источники", "conflicts": "Противоречия между документами", "marks": "Пометки",
           "left": "Что не вошло", "dropped": "утверждений, которые не подтверждаются цитируемыми документами",
           "partial": "`*` после сноски: документ подтверждает предложение лишь частично (мягкий режим); "
                      "проверьте его, прежде чем опираться на него.",
           "gives": "документ {o} указывает {ov}, а документ {d} — {v}", "none": "(нет ответа: {why})",
           "document": "Документ", "p": "P", "note": "Примечание"},
}


def _footnotes(match: re.Match) -> str:
    out = []
    for part in match.group(1).split(","):
        part = part.strip()
        out.append(f"[^{part.rstrip('*')}]" + ("\\*" if part.endswith("*") else ""))
    return "".join(out)


def memo(result: VerifiedAnswer) -> str:
    """The answer as a Markdown memo (str, ends with a newline): title, answer with footnotes, the warnings as
    notes, sources with quotes, conflicts, marks, left out."""
    lang = "ru" if result.settings.get("lang") == "ru" else "en"
    t = _TEXT[lang]
    lines = [f"# {result.question}", ""]
    lines += [_MARK.sub(_footnotes, result.answer) if result.answer else t["none"].format(why=result.empty_reason), ""]
    # what the reader must know before citing the answer (a part of the question nothing shown covers, sentences
    # removed by the final check): under the answer, not in a log
    lines += [f"> **{t['note']}:** {w}" for w in result.warnings] + ([""] if result.warnings else [])
    cited = sorted({c for s in result.final for c in s.citations if 1 <= c <= len(result.documents)})
    if cited:
        lines += [f"## {t['sources']}", ""]
        for c in cited:
            doc = result.documents[c - 1]
            spans = sorted({(q.start, q.end) for s in result.final for q in s.quotes if q.document == c})
            merged: list[list[int]] = []
            for a, b in spans:  # overlapping quotes of one document shown once, in reading order
                if merged and a <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], b)
                else:
                    merged.append([a, b])
            quoted = " … ".join(f"«{x}»" if lang == "ru" else f"\"{x}\"" for x in (doc.text[a:b] for a, b in merged))
            title = doc.title or f"{t['document']} {c}"
            lines.append(f"[^{c}]: **[{c}] {title}**" + (f": {quoted}" if quoted else ""))
        lines.append("")
    if result.conflicts:
        lines += [f"## {t['conflicts']}", ""]
        for c in result.conflicts:
            lines.append(f"- {t['gives'].format(o=c.other_document, ov=c.other_value, d=c.document, v=c.value)}: "
                         f"\"{c.other_sentence}\" / \"{c.sentence}\"")
        lines.append("")
    if any(s.partial for s in result.final):
        lines += [f"## {t['marks']}", "", t["partial"], ""]
    dropped = [s for st in result.stages[:2] for s in st.statements if s.verdict != R.KEPT]
    if dropped:
        lines += [f"## {t['left']}", "", f"<details><summary>{len(dropped)} {t['dropped']}</summary>", ""]
        for s in dropped:
            cites = ", ".join(str(c) for c in s.citations) or "-"
            score = "" if s.score is None else f", {t['p']} {s.score:.2f}"
            lines.append(f"- {s.text} ([{cites}]: {s.verdict}{score})")
        lines += ["", "</details>", ""]
    return "\n".join(lines).rstrip() + "\n"
