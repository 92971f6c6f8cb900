"""GBNF grammars (llama.cpp) for answers of a fixed form.

- :data:`YES_NO` for the usefulness gate: exactly "Yes" or "No".
- :func:`citation_grammar`: every sentence ends with one to three citations of documents that
  exist ([1]..[k]), so a small model chooses *which* document to cite, never *whether* to cite.
"""
from __future__ import annotations

YES_NO = 'root ::= "Yes" | "No"'


def citation_grammar(n_docs: int, *, max_sentences: int = 6, max_citations: int = 3) -> str:
    """A GBNF grammar for answers whose every sentence ends with in-range citations.

    Shape: ``sentence (" " sentence){0, max_sentences-1}``; a sentence is text without
    brackets, newlines or sentence-final punctuation, then either ``" [i]."`` or ``". [i]"``
    (1..max_citations marks, each ``1 <= i <= n_docs``): a model that wants to end its sentence
    may write the full stop first, and is then made to cite. Decimal points inside a sentence
    are not expressible (a known limit of this simple form).

    Args:
        n_docs: number of documents given to the LLM (k >= 1).
        max_sentences: cap on sentences (the token cap still applies).
        max_citations: cap on marks per sentence.

    Raises:
        ValueError: n_docs < 1, max_sentences < 1 or max_citations < 1.
    """
    if n_docs < 1 or max_sentences < 1 or max_citations < 1:
        raise ValueError(f"need n_docs, max_sentences, max_citations >= 1, got {n_docs}, {max_sentences}, {max_citations}")
    nums = " | ".join(f'"{i}"' for i in range(n_docs, 0, -1))  # longest first: "10" before "1"
    more = f" (cite){{0,{max_citations - 1}}}" if max_citations > 1 else ""
    rest = f' (" " sentence){{0,{max_sentences - 1}}}' if max_sentences > 1 else ""
    return "\n".join([
        f"root ::= sentence{rest}",
        'sentence ::= text (" " cites [.!?] | [.!?] " " cites)',
        f"cites ::= cite{more}",
        r"text ::= [^\[\]\n.!?] [^\[\]\n.!?]*",
        f'cite ::= "[" ({nums}) "]"',
    ])
