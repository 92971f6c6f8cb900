"""Statement splitting: one sentence = one statement (offline, rule-based: pysbd).

Around pysbd, the traps LLM output and other systems' answers set are handled here, once, for
the pipeline and the evaluator alike:

- Only "\\n" breaks a line; other line and paragraph separators (\\r, \\v, \\f, \\x1c-\\x1e,
  U+0085, U+2028, U+2029) are spaces, as in the citation grammar, which forbids "\\n" only.
- Abbreviations that pysbd splits after ("et al.", Russian "т.е.", "т. д.", ...) are kept inside
  their sentence; a one-letter regnal number pysbd reads as an initial ("... Henry V.  The work ...") ends
  its sentence before a word that opens one; in a passage, so does a quotation's closing stop before two
  spaces and a capital ("... "Must you bury the tune?"  In his autobiography ...").
- Numbered or bulleted list items become separate statements without their numbers
  ("Steps: 1. Mix flour [1]. 2. Bake [2]." -> "Mix flour [1].", "Bake [2]."); a lead-in that
  ends with ":" and cites nothing ("Steps:") is not a statement.
- Citation marks a splitter leaves at the start of the next sentence ("... 1998. [1] It ...")
  go back to the sentence they close; a piece with no letter or digit besides its marks ("." of
  "... [2]. It") never becomes a statement.
- Marks that are the subject of a reporting verb ("... bands. [1] states that Lee sang.") belong to
  the sentence they start: it becomes the reported claim with its marks ("Lee sang [1]."), and
  the sentence before keeps only its own marks.
- A sentence that reports what "the passage" says ("The passage states that Lee sang [2].",
  "В тексте говорится, что ...") becomes the reported claim ("Lee sang [2]."): the opener is
  about the prompt, and shown in an answer it reads as template debris.
"""
from __future__ import annotations

import re
import threading

import pysbd
from pysbd.languages import LANGUAGE_CODES

from .. import cancel
from ..errors import ConfigError
from .citations import leading_citations, normalise_citations, strip_citations

#: Line and paragraph separators other than "\n" that str.splitlines() would break at.
_SEPARATORS = re.compile("[ \t]*[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+[ \t]*")
#: Abbreviations whose full stops never end a sentence, per language ("*" = every language).
_ABBREVIATIONS = {
    "*": ("et al.", "e.g.", "i.e.", "cf."),
    "en": ("Vol.",),  # "Guardians of the Galaxy Vol. 2 is a 2017 ... film"
    "ru": ("т.е.", "т. е.", "т.к.", "т. к.", "т.д.", "т. д.", "т.п.", "т. п.", "и др.", "см.", "напр.", "англ."),
}
_DOT = "\u2024"  # ONE DOT LEADER: stands in for a protected full stop while pysbd splits
#: stands in for the bracket closing a number in brackets where a line has several ("Thursday (April 5) or Friday
#: (April 6) [2]."): pysbd reads "5)" and "6)" as a numbered list and splits before each
_CLOSE = "\u2e29"  # RIGHT DOUBLE PARENTHESIS
_NUMBER_CLOSED = re.compile(r"(\([^().?!]*\d)\)")
_UNSURE = "\ufe56"  # SMALL QUESTION MARK: stands in for a doubtful date's "?" while pysbd splits
#: a doubtful date's "?" before a bracket or dash of the same span ("Aphra Behn ( ; 14 December 1640?  (baptismal
#: date)–16 April 1689) was ..."): no question ends there (the answer showed "(baptismal date)–16 April 1689) was ...")
_DOUBTFUL_DATE = re.compile(r"(?<=\d)\?(?=\s*(?:\(\s*[a-z]|[–-]\s*\w))")
#: English abbreviations whose stop ends no sentence only before certain words: "Warner Bros. Records" (a company's
#: "Bros." inside its name; before another word it may end one: "... released from Warner Bros. "Swept Away" was
#: ..."); "Hon. Winnie Kiiza" (the honorific before a name: pysbd knows "Rev.", "Gen.", "Gov.", not "Hon."); "Sault Ste.
#: Marie" (a place's "Sainte"); "Raj Music Pvt. Ltd." and "Co. Ltd." (a company's form); "c. 800"
#: (circa before a number: "... the Old Norse language between c. 800 and 1300" was cut at "c."; "bapt. 14 December
#: 1640", a baptism's date in a life span, likewise)
_CONDITIONAL = re.compile(r"\b(?:Bros(?=\.\s+(?:Records|Pictures|Entertainment|Television|Animation|Studios?|Music|"
                          r"Interactive|Games|Family|Discovery|Home|Cartoons|Nashville)\b)|(?:Hon|Ste)(?=\.\s+[A-Z])"
                          r"|(?:Pvt|Co)(?=\.\s+Ltd\b)"
                          r"|(?<![\w.])(?:c|ca|fl|bapt)(?=\.\s*\d))\.")
