"""The relation a question asks for, and the words a document states it with (English).

A two-hop question ("Who is the spouse of the actress who played the Fairy Godmother in Shrek 2?")
asks a relation ("spouse") of someone its first hop names; documents state the relation in their
own words ("Saunders is married to Adrian Edmondson"). :func:`asked` reads the relations off the
question; :func:`states` tells whether a sentence states one of them. Words are compared as
Snowball stems (:func:`~vericite.engine.text.content.stems`). Only English has a table: for other
languages nothing is asked, and the rules that use it change nothing.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .content import stems

#: a relation word of a question -> the words a document may state it with (itself included)
RELATIONS: dict[str, str] = {
    "spouse": "spouse married marry wife husband widow partner",
    "wife": "wife married marry spouse",
    "husband": "husband married marry spouse",
    "married": "married marry wife husband spouse partner",
    "father": "father son daughter",
    "mother": "mother son daughter",
    "parent": "parent father mother",
    "child": "child children son daughter",
    "sibling": "sibling brother sister",
    "brother": "brother",
    "sister": "sister",
    "born": "born birth birthplace native",
    "birthplace": "born birth birthplace native",
    "died": "died death",
    "death": "died death",
    "employer": "employer employed worked professor",
    "founder": "founder founded established",
    "founded": "founder founded established",
    "director": "director directed",
    "directed": "director directed",
    "author": "author wrote written writer songwriter screenwriter lyricist",
    "wrote": "author wrote written writer songwriter screenwriter lyricist",
    "president": "president",
    "charge": "charge president leader governor ruler king queen monarch emperor premier chancellor minister",
    "capital": "capital",
    "tributary": "tributary",
    "crowned": "crowned coronation",
    "population": "population inhabitants residents",
    "based": "based headquartered headquarters",
    "headquartered": "headquartered headquarters based",
    "headquarters": "headquarters headquartered based",
    "prominence": "prominence prominent",
    "work": "work worked employ employed employer employee staff",
    "employees": "employee employed employer staff work",
    "games": "game match matchday fixture",
    "owner": "owner owned parent subsidiary",
    "created": "created creator",
    "creator": "creator created",
}


#: "president of India": a relation of a name the question gives; not of one it describes by a name ("the spouse of
#: the Green performer", "the wife of Here Comes the Boom's screenwriter": the performer's, the screenwriter's)
_OF_NAMED = re.compile(r"\b([a-z]+) of (?:the )?[A-Z](?![\w'’.&-]*(?:\s+(?:[A-Z0-9][\w'’.&-]*|of|the|and|a))*(?:'s|’s)?"
                       r"\s+[a-z]{2,}(?:er|or|ist|ian|ant|man|woman|star|member)s?\b)")
#: "a sitcom created by Kim Bass": the relation of a name the question gives, the hop that describes what it asks of
_BY_NAMED = re.compile(r"\b([a-z]{3,}ed)\s+by\s+(?:the\s+)?[A-Z]")
#: "Henrietta Ponsonby's father": the relation of a name the question gives, a hop when it asks another of that one
_POSSESSED = re.compile(r"[A-Z][\w.-]*(?:'s|’s)\s+([a-z]+)\b")
#: "What is the enrollment at the school that ...", "What was the nickname of the ...", "Who is the writer for the
#: sitcom ...": the noun the question asks
#: for, right after its wh-word, copula and "the", followed by what it is asked of
_WHAT_IS_THE, _ASKED_OF = r"^\W*(?:what|which|who)\s+(?:is|was|are|were)\s+the\s+", r"\s+(?:of|at|in|for|from)\s"
#: ("What is the record label of ...": the last of up to three words, "label")
_ASKED_NOUN = re.compile(_WHAT_IS_THE + r"((?:[a-z]+\s+){0,2}?)([a-z]{4,})" + _ASKED_OF, re.I)
#: "Which county does Lloyd Dane's birthplace belong to?": the noun after the wh-word, before its verb; one word
#: may describe it ("Which NFL team did ..."), and with one a verb in the past may follow ("What movie studio
#: produced ...": "Which movie directed by ..." asks the film, whose documents say "film")
_WH_NOUN = re.compile(r"^\W*(?:what|which)\s+(?:(?:[A-Za-z]+\s+)?((?-i:[a-z]{4,}))\s+(?:does|did|do|is|was|are|were)"
                      r"|[A-Za-z]+\s+((?-i:[a-z]{4,}))\s+(?-i:[a-z]{3,}ed))\s", re.I)
#: "... the final major offensive of the European theatre of what war?": the noun asked at the question's end
_END_NOUN = re.compile(r"\b(?:what|which)\s+((?-i:[a-z]{3,}))\s*\?\s*$", re.I)
#: "How many variants are there of the aircraft that ...?": the noun counted
_HOW_MANY = re.compile(r"^\W*[Hh]ow\s+many\s+([a-z]{4,})\b")  # lower case: "How many UEFA ..." counts no noun
#: "What is the name of the film adaptation starring ...": the name is what is asked, the described one's relation
#: ("starring") what a sentence states it with
_NAME_OF = re.compile(r"^(\W*(?:what|which)\s+(?:is|was|are|were)\s+)the\s+(?:name|title)\s+of\s+(?=the\s)", re.I)
#: a film's cast asked as a verb ("starring", "starred", "stars Jeff Bridges", "star in"), not a noun ("a five star
#: hotel", "the NBA All-Star Game"): the relation asked when the question names no other
_STARRING = re.compile(r"(?<![\w-])(?:starr(?:ed|ing)|stars(?=\s+(?:[A-Z]|an?\s|the\s|with\s))|star(?=\s+in\s))\b")
#: words before a wh-word that name no relation ("... is a member of what ...", "... there are how many ...")
_NOT_RELATIONS = frozenset({"member", "part", "there", "were", "have", "that", "this", "from", "into", "with", "also"})
#: kinds of time: "What year did ... die?" asks the relation the question names, in a year
_WHEN = frozenset({"year", "years", "date", "time", "month", "decade", "century", "season", "period", "number"})
#: the same with up to two words before the noun: "the population density of ..."
_ASKED_PHRASE = re.compile(_WHAT_IS_THE + r"((?:[a-z]+\s+){0,2}[a-z]{4,})" + _ASKED_OF, re.I)


#: "... in the city where Arna Selznick's employer is headquartered", "... the county in which X was born": a place
#: the question describes by its own relation, a hop on the way, to the question's end; not one holding the
#: question's "what" or "how many" ("... a spaceport where test flights are carried out by a company headquartered in
#: what state?"; a "which" there is mostly relative: "... the series after which the MVP is awarded")
_WHERE_CLAUSE = re.compile(r"(?<=\w)\s+(?:where|in\s+which)\s(?!.*\b(?:what|how\s+many)\b).*$", re.I | re.S)
#: a question that does not open with its wh-word ("... a book that sold how many copies?", "... a series that
#: premiered on what month and day?"): the word before it, with its preposition, is the relation asked; with "how
#: many", the noun counted too
_BEFORE_WH = re.compile(r"(?<![\w'’-])((?-i:[a-z]{4,}))\s+(?:(?:in|on|for|of|at|by|from|to|with|into|during)\s+)?"
                        r"(?:what|which|how\s+many\s+((?-i:[a-z]{4,})))\b", re.I)
#: "... has written an autobiography titled what?": the noun a name is asked of, which a document states it with ("she
#: published her autobiography, "How I Raised ..."", not "a title now held by ...")
_NAMED_WHAT = re.compile(r"(?<![\w'’-])((?-i:[a-z]{4,}))\s+(?:titled|entitled|named|called)\s+(?:what|which)\b", re.I)
_OF_A_HOP = re.compile(r"\b(?:that|who|whom|whose|which|where)\b|^\W*(?:the|a|an)\s", re.I)
_WH_FIRST = re.compile(r"^\W*(?:what|which|who|whom|whose|when|where|why|how)\b", re.I)


@lru_cache(maxsize=1)
def _table() -> dict[str, frozenset[str]]:
    out: dict[str, frozenset[str]] = {}
    for key, words in RELATIONS.items():
        for k in stems(key):
            out[k] = out.get(k, frozenset()) | stems(words)
    return out


def asked(question: str, lang: str = "en") -> frozenset[str]:
    """The stems a sentence may state the question's relations with: the table's words for the relations
    it names, else the noun it asks for ("What is the enrollment at the school that owns ...?" -> "enrollment"; a
    document states it with that word) or counts ("How many variants are there of ...?" -> "variant"); the kind
    a "Which county does ...?" asks for before any ("county": the birthplace it names is a hop on the way), or
    the one asked at its end ("... of what war?"); in a question not opening with its wh-word, the word before
    it, in a relative clause or of a subject the question describes ("... a series that premiered on what month and
    day?" -> "premiered"; "... a book that sold how many copies?" -> "sold", "copies"; not "Kevin Watson manages which
    team?"), but the noun before "titled", "named", "called" ("... an autobiography titled what?" -> "autobiography").
    The
    relation of a place the question describes ("... in the city where X's employer is headquartered", "... the
    county in which X was born") is a hop, not asked, and so is the relation of a name the question gives in the
    possessive ("When did Henrietta Ponsonby's father die?": the death), unless nothing else is. "What is the name of
    the castle ..." asks what the castle's words ask ("castle"), not "name"; with nothing else asked, a film's cast
    asked as a verb ("... the film adaptation starring X's daughter") is stated with "star". Empty: it asks none of
    these, or ``lang`` is not English."""
    if lang != "en":
        return frozenset()
    question = _NAME_OF.sub(r"\1", question)  # "What is the name of the film ...": the film's relation is asked
    kind = _WH_NOUN.match(question)
    noun = (kind.group(1) or kind.group(2)) if kind else ""
    if noun and noun.lower() not in _WHEN:  # "Which county does Lloyd Dane's birthplace belong to?": the
        # county is asked, the birthplace a hop ("What year did the author of X die?" asks the death)
        return stems(noun)
    table = _table()
    # a place the question describes by a relation ("the city where X's employer is headquartered") is a hop:
    # its relation is not the one asked ("Where do Greyhound buses leave from in the city where ...?")
    main = _WHERE_CLAUSE.sub("", question)
    # "president of India": a relation of something the question names, not of the one it describes
    of_named = {w for m in _OF_NAMED.finditer(main) for w in stems(m.group(1))}
    if _ASKED_NOUN.match(question):  # "Who is the writer for an American teen sitcom created by Kim Bass?": what it
        # asks of is described by "created by" a name, a hop (not so in "Which movie directed by James Gunn ...?")
        of_named |= {w for m in _BY_NAMED.finditer(main) for w in stems(m.group(1))}
    # "When did Henrietta Ponsonby's father die?": the death is asked, the father a hop (asked when nothing else is)
    possessed = {w for m in _POSSESSED.finditer(main) for w in stems(m.group(1))}
    said = stems(main) - of_named

    def relations(words: frozenset[str]) -> frozenset[str]:
        return frozenset(w for k in words & table.keys() for w in table[k])

    found = relations(said - possessed) or relations(said)
    if found:
        return found
    end = _END_NOUN.search(question)
    if end and end.group(1).lower() not in _WHEN:
        return stems(end.group(1))
    named = _NAMED_WHAT.search(question)
    if named and named.group(1).lower() not in _NOT_RELATIONS:
        return stems(named.group(1))
    before = None if _WH_FIRST.match(question) else _BEFORE_WH.search(question)
    # of a hop only: in a relative clause ("a series that premiered on what ...") or of a subject the question
    # describes ("The musical composer of Manru was a spokesman for what ..."); "Kevin Watson currently manages which
    # team?" asks its subject's own relation, which the first hop states
    if before and before.group(1).lower() not in _NOT_RELATIONS and _OF_A_HOP.search(question[:before.start(1)]):
        word = before.group(1).lower()
        return stems(" ".join(w for w in before.groups() if w)) | table.get(next(iter(stems(word)), ""), frozenset())
    head = _ASKED_NOUN.match(question)
    # the noun asked of a name the question gives ("the nickname of Anthony Corallo") is no relation of a hop;
    # a described time ("the wettest year in ...") is asked in the relation's own words
    if head and not _OF_NAMED.match(question, head.start(2)) and not (head.group(1) and head.group(2).lower() in _WHEN):
        return stems(head.group(2))
    counted = _HOW_MANY.match(question)  # "How many variants ...": a document counts them with that word
    if counted and counted.group(1).lower() not in ("times", "more"):
        return stems(counted.group(1))
    # "... the horror film adaptation starring Melanie Griffith's daughter": the film that stars the one described
    return stems("starring starred stars star") if _STARRING.search(main) else frozenset()


def asked_phrase(question: str, lang: str = "en") -> frozenset[str]:
    """The stems of what the question asks for, as it words it ("What was the population density of ...?" ->
    "popul", "densiti"): of two sentences stating the relation, the one saying all of these says what is asked
    (empty: another question, or ``lang`` is not English)."""
    m = _ASKED_PHRASE.match(question) if lang == "en" else None
    return stems(m.group(1)) if m else frozenset()


#: "Robert Zigler Leonard (October 7, 1889 – August 27, 1968) was ...": a biography opens with the life's
#: span, which states the birth (its first year) without the word "born"; a place may follow each date
#: ("(July 1, 1909, Montevideo – May 30, 1994, Madrid)")
_PLACE = r"(?:,\s*[A-Z][^,()–—]{0,30}?)?"
#: the month names as a regex alternation ("January|...|December"; engine/text/compare.py dates with them)
MONTH = "January|February|March|April|May|June|July|August|September|October|November|December"
#: the dash between the two dates, or a dash a copy lost where the death's full date closes the bracket ("(December
#: 29, 1808 July 31, 1875)")
_SPAN_DASH = (rf"(?:\s*[–—-]|\s*(?=(?:(?:{MONTH})\s+\d{{1,2}},?|\d{{1,2}}\s+(?:{MONTH}))\s+\d{{4}}"
              rf"{_PLACE}\s*\)))")
LIFESPAN = re.compile(rf"\((?:born\s+)?[^()]{{0,24}}?\b\d{{4}}{_PLACE}{_SPAN_DASH}")
#: a span with both years states the death too
_FULL_SPAN = re.compile(rf"\((?:born\s+)?[^()]{{0,24}}?\b\d{{4}}{_PLACE}{_SPAN_DASH}\s*[^()]{{0,24}}?\b\d{{4}}{_PLACE}\s*\)")


#: a deputy's office ("Vice-President of the International Olympic Committee", "vice chairman"): not the office itself
_DEPUTY = re.compile(r"\b(?:vice|deputy)[\s-]+(?=[A-Za-z])", re.I)


def states(sentence: str, wanted: frozenset[str], lang: str = "en") -> bool:
    """Whether ``sentence`` has a word of ``wanted`` (:func:`asked`'s stems), not as a deputy's office ("Vice-President"
    states no president), or, for a birth or death asked, a biography's life span (:data:`LIFESPAN`: "George Abbott
    (June 25, 1887 – January 31, 1995)")."""
    if stems(_DEPUTY.sub("deputy", sentence), lang) & wanted:
        return True
    if wanted & stems("born birth") and LIFESPAN.search(sentence):
        return True
    return bool(wanted & stems("died death") and _FULL_SPAN.search(sentence))


#: the question's own words ("Who directed ...?"), not parts of a compound ("US-based")
_QUESTION_WORD = re.compile(r"(?<![-\w])([A-Za-z]+)(?![-\w])")
#: relations a document may state with "by NAME" alone ("a 1943 painting by the British painter Laura Knight",
#: "the novel of the same name by Hunter Davies"): the maker of a work
_MADE_BY = frozenset(stems("author wrote director directed creator created founder founded"))
#: "by" and the six words after it, where the name is ("by the British painter Laura Knight"), after a noun ("a
#: painting by") or a participle of making ("composed by"), not of another act ("performed by Audrey Hepburn")
_BY_NAME = re.compile(r"(?:\b(?:written|directed|created|founded|painted|composed|authored|designed|produced|drawn|"
                      r"illustrated|established)|(?<![a-z]ed)(?<![a-z]en))\s+by((?:\s+[\w'’.-]+){1,6})")
#: relation words of the table the guard leaves alone: "How do remotes work?" asks how they function
_NOT_GUARDED = frozenset(stems("work"))


def unstated(claim: str, question: str, premise: str, lang: str = "en") -> str:
    """The relation word of ``question`` that ``claim`` states and ``premise`` (the cited documents' text) never
    states in any of its words (:data:`RELATIONS`), "" when there is none: "John Arledge directed the 1940 film
    The Grapes of Wrath" for "Who directed the 1940 film in which John Arledge appeared?" from a document saying
    he played a role in it ("directed"), "Fawell was born in West Chicago High School" from one saying he is a
    graduate of it ("born"). The checker, reading a document that names both things, passes such a relation;
    a document that states the relation in no word of its own cannot say it. A biography's life span states
    a birth (and, with both years, a death: :func:`states`); "by NAME" states the maker of a work when the
    claim names NAME and the question does not ("a 1943 painting by the British painter Laura Knight").
    English only: "" for other languages."""
    if lang != "en":
        return ""
    table = _table()
    said = stems(claim)
    for key in _guarded(question):
        wanted = table[key]
        if not said & wanted or states(premise, wanted):
            continue
        if wanted & _MADE_BY and _made_by(claim, question, premise):
            continue
        return key
    return ""


#: an act's participle ("directed", "co-written", "sung") or a run of them ("produced and directed"), "by" and the
#: names of who did it, after at most three lower-case words ("by the British painter Laura Knight", "by Y and X")
_PARTICIPLE = r"(?:[A-Za-z-]+ed|[A-Za-z-]*(?:written|drawn|sung|built|shot))"
_BY_AGENT = re.compile(rf"\b(?P<acts>{_PARTICIPLE}(?:\s*(?:,|and|&)\s*{_PARTICIPLE})*)\s+by\s+(?:(?:the|a|an|[a-z]+)\s+){{0,3}}?"
                       r"(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*(?:,?\s+(?:and|&)\s+[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*)*)")
#: a name and the act it did, in the past ("Joachim Trier produced the 2015 film ...", "Greg Mottola co-wrote ...")
_AGENT_ACTS = re.compile(rf"(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*)\s+(?:also\s+)?"
                         rf"(?P<acts>(?:co-)?(?:{_PARTICIPLE}|wrote|drew|sang|built|shot|made|led|ran))\b")
#: words either side of a name in which a document may state the act as its own ("Trier produced", "producer Trier")
_AGENT_WINDOW = 3
#: the acts :func:`swapped_act` weighs, each with the words that state it: making a work, working on one ("Warren
#: Spector worked on the origins of Mickey Mouse" of "... a video game designed by Warren Spector"), or performing in
#: one (a cast's "starred", "portrayed by", "played" are one act); a name's other deeds ("passed away", "gained
#: control", "sided with", "picked", a team's "selected by") have words no table could list: left to the checker
_ACTS = ("wrote written writer author songwriter screenwriter lyricist", "directed director", "produced producer",
         "created creator", "designed designer", "composed composer", "founded founder established", "painted painter",
         "drew drawn illustrated illustrator", "worked", "performed performer played sang sung singer starred portrayed voiced")


def swapped_act(claim: str, question: str, premise: str, lang: str = "en") -> str:
    """The act of ``question`` (a participle the claim puts before "by NAME": "produced", or after it: "NAME
    produced") that ``claim`` gives a name the documents (``premise``) give only another act: "... was produced by
    Joachim Trier" where the document says "... drama film directed by Joachim Trier" (the checker, reading a document
    that says "co-produced" and "Joachim Trier", passes it); "" when the documents name no act by that name, state
    the act of it ("produced and directed by Joachim Trier", "Trier produced ...", "producer Joachim Trier"), or the
    act is not the question's. English only."""
    if lang != "en":
        return ""
    asked_acts = _acts_named(stems(question))
    for m in [*_BY_AGENT.finditer(claim), *_AGENT_ACTS.finditer(claim)]:
        acts = _acts_named(stems(m.group("acts"))) & asked_acts
        surname = _name_words(m.group("name"))[-1]
        if not acts or len(surname) < 3:
            continue
        given = [stems(g.group("acts")) for g in _BY_AGENT.finditer(premise) if surname in _name_words(g.group("name"))]
        if not given or any(g & acts for g in given):
            continue
        words = re.findall(r"[\w'’-]+", premise)
        near = [stems(" ".join(words[max(0, k - _AGENT_WINDOW):k] + words[k + 1:k + 1 + _AGENT_WINDOW]))
                for k, w in enumerate(words) if w == surname]
        if not any(n & acts for n in near):
            return m.group("acts")
    return ""


def _name_words(name: str) -> list[str]:
    """The words of a name run up to the first that ends a sentence ("Joachim Trier. The" -> Joachim, Trier; an
    initial's stop, "J. R. R. Tolkien", ends none)."""
    out = []
    for w in name.split():
        out.append(w.rstrip("."))
        if w.endswith(".") and len(w) > 2:
            break
    return out


@lru_cache(maxsize=1)
def _act_table() -> tuple[frozenset[str], ...]:
    """:data:`_ACTS` as stems, one set per act."""
    return tuple(stems(words) for words in _ACTS)


def _acts_named(words: frozenset[str]) -> frozenset[str]:
    """The stems of every act of :data:`_ACTS` one of ``words`` (stems) states ("wrote": "written", "author",
    "writer"); empty when they state none."""
    return frozenset().union(*(act for act in _act_table() if act & words))


@lru_cache(maxsize=64)  # one question, many claims
def _guarded(question: str) -> tuple[str, ...]:
    """The keys of :data:`RELATIONS` that ``question``'s own relation words give (:func:`_relation_word`), sorted, less
    :data:`_NOT_GUARDED`."""
    keys = {k for w in _QUESTION_WORD.findall(question) if _relation_word(w.lower()) for k in stems(w)}
    return tuple(sorted((keys & _table().keys()) - _NOT_GUARDED))


def _relation_word(word: str) -> bool:
    """Whether ``word`` is a key of :data:`RELATIONS` or one with a plural or past ending ("fathers", "founded"):
    not another word of the same stem ("direction", "directly" for "directed")."""
    return any(word[:len(word) - k] in RELATIONS for k in (0, 1, 2) if len(word) - k >= 3)


def _made_by(claim: str, question: str, premise: str) -> bool:
    """Whether ``premise`` says "by NAME" of a name ``claim`` gives and ``question`` does not."""
    for m in _BY_NAME.finditer(premise):
        words = [w.strip(".'’") for w in m.group(1).split()]
        if any(w[:1].isupper() and w in claim and w not in question for w in words):
            return True
    return False


#: ties between two kin that read one way only ("uncle": the other is the nephew or niece), as "KIN of NAME"
_KIN = ("uncle", "aunt", "nephew", "niece", "father", "mother", "son", "daughter", "grandfather", "grandmother",
        "grandson", "granddaughter", "stepfather", "stepmother", "stepson", "stepdaughter")
_KIN_WORD = "(?:" + "|".join(sorted(_KIN, key=len, reverse=True)) + ")"
#: a name run of capitalised words, accented capitals too ("Juan García Ábrego")
_CAPS = r"[A-ZÀ-ÖØ-Þ][\w'’.-]*(?:\s+[A-ZÀ-ÖØ-Þ][\w'’.-]*)*"
#: "A is the uncle of B", "A was the maternal grandfather of B"
_KIN_OF = re.compile(rf"(?P<a>{_CAPS})\s*,?\s+(?:is|was|(?=the\s))\s*(?:the|a|an)?\s*(?:[a-z]+\s+)?(?P<kin>{_KIN_WORD})"
                     rf"\s+of\s+(?P<b>{_CAPS})")
#: "... his uncle Juan Nepomuceno Guerra": the name after it is the possessor's KIN
_HIS_KIN = re.compile(rf"\b(?:his|her|their)\s+(?:[a-z]+\s+)?(?P<kin>{_KIN_WORD})\s*,?\s+(?P<b>{_CAPS})")


def reversed_kin(premise: str, claim: str) -> str:
    """The kin word of a claim "A is the KIN of B" ("uncle", "father") whose ``premise`` states the tie the other
    way only: "B is the KIN of A", or "A ... his KIN B" in one sentence ("Juan García Ábrego ... started out ... under
    the tutelage of his uncle Juan Nepomuceno Guerra" does not say "Juan García Ábrego is the uncle of Juan Nepomuceno
    Guerra": the checker, reading both names and "uncle", passes it); "" when the claim states no such tie, the
    premise states it the claim's way too, or never. Names are matched by their last word. English only in effect."""
    m = _KIN_OF.search(claim)
    if not m:
        return ""
    a, b, kin = m.group("a"), m.group("b"), m.group("kin")
    if _same_one(a, b):
        return ""
    ties = []  # (who, kin, of whom) the premise states
    for sentence in re.split(r"(?<=[.!?])\s+", premise):
        ties += [(t.group("a"), t.group("kin"), t.group("b")) for t in _KIN_OF.finditer(sentence)]
        for t in _HIS_KIN.finditer(sentence):  # the possessor: a name of the sentence before "his"
            ties += [(t.group("b"), t.group("kin"), p) for p in re.findall(_CAPS, sentence[:t.start()])]

    def said(x: str, y: str) -> bool:
        return any(k == kin and _same_one(x, w) and _same_one(y, o) for w, k, o in ties)

    return kin if said(b, a) and not said(a, b) else ""


def _same_one(x: str, y: str) -> bool:
    """Whether two name runs name one person: the same last word, and the same first word unless one is a single
    word ("Guerra" and "Juan Nepomuceno Guerra"; not "Tom Hanks" and "Colin Hanks")."""
    xs, ys = [w.rstrip(".") for w in x.split()], [w.rstrip(".") for w in y.split()]
    return xs[-1] == ys[-1] and (len(xs) == 1 or len(ys) == 1 or xs[0] == ys[0])
