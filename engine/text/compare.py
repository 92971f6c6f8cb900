"""Comparison questions ("Who was born first, Erika Jayne or Marco Da Silva?"): the two things
compared, and which one the dates of the answer's sentences make the answer.

A sentence-pair checker cannot say "Erika Jayne was born first" from "Erika Jayne was born on July
10, 1971" in one document and "Marco Da Silva was born on 10 April 1992" in another: the
conclusion needs both dates, compared. The answer's sentences are checked one by one; the
comparison of their dates is done here, by rule.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from .content import answer_words, stems
from .entities import found

# "Who was born first, Erika Jayne or Marco Da Silva?", "Кто старше, Пирт или Мун?"
_CHOICE = re.compile(r",[^,]+\s(?:or|или)\s[^,]+$", re.I)
#: the question asks for the earlier date / the later one
_EARLIER = re.compile(r"\b(?:first|earlier|earliest|older|oldest|before)\b|раньше|старше|первым|первой", re.I)
_LATER = re.compile(r"\b(?:later|latest|last|younger|youngest|more recent(?:ly)?|most recent(?:ly)?|after)\b"
                    r"|позже|младше|моложе", re.I)
#: words that ask for the order, not the event ordered
_ORDER_WORDS = "first earlier earliest older oldest before later latest last younger youngest recent recently after"
_AGE = re.compile(r"\b(?:older|oldest|younger|youngest)\b", re.I)
_MONTHS = {m: k + 1 for k, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                             "september", "october", "november", "december"))}
_MONTH = "|".join(m.capitalize() for m in _MONTHS)
_DATE = re.compile(rf"\b(?:(?P<m1>{_MONTH})\s+(?P<d1>\d{{1,2}}),?\s+(?P<y1>\d{{4}})"
                   rf"|(?P<d2>\d{{1,2}})\s+(?P<m2>{_MONTH}),?\s+(?P<y2>\d{{4}})"
                   rf"|(?P<m3>{_MONTH})\s+(?P<y3>\d{{4}})"
                   rf"|(?P<y4>(?:1[0-9]|20)\d{{2}}))\b")


def choices(question: str) -> list[str]:
    """The two things a comparison question names after its comma ("Erika Jayne", "Marco Da
    Silva"); [] for another question."""
    m = _CHOICE.search(question.strip().rstrip("?").rstrip())
    return [c.strip() for c in re.split(r"\s(?:or|или)\s", m.group(0).lstrip(","), flags=re.I)] if m else []


def first_date(text: str) -> tuple[int, int, int] | None:
    """The first date ``text`` gives, as (year, month, day), 0 for a part it leaves out ("born
    on July 10, 1971" -> (1971, 7, 10); "in 1985" -> (1985, 0, 0)); None when it gives none.
    English month names only."""
    m = _DATE.search(text)
    if not m:
        return None
    g = m.groupdict()
    year = next(int(g[k]) for k in ("y1", "y2", "y3", "y4") if g[k])
    month = next((_MONTHS[g[k].lower()] for k in ("m1", "m2", "m3") if g[k]), 0)
    day = next((int(g[k]) for k in ("d1", "d2") if g[k]), 0)
    return year, month, day


def by_dates(question: str, sentences: Sequence[str]) -> str | None:
    """For a question comparing two things by time ("Who was born first, A or B?", "Which band was
    formed later, A or B?"): the one the dates of ``sentences`` make the answer. Each thing's date is the
    first date of the first sentence naming it and not the other one
    (:func:`~vericite.engine.text.entities.found`) and a content word of the question besides the
    two things ("born", "founded": "She released her first album in 2005" dates another event); the
    earlier date wins for "first", "earlier", "older", "before", the later for "later", "younger",
    "more recent", "after".

    Returns:
        The thing as the question writes it; None when the question compares nothing by time or asks
        both ways, when a thing has no dated sentence naming the event asked about ("born"; "Who is
        older" asks for birth), or when the dates are equal or cannot be ordered (a year against a
        full date of the same year).
    """
    pair = choices(question)
    earlier, later = bool(_EARLIER.search(question)), bool(_LATER.search(question))
    if len(pair) != 2 or earlier == later:
        return None
    # the event asked about ("born", "founded"): a dated sentence must name it, or its date may be another's
    event = answer_words(question, " ".join(pair)) - stems(_ORDER_WORDS)
    if not event and _AGE.search(question):  # "Who is younger": the age of a person is their birth
        event = stems("born birth")
    dates = []
    for name, other in (pair, pair[::-1]):
        date = next((d for s in sentences if found(name, s) and not found(other, s) and event & stems(s)
                     and (d := first_date(s))), None)
        if date is None:
            return None
        dates.append(date)
    (a, b) = dates
    for x, y in zip(a, b):
        if 0 in (x, y):
            return None  # "1971" against "10 April 1971": not ordered by what is given
        if x != y:
            return pair[0] if (x < y) == earlier else pair[1]
    return None