#: a one-letter regnal number ending a sentence before a word that opens one ("... based on Shakespeare's Henry V.  The
#: work is dedicated ..."): pysbd reads "V." as a name's initial and keeps both sentences as one ("George C. Scott",
#: "Henry V. Smith": the next word is a name, no split)
_REGNAL_END = re.compile(r"(\b[A-Z][a-z]+\s+[IVX])\.\s+(?=(?:The|A|An|He|She|It|His|Her|Its|They|Their|This|These|In|On|At|"
                         r"After|During|Since|From)\s)")
#: a quotation closing a sentence, then two spaces and a capital (""Must you bury the tune?"  In his autobiography,
#: ..."): pysbd keeps a stop inside quotes in its sentence; the two spaces end it
_QUOTED_END = re.compile(r"([.?!][\"”])\s{2,}(?=[A-Z])")
_LIST_ITEM = re.compile(r"(?:(?<=^)|(?<=[.!?:] ))(\d{1,2})[.)]\s+(?=\S)")
_BULLET = re.compile(r"^[-*•·]\s*")
_LINE_NUMBER = re.compile(r"^\d{1,2}[.)]\s+(?=\S)")
#: "[1] states that ..." / "[2] also mentions ..." / "[1] provides additional context by stating that ...": a
#: lower-case reporting verb after leading marks
_REPORTING = re.compile(r"(?:also\s+)?(?:states|says|mentions|confirms|notes|shows|indicates|reports|explains|adds|"
                        r"suggests|describes|reveals|clarifies|specifies|explicitly states|"
                        r"provides\s+(?:additional\s+|more\s+|further\s+)?(?:context|information|details)\s+by\s+"
                        r"(?:stating|saying|noting|mentioning))\s+(?:also\s+)?(?:that\s+)?")
#: a sentence's end, then marks that are a reporting verb's subject: '... administration. [2] mentions that "X'
#: starts a new statement even where pysbd does not split (an open quotation mark before it)
_REPORTED_CLAIM = re.compile(r"(?<=[.!?])([\"”»]?)\s+(?=(?:\[\d+(?:,\s*\d+)*\]\s*)+" + _REPORTING.pattern + ")")
#: a citation mark ("[2]", "[1, 3]") and a conjunction the model leaves a statement on
_MARK = r"\[\d+(?:,\s*\d+)*\]"
_CONJUNCTION = r",?\s+(?:and|or|but|while|whereas)"
#: a statement ending in a conjunction the model left hanging ("... National Wildlife Federation, while [2]."):
#: the clause before it is the statement
_DANGLING = re.compile(_CONJUNCTION + rf"((?:\s*{_MARK})*)\s*([.!?]?)\s*$")
#: "..., and [2]. states that X": the marks the model joined to the sentence before with "and" are the
#: next reported claim's subject; the sentence before ends at the comma ("Maeterlinck. [2] states that X")
_JOINED_REPORT = re.compile(_CONJUNCTION + rf"\s+((?:{_MARK}\s*)+)\.\s*(?=" + _REPORTING.pattern + ")")
#: "Additionally, [4][5][2] states that X": a linking adverb before a reported claim's marks
_ADVERB_REPORT = re.compile(r"(?:additionally|also|furthermore|moreover|finally|lastly|similarly|in\s+addition),?\s+"
                            rf"(?=(?:{_MARK}\s*)+" + _REPORTING.pattern + ")", re.I)
