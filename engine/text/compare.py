"""Questions about two named things: comparisons ("Who was born first, Erika Jayne or Marco Da
Silva?", "Which mountain is higher, Nanda Devi or Broad Peak?", "Is A or B further west?") and
yes/no questions about both ("Are Pothos and Tibouchina both genera of flowering plants?"); which
of the two the dates or numbers of the answer's sentences make the answer.

A sentence-pair checker cannot say "Erika Jayne was born first" from "Erika Jayne was born on July
10, 1971" in one document and "Marco Da Silva was born on 10 April 1992" in another, nor "Broad
Peak is higher" from "8051 m" and "7816 m": the conclusion needs both, compared. The answer's
sentences are checked one by one; the comparison of their dates or numbers is done here, by rule.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from .content import WORDS_EN, answer_words, stems
from .entities import COPULA, DEMONYMS, NAME_RUN, found
from .relations import LIFESPAN, MONTH
from .splitter import split_sentences

T = TypeVar("T")

# "Who was born first, Erika Jayne or Marco Da Silva?", "Кто старше, Пирт или Мун?"
_CHOICE = re.compile(r",[^,]+\s(?:or|или)\s[^,]+$", re.I)
#: "..., Minden, Nevada or Gardnerville, Nevada": two names that share the place after their commas
_PLACED_CHOICE = re.compile(r",\s*(?P<a>[^,]+?),\s*(?P<s>[^,]+?)\s+(?:or|или)\s+(?P<b>[^,]+?),\s*(?P=s)$", re.I)
# "In between Berghuis v. Thompkins and Mississippi University for Women v. Hogan which one was ...?"
_BETWEEN = re.compile(r"^\W*(?:in\s+)?between\s+(?P<both>.+?)[,\s]+(?:which|who|what)\b", re.I)
_DASH = re.compile(r"\s*--\s*|\s+[–—]\s+")
# "Is Muskegon County Airport or John Wayne Airport further west?"
_IS_CHOICE = re.compile(r"^\W*(?:is|are|was|were|does|did|do)\s+(?:the\s+)?(?P<a>.+?)\s+or\s+(?:the\s+)?(?P<rest>.+)$", re.I)
#: "Which band, Letters to Cleo or Screaming Trees, had more members?": the two between commas
_MID_CHOICE = re.compile(r"^\W*(?:who|which|what)\b[^,]*,\s*(?P<a>[^,]+?)\s+or\s+(?P<b>[^,]+?),\s*\S.*$", re.I)
#: "Which documentary Hacking Democracy or The Memory of Justice was produced first?": the two names after the
#: kind asked, no comma, the question going on after the second
_KIND_CHOICE = re.compile(r"^\W*(?:which|what)\s+(?:(?-i:[a-z]{3,})\s+){1,2}(?P<a>[A-Z].*?)\s+or\s+(?P<rest>.+)$", re.I)
# "who is younger Keith Bostic or Jerry Glanville ?": the two names end the question
_END_CHOICE = re.compile(r"^\W*(?:who|which|what)\b(?P<a>.+)\s+or\s+(?P<b>[^,]+)$", re.I)
# "Are Sutera and Rhodotypos both types of shrub?", "Were both Ernst Messerschmid and Reinhold Ewald
# ESA astronauts?", "Are Aladdin and Song of the South produced by the same company?"
_AUX = r"^\W*(?:is|are|was|were|do|does|did|have|has|had)\s+"
_BOTH = re.compile(_AUX + r"(?:the\s+)?(?P<a>.+?)\s+and\s+(?:the\s+)?(?P<b>.+?)\s+both\b", re.I)
#: "Are both A or B ...?" asks the same of both: the "or" is an "and" (no choice between them)
_BOTH_FIRST = re.compile(_AUX + r"both\s+(?:the\s+)?(?P<a>.+?)\s+(?:and|or)\s+(?:the\s+)?(?P<rest>.+)$", re.I)
_SAME = re.compile(_AUX + r"(?:the\s+)?(?P<a>.+?)\s+and\s+(?:the\s+)?(?P<rest>.+?\b(?:the|that)\s+same\b.*)$", re.I)
# what two things have in common: "What type of media does Bitter Jester and Sicko have in common?", "What
# occupation do Chris Menges and Aram Avakian share?", "What was the career that A and B share in common?",
# '"A Summer in the Cage" and "American Hardcore" are both what kind of film?', "What genre are both A and B?"
_COMMON = re.compile(r"^\W*(?:what|which)\b.*?\b(?:do|does|did|that|which)\s+(?:the\s+)?(?P<a>.+?)\s+and\s+(?:the\s+)?"
                     r"(?P<b>.+?)\s+(?:both\s+)?(?:have\s+in\s+common|share(?:\s+in\s+common)?)$", re.I)
# "A and B are both what kind of film?", "A and B are both best known for what profession?", "A and B are what
# kind of magazines?", "Both A and B had what role in film making?"
_BOTH_WHAT = re.compile(r"^\W*(?:both\s+)?(?:the\s+)?(?P<a>.+?)\s+and\s+(?:the\s+)?(?P<b>.+?)\s+"
                        r"(?:are|were|had|have|share|shared)\s+(?:both\s+)?"
                        r"(?:[a-z]+\s+){0,3}?(?:what|which)\b", re.I)
# "Both Dusty Drake and Joe Diffie sing which genre of music?": after an opening "Both", any verb
_BOTH_VERB = re.compile(r"^\W*both\s+(?:the\s+)?(?P<a>.+?)\s+and\s+(?:the\s+)?(?P<b>.+?)\s+(?-i:[a-z]+)\s+"
                        r"(?:[a-z]+\s+){0,3}?(?:what|which)\b", re.I)
# "What type of film are both A and B?", "What genre of music was played by both A and B?"
_WHAT_BOTH = re.compile(r"^\W*(?:what|which)\b[^,]*?\b(?:(?:are|were)|by)\s+both\s+(?:the\s+)?(?P<a>.+?)\s+and\s+"
                        r"(?:the\s+)?(?P<b>.+)$", re.I)
#: "What are the professions of Tom Johnston and Daryl Palumbo?", "What nationality were social anthropologists Alfred
#: Gell and Edmund Leach?": one thing asked of two names, each saying its own
_OF_BOTH = re.compile(r"^\W*(?:what|which)\s+(?:is|are|was|were)\s+the\s+(?P<noun>[a-z]+)\s+of\s+(?:both\s+)?"
                      r"(?:the\s+)?(?P<a>.+?)\s+and\s+(?:the\s+)?(?P<b>.+)$", re.I)
_NOUN_OF_BOTH = re.compile(r"^\W*(?:what|which)\s+(?P<noun>[a-z]+)\s+(?:is|are|was|were)\s+(?:both\s+)?"
                           r"(?:(?-i:[a-z]+)\s+){0,3}?(?P<a>(?-i:[A-Z]).*?)\s+and\s+(?:the\s+)?(?P<b>.+)$", re.I)
#: the noun a question asks for ("What profession ...", "What type of film ..."), and those a word both
#: sentences use can answer (not "what award", "what city": a name)
_ASKED_NOUN = re.compile(r"^.*?\b(?:what|which)\s+(?:(?:shared|common|same|main)\s+)?"
                         r"(?!are\b|is\b|was\b|were\b|do\b|does\b|did\b)([a-z]+)", re.I)
_KINDS = frozenset("""type types kind kinds sort sorts genre genres form forms profession professions occupation
occupations job jobs career careers media medium role roles roll field fields""".split())  # "what roll in film"
#: what the two things are, not the genre they share ("INXS was an Australian rock band": "rock")
_CLASSES = frozenset("band group company magazine album song series newspaper organization organisation".split())
#: a word naming a role ("director", "producer", "singer", "novelist", "musician")
_ROLE = re.compile(r"(?:er|or|ist|ian|ant|ent|man|woman)s?$|^(?:poet|chef|cook|diplomat|pilot|judge|coach|"
                   r"scholar|monk|priest|bishop|nurse|playwright|academic)s?$", re.I)
#: a question asking for several ("What professions did A and B have in common?")
_ASKS_SEVERAL = re.compile(r"^\W*(?:what|which)\s+[a-z]+s\b", re.I)
#: a title opening with a number ("500 Years Later")
_NUMBERED_TITLE = re.compile(r"\d[\w'’.&-]*(?:\s+[A-Z0-9][\w'’.&-]*)*")
#: the kind asked for: "what type of media", "which kind of film"
_KIND = re.compile(r"\b(?:what|which)\s+(?:type|kind|sort|genre|form)s?\s+of\s+(?P<noun>[a-z]+)", re.I)
# a name as the question writes it: capitalised words (or numbers, "Commodore 16"), with the small
# words a title keeps ("In the Realm of the Hackers", "Song of the South"), and a name's particles ("Nelson Pereira dos
# Santos", "I Capuleti e i Montecchi", "Ludwig Mies van der Rohe")
_SMALL = r"(?:of|the|and|de|du|von|van|la|le|in|on|a|an|for|v\.|vs\.|dos|das|da|di|del|della|der|den|e|i|y)"
_WORD_OF_NAME = rf"(?:[A-Z0-9][\w'’.&-]*|{_SMALL}(?=(?:\s+{_SMALL})*\s+[A-Z0-9]))"
_RUN = re.compile(rf"(?<![\w-])[A-Z][\w'’.&-]*(?:,?\s+{_WORD_OF_NAME})*")
#: the question asks for the earlier date / the later one
_EARLIER = re.compile(r"\b(?:first|earlier|earliest|older|oldest|before)\b|раньше|старше|первым|первой", re.I)
_LATER = re.compile(r"\b(?:later|latest|last|younger|youngest|newer|newest|more recent(?:ly)?|most recent(?:ly)?|after)\b"
                    r"|позже|младше|моложе", re.I)
#: words that ask for the order, not the event ordered
_ORDER_WORDS = ("first earlier earliest older oldest before later latest last younger youngest newer newest recent "
                "recently after")
_AGE = re.compile(r"\b(?:older|oldest|younger|youngest|newer|newest)\b", re.I)
# "Who lived to an older age", "Which playwright lived a longer life": not a birth date
_LIFE = re.compile(r"\b(?:age|aged|lived|life|lifetime)\b", re.I)
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
#: the question asks for the larger number / the smaller one
_MORE_WORDS = "more most greater greatest larger largest bigger biggest higher highest taller tallest"
_FEWER_WORDS = "fewer fewest less least smaller smallest lower lowest"


def _lower_words(words: str) -> re.Pattern[str]:
    """A pattern for ``words`` (space-separated) written lower-case, or capitalised only where they open the text: a
    capitalised one inside a question is a name's ("Greater Rochester International Airport" compares nothing)."""
    alts = "|".join(words.split())
    return re.compile(rf"\b(?:{alts})\b|^\W*(?i:{alts})\b")


