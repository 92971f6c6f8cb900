"""Altered copies: a claim that copies a document sentence word for word but for one change that reverses it.

A small LLM extracting facts copies well and slips in two ways the checker passes (the claim shares nearly every word
with its premise): it leaves out the sentence's negation ("This technology would not actually propel the ship to speeds
exceeding light" -> "The Alcubierre drive uses this technology to propel the ship to speeds exceeding light"), or puts
a name from elsewhere in the document where the sentence has another ("REM is probably the most important sleep stage
..." -> "N3 stage is the most important sleep stage ...", "N3 stage" a heading of the same document; "... played 62 games
in the National Hockey League" -> "... played in the American Hockey League"), or splices in a number from another
sentence ("... since the 109th Congress" -> "... since the 109th Congress of 1929 -- 1931"). English only.
"""
from __future__ import annotations

import re
from difflib import SequenceMatcher

from .content import stems
from .entities import COMMON
from .splitter import split_sentences

#: a claim copies a sentence when at least this many of its words are that sentence's, in order, and ...
MIN_COPIED = 6
#: ... at least this share of its words (a dropped negation); a swapped name needs the higher share
NEGATION_SHARE = 0.6
SWAP_SHARE = 0.7
#: a dropped negation is a short run of the sentence's words ("would not actually"), not a clause left out
NEGATION_RUN = 4
#: words that negate what follows them
_NEGATIONS = frozenset("not never no n't cannot neither nor none nothing".split())
#: words a copy may put a name in place of: resolving a pronoun is no swap ("He played ..." -> "Sullivan played ...")
_PRONOUNS = frozenset("he she it they his her its their this these that those him them".split())
_WORD = re.compile(r"n't|[A-Za-z0-9](?:[\w'’.-]*\w)?")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.replace("n't", " n't"))


def _named(word: str, first: bool) -> bool:
    """Whether ``word`` reads as a name or number: capitalised and not a common word, or with a digit; a sentence's
    first word only when written in capitals or with a digit ("REM", not "Raw")."""
    if len(word) < 2:
        return False
    if any(c.isdigit() for c in word):
        return True
    if first:
        return word.isupper()
    return word[:1].isupper() and word.lower() not in COMMON and word.lower() not in _PRONOUNS


def _has(word: str, text: str) -> bool:
    return bool(re.search(rf"(?<!\w){re.escape(word.lower())}(?!\w)", text.lower()))


def altered_copy(claim: str, premise: str, subject: str = "", lang: str = "en") -> tuple[str, str]:
    """Why ``claim`` is an altered copy of a sentence of ``premise`` (its cited documents' text), "" when it is not.

    The sentence is the one sharing the most words with the claim, in order (:class:`difflib.SequenceMatcher` over
    lower-cased words); the claim copies it when at least :data:`MIN_COPIED` of its words and a share of them are
    that sentence's. It is altered when (a) the claim has no negation and a run of at most :data:`NEGATION_RUN` of
    the sentence's words holding one is left out or replaced inside the copied part or just before it
    (:data:`NEGATION_SHARE`); or (b) the sentence's name or number (a capitalised word not common, a word with a
    digit; the sentence's first word only in capitals: "REM", not "Raw") is replaced by a name or number of the claim
    that the sentence does not have, that is no part of it ("GOG.com" for "GOG"), that the premise has elsewhere
    (a name found nowhere is the entity guard's), and that ``subject`` (the cited documents' titles and opening
    sentences) does not name (:data:`SWAP_SHARE`); a replaced run holding a pronoun is a pronoun resolved, no swap; or
    (c) the claim adds to the sentence, after its first word, a number the sentence lacks and the premise has elsewhere
    (:data:`SWAP_SHARE`: "... for the first time since the 109th Congress of 1929 -- 1931", the years of the 71st
    Congress in the next sentence).

    Args:
        claim: the sentence checked, citation marks removed.
        premise: the text of the documents it cites.
        subject: their titles and opening sentences: whom a document's pronouns and its own name stand for.
        lang: "en"; other languages give "".

    Returns:
        (a short reason naming what was changed and the sentence copied, that sentence as the premise gives it: what
        the claim is shown as instead), or ("", "") when it is no altered copy.
    """
    if lang != "en":
        return "", ""
    said = _words(claim)
    low = [w.lower() for w in said]
    sentences = split_sentences(premise, lang)
    best = _closest(low, sentences)
    if best is None or best[0] < MIN_COPIED:
        return "", ""
    copied, words, m, sentence = best
    source = [w.lower() for w in words]
    blocks = [b for b in m.get_matching_blocks() if b.size]
    first, last = blocks[0].a, blocks[-1].a + blocks[-1].size
    ops = m.get_opcodes()
    if copied >= NEGATION_SHARE * len(low) and not _NEGATIONS & set(low):
        for op, i1, i2, _, _ in ops:
            if op in ("delete", "replace") and i2 - i1 <= NEGATION_RUN and i1 >= first - 3 and i2 <= last \
                    and _NEGATIONS & set(source[i1:i2]):
                return f"leaves out {' '.join(words[i1:i2])!r} of {sentence!r}", sentence
    if copied < SWAP_SHARE * len(low):
        return "", ""
    for op, i1, i2, j1, j2 in ops:
        if op == "insert" and j1 > 0:  # a number spliced in from another sentence ("the 109th Congress of 1929 -- 1931")
            added = [w for w in said[j1:j2] if any(c.isdigit() for c in w) and w.lower() not in source
                     and _has(w, premise) and not _has(w, subject)]
            if added:
                return f"adds {' '.join(added)!r} to {sentence!r}", sentence
        if op != "replace" or _PRONOUNS & set(source[i1:i2]):
            continue
        theirs = [words[k] for k in range(i1, i2) if _named(words[k], k == 0)]
        ours = [w for w in said[j1:j2] if _named(w, False) and w.lower() not in source
                and not any(t.lower() in w.lower() or w.lower() in t.lower() for t in theirs)
                and _has(w, premise) and not _has(w, subject)]
        # another sentence naming ours and saying more of the claim is what it restates ("The state senate comprises
        # 36 members" for "The Connecticut State Senate is composed of 36 members")
        rest = stems(claim, lang) - stems(" ".join(ours), lang)
        ours = [w for w in ours if not any(_has(w, other) and len(stems(other, lang) & rest) >= 2
                                           for other in sentences if other != sentence)]
        if theirs and ours and not any(t.lower() in low for t in theirs):
            return f"puts {' '.join(ours)!r} in place of {' '.join(theirs)!r} of {sentence!r}", sentence
    return "", ""


def _closest(low: list[str], sentences: list[str]) -> tuple[int, list[str], SequenceMatcher, str] | None:
    """The one of ``sentences`` sharing the most words, in order, with the lower-cased words ``low``: (how many,
    its words, their matcher, the sentence); None when there is none."""
    best: tuple[int, list[str], SequenceMatcher, str] | None = None
    for sentence in sentences:
        words = _words(sentence)
        m = SequenceMatcher(None, [w.lower() for w in words], low, autojunk=False)
        copied = sum(b.size for b in m.get_matching_blocks())
        if best is None or copied > best[0]:
            best = (copied, words, m, sentence)
    return best


def opening(text: str, lang: str = "en") -> str:
    """``text``'s first sentence when it says something (four words or more), "" for a heading ("N3 stage.")."""
    first = next(iter(split_sentences(text, lang)), "")
    return first if len(first.split()) >= 4 else ""