#: "[4][5][2]! states that": the small model's "!" after its marks, inside a sentence
_MARKS_BANG = re.compile(r"\]!\s+(?=[a-z])")
#: what the model calls its source: "the passage", "Document"
_SOURCE = r"(?:passage|document|text|article|source)"
#: "The passage (also) states that ..." / "According to the information in the passages, ..." /
#: "В документе говорится, что ...":
#: an opener about the prompt before the claim (the 1.5B model's stage-2 facts start so, 1 answer in 10)
_PROMPT_OPENER = re.compile(
    r"(?:(?:the|this)\s+" + _SOURCE + r"\s+(?:also\s+)?"
    r"(?:states|says|mentions|notes|explains|indicates|reports|confirms)\s+(?:also\s+)?that\s+"
    r"|(?:according\s+to|based\s+on)\s+(?:(?:the|this)\s+)?(?:(?:information|facts|details)\s+(?:provided\s+|given\s+)?"
    r"(?:in|from)\s+the\s+)?" + _SOURCE + r"s?\s*(?:\[[\d,\s]+\]\s*)*,\s*"
    r"|(?:в|во)\s+(?:документе|тексте|отрывке|статье|источнике)\s+(?:также\s+)?"
    r"(?:говорится|сказано|указано|упоминается|отмечается|утверждается)\s*,?\s*(?:что\s+)?)",
    re.IGNORECASE)


def known_language(lang: str) -> bool:
    """Whether pysbd can split ``lang`` (an ISO 639-1 code such as "en", "ru")."""
    return lang in LANGUAGE_CODES


def check_language(lang: str) -> None:
    """Raise ConfigError unless pysbd can split ``lang`` (an ISO 639-1 code such as "en", "ru")."""
    if lang not in LANGUAGE_CODES:
        raise ConfigError(f"sentence splitter: unknown language {lang!r}; known: {', '.join(sorted(LANGUAGE_CODES))}")


_LOCAL = threading.local()


def _segmenter(lang: str) -> pysbd.Segmenter:
    """This thread's segmenter for ``lang``: pysbd's ``Segmenter.segment`` keeps the text it
    splits on the object, so two threads sharing one (the checker's batcher splitting premises
    while the pipeline splits claims) get each other's sentences."""
    cache = getattr(_LOCAL, "segmenters", None)
    if cache is None:
        cache = _LOCAL.segmenters = {}
    if lang not in cache:
        check_language(lang)
        cache[lang] = pysbd.Segmenter(language=lang, clean=False)
    return cache[lang]


#: pysbd's time grows with the square of a line's length (100 KB on one line: ~3 s, 200 KB: ~10 s);
#: longer lines are cut into pieces of at most this many characters first
MAX_LINE = 4000
_CUT = re.compile(r"[.!?][\"')\]]*\s+(?=\S)")


def _bounded(line: str) -> list[str]:
    """``line`` in pieces of at most :data:`MAX_LINE` characters, each cut after the last
    sentence end (punctuation, then space) in its window, else at the last space, else hard."""
    out = []
    while len(line) > MAX_LINE:
        window = line[:MAX_LINE]
        ends = [m.end() for m in _CUT.finditer(window)]
        cut = ends[-1] if ends else (window.rfind(" ") + 1 or MAX_LINE)
        out.append(line[:cut])
        line = line[cut:]
    return out + [line]


def _lines(text: str) -> list[str]:
    lines = _SEPARATORS.sub(" ", text.replace("\r\n", "\n")).split("\n")
    return [piece for line in lines for piece in (_bounded(line) if len(line) > MAX_LINE else [line])]


def _protect(line: str, lang: str) -> str:
    for abbr in (*_ABBREVIATIONS["*"], *_ABBREVIATIONS.get(lang, ())):
        if abbr in line:
            line = line.replace(abbr, abbr.replace(".", _DOT))
    line = _DOUBTFUL_DATE.sub(_UNSURE, line)
    if len(_NUMBER_CLOSED.findall(line)) > 1:  # one alone is no list, and pysbd keeps "(b. 1920)" whole by its bracket
        line = _NUMBER_CLOSED.sub(lambda m: m.group(1) + _CLOSE, line)
    return _CONDITIONAL.sub(lambda m: m.group(0)[:-1] + _DOT, line) if lang == "en" else line