_MORE = _lower_words(f"{_MORE_WORDS} longer longest")
_FEWER = _lower_words(f"{_FEWER_WORDS} shorter shortest")
#: a comparison of how long something lasted ("Which satellite was operational for longer", "Which
#: playwright lived a longer life"): years "for almost 18 years", or between two dates "from May 1983
#: until April 1986", "(1928 – 2016)"
_LONGER_Q = re.compile(r"\b(?:longer|longest|shorter|shortest)\b", re.I)
_FOR_YEARS = re.compile(rf"\bfor\s+(?:(?:about|almost|nearly|over|more than|some|around)\s+)?(?P<n>{_NUMBER})\s+years\b", re.I)
_SPAN_SEP = re.compile(r"\s*(?:[–—-]|\buntil\b|\bto\b|\bthrough\b)\s*", re.I)
#: a comparison of heights ("Which mountain is higher", "Which peak stands taller")
_HEIGHT_Q = re.compile(r"\b(?:higher|highest|taller|tallest|lower|lowest)\b", re.I)
_HEIGHT = re.compile(rf"(?P<n>{_NUMBER})\s*(?P<u>m|metres|meters|ft|feet)(?![\w²])")
#: "Which is larger, Garajonay National Park or Guadarrama National Park?": areas, in square kilometres
_SIZE_Q = re.compile(r"\b(?:larger|largest|bigger|biggest|smaller|smallest)\b", re.I)
_AREA = re.compile(rf"(?P<n>{_NUMBER})\s*(?P<u>km2|km²|sq\.?\s*km|square\s+kilomet(?:re|er)s|sq\.?\s*mi|square\s+miles|"
                   r"hectares|ha|acres)(?!\w)", re.I)
_PER_KM2 = {"sq mi": 2.58999, "square miles": 2.58999, "hectares": 0.01, "ha": 0.01, "acres": 0.00404686}
#: "Which town has a greater population ...?": compared by the populations given
_POPULATION_Q = re.compile(r"\bpopulation\b", re.I)
#: a population: the first number within a few words after "population" ("The population was 5,656 at the 2010
#: census", "a population of 24 million") or before "people"/"inhabitants"/"residents"
_POPULATION = re.compile(rf"\bpopulation\b(?!\s+density)[^.\d]{{0,30}}?(?P<n>{_NUMBER})(?:\s+(?P<x>million|billion))?"
                         rf"|(?P<m>{_NUMBER})\s+(?P<y>million\s+|billion\s+)?(?:people|inhabitants|residents)\b(?!\s+per\b)",
                         re.I)
#: a year, read as no population ("The population as of 2010 was 3,001"), and the population after it
_YEAR_LIKE = re.compile(r"1[7-9]\d\d|20\d\d")
_AFTER_YEAR = re.compile(rf"[^.\d]{{0,20}}?(?P<n>{_NUMBER})(?:\s+(?P<x>million|billion))?")
#: the thing counted: the word after "more"/"most"/"fewer" ("Which genus contains more species")
_COUNTED = re.compile(r"\b(?:more|most|fewer|fewest|number\s+of)\s+(?P<w>[^\W\d_]{3,})(?:\s+(?P<w2>[^\W\d_]{3,}))?",
                      re.I)
#: "Which band has more members": a band's members counted off the names a sentence lists after these words
#: ("an English pop rock band consisting of Andy Brown, Ryan Fletcher, Joel Peat and Adam Pitts": 4)
_LISTED = re.compile(r"\b(?:consist(?:s|ed|ing)\s+of|compris(?:es|ed|ing)|composed\s+of|made\s+up\s+of|"
                     r"line-?up\s+of)\s*:?\s+", re.I)
#: a listed name: capitalised words, a nickname in quotes among them ('David "Jaff" Craig')
_LISTED_NAME = re.compile(r"(?:[A-Z][\w'’.-]*|[\"“][^\"”]+[\"”])(?:\s+(?:[A-Z][\w'’.-]*|[\"“][^\"”]+[\"”]))*")
_LIST_SEP = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")
#: "Who held more diverse roles in the movie industry, A or B?", "which filmmaker had more diverse job
#: experiences": compared by how many roles a sentence saying what each is lists
_DIVERSE_Q = re.compile(r"\bmore\s+(?:diverse|varied|different)\b", re.I)
#: what a sentence says one is, up to what is not a role ("an American director, producer, and screenwriter
#: for film and television")
_IS_ROLES = re.compile(r"\b(?:is|was|are|were)\s+(?:an?|the)\s+(?P<roles>[^.;()]+?)(?=\s+(?:for|in|of|on|at|from|with|"
                       r"who|which|whose|that|known|best|born|based)\b|[.;(]|$)")
#: a band's size said in one word ("an electronic rock duo")
_GROUP = {"duo": 2.0, "trio": 3.0, "quartet": 4.0, "quintet": 5.0, "sextet": 6.0, "septet": 7.0, "octet": 8.0}
#: "Which genus has more species, Bactris and Epigaea?": the two after the last comma, joined by "and"
_AND_CHOICE = re.compile(r"(?:,|\s(?:out\s+of|among|between))\s*(?:the\s+)?(?P<a>[^,]+?)\s+and\s+(?:the\s+)?(?P<b>[^,]+)$",
                         re.I)
#: what may come before a name the question gives: "the film ", "the comic book "
_KIND_WORDS = re.compile(r"(?:(?-i:[a-z]+)\s+){0,3}")
#: "Was the film Splash released before the film Tangled?": the two things, the event and which way
_ORDER_Q = re.compile(r"^\W*(?:is|are|was|were|did|does|do|has|had)\s+(?P<a>.+?)\s+(?P<verb>(?-i:[a-z]+))\s+"
                      r"(?P<dir>before|after|earlier\s+than|later\s+than|prior\s+to)\s+(?P<b>.+)$", re.I)
#: one of a kind: "a single species", "its sole member"
_ONE = frozenset({"single", "sole"})
#: a comparison of when works came out ("Which came out first, Dinosaur or McFarland, USA"), and the year a
#: work's opening sentence gives it ("Dinosaur is a 2000 American CGI animated adventure film")
_RELEASE_Q = re.compile(r"\b(?:came out|comes out|released|published|premiered|debuted|aired)\b", re.I)
_WORK_YEAR = re.compile(r"\b(?:is|was)\s+an?\s+(?P<y>\d{4})\b")
_NUMBER_WORDS = {w: k for k, w in enumerate(WORDS_EN)}
#: tens said in words: "a seventy seven story residential building" (77; with a unit word after it)
_TENS = {w: 10.0 * k for k, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if k > 1}
#: words a document counts the same thing with: "more floors" of "a 68-story tower"
_COUNTED_ALIKE = ("floors floor stories storeys story",)
_TOKEN = re.compile(rf"{_NUMBER}|[^\W\d_]+")
_MONTH = MONTH
_MONTHS = {m.lower(): k + 1 for k, m in enumerate(MONTH.split("|"))}
_DATE = re.compile(rf"\b(?:(?P<m1>{_MONTH})\s+(?P<d1>\d{{1,2}}),?\s+(?P<y1>\d{{4}})"
                   rf"|(?P<d2>\d{{1,2}})\s+(?P<m2>{_MONTH}),?\s+(?P<y2>\d{{4}})"
                   rf"|(?P<m3>{_MONTH})\s+(?P<y3>\d{{4}})"
                   rf"|(?P<y4>(?:1[0-9]|20)\d{{2}}))\b")


def named(name: str, text: str) -> bool:
    """Whether ``text`` names ``name``: each of its words but initials found
    (:func:`~vericite.engine.text.entities.found`; "Muskegon County Airport" is not named by "North
    Muskegon", "Robert Z. Leonard" is by "Robert Zigler Leonard"), and where it is written as itself, not
    only as the start of a longer name ("Catan Dice Game" does not name Catan; "the Somerset Maugham Award" does
    not name W. Somerset Maugham)."""
    words = [w for w in name.split() if not re.fullmatch(r"\w\.?", w)]  # "Robert Z. Leonard": "Robert Zigler Leonard"
    if not words or not all(found(w, text) for w in words):
        return False
    # as written, it must stand once as itself, not only as the start of a longer name ("Catan" in
    # "Catan Dice Game ... by Catan GmbH" is another thing)
    at = [m.end() for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.I)]
    if at:
        return any(not re.match(r"\s+(?:[A-Z]|\d)", text[e:]) for e in at)
    # "W. Somerset Maugham" as "Somerset Maugham" in "the Somerset Maugham Award" (not "Somerset Maugham CH")
    at = [m.end() for m in re.finditer(rf"(?<!\w){re.escape(' '.join(words))}(?!\w)", text, re.I)] \
        if len(words) > 1 else []
    return not at or any(not re.match(r"\s+(?:[A-Z][a-z]|\d)", text[e:]) for e in at)


def alone(name: str, other: str, text: str) -> bool:
    """Whether ``text`` names ``name`` and not ``other`` (:func:`named`): a sentence about one of
    the two things compared."""
    return named(name, text) and not named(other, text)


def measured(question: str) -> bool:
    """Whether ``question`` compares two things by an order or a measure ("born first", "more members",
    "higher", "more often"), which a sentence about each together say; not by what one of them is or did ("Which
    writer was ordained to priesthood, A or B?"), which the sentence about that one says alone."""
    return any(p.search(question) for p in (_EARLIER, _LATER, _MORE, _FEWER, _LONGER_Q, _HEIGHT_Q, _SIZE_Q, _OFTEN_Q))


