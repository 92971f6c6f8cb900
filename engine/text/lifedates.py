"""A birth or death date read off a biography's life span: "Ginger Rogers was born in 1911" from "Ginger Rogers
(born Virginia Katherine McMath; July 16, 1911 – April 25, 1995) was an American actress ...".

The pair checker scores such claims below its threshold more often than not (0.47-0.70 on 8 of the 14 "... was born
in/on ..." claims it dropped over the recorded rows, each stated by its document's life span): it does not read the
bracket as a birth and a death. The span is a fixed form, so the claim is read off it exactly: the name before the
bracket, the date before the dash (born) or after it (died), year, and month and day when the claim gives them.
"""
from __future__ import annotations

import re

from .compare import a_date, first_date

#: a person's name: capitalised words and the small words of names ("Ludwig van Beethoven")
_NAME = r"[A-Z][\w.'’-]*(?:\s+(?:[A-Z][\w.'’-]*|de|da|di|van|von|der|del|la|le))*"
#: "<Name> was born in 1911." / "<Name> was born on July 16, 1911." / "<Name> died on 25 April 1995." (the date
#: alone: :func:`~vericite.engine.text.compare.a_date`)
_CLAIM = re.compile(rf"^\W*(?P<name>{_NAME})\s+(?:(?P<born>(?:was|is)\s+born)|(?P<died>died))\s+(?:in|on)\s+"
                    r"(?P<date>[^.]+?)\s*\.?$")
#: a name and the bracket right after it: "Ginger Rogers (born ...; July 16, 1911 – April 25, 1995)"
_SPAN = re.compile(rf"(?P<name>{_NAME})\s*\((?P<inner>[^()]{{4,160}})\)")
#: the dash between the birth and the death ("–", "—", "--", " - ", "1887-1967"; not the hyphen of "Jean-Paul")
_DASH = re.compile(r"\s*(?:[–—]|--|\s-\s|(?<=\d)-(?=\s*\d))\s*")
_WORD = re.compile(r"[\w'’-]+")


def _same_person(claimed: str, written: str) -> bool:
    """Whether the name of the claim and the name before the bracket are one person's: the same last word, and every
    word of the shorter among the other's ("Chester Bennington", "Chester Charles Bennington")."""
    a, b = _WORD.findall(claimed.lower()), _WORD.findall(written.lower())
    if not a or not b or a[-1] != b[-1]:
        return False
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return set(short) <= set(long_)


def life_date_stated(premise: str, claim: str) -> bool:
    """Whether ``premise`` (a document's text) states ``claim`` (one sentence, citation marks removed) when that is
    "<Name> was born in/on <date>" or "<Name> died in/on <date>": a bracket right after the same person's name
    (:func:`_same_person`) whose part before its dash (born) or after it (died) gives the claim's year, and its month
    and day where the claim gives them (:func:`~vericite.engine.text.compare.first_date`: "July 16, 1911",
    "16 July 1911"). A bracket without a dash ("(born 1911)") gives a birth only; a death is read only after a dash
    whose part before it gives a date too. English only; False for any other claim or a claim without a year."""
    m = _CLAIM.match(claim.strip())
    if not m:
        return False
    said = a_date(m.group("date"))
    if said is None:
        return False
    for span in _SPAN.finditer(premise):
        if not _same_person(m.group("name"), span.group("name")):
            continue
        parts = _DASH.split(span.group("inner"), maxsplit=1)
        part = parts[0] if m.group("born") else (parts[1] if len(parts) == 2 and first_date(parts[0]) else "")
        given = first_date(part)
        if given is None or given[0] != said[0]:
            continue
        if all(s == 0 or s == g for s, g in zip(said[1:], given[1:])):
            return True
    return False