def _segments(line: str, lang: str, passage: bool = False) -> list[str]:
    pieces = _segmenter(lang).segment(_protect(line, lang))
    if lang == "en":  # "... Henry V.  The work ...": two sentences (:data:`_REGNAL_END`)
        pieces = [p for piece in pieces for p in _REGNAL_END.sub("\\1.\n", piece).split("\n")]
    if passage:  # a document's '... the tune?"  In his ...' (:data:`_QUOTED_END`; an answer's citation marks follow)
        pieces = [p for piece in pieces for p in _QUOTED_END.sub("\\1\n", piece).split("\n")]
    return [s.replace(_DOT, ".").replace(_CLOSE, ")").replace(_UNSURE, "?").strip() for s in pieces]


def split_sentences(text: str, lang: str = "en") -> list[str]:
    """Plain sentence split of a passage (pysbd), line by line, blank pieces dropped.

    Raises:
        Cancelled: the question was stopped (checked before each line piece of at most
            :data:`MAX_LINE` characters, :mod:`~vericite.engine.cancel`).
    """
    out = []
    for line in _lines(text):
        cancel.check()  # pysbd's time per piece is bounded (MAX_LINE), so this bounds a stop's delay
        out += [s for s in _segments(line, lang, passage=True) if s]
    return out


def _list_items(line: str) -> list[str]:
    """A line holding a numbered list ("1. A. 2. B.") as its lead-in and items, numbers removed;
    any other line without a leading item number ("2. B" -> "B"). Only a run of numbers counting
    up from 1 is a list."""
    marks = list(_LIST_ITEM.finditer(line))
    numbers = [int(m.group(1)) for m in marks]
    if len(marks) < 2 or numbers != list(range(1, len(marks) + 1)):
        # one item per line ("1. A\n2. B", the small models' usual list): the line's own number goes
        # (else the number guard reads it as a claimed number the document lacks)
        return [_LINE_NUMBER.sub("", line)]
    pieces = [line[:marks[0].start()]]
    for m, nxt in zip(marks, marks[1:] + [None]):
        pieces.append(line[m.end():nxt.start() if nxt else len(line)])
    return [p.strip() for p in pieces if p.strip()]


def _is_lead_in(sent: str) -> bool:
    """A heading such as "Steps:" that introduces a list and claims nothing."""
    return sent.rstrip().endswith(":") and not leading_citations(sent)[0] and "[" not in sent


def split_statements(text: str, lang: str = "en") -> list[str]:
    """Split LLM output into sentences, keeping each sentence's citation marks with it.

    See the module docstring for the traps handled. Blank lines and list bullets are dropped.
    ``lang`` is an ISO code pysbd knows ("en", "ru", ...).

    Returns:
        Sentences in order; every one has a letter or digit outside its citation marks.
    """
    out: list[str] = []
    text = _JOINED_REPORT.sub(r". \1 ", _MARKS_BANG.sub("] ", normalise_citations(text)))
    for raw in _lines(_REPORTED_CLAIM.sub("\\1\n", text)):
        cancel.check()  # a stopped question stops here (:mod:`~vericite.engine.cancel`)
        line = _BULLET.sub("", raw.strip()).strip()
        if not line:
            continue
        for item in _list_items(line):
            for sent in _segments(item, lang):
                if not sent:
                    continue
                marks, rest = leading_citations(_ADVERB_REPORT.sub("", sent, count=1))
                said = _REPORTING.match(rest) if marks else None
                if said and rest[said.end():].strip():
                    sent, marks = _reported(rest[said.end():].strip(), marks), ""
                if marks and out:
                    out[-1] = f"{out[-1]} {marks}"
                    sent = rest
                elif marks and not rest:
                    sent = marks
                if not sent:
                    continue
                sent = _without_opener(sent)
                if not any(ch.isalnum() for ch in strip_citations(sent)):
                    if out and parse_marks(sent):  # "[2]." after a full stop: the marks close the sentence before
                        out[-1] = f"{out[-1]} {parse_marks(sent)}"
                    continue
                if _is_lead_in(sent):
                    continue
                out.append(_DANGLING.sub(r"\1\2", sent))
    return out