def choices(question: str) -> list[str]:
    """The two things a comparison question names after its comma ("Erika Jayne", "Marco Da
    Silva"), between commas ("Which band, Letters to Cleo or Screaming Trees, had more members?"), after
    "between" ("In between The Bears and I and Oceans which was released ...?"; "Between the documentaries A
    and B, ..."), sharing the place after their commas ("..., Minden, Nevada or Gardnerville, Nevada?": "Minden",
    "Gardnerville"), as
    "Is A or B ...?" ("Muskegon County Airport", "John Wayne Airport"; not "Are both A or B ...?", which asks the
    same of both: :func:`both`), after the kind asked ("Which band Muzzle or Screaming Trees was formed earlier?"),
    or at its end
    without a comma ("who is younger Keith Bostic or Jerry Glanville ?"), or joined by "and" after the comma of
    a comparison ("Which genus has more species, Bactris and Epigaea?") or after its "out of", "among" or "between"
    ("Who was born first out of Nick Grinde and Karel Reisz?"); a comma before "or" changes nothing
    ("..., 15 Penn Plaza, or 247 Cherry?"; not for three, "..., Chaoyang District, Shantou, or Daqing?"); [] for
    another question."""
    # "Which of these battles occurred earlier--the Battle of Peleliu or ...": a dash sets them off like a comma
    q = _DASH.sub(", ", question.strip().rstrip("?").rstrip())
    if re.fullmatch(r"[^,]*,[^,]+,\s+(?:or|или)\s+[^,]+", q):  # "..., 15 Penn Plaza, or 247 Cherry": the comma
        q = re.sub(r",\s+(or|или)\s+", r" \1 ", q)  # before "or" sets off nothing (three, "A, B, or C", stay apart)
    m = _PLACED_CHOICE.search(q)
    if m and all(_lead_name(m.group(k)) == m.group(k).strip() for k in "ab"):
        return [m.group("a").strip(), m.group("b").strip()]
    m = _CHOICE.search(q)
    if m:
        return [re.sub(r"^(?:the|a|an)\s+", "", c.strip(" \"'“”«»"))  # "the French Bulldog"; "The Million Dollar Duck" stays
                for c in re.split(r"\s(?:or|или)\s", m.group(0).lstrip(","), flags=re.I)]
    m = _MID_CHOICE.match(q)
    if m and all(c.strip()[:1].isupper() and len(c.split()) <= 6 for c in (m.group("a"), m.group("b"))):
        return [m.group("a").strip(), m.group("b").strip()]
    m = _IS_CHOICE.match(q)
    if m and not re.match(r"both\s", m.group("a"), re.I) and (b := _lead_name(m.group("rest"))) \
            and (a := _tail_name(m.group("a"))):
        return [a, b]
    m = _KIND_CHOICE.match(q)  # "Which band Muzzle or Screaming Trees was formed earlier?"
    if m and _lead_name(m.group("a")) == m.group("a").strip() and (b := _lead_name(m.group("rest"))) \
            and re.match(r"\s+(?-i:[a-z]+)\b", m.group("rest")[len(b):]):
        return [m.group("a").strip(), b]
    m = _END_CHOICE.match(q)  # "who is younger Keith Bostic or Jerry Glanville ?"
    if m and (a := _tail_name(m.group("a"))) and _lead_name(m.group("b")) == m.group("b").strip():
        return [a, m.group("b").strip()]
    m = _BETWEEN.match(q)  # "In between The Bears and I and Oceans which was released ...": the last "and" that parts two names
    if m:
        both = m.group("both").strip()
        for k in reversed([x.start() for x in re.finditer(r"\s+and\s+", both)]):
            a, b = both[:k].strip(), re.sub(r"^\s*and\s+", "", both[k:]).strip()
            if _lead_name(a) == a and _lead_name(b) == b:
                return [a, b]
        # "Between the documentaries The Staten Island Catapult and Frida, en trotjänarinna which ...": the kind
        # before the first name, a foreign title's lower-case words after the second's comma
        k = both.rfind(" and ")
        a, b = _tail_name(both[:k]), both[k + 5:].strip()
        if k > 0 and a and _lead_name(b) and len(b.split()) <= 6:
            return [a, b]
    # "Which genus has more species, Bactris and Epigaea?", "Who was born first out of A and B?": a comparison, two names
    m = _AND_CHOICE.search(q)
    if m and re.match(r"^\W*(?:who|which)\b", q, re.I) and any(p.search(q) for p in (_MORE, _FEWER, _EARLIER, _LATER)) \
            and _lead_name(m.group("a")) == m.group("a").strip() and _lead_name(m.group("b")) == m.group("b").strip():
        return [m.group("a").strip(), m.group("b").strip()]
    return []


def both(question: str) -> list[str]:
    """The two things a yes/no question asks the same of ("Are Sutera and Rhodotypos both types of
    shrub?" -> ["Sutera", "Rhodotypos"]; "Were both A and B ...?"; "Are A and B from the same
    country?"; "Were the bands A and B from the U.S.?"); [] for another question."""
    q = re.sub(r"[\"“”«»]", "", question).strip().rstrip("?").rstrip()  # a title in quotes is a name
    for pattern in (_BOTH, _BOTH_FIRST, _SAME):
        m = pattern.match(q)
        if not m:
            continue
        a = _tail_name(m.group("a").rstrip(" ,"))  # "Are both Dictyosperma, and Huernia ...?"
        # "Are Cryptanthus and Gagea, both a genus?": a comma before "both"
        b = _tail_name(m.group("b").rstrip(" ,")) if "b" in m.groupdict() else _lead_name(m.group("rest"))
        if a and b:
            return [a, b]
    found = _placed_pair(q)
    return [found[0], found[1]] if found else []


def _placed_pair(q: str) -> tuple[str, str, str] | None:
    """The two things and the place of "Were the bands Skin Yard and Ostava from the U.S" (no "?"); None
    for another question."""
    m = _PLACE_Q.match(q)
    if not m or not (a := _tail_name(m.group("a").rstrip(" ,"))) or not (b := _lead_name(m.group("b"))) \
            or b != m.group("b").strip():
        return None
    return a, b, m.group("place")


def common(question: str) -> list[str]:
    """The two things a question asks what they have in common ("What type of media does Bitter Jester
    and Sicko have in common?" -> ["Bitter Jester", "Sicko"]; '"A Summer in the Cage" and "American
    Hardcore" are both what kind of film?'; "What genre are both A and B?"; "What genre of music was played by
    both A and B?"; "A and B are both best known for what profession?"; "Both A and B sing which genre of music?");
    [] for another question."""
    q = re.sub(r"[\"“”«»]", "", question).strip().rstrip("?").rstrip()  # a title in quotes is a name
    for pattern in (_OF_BOTH, _NOUN_OF_BOTH):
        m = pattern.match(q)
        if m and (m.group("noun").lower() in _KINDS or m.group("noun").lower() in ("nationality", "nationalities")) \
                and _tail_name(m.group("a").strip()) == m.group("a").strip() and _lead_name(m.group("b")) == m.group("b").strip():
            return [m.group("a").strip(), m.group("b").strip()]
    for pattern in (_COMMON, _BOTH_WHAT, _BOTH_VERB, _WHAT_BOTH):
        m = pattern.match(q)
        if not m:
            continue
        a, b = (m.group(k).strip() for k in "ab")
        if (_tail_name(a) == a or _NUMBERED_TITLE.fullmatch(a)) and (_lead_name(b) == b or (
                pattern is not _WHAT_BOTH and _lead_name(b))):
            return [a, _lead_name(b) or b]
    return []


#: an adverb between a choice question's wh-word (and kind) and its verb: "Which writer also enjoyed ..."
_WH_ADVERB = r"(?:also|both|first|once|later|originally)\s+"
#: "Which writer also enjoyed boxing", "Which of the following is home to ...", "Who directed "7th Heaven" (1927)":
#: a choice question's words before its two things, the predicate after the wh-word (and the kind)
_CHOICE_HEAD = re.compile(r"^\W*(?:which|who|what)(?:\s+of\s+(?:the\s+following|these|the\s+two)|\s+(?-i:[a-z]+))?\s+"
                          rf"(?P<pred>(?:{_WH_ADVERB})?"
                          r"(?:is|was|are|were|has|had|(?-i:[a-z]+ed|[a-z]+s))\s.*?)[\s,:;-]*(?:either\s+)?$", re.I)


def chosen_claim(question: str, name: str) -> str:
    """``name`` (one of the two things of a comparison by what one of them is or did, :func:`measured` not) put for
    the wh-word of ``question``: "Norman Lindsay also enjoyed boxing." for "Which writer also enjoyed boxing, Amy Tan
    or Norman Lindsay?"; "Greater Rochester International Airport is home to the 642nd Aviation Support Battalion."
    for "Which of the following is home to the 642nd Aviation Support Battalion: A or B?". The claim a checker
    reads for the short answer: the question's own words, nothing a rewrite could add. "" when ``name`` is not one
    of the two things, the question compares by an order or a measure, or its two things do not end it after a
    predicate ("Which band did ...", "Which band, A or B, had ...")."""
    pair = choices(question)
    if name not in pair or measured(question):
        return ""
    q = question.strip().rstrip("?").rstrip()
    at = min((m.start() for c in pair for m in [re.search(rf"(?:the\s+)?[\"“]?{re.escape(c)}", q)] if m), default=-1)
    if at <= 0:
        return ""
    m = _CHOICE_HEAD.match(q[:at])
    tail = q[at:]
    if not m or not all(c in tail for c in pair) or not re.fullmatch(r"[\s\"“”'(),:;-]*(?:or|and|the|\s)*", _without(tail, pair)):
        return ""
    return f"{name} {m.group('pred').strip()}."


def _without(text: str, names: Sequence[str]) -> str:
    """``text`` with each of ``names`` taken out once."""
    for n in names:
        text = text.replace(n, " ", 1)
    return text


def two_things(question: str) -> list[str]:
    """The two things a question compares (:func:`choices`), asks the same of (:func:`both`), asks
    what they have in common (:func:`common`) or asks the order of (:func:`ordered`); [] for another question."""
    return choices(question) or both(question) or common(question) or list(ordered(question)[:2])


