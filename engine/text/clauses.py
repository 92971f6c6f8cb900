"""A long document sentence shown as its leading clauses (English): what stage 3's ``trim_words`` rule
proposes, and the final check then checks, before a long quoted sentence reaches the answer.

A sentence copied from a document often carries far more than the answer needs ("Oz the Great and
Powerful is a 2013 American fantasy adventure film directed by Sam Raimi and produced by Joe Roth, from
a screenplay written by David Lindsay-Abaire and Mitchell Kapner"). Its leading clauses say less, and
what they say the document still says: a sentence is cut only after a whole clause, before a clause
that adds to it (", which ...", ", who ...", ", and was ...", ", known as ...", ", best known for ...",
", along with ...", ", from a ...", a participle, an aside opening with "the" or a preposition), or, without
a comma, after "is a/an <noun>" before what restricts the noun ("a former tennis player from Australia who
is ...", "a 1973 comedy film set in ...": "X is a P who Q" says "X is a P"; never after "the", "only",
"first" or a superlative); never before the next item of a list ("formed by vocalist Mark Lanegan,
guitarist Gary Lee Conner, ...": the list is what it says), never inside brackets or quotes, never after
a clause that an "if", "that", "unlike" or "but" leaves open, nor in a sentence opening with one
("Although ..."). An aside in brackets that says nothing a reader needs (empty, another language's name,
an abbreviation, lower-case words; never a name or a number) goes too. Nothing is cut that holds a word
the caller keeps (the question's, the answer's) or, when the question asks for a date or number, a number. A
closing list of examples ("including A, B, C and D") may keep only its items holding those words (:func:`examples_kept`).
"""
from __future__ import annotations

import re

from .content import stems

#: a clause that adds to the one before it (after a comma, or any after a semicolon: "..., the Celtics 17, the Lakers
#: 16; together, the 33 championships account for ..."): where the sentence may end
_ADDED = re.compile(r";\s+|,\s+(?=(?:which|who|whom|whose|where|and\s+(?:is|was|are|were|has|had|have|became|also|later)\b"
                    r"|(?:also\s+)?known\s+as\b|(?:(?:perhaps|probably|mostly|primarily|widely)\s+)?(?:formerly|better|best)\s+known\b|with\b|from\s+(?:a|an|the|her|his|their)\b"
                    r"|including\b|(?:along|together)\s+with\b|[a-z]+ing\b|[a-z]+ed\s+by\b|located\b|based\b|founded\b"
                    # a contrast ("..., although the RSSSF recognizes only 767 goals ..."): what comes before stands alone
                    r"|(?:although|though|whereas|while|but)\b"
                    # an aside ("..., the capital city of the Philippines", "..., near the Marne River"); never
                    # the next item of a list (", guitarist Gary Lee Conner, bass player ...": what the list says)
                    r"|(?:the|a|an|one|near|in|on|at|during|for|after|before|under|as|to|into|off|along|about|over|"
                    r"through|within|without|following)\b))")
#: a clause these open is left open by a comma: the sentence may not end after it
_OPEN = re.compile(r"\b(?:that|unlike|if|although|though|while|whereas|because|when|since|as|but|between|both|"
                   r"either|neither|not only|from)\b", re.I)
#: a word that opens a noun phrase or points back: what follows a semicolon is a clause, not a list's rest
_CLAUSE_WORD = re.compile(r"\b(?:the|a|an|this|these|those|its|their|his|her|he|she|it|they)\b")
#: a finite verb (roughly): the leading clauses must say something of their subject
_VERB = re.compile(r"\b(?:is|are|was|were|has|had|have|became|becomes|won|wrote|made|led|ran|took|gave|stars|features|"
                   r"[a-z]{3,}ed)\b")
#: a question about a date or a number: a number later in the sentence may be what it asks
_NUMBERS = re.compile(r"\b(?:when|year|years|date|first|earlier|earliest|later|latest|last|older|oldest|younger|youngest|"
                      r"born|died|how|more|most|fewer|less|larger|largest|higher|highest|longer|longest|population|"
                      r"century|age|number|many|much)\b", re.I)
_SUBORDINATE = re.compile(r"\W*(?:although|though|while|when|whenever|if|unless|because|since|as|after|before|unlike|"
                          r"despite|whereas|once)\b", re.I)