_QUOTES = {'"': '"', "\u201c": "\u201d", "\u00ab": "\u00bb"}  # opening -> closing quotation mark


def _without_opener(sent: str) -> str:
    """``sent`` without an opener about the prompt (:data:`_PROMPT_OPENER`), capitalised; a
    quotation mark it opens and never closes goes too ('The passage states that "From 1800 on,
    clans moved [2].' -> 'From 1800 on, clans moved [2].'); citation marks inside the opener go to the
    claim ("According to Document [4], X." -> "X [4]."). Unchanged when nothing is left."""
    opener = _PROMPT_OPENER.match(sent)
    if not opener:
        return sent
    rest = _unquoted(sent[opener.end():].strip())
    if not any(ch.isalnum() for ch in strip_citations(rest)):
        return sent
    return _reported(rest, parse_marks(opener.group(0)))  # "According to Document [4], X": the marks go with X


_CLOSING_MARKS = re.compile(r"(?:\[[\d,\s]+\]\s*)+[.!?]?\s*$")  # the marks a sentence ends with


def _unquoted(text: str) -> str:
    """``text`` without an opening quotation mark it never closes ('"Kadaperi is a region' -> 'Kadaperi is a region')."""
    closing = _QUOTES.get(text[:1])
    return text[1:].lstrip() if closing and closing not in text[1:] else text


def _reported(claim: str, marks: str) -> str:
    """The reported claim as a sentence of its own with ``marks`` before its final stop, unless it
    ends with them already: ("lee sang.", "[1]") -> "Lee sang [1]."; an opening quotation mark
    it never closes goes."""
    claim = _unquoted(claim)
    if not claim:  # '[2] states that "': nothing reported, the marks alone
        return marks
    closing = _CLOSING_MARKS.search(claim)
    if closing and set(re.findall(r"\d+", marks)) <= set(re.findall(r"\d+", closing.group(0))):
        marks = ""
    claim = claim[0].upper() + claim[1:]
    if not marks:
        return claim
    if claim[-1] in ".!?":
        return f"{claim[:-1].rstrip()} {marks}{claim[-1]}"
    return f"{claim} {marks}"


_CLOSED = re.compile(r"[.!?\u2026][\"'\u201d\u2019\u00bb)\]\s]*$")  # a closing stop, then closing quotes or brackets


def fragment(sentence: str) -> bool:
    """Whether a document sentence is a piece of one, not a sentence a reader can take alone: it
    opens with a lower-case word ("six times in the 1960s, ...", "advantage is that VPN ...": a
    retrieved snippet starts mid-sentence; "iPhone", "eBay" are words with a capital and open a
    sentence) or ends without a closing stop ("... the Lakers 16; together, the": the snippet ends
    mid-sentence). Citation marks are ignored; an empty sentence is no fragment."""
    text = strip_citations(sentence).strip()
    return bool(text) and (cut_start(text) or not _CLOSED.search(text))


_FIRST_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")


#: a word a sentence cannot end on: an article, preposition, conjunction or copula ("The Sazerac is most
#: traditionally a combination of": an extraction of a document cut off mid-sentence)
_OPEN_END = re.compile(r"\b(?:a|an|the|of|to|in|on|at|by|for|with|from|into|as|and|or|but|that|which|is|are|was|were|"
                       r"its|their|his|her|и|в|во|на|с|со|по|из|к|о|об|для|от|до|что|или|но|а)\W*$", re.I)


def cut_end(text: str) -> bool:
    """Whether ``text`` (citation marks removed) has no closing stop and ends on a word no sentence ends on
    (:data:`_OPEN_END`): a piece of a sentence, cut off ("The Sazerac is most traditionally a combination of")."""
    text = strip_citations(text).strip()
    return bool(text) and not _CLOSED.search(text) and bool(_OPEN_END.search(text))


