"""Content words: what a sentence says beyond its question, compared across sentences.

Three rules read sentences this way: a claim rewrite may not add what neither the question nor the
fragment says (:func:`invented`), a refined sentence must say what the verified sentences say
(stage 3 adds nothing), and a verified sentence whose content the refined answer lost is put back
(:func:`carried`). Words are compared as Snowball stems ("launched" = "launches", "году" = "год")
for English and Russian, so a rewrite that inflects a word is not a new word; numbers are compared
as digits (an English number word from two to twenty also as its digits).
"""
from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

from .citations import strip_citations

_STEMMERS = {"en": "english", "ru": "russian"}
_LETTERS = re.compile(r"[^\W\d_]+")
_DIGITS = re.compile(r"\d+")
_YES_NO = frozenset({"yes", "no", "да", "нет"})  # content_free: the answer to a yes/no question

#: words that say nothing about the answer, on top of the question's own words (English; short ones
#: are :data:`SHORT_FUNCTION_WORDS`; a Russian sentence's short function words fall under the 4-letter
#: rule of :func:`stems`)
FUNCTION_WORDS = frozenset("""also been from have into that their there they this were what when where which while
who whom whose with would about after before being could other than them then these those under over such
only very more most some""".split())

#: words of a sentence about the prompt rather than the world ("According to Document [4]",
#: "Based on the provided answer statements ..."): they carry no answer either
META_WORDS = frozenset("""according document documents passage passages based provided information given answer
answers statement statements citation citations reference references source sources search results result
above following follows context text mentioned states stated""".split())


#: English words (and their stems) of three letters that say nothing: every other 3-letter word is
#: content ("Bye Bye Man", "died", "son", "war"); shorter words never are
SHORT_FUNCTION_WORDS = frozenset("""the and but for nor yet are was has had did doe goe not you all any can may
its his her him she who how why per via off out own too yes our get got let use say see way one now sir etc""".split())


@lru_cache(maxsize=4096)  # a document sentence is compared with several claims
def stems(text: str, lang: str = "en") -> frozenset[str]:
    """Content-word stems of ``text``: letters-only words, lower-cased, Snowball-stemmed for "en"
    and "ru" (other languages: the words themselves), kept when the stem is 4+ letters long, or,
    in English, 3 letters long and neither it nor its word is in :data:`SHORT_FUNCTION_WORDS`
    (a Russian 3-letter word is as often a function word: "для", "что", "его")."""
    words = [w.lower() for w in _LETTERS.findall(text)]
    ws = words
    if lang in _STEMMERS:  # a stemmer object keeps state while it stems: one per call, threads never share it
        ws = snowballstemmer.stemmer(_STEMMERS[lang]).stemWords(words)
    if lang != "en":
        return frozenset(w for w in ws if len(w) >= 4)
    return frozenset(s for w, s in zip(words, ws) if len(s) >= 4 or (
        len(s) == 3 and w not in SHORT_FUNCTION_WORDS and s not in SHORT_FUNCTION_WORDS))


#: English number words, cardinal and ordinal, by value (the number guard reads them too: engine/nli/guard.py)
WORDS_EN = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
            "sixteen seventeen eighteen nineteen twenty").split()
ORDINALS_EN = ("zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
               "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth").split()
#: those from two to twenty as the digits they stand for: a document's "third-largest" says stage 1's "3rd largest"
#: ("one" and "first" are left out: they say a number far less often than they say something else)
NUMBER_WORDS: dict[str, str] = {w: str(n) for table in (WORDS_EN, ORDINALS_EN) for n, w in enumerate(table) if n >= 2}


def _terms(text: str, lang: str) -> frozenset[str]:
    """:func:`stems` of ``text`` plus its digit runs, an English number word also as its digits
    (:data:`NUMBER_WORDS`: "third" and "3rd" share "3"): the units every rule here compares."""
    numbers = [NUMBER_WORDS[w] for w in _LETTERS.findall(text.lower()) if w in NUMBER_WORDS] if lang == "en" else []
    return stems(text, lang) | frozenset(_DIGITS.findall(text)) | frozenset(numbers)