#: where a predicate "is a/an ..." may end without a comma: before what restricts its noun ("a former tennis
#: player from Australia who is one of ...", "a 1973 Disney comedy film set in ...", "a 2010 film directed by ...");
#: "X is a P who Q" says "X is a P" (not so for "the only P who Q": no "the", "only", "first", "-est" before it)
_INDEFINITE = re.compile(r"\s(?:is|was|are|were)\s+an?\s+(?P<np>[^,;()\"“]+?)\s(?=(?:who|which|that|whose|starring|"
                         r"featuring|set\s+in|[a-z]+ed\s+by|[a-z]+ing\s+(?:a|an|the|his|her|their)\b)\b)")
_UNIQUE = re.compile(r"\b(?:the|only|first|last|sole|second|third|[a-z]+est)\b", re.I)
_ASIDE = re.compile(r"\s*\([^()\d]*\)")
#: an aside opening with nothing before its first ";" or ",": "( ; October 8, 1939 – July 12, 2010)", "(,; 8 June 1829 ...)"
_EMPTY_LEAD = re.compile(r"\(\s*(?:[;,]\s*)+(?=[^\s;,)])")
_EMPTY_ASIDE = re.compile(r"\s*\([^()\w]*\)")
#: "Pierre Charles Bouvier {'1': ", '2': ", '3': ", '4': "} (born 9 May 1979)": a pronunciation template's leftover
#: in Wikipedia dumps (HotpotQA's among them)
_TEMPLATE_LEFTOVER = re.compile(r"\s*\{'\d+':\s*\"(?:,\s*'\d+':\s*\")*\}")
_ENDS_SMALL = re.compile(r"\b(?:and|or|of|the|a|an|to|in|on|at|by|for|with|as|&)$", re.I)
MIN_WORDS = 6  # the leading clauses: at least this many words


def _idle(aside: str) -> bool:
    """Whether an aside in brackets says nothing a reader of the answer needs: empty ("(; ] )"), a name in another
    language or its sound ("(Pashto: ...)", "(pronounced ...)"), an abbreviation ("(NSA)"), or lower-case words
    ("(cedar oil)"); a name ("(Adam Sandler)", who plays him) is what it says."""
    inner = aside.strip()[1:-1].strip(" ;,]")
    return (not re.search(r"[^\W\d_]", inner) or bool(re.match(r"(?:[A-Z][A-Za-z]+\s*:|pronounced\b|also\b)", inner))
            or bool(re.fullmatch(r"[A-Z]{2,6}", inner)) or not re.search(r"[A-Z]", inner))


def _new_numbers(text: str, given: frozenset[str]) -> set[str]:
    """The digit runs of ``text`` not in ``given``."""
    return set(re.findall(r"\d+", text)) - given


def asks_number(question: str) -> bool:
    """Whether ``question`` asks for a date or a number, or compares by one (a number in a cut clause may be it)."""
    return bool(_NUMBERS.search(question))


