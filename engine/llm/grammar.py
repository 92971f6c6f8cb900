"""GBNF grammars (llama.cpp) for answers of a fixed form.

- :data:`YES_NO` for the usefulness gate: exactly "Yes" or "No".
- :func:`citation_grammar`: every sentence ends with one to three citations of documents that
  exist ([1]..[k]), so a small model chooses *which* document to cite, never *whether* to cite.
"""
from __future__ import annotations

import re
from typing import Collection

YES_NO = 'root ::= "Yes" | "No"'

_NO = re.compile(r"^\W*(?:answer\s*:\W*|ответ\s*:\W*)?(no|нет)\b", re.I)


def says_no(reply: str) -> bool:
    """Whether a gate reply says "No": the authors' rule (anything else is Yes) read without its
    grammar, so "no.", "NO", "Answer: No", "**No**" and "Нет" are No too."""
    return bool(_NO.match(reply))


#: a full stop followed by a space that does not end the sentence: initials ("Michael P. Fay", "J. K. Rowling",
#: "U.S. Route 52", "А. С. Пушкин") and a few short words that stand before a name or follow one ("Jr.", "Dr.", "St.", "vs.");
#: not "Inc." or "No.", which often end a sentence. Without it the model, made to cite
#: at "P.", wrote "Michael P.ay" and "U. Route 52" instead (bench/RESULTS.md)
_INITIALS = ('initials ::= ([A-ZА-ЯЁ] "." " "?)* [A-ZА-ЯЁ] "." " " | ("Mr" | "Mrs" | "Ms" | "Dr" | "Jr" | "Sr" | "St" | "Mt" '
             '| "Ft" | "vs") ". "')


def citation_grammar(n_docs: int, *, max_sentences: int = 6, max_citations: int = 3,
                     allowed: Collection[int] | None = None, inline: bool = False) -> str:
    """A GBNF grammar for answers whose every sentence ends with in-range citations.

    Shape: ``sentence (" " sentence){0, max_sentences-1}``; a sentence is text without
    brackets, newlines or sentence-final punctuation, then either ``" [i]."`` or ``". [i]"``
    (1..max_citations marks, each ``1 <= i <= n_docs``): a model that wants to end its sentence
    may write the full stop first, and is then made to cite. A full stop followed directly by
    another character stays inside the sentence ("3.5", "F.C", "U.S"), so decimals and
    abbreviations survive; one followed by a citation ends the sentence, and one followed by a space
    does too unless it closes an initial or a short title (:data:`_INITIALS`: "Michael P. Fay", "U.S. Route 52",
    "Martin Luther King Jr. was").

    Args:
        n_docs: number of documents given to the LLM (k >= 1).
        max_sentences: cap on sentences (the token cap still applies).
        max_citations: cap on marks per sentence.
        allowed: the document numbers that may be cited (default: all of 1..n_docs). Stage 3
            passes the documents its verified statements cite, so a merged sentence cannot move
            to a document no verified statement came from.
        inline: citations may also stand inside a sentence, followed by a space (or ", ", ": ",
            "; ") and more text: "According to Document [4], Messi scored ... [4]." Without it a
            model that writes "According to Document" is made to end its sentence there.

    Raises:
        ValueError: n_docs < 1, max_sentences < 1 or max_citations < 1, or ``allowed`` empty or
            outside 1..n_docs.
    """
    if n_docs < 1 or max_sentences < 1 or max_citations < 1:
        raise ValueError(f"need n_docs, max_sentences, max_citations >= 1, got {n_docs}, {max_sentences}, {max_citations}")
    cites = sorted(set(allowed) if allowed is not None else range(1, n_docs + 1), reverse=True)
    if not cites or cites[-1] < 1 or cites[0] > n_docs:
        raise ValueError(f"allowed citations must be a non-empty subset of 1..{n_docs}, got {sorted(cites)}")
    nums = " | ".join(f'"{i}"' for i in cites)  # longest first: "10" before "1"
    more = f" (cite){{0,{max_citations - 1}}}" if max_citations > 1 else ""
    rest = f' (" " sentence){{0,{max_sentences - 1}}}' if max_sentences > 1 else ""
    return "\n".join([
        f"root ::= sentence{rest}",
        'sentence ::= text (" " cites [,:;]? " " text)* (" " cites [.!?] | [.!?] " " cites)' if inline else
        'sentence ::= text (" " cites [.!?] | [.!?] " " cites)',
        f"cites ::= cite{more}",
        r'text ::= (initials | [^\[\]\n.!?]) ([^\[\]\n.!?] | [.] [^\[\]\n.!? ] | " " initials)*',
        _INITIALS,
        f'cite ::= "[" ({nums}) "]"',
    ])