def ordered(question: str) -> tuple[str, str, str, bool] | tuple[()]:
    """The two things, the event and the way a yes/no question asks their order in ("Was the film Splash released
    before the film Tangled?" -> ("Splash", "Tangled", "released", True); "after", "later than": False): the first
    thing ends the words before the event's verb, the second all that follows "before", each after at most three
    words in lower case ("the film", "the comic book"; a name, not a year: "both formed before 2010" is
    :func:`by_year`'s; not "... before Tangled in the US"); () for another question."""
    q = re.sub(r"[\"“”«»]", "", question).strip().rstrip("?").rstrip()  # a title in quotes is a name
    m = _ORDER_Q.match(q)
    if not m or re.search(r"\bboth\b", m.group("a"), re.I):
        return ()
    named = [_tail_name(m.group(k)) for k in "ab"]
    if not all(n and _KIND_WORDS.fullmatch(m.group(k).strip()[:-len(n)]) for n, k in zip(named, "ab")):
        return ()
    return named[0], named[1], m.group("verb"), m.group("dir").lower().split()[0] in ("before", "earlier", "prior")


def by_order(question: str, sentences: Sequence[str]) -> str:
    """"Yes" or "No" to "Was the film Splash released before the film Tangled?" (:func:`ordered`) when ``sentences``
    date the event for each thing as :func:`by_dates` reads "Which was released first, Splash or Tangled?" ("a 1984
    film", "a 2010 film": "Yes"); "" for another question or when the dates do not order them."""
    asked = ordered(question)
    if not asked:
        return ""
    a, b, verb, before = asked
    first = by_dates(f"Which was {verb} first, {a} or {b}?", sentences)
    if first is None:
        return ""
    return "Yes" if (first == a) == before else "No"


def _opens_with(pair: Sequence[str], sentence: str) -> bool:
    """Whether ``sentence``'s subject (up to its first "is", "was", "are", "were") names one of the two things
    ("The Staten Island Catapult is ...", "John Danny Cannon is ..." for Danny Cannon)."""
    return _names(pair, COPULA.split(sentence, maxsplit=1)[0])


def _names(pair: Sequence[str], subject: str) -> bool:
    """Whether ``subject`` (a sentence's words before its verb, at most 20) names one of the two things."""
    return len(subject.split()) <= 20 and any(named(n, subject) for n in pair)


def defines(pair: Sequence[str], sentence: str) -> bool:
    """Whether ``sentence`` says what one of the two things is ("INXS was an Australian rock band"; not
    "Woman's Era was started in 1973 by ...")."""
    m = re.search(r"\s(?:is|was|are|were)\s+[\"“]?(?:a|an|the|one)\b", sentence)
    return m is not None and _names(pair, sentence[:m.start()])


def in_common(question: str, sentences: Sequence[str]) -> str:
    """What two things have in common (:func:`common`), as the first sentence of ``sentences`` naming each
    alone (:func:`alone`) and saying what it is (:func:`defines`) says it: the lower-case word both say and
    the question does not, nor, for a genre, one saying what they are ("band": :data:`_CLASSES`) ("a
    documentary starring ...", "a 2007 American documentary film by ..." -> "documentary"), the one right
    before the kind asked for ("film") in both when several are, else the one no word follows in either
    ("film director", "film editor and director" -> "director"; for "What professions ...?", or a profession
    asked in the singular, up to three of them: "director and producer");
    for a profession (also "what type of profession") only a word naming a role ("author", not "novels"; not "tour",
    which both sentences of a wrestler and a singer say); for "in which country?" the country both
    name (:func:`_shared_place`: "China"). "" when the question asks no such
    thing or one a name answers ("what award"), a side has no sentence, or the two share no such word or
    several. A sentence-pair checker cannot join two documents' sentences."""
    pair = common(question)
    if len(pair) != 2:
        return ""
    noun = _ASKED_NOUN.match(question)
    if noun and noun.group(1).lower() in ("country", "nation", "continent"):  # "both located in which country?"
        return _shared_place(question, pair, sentences)
    if noun and noun.group(1).lower() not in _KINDS:  # "what award": a name, not a word both sentences use
        return ""
    # "what type of profession": the profession is asked ("type of film": a kind of film, as "what type")
    of = re.match(r"\s*of\s+([a-z]+)", question[noun.end():], re.I) if noun else None
    what = (of.group(1) if of and of.group(1).lower() in _KINDS else noun.group(1) if noun else "").lower()
    role = what.rstrip("s") in ("profession", "occupation", "job", "career")
    # a genre is not what the things are ("rock", not "band"); a type of publication may be ("magazine")
    subtype = what.rstrip("s") in ("genre", "style")
    asked = f"{question} {' '.join(pair)}"

    def words(sentence: str) -> list[str] | None:  # its lower-case content words the question lacks ("about" is none)
        out = [w for w in re.findall(r"[^\W\d_][\w-]*", sentence) if w[0].islower() and answer_words(w, asked)
               and not (subtype and w.lower().rstrip("s") in _CLASSES)]
        return out or None

    # a sentence about the thing itself ("Chris Menges is an English cinematographer"), not one naming it
    # among other things ("CrissCross is a 1992 film directed by Chris Menges"): the one that opens with it
    sides = _per_side(pair, [x for x in sentences if defines(pair, x)], words)
    if sides is None:
        return ""
    other = stems(" ".join(sides[1]))
    shared = list(dict.fromkeys(w.lower() for w in sides[0] if answer_words(w, asked) & other
                                and (not role or _ROLE.search(w))))  # a profession: "director", not "novels"
    kind = _KIND.search(question)
    said = [next(x for x in sentences if alone(n, o, x) and defines(pair, x)) for n, o in (pair, pair[::-1])]
    if len(shared) > 1 and kind:  # "documentary film" in both: the word before the kind
        before = [w for w in shared if all(re.search(rf"\b{re.escape(w)}\s+{kind.group('noun')}", s, re.I) for s in said)]
        shared = before or shared
    elif len(shared) > 1:  # "film director", "film editor and director": the nouns, not a word before one
        heads = [w for w in shared if not any(re.search(rf"\b{re.escape(w)}\s+(?!and\b|or\b)[a-z]", s, re.I) for s in said)]
        if 1 < len(heads) <= 3 and (role or _ASKS_SEVERAL.search(question)):  # "director and producer": both share
            # each (a profession asked in the singular too: naming one of two they share would leave the other out)
            return " and ".join(heads)
        shared = heads or shared
    return shared[0] if len(shared) == 1 else ""


def _shared_place(question: str, pair: Sequence[str], sentences: Sequence[str]) -> str:
    """The country the first sentences about each name ("a prefecture-level city in western Shandong province,
    China", "a county of Hubei province, People's Republic of China" -> "China"), the question's own words aside;
    "" when they share none of :data:`_COUNTRIES` or several."""
    said = [next((x for x in sentences if alone(n, o, x)), "") for n, o in (pair, pair[::-1])]
    if not all(said):
        return ""
    shared = [c for c in sorted(_COUNTRIES | _THE_US) if not named(c, question)
              and all(re.search(rf"\b{re.escape(c)}\b", x) for x in said)]
    return shared[0] if len(shared) == 1 else ""


def _lead_name(text: str) -> str:
    """The name ``text`` opens with ("John Wayne Airport further west" -> "John Wayne Airport"), ""
    when it opens with none."""
    m = _RUN.match(text.strip())
    return m.group(0).rstrip(",") if m else ""


def _tail_name(text: str) -> str:
    """The name ``text`` ends with ("the flowering plants Ecballium" -> "Ecballium"), "" when it ends
    with none (a name must end the text)."""
    runs = [m for m in _RUN.finditer(text.strip()) if m.end() == len(text.strip())]
    return runs[0].group(0) if runs else ""


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


def a_date(text: str) -> tuple[int, int, int] | None:
    """``text`` read as one date and nothing else, as :func:`first_date` gives it ("July 16, 1911" -> (1911, 7, 16));
    None for anything more ("Independence, Missouri, in 1911") or less."""
    return first_date(text) if _DATE.fullmatch(text.strip()) else None