def leading_clauses(sentence: str, keep: frozenset[str], numbers: bool, longer: int,
                    given: frozenset[str] = frozenset()) -> str:
    """``sentence`` (str, no citation marks, ending with its full stop) without an empty aside ("( ; ] )") or a
    pronunciation template's leftover ("{'1': ", '2': "}"), and
    shortened when it has more than ``longer`` words: asides in brackets that say nothing a reader needs and
    hold no digit or ``keep`` stem removed ("(Pashto: ...)"), then, when still longer, cut before the first
    clause that adds to the ones before it (or restricts an indefinite predicate's noun) and holds no ``keep``
    stem (:func:`~vericite.engine.text.content.stems`) nor, with ``numbers``, a number when the clauses kept hold
    none (numbers in ``given``, the question's own digit runs, count for neither: "a remake of the 2002 Hong Kong film
    ..., in 2006" keeps its year for "What year did ... star in ... a remake of the 2002 Hong Kong film ...?"); the
    leading clauses hold at
    least :data:`MIN_WORDS` words and a verb, close every bracket and quote, and end with a full stop.

    Returns:
        The shortened sentence, or ``sentence`` itself (without an empty aside) when it is not longer than
        ``longer`` words or nothing may go.
    """
    # an empty aside ("Tenerife ( ; ] ) is ...", the trace of a pronunciation a page dropped) goes at any length, and
    # so does a pronunciation template's leftover ("{'1': ", '2': "}")
    sentence = re.sub(r"\s+([,.;:])", r"\1", _EMPTY_ASIDE.sub("", _TEMPLATE_LEFTOVER.sub("", sentence)))
    sentence = _EMPTY_LEAD.sub("(", sentence)  # "( ; October 8, 1939 - ...)": a dropped pronunciation's leftover
    if len(sentence.split()) <= longer:
        return sentence
    out = _ASIDE.sub(lambda m: "" if _idle(m.group(0)) and not stems(m.group(0)) & keep else m.group(0), sentence)
    out = re.sub(r"\s+([,.;:])", r"\1", out)
    if len(out.split()) <= longer:
        return out
    if _SUBORDINATE.match(out):  # "Although ..., the third single, ..., reached #9": no clause before the main one ends it
        return out
    cuts = sorted([(m.start(), m.end(), True) for m in _ADDED.finditer(out)]
                  + [(m.end(), m.end(), False) for m in _INDEFINITE.finditer(out) if not _UNIQUE.search(m.group("np"))])
    for start, end, comma in cuts:
        head, tail = out[:start].rstrip(), out[end:]
        if head.count("(") != head.count(")") or head.count('"') % 2 or head.count("“") != head.count("”"):
            continue
        if len(head.split()) < MIN_WORDS or not _VERB.search(head) or _ENDS_SMALL.search(head):
            continue
        last = re.split(r"[,;(]", head)[-1]  # the clause the cut would end
        if comma and (_OPEN.search(last) or len(last.split()) < 3):  # left open; or a list's item ("rock, R&B, and soul")
            continue
        if out[start] == ";" and not (_VERB.search(tail) or _CLAUSE_WORD.search(tail)):
            continue  # a list's rest, not a clause ("soul singer; keyboardist, guitarist, songwriter and producer")
        if (stems(tail) & (keep - stems(head))) or (numbers and _new_numbers(tail, given)
                                                    and not _new_numbers(head, given)):
            continue  # the cut clause says what the question or the answer needs (a number, when the rest gives none)
        return head.rstrip(" ,;:") + "."
    return out


#: a list of examples running to the sentence's end: "..., including river pirates ..., serial killers/bandits the Harpe
#: brothers, ... and the Sturdivant Gang." ("such as", "among them", "notably" likewise)
_EXAMPLES = re.compile(r"(?P<cue>,?\s+(?:including|such\s+as|among\s+them|notably)\s+)(?P<items>[^;()]+?)(?P<end>\.)$")
#: the separators of a list's items: a comma, "and"/"or" after one or between the last two
_ITEM_SEP = re.compile(r",\s+(?:and\s+|or\s+)?|\s+(?:and|or)\s+(?=[^,]*$)")
#: a list of examples shortened to the items it must keep has at least this many items, each of at most this many words
MIN_EXAMPLES, MAX_ITEM_WORDS = 4, 10
#: what a plain list of names holds not: quoted titles, whose commas part no items ('"How I Raised, Folded, ..."'),
#: and a clause of its own after it (", and she published her autobiography")
_NOT_A_LIST = re.compile(r"[\"“”«»]|\b(?:he|she|it|they|who|which|that|his|her|its|their)\b")


def examples_kept(sentence: str, keep: frozenset[str]) -> str:
    """``sentence`` with its closing list of examples ("including A, B, C and D", "such as ...") cut to the items
    holding the most ``keep`` stems (:func:`~vericite.engine.text.content.stems`: the question's and the answer's):
    "Cave-In-Rock was originally a stronghold for outlaws, including serial killers/bandits the Harpe brothers." of a
    list of ten outlaws. Examples are some of many: any of them is still said. Unchanged when the list has fewer than
    :data:`MIN_EXAMPLES` items or one longer than :data:`MAX_ITEM_WORDS` words, holds a quote or a clause
    (:data:`_NOT_A_LIST`), no item holds a ``keep`` stem, or every item holds as many."""
    m = _EXAMPLES.search(sentence)
    if not m or _NOT_A_LIST.search(m.group("items")):
        return sentence
    items = [i.strip() for i in _ITEM_SEP.split(m.group("items")) if i.strip()]
    if len(items) < MIN_EXAMPLES or any(len(i.split()) > MAX_ITEM_WORDS for i in items):
        return sentence
    held = [len(stems(i) & keep) for i in items]
    best = max(held)
    chosen = [i for i, h in zip(items, held) if h == best]
    if not best or len(chosen) == len(items):
        return sentence
    listed = chosen[0] if len(chosen) == 1 else ", ".join(chosen[:-1]) + " and " + chosen[-1]
    return sentence[:m.start("items")] + listed + m.group("end")