def cut_start(text: str) -> bool:
    """Whether ``text`` opens with a word in lower case (a snippet cut mid-sentence; a piece the
    LLM's "[5] provides information about ..." leaves: "provides information about ...")."""
    first = _FIRST_WORD.match(text)
    return first is not None and first.group(0) == first.group(0).lower()


#: a full stop after a lower-case word, then a lower-case word: two pieces of a document spliced into one
#: statement ('... with subterranean stems. has simple or pinnately compound leaves'); not "etc. and"
_SPLICE = re.compile(r"\b(?!etc\.|approx\.)[a-z]{3,}\.\s+[a-z]")


def spliced(text: str) -> bool:
    """Whether ``text`` holds a sentence's end followed by a piece opening in lower case: not one claim."""
    return bool(_SPLICE.search(text))


#: a document "sentence" longer than this is a table's cells run together ("... Capital and largest city Dili ...
#: Official languages Tetum Portuguese ... President Francisco Guterres ..."), not one a reader can take alone
MAX_SENTENCE_WORDS = 80


def whole_part(sentence: str) -> str | None:
    """What of a document sentence a reader can take alone: the sentence itself, unless it is a
    :func:`fragment` or longer than :data:`MAX_SENTENCE_WORDS` words (an infobox's cells); of one that only its
    end cuts off, the clauses before its last semicolon,
    closed with a full stop, when they hold four words or more ("The two teams have won the most
    championships, the Celtics 17, the Lakers 16; together, the" -> "... the Lakers 16."); else None."""
    if len(strip_citations(sentence).split()) > MAX_SENTENCE_WORDS:
        return None
    if not fragment(sentence):
        return sentence
    text = strip_citations(sentence).strip()
    if cut_start(text):
        return None  # what it is about is missing
    head = text[:text.rfind(";")].rstrip(" ,") if ";" in text else ""
    return f"{head}." if len(head.split()) >= 4 else None


def stated(sentence: str) -> str | None:
    """What of a document sentence an answer may quote (:func:`whole_part`); None for a question ("What would be the
    amount of energy needed to ...?"), which states nothing."""
    return None if sentence.rstrip().endswith("?") else whole_part(sentence)


#: ", which implies that ...", ", suggesting that ...": the model's own inference appended to what a document says
_INFERENCE = re.compile(r",?\s+(?:(?:which|this|that)\s+(?:implies|suggests|indicates|means|proves)|implying|suggesting|"
                        r"indicating|meaning)\s+that\b.*?(?=[.!?]?\s*$)", re.I | re.S)


#: ", as mentioned in Document", ", which is listed in Document", ", according to the passage": the model pointing at
#: its source, said after the fact (the citation marks are already removed)
_SOURCE_TAIL = re.compile(r",\s*(?:(?:(?:which|that)\s+(?:is|was|are|were)\s+|as\s+(?:is\s+)?)?(?:mentioned|listed|stated|"
                          r"noted|given|shown|described|found|provided|indicated|explained|seen)\s+in|according\s+to)\s+"
                          r"(?:the\s+)?(?:provided\s+|given\s+)?" + _SOURCE + r"s?\b[^.!?]*"
                          r"(?=[.!?]?\s*$)", re.I)


def without_inference(statement: str) -> str:
    """``statement`` (citation marks removed) without a closing clause drawing the model's own conclusion
    ("Human Events became a digital-only publication in 2013, which implies that it still relies on paper
    printing" -> "Human Events became a digital-only publication in 2013"): a document states the fact, the
    conclusion is the model's (a checker may pass it with the fact); nor one pointing at its source ("The area code
    for Cincinnati is 513, which is listed in Document" -> "The area code for Cincinnati is 513": the checker reads
    the pointer as a claim about the document). Unchanged when nothing would be left."""
    cut = _SOURCE_TAIL.sub("", _INFERENCE.sub("", statement)).rstrip(" ,;")
    if cut == statement.rstrip(" ,;") or len(cut.split()) < 3:
        return statement
    return cut + ("." if statement.rstrip().endswith(".") and not cut.endswith(".") else "")


def parse_marks(text: str) -> str:
    """The citation marks in ``text``, as written ("" if none)."""
    return " ".join(re.findall(r"\[[\d,\s]+\]", text))