def by_dates(question: str, sentences: Sequence[str]) -> str | None:
    """For a question comparing two things by time ("Who was born first, A or B?", "Which band was
    formed later, A or B?"): the one the dates of ``sentences`` make the answer. Each thing's date is the
    first date of the first sentence naming it and not the other one
    (:func:`~vericite.engine.text.entities.found`) and a content word of the question besides the
    two things ("born", "founded": "She released her first album in 2005" dates another event; for
    a birth, a biography's opening life span "(October 7, 1889 – August 27, 1968)" names it); the
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
    event = _event(question, pair)
    # a sentence about the thing dates it before one naming it beside another subject ("Hello I Feel the Same was
    # released on October 16, 2015 via a label founded by a band with whom the Innocence Mission formed a friendship")
    dates = _per_side(pair, sentences, lambda s: _date_of(question, event, s), first=about_thing)
    if dates is None:
        return None
    (a, b) = dates
    if a[1] < b[0] or b[1] < a[0]:  # "1971" against "10 April 1971", "the early 1980s" against "1985": not ordered
        return pair[0] if (a[1] < b[0]) == earlier else pair[1]
    return None


#: a time as the earliest and latest (year, month, day) it may be: "1971" is 1971-01-01 to 1971-12-31
Span = tuple[tuple[int, int, int], tuple[int, int, int]]
#: a decade ("in the early 1980s"): dates an event when no year does, as its ten years
_DECADE = re.compile(r"\b(?P<y>(?:1[0-9]|20)\d0)s\b")


def _span(date: tuple[int, int, int]) -> Span:
    """``date`` (:func:`first_date`, 0 for a part left out) as the earliest and latest day it may be."""
    y, m, d = date
    return (y, m or 1, d or 1), (y, m or 12, d or 31)


def _dated(sentence: str) -> Span | None:
    """The first date of ``sentence`` (:func:`first_date`), else its first decade ("the early 1980s": 1980 to
    1989), as a :data:`Span`; None when it gives neither."""
    date = first_date(sentence)
    if date:
        return _span(date)
    m = _DECADE.search(sentence)
    return ((int(m.group("y")), 1, 1), (int(m.group("y")) + 9, 12, 31)) if m else None


def _date_of(question: str, event: frozenset[str], sentence: str) -> Span | None:
    """The time (a :data:`Span`) ``sentence`` gives the ``event`` asked about: for a death, the end of a biography's
    life span ("(May 7, 1890 – February 20, 1959)"); for a work's coming out, or its age ("Which film is older"),
    the year its opening sentence gives it ("is a 2000 American ... film"); else the first date, or decade ("in the
    early 1980s"), of a sentence naming the event."""
    if event & stems("died death"):
        dates = list(_DATE.finditer(sentence))
        for a, b in zip(dates, dates[1:]):  # a place may follow the birth: "(July 1, 1909, Montevideo – May 30, 1994"
            if _SPAN_SEP.fullmatch(re.sub(r"^,\s*[A-Z][^,()–—]{0,30}?(?=\s*[–—-])", "", sentence[a.end():b.start()])):
                return _dated(b.group(0))
    # "Which film is older": a work's age is its year ("is a 1971 British-American musical fantasy film")
    aged = event & stems("born birth") and not _dates(event, sentence)
    if (_RELEASE_Q.search(question) or aged) and (m := _WORK_YEAR.search(sentence)):
        return _span((int(m.group("y")), 0, 0))
    if _dates(event, sentence):
        return _dated(sentence)
    # the kind of thing asked and its year in brackets or before it ("Which case was decided first": "Reynolds v. Sims
    # (1964) was a United States Supreme Court case"; "Which documentary was created first": "is a 2003 American
    # documentary"); not any date of a sentence naming the kind ("The band broke up in 2009")
    kind = _kind_asked(question)
    year = _BRACKET_YEAR.search(sentence) or _WORK_YEAR.search(sentence)
    return _span((int(year.group("y")), 0, 0)) if kind and year and kind & stems(sentence) else None


#: a year in brackets after a name, alone or after a word or two ("Reynolds v. Sims (1964)", "(film, 2003)"); not a
#: year some other time is measured from ("(stylized as the innocence mission on all releases since 1995)")
_BRACKET_YEAR = re.compile(r"\((?:(?!(?:since|until|till|after|before|from|by|in)\s)[^()\s]+\s){0,2}(?P<y>\d{4})\)", re.I)


def _per_side(pair: Sequence[str], sentences: Sequence[str], value: Callable[[str], T | None],
              first: Callable[[str, str], bool] | None = None) -> list[T] | None:
    """For each of the two things, ``value`` of the first of ``sentences`` about it alone
    (:func:`alone`) for which it is not None, those for which ``first(name, sentence)`` holds before the others;
    None when a thing has none."""
    out = []
    for name, other in (pair, pair[::-1]):
        mine = [s for s in sentences if alone(name, other, s)]
        if first is not None:  # a stable sort: document order among equals
            ahead = [first(name, s) for s in mine]
            mine = [s for s, f in zip(mine, ahead) if f] + [s for s, f in zip(mine, ahead) if not f]
        v = next((v for s in mine if (v := value(s)) is not None), None)
        if v is None:
            return None
        out.append(v)
    return out


def _event(question: str, pair: Sequence[str]) -> frozenset[str]:
    """The stems of the event a comparison by time asks about ("born", "founded"); not the kind of thing asked
    ("Which band formed earlier": "formed", not "band", which "The band broke up in 2009" names too)."""
    if _AGE.search(question) and not _LIFE.search(question):  # "Which director is younger": the birth
        return stems("born birth")
    event = answer_words(question, " ".join(pair)) - stems(_ORDER_WORDS)
    kind = _kind_asked(question)
    return (event - kind) or event


def _kind_asked(question: str) -> frozenset[str]:
    """The stem of the kind of thing a question asks which of ("Which band formed earlier": "band"); none for a verb
    ("What took place first")."""
    m = re.match(r"^\W*(?:which|what)\s+([a-z]+)\b", question, re.I)
    if not m or m.group(1).lower() in ("is", "was", "are", "were", "did", "does", "do", "has", "had", "came", "one"):
        return frozenset()
    kind = stems(m.group(1))
    return frozenset() if kind & frozenset().union(*_SAME_EVENT) else kind


#: words that name one event ("Which battle occurred earlier": "was fought ... in 1944"; "Which case was
#: decided first": "a landmark ruling"); a sentence naming any of a group dates the event any other names
_SAME_EVENT = tuple(stems(g) for g in ("occurred fought happened took began started lasted lasting",
                                      "founded formed established",
                                      "released published premiered aired debuted", "decided ruled ruling"))


def _dates(event: frozenset[str], sentence: str) -> bool:
    """Whether ``sentence`` dates the ``event`` (names it or a word of its group, :data:`_SAME_EVENT`; or
    opens a biography with a life span when the event is a birth)."""
    event = event.union(*(g for g in _SAME_EVENT if g & event))
    return bool(event & stems(sentence)) or bool(event & stems("born birth") and LIFESPAN.search(sentence))


def _count(word: str) -> float | None:
    """``word`` as a number: digits ("26,414"), or the words zero to twenty; None otherwise."""
    if word[0].isdigit():
        return float(word.replace(",", ""))
    return _NUMBER_WORDS.get(word.lower())


#: two days of one year, the year said once at the end ("from 19 September to 16 December 1944", "from August 4
#: to September 18, 1950")
_DAY_SPAN = re.compile(rf"\b(?:(?P<da>\d{{1,2}})\s+(?P<ma>{_MONTH})\s+(?:to|until|through|[–—-])\s*(?P<da2>\d{{1,2}})\s+"
                       rf"(?P<ma2>{_MONTH})|(?P<mb>{_MONTH})\s+(?P<db>\d{{1,2}})\s+(?:to|until|through|[–—-])\s*"
                       rf"(?P<mb2>{_MONTH})\s+(?P<db2>\d{{1,2}})),?\s+\d{{4}}\b")


def _years(sentence: str) -> float | None:
    """How many years ``sentence`` says something lasted: "for almost 18 years" -> 18.0; the first two
    dates joined by a dash, "until" or "to" ("from May 1983 until April 1986" -> 2.92, "(1928 – 2016)"
    -> 88.0; two days of one year, "from 19 September to 16 December 1944" -> 0.242); None when it says neither."""
    m = _FOR_YEARS.search(sentence)
    if m:
        return _count(m.group("n"))
    m = _DAY_SPAN.search(sentence)  # "from 19 September to 16 December 1944": one year for both days
    if m:
        g = m.groupdict()
        m1, d1 = _MONTHS[(g["ma"] or g["mb"]).lower()], int(g["da"] or g["db"])
        m2, d2 = _MONTHS[(g["ma2"] or g["mb2"]).lower()], int(g["da2"] or g["db2"])
        if (m2, d2) > (m1, d1):
            return round((m2 - m1) / 12 + (d2 - d1) / 365, 3)
    dates = list(_DATE.finditer(sentence))
    for a, b in zip(dates, dates[1:]):
        if _SPAN_SEP.fullmatch(sentence[a.end():b.start()]):
            (y1, m1, _), (y2, m2, _) = first_date(a.group(0)) or (0, 0, 0), first_date(b.group(0)) or (0, 0, 0)
            if y2 >= y1 > 0:
                return round(y2 - y1 + ((m2 - m1) / 12 if m1 and m2 else 0), 2)
    return None


#: "Which magazine is published more often/frequently, A or B?": compared by issues a year
_OFTEN_Q = re.compile(r"\b(?:more|less|most|least)\s+(?:often|frequently)\b", re.I)
_PER_YEAR = {"daily": 365.0, "weekly": 52.0, "biweekly": 26.0, "fortnightly": 26.0, "semimonthly": 24.0,
             "monthly": 12.0, "bimonthly": 6.0, "quarterly": 4.0, "semiannual": 2.0, "semiannually": 2.0,
             "biannual": 2.0, "biannually": 2.0, "annual": 1.0, "annually": 1.0, "yearly": 1.0}
_TWICE = re.compile(r"\btwice(?:\s+(?:a|per)\s+|[\s-])(?P<u>week|weekly|month|monthly|year|yearly)\b", re.I)
_ISSUES = re.compile(rf"\b(?P<n>{_NUMBER}|[a-z]+)\s+(?:issues|times|editions)\s+(?:a|per|each)\s+year\b", re.I)


def frequency(sentence: str) -> float | None:
    """How many times a year ``sentence`` says something comes out: "a bimonthly American magazine" -> 6.0,
    "published twice monthly" -> 24.0, "six issues a year" -> 6.0, "a weekly" -> 52.0; None when it says
    none (the first it says counts; a capitalised word is a name's: "Weekly Shonen Jump")."""
    m = _TWICE.search(sentence)
    if m:
        return 2 * {"week": 52.0, "month": 12.0, "year": 1.0}[m.group("u").lower().removesuffix("ly")]
    m = _ISSUES.search(sentence)
    if m and (n := _count(m.group("n"))) is not None:
        return n
    for w in re.findall(r"(?<![\w-])[a-z]+(?:-[a-z]+)?", sentence):  # not a name's "Weekly Shonen Jump"
        hit = _PER_YEAR.get(w.replace("-", ""))
        if hit is not None:
            return hit
    return None


def number(question: str, sentence: str) -> float | None:
    """The number ``sentence`` gives for what ``question`` compares by number: a duration in years for
    "longer"/"shorter" when it gives one (:func:`_years`), a height in metres
    for "higher"/"taller" ("at 8035 m", "26,414 ft" -> 8050.99), an area in square kilometres for "larger"/
    "smaller" when it gives one ("34,000 hectares" -> 340.0, "15 sq mi" -> 38.85), else the count of the word after
    "more"/"most"/"fewer" or the one after it ("more species", "more individual species": "consists of
    118 species" -> 118.0, "There are three species" -> 3.0, "a single species" / "the only species" ->
    1.0; digits, the words zero to twenty, or tens with a unit, "seventy seven", at most three words before it;
    not "one of the members" nor "190,451 m² of floor space", nor a rank ("one of the top five rarest dog breeds");
    "more floors" counted in stories too: "a 68-story
    tower" -> 68.0); "the
    number of species" likewise; for "more members" without a count the names listed (:func:`listed`); for
    "more diverse roles" the roles said (:func:`roles`); for "population" the population given
    (:func:`population`); None when the question compares nothing by number or
    the sentence gives none; for "more often" the issues a year (:func:`frequency`)."""
    if _OFTEN_Q.search(question):
        return frequency(sentence)
    if _LONGER_Q.search(question) and (years := _years(sentence)) is not None:
        return years
    if _POPULATION_Q.search(question):  # "Which has a higher population": a population, not a height
        return population(sentence)
    if _HEIGHT_Q.search(question):
        m = _HEIGHT.search(sentence)
        if not m:
            return None
        n = _count(m.group("n")) or 0.0  # digits: never None
        return n * 0.3048 if m.group("u") in ("ft", "feet") else n
    if _DIVERSE_Q.search(question):
        return roles(sentence)
    if _SIZE_Q.search(question) and (a := _AREA.search(sentence)):  # "34,000 hectares", "15 sq mi"
        unit = re.sub(r"\s+", " ", a.group("u").lower().replace(".", ""))
        return (_count(a.group("n")) or 0.0) * _PER_KM2.get(unit, 1.0)
    c = _COUNTED.search(question)
    if not c:
        return None
    want = stems(c.group("w")) | stems(c.group("w2") or "")  # "more individual species"
    want |= frozenset(w for alike in _COUNTED_ALIKE if want & stems(alike) for w in stems(alike))
    tokens = _TOKEN.findall(sentence)
    for k, t in enumerate(tokens):
        # "a single species", "the only species in the genus": one
        one = t.lower() in _ONE or (t.lower() == "only" and k > 0 and tokens[k - 1].lower() == "the")
        counted = 1.0 if one else _TENS.get(t.lower()) or _count(t)
        ones = _NUMBER_WORDS.get(tokens[k + 1].lower(), 0) if t.lower() in _TENS and k + 1 < len(tokens) else 0
        if 0 < ones < 10:  # "seventy seven"
            counted = (counted or 0.0) + ones
        if tokens[k + 1:k + 2] == ["of"]:  # "one of the band members": a part, not a count
            continue
        if tokens[k - 1:k] == ["top"] or [w.lower() for w in tokens[max(0, k - 3):k]] == ["one", "of", "the"]:
            continue  # "one of the top five rarest dog breeds": a rank among them, not how many it has
        after = tokens[k + 1:k + 5]
        after = after[:after.index("of")] if "of" in after else after  # "190,451 m² of floor space": no floors
        if counted is not None and any(stems(w) & want for w in after):
            return counted
    if not want & stems("members"):
        return None
    return next((_GROUP[t.lower()] for t in tokens if t.lower() in _GROUP), None) or listed(sentence)


def population(sentence: str) -> float | None:
    """The population ``sentence`` gives ("The population was 5,656 at the 2010 census" -> 5656.0, "home to 24
    million people" -> 24000000.0); None when it gives none. A year ("population as of 2010 was ...") is no
    population unless people follow it."""
    for m in _POPULATION.finditer(sentence):
        n, scale = (m.group("n"), m.group("x")) if m.group("n") else (m.group("m"), m.group("y"))
        if m.group("n") and _YEAR_LIKE.fullmatch(n):
            m2 = _AFTER_YEAR.match(sentence, m.end())
            if not m2:
                continue
            n, scale = m2.group("n"), m2.group("x")
        value = _count(n) or 0.0
        return value * {"million": 1e6, "billion": 1e9}.get((scale or "").strip().lower(), 1.0)
    return None


def listed(sentence: str) -> float | None:
    """How many names ``sentence`` lists after "consisting of", "comprising", "members" ("consisting of Ross
    Millard, Barry Hyde, David "Jaff" Craig and Dave Hyde" -> 4.0); None when it lists fewer than two. The
    list ends at its first item that is not a name."""
    m = _LISTED.search(sentence)
    if not m:
        return None
    n = 0
    listing = re.sub(r"\s*\([^()]*\)", "", sentence[m.end():])  # "Ross Millard (vocals and guitar), Barry Hyde"
    for item in _LIST_SEP.split(re.split(r"[.;:()]|\s[–—-]\s", listing, maxsplit=1)[0]):
        if not _LISTED_NAME.fullmatch(item.strip()):
            break
        n += 1
    return float(n) if n >= 2 else None


def roles(sentence: str) -> float | None:
    """How many roles ``sentence`` gives one where it says what one is ("is an American movie director,
    screenwriter, producer, musician, editor and composer" -> 6.0; "is an independent American film director and
    screenwriter" -> 2.0): the items of the list after "is a" whose last word names a role ("-er", "-or",
    "-ist", ...); None when it gives none."""
    m = _IS_ROLES.search(sentence)
    if not m:
        return None
    items = [i.split()[-1] for i in _LIST_SEP.split(m.group("roles")) if i.split()]
    n = sum(1 for w in items if _ROLE.search(w) and w[:1].islower())
    return float(n) or None


def by_numbers(question: str, sentences: Sequence[str]) -> str | None:
    """For a question comparing two things by number ("Which mountain is higher, A or B?", "Which
    genus contains more species, A or B?"): the one the numbers of ``sentences`` make the answer,
    each thing's number (:func:`number`) from the first sentence naming it and not the other one;
    the larger wins for "more", "higher", "larger", the smaller for "fewer", "lower", "smaller".

    Returns:
        The thing as the question writes it; None when the question compares nothing by number or
        asks both ways, when a thing has no sentence giving its number, or when the numbers are equal.
    """
    pair = choices(question)
    more, fewer = bool(_MORE.search(question)), bool(_FEWER.search(question))
    if len(pair) != 2 or more == fewer:
        return None
    values = _per_side(pair, sentences, lambda s: number(question, s))
    if values is None or values[0] == values[1]:
        return None
    return pair[0] if (values[0] > values[1]) == more else pair[1]


def compared(question: str, sentences: Sequence[str]) -> str | None:
    """The one of the two things a comparison question names that the dates (:func:`by_dates`) or
    numbers (:func:`by_numbers`) of ``sentences`` make the answer; None when they make neither."""
    return by_dates(question, sentences) or by_numbers(question, sentences)


#: words that compare, and words that only frame what is said ("described as a genus", "types of plant"):
#: a sentence saying "X is a genus" says what "Is X described as a genus?" asks
_COMPARING = stems(f"{_ORDER_WORDS} {_MORE_WORDS} {_FEWER_WORDS} both same described considered classified regarded "
                   "termed type types kind kinds sort")


def topic(question: str) -> frozenset[str]:
    """The content stems of a question about two things (:func:`two_things`) besides the two things,
    the words that compare and those that frame (:data:`_COMPARING`: "comedy", "film" of "Which is a
    comedy film, A or B?"; "genus" of "Are both A and B described as a genus?")."""
    return answer_words(question, " ".join(two_things(question))) - _COMPARING


#: "Which company is ...", "Which writer was ...", "Which writer also enjoyed ...": the kind both compared things are
_WH_KIND = re.compile(rf"^\W*(?:which|what)\s+([a-z]+)\s+(?:{_WH_ADVERB})?"
                      r"(?:is|was|are|were|has|had|did|does|(?-i:[a-z]+ed))\b", re.I)


def by_words(question: str, sentences: Sequence[str]) -> str | None:
    """For a comparison by kind ("Which is a comedy film, The Million Dollar Duck or Don Quixote?";
    "Who directed "7th Heaven" (1927), Jerry Belson or Frank Borzage?"; not one by time or number):
    the one of the two things whose first sentence naming it alone says every other content word or
    number of the question (:func:`topic`: "comedy", "film"; not the kind after its wh-word, which both are:
    "company" of "Which company is based in Kentucky, ...?"; a doer for the doing: "boxer" says "boxing") when the
    other's does not, or two of them more than the other's; None otherwise."""
    pair = choices(question)
    if len(pair) != 2 or any(p.search(question) for p in (_EARLIER, _LATER, _MORE, _FEWER)):
        return None
    # the kind after the wh-word is what both are ("Which company is based in Kentucky, A or B?": a document calls
    # Fazoli's a restaurant chain); the rest tells them apart
    kind = _WH_KIND.match(question)
    rest = topic(question) - (stems(kind.group(1)) if kind else frozenset())
    if not rest:
        return None
    says = _per_side(pair, sentences, lambda s: len(rest & (stems(s) | _doers(s) | frozenset(re.findall(r"\d+", s)))))
    if says is None:
        return None
    a, b = says
    if a == len(rest) > b or a >= b + 2:
        return pair[0]
    if b == len(rest) > a or b >= a + 2:
        return pair[1]
    return None


def _doers(text: str) -> frozenset[str]:
    """The stems of what ``text``'s words ending in "-er" do: "boxer" -> "box", "writer" -> "write", "swimmer" ->
    "swim"; the stemmer keeps a doer apart from the doing ("boxing" -> "box")."""
    bases = []
    for w in re.findall(r"\b[a-z]{2,}ers?\b", text):
        w = w.removesuffix("s")
        bases += [w[:-1], w[:-2]] + ([w[:-3]] if w[-3] == w[-4] else [])
    return stems(" ".join(bases))


_NEGATION = re.compile(r"\b(?:not|never|no longer|neither|nor)\b|n't\b", re.I)


def _both_pair(question: str) -> list[str]:
    """The two things a yes/no question asks "both" of (:func:`both`: "Are both A and B chefs?"), not "the same"
    thing ("Are A and B both from the same country?"); [] for another question."""
    pair = both(question)
    if len(pair) != 2 or re.search(r"\bsame\b", question, re.I) or not re.search(r"\bboth\b", question, re.I):
        return []
    return pair


def both_say(question: str, sentences: Sequence[str]) -> bool:
    """For a yes/no question asking the same of two things ("Are Marilyn Manson and Joe Lynn Turner
    both American singer, songwriters?"; not "the same country"): whether, for each thing, a sentence
    of ``sentences`` naming it alone, in its subject, says every other content word of the question (:func:`topic`:
    "American", "singer", "songwriter"; a kind by one of its members, :func:`says_kinds`: "bassist" says "musician")
    and no negation; a sentence-pair checker cannot say "both" from two documents."""
    pair = _both_pair(question)
    if not pair:
        return False
    rest = topic(question)
    if not rest:
        return False
    return all(any(_of_one(name, other, s) and rest <= says_kinds(s) for s in sentences)
               for name, other in (pair, pair[::-1]))


def says_kinds(sentence: str) -> frozenset[str]:
    """The content stems of ``sentence`` (:func:`~vericite.engine.text.content.stems`) and those of each kind of
    :data:`_MEMBERS` it names a member of ("an English singer, songwriter, bassist" says "musician")."""
    said = stems(sentence)
    # a nationality says its country ("a Russian mathematician" is one from Russia)
    countries = {c for w in re.findall(r"[A-Z][a-z]+", sentence) for c in _COUNTRY_OF.get(w.lower(), ())}
    return said | stems(" ".join(countries)) | frozenset(kind for kind, members in _MEMBERS.items() if said & members)


def _of_one(name: str, other: str, sentence: str) -> bool:
    """Whether ``sentence`` is about ``name`` and not ``other``, and negates nothing: its subject names it, not a
    sentence naming it beside another ("Kelley L. Carter has written pieces for Vibe and Heart & Soul magazines" is
    not "Vibe is a magazine")."""
    return alone(name, other, sentence) and about_thing(name, sentence) and not _NEGATION.search(sentence)


#: kinds a document says by naming one of their members: a singer or a bassist is a musician, a novelist a writer
_MEMBERS = {next(iter(stems(k))): stems(v) for k, v in (
    ("musician", "singer songwriter bassist guitarist drummer composer pianist vocalist rapper violinist keyboardist "
                 "percussionist cellist saxophonist trumpeter organist lyricist"),
    ("writer", "novelist poet author journalist playwright screenwriter essayist lyricist"),
    ("author", "novelist poet writer playwright screenwriter essayist"),
    ("artist", "painter sculptor illustrator musician singer"))}


def one_lacks(question: str, sentences: Sequence[str]) -> str:
    """"No" to a yes/no question asking the same of two things ("Are both George Duran and Ara Babajian chefs?")
    when a sentence of ``sentences`` about one of them says every other content word of the question
    (as :func:`both_say` has it: "George Duran is a Venezuelan born American chef") and none about the other does,
    whose first sentence saying what it is (:func:`defines`, naming it alone, in its subject) leaves out a word of
    the question in lower case, not a nationality nor a verb's "-ed" form ("Ara Babajian is an American drummer";
    "located in America" is :func:`elsewhere`'s; "Papa John's Pizza is an American restaurant franchise company"
    leaves out no kind of "specialized in Pizza"; a kind one of whose members it names is not left out: "Roger Waters
    is an English singer, songwriter, bassist, and composer" is a musician, :data:`_MEMBERS`); "" otherwise, and when
    that sentence's subject goes on past the name ("Roger Waters: The Wall is a British concert film"). A
    sentence-pair checker cannot say "not both" from two documents."""
    pair = _both_pair(question)
    if not pair:
        return ""
    rest = topic(question)
    if not rest:
        return ""
    says = [any(_of_one(name, other, s) and rest <= stems(s) for s in sentences) for name, other in (pair, pair[::-1])]
    if says.count(True) != 1:
        return ""
    name, other = pair if not says[0] else pair[::-1]  # the one no sentence says it of
    first = next((s for s in sentences if _of_one(name, other, s) and defines([name], s)), "")
    # a longer thing's name is another thing ("Roger Waters: The Wall is a British concert film"): it says nothing
    # of what the one named is
    # (a bracket after the name is the name's gloss or dates: 'I Capuleti e i Montecchi ("The Capulets and ...")')
    subject = re.sub(r"\([^()]*\)", " ", COPULA.split(first, maxsplit=1)[0]) if first else ""
    if name in subject and re.search(r"\w", subject.rsplit(name, 1)[1]):
        return ""
    # a word of kind, not a place ("located in America" of "Carnegie Mellon University in Qatar": elsewhere's) nor a
    # nationality (documents often leave it out)
    kinds = stems(" ".join(w for w in re.findall(r"\b[a-z][\w'-]*", question) if not w.endswith("ed")))
    # nor a kind the sentence names one of ("Roger Waters is an English singer, songwriter, bassist, and composer" is a
    # musician)
    missing = {w for w in rest - says_kinds(first) if w in kinds and w not in DEMONYMS}
    return "No" if first and missing else ""


def about_thing(name: str, sentence: str) -> bool:
    """Whether ``sentence``'s subject names ``name``: the words before its "is"/"was"/"are"/"were", else its first
    five words ("Kelley L. Carter has written pieces for Vibe" is about Kelley L. Carter, not Vibe; "The orchid genus
    Dracula consists of 118 species" is about Dracula)."""
    m = COPULA.search(sentence)
    return _names([name], sentence[:m.start()] if m else " ".join(sentence.split()[:5]))


_SAME_Q = re.compile(r"\b(?:the|that)\s+same\s+(?:U\.?S\.?\s+)?(?P<noun>[a-z]{4,})\b", re.I)


def same(question: str, sentences: Sequence[str]) -> str:
    """"Yes" or "No" to a question asking whether two things share one thing ("Are both Dafeng District and
    Dazhou located in the same province?", "Were Scott Derrickson and Ed Wood of the same nationality?")
    when, for each, a sentence of ``sentences`` naming it alone (:func:`alone`) gives that thing: the name
    before or after the question's noun ("the Jiangsu province", "province of Sichuan"); for a nationality,
    a country or a language the first nationality word ("American", "French"); for "the same (US) state" the US
    state the sentence places it in ("from Phoenix, Arizona"); for a director the name after
    "directed by"; for "the same number of acts" the count (:func:`number`: "an opera in three acts"). ""
    when the question asks no such thing or a side gives none. A sentence-pair checker cannot compare two
    documents' provinces."""
    m = _SAME_Q.search(question)
    pair = both(question)
    if not m or len(pair) != 2:
        return ""
    noun = m.group("noun").lower()

    def value(sentence: str) -> str | None:
        if noun == "number":  # "the same number of acts": "an opera in three acts"
            n = number(question, sentence)
            return None if n is None else str(float(n))
        if noun in ("nationality", "country", "language"):
            return nationality(sentence) or (_placed_country(sentence) if noun != "language" else None)
        if noun == "state":  # "the same US state": "a band from Phoenix, Arizona"
            return next(iter(_states_placed(sentence)), None)
        if noun == "director":  # "a 2005 documentary directed by Maryam Zaree"
            hit = re.search(rf"\bdirected\s+by\s+({NAME_RUN.pattern})", sentence)
            return hit.group(1).lower() if hit else None
        hit = (re.search(rf"({NAME_RUN.pattern})\s+{noun}\b", sentence)
               or re.search(rf"\b{noun}\s+of\s+({NAME_RUN.pattern})", sentence, re.I))
        return hit.group(1).lower() if hit and hit.group(1).lower() != "the" else None

    values = _per_side(pair, sentences, value)
    return "" if values is None else ("Yes" if values[0] == values[1] else "No")


_US_STATES = frozenset("""Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Georgia Hawaii
Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts Michigan Minnesota Mississippi
Missouri Montana Nebraska Nevada Ohio Oklahoma Oregon Pennsylvania Tennessee Texas Utah Vermont Virginia Washington
Wisconsin Wyoming""".split()) | {"New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina",
                                 "North Dakota", "Rhode Island", "South Carolina", "South Dakota", "West Virginia"}
_THE_US = frozenset({"U.S.", "US", "USA", "U.S.A.", "United States", "United States of America", "America"})
#: "Are both A and B located in Michigan?", "Were the bands A and B from the U.S.?"
_PLACE_Q = re.compile(f"(?i:{_AUX})" + r"(?:both\s+)?(?:the\s+(?:[a-z]+\s+)?)?(?P<a>.+?)\s+and\s+(?:the\s+)?(?P<b>.+?)\s+"
                      r"(?:both\s+)?(?:(?:located|based|headquartered|situated|found)\s+in|from|in)\s+(?:the\s+)?(?P<place>[A-Z][\w.]*"
                      r"(?:\s+(?:of\s+)?[A-Z][\w.]*)*)$")
#: countries a sentence places a thing in ("an alternative rock band from Bulgaria"; not the United States), each with
#: its nationality word, for :func:`same` to compare with one ("Wales": "welsh")
_NATIONALITY = {"Britain": "british", "England": "english", "Scotland": "scottish", "Wales": "welsh", "Ireland": "irish",
                "France": "french", "Germany": "german", "Italy": "italian", "Spain": "spanish", "Portugal": "portuguese",
                "Netherlands": "dutch", "Belgium": "belgian", "Switzerland": "swiss", "Austria": "austrian",
                "Sweden": "swedish", "Norway": "norwegian", "Denmark": "danish", "Finland": "finnish",
                "Iceland": "icelandic", "Poland": "polish", "Russia": "russian", "Ukraine": "ukrainian", "Greece": "greek",
                "Turkey": "turkish", "Hungary": "hungarian", "Romania": "romanian", "Bulgaria": "bulgarian",
                "Serbia": "serbian", "Croatia": "croatian", "Canada": "canadian", "Mexico": "mexican", "Brazil": "brazilian",
                "Argentina": "argentine", "Chile": "chilean", "Colombia": "colombian", "Peru": "peruvian", "Cuba": "cuban",
                "Australia": "australian", "Japan": "japanese", "China": "chinese", "Korea": "korean", "India": "indian",
                "Pakistan": "pakistani", "Iran": "iranian", "Iraq": "iraqi", "Israel": "israeli", "Egypt": "egyptian",
                "Nigeria": "nigerian", "Kenya": "kenyan", "United Kingdom": "british", "New Zealand": "zealander",
                "South Africa": "african", "Czech Republic": "czech", "South Korea": "korean",
                "North Korea": "north korean", "Philippines": "filipino", "Indonesia": "indonesian", "Vietnam": "vietnamese",
                "Thailand": "thai", "Malaysia": "malaysian", "Singapore": "singaporean", "Qatar": "qatari"}
_COUNTRIES = frozenset(_NATIONALITY)
#: each nationality word with the one-word countries it names ("russian": "Russia"), for :func:`says_kinds`
_COUNTRY_OF: dict[str, tuple[str, ...]] = {
    word: tuple(c for c, w in _NATIONALITY.items() if w == word and " " not in c)
    for word in {w for c, w in _NATIONALITY.items() if " " not in c}} | {"american": ("America",)}
#: a nationality word inside a name, not a thing's nationality: after "the" (and a year) and before a capitalised
#: word ("at the 1993 French Open", "the American Hockey League"; not "an American Olympic swimmer")
_BEFORE_NAME = re.compile(r"\bthe\s+(?:\d{4}\s+)?$")


def nationality(sentence: str) -> str | None:
    """The first nationality word of ``sentence`` (:data:`~vericite.engine.text.entities.DEMONYMS`, lower case:
    "american"), leaving out one inside a name (:data:`_BEFORE_NAME`: "the 1993 French Open"); None when it has
    none."""
    for m in re.finditer(r"\b[A-Z][a-z]+\b", sentence):
        if m.group(0).lower() not in DEMONYMS:
            continue
        if _BEFORE_NAME.search(sentence[:m.start()]) and re.match(r"\s+[A-Z]", sentence[m.end():]):
            continue
        return m.group(0).lower()
    return None


# the words a sentence names the United States by; the nationalities that are not it
_US_WORDS = re.compile(r"\b(?:American|America|United States|U\.S\.|USA)\b")
_ELSEWHERE = DEMONYMS - {"american", "christian", "catholic", "muslim", "jewish", "roman", "byzantine"}


def _states_placed(sentence: str) -> list[str]:
    """The US states ``sentence`` places its subject in, as a place is written ("from Phoenix, Arizona", "in Texas"),
    in alphabetical order."""
    return [st for st in sorted(_US_STATES) if re.search(rf"(?:,\s*|\b(?:in|from)\s+){st}\b", sentence)]


def _placed_country(sentence: str) -> str | None:
    """The nationality word of the country or US state a sentence places its subject in, as a place is written ("from
    Cardiff, Wales" -> "welsh"; "in Austin, Texas" -> "american"); None when it places it in none or in two."""
    placed = {_NATIONALITY[c] for c in _NATIONALITY if re.search(rf"(?:,\s*|\b(?:in|from)\s+(?:the\s+)?){c}\b", sentence)}
    if _states_placed(sentence) or re.search(
            r"\b(?:in|from)\s+the\s+(?:United\s+States|U\.S\.)", sentence):
        placed.add("american")
    return placed.pop() if len(placed) == 1 else None


def elsewhere(question: str, sentences: Sequence[str]) -> str:
    """"No" to a question asking whether two things are in one US state or in the United States ("Are both
    Elko Regional Airport and Gerald R. Ford International Airport located in Michigan?", "Were the bands
    Skin Yard and Ostava from the U.S.?") when the first sentence of ``sentences`` opening with one of them
    and naming it alone (:func:`alone`; not "A in Qatar", a part of it) that places it places it elsewhere:
    another state and not the one asked ("in Elko County, Nevada"), or, for the United States, a nationality
    not American or another country, and no American place ("a Bulgarian band", "a band from Bulgaria"); "Yes"
    when the first such sentence about each places it there ("an American rock band", "in Pittsburgh,
    Pennsylvania" for the United States); "" otherwise. A question asking whether both are American things
    ("Are both Skye Sweetnam and Spin Doctors considered American musicians?", :func:`_american_pair`) gets only
    the "No" ("a Canadian singer-songwriter"; "in Austria"): being American does not make a band musicians. A
    sentence-pair checker cannot say "both" or "not both" from one document."""
    found = _placed_pair(question.strip().rstrip("?").rstrip()) or _american_pair(question)
    if not found or (found[2] not in _US_STATES and found[2] not in _THE_US and found[2] != _AMERICAN):
        return ""
    a, b, place = found
    only_no = place == _AMERICAN  # "both American musicians?": an American band need not be musicians

    def placed(sentence: str) -> bool | None:  # True: there; False: elsewhere; None: says neither
        # a state as a place is written: "in Elko County, Nevada", "from Michigan" (not "a Texas businessman")
        states = {st for st in _US_STATES if re.search(rf"(?:,\s*|\b(?:in|from)\s+(?:the\s+state\s+of\s+)?){st}\b", sentence)}
        if place in _US_STATES:
            return True if place in states else (False if states else None)
        other = any(w.lower() in _ELSEWHERE for w in re.findall(r"[A-Z][a-z]+", sentence))
        if states or _US_WORDS.search(sentence):
            return None if other and not states else True  # "a Bulgarian-American band": neither
        if other:
            return False
        return False if any(re.search(rf"\b(?:from|in)\s+(?:the\s+)?{c}\b", sentence) for c in _COUNTRIES) else None

    verdicts = []
    for name, other in ((a, b), (b, a)):
        # a sentence about the thing itself, opening with it; not one about a part of it elsewhere
        # ("Carnegie Mellon University in Qatar is one of the branch campuses ...")
        about = [s for s in sentences if alone(name, other, s) and _opens_with([name], s)
                 and not re.search(rf"\b{re.escape(name)}\s+(?:in|of)\s+[A-Z]", s)]
        verdicts.append(next((v for s in about if (v := placed(s)) is not None), None))
    if False in verdicts:
        return "No"
    # both placed there ("an American rock band", "in Pittsburgh, Pennsylvania")
    return "Yes" if verdicts == [True, True] and not only_no else ""


#: the place :func:`_american_pair` stands for: the United States, asked of as a nationality
_AMERICAN = "American"


def _american_pair(question: str) -> tuple[str, str, str] | None:
    """The two things of "Are both Skye Sweetnam and Spin Doctors considered American musicians?" (a yes/no
    question asking the same of two things, :func:`both`, whose words besides the two say "American") and
    :data:`_AMERICAN`; None for another question or an "American" inside a name ("American Hardcore")."""
    pair = _both_pair(question)
    if not pair:
        return None
    rest = question
    for name in pair:
        rest = rest.replace(name, " ")
    return (pair[0], pair[1], _AMERICAN) if re.search(r"\bAmerican\b", rest) else None


#: "Were A and B both formed before 2010?": the event and the year both are asked against
_BOTH_BY_YEAR = re.compile(r"\bboth\b.*?\b(?P<dir>before|after|prior\s+to|earlier\s+than|later\s+than|since)\s+"
                           r"(?:the\s+year\s+)?(?P<y>\d{4})\b", re.I)


def by_year(question: str, sentences: Sequence[str]) -> str:
    """"Yes" or "No" to "Were Sound Team and Dead by Sunrise both formed before 2010?" when the sentence about
    each (:func:`alone`) dates the event asked ("formed in 2000", "formed in 2005"): "Yes" when both dates are
    on the side of the year asked, else "No"; "" when the question asks no such thing or a side gives no date.
    A sentence-pair checker cannot say "both" from two documents."""
    m = _BOTH_BY_YEAR.search(question)
    pair = both(question)
    if not m or len(pair) != 2:
        return ""
    year = int(m.group("y"))
    event = answer_words(question, " ".join(pair)) - stems(f"{_ORDER_WORDS} {m.group('dir')} both {year}") - _COMPARING
    dates = _per_side(pair, sentences, lambda s: _date_of(question, event, s) if event else None)
    if dates is None:
        return ""
    before = m.group("dir").lower().split()[0] in ("before", "prior", "earlier")
    return "Yes" if all((d[1][0] < year) if before else (d[0][0] > year) for d in dates) else "No"


def by_sides(question: str, sentences: Sequence[str]) -> str:
    """"Yes" or "No" the sentences about each of two things give a question asking whether they share one
    thing (:func:`same`), both came before or after a year (:func:`by_year`) or one came before the other
    (:func:`by_order`), else "No" when one of them is
    placed elsewhere (:func:`elsewhere`), or when one of two things asked the same of is said to be it and the other
    said to be something else (:func:`one_lacks`); ""."""
    return (same(question, sentences) or by_year(question, sentences) or by_order(question, sentences)
            or elsewhere(question, sentences) or one_lacks(question, sentences))


#: a comparison by where two things lie ("further south", "farther north", "westernmost")
_DIRECTION_Q = re.compile(r"\b(?:further|farther|more)\s+(?:north|south|east|west)(?:ward)?\b"
                          r"|\b(?:north|south|east|west)ernmost\b", re.I)
#: the words that compare two things by time, amount, frequency or direction
_COMPARISONS = (_EARLIER, _LATER, _MORE, _FEWER, _OFTEN_Q, _DIRECTION_Q)


def restates_comparison(claim: str, question: str, premise: str) -> bool:
    """Whether ``claim`` states the comparison ``question`` asks ("The Second Battle of Guam occurred first"
    for "Which battle occurred first, the Battle of Manila or the Battle of Guam?"; "Waterton Lake is located further
    south" for "Which lake is located further south, Dal Lake or Waterton Lake?") from a ``premise`` (its
    cited documents) that does not name both things: it has the question's comparing word ("first",
    "older", "more") and, when the question has any, a word of the event compared ("occurred"), and names
    one of the two. One document about one of them cannot say which of two comes first; a sentence-pair
    checker passes such a claim from a document that dates only one ("was the first major battle"). Documents naming
    both say it only in a sentence naming the one claimed with a comparing word ("came before", "more"): "Debi Thomas
    has won the most Olympic medals" from a page on her rivalry with Katarina Witt and Witt's own page ("one of the
    most successful figure skaters") is no comparison they make."""
    pair = choices(question)
    if len(pair) != 2:
        return False
    comparing = {w.lower() for p in _COMPARISONS for w in p.findall(question)}
    if not comparing or not any(re.search(rf"\b{re.escape(w)}\b", claim, re.I) for w in comparing):
        return False
    event = answer_words(question, " ".join(pair)) - stems(" ".join(comparing)) - _COMPARING
    if event and not event & stems(claim):
        return False
    said = [n for n in pair if named(n, claim)]
    if not said:
        return False
    if not (named(pair[0], premise) and named(pair[1], premise)):
        return True
    # a premise naming both says it in a sentence naming the one claimed with a comparing word ("came before"; not
    # "Debi Thomas has won the most Olympic medals" from documents naming both rivals and another's "one of the most")
    return not any(any(p.search(s) for p in _COMPARISONS) and any(named(n, s) for n in said)
                   for s in split_sentences(premise))


def measures(question: str, name: str, other: str, sentence: str) -> bool:
    """Whether ``sentence`` gives ``name`` (and not ``other``) the date or number ``question``
    compares them by: a sentence that lets :func:`compared` decide."""
    if not alone(name, other, sentence):
        return False
    if bool(_EARLIER.search(question)) != bool(_LATER.search(question)):
        if _date_of(question, _event(question, (name, other)), sentence):
            return True
    return number(question, sentence) is not None
