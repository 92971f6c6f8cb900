"""Hard negatives for the NLI checker: turn an entailed (premise, hypothesis) into a non-entailed one.

A small checker learns "the hypothesis shares words with the premise" long before it learns
"the hypothesis says what the premise says": it accepts "launched in 2001" against a passage
that says 2000. These generators make minimal edits to an entailed hypothesis so that it is no
longer supported by the premise, and record exactly what was changed:

==========  =======================================================================================
kind        edit
==========  =======================================================================================
year        a year (1000-2099, also "1990s") shifted by 1-10 years, to a year the premise never names
date        a day of a month-name date ("4 August 2007", "March 3, 1990") changed, or its month
number      a bare number (digits, "1,200", "3.5", "two", ordinals "2nd"/"second") changed
quantity    a number with a unit, currency or magnitude ("$5 million", "300 km", "10%"): its value
            changed, or its magnitude swapped (million <-> billion, thousand <-> million)
entity      a capitalised name replaced by another capitalised name from the premise (never one
            that shares a premise sentence with the replaced name: "written by A and B" must not
            turn "written by A" into the still-true "written by B"), else from a given list
negation    "not" inserted after the first auxiliary ("was" -> "was not"), or an existing negation
            removed ("isn't" -> "is"); else "never" before a past-tense main verb ("wrote" -> "never wrote")
role_swap   subject and object of a simple "X verb Y" sentence exchanged ("A dog chases a cat" ->
            "A cat chases a dog"); symmetric verbs (married, met, hugs, ...) are skipped
==========  =======================================================================================

Every generator is pure Python (regular expressions), takes the premise (to avoid replacements
the premise supports: a new year or name that the premise also mentions is never chosen) and a
seed, and returns a :class:`HardNegative` or ``None`` when it has nothing to change (no year, no
auxiliary, not a simple "X verb Y" sentence, ...). Choices come from a ``random.Random`` seeded
with sha256(seed, kind, hypothesis), so a result depends only on its inputs, not on call order
or ``PYTHONHASHSEED``.

Known noise (why a few per cent of "negatives" may still be entailed): a changed number can be
implied by other numbers in the premise (sums, ages); an entity swap can hit an alias of the
same thing; removing a negation can leave a sentence the premise still supports. English rules
only, except years, digits and numeric dates, which are language-independent.

``qa_document_pairs`` applies the generators to QA documents (HotpotQA paragraphs): each picked
sentence gives a positive (sentence vs its own paragraph: verbatim support), a distractor
negative (sentence vs another paragraph of the same item) and hard negatives (edited sentence vs
its own paragraph).

``python -m vericite.export.hard_negatives --premise P --hypothesis H`` prints every edit as JSON.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from vericite.engine.nli.guard import (  # the number guard's English number words (one table)
    ORDINALS_EN as _GUARD_ORDINALS_EN,
    TENS_EN as _GUARD_TENS_EN,
    WORDS_EN as _GUARD_WORDS_EN,
)

__all__ = [
    "GENERATORS",
    "KINDS",
    "HardNegative",
    "change_date",
    "change_entity",
    "change_number",
    "change_quantity",
    "change_year",
    "hard_negatives_for_pairs",
    "negate",
    "perturb",
    "qa_document_pairs",
    "split_sentences_regex",
    "swap_roles",
]

#: Generator kinds, in the order :func:`perturb` tries them when no order is given.
KINDS = ("year", "date", "number", "quantity", "entity", "negation", "role_swap")


@dataclass(frozen=True)
class HardNegative:
    """One edited, non-entailed pair and the record of the edit.

    Attributes:
        kind: the generator (one of :data:`KINDS`).
        premise: the premise, unchanged.
        hypothesis: the edited hypothesis (differs from ``source_hypothesis``).
        source_hypothesis: the entailed hypothesis it was made from.
        old: the text span of ``source_hypothesis`` that was replaced.
        new: what replaced it.
        start: character offset of ``old`` in ``source_hypothesis``.
        seed: the seed the choice was made with.
        label: always ``"not_entailment"``.
    """

    kind: str
    premise: str
    hypothesis: str
    source_hypothesis: str
    old: str
    new: str
    start: int
    seed: int
    label: str = "not_entailment"

    def to_dict(self) -> dict:
        """A JSON-ready dict of all fields."""
        return asdict(self)


# ------------------------------------------------------------------------------------------------
# shared helpers

def _rng(seed: int, kind: str, text: str) -> random.Random:
    """A Random seeded by sha256(seed, kind, text): reproducible across runs and processes."""
    digest = hashlib.sha256(f"{seed}\x00{kind}\x00{text}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _make(kind: str, premise: str, hyp: str, start: int, end: int, new: str, seed: int) -> HardNegative | None:
    """Replace ``hyp[start:end]`` with ``new``; None when nothing changes or the result is in the premise."""
    out = hyp[:start] + new + hyp[end:]
    if out == hyp or not out.strip():
        return None
    if _norm(out) and _norm(out) in _norm(premise):  # the edit produced a sentence the premise states
        return None
    return HardNegative(kind=kind, premise=premise, hypothesis=out, source_hypothesis=hyp,
                        old=hyp[start:end], new=new, start=start, seed=seed)


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.lower()).strip(" .")


def _overlaps(a: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    return any(a[0] < e and s < a[1] for s, e in spans)


_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December"]
_MONTH_ABBR = {"Jan": 0, "Feb": 1, "Mar": 2, "Apr": 3, "Jun": 5, "Jul": 6, "Aug": 7, "Sep": 8, "Sept": 8,
               "Oct": 9, "Nov": 10, "Dec": 11}
_MONTH_RE = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|" \
            r"(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?)"
_WEEKDAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

# ------------------------------------------------------------------------------------------------
# year

_YEAR_RE = re.compile(r"(?<![\d.,$£€])(1[0-9]{3}|20[0-9]{2})(s?)(?![\d]|,\d|\.\d)")


def _year_spans(text: str) -> list[tuple[int, int]]:
    return [m.span(1) for m in _YEAR_RE.finditer(text)]


def change_year(premise: str, hypothesis: str, seed: int = 0) -> HardNegative | None:
    """Shift one year of the hypothesis by 1-10 years (decades by 10-30 for "1990s").

    The new year is never one the premise or hypothesis already names, and stays <= 2099.

    Returns:
        The edit, or None when the hypothesis has no year.
    """
    found = list(_YEAR_RE.finditer(hypothesis))
    if not found:
        return None
    rng = _rng(seed, "year", hypothesis)
    m = rng.choice(found)
    year, plural = int(m.group(1)), bool(m.group(2))
    taken = {int(y) for y in re.findall(r"(?<!\d)(\d{4})(?!\d)", premise + " " + hypothesis)}
    steps = [10, 20, 30, -10, -20] if plural else [1, 2, 3, 4, 5, 7, 10, -1, -2, -3, -4, -5, -7, -10]
    rng.shuffle(steps)
    for d in steps:
        new = year + d
        if 1000 <= new <= 2099 and new not in taken:
            return _make("year", premise, hypothesis, m.start(1), m.end(1), str(new), seed)
    return None


# ------------------------------------------------------------------------------------------------
# date

_DATE_RES = [
    # March 3, 1990 / March 3rd 1990 / March 3
    re.compile(rf"\b(?P<month>{_MONTH_RE}) (?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (?P<year>\d{{4}}))?"),
    # 3 March 1990 / 3rd of March
    re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<month>{_MONTH_RE})(?:,? (?P<year>\d{{4}}))?"),
    # March 1990
    re.compile(rf"\b(?P<month>{_MONTH_RE}),? (?P<year>\d{{4}})\b"),
    # 1990-03-04
    re.compile(r"\b(?P<year>\d{4})-(?P<mnum>0[1-9]|1[0-2])-(?P<day>0[1-9]|[12]\d|3[01])\b"),
]


def _date_matches(text: str) -> list[re.Match]:
    out: list[re.Match] = []
    for rx in _DATE_RES:
        for m in rx.finditer(text):
            if not _overlaps(m.span(), [x.span() for x in out]):
                out.append(m)
    return sorted(out, key=lambda m: m.start())


def change_date(premise: str, hypothesis: str, seed: int = 0) -> HardNegative | None:
    """Change the day (to another day 1-28) or, for month-and-year dates, the month of one date.

    Month names are English; ISO dates (1990-03-04) change their day. The new date's text is
    never one that occurs in the premise.

    Returns:
        The edit (``old``/``new`` are the whole date), or None when the hypothesis has no date.
    """
    found = _date_matches(hypothesis)
    if not found:
        return None
    rng = _rng(seed, "date", hypothesis)
    m = rng.choice(found)
    old = m.group(0)
    gd = m.groupdict()
    for _ in range(20):
        if gd.get("day"):
            day = int(gd["day"])
            new_day = rng.choice([d for d in range(1, 29) if d != day])
            s, e = m.span("day")
            width = len(gd["day"]) if gd.get("mnum") else 1
            new_text = old[: s - m.start()] + str(new_day).zfill(width) + old[e - m.start():]
        else:
            month = gd["month"].rstrip(".")
            idx = _MONTHS.index(month) if month in _MONTHS else _MONTH_ABBR[month]
            new_month = _MONTHS[rng.choice([i for i in range(12) if i != idx])]
            s, e = m.span("month")
            new_text = old[: s - m.start()] + new_month + old[e - m.start():]
        if new_text not in premise:
            return _make("date", premise, hypothesis, m.start(), m.end(), new_text, seed)
    return None


# ------------------------------------------------------------------------------------------------
# numbers and quantities

#: The number-word tables are the number guard's (engine/nli/guard.py), cut to what the generators use:
#: the cardinals zero-twenty, the tens and "hundred" (not "thousand", a magnitude here), and the
#: ordinals first-twelfth. The lists and their order decide the edits: change them and the hard
#: negatives (the training data of nli-minilm-l6-hn-int8) change.
_CARDINALS = [*_GUARD_WORDS_EN, *(w for w, v in _GUARD_TENS_EN.items() if v <= 100)]
_ORDINALS = list(_GUARD_ORDINALS_EN[1:13])
_NUM_WORD_RE = re.compile(r"\b(" + "|".join(_CARDINALS[2:] + _ORDINALS) + r")\b", re.IGNORECASE)
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_NUM_RE = re.compile(rf"(?<![\w.,$£€-])(?P<num>{_DIGITS})(?P<ord>st|nd|rd|th)?(?![\w]|[.,]\d)")
_MAGNITUDES = ["thousand", "million", "billion", "trillion"]
_UNITS = (r"%|percent|per cent|km2|km²|km|kilometres|kilometers|kilometre|kilometer|miles|mile|mi|m|metres|"
          r"meters|metre|meter|cm|mm|feet|foot|ft|inches|inch|in\.|kg|kilograms|grams|g|pounds|lb|lbs|tons|"
          r"tonnes|acres|hectares|ha|square (?:miles|kilometres|kilometers|metres|meters|feet)|sq mi|mph|km/h|"
          r"people|inhabitants|residents|members|students|employees|seats|episodes|copies|games|goals|"
          r"points|votes|years|months|weeks|days|hours|minutes|seconds|times|floors|storeys|stories|"
          r"rooms|beds|units|aircraft|ships|soldiers|troops|tracks|songs|albums|films|books|pages|"
          r"languages|countries|species|children|sons|daughters|awards|titles|medals|wins|runs|yards")
_QTY_RE = re.compile(
    rf"(?P<cur>US\$|\$|£|€|¥)?\s?(?P<num>{_DIGITS}|" + "|".join(_CARDINALS[2:]) + r")"
    rf"(?:[\s-](?P<mag>{'|'.join(_MAGNITUDES)}))?(?:[\s-]?(?P<unit>{_UNITS})\b)?",
    re.IGNORECASE,
)


def _quantity_matches(text: str) -> list[re.Match]:
    """Numbers that carry a currency, a magnitude word or a unit (not years)."""
    years = _year_spans(text)
    out = []
    for m in _QTY_RE.finditer(text):
        if not (m.group("cur") or m.group("mag") or m.group("unit")):
            continue
        if _overlaps(m.span("num"), years) and not m.group("cur"):
            continue
        # the match must start at a word boundary
        if m.start("num") > 0 and text[m.start("num") - 1].isalnum() and not m.group("cur"):
            continue
        out.append(m)
    return out


def _new_value(num: str, rng: random.Random, taken: set[str]) -> str | None:
    """Another number written like ``num`` (commas and decimals kept), not in ``taken``."""
    plain = num.replace(",", "")
    if "." in plain:
        whole, frac = plain.split(".")
        value, scale = int(whole + frac), len(frac)
    else:
        value, scale = int(plain), 0
    cands = [value + 1, value + 2, value + 3, value - 1, value - 2, value * 2, value + 10, (value * 3) // 2]
    if value >= 100:
        cands += [value + value // 10, value - value // 10]
    rng.shuffle(cands)
    for c in cands:
        if c < 0 or c == value:
            continue
        if scale:
            s = str(c).rjust(scale + 1, "0")
            text = s[:-scale] + "." + s[-scale:]
        else:
            text = str(c)
        if "," in num:
            head, _, tail = text.partition(".")
            text = f"{int(head):,}" + ("." + tail if tail else "")
        if text not in taken and text.replace(",", "") not in taken:
            return text
    return None


def _taken_numbers(*texts: str) -> set[str]:
    nums = set()
    for t in texts:
        for m in re.finditer(_DIGITS, t):
            nums.add(m.group(0))
            nums.add(m.group(0).replace(",", ""))
    return nums


def _swap_word(word: str, pool: list[str], rng: random.Random, premise: str) -> str | None:
    low = word.lower()
    cands = [w for w in pool if w != low and not re.search(rf"\b{w}\b", premise, re.IGNORECASE)]
    if not cands:
        return None
    new = rng.choice(cands)
    return new.capitalize() if word[0].isupper() else new


def change_number(premise: str, hypothesis: str, seed: int = 0) -> HardNegative | None:
    """Change one bare number: digits ("12", "1,200", "3.5", "2nd") or a number word ("two", "second").

    Years, dates and quantities (numbers with a unit, currency or magnitude) are left to their
    own generators. The new value is never one the premise or hypothesis already contains.

    Returns:
        The edit, or None when the hypothesis has no bare number.
    """
    blocked = _year_spans(hypothesis) + [m.span() for m in _date_matches(hypothesis)] \
        + [m.span() for m in _quantity_matches(hypothesis)]
    cands: list[tuple[int, int, str]] = []
    for m in _NUM_RE.finditer(hypothesis):
        if not _overlaps(m.span("num"), blocked):
            cands.append((m.start("num"), m.end("num"), "digits"))
    for m in _NUM_WORD_RE.finditer(hypothesis):
        if not _overlaps(m.span(), blocked):
            cands.append((m.start(), m.end(), "word"))
    if not cands:
        return None
    rng = _rng(seed, "number", hypothesis)
    s, e, how = rng.choice(sorted(cands))
    old = hypothesis[s:e]
    if how == "digits":
        new = _new_value(old, rng, _taken_numbers(premise, hypothesis))
    else:
        pool = _ORDINALS if old.lower() in _ORDINALS else _CARDINALS[2:21]
        new = _swap_word(old, pool, rng, premise)
    if new is None:
        return None
    return _make("number", premise, hypothesis, s, e, new, seed)


def change_quantity(premise: str, hypothesis: str, seed: int = 0) -> HardNegative | None:
    """Change one quantity ("$5 million", "300 km", "10%", "two albums"): its magnitude word
    (million <-> billion, thousand <-> million) when it has one and a coin flip says so, else its value.

    Returns:
        The edit (``old``/``new`` are the number or magnitude word), or None without a quantity.
    """
    found = _quantity_matches(hypothesis)
    if not found:
        return None
    rng = _rng(seed, "quantity", hypothesis)
    m = rng.choice(found)
    if m.group("mag") and rng.random() < 0.5:
        mag = m.group("mag").lower()
        i = _MAGNITUDES.index(mag)
        j = i + 1 if i + 1 < len(_MAGNITUDES) and (i == 0 or rng.random() < 0.5) else i - 1
        new = _MAGNITUDES[j]
        if m.group("mag")[0].isupper():
            new = new.capitalize()
        return _make("quantity", premise, hypothesis, m.start("mag"), m.end("mag"), new, seed)
    num = m.group("num")
    if num[0].isdigit():
        new = _new_value(num, rng, _taken_numbers(premise, hypothesis))
    else:
        new = _swap_word(num, _CARDINALS[2:21], rng, premise)
    if new is None:
        return None
    return _make("quantity", premise, hypothesis, m.start("num"), m.end("num"), new, seed)


# ------------------------------------------------------------------------------------------------
# entities

_CONNECT = r"(?:of|the|de|del|della|der|van|von|da|du|la|le|y)"
_CAP = r"(?:(?:[A-Z]\.)+|[A-Z][\w'’\-]*)"  # "U.S." / "J." initials, or a capitalised word
_ENTITY_RE = re.compile(rf"{_CAP}(?:\s+(?:{_CONNECT}\s+)?{_CAP})*")
#: Capitalised words that are not names on their own (sentence starts, pronouns, months, titles).
_NOT_NAMES = {
    "The", "A", "An", "He", "She", "It", "They", "We", "I", "You", "His", "Her", "Its", "Their", "Our",
    "This", "That", "These", "Those", "There", "Here", "In", "On", "At", "By", "For", "From", "With",
    "After", "Before", "During", "Since", "As", "When", "While", "Although", "However", "But", "And",
    "Or", "If", "Some", "Many", "Most", "Two", "Three", "One", "Both", "Each", "All", "Several",
    "Mr", "Mrs", "Ms", "Dr", "St", "Sir", "Lord", "Lady", "Jr", "Sr", "Inc", "Ltd", "Co", "Who",
    "What", "Which", "Where", "Why", "How", "Another", "Other", "Following", "According", "Upon",
    "Also", "Then", "Today", "Currently", "Later", "Originally", "Despite", "Under", "Over", "Between",
    *_MONTHS, *_WEEKDAYS,
}


#: Nationality adjectives: swapped only with each other ("American" -> "Carolyn" says nothing).
_DEMONYMS = [
    "American", "British", "English", "French", "German", "Italian", "Spanish", "Russian", "Chinese",
    "Japanese", "Canadian", "Australian", "Indian", "Irish", "Scottish", "Welsh", "Mexican", "Brazilian",
    "Dutch", "Swedish", "Norwegian", "Danish", "Polish", "Greek", "Turkish", "Korean", "Israeli", "Egyptian",
    "Austrian", "Swiss", "Belgian", "Portuguese", "Argentine", "Soviet", "Finnish", "Hungarian", "Czech",
    "Ukrainian", "Iranian", "Pakistani", "Nigerian", "Filipino", "Thai", "Vietnamese", "Cuban", "Chilean",
]


def _sentence_start(text: str, s: int) -> bool:
    """True when position ``s`` begins the text or follows sentence-final punctuation."""
    before = text[:s].rstrip(" \t\"'“(")
    return not before or before[-1] in ".!?\n"


def _entities(text: str) -> list[tuple[int, int, str]]:
    """Capitalised name spans (start, end, text) with leading determiners and stopwords trimmed.

    Dropped: a possessive "'s" (kept outside the span), capitalised words with a lower-case hyphen
    suffix ("Michelin-starred"), and a single word that starts a sentence unless it is also
    capitalised elsewhere in the text ("Additionally, ...").
    """
    out = []
    for m in _ENTITY_RE.finditer(text):
        s, name = m.start(), m.group(0)
        words = name.split()
        while words and (words[0].rstrip(".") in _NOT_NAMES or re.fullmatch(_CONNECT, words[0])):
            s = text.index(words[1], s + len(words[0])) if len(words) > 1 else s + len(words[0])
            words = words[1:]
        while words and re.fullmatch(_CONNECT, words[-1]):
            words = words[:-1]
        if not words:
            continue
        name = text[s: s + len(" ".join(words))]
        if name != " ".join(words):  # irregular spacing: take the words as they are written
            name = " ".join(words)
            if text.find(name, s) != s:
                continue
        name = name.rstrip(".") if not re.search(r"\b[A-Z]\.$", name) else name
        name = re.sub(r"['’]s$", "", name)
        if len(name) < 2 or name in _NOT_NAMES or re.search(r"-[a-z]+$", name):
            continue
        if " " not in name and _sentence_start(text, s):
            elsewhere = [m2.start() for m2 in re.finditer(rf"\b{re.escape(name)}\b", text) if m2.start() != s]
            if not any(not _sentence_start(text, p) for p in elsewhere):
                continue
        out.append((s, s + len(name), name))
    return out


def change_entity(premise: str, hypothesis: str, seed: int = 0,
                  pool: Sequence[str] | None = None) -> HardNegative | None:
    """Replace one capitalised name of the hypothesis with another name.

    Candidates come from the premise first, then from ``pool``; a candidate is never a name
    already in the hypothesis, and never a premise name that shares a premise sentence with the
    replaced name (coordinated names could make the edit true). Names with the same number of
    words are preferred. Nationality adjectives ("American") are swapped only with other
    nationality adjectives that the premise does not use.

    Args:
        premise, hypothesis: the entailed pair.
        seed: choice seed.
        pool: extra candidate names (e.g. titles of other documents).

    Returns:
        The edit, or None when the hypothesis has no name or no candidate fits.
    """
    hyp_ents = _entities(hypothesis)
    if not hyp_ents:
        return None
    rng = _rng(seed, "entity", hypothesis)
    targets = hyp_ents[:]
    rng.shuffle(targets)
    hyp_names = {n.lower() for _, _, n in hyp_ents}
    sentences = split_sentences_regex(premise) or [premise]
    for s, e, name in targets:
        near = {n.lower() for sent in sentences if name.lower() in sent.lower() for _, _, n in _entities(sent)}
        cands: list[str] = []
        if name in _DEMONYMS:
            sources = [[d for d in _DEMONYMS if not re.search(rf"\b{d}\b", premise)]]
        else:
            sources = [[n for _, _, n in _entities(premise) if n not in _DEMONYMS],
                       [n for n in (pool or []) if n not in _DEMONYMS]]
        for src in sources:
            seen = set()
            for n in src:
                key = n.lower()
                if key in hyp_names or key in near or key in seen or name.lower() in key or key in name.lower():
                    continue
                seen.add(key)
                cands.append(n)
            if cands:
                break
        if not cands:
            continue
        same = [c for c in cands if len(c.split()) == len(name.split())]
        new = rng.choice(same or cands)
        hn = _make("entity", premise, hypothesis, s, e, new, seed)
        if hn is not None:
            return hn
    return None


# ------------------------------------------------------------------------------------------------
# negation

_AUX = r"(?:is|are|was|were|am|has|have|had|can|could|will|would|shall|should|may|might|must|does|do|did)"
_AUX_RE = re.compile(rf"\b({_AUX})\b(?!\s+(?:not|n't|never)\b)")  # lower case: "May 18" is a month
_NEG_CONTRACTIONS = {"isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were", "hasn't": "has",
                     "haven't": "have", "hadn't": "had", "can't": "can", "cannot": "can", "couldn't": "could",
                     "won't": "will", "wouldn't": "would", "shouldn't": "should", "mustn't": "must"}
_NEG_RE = re.compile(r"\b(?:" + "|".join(re.escape(k) for k in _NEG_CONTRACTIONS) + r")(?=\W|$)", re.IGNORECASE)
_NOT_RE = re.compile(rf"\b({_AUX}) (not|never) ")
#: Irregular simple-past forms that can take "never" in front ("wrote" -> "never wrote").
_IRREGULAR_PAST = {
    "won", "wrote", "became", "made", "took", "gave", "began", "led", "sang", "ran", "left", "met", "went",
    "came", "saw", "got", "held", "told", "said", "found", "built", "bought", "sold", "taught", "brought",
    "thought", "fought", "knew", "grew", "drew", "wore", "spoke", "chose", "fell", "rose", "sat", "stood",
    "ate", "drove", "rode", "flew", "threw", "struck", "lost", "paid", "spent", "sent", "felt", "kept",
    "slept", "beat", "bore", "broke", "caught", "dug", "fed", "forgot", "froze", "hid", "hung", "laid",
    "lent", "meant", "shook", "shot", "shut", "sank", "swam", "swung", "tore", "understood", "woke", "wound",
}
_PAST_RE = re.compile(r"(?<=\s)([a-z]{3,}ed|" + "|".join(sorted(_IRREGULAR_PAST)) + r")\b")


def negate(premise: str, hypothesis: str, seed: int = 0) -> HardNegative | None:
    """Negate the hypothesis, or remove its negation.

    In order: remove an existing "not"/"never" after an auxiliary ("was not born" -> "was born")
    or expand a lower-case negative contraction ("isn't" -> "is"; "Can't Touch It" is a title); else insert "not" after the first auxiliary
    ("is playing" -> "is not playing"; "has" only before "been" or a past participle); else insert
    "never" before the first past-tense main verb ("-ed" or an irregular past such as "wrote") of a
    sentence without auxiliaries, unless it follows a determiner, preposition, adverb in "-ly" or comma.

    Returns:
        The edit, or None when no auxiliary, negation or past-tense verb is found.
    """
    m = _NOT_RE.search(hypothesis)
    if m:
        return _make("negation", premise, hypothesis, m.start(), m.end(), m.group(1) + " ", seed)
    for m in _NEG_RE.finditer(hypothesis):
        if m.group(0)[0].isupper():
            continue  # "Can't Touch It" is a title, not a negation
        new = _NEG_CONTRACTIONS[m.group(0).lower()]
        return _make("negation", premise, hypothesis, m.start(), m.end(), new, seed)
    for m in _AUX_RE.finditer(hypothesis):
        aux = m.group(1).lower()
        rest = hypothesis[m.end():].lstrip()
        nxt = rest.split(" ", 1)[0].lower() if rest else ""
        if aux in ("has", "have", "had", "do", "does", "did") and not (nxt == "been" or nxt.endswith(("ed", "en"))):
            continue  # "has two children": "has not two children" is not English
        if m.start() == 0:
            continue  # a question ("Is it ...") or an inverted clause
        return _make("negation", premise, hypothesis, m.start(), m.end(), m.group(1) + " not", seed)
    if re.search(rf"\b{_AUX}\b", hypothesis, re.IGNORECASE):
        return None  # an auxiliary we could not use: the "-ed" word is likely a participle or adjective
    for m in _PAST_RE.finditer(hypothesis):
        before = hypothesis[: m.start()].rstrip()
        prev = before.split()[-1] if before.split() else ""
        if (not prev or prev.endswith((",", "ly")) or re.fullmatch(_DET, prev, re.IGNORECASE)
                or prev.lower() in _PREPS):
            continue  # "a man dressed in", "an animated series": participles and adjectives
        return _make("negation", premise, hypothesis, m.start(), m.end(), "never " + m.group(1), seed)
    return None


# ------------------------------------------------------------------------------------------------
# role swap

#: Verbs whose subject and object can be exchanged without changing the meaning.
_SYMMETRIC = {
    "married", "marries", "marry", "met", "meets", "meet", "dated", "dates", "divorced", "hugs", "hugged",
    "hugging", "embraces", "embracing", "kisses", "kissing", "kissed", "fought", "fights", "fighting",
    "resembles", "resembled", "equals", "equaled", "borders", "bordered", "bordering", "faces", "facing",
    "joined", "partnered", "collaborated", "played", "playing", "plays", "touching", "touches", "shaking",
    "shakes", "greeting", "greets", "greeted", "battled", "tied", "drew", "matched",
}
_DET = r"(?:the|a|an|his|her|their|its|this|that|these|those|some|two|three|one|several|many)"
_NP = rf"(?:(?:{_DET}) )?(?:[\w'’\-]+ ){{0,3}}[\w'’\-]+"
_VERB = (r"(?:(?:is|are|was|were) (?:being )?[a-z]+ed by|(?:is|are|was|were) [a-z]+(?:ing|en) by|"
         r"(?:is|are|was|were) [a-z]+ing|(?:has|have|had) [a-z]+(?:ed|en)|[a-z]+(?:ed|es|s)|"
         + "|".join(sorted(_IRREGULAR_PAST)) + ")")
_ROLE_RE = re.compile(rf"^(?P<x>{_NP}) (?P<v>{_VERB}) (?P<y>{_NP})(?P<end>[.!]?)$")
_PRONOUNS = {"he", "she", "it", "they", "we", "i", "you", "him", "her", "them", "us", "me", "who", "which",
             "that", "there", "this"}
_PREPS = {"to", "in", "on", "at", "from", "with", "for", "into", "onto", "over", "under", "by", "of", "near",
          "through", "across", "around", "behind", "about", "up", "down", "out", "off", "as", "than", "while",
          "and", "or", "but", "outside", "inside", "along", "towards", "toward", "against", "next", "not", "very"}


def swap_roles(premise: str, hypothesis: str, seed: int = 0) -> HardNegative | None:
    """Exchange subject and object of a simple "X verb Y" hypothesis.

    Only whole-sentence matches of ``NP verb NP`` (each noun phrase at most five words, no commas
    or clauses; the verb a simple past/present form, "is Ving", "has Ved" or a passive "was Ved
    by") are changed; symmetric verbs, pronouns and prepositional objects ("sits on a bench") are
    refused. Articles are re-cased for their new position ("A dog chases a cat" -> "A cat chases a dog").

    Returns:
        The edit (``old``/``new`` are the whole sentence), or None when the sentence is not simple.
    """
    text = hypothesis.strip()
    m = _ROLE_RE.match(text)
    if not m or "," in text:
        return None
    x, v, y = m.group("x"), m.group("v"), m.group("y")
    if v in ("is", "was", "has", "does", "as", "this", "his", "its") or v.endswith("ss"):
        return None  # "[a-z]+s" also matches these; they are not the main verb of "X verb Y"
    for np_ in (x, y):
        first = np_.split()[0]
        if not (re.fullmatch(_DET, first, re.IGNORECASE) or (first[0].isupper() and not first.endswith(("ing", "ed")))):
            return None  # a noun phrase starts with a determiner or a name ("running" is not one)
    vwords = set(v.lower().split())
    if vwords & _SYMMETRIC:
        return None
    for np_ in (x, y):
        words = np_.lower().split()
        if words[0] in _PRONOUNS or words[0] in _PREPS or any(w in _PREPS for w in words):
            return None
        if any(re.fullmatch(_VERB, w) and w not in ("is",) and w.endswith("ing") for w in words):
            return None
    if y.split()[0].lower() in _PRONOUNS or x.lower() == y.lower():
        return None

    def as_subject(np_: str) -> str:
        return np_[0].upper() + np_[1:]

    def as_object(np_: str) -> str:
        first = np_.split()[0]
        if re.fullmatch(_DET, first, re.IGNORECASE):
            return np_[0].lower() + np_[1:]
        return np_

    new = f"{as_subject(y)} {v} {as_object(x)}{m.group('end')}"
    lead = hypothesis.index(text)
    return _make("role_swap", premise, hypothesis, lead, lead + len(text), new, seed)


# ------------------------------------------------------------------------------------------------
# applying the generators

#: kind -> generator(premise, hypothesis, seed) -> HardNegative | None
GENERATORS = {
    "year": change_year,
    "date": change_date,
    "number": change_number,
    "quantity": change_quantity,
    "entity": change_entity,
    "negation": negate,
    "role_swap": swap_roles,
}


def perturb(premise: str, hypothesis: str, *, kinds: Sequence[str] = KINDS, seed: int = 0,
            pool: Sequence[str] | None = None) -> list[HardNegative]:
    """Every applicable edit of one entailed pair, one per kind, in the order of ``kinds``.

    Args:
        premise, hypothesis: an entailed pair.
        kinds: generator kinds to try (subset of :data:`KINDS`).
        seed: choice seed.
        pool: extra entity names for the ``entity`` generator.

    Returns:
        A list of at most ``len(kinds)`` edits (empty when nothing applies).

    Raises:
        ValueError: an unknown kind.
    """
    out = []
    for kind in kinds:
        if kind not in GENERATORS:
            raise ValueError(f"unknown hard-negative kind {kind!r}; known: {', '.join(KINDS)}")
        if kind == "entity":
            hn = change_entity(premise, hypothesis, seed, pool)
        else:
            hn = GENERATORS[kind](premise, hypothesis, seed)
        if hn is not None:
            out.append(hn)
    return out


def hard_negatives_for_pairs(pairs: Iterable[tuple[str, str]], *, kinds: Sequence[str] = KINDS,
                             per_pair: int = 1, seed: int = 0) -> list[HardNegative]:
    """Hard negatives for entailed training pairs.

    For each (premise, hypothesis), the applicable kinds are shuffled (seeded by the pair) and
    the first ``per_pair`` edits kept, so rarer kinds (dates, quantities) are not crowded out by
    the ubiquitous negation.

    Returns:
        The edits, in input order.
    """
    out: list[HardNegative] = []
    for premise, hypothesis in pairs:
        edits = perturb(premise, hypothesis, kinds=kinds, seed=seed)
        _rng(seed, "pick", premise + "\x00" + hypothesis).shuffle(edits)
        out.extend(edits[:per_pair])
    return out


_ABBREV = "".join(rf"(?<!\b{a}\.)" for a in ("[A-Z]", "Mr", "Mrs", "Ms", "Dr", "St", "Jr", "Sr", "No", "vs", "Inc",
                                               "Ltd", "Co", "Mt", "Ft", "Gen", "Col", "Lt", "Sgt", "Rev"))
_SPLIT_RE = re.compile(r"(?<=[.!?])" + _ABBREV + r"[\"'”)\]]?\s+(?=[\"'“(\[]?[A-Z0-9])")


def split_sentences_regex(text: str) -> list[str]:
    """Split a paragraph into sentences (stripped, non-empty) with this module's own regular expressions.

    HotpotQA paragraphs joined from sentence lists keep two spaces between sentences; when a
    paragraph has them they are the only split points. Otherwise split after ``.!?`` followed by a
    capital or digit, except after initials and common abbreviations (Mr., Dr., St., U.S., ...).

    Frozen: this is not the engine's splitter (``vericite.engine.text.splitter.split_sentences``,
    pysbd), and it must not become it. Its splits decide which QA sentences and premise windows
    :func:`qa_document_pairs` draws and which names :func:`change_entity` treats as coordinated,
    i.e. the training data of ``nli-minilm-l6-hn-int8`` (and the bench's partial claims in
    ``bench/citation_check.py``). The two differ on 340 of the 3,992 document texts of
    ``shared/data/hotpotqa.jsonl`` (e.g. this one drops a closing quote after a full stop; pysbd
    does not split after ``."``).
    """
    text = text.strip()
    if not text:
        return []
    if re.search(r"[.!?\"'”)]\s{2,}\S", text):
        parts = re.split(r"(?<=[.!?\"'”)])\s{2,}", text)
    else:
        parts = _SPLIT_RE.split(text)
    return [p.strip() for p in parts if p.strip()]


def _item_paragraphs(item: dict) -> list[tuple[str, list[str], bool]]:
    """(title, sentences, is_supporting) per document of a HotpotQA-format item."""
    out = []
    if item.get("context"):  # original HotpotQA: sentence lists
        support = {t for t, _ in item.get("supporting_facts") or []}
        for title, sents in item["context"]:
            out.append((title, [s.strip() for s in sents if s.strip()], title in support))
    else:
        for d in item.get("docs") or []:
            out.append((d.get("title", ""), split_sentences_regex(d.get("text", "")), bool(d.get("is_supporting"))))
    return out


def _window(sents: list[str], k: int, max_chars: int | None) -> str:
    """Sentence ``k`` plus neighbours (alternately after, before) while the text stays within ``max_chars``."""
    if max_chars is None:
        return " ".join(sents)
    lo, hi = k, k + 1
    size = len(sents[k])
    grew = True
    while grew:
        grew = False
        if hi < len(sents) and size + 1 + len(sents[hi]) <= max_chars:
            size += 1 + len(sents[hi])
            hi += 1
            grew = True
        if lo > 0 and size + 1 + len(sents[lo - 1]) <= max_chars:
            size += 1 + len(sents[lo - 1])
            lo -= 1
            grew = True
    return " ".join(sents[lo:hi])


def qa_document_pairs(items: Iterable[dict], *, seed: int = 0, sentences_per_item: int = 2,
                      kinds: Sequence[str] = KINDS, min_words: int = 5, max_words: int = 60,
                      window_chars: int | None = None, edits_per_sentence: int = 1,
                      two_doc_positive: bool = False) -> tuple[list[dict], list[HardNegative]]:
    """Training pairs from QA documents (HotpotQA format: ``context`` sentence lists or ``docs``).

    Per item, up to ``sentences_per_item`` sentences (5-60 words) are drawn (seeded) from the
    supporting paragraphs (all paragraphs when none is flagged). Each gives:

    * a positive: (its own paragraph, sentence), label ``entailment`` (verbatim support);
    * a distractor negative: (another paragraph of the item, sentence), ``not_entailment``;
    * with ``two_doc_positive``, a second positive in the form stage 1 checks: (the start of the
      distractor paragraph + newline + its own paragraph, sentence), ``source`` ``"qa-positive-2doc"``
      (keeps positives and negatives of the QA domain balanced when edits are added);
    * up to ``edits_per_sentence`` hard negatives: edits of the sentence (different kinds, shuffled,
      seeded) against its own paragraph.

    ``window_chars`` (e.g. 600, about the 128-token premise window the runtime scores) cuts each
    premise to whole sentences around the drawn sentence (own paragraph) or from its start
    (distractor), so that training pairs stay short and the sentence is never truncated away.

    Returns:
        ``(pairs, edits)``: ``pairs`` is a list of ``{"premise", "hypothesis", "label", "source"}``
        dicts (positives and distractor negatives; ``source`` is ``"qa-positive"`` or
        ``"qa-distractor"``); ``edits`` the hard negatives.
    """
    pairs: list[dict] = []
    edits: list[HardNegative] = []
    for k, item in enumerate(items):
        paras = _item_paragraphs(item)
        if len(paras) < 2:
            continue
        key = str(item.get("_id") or item.get("id") or k)
        rng = _rng(seed, "qa", key)
        pool_idx = [i for i, p in enumerate(paras) if p[2]] or list(range(len(paras)))
        cands = [(i, s) for i in pool_idx for s in paras[i][1] if min_words <= len(s.split()) <= max_words]
        rng.shuffle(cands)
        titles = [t for t, _, _ in paras]
        for i, sent in cands[:sentences_per_item]:
            own = _window(paras[i][1], paras[i][1].index(sent), window_chars)
            others = [j for j in range(len(paras)) if j != i and paras[j][1]]
            if not others:
                continue
            other = _window(paras[rng.choice(others)][1], 0, window_chars)
            if _norm(sent) in _norm(other):
                continue
            pairs.append({"premise": own, "hypothesis": sent, "label": "entailment", "source": "qa-positive"})
            if two_doc_positive:
                lead = _window(split_sentences_regex(other) or [other], 0, window_chars // 2 if window_chars else None)
                pairs.append({"premise": lead + "\n" + own, "hypothesis": sent, "label": "entailment",
                              "source": "qa-positive-2doc"})
            pairs.append({"premise": other, "hypothesis": sent, "label": "not_entailment", "source": "qa-distractor"})
            found = perturb(own, sent, kinds=kinds, seed=seed, pool=titles)
            rng.shuffle(found)
            edits.extend(found[:edits_per_sentence])
    return pairs, edits


def main(argv: list[str] | None = None) -> int:
    """CLI: print the edits of one pair, or dump QA-document pairs from a HotpotQA JSONL slice."""
    ap = argparse.ArgumentParser(description="Hard-negative edits of entailed pairs (JSON lines on stdout).")
    ap.add_argument("--premise")
    ap.add_argument("--hypothesis")
    ap.add_argument("--hotpotqa", help="a HotpotQA JSONL file (prints QA-document pairs and edits)")
    ap.add_argument("--items", default="200:400", help="item slice START:END of --hotpotqa (default 200:400)")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    if args.hotpotqa:
        start, end = (int(x) for x in args.items.split(":"))
        lines = Path(args.hotpotqa).read_text(encoding="utf-8").splitlines()[start:end]
        pairs, edits = qa_document_pairs([json.loads(x) for x in lines], seed=args.seed, kinds=kinds)
        for p in pairs:
            print(json.dumps(p, ensure_ascii=False))
        for e in edits:
            print(json.dumps(e.to_dict(), ensure_ascii=False))
        return 0
    if args.premise is None or args.hypothesis is None:
        ap.error("give --premise and --hypothesis, or --hotpotqa")
    for e in perturb(args.premise, args.hypothesis, kinds=kinds, seed=args.seed):
        print(json.dumps(e.to_dict(), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
