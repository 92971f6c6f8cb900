"""Entity guard: a claim may not name what its cited documents never name.

A sentence-pair checker scores "Elisabeth Shue reprised her role as Jennifer" against a document
about Claudia Wells reprising it as entailed (0.94), and "the band that released Counterparts is
the Police [4]" against a document about the Police that never mentions Counterparts. Careful
readers call both unsupported: the claim forces an entity onto a document that does not state it.
The guard is a deterministic rule beside the number guard (engine/nli/guard.py): every name in the
claim must occur in the cited documents, their titles included, the question's own names too (a
document that never names the asked-about entity does not say anything about it).

Names are capitalised words (Latin or Cyrillic) that are not common sentence openers, function or
prompt words; initials are not checked. A name is found in the documents when, case aside, it
occurs as written or as the same Snowball stem (English or Russian: "Варшава" = "Варшаве",
"Canadians" = "Canadian"); a possessive "'s" is ignored. Aliases count when the document itself
writes them (it names the alias). The rule cannot see a swapped role between two names both in
the document; it rejects a correct claim that names an entity by a form its document does not
use ("the U.S." for "United States"), which the support bench measures.
"""
from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

from .content import FUNCTION_WORDS, META_WORDS

#: a run of capitalised words: a name as written ("Sir Robert Peel", "Islam", "Jiangsu")
NAME_RUN = re.compile(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")

_WORD = re.compile(r"[^\W\d_][\w'’.\-]*", re.UNICODE)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"«(\[]\s*)$")

#: capitalised words that open or join sentences without naming anything (lower-cased)
COMMON = frozenset("""a an the and or but if in on at of for to by with from as is was were are be it its it's
he she they we i you his her their our my your this that these those there here yes no not none both either neither
each every all any many much some most few several such one two three first second third however although though
despite during after before when where which who whom whose what while since because therefore thus hence also
additionally furthermore moreover overall finally today yesterday later earlier then now so yet still just only
according based given provided following above below in-universe note notes summary answer overall meanwhile
instead besides unlike like among between within without about around over under into onto upon than
в во на и с со к о об от до для из за при что это как его её ее их он она оно они мы вы я не ни но а или
если когда где который которая которое которые также кроме после перед после во время согласно документ
документе документы текст да нет ответ вопрос""".split()) | FUNCTION_WORDS | META_WORDS

#: nationality words (lower-cased, English): capitalised and named, but two sentences both saying
#: "American" are not about the same thing
DEMONYMS = frozenset("""american british english scottish welsh irish french german italian spanish portuguese dutch
belgian swiss austrian swedish norwegian danish finnish icelandic polish czech russian ukrainian greek turkish
hungarian romanian bulgarian serbian croatian canadian mexican brazilian argentine argentinian chilean colombian
peruvian cuban australian zealander japanese chinese korean indian pakistani iranian iraqi israeli egyptian
african nigerian kenyan european asian soviet roman byzantine jewish christian catholic muslim""".split())

#: the singular pronouns a document opens a sentence with for its subject ("He was born ...", "Its ...")
SUBJECT_PRONOUNS = "He|She|It|His|Her|Its|Он|Она|Оно"
#: "The film stars ...": after naming its subject once, a document calls it by what it is
SUBJECT_NOUN = r"The (?P<noun>[a-z]{3,})"


def bare_title(title: str) -> str:
    """A document title without its closing parenthesis: "Steve Smith (musician)" -> "Steve Smith"."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip()


_STEMMERS = {"latin": "english", "cyrillic": "russian"}
_ROMAN = re.compile(r"[IVXLC]+")


def _script(word: str) -> str:
    return "cyrillic" if re.search(r"[А-Яа-яЁё]", word) else "latin"


@lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    return snowballstemmer.stemmer(_STEMMERS[_script(word)]).stemWord(word.lower())


def _clean(word: str) -> str:
    """'Hagar's' -> 'Hagar', 'U.S.' -> 'U.S', 'Jean-Luc' stays."""
    return re.sub(r"(?:['’]s?|\.)$", "", word)


def _words(text: str) -> list[str]:
    """Words with possessives and trailing stops removed; "J.Fox" and "U.S._declaration" are
    split where a stop or underscore runs into the next word."""
    text = re.sub(r"(?<=\w)\.(?=[^\W\d_]{2})|_", " ", text)
    return [w for w in (_clean(m.group(0)) for m in _WORD.finditer(text)) if w]


def names(text: str) -> list[str]:
    """The names of ``text`` in order: capitalised words that are not :data:`COMMON` (an opener
    such as "According" or "The") nor Roman numerals, possessives and trailing stops removed; a
    hyphenated word counts by its capitalised parts ("US-based" -> "US")."""
    out = []
    for w in _words(text):
        for part in (w.split("-") if "-" in w else [w]):
            if len(part) < 2 or not part[0].isupper() or part.lower() in COMMON or _ROMAN.fullmatch(part):
                continue
            out.append(part)
    return out


@lru_cache(maxsize=512)  # a document is the premise of many claims
def _vocabulary(text: str) -> tuple[str, frozenset[str], frozenset[str]]:
    """(lower-cased text, its word stems, the 5-letter prefixes of its stems of 5+ letters)."""
    stems = frozenset(_stem(p) for w in _words(text) for p in w.split("-") if p)
    return text.lower(), stems, frozenset(s[:5] for s in stems if len(s) >= 5)


def found(name: str, text: str) -> bool:
    """Whether ``name`` occurs in ``text``: as written (case aside), as the same stem, as a stem
    of 4+ letters that begins the other ("Генрихом" -> "генрих" ~ "Генрих" -> "генр"), or (5+
    letters) as a stem with the same first five letters and at most two more or fewer
    ("Норманные" ~ "Норманны"): inflections and derived forms the stemmer does not join. A name of
    several words is found when it occurs as written or each of its words is found ("Muskegon County
    Airport" is not found in "North Muskegon": the stem of the whole begins with "muskegon")."""
    low, stems, prefixes = _vocabulary(text)
    if re.search(r"(?<!\w)" + re.escape(name.lower()) + r"(?!\w)", low):
        return True
    if len(parts := name.split()) > 1:
        return all(found(p, text) for p in parts)
    st = _stem(name)
    if st in stems:
        return True
    if len(st) < 4:
        return False
    return any((s.startswith(st) or st.startswith(s)) and len(s) >= 4 for s in stems) or (
        len(st) >= 5 and st[:5] in prefixes and any(abs(len(s) - len(st)) <= 2 and s[:5] == st[:5] for s in stems))


def unsupported_names(premise: str, hypothesis: str) -> list[str]:
    """The names of ``hypothesis`` that ``premise`` does not contain (empty: the guard passes),
    in order, each once."""
    out: list[str] = []
    for n in names(hypothesis):
        if n not in out and not found(n, premise):
            out.append(n)
    return out
