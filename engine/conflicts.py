"""Conflicts between documents: a verified sentence's number or year that another document states
differently (the brief's example: document 1 says 2000, document 3 says 2001).

The checker decides, not word overlap. For every verified sentence S (stage 1 statement or stage 2
fact, citing document i) that has a number, and every document j it does not cite:

1. candidates: each number n' of the same kind in document j that S does not have (a year: 4
   digits from 1000 to 2100; otherwise any number), at most :data:`MAX_CANDIDATES` per document,
   taken first from the sentences of j that share the most words with S;
2. S' = S with its first number of that kind replaced by n';
3. a conflict when document j entails S' (P >= the checker's threshold) but not S itself: j tells
   the same claim with another number.

So a document that merely mentions other years about other things is no conflict, and one that
states both numbers is none either; nor is a sentence about another subject (it names what the claim
does not while its document never names the claim's own names: :func:`names_another`).

A document that tells the same event without naming its subject ("after its launch in 2001 the
service ...": the brief's document 3) rarely reaches the threshold, since the claim names what the
document leaves implicit. With ``related`` > 0, S' at P >= ``related`` also counts when the
sentence of j holding n' shares at least :data:`MIN_SHARED_STEMS` content-word stems with S (the
Snowball stemmer of the language, numbers aside, :func:`~vericite.engine.text.content.stems`): same event,
other number.

With ``restated``, the other direction also counts: S' entails the sentence of j holding n'
(P >= the threshold; premise S', hypothesis that sentence), the sentence sharing at least
:data:`MIN_SHARED_STEMS` stems with S. Such a sentence says nothing S' does not: it is S, or a part
of it, told with the other number, even where its subject is left out ("... was founded in 1820"
against "The Warsaw Stock Exchange was founded in 1817"), which the forward check misses because
the claim names what the sentence leaves implicit. A restated conflict stands even when document j
seems to entail S itself (step 3's "but not S"): a checker blind to the changed number scores S and
S' alike against a document that holds S', so that verdict says nothing about j stating S's
number too; the number guard, where the checker has one, already refuses S' against a
sentence that still states S's number.

The checker must read the documents' language (a checker that does not gives meaningless
verdicts here too; the pipeline warns about that already).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .nli.guard import numbers
from .records import Document, Statement
from .text.content import stems
from .text.entities import unsupported_names
from .text.relevance import words
from .text.splitter import split_sentences

#: Numbers of one document tried per verified sentence.
MAX_CANDIDATES = 4
#: Content-word stems the other sentence must share with the claim under the ``related`` bar.
MIN_SHARED_STEMS = 2
_NUM = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Conflict:
    """Document ``other_document`` entails ``sentence`` (verified, citing ``document``) with
    ``other_value`` in place of ``value``; ``other_sentence`` is where it says so; ``score`` is
    P(entailment) of that rewritten claim (for "restated": P that it entails ``other_sentence``),
    ``kind`` "year" or "number"; ``basis`` "entailed" (P >= the threshold), "related" (P >= the lower
    bar, the other sentence sharing the claim's words) or "restated" (the rewritten claim entails the
    other sentence, which shares the claim's words)."""

    kind: str
    document: int
    sentence: str
    value: str
    other_document: int
    other_sentence: str
    other_value: str
    score: float
    basis: str = "entailed"

    def describe(self) -> str:
        """One line for a person: 'document [3] gives 2001 where document [1] gives 2000: ...'."""
        return (f"document [{self.other_document}] gives {self.other_value} where document [{self.document}] gives "
                f"{self.value} ({self.kind}): {self.other_sentence!r} vs {self.sentence!r}")


def number_kind(value: str) -> str:
    """"year" for a 4-digit value from 1000 to 2100 (``"2001"``), else "number"; a conflict only
    compares values of one kind."""
    return "year" if value.isdigit() and 1000 <= int(value) <= 2100 else "number"


def _norm(token: str) -> str:
    return next(iter(numbers(token)), token)


@dataclass(frozen=True)
class _Candidate:
    statement: Statement
    token: str          # the number as written in the statement
    other: int
    other_token: str
    other_sentence: str
    rewritten: str


_PERSON = re.compile(r"^\W*(he|she|his|her|он|она|его|её|ее)\b", re.I)


def names_another(claim: str, sentence: str, title: str = "") -> bool:
    """Whether ``sentence`` names what ``claim`` does not (a sentence opening with "He"/"She"
    names its document's ``title``)."""
    named = f"{title} {sentence}" if title and _PERSON.match(sentence) else sentence
    return bool(unsupported_names(claim, named))


def candidates(verified: Sequence[Statement], documents: Sequence[Document], lang: str = "en") -> list[_Candidate]:
    """The rewritten claims to check (step 1-2 of the module docstring), in order."""
    sentences = [split_sentences(d.text, lang) for d in documents]
    out: list[_Candidate] = []
    for s in verified:
        mine = [(m.group(0), _norm(m.group(0))) for m in _NUM.finditer(s.text)]
        if not mine or not s.citations:
            continue
        values = {v for _, v in mine}
        own = set(words(s.text))
        for j, sents in enumerate(sentences, start=1):
            if j in s.citations:
                continue
            tried: set[str] = set()
            # a conflicting statement is about the same thing: the sentences sharing the most words
            # with the claim give the first candidates (else a long document's first numbers crowd it out)
            # another subject: the document never names the claim's names and the sentence names another
            # ("Porcaro was inducted ... in 1993", or "He was inducted ..." in the document titled "Jeff
            # Porcaro", against "Neil Peart was inducted ... in 1983"); a sentence that leaves its subject
            # unnamed ("after its launch in 2001 the service ...") stays a candidate
            doc = documents[j - 1]
            unnamed = bool(unsupported_names(f"{doc.title}\n{doc.text}", s.text))
            for t in sorted(sents, key=lambda t: -len(own & set(words(t)))):
                if unnamed and names_another(s.text, t, doc.title):
                    continue
                for m in _NUM.finditer(t):
                    v = _norm(m.group(0))
                    same = [(tok, val) for tok, val in mine if number_kind(val) == number_kind(v)]
                    if v in values or v in tried or not same or len(tried) >= MAX_CANDIDATES:
                        continue
                    tried.add(v)
                    tok = same[0][0]
                    out.append(_Candidate(s, tok, j, m.group(0), t, s.text.replace(tok, m.group(0), 1)))
    return out


def find_conflicts(verified: Sequence[Statement], documents: Sequence[Document],
                   scores: Callable[[list[tuple[str, str]]], np.ndarray], threshold: float,
                   lang: str = "en", related: float = 0.0, restated: bool = False) -> list[Conflict]:
    """The conflicts of ``verified`` with the documents they do not cite (module docstring): at most
    one per (verified sentence, other document), the highest-scoring.

    Args:
        scores: the checker, ``scores(pairs) -> float32 [n]`` P(entailment) (one call).
        threshold: P(entailment) that counts as entailed.
        lang: the documents' language (sentence splitting, stems).
        related: the lower bar for a rewritten claim whose other sentence shares the claim's
            words (module docstring); 0 = off. Must not exceed ``threshold``.
        restated: also check whether each rewritten claim entails the other sentence (one more
            pair per candidate; module docstring).

    Raises:
        ValueError: ``related`` above ``threshold``.
        InferenceError: the checker failed.
    """
    if related > threshold:
        raise ValueError(f"related bar {related} is above the threshold {threshold}")
    cands = candidates(verified, documents, lang)
    if not cands:
        return []
    originals = sorted({(c.other, c.statement.text) for c in cands})
    n = len(cands)
    pairs = [(documents[c.other - 1].text, c.rewritten) for c in cands] + \
            [(documents[j - 1].text, text) for j, text in originals] + \
            ([(c.rewritten, c.other_sentence) for c in cands] if restated else [])
    p = np.asarray(scores(pairs), dtype=np.float64)
    entails_original = {key: p[n + k] >= threshold for k, key in enumerate(originals)}
    back = p[n + len(originals):] if restated else np.zeros(n)
    best: dict[tuple[int, int], Conflict] = {}
    own = {id(s): stems(s.text, lang) for s in verified} if related > 0 or restated else {}

    def shares(c: _Candidate) -> bool:  # asked only by the related and restated rules
        return len(own[id(c.statement)] & stems(c.other_sentence, lang)) >= MIN_SHARED_STEMS

    for c, pc, pb in zip(cands, p[:n], back):
        # j entailing S too rules out the forward rules only; a restated S' still stands (docstring)
        tells_original = entails_original[(c.other, c.statement.text)]
        if not tells_original and pc >= threshold:
            basis = "entailed"
        elif not tells_original and related > 0 and pc >= related and shares(c):
            basis = "related"
        elif restated and pb >= threshold and shares(c):
            basis, pc = "restated", pb
        else:
            continue
        key = (id(c.statement), c.other)
        found = Conflict(number_kind(_norm(c.token)), c.statement.citations[0], c.statement.text, _norm(c.token), c.other,
                         c.other_sentence, _norm(c.other_token), round(float(pc), 4), basis)
        if key not in best or found.score > best[key].score:
            best[key] = found
    return list(best.values())
