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
writes them (it names the alias). A claim copying a document sentence's predicate onto another
subject than the sentence's own ("Béla Gaál was the first sound film ..." from "His 1930 film ... was the
first sound film ...") fails too (:func:`swapped_subject`), and so does one giving the "He" of a document about
another person someone else's name (:func:`pronoun_of_another`) or naming its subject again as the other side of its
relation (:func:`names_itself`, :func:`self_related`); other swapped roles between two names both in the document it
cannot see. It rejects a correct claim that names an entity by a form its document does not
use ("the U.S." for "United States"), which the support bench measures.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import snowballstemmer

from .content import FUNCTION_WORDS, META_WORDS

#: a run of capitalised words: a name as written ("Sir Robert Peel", "Islam", "Jiangsu")
NAME_RUN = re.compile(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")
#: a name with its "of" parts: "University of Miami", "Duke of York", "Modern Drummer Hall of Fame"
FULL_NAME = r"[A-Z][\w'’-]*(?:\s+(?:of(?:\s+the)?\s+)?[A-Z][\w'’-]*)*"

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
#: "The film stars ...", "This mixtape was released ...": after naming its subject once, a document calls it by
#: what it is
SUBJECT_NOUN = r"(?:The|This) (?P<noun>[a-z]{3,})"


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


#: country abbreviations documents write for the names questions spell out
_SHORT = {"US": "United States", "USA": "United States", "UK": "United Kingdom"}
_SHORT_FORM = re.compile(r"(?<![\w.])(?:U\.S\.A\.|U\.S\.|U\.K\.|USA|US|UK)(?![\w])")


@lru_cache(maxsize=1024)  # a document is the premise of many claims (in both modes)
def _vocabulary(text: str, capitalised: bool = False) -> tuple[str, frozenset[str], frozenset[str]]:
    """(lower-cased text, its word stems, the 5-letter prefixes of its stems of 5+ letters); ``capitalised``: the
    stems of its capitalised words only. The country abbreviations read as the names they stand for (:data:`_SHORT`:
    "the 8th largest commercial airline in the US" names the United States)."""
    text = _SHORT_FORM.sub(lambda m: _SHORT[m.group(0).replace(".", "")], text)
    stems = frozenset(_stem(p) for w in _words(text) for p in w.split("-") if p and (not capitalised or p[0].isupper()))
    return text.lower(), stems, frozenset(s[:5] for s in stems if len(s) >= 5)


def found(name: str, text: str) -> bool:
    """Whether ``name`` occurs in ``text``: as written (case aside), as the same stem, as a stem
    of 4+ letters that begins the other ("Генрихом" -> "генрих" ~ "Генрих" -> "генр"; in Latin script with at most
    three letters more or fewer: "Texan" ~ "Texas", not "Generalissimo" ~ "General"), or (5+
    letters, Cyrillic) as a stem with the same first five letters and at most two more or fewer
    ("Норманные" ~ "Норманны"): inflections and derived forms the stemmer does not join (English stems join
    them; there the rule made "Collectibles" a form of "College"). A name of
    several words is found when it occurs as written or each of its words is found ("Muskegon County
    Airport" is not found in "North Muskegon": the stem of the whole begins with "muskegon"). A capitalised
    Latin-script name's other forms are looked for among the text's capitalised words only: "Young" is not found
    in "younger siblings" (an English name's forms keep its capital; a Russian name's adjective does not:
    "Москва", "московский"). A country's abbreviation and its name find each other (:data:`_SHORT`: "United" in
    "the 8th largest airline in the US", "US" in "U.S. President")."""
    name = _SHORT.get(name.replace(".", ""), name)  # "US" is found where the text says "U.S." or "United States"
    low, stems, prefixes = _vocabulary(text, name[:1].isupper() and _script(name) == "latin")
    if re.search(r"(?<!\w)" + re.escape(name.lower()) + r"(?!\w)", low):
        return True
    if len(parts := name.split()) > 1:
        return all(found(p, text) for p in parts)
    st = _stem(name)
    if st in stems:
        return True
    if len(st) < 4:
        return False
    # a Latin stem begins another only as an ending does ("Texan", "Japanese"): "General" is no form of "Generalissimo";
    # a surname made of a first name is another name ("Johnson" is not "John", "Peterson" not "Peter")
    near = _script(name) != "latin"
    return any((s.startswith(st) or st.startswith(s)) and len(s) >= 4 and (near or abs(len(s) - len(st)) <= 3
                                                                       and not _patronymic(s, st))
               for s in stems) or (
        len(st) >= 5 and _script(name) == "cyrillic" and st[:5] in prefixes
        and any(abs(len(s) - len(st)) <= 2 and s[:5] == st[:5] for s in stems))


#: first words of a place's name, not a person's given name: "New York" and "New Jersey" are no namesakes
_PLACE_OPENERS = frozenset("new north south east west northern southern eastern western central upper lower great "
                           "greater united old san santa saint st los las la le fort port mount lake".split())


#: words of things' names, not people's: a run holding one names no person ("Tanjong Pagar Centre", "Green Party")
_THING_WORDS = frozenset("""league party pact treaty mountains mountain plateau town city state county district province
river lake bay strait sea ocean island islands rock hill valley park bridge road street station airport port harbour
harbor university college school academy institute club team association federation society union centre center
museum gallery library house hall church cathedral temple company corporation group band records album film series
show season war battle army navy brigade battalion division regiment constituency emperor empire kingdom dynasty king
queen prince princess doctor general major captain sir lord lady saint trouble bloods skies plaza tower inn trip
festival award awards cup championship tournament games olympics grc radio government governor program programme
provider base hotel quartet mi de la le el los las del di da van von""".split())


def _name_runs(text: str) -> list[list[str]]:
    """``text``'s runs of capitalised words (:data:`NAME_RUN`), each as its words, a possessive "'s" removed and
    the words opening a sentence that name nothing (:data:`COMMON`: "What", "Did") left out."""
    runs = []
    for m in NAME_RUN.finditer(text):
        words = [re.sub(r"['’]s$", "", w) for w in m.group(0).split()]
        while words and words[0].lower() in COMMON:
            words = words[1:]
        if words:
            runs.append(words)
    return runs


def namesake(text: str, question: str) -> str:
    """The name in ``text`` of another person with two given names of a person the ``question`` names: a run of three
    or more capitalised words (:func:`_a_person`) whose words but the last are two or more of the given names of a run
    of the question (all its words but the last), whose last word is not the question's, where the question's last
    word (the surname) is found nowhere in ``text`` ("Karl Hermann Knoblauch was a German physicist" for "What rank was
    higher than Karl Hermann Frank's rank ...?": a distractor document about a namesake); "" when none. One first name
    is shared by too many ("George Mikan" is the answer to a question about George Harry Yardley's record), and a
    place's first word makes no given name ("New Jersey", "New York")."""
    asked = _people_of(question)
    for run in _name_runs(text) if asked else ():
        for q in asked:
            if (len(run) >= 3 and _a_person(run) and set(run[:-1]) <= set(q[:-1]) and run[-1] not in q
                    and not found(q[-1], text)):
                return " ".join(run)
    return ""


@lru_cache(maxsize=256)  # one question is read against every candidate sentence
def _people_of(question: str) -> tuple[list[str], ...]:
    """The question's runs of three or more words that read as a person's name (:func:`_a_person`)."""
    return tuple(r for r in _name_runs(question) if len(r) >= 3 and _a_person(r))


def _a_person(run: Sequence[str]) -> bool:
    """Whether a run of capitalised words reads as a person's name: two or more words of letters, none a word of
    things' names (:data:`_THING_WORDS`: "Warsaw Treaty", "Ozark Plateau", "Doctor Who", "Football League") and the
    first no place's opener ("New", "San")."""
    return (len(run) >= 2 and run[0].lower() not in _PLACE_OPENERS
            and all(w.isalpha() and w.lower() not in _THING_WORDS for w in run))


def _patronymic(a: str, b: str) -> bool:
    """Whether one of two stems is the other with a surname's "-son" / "-sen" ("johnson", "john")."""
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[len(shorter):] in ("son", "sen")


def unsupported_names(premise: str, hypothesis: str) -> list[str]:
    """The names of ``hypothesis`` that ``premise`` does not contain (empty: the guard passes),
    in order, each once."""
    out: list[str] = []
    for n in names(hypothesis):
        if n not in out and not found(n, premise):
            out.append(n)
    return out


#: "is"/"was"/"are"/"were" between a subject and what is said of it
COPULA = re.compile(r"\s(?:is|was|are|were)\s")
_TOKEN = re.compile(r"\w+")
_POSSESSIVES = frozenset({"his", "her", "its", "their"})
_COPULAS = frozenset({"is", "was", "are", "were"})
_HAS = frozenset({"has", "had", "have"})
_SMALL = frozenset({"on", "in", "at", "the", "a", "an", "of"})
#: a preposition after a copied predicate: what follows is where or of what, not the subject said again
_PLACED = re.compile(r"[\s,]*(?:in|of|at|on|from|near|for)\b", re.I)
#: a preposition inside a copied predicate: a name right after the predicate closes that phrase
_OWN_PHRASE = re.compile(r"\b(?:of|for|by|with|from)\b", re.I)
#: the predicate words a claim must have (one fewer but small words) and share in a row with a document sentence
_PREDICATE_WORDS = 4
_PREDICATE_KEY = 8


#: a full stop that ends no sentence: an initial ("Thomas R. Jackson") or a short form ("St. Peter's")
_NOT_AN_END = r"(?<!\s[A-Z])(?<!^[A-Z])(?<!\bSt)(?<!\bMt)(?<!\bDr)(?<!\bMr)(?<!\bJr)(?<!\bSr)(?<!\bvs)"


def _doc_subject(premise: str, at: int) -> str:
    """The words of ``premise``'s sentence before position ``at`` (its verb): the subject as written."""
    ends = re.finditer(_NOT_AN_END + r"[.!?]\s+(?=[\"“(]?[A-Z])|\n", premise[:at])
    return premise[max((m.end() for m in ends), default=0):at].strip()


def _head(subject: str) -> str:
    """A subject up to its first comma, bracket, semicolon or dash ("Tales Of Budapest (Hungarian: ...)" ->
    "Tales Of Budapest")."""
    return re.split(r"\s*(?:[,(;]|\s[–—-]\s)", subject, maxsplit=1)[0].strip()


def _inside_longer(name: str, text: str) -> bool:
    """Whether ``name`` is in ``text`` only as the start of a longer word, four letters or more longer: another
    name ("Jefferson" in "Jeffersontown"), not an inflection of it ("Генрих" in "Генрихом")."""
    return (bool(re.search(rf"(?<!\w){re.escape(name)}\w{{4,}}", text))
            and not re.search(rf"(?<!\w){re.escape(name)}\w{{0,3}}(?!\w)", text))


def _subject_swapped(doc_subject: str, subject: str, titles: Sequence[str]) -> bool:
    """Whether a document sentence whose subject is ``doc_subject`` says its predicate of another thing than
    ``subject``: of what a possessive names ("His 1930 film"), or of the document's own subject (its title, or
    "It") where the claim's subject is another thing or only a part of the title ("Memoir of Halldór Laxness").
    False when the subject as written names every word of the claim's (an alias: "Damon Gough, known as Badly Drawn
    Boy"; a surname alone is not one: "Louis Armstrong" is not 'Lillian "Lil" Hardin Armstrong'),
    or the verb is a later one of the sentence ("It is listed on ... and is a constituent of ...")."""
    said = names(subject)
    # an alias names every word of the claim's subject; a shared surname alone does not ("Louis Armstrong" is not
    # 'Lillian "Lil" Hardin Armstrong', his wife)
    if re.search(r"\b(?:and|or|but|which|who|that)$", doc_subject) or said and all(
            found(n, doc_subject) and not _inside_longer(n, doc_subject) for n in said):
        return False
    head = _head(doc_subject)
    words = head.split()
    if words and words[0].lower() in _POSSESSIVES:  # "His 1930 film": the film, not him, unless the claim says whose
        rest = {w.lower() for w in _TOKEN.findall(" ".join(words[1:]))} - FUNCTION_WORDS
        return not rest & {w.lower() for w in _TOKEN.findall(subject)}
    own = [n for t in titles if (n := names(re.split(r"\s*[,(]", t, maxsplit=1)[0]))]  # "Gold Hill, North Carolina"
    if head in ("It", "This"):  # the document's subject: the claim's is a part of its title, not the title
        return any(all(found(w, " ".join(t)) for w in said) and not all(found(w, subject) for w in t) for t in own)
    # a sentence about the document's own subject ("Tales Of Budapest is a 1937 Hungarian comedy film")
    return any(all(found(w, head) for w in t) for t in own)


def self_related(hypothesis: str) -> str:
    """The subject of a ``hypothesis`` that relates it to itself ("Daniel Webster was the second wife of Daniel
    Webster", a rewrite of "Caroline LeRoy Webster ... was the second wife of ... Daniel Webster"): "<name>
    is/was/are/were ..." whose predicate names the same name again, as written and not as part of a longer one
    ("Walt Disney was the founder of the Walt Disney Company", "Smith was the son of John Smith", "X is the
    brother of X's wife" are not); "" otherwise. Every word is in the document, so a sentence-pair checker
    passes it."""
    m = COPULA.search(hypothesis)
    subject = hypothesis[:m.start()].strip() if m else ""
    if not m or not names(subject) or len(subject.split()) > 8 or re.fullmatch(r"The\s+\S+", subject):
        return ""
    rest = hypothesis[m.end():]
    if re.match(r"\s*(?:born\s+as|born|(?:also\s+)?known\s+as|called|named)\b", rest):
        return ""  # "Michel Dahmani is born as Michel Dahmani": another name of it, said as itself
    # the predicate is a relation of the same name: "the (second) wife of (statesman) X" ("OK Go is the debut album
    # by American rock band OK Go", "Agabus is a genus ... named after Agabus" are a work or a name after its maker)
    k = re.match(rf"\s*(?:the|an?)\s+(?:[\w-]+\s+){{0,3}}?of\s+(?:[\w-]+\s+){{0,3}}?{re.escape(subject)}(?![\w'’-])",
                 rest)
    if k and not re.match(r"\s+(?:[A-Z0-9]|[-–—&])", rest[k.end():]) and not rest[:k.end()].rstrip().endswith(
            tuple(f" {w}" for w in ("of", "the"))) and not re.search(r"[A-Z]\S*\s+" + re.escape(subject) + "$",
                                                                     rest[:k.end()]):
        return subject
    return ""


#: the name a sentence opens with, its "of" parts and numbers included ("Red Dead Redemption 2", "University of
#: Miami"), then the verb: a copula or auxiliary, a past or present form ("played", "plays"), or a common
#: irregular past
_OPENING_NAME = re.compile(r"(?:The\s+)?(?P<name>[A-Z][\w'’-]*(?:\s+(?:(?:of(?:\s+the)?\s+)?[A-Z][\w'’-]*|\d+\b))*)"
                           r"\s+(?=(?:is|was|are|were|has|had|have|became|becomes|won|wrote|made|took|gave|led|held|"
                           r"left|met|ran|sang|began|came|went|grew|lost|sold|built|fought|taught|brought|found|kept|"
                           r"sent|[a-z]+ed|[a-z]+[^s\W]s)\b)")
#: what ends the clause the opening name is the subject of: a mark or a word that opens another clause
_CLAUSE_END = re.compile(r"[,;:()\[\]–—]|\s-\s|\b(?:when|while|where|which|who|whom|whose|that|because|although|"
                         r"though|but|until|whereas|if)\b")
#: words before a name that make it another thing of that name (a namesake, an alias, a self-titled work, its
#: maker): "named after the ancient city Sicyon", "known as the X", "titled Pipes of Peace", "by X"
_ANOTHER_OF_THE_NAME = re.compile(r"\b(?:titled|entitled|named|called|known\s+as|after)\b|\b(?:as|by|album|single)\s+"
                                  r"(?:the\s+)?$", re.I)
#: what may follow the name said again: the sentence's end, a mark, or a small word (not a noun: "Virginia
#: state parks", "the Finger Lakes region")
_NAME_ENDS = re.compile(r"\s*(?:$|[.,;:!?)]|(?:in|as|at|on|for|with|to|from|by|and|or|during|since|before|after)\b)")


def opening_name(sentence: str) -> str:
    """The name ``sentence`` opens with as the subject of its first verb ("Garrett Morris" of "Garrett Morris played
    Stan Winters ...", "University of Miami" of "The University of Miami is ..."; see :data:`_OPENING_NAME`); "" when
    it opens otherwise ("In 1990, ...", "The American comedian who ...")."""
    m = _OPENING_NAME.match(sentence)
    return m.group("name") if m else ""


def names_itself(hypothesis: str) -> str:
    """The name a ``hypothesis`` opens with, as the subject of its first verb, when the same clause names it again
    as the other side of the relation ("Yanzhou District is under Yanzhou District", "Red Dead Redemption 2 played
    up the features of Red Dead Redemption 2", "Ernst Mach became an assistant to professor Ernst Mach"): a rewrite
    that put the subject where the document has another name; "" otherwise. Not it: the name inside a longer one
    ("... founded the Walt Disney Company") or before a noun ("Virginia has 34 Virginia state parks"), a possessive,
    in quotes, after a word that makes it another thing of that name ("titled", "known as", "named after", "by"),
    in another clause ("..., but the United States had ..."), or a nationality ("Libyan authorities ... Libyan
    funds"). Every word is in the document, so a sentence-pair checker passes it; :func:`self_related` is the
    "<name> is the ... of <name>" case."""
    m = _OPENING_NAME.match(hypothesis)
    subject = m.group("name") if m else ""
    if (not m or not names(subject) or len(subject.split()) > 8
            or all(w.lower() in DEMONYMS or w.lower() in COMMON for w in subject.split())):
        return ""
    rest = hypothesis[m.end():]
    for k in re.finditer(rf"(?<![\w'’-]){re.escape(subject)}(?![\w'’-])", rest):
        before, after = rest[:k.start()], rest[k.end():]
        if _CLAUSE_END.search(before):
            return ""
        if (re.search(r"[A-Z][\w'’-]*\s+$|[\"“'‘«]\s*$", before) or _ANOTHER_OF_THE_NAME.search(before)
                or not _NAME_ENDS.match(after)):
            continue
        return subject
    return ""


def _big_words(text: str) -> list[tuple[int, str]]:
    """(start, lower-cased word) of each word of ``text`` but the :data:`_SMALL` ones a rewrite adds or drops."""
    return [(t.start(), w) for t in _TOKEN.finditer(text) if (w := t.group(0).lower()) not in _SMALL]


def swapped_subject(premise: str, hypothesis: str, titles: Sequence[str] = ()) -> str:
    """The subject of the ``premise`` sentence whose predicate the ``hypothesis`` copies onto another
    subject ("Béla Gaál was the first sound film to be made in Hungary" from 'His 1930 film "Csak egy
    kislány" was the first sound film to be made in Hungary' -> 'His 1930 film "Csak egy kislány"'; "Halldór
    Laxness was the memoir of novelist ..." from "It is the memoir of novelist ..." in the document titled
    "Memoir of Halldór Laxness" -> "It"); "" when it copies none or says it of the same thing.

    The hypothesis is "<name> is/was/are/were <predicate>"; its predicate's first words (at least four)
    must follow "is/was/are/were" in the premise, and every sentence where they do must say them of
    another thing: a name that shares none of the hypothesis subject's names, a possessive ("His film"),
    or "It" for a document whose ``titles`` (the cited documents') hold the subject as a part ("Memoir of
    Halldór Laxness"); or "has" ("Frank Iero is a solo punk rock project" from "He has a solo punk rock project":
    -> "He has"); or a life's date ("Connie Willis was born on October 12, 1942" from "Cynthia Felice (born October
    12, 1942, ...)" in the document "Cynthia Felice" -> "Cynthia Felice"); or the name the whole predicate stands
    before ("Czesław Miłosz is an Argentinian tango superstar" from "films on Nobel Laureate Czesław Miłosz and
    Argentinian tango superstar Carlos Gardel" -> "Carlos Gardel"). Small words ("on", "the", "a", ...) are
    not compared. A sentence-pair checker passes such a claim: every word is in the document."""
    m = COPULA.search(hypothesis)
    subject = hypothesis[:m.start()].strip() if m else ""
    if not m or not names(subject) or len(subject.split()) > 8 or re.fullmatch(r"The\s+\S+", subject):
        return ""  # "The Basilica": a description, not a name
    # the predicate's words but the small ones a rewrite adds or drops ("born on October 12" / "(born October 12")
    predicate = [w for _, w in _big_words(hypothesis[m.end():])]
    key = predicate[:_PREDICATE_KEY]
    if len(_TOKEN.findall(hypothesis[m.end():])) < _PREDICATE_WORDS or len(key) < _PREDICATE_WORDS - 1:
        return ""
    spans = _big_words(premise)
    toks = [w for _, w in spans]
    swapped = ""
    said = names(subject)
    alias = re.match(r"\s*(?:born\s+as|born|(?:also\s+)?known\s+as|called|named)\b", hypothesis[m.end():])
    if alias and any(found(n, hypothesis[m.end():]) for n in said):  # "Michel Dahmani is born as Michel Dahmani"
        return ""
    own_phrase = bool(_OWN_PHRASE.search(hypothesis[m.end():]))  # "... cofounder of ... startup": the name closes it
    for i in range(1, len(toks) - len(key) + 1):
        if toks[i:i + len(key)] != key:
            continue
        # the whole predicate copied, the document naming the subject right after it: the same said the other way
        # round ("Her husband was Icelandic Nobel Literature laureate Halldór Laxness")
        # ("Jeffersontown is a home rule-class city in Jefferson County" says it of Jeffersontown: a place, not
        # the subject again, follows "in")
        after = " ".join(w for _, w in spans[i + len(key):i + len(key) + 4])
        tail = premise[spans[i + len(key) - 1][0] + len(key[-1]):]
        # ... unless the predicate ends in a phrase of its own the name closes ("a digital strategist and cofounder
        # of global personal branding startup GlobalNiche.net": the startup is GlobalNiche.net, the strategist is
        # the sentence's subject)
        if len(predicate) == len(key) and any(found(n, after) for n in said) and not _PLACED.match(tail) \
                and not own_phrase:
            return ""
        # the whole predicate put before another name ("films on Czesław Miłosz and Argentinian tango superstar
        # Carlos Gardel" for "Czesław Miłosz is an Argentinian tango superstar")
        last = spans[i + len(key) - 1][0]  # a common noun ("superstar"), then a name after one space
        end = last + len(key[-1])
        other = NAME_RUN.match(premise[end + 1:]) if premise[end:end + 1] == " " and premise[last].islower() else None
        if len(predicate) == len(key) and other and names(other.group(0)):
            # the name closing the predicate's own phrase is the claim's subject: the sentence says it of its subject
            own = any(found(n, other.group(0)) for n in said)
            swapped = swapped or (_head(_doc_subject(premise, spans[i][0])) if own else "") or other.group(0)
            continue
        # after "is"/"was"/"has", or a life's date wherever it stands ("Cynthia Felice (born October 12, 1942")
        verb = toks[i - 1] if toks[i - 1] in _COPULAS | _HAS else ""
        if not verb and key[0] not in ("born", "died"):
            continue
        doc_subject = _doc_subject(premise, spans[i - 1][0] if verb else spans[i][0])
        if verb in _HAS:  # "He has a solo punk rock project": he has it, he is not it
            swapped = swapped or f"{_head(doc_subject)} {verb}"
            continue
        if not _subject_swapped(doc_subject, subject, titles):
            return ""  # said of the same thing (or one cannot tell) somewhere: not swapped
        swapped = swapped or _head(doc_subject)
    return swapped


#: "he"/"she" as the word right before the end of a text (only marks between)
_HE_SHE = re.compile(r"(?<!\w)(?:he|she)(?=\W*$)", re.I)


def pronoun_of_another(premise: str, hypothesis: str, titles: Sequence[str] = ()) -> str:
    """"He" or "She" when the ``hypothesis`` "<name> <verb> ..." copies a ``premise`` sentence "He/She <verb> ..."
    (its first :data:`_PREDICATE_WORDS` or more words but small ones, in a row) of a document about another person:
    the cited document's title (``titles``, one) names none of the claim's subject ("Ernst Mach came to Zagreb ...
    and founded the Physics Cabinet ..." from "He came to Zagreb ..." in the document "Vinko Dvořák", which names
    Mach as the professor he assisted); "" otherwise. A document says "He" for its subject; the extraction step
    reads it as the last name before it."""
    m = _OPENING_NAME.match(hypothesis)
    if not m or len(titles) != 1 or not names(m.group("name")):
        return ""
    said = names(m.group("name"))
    title = bare_title(titles[0])
    if any(found(n, title) for n in said) or not names(title):
        return ""
    key = [w for _, w in _big_words(hypothesis[m.end():])][:_PREDICATE_KEY]
    if len(key) < _PREDICATE_WORDS:
        return ""
    spans = _big_words(premise)
    words = [w for _, w in spans]
    for j in range(len(words) - len(key) + 1):
        if words[j:j + len(key)] != key:
            continue
        # the pronoun right before the copied words: their subject
        pronoun = _HE_SHE.search(premise[:spans[j][0]])
        if not pronoun:
            continue
        # the claim's subject named earlier in the pronoun's sentence may be whom it means ("It is the last album to
        # feature guitarist Martin Henriksson, as he left the band ...")
        opening = re.split(_NOT_AN_END + r"[.!?]\s+", premise[:pronoun.start()])[-1]
        if not any(found(n, opening) for n in said):
            return pronoun.group(0)
    return ""