@lru_cache(maxsize=64)
def _stopped(lang: str) -> frozenset[str]:
    return stems(" ".join(FUNCTION_WORDS | META_WORDS), lang)


def answer_words(sentence: str, question: str, lang: str = "en") -> frozenset[str]:
    """What ``sentence`` says beyond ``question``: its :func:`stems` and digit runs that the
    question lacks, without function and prompt words ("passage", "according")."""
    return _terms(sentence, lang) - _terms(question, lang) - _stopped(lang)


_YES_NO_QUESTION = re.compile(r"^\W*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b"
                              r"|\sли\b", re.I)


def yes_no_question(question: str) -> bool:
    """Whether ``question`` asks yes or no ("Are both ...?", "Is ...?", "... ли ...?"): a sentence
    restating it answers it."""
    return bool(_YES_NO_QUESTION.search(question))


def carried(sentence: str, text: str, question: str, lang: str = "en") -> bool:
    """Whether ``text`` keeps what ``sentence`` says beyond ``question``: at least half of its
    :func:`answer_words` occur in ``text`` (a sentence with none is carried)."""
    need = answer_words(sentence, question, lang)
    if not need:
        return True
    return len(need & _terms(text, lang)) * 2 >= len(need)


def invented(full: str, fragment: str, question: str, lang: str = "en") -> frozenset[str]:
    """The answer words of a claim rewrite ``full`` that neither ``fragment`` nor ``question`` has
    ("The Lakers have won the NBA Finals 6 times" from "According to Document": {"6", "nba", ...});
    empty when the rewrite only restates them."""
    return answer_words(full, question, lang) - answer_words(fragment, question, lang) - _terms(fragment, lang)


def content_free(text: str) -> bool:
    """Whether ``text`` (citation marks removed) has no word beyond prompt words and words of 3
    letters or fewer ("According to Document [4]", "[2] a"): nothing a rewrite could make a claim
    of. Numbers, "Yes" and "No" (the answer to a yes/no question) are content."""
    ws = [w.lower() for w in re.findall(r"\w+", strip_citations(text))]
    return all(w in META_WORDS or (len(w) <= 3 and not w.isdigit() and w not in _YES_NO) for w in ws)


def adds(sentence: str, sources: str, question: str, lang: str = "en") -> str | None:
    """Why a refined ``sentence`` says more than the verified ``sources`` it merges (stage 3
    adds nothing), or None when it does not:

    - "new words": fewer than half of its :func:`answer_words` occur in ``sources``;
    - "no answer": it has no answer words but talks about the prompt ("Based on the provided
      answer statements, the highest goals are as follows").
    """
    if not answer_words(sentence, question, lang):
        talk = {w.lower() for w in re.findall(r"\w+", sentence)} & META_WORDS
        return "no answer" if talk else None
    return None if carried(sentence, sources, question, lang) else "new words"


#: the lower-case words a run of names may hold ("A and B", "the Bay of Bengal")
_NAME_JOINERS = frozenset({"and", "or", "of", "the", "a", "an", "&"})


def names_only(text: str) -> bool:
    """Whether ``text`` (an English sentence, citation marks removed) is three words or more of names only, joined
    by "and", "of", "the" ('"Yodel It! and "Shake It Off!', a splice of the model's talk): no lower-case word
    beyond those, so no verb; it states nothing. A "Yes" or "No" opening is an answer, not a name."""
    words = re.findall(r"[^\W\d_][\w'’-]*", text)
    if len(words) < 3 or words[0].casefold() in ("yes", "no") or not all(w.isascii() for w in words):
        return False
    return all(w[0].isupper() or w in _NAME_JOINERS for w in words)
