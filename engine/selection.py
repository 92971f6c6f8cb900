"""Stage 3's answer step: the short answer, and the fewest verified sentences that show it.

The authors' refinement asks the LLM to summarise every verified sentence; a small model then lists
facts without answering, or merges two facts into a sentence no single document carries. This step
asks it what it does reliably: name the short answer and pick, by number, the verified sentences
that show it. The answer is those sentences as verified, each with its own citations, the ones
that name the short answer first: a bridge answer is a chain of single-hop sentences, each carried
by the document it cites. Nothing is rewritten, so nothing is added.

The reply's form (:func:`select_grammar`)::

    Sentences: S2, S5
    Answer: Rush
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import snowballstemmer

from . import draft as D
from .records import ANSWER as STAGE_1
from .records import Statement
from .text.citations import strip_citations
from .text.compare import (
    about_thing,
    alone,
    both_say,
    by_sides,
    by_words,
    choices,
    common,
    compared,
    in_common,
    measures,
    topic,
    two_things,
)
from .text.content import FUNCTION_WORDS, answer_words, stems, yes_no_question
from .text.entities import (
    DEMONYMS,
    FULL_NAME,
    NAME_RUN,
    SUBJECT_NOUN,
    SUBJECT_PRONOUNS,
    bare_title,
    found,
    namesake,
    opening_name,
)
from .text.entities import names as names_in
from .text.relations import MONTH, asked, asked_phrase, states
from .text.relevance import bm25_scores, few_scores
from .text.splitter import split_sentences

#: at most this many sentences in a picked answer
MAX_PICKS = 3
#: when the model names no answer, the answer shows this many verified sentences closest to the question
CLOSEST = 2
#: when no pick names the model's answer, at most this many verified sentences that do are put first
NAMING = 2

ANSWER_UNKNOWN = "answer:unknown"          # the model found no answer in the verified sentences
ANSWER_UNSUPPORTED = "answer:unsupported"  # the model's short answer is in no verified sentence

_ANSWER = re.compile(r"^\W*(?:answer|ответ)\s*:\s*(?P<a>[^\n]*)", re.I | re.M)
_PICKS = re.compile(r"^\W*(?:sentences|предложения)\s*:\s*(?P<p>[^\n]*)", re.I | re.M)
_LABEL = re.compile(r"\bS\s*(\d{1,3})\b", re.I)
_WORD = re.compile(r"\w+")
_STEMMERS = {"en": "english", "ru": "russian"}
_ARTICLES = frozenset({"the", "a", "an"})
_YES_NO = frozenset({"yes", "no", "да", "нет"})
_UNKNOWN = ("unknown", "not stated", "not given", "none", "n/a", "неизвестно", "не указано", "нет данных")


@dataclass(frozen=True)
class Selection:
    """The model's reply read: ``answer`` as written (stripped; "" when none), ``picks`` the
    0-based indexes of the sentences it named, in its order, each once, all in range."""

    answer: str
    picks: tuple[int, ...]

    @property
    def unknown(self) -> bool:
        """The model says the sentences do not give the answer (or gave none)."""
        a = self.answer.casefold().strip(" .!")
        return not a or a.startswith(_UNKNOWN)

    @property
    def yes_no(self) -> bool:
        """The short answer is yes or no (a sentence cannot name it: the picks show it)."""
        return bool(yes_no_word(self.answer))


def yes_no_word(text: str) -> str:
    """``text``'s first word when it is yes or no ("Yes, both ..." -> "Yes"; "да"), else ""."""
    words = _WORD.findall(text)
    return words[0] if words and words[0].casefold() in _YES_NO else ""


def ranked(sentences: Sequence[Statement], question: str, first: str = "") -> list[Statement]:
    """``sentences`` most relevant first (BM25 against the question and stage 1's answer ``first``;
    ties keep their order): the prompt lists them so, as a small model picks the first labels
    more often than the right ones."""
    if len(sentences) < 2:
        return list(sentences)
    scores = bm25_scores(f"{question} {first}", [s.text for s in sentences])
    return [sentences[k] for k in sorted(range(len(sentences)), key=lambda k: (-scores[k], k))]


def closest(sentences: Sequence[Statement], question: str, first: str = "") -> Statement:
    """The one of a few candidate ``sentences`` (non-empty) most relevant to the question and stage 1's answer
    ``first`` (:func:`~vericite.engine.text.relevance.few_scores`; ties: the earlier one)."""
    if len(sentences) < 2:
        return sentences[0]
    scores = few_scores(f"{question} {first}", [s.text for s in sentences])
    return sentences[min(range(len(sentences)), key=lambda k: (-scores[k], k))]


def numbered(sentences: Sequence[Statement]) -> str:
    """The verified sentences as the prompt lists them: "S1: text" per line, citation marks
    removed (the model picks sentences, not documents)."""
    return "\n".join(f"S{k + 1}: {strip_citations(s.text).strip()}" for k, s in enumerate(sentences))


def select_grammar(n: int, max_picks: int = MAX_PICKS) -> str:
    """A GBNF grammar for the reply: "Sentences: " one to ``max_picks`` labels S1..Sn separated
    by ", ", then "Answer: " a line of text (evidence first: the small model picks sentences
    better than it answers, and then copies the answer from them).

    Raises:
        ValueError: n < 1 or max_picks < 1.
    """
    if n < 1 or max_picks < 1:
        raise ValueError(f"need n >= 1 and max_picks >= 1, got {n}, {max_picks}")
    labels = " | ".join(f'"S{k}"' for k in range(n, 0, -1))  # longest first: "S10" before "S1"
    more = f' (", " pick){{0,{max_picks - 1}}}' if max_picks > 1 else ""
    return "\n".join([
        f'root ::= "Sentences: " pick{more} "\\nAnswer: " short',
        'short ::= [^\\n]+',
        f"pick ::= {labels}",
    ])


def parse_selection(reply: str, n: int) -> Selection | None:
    """The reply read (with or without its grammar: "answer:"/"ответ:" and "sentences:" lines in
    any case; labels "S3" anywhere on the sentences line), or None when it has no answer line.
    Labels outside 1..n are ignored; at most :data:`MAX_PICKS` are kept."""
    m = _ANSWER.search(reply or "")
    if not m:
        return None
    p = _PICKS.search(reply)
    picks: list[int] = []
    for label in _LABEL.findall(p.group("p") if p else ""):
        k = int(label) - 1
        if 0 <= k < n and k not in picks:
            picks.append(k)
    return Selection(m.group("a").strip(" *_`\t"), tuple(picks[:MAX_PICKS]))


def _units(text: str, lang: str) -> frozenset[str]:
    words = [w.casefold() for w in _WORD.findall(text)]
    if lang in _STEMMERS:
        words = snowballstemmer.stemmer(_STEMMERS[lang]).stemWords(words)
    return frozenset(words)


def names(answer: str, sentence: str, lang: str = "en", whole: bool = False) -> bool:
    """Whether ``sentence`` names the short ``answer``: every word of it (stemmed, case folded,
    articles aside; two thirds of them for an answer of three words or more, unless ``whole``) occurs in the
    sentence."""
    need = _units(answer, lang) - _ARTICLES
    if not need:
        return False
    found = len(need & _units(sentence, lang))
    return found == len(need) if whole or len(need) < 3 else 3 * found >= 2 * len(need)


@dataclass(frozen=True)
class Picked:
    """What :func:`compose` made of a selection: the answer's sentences (verified, in answer
    order), the trace notes, and a caveat for the user (None when the answer is named)."""

    sentences: tuple[Statement, ...]
    notes: tuple[str, ...]
    caveat: D.Caveat | None = None


# singular only: "They came of the Yuezhi [2]" in "History of India" means the Kushans, not the title;
# Russian nominatives only (a possessive "Его" would need the title in the genitive)
_SINGULAR = SUBJECT_PRONOUNS
_PRONOUN = re.compile(rf"^(?P<p>{_SINGULAR})\b(?=\s)")
_POSSESSIVE = frozenset({"His", "Her", "Its"})
#: "They rose to prominence ...": a band's document says "They" where it opened "Slade are an English ... band"
_PLURAL = re.compile(r"^(?P<p>They|Their)\b(?=\s)")
#: "The film stars ...": a document names its subject once, then calls it by what it is
#: not "The film Awake", "The song \"X\"", "The town of Wytheville" (it names itself)
_DEFINITE = re.compile(rf"^(?P<p>{SUBJECT_NOUN})(?=\s+(?!of\b)[a-z])")
_OPENING = re.compile(r"[^.!?]+")  # a document's opening sentence (up to its first stop)
#: "The group is best known for ..." in a document opening "The Royal Teens was a New Jersey rock and roll band":
#: the nouns a document calls its subject by after naming it as another
_SAME_KIND = {"group": ("group", "band", "duo", "trio", "quartet"), "band": ("band", "group", "duo", "trio", "quartet")}
#: an opening word that points at someone or something named outside the sentence: the resolvable
#: ones above, plurals and demonstratives
_DANGLING = re.compile(rf"^(?:{_SINGULAR}|They|Their|This|These|Those|Они|Его|Её|Ее|Их|Это|Эти)\b(?=[\s,])")


#: a sentence continuing the one before it: "And it ...", "But they ..." (the pronoun after it as if it opened)
_JOINED = re.compile(r"^(?:And|But|So|Yet|Thus|Still|Also)\s+(\w)")
#: a sentence leaning on the one before it through a linking adverb and what it calls its subject: "Specifically, the
#: book describes the author's conversion ...", "However, he ..."
_LEANING = re.compile(r"^(?:Specifically|However|Moreover|Furthermore|Additionally|Instead|Nevertheless|Nonetheless|"
                      r"Therefore|Consequently|Likewise|Similarly|Hence|In addition|In particular|As a result|"
                      r"In contrast|By contrast),\s+(?:the\s+[a-z]|(?:he|she|it|they|his|her|its|their|this|these|those)\b)")


def _usable(sentences: Sequence[Statement], titles: Sequence[str], texts: Sequence[str] = ()) -> list[Statement]:
    """``sentences`` with an opening pronoun resolved to the cited document's title
    (:func:`resolve_pronoun`), without those whose pronoun stays (:func:`dangling`: it points at nobody)."""
    return [r for s in sentences if not dangling((r := resolve_pronoun(s, titles, texts)).text)]


def dangling(text: str) -> bool:
    """Whether ``text`` opens with a pronoun or demonstrative ("They are valued as ornamental
    trees", "His record was broken", "They, along with ...", "Это ..."), also after a joining word ("And it is a
    testimonial of ..."), or with "the" and a noun or a pronoun after a linking adverb (:data:`_LEANING`: "Specifically,
    the book describes ..."): alone, or first in an answer, it points at nothing the reader has been told."""
    return bool(_DANGLING.match(_JOINED.sub(lambda m: m.group(1).upper(), text, count=1)) or _LEANING.match(text))


def antecedents_first(sentences: Sequence[Statement]) -> list[Statement]:
    """``sentences`` with each one that opens with a pronoun (:func:`dangling`) placed after a
    sentence of its document that does not, when one follows it ("They are valued as
    ornamental trees [2]. Virgilia is a genus of Southern African trees [2]." -> the genus
    first); otherwise in their order."""
    out = list(sentences)
    for s in sentences:
        if not dangling(s.text):
            continue
        k = out.index(s)
        named = [p for p in out if p is not s and set(p.citations) & set(s.citations) and not dangling(p.text)]
        if named and all(out.index(p) > k for p in named):
            out.remove(named[0])
            out.insert(k, named[0])
    return out


_NAME_WORD = re.compile(r"[^\W\d_][\w'’.-]*")  # a word of a title or name: starts with a letter
#: small words a title that is a name may hold: "Charles Carroll of Carrollton", "Fight for My Way", "Gone with the Wind"
_LOWER_IN_NAMES = frozenset({"of", "the", "and", "de", "da", "di", "von", "van", "du", "la", "le", "del", "in", "on",
                             "for", "to", "a", "an", "at", "by", "with", "from", "or"})


def _a_name(title: str) -> bool:
    """Whether a title reads as a name ("Palms Casino Resort", "Charles Carroll of Carrollton"):
    at most six words, each alphabetic one capitalised or a name particle or small word ("Fight for My Way";
    "Press release 2021" is not)."""
    words = _NAME_WORD.findall(title)
    return 0 < len(words) <= 6 and all(w[0].isupper() or w.lower() in _LOWER_IN_NAMES for w in words)


def _named_in(name: str, text: str) -> bool:
    """Whether every capitalised word of ``name`` occurs in ``text`` as written, capital included: the
    document calls its subject so ("Neil Peart" in "Neil Ellwood Peart ... Peart received"), where a
    title that is a common noun occurs lower-case or inflected ("Пресс-релиз" in "В пресс-релизе ...")."""
    return _all_written([w for w in _NAME_WORD.findall(name) if w[0].isupper()], text)


def _title_in(title: str, text: str) -> bool:
    """Whether ``text`` names ``title`` (parenthesis aside): each of its capitalised words and words
    with a digit as written ("71st Golden Globe Awards" is not in "The 51st Golden Globe Awards")."""
    words = [w for w in _NAME_WORD.findall(bare_title(title)) if w[0].isupper()] + re.findall(r"\w*\d\w*", title)
    return bool(words) and _all_written(words, text)


def _all_written(words: Sequence[str], text: str) -> bool:
    """Whether each of ``words`` occurs in ``text`` as a whole word, as written."""
    return all(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) for w in words)


def _sole_title(s: Statement, titles: Sequence[str]) -> str:
    """The title of the one document ``s`` cites ("" when it cites none, several, or one out of range)."""
    return titles[s.citations[0] - 1] if len(s.citations) == 1 and 1 <= s.citations[0] <= len(titles) else ""


def resolve_pronoun(s: Statement, titles: Sequence[str], texts: Sequence[str] = ()) -> Statement:
    """``s`` with an opening singular pronoun ("It has 703 rooms", "His brother ...", "Он родился ...") replaced by
    the title of the one document it cites ("Palms Casino Resort has 703 rooms"; a possessive
    gets "'s"; a title's closing parenthesis, "Steve Smith (musician)", is dropped), and so is an
    opening "The <noun>" followed by a lower-case word when the document's opening sentence names the
    title and says it is a <noun> ("The film stars Douglas Smith" in "The Bye Bye Man is a 2017 American
    horror film ..."; "This mixtape was released ..." in "Best Day Ever is the fifth mixtape ..."; not "The film Awake
    was ...", "The television series featured") or the title ends with the noun ("The airport is home to ..." of
    "Greater Rochester International Airport"), and so is an
    opening "They"/"Their" when the document opens "<title> are/were ..." ("They rose to prominence" in
    "Slade are an English glam rock band ..." -> "Slade rose to prominence"): a fact copied
    from a document says "He" for the document's subject, which in an answer of several
    sentences reads as someone else. Unchanged when it cites several documents, its document's
    title does not read as a name (:func:`_a_name`) or holds a "?" or "!" ("What Would Jesus Buy?": the answer's
    sentences are split again, and it would end one there), or, with the documents' ``texts`` given, the
    document never calls anything by the title's capitalised words ("Пресс-релиз" for a press
    release's "Он", which means Yandex Market; a snippet that never names its subject: the checker,
    which reads the text and not the title, would fail the name). The final check then checks the
    sentence as resolved. An opening "They" the title does not resolve is the two names joined by "and" that open
    the sentence before it in its document ("They struggled with finding a film production company" after "Yankovic
    and Levey wrote the film ..." -> "Yankovic and Levey struggled ...")."""
    out = _by_title(s, titles, texts)
    if out is s and s.text.startswith("They ") and (pair := _pair_before(s, texts)):
        text = pair + s.text[4:]  # "Yankovic and Levey wrote the film ... They struggled with ..."
        return replace(s, text=text, raw=text)
    return out


#: "Yankovic and Levey wrote the film ...": a sentence opening with two names joined by "and", whom the next
#: sentence's "They" means
_PAIR = re.compile(r"(?P<pair>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*\s+and\s+[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*)"
                   r"\s+[a-z]")


def _pair_before(s: Statement, texts: Sequence[str]) -> str:
    """The two names joined by "and" that open the sentence before ``s`` in the one document it cites ("Yankovic and
    Levey" for "They struggled ..."); "" when it cites several, is not its document's own sentence or follows none
    such."""
    if len(s.citations) != 1 or not 1 <= s.citations[0] <= len(texts):
        return ""
    doc = texts[s.citations[0] - 1]
    k = doc.find(s.text[:40])
    before = split_sentences(doc[:k]) if k > 0 else []
    m = _PAIR.match(before[-1]) if before else None
    return m.group("pair") if m else ""


def _by_title(s: Statement, titles: Sequence[str], texts: Sequence[str]) -> Statement:
    """:func:`resolve_pronoun` by the cited document's title."""
    m = _PRONOUN.match(s.text) or _DEFINITE.match(s.text) or _PLURAL.match(s.text)
    title = _sole_title(s, titles)
    if not m or not title:
        return s
    name = bare_title(title)
    # the checker reads the document's text, not its title: a name the text never uses would fail it; a title
    # with a "?" or "!" ("What Would Jesus Buy?") would end the sentence there when the answer is split again
    doc = texts[s.citations[0] - 1] if len(texts) >= s.citations[0] else None
    if not _a_name(name) or re.search(r"[?!]", name) or (doc is not None and not _named_in(name, doc)):
        return s
    opener = _OPENING.match(doc) if doc is not None else None  # the document's opening sentence
    # "The film" is the subject only where the document opens calling it one, or where its title's last word says it
    # ("The airport" of "Greater Rochester International Airport")
    if "noun" in m.groupdict() and name.split()[-1].lower() != m.group("noun"):
        kinds = "|".join(map(re.escape, _SAME_KIND.get(m.group("noun"), (m.group("noun"),))))
        if not opener or not _named_in(name, opener.group(0)) or not re.search(
                rf"\b(?:is|was|are|were)\s+(?:a|an|the)\s+(?:[\w'’-]+\s+){{0,6}}(?:{kinds})\b", opener.group(0)):
            return s
    if m.group("p") in ("They", "Their"):  # "They" is the subject only where the document opens "<title> are ..."
        if not opener or not re.match(rf"\W*(?:The\s+)?{re.escape(name)}\s+(?:are|were)\b", opener.group(0)):
            return s
    name = f"{name}'s" if m.group("p") in _POSSESSIVE | {"Their"} else name
    text = name + s.text[m.end():]
    return replace(s, text=text, raw=text)


def _names_found(names: Sequence[str], text: str) -> int:
    """How many of ``names`` ``text`` names (:func:`~vericite.engine.text.entities.found`)."""
    return sum(1 for n in names if found(n, text))


def compose(sel: Selection, verified: Sequence[Statement], question: str, lang: str = "en",
            titles: Sequence[str] = (), opening: str = "", quotes: Sequence[Statement] = (),
            texts: Sequence[str] = ()) -> Picked:
    """The answer's sentences from the model's selection.

    - the picks, without one that says nothing the earlier picks do not (a repeated fact: all its
      :func:`~vericite.engine.text.content.answer_words` in them), unless it says more of the question
      than the pick it repeats, which it then replaces (it ties the answer to the question);
    - an answer the picks do not name (for a question asking a time, the time in the reply: "1730" of "Lancaster,
      England, 1730"): the verified sentence that names it and links to a pick
      goes first, else the :data:`NAMING` closest to the question that name it; when none does,
      the verified sentence that says most of what stage 1's ``opening`` sentence says beyond
      the question goes first (:func:`anchored`: stage 1 read every document at once, and its
      opening usually states the answer, unverified); when none shares a word with it, the
      picks stand with :data:`ANSWER_UNSUPPORTED`;
    - "unknown" (or no answer): the picks, else the :data:`CLOSEST` verified sentences closest to
      the question, with :data:`ANSWER_UNKNOWN`;
    - yes/no: the picks (no sentence names "yes");
    - the sentences that name the answer first (each read with its document's title: "At its peak, the Ghetto held
      29,000 people" in "Kovno Ghetto" is about the ghetto George Kadish documented when a verified sentence says
      so; one about nothing the question names is left out), then the other picks that share a name with them
      (:func:`links`) or come from the document of a title they name (:func:`_titled`; the others are left
      out: facts the model added beside the answer; a question
      of two parts keeps them all, :func:`several_parts`), at most :data:`MAX_PICKS`;
    - a question about two named things (a comparison, "Are A and B both ...?"): one sentence about
      each (:func:`both_sides`), instead of the next two steps;
    - an answer to "Which/Who ...?" leaving out a name the question names: the verified sentences about the one other
      subject that name all it names (:func:`covering`), else followed by the one verified sentence tying it to what it
      leaves out (:func:`tied_back`);
    - stage 1's answer first (:func:`lead`): when another verified sentence or document sentence
      (``quotes``: the documents' sentences verbatim, each citing its document) says more of what
      stage 1's ``opening`` says beyond the question than the first sentence chosen, it leads,
      followed by the sentence that ties it to the question when it names nothing the question does;
    - before the steps below read the picks, a pick that is a document sentence cut short is shown whole when the
      rest carries the answer or its next hop (:func:`in_full`);
    - an opening pronoun resolved to the cited document's title (:func:`resolve_pronoun`;
      ``titles``, ``texts``: the documents' titles and texts in order); a sentence whose pronoun
      stays put after a sentence of its document that names the subject (:func:`antecedents_first`),
      a document sentence whose pronoun stays never leads (:func:`lead`), and one after a sentence of another
      document not naming its title (a name) is left out (its "He" would read as that one's subject).
    """
    picked = in_full(_compose(sel, verified, question, lang, opening, titles), quotes, question, lang, titles, texts)
    if two_things(question):
        picked = both_sides(picked, verified, quotes, question, lang, titles, texts)
    elif not sel.yes_no:
        picked = lead(picked, verified, quotes, question, opening, lang, titles, texts, answer=sel.answer)
        picked = next_hop(picked, verified, quotes, question, lang, titles, texts)
        picked = covering(picked, verified, question, lang)
        picked = tied_back(picked, verified, question, lang, titles, texts)
        picked = carried(picked, question, sel.answer, lang)
    resolved = tuple(resolve_pronoun(s, titles, texts) for s in picked.sentences)
    changed = [f"{a.text!r} -> {b.text!r}" for a, b in zip(picked.sentences, resolved) if a is not b]
    notes = picked.notes + ((f"answer: pronouns resolved to the cited document's title: {changed}",) if changed else ())
    ordered = tuple(antecedents_first(resolved))
    if ordered != resolved:
        notes += (f"answer: a sentence opening with a pronoun put after its document's sentence naming the subject: "
                  f"{[s.text for s in ordered]}",)
    # a pronoun that stays, after a sentence of another document about someone else, reads as that one's subject ("He
    # was in charge of psychological warfare ..." from Alex Josey's document after a sentence about Charles Beckwith;
    # a press release's "It" after "Yandex Market ..." means Yandex Market: its title is no name)
    astray = [s for k, s in enumerate(ordered)
              if k and dangling(s.text) and not set(s.citations) & set(ordered[k - 1].citations)
              and _a_name(name := bare_title(_sole_title(s, titles))) and not _title_in(name, ordered[k - 1].text)]
    if astray:
        ordered = tuple(s for s in ordered if s not in astray)
        notes += (f"answer: left out {len(astray)} sentence(s) whose pronoun stays after another document's sentence: "
                  f"{[s.text for s in astray]}",)
    return replace(picked, sentences=ordered, notes=notes)


#: a document sentence shown whole in place of a shortened copy has at most this many words
FULL_WORDS = 60


def in_full(picked: Picked, quotes: Sequence[Statement], question: str, lang: str = "en", titles: Sequence[str] = (),
            texts: Sequence[str] = ()) -> Picked:
    """``picked`` with each sentence that is a document sentence cut short shown whole.

    The LLM steps copy a document sentence and stop early ("Corn Ranch is a spaceport in the West Texas town of
    Van Horn, Texas" of "..., Texas, where flight tests of the New Shepard are carried out by Blue Origin";
    "Ignacy Jan Paderewski was a Polish pianist and composer" of "... composer, politician and spokesman for
    Polish independence"): what they cut named the next hop or the answer. A picked sentence citing one
    document is replaced by the sentence of ``quotes`` (the documents' sentences verbatim, each citing its
    document; an opening pronoun resolved to the title, :func:`resolve_pronoun`, one that stays never used) of
    that document holding every word of it in its order (case folded; "Rush released Counterparts" is no cut of
    "Counterparts is a song by ... Rush, released in 1993"), at most :data:`FULL_WORDS` words, whose rest carries the
    answer or its next hop (:func:`_carries`: it states the relation the question asks, or names one whom another
    document's sentence stating it names; a rest restating the question's premise, "Released on June 26, 1937, the
    cartoon ...", carries neither); of several, the one saying the most words of the question, then the shortest. The
    final check then checks it like any answer sentence.

    Returns:
        ``picked`` unchanged when the question asks no relation :func:`~vericite.engine.text.relations.asked` reads
        or no sentence is so replaced; else its sentences with the replacements and a trace note.
    """
    wanted = asked(question, lang)
    if not wanted:
        return picked
    asked_words = answer_words(question, "", lang)
    out: list[Statement] = []
    for s in picked.sentences:
        words = [w.casefold() for w in _WORD.findall(s.text)]
        said = answer_words(s.text, "", lang)
        best: tuple[int, int, Statement] | None = None
        for q in quotes if len(s.citations) == 1 else ():
            if q.citations != s.citations:
                continue
            whole = resolve_pronoun(q, titles, texts)
            n = len(whole.text.split())
            if whole.text == s.text or n > FULL_WORDS or dangling(whole.text) or not _in_order(
                    words, [w.casefold() for w in _WORD.findall(whole.text)]):
                continue
            if not _carries(whole.text, s, wanted, quotes, question, lang):
                continue
            more = len((answer_words(whole.text, "", lang) & asked_words) - said)
            if best is None or (more, -n) > best[:2]:
                best = (more, -n, whole)
        if best is None:
            out.append(s)
        elif best[2].text not in {o.text for o in out}:  # two picks cut from one sentence: it is shown once
            out.append(best[2])
    changed = [s.text for s in out if s not in picked.sentences]
    if not changed and len(out) == len(picked.sentences):
        return picked
    note = ("answer: a sentence cut short of its document's sentence shown whole (the rest carries the answer or its "
            f"next hop): {changed}")
    return replace(picked, sentences=tuple(out), notes=picked.notes + (note,))


def _carries(whole: str, cut: Statement, wanted: frozenset[str], quotes: Sequence[Statement], question: str,
             lang: str) -> bool:
    """Whether what ``whole`` says beyond ``cut`` states the relation the question asks (``wanted``,
    :func:`~vericite.engine.text.relations.asked`), or names a name (one neither ``cut`` nor the question names) that a
    sentence of ``quotes`` from another document names while stating it: the rest carries the answer or its next hop."""
    if (stems(whole, lang) - stems(cut.text, lang)) & wanted:
        return True
    new = [n for n in names_in(whole) if not found(n, cut.text) and not found(n, question)]
    return any(q.citations != cut.citations and states(q.text, wanted, lang) and found(n, q.text)
               for q in quotes for n in new)


def _in_order(words: Sequence[str], text: Sequence[str]) -> bool:
    """Whether ``words`` occur in ``text`` (both lists of words) in their order, others between them."""
    rest = iter(text)
    return all(w in rest for w in words)


def lead(picked: Picked, verified: Sequence[Statement], quotes: Sequence[Statement], question: str,
         opening: str, lang: str = "en", titles: Sequence[str] = (), texts: Sequence[str] = (),
         answer: str = "") -> Picked:
    """``picked`` led by stage 1's answer.

    Stage 1 reads every document at once and its ``opening`` (first sentence saying anything
    beyond the question) names the answer about as often as a plain cited answer does, but it is
    one sentence over two documents and rarely passes its check; the answer step picks from the
    verified sentences only, which often lack the answer. So the sentence of ``verified`` or
    ``quotes`` (document sentences, verbatim) sharing the most
    :func:`~vericite.engine.text.content.answer_words` with the opening, read with its opening pronoun
    or "The city" resolved (:func:`resolve_pronoun`: as it will be shown), (verified ones first
    among equals, then those sharing the most names with sentences naming the question's names,
    :func:`_most_linked`, then the most relevant to the question and the opening) leads when it shares
    more than the first picked sentence does. When it leaves out a name the question names (the
    second hop: "He has had seven top 20 US albums"; "After achieving success in the Western TV
    series "Rawhide", he rose ..." for a friend of Pat Hingle's), the picked, verified or document
    sentence that ties it to the question follows it: it shares a name, or the head's document title,
    with the head (:func:`links`), names a name of the question ("Robert" alone does not tie "Sir
    Robert Peel" to the Tamworth Manifesto) and shares at least two words with the question; one
    citing another document first. When the head names part of the question, the tie is the other
    hop: it names a name the head leaves out and names the head's document title (:func:`_title_in`)
    or two of the head's names ("Air" alone does not tie "the U.S. Army Air Corps" to "Edwards Air
    Force Base"), and, from the head's own document, says less than half of what the head says beyond the
    name it opens with (not a garbled copy of it; "Neil Ellwood Peart received an induction into the Modern Drummer
    Hall of Fame" ties "Neil Ellwood Peart is the drummer ... for the rock band Rush" to the question's Hall of Fame).
    Of several ties, one naming the most of what the head leaves out ("Todd Boehly was the
    former president of Guggenheim Partners", not "The firm's CEO is Mark Walter", for "What was Todd Boehly's
    former position at the firm where Mark Walter is the CEO?"), then one naming whom the head is about (its opening
    name or document title: "Ronald Koeman replaced Mauricio Pochettino", not "The 2014-15 Southampton F.C. season was
    ..."), then one sharing a name with the head (not "South" of "South Korean"), then the one closest to the question
    (:func:`closest`: "The English king Harold Godwinson is buried in Waltham Abbey", not a battle naming him). The
    answer is then the answer, then its link to the question (readers judge an answer by whether it
    says the answer early and plainly: the tie first buried it in the second sentence); the other
    picks follow only for a question of two parts (:func:`several_parts`; for a comparison, "..., A or B?", only those
    naming A or B), at most :data:`MAX_PICKS` sentences in all. A document sentence whose opening
    pronoun stays (:func:`resolve_pronoun` with the documents' ``titles`` and ``texts``) never leads
    or ties: "His record ..." alone points at nobody.

    When nothing ties a head that leaves out a name of the question and the model's first pick, from another
    document, names it and says two words of the opening beyond the question, that pick leads and the head follows
    ("The Curonians who lived in the area around the Curonian Lagoon were expelled by the Soviet Union", then "Erich
    Zakowski (born ... in East Prussia) is ..."): stage 1's answer and its hop, the answer first.

    When the first pick already says the most, it stays first, and only when it leaves out a name
    of the question does a tie join it, from another document (the model picked the bridge:
    "Shellite is a mixture of Picric acid and ..." for "Which component of shellite has the formula
    (ON)CHOH?", then "Picric acid is an organic compound with the formula (ON)CHOH"); a title naming
    a name of the question links nothing there (it is the question's subject, not a hop); the
    other picks follow only for a question of two parts, when they say more than the two.

    The answer step's ``answer`` (it read the verified sentences) outranks the opening where it names a short answer
    (:func:`named_answer`): a pick naming it, and saying more than the question and the reply, leads, the other picks
    following, when the sentence closest to the opening shares no word with it (:func:`_names_reply`: "The World Film
    Corporation was organized in 1914 in Fort Lee, New Jersey", not the rock formation in Gloucester that stage 1 read
    its answer off). A year of the opening is no word of stage 1's answer when the answer step's ``answer`` gives
    another year: stage 1 unverified said "opened US assembly plants in 1973", the answer step
    "Nissan opened US assembly plants in 1981", and the document sentence naming the 1973 oil crisis must not lead.
    Nor does a sentence off the question replace a first pick that says it (:func:`_off_question`): stage 1 is
    unverified.

    Returns:
        ``picked`` unchanged when the opening says nothing beyond the question or shares fewer
        than two words with it (it answers something else: "The Piedmont region was developed
        into cotton plantations" for a question about a county), no sentence
        shares a word with it, or the first pick already says the most and nothing ties it to
        what it leaves out; else the new sentences, a trace note, and no caveat (a sentence now
        carries stage 1's answer; ``picked``'s caveat when its first pick leads).
    """
    resolved: dict[int, str] = {}  # each sentence's text as shown, resolved once (it is read up to four times)

    def as_shown(s: Statement) -> str:
        if id(s) not in resolved:
            resolved[id(s)] = resolve_pronoun(s, titles, texts).text
        return resolved[id(s)]

    quotes = [q for q in quotes if not dangling(as_shown(q))]
    key = answer_words(opening, question, lang)
    years = set(_YEAR.findall(answer))
    if years:  # the answer step's year outranks stage 1's
        key = frozenset(w for w in key if not (_YEAR.fullmatch(w) and w not in years))
    pool = [*verified, *quotes]
    asked = answer_words(question, "", lang)
    if not key or not pool or len(answer_words(opening, "", lang) & asked) < 2:  # not an answer to this question
        return picked

    def score(s: Statement) -> int:  # as shown: "The city is located in ..." says its document's title
        return len(answer_words(as_shown(s), question, lang) & key)

    # a sentence about a namesake of whom the question names, or of a document opening about one, never leads ("Karl
    # Hermann Knoblauch was a German physicist", "He was one of the six founding members ..." for a question about
    # Karl Hermann Frank, stage 1 having named both)
    namesakes = {k + 1 for k, t in enumerate(texts) if (o := _OPENING.match(t)) and namesake(o.group(0), question)}
    heads = [s for s in pool if not namesake(as_shown(s), question) and not set(s.citations) & namesakes]
    if not heads:
        return picked
    top = max(score(s) for s in heads)
    first = picked.sentences[0] if picked.sentences else None
    if top == 0:
        return picked
    # the first pick already says stage 1's answer: it stays first, and only its tie to a name of the
    # question it leaves out may join it (the model picked the bridge sentence, not the one naming the rest)
    kept_first = first is not None and score(first) >= top
    head: Statement
    if first is not None and kept_first:
        head = first
    else:
        leads = {id(s) for s in heads}
        best = ([s for s in verified if id(s) in leads and score(s) == top]
                or [s for s in quotes if id(s) in leads and score(s) == top])
        if len(best) > 1:
            best = _most_linked(best, pool, question, titles, texts)
        head = closest(best, question, opening)
        short = named_answer(answer, question, lang)
        namer = next((s for s in picked.sentences if short and _names_reply(s, head, short, answer, question, lang,
                                                                            as_shown)), None)
        if namer is not None:  # the answer step's answer, from the verified sentences, before stage 1's
            note = (f"answer: the pick naming the answer step's answer {short!r} leads, "
                    f"not the sentence closest to stage 1's opening {head.text!r}: {namer.text!r}")
            return Picked((namer, *[s for s in picked.sentences if s is not namer]), picked.notes + (note,),
                          picked.caveat)
        if first is not None and _off_question(head, first, question, lang, as_shown, texts):
            note = (f"answer: the first pick says the question and the sentence closest to stage 1's opening does "
                    f"not, nor names anyone it names; the first pick stays first: {first.text!r}")
            return Picked(picked.sentences, picked.notes + (note,), picked.caveat)
    title = titles[head.citations[0] - 1] if head.citations and 0 < head.citations[0] <= len(titles) else ""
    chain = [head]
    own = names_in(question)
    missing = [n for n in own if not found(n, head.text)]
    if missing or (not own and not kept_first):
        named = f"{head.text} {title}"
        # what the head says beyond its subject: another sentence of its document about the same one ("Neil Ellwood
        # Peart received an induction into the Modern Drummer Hall of Fame") repeats its name, not what it says
        subject = answer_words(m.group(0), "", lang) if (m := NAME_RUN.match(head.text)) else frozenset()
        said = answer_words(head.text, question, lang) - subject
        # a title naming what the question names links nothing: it is the question's own subject, not a hop
        bridge = not kept_first or not any(found(n, title) for n in own)

        def ties(s: Statement) -> bool:  # it ties the head to what the question names
            text = as_shown(s)
            if len(missing) < len(own):  # the head names part of the question: the other hop, by a strong link
                copy = 2 * len(said & answer_words(text, question, lang)) >= len(said)
                again = bool(set(s.citations) & set(head.citations)) and copy
                return not again and any(found(n, text) for n in missing) and (
                    bridge and _title_in(title, text) or len(shared_names(text, head.text, question)) >= 2)
            return links(text, named, question) and about(s.text, question)

        # the question's words counted as it will be shown: "It stars ... Bill Pullman as Jack" in "While You Were
        # Sleeping (film)" says "While You Were Sleeping stars ..."
        tie = [s for s in [*picked.sentences, *verified, *quotes] if s is not head and s.text != head.text
               and len(answer_words(as_shown(s), "", lang) & asked) >= 2 and ties(s)]
        other = [s for s in tie if not set(s.citations) & set(head.citations)]
        if kept_first:  # beside the model's own pick only a hop to another document: its own mostly repeat it
            tie = other
        if not tie and not kept_first and own and len(missing) == len(own):
            # nothing reaches the question's names: the hop toward them, a sentence of another document
            # sharing a whole name of the head (not "Robert" of "Sir Robert Peel") and two words with the
            # question ("Islam 48%" of a country's religions, then "Islam is the most widely practised
            # religion in Southeast Asia")
            whole = set(NAME_RUN.findall(head.text)) - set(NAME_RUN.findall(question))

            def hop(s: Statement) -> bool:
                text = as_shown(s)
                return bool(whole & set(NAME_RUN.findall(text))) and links(text, head.text, question)

            tie = other = [s for s in [*verified, *quotes] if not set(s.citations) & set(head.citations)
                           and len(answer_words(s.text, "", lang) & asked) >= 2 and hop(s)]
        if tie:  # the hop before: from another document when one has it, naming most of what the head leaves out
            # ("Todd Boehly was the former president of Guggenheim Partners", not "The firm's CEO is Mark Walter")
            # then one naming whom the head is about ("Ronald Koeman replaced Mauricio Pochettino", not "The 2014-15
            # Southampton F.C. season was the club's 16th season in the Premier League"),
            # else one sharing a name with it ("Jonghyun debuted as a composer ...", not "... by South Korean boy group
            # Shinee" beside "Kim Jong-hyun ..., better known by the mononym Jonghyun, is a South Korean singer")
            pool = other or tie
            opened = NAME_RUN.match(head.text)
            who = [n for n in names_in(f"{opened.group(0)} {title}" if opened else title)
                   if n.lower() not in DEMONYMS and not found(n, question)]
            counts = [(_names_found(missing, s.text), any(found(n, s.text) for n in who),
                       any(n.lower() not in _NAME_ADJECTIVES for n in shared_names(s.text, head.text, question)))
                      for s in pool]
            chain = [head, closest([s for s, n in zip(pool, counts) if n == max(counts)], question)]
    if len(chain) == 1 and not kept_first and first is not None and _answers_beyond(first, head, question, lang,
                                                                                    as_shown):
        # the head says the question's hop ("TI Automotive was acquired by Bain Capital in 2015 ..."), the model's
        # first pick, from another document, what the question asks of it ("Bain Capital is a global alternative
        # investment firm based in Boston, Massachusetts"): the chain is both, the hop first
        chain = [head, first]
    elif (len(chain) == 1 and not kept_first and first is not None and missing and score(first) >= 2
          and not set(first.citations) & set(head.citations) and any(found(n, as_shown(first)) for n in missing)):
        # the head says stage 1's hop ("Erich Zakowski (born ... in East Prussia) is a German master mechanic ..."),
        # the model's first pick, from another document, the rest of stage 1's answer about what the question names
        # and the head does not ("The Curonians who lived in the area around the Curonian Lagoon were expelled by the
        # Soviet Union" for "What happened to the Curonians who lived in the area where Erich Zakowski was born?"):
        # the chain is both, the answer first
        chain = [first, head]
    if (not kept_first and len(chain) == 1 and _of_someone_else(head, question, done_by_name(question))
            and first is not None and about(first.text, question)):
        # the question asks what a named one did; a head naming nothing the question names, tied to nothing
        # that does, says it of someone else ("John Malkovich played the character of Mitch Leary" for "What
        # character did James Byron Dean play ...?"): the picks about the question stay
        return replace(picked, notes=picked.notes + (
            f"answer: not led by {head.text!r} (closest to stage 1's opening, about nothing the question names)",))
    shown = " ".join(s.text for s in chain)
    if kept_first:
        if len(chain) == 1:
            return picked
        # the other picks stay when they say more than the chain and the question has two parts: a third fact
        # beside an answer and its tie reads as unrelated ("Reynaud presumes he is the son of the architect")
        said_all = answer_words(shown, question, lang)
        rest = [s for s in picked.sentences if s not in chain and not answer_words(s.text, question, lang) <= said_all
                ] if several_parts(question) else []
        sentences = (chain + [s for s in without_repeats(chain + rest, question, lang) if s not in chain])[:MAX_PICKS]
        note = f"answer: the first sentence leaves out {missing}; followed by the sentence tying it to them: {chain[1].text!r}"
        return Picked(tuple(sentences), picked.notes + (note,), picked.caveat)
    rest = [s for s in picked.sentences if s not in chain and s.text not in shown] if several_parts(question) else []
    pair = choices(question)
    if pair:  # a comparison: the other one's sentence, not more
        rest = [s for s in rest if any(all(found(w, s.text) for w in c.split()) for c in pair)]
    # the head and its tie stay: the head says the answer's relation even where the tie names all its words
    sentences = (chain + [s for s in without_repeats(chain + rest, question, lang) if s not in chain])[:MAX_PICKS]
    note = (f"answer: led by the sentence closest to stage 1's opening {opening!r}: {head.text!r}"
            + (f", then the sentence tying it to the question: {chain[1].text!r}" if len(chain) > 1 else ""))
    return Picked(tuple(sentences), picked.notes + (note,), None)


def _answers_beyond(first: Statement, head: Statement, question: str, lang: str,
                    as_shown: Callable[[Statement], str]) -> bool:
    """Whether the first pick ``first`` goes on from the ``head`` that replaced it: it cites none of the head's
    documents, opens with a name the head names and the question does not (the one the head introduces: "Bain Capital
    is ..."; not "Izurium Capital is a UK-based ...", sharing only "UK") and says two or more content words of the
    question the head does not ("investment firm" beside "TI Automotive was acquired by Bain Capital in 2015, and its
    headquarters are located in Oxford, UK")."""
    if first is head or first.text == head.text or set(first.citations) & set(head.citations):
        return False
    text, said = as_shown(first), as_shown(head)
    opened = NAME_RUN.match(text)
    if not opened or not found(opened.group(0), said) or found(opened.group(0), question):
        return False
    more = answer_words(text, "", lang) & answer_words(question, "", lang) - answer_words(said, "", lang)
    return len(more) >= 2


#: "... did James Byron Dean play ...": an auxiliary, a name, and the verb asked of it (its group)
_DONE_BY = re.compile(rf"\b(?:did|does|do|has|have|had)\s+{NAME_RUN.pattern}\s+([a-z]+)")


def done_by_name(question: str) -> frozenset[str]:
    """The stems of the verb ``question`` asks of a name ("play" of "What character did James Byron Dean play in
    his final lead role ...?"); empty when it asks what one it describes did ("How many albums has the singer of
    ... had?"), or of a name by a relation or a function word ("... did The Chronicle of Philanthropy's ...")."""
    m = _DONE_BY.search(question)
    return frozenset() if not m or m.group(1) in FUNCTION_WORDS else stems(m.group(1))


def _of_someone_else(s: Statement, question: str, verb: frozenset[str], beside: Sequence[str] = ()) -> bool:
    """Whether ``s`` says the ``verb`` the question asks of a name (:func:`done_by_name`) of one the question does
    not name, tied to nothing that names one (:func:`about`): "John Malkovich played the character of Mitch Leary"
    for "What character did James Byron Dean play ...?"."""
    return bool(verb & stems(s.text)) and not about(s.text, question, beside)


def _most_linked(candidates: Sequence[Statement], pool: Sequence[Statement], question: str, titles: Sequence[str] = (),
                 texts: Sequence[str] = ()) -> list[Statement]:
    """Of ``candidates`` (equally close to stage 1's answer), those sharing the most names (:func:`shared_names`) with
    the sentences of ``pool`` that name a name of the question: the one the chain from the question reaches ("... in
    New Hampshire was won by Hillary Clinton", not "... in Texas was won by Donald Trump ... over Hillary Clinton", for
    the state where a home in "Concord, New Hampshire" is). Naming the question's names counts for nothing here (a
    sentence restating the question, "Nintendo's limit ... was 5", or naming only its "Georgia" is not the closer one).
    All of them when the question names nothing or no sentence of ``pool`` names a name of it."""
    own = names_in(question)
    about_it = [s.text for s in pool if any(found(n, s.text) for n in own)]
    if not about_it:
        return list(candidates)

    def linked(s: Statement) -> int:
        text = resolve_pronoun(s, titles, texts).text
        return len({n for b in about_it if b != s.text for n in shared_names(text, b, question)})

    counts = [linked(s) for s in candidates]
    return [s for s, n in zip(candidates, counts) if n == max(counts)]


#: words that begin names without being one ("South" of "South Korean", "Western" of "Western Australia")
_NAME_ADJECTIVES = frozenset("north south east west northern southern eastern western central new old great upper "
                             "lower greater united".split())
#: "What pursuit did both A and B have in common?": a question about two things, not a chain of hops
_SHARED = re.compile(r"\bboth\b|\bin\s+common\b", re.I)
#: a year ("1981"), as :func:`~vericite.engine.text.content.answer_words` keeps it
_YEAR = re.compile(r"\b1\d{3}\b|\b20\d{2}\b")
#: a name with its "of" parts: "University of Miami", "Duke of York", "Bank of the West"
_FULL_NAME = re.compile(FULL_NAME)


def _names_reply(pick: Statement, head: Statement, short: str, answer: str, question: str, lang: str,
                 as_shown: Callable[[Statement], str]) -> bool:
    """Whether the answer step's ``pick`` names its ``short`` answer (:func:`named_answer` of its reply ``answer``) and
    says more than the question and the reply (its short answer when the reply is a sentence: "Reputation is
    scheduled for release on November 10, 2017, through Big Machine Records", which the reply copies), while
    ``head`` (the sentence closest to stage 1's opening) shares no word with it: the pick leads (the answer step read
    the verified sentences, stage 1 did not: "The film stars Anthony Hopkins and Nicole Kidman" for the star born in
    1937, not the film's director; "The band that Jacoby Shaddix is a member of formed in Vacaville, California" is
    the question's wording with a hop in its slot, and gives way)."""
    text = as_shown(pick)
    # the reply itself when it is short ("Vacaville, California"), else its part naming the answer: a long reply copies
    # the sentence it chose
    reply = answer if len(answer.split()) <= SHORT_WORDS else short
    if not names(short, text, lang) or not answer_words(text, question, lang) - answer_words(reply, "", lang):
        return False
    # a head sharing a word with it is about the same one ("Manuel Arturo Machado ... third baseman" for the position
    # of "Manny Machado", the MVP): it stays
    return not answer_words(short, "", lang) & answer_words(as_shown(head), "", lang)


def next_hop(picked: Picked, verified: Sequence[Statement], quotes: Sequence[Statement], question: str,
             lang: str = "en", titles: Sequence[str] = (), texts: Sequence[str] = ()) -> Picked:
    """``picked`` led by the second hop when its first sentence stops at the first.

    A two-hop question asks a relation of someone it only describes ("Who married the creator of Ruby Loftus Screwing a
    Breech Ring?"); the LLM steps often answer with the one described ("Ruby Loftus Screwing a Breech Ring is a painting
    by Laura Knight") and stop. When the first picked sentence that names a name of the question introduces a name the
    question lacks, and does not state the relation the question asks (:func:`~vericite.engine.text.relations.asked`:
    "married", "wife", "husband" for "married"), the verified or document sentence (``quotes``, verbatim; an opening
    pronoun resolved to its document's title, one that stays never used) that names that new name (or is of a document
    whose opening sentence names it: "... with over 150 million copies sold" in "The Lord of the Rings", which opens
    naming Tolkien, counts as naming one; a nationality, "British", is no one new), names none of the question's own
    (but those of the new name: "Mach" of "Ernst Mach"; a nationality is no name here: "the 2014 American ... film")
    and states the relation (no picked sentence naming a name of the question or the new one states it)
    ("Laura Knight married Harold Knight in 1903") leads, the first sentence following as its link to the question: the
    answer first, then the hop before it. Among several, those naming more of the new names, from another document than
    the first sentence's, naming the new names themselves (not only being of their document), then the most relevant to
    the question. A later pick that states the relation and names the first hop's new name is the answer already and
    leads, the other picks following ("Krull is a 1983 ... film directed by Peter Yates and produced by Ron Silverman"
    before "Stanford Sherman is ... known for ... "Krull""); one stating it of the question's names alone leaves the
    picks as they are, and so does a first pick stating the relation, naming no one neither the question nor the next
    pick names, with that sentence naming the question's names right after it (the lead's answer and its tie: "Each
    third-party developer could only release up to five games per year", then "Drac's Night Out was developed for the
    Nintendo Entertainment System"). Nothing changes for a yes/no question, a comparison or a question about what two
    things share ("both", "in common"), or when no sentence qualifies.
    """
    wanted = asked(question, lang)
    if not picked.sentences or not wanted or yes_no_question(question) or choices(question) or _SHARED.search(question):
        return picked
    asked_of = names_in(question)
    # the first hop: the first sentence naming a name of the question and one it lacks (a capitalised
    # opener, "Born in ...", names nothing)
    # a nationality is no one new ("British" of "the British First Army" is not whom "the British bombed" is about),
    # nor a month ("March" of "March 18, 2009")
    def new_names(s: Statement) -> list[str]:
        return [n for n in names_in(s.text) if not found(n, question) and not _no_one(n)
                and found(n, s.text.split(" ", 1)[-1])]

    firsts = [(s, new_names(s)) for s in picked.sentences if any(found(n, s.text) for n in asked_of)]
    found_head, new = next(((s, list(dict.fromkeys(ns))) for s, ns in firsts if ns), (None, []))
    if found_head is None and not firsts:
        # none names the question's names: a first pick of the document titled by one of them is about it though it
        # does not name it ("... able to get Orion Pictures' support" in "UHF (film)" for "Who founded the company
        # that distributed the film UHF?"); not a later one, which ties a lead to the question ("He won gold medal in
        # the 1970 Asian Games" in "Chandgi Ram" after the Games held in Bangkok)
        firsts = [(s, new_names(s)) for s in picked.sentences[:1] if (t := bare_title(_sole_title(s, titles)))
                  and _a_name(t) and any(found(n, t) for n in asked_of)]
        found_head, new = next(((s, list(dict.fromkeys(ns))) for s, ns in firsts if ns), (None, []))
    if found_head is None:
        return picked
    # a first hop whose new names lead nowhere gives way to a later pick naming the question's names and new ones
    # ("Kenan & Kel is an American teen sitcom created by Kim Bass" after "Kim Bass's television work includes
    # creating "Sister, Sister" ...": the writer is stated of Kenan & Kel)
    later = [(s, list(dict.fromkeys(ns))) for s, ns in firsts if ns and s is not found_head]
    for k, (head, new) in enumerate([(found_head, new), *later]):
        out = _hop_led(picked, head, new, verified, quotes, question, wanted, asked_of, lang, titles, texts,
                       first=k == 0)
        if out is not None:
            return out
    return picked


def _hop_led(picked: Picked, head: Statement, new: list[str], verified: Sequence[Statement],
             quotes: Sequence[Statement], question: str, wanted: frozenset[str], asked_of: Sequence[str], lang: str,
             titles: Sequence[str], texts: Sequence[str], first: bool) -> Picked | None:
    """:func:`next_hop` from one first hop ``head`` and the ``new`` names it introduces: ``picked`` led by the
    sentence stating the relation asked of them, ``picked`` itself when the picks already hold the answer (only for
    the ``first`` head: a later one gives way), None when no sentence states it."""
    # the new one's full names: "Miami" of "the University of Miami" for "the school that owns the Miami Hurricane"
    full = [m.group(0) for m in _FULL_NAME.finditer(head.text) if set(m.group(0).split()) & set(new)]
    opener = picked.sentences[0]
    if first and len(picked.sentences) > 1 and picked.sentences[1] is head and states(opener.text, wanted, lang) and not [
            n for n in names_in(opener.text) if not found(n, question) and not found(n, head.text) and not _no_one(n)]:
        # the lead put the sentence stating the relation first and its tie to the question after it ("Each third-party
        # developer could only release up to five games per year", then "Drac's Night Out was developed for the
        # Nintendo Entertainment System"): the chain is whole; not when it says it of someone neither names ("Georgy
        # Ivanov fought in World War II ...")
        return picked
    # a pick stating the relation of someone neither the question nor the first hop names answers nothing
    # ("Georgy Ivanov fought in World War II at the Battle of the Dnieper" beside the Battle of Berlin)
    stating = [s for s in picked.sentences if states(s.text, wanted, lang)
               and (any(found(n, s.text) for n in asked_of) or any(f in s.text for f in full))]
    if stating and not first:
        return None  # a later first hop only where no pick states the relation
    if stating:
        # one after the first hop that names the first hop's new name too is the answer: it leads ("Krull is a 1983
        # ... film directed by Peter Yates and produced by Ron Silverman" after "Stanford Sherman ... "Krull"")
        hop = stating[0]
        if hop is picked.sentences[0] or hop is head or not any(f in hop.text for f in full):
            return picked
        note = f"answer: a later pick states what the question asks of {new}; it leads: {hop.text!r}"
        return Picked((hop, *[s for s in picked.sentences if s is not hop]), picked.notes + (note,), picked.caveat)
    # a name of the question that is part of the new one's name ("Mach" of "Ernst Mach" for "the physicist
    # who Mach number is named after") does not make a sentence about the question's own subject; nor does
    # a nationality describing it ("the 2014 American ... film": "Wild is a 2014 American ... film directed by")
    runs = [set(r.split()) for r in NAME_RUN.findall(head.text)]
    own = [n for n in asked_of if not any(n in r and r & set(new) for r in runs) and n.lower() not in DEMONYMS]
    # nor does it inside the new one's full name: the hop sentence is read without those names

    def without_new(text: str) -> str:
        for name in full:
            text = text.replace(name, " ")
        return text

    # a sentence of the new one's own document is about it though it does not name it ("The population density
    # was 3,771.9 people per square mile" in the document "San Diego")
    own_doc = {k + 1 for k, t in enumerate(titles) if (words := set(bare_title(t).split())) and words <= set(new)}

    # one of a document whose opening sentence names the new one is about a work or part of it ("... is one of the
    # best-selling novels ever written, with over 150 million copies sold" in "The Lord of the Rings", which opens
    # "... a novel written by ... J. R. R. Tolkien"): it counts as naming one (a name of five letters or more)
    long_new = [n for n in new if len(n) >= 5 and n.lower() not in _NAME_ADJECTIVES]
    opened = {k + 1 for k, t in enumerate(texts) if long_new and (o := split_sentences(t[:600], lang))
              and any(_names_it(n, o[0]) for n in long_new)}  # the splitter keeps "J. R. R. Tolkien" whole

    def of_new(s: Statement) -> int:  # how many of the new names it names; a sentence of the new one's own
        # document names them all ("... for a total of 38 matchdays" in "La Liga" is about La Liga as much as
        # "Back-to-back La Liga titles ... drew larger crowds to the games")
        one = len(s.citations) == 1
        if one and s.citations[0] in own_doc:
            return len(new)
        return sum(_names_it(n, s.text) for n in new) or int(one and s.citations[0] in opened)

    pool = [s for s in _usable([*verified, *quotes], titles, texts) if s.text != head.text and states(s.text, wanted, lang)
            and of_new(s) and not any(found(n, without_new(s.text)) for n in own)]
    if not pool:
        return None

    phrase = asked_phrase(question, lang)

    def key(s: Statement) -> tuple[int, bool, bool, int]:
        # among a document's own sentences, one naming the new one says the relation of it ("... elected Hassan Sheikh
        # Mohamud as the new President of Somalia", not "President Mohamud later appointed ... Prime Minister")
        return (of_new(s), bool(phrase) and phrase <= stems(s.text, lang), not set(s.citations) <= set(head.citations),
                sum(_names_it(n, s.text) for n in new))

    keys = [key(s) for s in pool]
    top = max(keys)
    hop = closest([s for s, k in zip(pool, keys) if k == top], question)
    note = (f"answer: the first sentence stops at the first hop; led by the sentence stating what the question "
            f"asks of {new}: {hop.text!r}")
    return Picked((hop, head), picked.notes + (note,), picked.caveat)


#: a question asking who or which one ("Which American comedian starred in ...", "What company ...", "... and is now
#: the current commissioner who is he?"): the answer is the one the sentences are about
_WHO_ONE = re.compile(r"^(?:Which|What|Who)\b(?!\s+(?:is|was|are|were|did|does|do)\s+(?:the\s+)?(?:name|year|date|"
                      r"number|type|kind)\b)|\bwho\s+(?:is|was)\s+(?:he|she)\W*$")


def covering(picked: Picked, verified: Sequence[Statement], question: str, lang: str = "en") -> Picked:
    """``picked`` replaced by the verified sentences about one other subject that between them mention every name the
    question names, when ``picked``'s sentences leave one out.

    The answer step follows stage 1's pick, and stage 1 often names the first one that fits half of the question
    ("John Belushi starred in the original cast of Saturday Night Live" for "Which American comedian starred in the
    original cast of Saturday Night Live and played Stan Winters in the sitcom Martin?"), while the checker has kept
    the document's sentences about the one that fits all of it ("Garrett Morris starred in the original cast ...",
    "Garrett Morris played Stan Winters in the sitcom Martin"). Names are :func:`~vericite.engine.draft.asked_names`,
    counted as :func:`~vericite.engine.draft.left_out` counts them (the ``answer:uncovered`` warning's reading). A
    subject is the name of two words or more a verified sentence opens with as its verb's subject (not one of the
    question's names; a shorter one inside a longer, "Belushi" of "John Adam Belushi", is the same subject); its
    sentences are taken
    greedily, most names first, at most :data:`MAX_PICKS`. Only for an English question asking who or which one
    (:data:`_WHO_ONE`), an answer without a caveat and a subject ``picked`` does not name; among several subjects
    covering every name, the one whose verified sentences say the most words of the question; else (none, or a tie)
    ``picked`` unchanged.
    """
    if lang != "en" or not picked.sentences or picked.caveat is not None or not _WHO_ONE.search(question):
        return picked
    asked_runs = D.asked_names(question)
    shown = " ".join(s.text for s in picked.sentences)
    missing = D.left_out(asked_runs, shown)
    if not missing:
        return picked
    subjects: dict[str, list[Statement]] = {}
    for s in verified:
        subject = opening_name(s.text)
        # a name of two words or more: one word is as often a thing's ("Xylitol has the formula ...", beside the
        # shellite component asked by its formula)
        if len(names_in(subject)) >= 2 and not any(found(w, question) for w in names_in(subject)):
            subjects.setdefault(subject, []).append(s)
    # "Belushi" is "John Adam Belushi": a subject whose words are all in a longer one's joins it
    for short in sorted(subjects, key=len):
        longer = [k for k in subjects if k != short and set(short.split()) < set(k.split())]
        if len(longer) == 1:
            subjects[longer[0]] += subjects.pop(short)
    covers = {}
    for subject, group in subjects.items():
        if all(found(w, shown) for w in names_in(subject)):
            continue  # the answer is about it already
        chosen: list[Statement] = []
        left = D.left_out(asked_runs, "")
        while left and len(chosen) < MAX_PICKS:  # greedily: the sentence leaving out the fewest names next
            rest = [s for s in group if s not in chosen]
            now, best = min(((D.left_out(asked_runs, " ".join(c.text for c in [*chosen, s])), s) for s in rest),
                            key=lambda pair: len(pair[0]), default=(left, None))
            if best is None or len(now) == len(left):
                break
            chosen.append(best)
            left = now
        if not left:
            covers[subject] = chosen
    # among several, the one whose sentences say the most of the question ("Adam Silver is an American lawyer and
    # businessman", "... succeeded David Stern", "... the current commissioner of the NBA" over "John Edward Drew was a
    # two-time NBA All-Star", "... the drug policy instituted by commissioner David Stern"); a tie changes nothing
    said = {k: _asked(" ".join(s.text for s in subjects[k]), question, lang) for k in covers}
    top = [k for k in covers if said[k] == max(said.values(), default=0)]
    if len(top) != 1:
        return picked
    subject, chosen = top[0], covers[top[0]]
    note = (f"answer: the sentences chosen leave out {missing} of the question; those about "
            f"{subject!r} name all it names: {[s.text for s in chosen]}")
    return Picked(tuple(chosen), picked.notes + (note,), picked.caveat)


#: a question asking for an explanation ("Why does Netflix remove content?", "How do remotes work?"): its answer is
#: several reasons, not a name
_EXPLAIN = re.compile(r"\W*(?:why|how)\b(?!\s+(?:many|much|long|old|far|tall|big|often|large|high)\b)", re.I)


def carried(picked: Picked, question: str, answer: str, lang: str = "en") -> Picked:
    """``picked`` without the sentences after the point where the answer is shown: once the sentences so far name
    the model's short ``answer`` (:func:`names`) and mention every name the question names
    (:func:`~vericite.engine.draft.left_out` leaves none), a later sentence naming neither the answer (nor a name of
    it: "Simon & Garfunkel" for "Paul Simon") nor a word of the question they leave out carries nothing of it (the
    2018 women's final after "... between Real Madrid ... and English side Liverpool" for "Who performed at the
    champions league final 2018?"; not a bridge's tie, "The first person to give in person state of the union was
    Woodrow Wilson"): readers count such facts against an answer, and they double its length. Unchanged for a
    question of two parts (:func:`several_parts`), one asking why or how (:data:`_EXPLAIN`: several reasons answer
    it), a caveat, one sentence, or a question not in English (its names are not told from its opening words)."""
    if lang != "en" or len(picked.sentences) < 2 or picked.caveat is not None or not answer.strip() \
            or several_parts(question) or _EXPLAIN.match(question):
        return picked
    asked_runs = D.asked_names(question)
    asked_words = answer_words(question, "", lang)
    answer_names = names_in(answer)
    kept: list[Statement] = []
    shown, shown_words = "", frozenset[str]()  # the kept sentences' text and words, grown as they are kept
    for s in picked.sentences:
        if kept and names(answer, shown, lang) and not D.left_out(asked_runs, shown) \
                and not any(found(n, s.text) for n in answer_names) and not names(answer, s.text, lang) \
                and not (answer_words(s.text, "", lang) & asked_words) - shown_words:
            continue
        kept.append(s)
        shown = " ".join(k.text for k in kept)
        shown_words = answer_words(shown, "", lang)
    if len(kept) == len(picked.sentences):
        return picked
    left = [s.text for s in picked.sentences if s not in kept]
    note = f"answer: left out {len(left)} sentence(s) after the answer was shown, naming nothing of it: {left}"
    return replace(picked, sentences=tuple(kept), notes=picked.notes + (note,))


def tied_back(picked: Picked, verified: Sequence[Statement], question: str, lang: str = "en",
              titles: Sequence[str] = (), texts: Sequence[str] = ()) -> Picked:
    """``picked`` followed by the verified sentence that names what it leaves out of the question and shares a name
    with it, the picks sharing no such name and naming nothing else of the question left out.

    The answer step may pick the sentences about the answer and leave out the one tying it to the question's subject
    ("BC Dzūkija (...) is a basketball club located in Alytus, Lithuania" beside "BC Alita was a basketball club from
    Alytus, Lithuania" for "Which basketball club located in Alytus, Lithuania does Anatoly Kashirov play for?"); the
    verified "Anatoly Kashirov plays for Dzūkija Alytus ..." names the one it leaves out and shares "Dzūkija" with
    one of them: the answer is that pick, then the tie ("BC Alita", sharing only the question's "Alytus", which the
    others name, goes; "Peart was inducted into the Modern Drummer Hall of Fame" stays beside the Rush drummer's
    sentence and the Counterparts tie: it names what they do not). Names
    are :func:`~vericite.engine.draft.asked_names` counted as :func:`~vericite.engine.draft.left_out` counts them; a
    shared name is one of four letters or more the question does not name (:func:`shared_names`: no nationality or
    month; "BC" of two basketball clubs is none), each sentence read as shown (an opening pronoun resolved to its
    document's title, :func:`resolve_pronoun`: "It is scheduled for release on November 10, 2017" in "Reputation
    (Taylor Swift album)" shares "Reputation" with "The song ... is from Taylor Swift's sixth studio album,
    "Reputation""). Only for English,
    an answer without a caveat, and exactly one such tie; else ``picked`` unchanged.
    """
    if lang != "en" or not picked.sentences or picked.caveat is not None:
        return picked
    asked_runs = D.asked_names(question)
    missing = set(D.left_out(asked_runs, " ".join(s.text for s in picked.sentences)))
    if not missing:
        return picked
    shown = [resolve_pronoun(p, titles, texts).text for p in picked.sentences]  # each pick as shown, resolved once
    ties = []
    for c in verified:
        if c in picked.sentences or missing & set(D.left_out(asked_runs, c.text)):
            continue
        # a name of four letters or more: "BC" of "BC Alita" and "BC Alytus" is any basketball club
        candidate = resolve_pronoun(c, titles, texts).text
        linked = [p for p, text in zip(picked.sentences, shown)
                  if any(len(n) >= 4 for n in shared_names(candidate, text, question))]
        if linked:
            ties.append((c, linked))
    if len(ties) != 1:
        return picked
    tie, linked = ties[0]
    # a pick sharing no name with the tie stays when it names what the others do not ("Peart was inducted into the
    # Modern Drummer Hall of Fame" beside "Neil Peart was the drummer of Rush" and the Counterparts tie)
    kept = [p for p in picked.sentences if p in linked or set(D.left_out(asked_runs, " ".join(
        s.text for s in [*linked, tie]))) - set(D.left_out(asked_runs, p.text))]
    note = (f"answer: the sentences chosen leave out {sorted(missing)} of the question; the verified sentence naming "
            f"it and sharing a name with {len(linked)} of them follows them: {tie.text!r}")
    if len(kept) < len(picked.sentences):
        note += f"; left out, naming nothing else of the question: {[p.text for p in picked.sentences if p not in kept]}"
    return Picked((*kept[:MAX_PICKS - 1], tie), picked.notes + (note,), picked.caveat)


def _names_it(name: str, text: str) -> bool:
    """Whether ``text`` names ``name`` among its capitalised words (:func:`~vericite.engine.text.entities.found`): a
    name that is a word too ("Football" of "the Canadian Football League") is not named by "a football team"."""
    return found(name, " ".join(w for w in text.split() if w[:1].isupper()))


def both_sides(picked: Picked, verified: Sequence[Statement], quotes: Sequence[Statement], question: str,
               lang: str = "en", titles: Sequence[str] = (), texts: Sequence[str] = ()) -> Picked:
    """``picked`` as one sentence about each of the two things the question names
    (:func:`~vericite.engine.text.compare.two_things`: "Which mountain is higher, Nanda Devi or Broad
    Peak?", "Are Pothos and Tibouchina both genera of flowering plants?").

    The LLM steps often answer with facts about one of them, and neither a reader nor a rule can
    compare from one side. For each thing, the picked, verified or document sentence (``quotes``,
    verbatim, an opening pronoun resolved to its document's title; one that stays is never used)
    naming it and not the other: first one giving the date or number the question compares them by
    (:func:`~vericite.engine.text.compare.measures`), then one about it (its subject names it:
    :func:`~vericite.engine.text.compare.about_thing`), then the one sharing most of the question's
    other words, then picked before verified before quoted, then the earliest; for a question asking what
    the two have in common, the best two saying what each is ("INXS was an Australian rock band") that share a
    word it does not (:func:`~vericite.engine.text.compare.in_common`) when those are not the best of each; for
    another, the best two that answer it (:func:`_decides`: their nationalities, dates or words) when the best of each
    do not.
    The answer is those two sentences, in the question's order; the conclusion (:func:`conclusion`) opens it.

    Returns:
        ``picked`` unchanged for another question or when no sentence names either thing; else the
        one or two sentences found, a trace note, and ``picked``'s caveat.
    """
    pair = two_things(question)
    if len(pair) != 2:
        return picked
    rest = topic(question)
    pool = [*picked.sentences, *verified, *_usable(quotes, titles, texts)]
    rank = {**{id(s): 1 for s in verified}, **{id(s): 2 for s in picked.sentences}}
    compare = bool(choices(question))
    sides, candidates = [], []
    for name, other in (pair, pair[::-1]):
        about = [s for s in pool if alone(name, other, s.text)
                 and len(answer_words(s.text, name, lang)) >= 2]  # not a split-off "Tibouchina Aubl."

        def key(s: Statement, name: str = name, other: str = other) -> tuple[bool, bool, int, int]:
            return (compare and measures(question, name, other, s.text), about_thing(name, s.text),
                    len(stems(s.text, lang) & rest), rank.get(id(s), 0))

        if about:  # max keeps the earliest of equals
            sides.append(max(about, key=key))
            candidates.append([(key(s), s) for s in about])
    if not sides:
        return picked
    # "both what kind of film?": two sentences saying what they share (in_common reads only sentences saying what each
    # is); "of the same nationality?": two whose nationalities give the answer ("Donald Jay Fagen is an American
    # musician", not "best known as the co-founder of Steely Dan"); when the best of each do not and two do
    shared = bool(common(question))

    def answers(a: Statement, b: Statement) -> bool:
        return bool(in_common(question, [a.text, b.text])) if shared else _decides(question, [a.text, b.text])

    if len(candidates) == 2 and not answers(*sides):
        pairs = [(tuple(map(sum, zip(ka, kb))), a, b) for ka, a in candidates[0] for kb, b in candidates[1]
                 if answers(a, b)]
        if pairs:  # max keeps the earliest of equals
            _, a, b = max(pairs, key=lambda p: p[0])
            sides = [a, b]
    note = f"answer: one sentence about each of {pair}: {[s.text for s in sides]}"
    return Picked(tuple(sides), picked.notes + (note,), picked.caveat)


def _decides(question: str, texts: Sequence[str]) -> bool:
    """Whether ``texts`` (one sentence about each of two things) answer ``question``: a yes/no question by the
    provinces, nationalities or places they give or by each saying what it asks
    (:func:`~vericite.engine.text.compare.by_sides`, :func:`~vericite.engine.text.compare.both_say`), a comparison by
    their dates or numbers or by one saying what it asks (:func:`~vericite.engine.text.compare.compared`,
    :func:`~vericite.engine.text.compare.by_words`)."""
    if yes_no_question(question):
        return bool(by_sides(question, texts) or both_say(question, texts))
    return bool(choices(question)) and bool(compared(question, texts) or by_words(question, texts))


def anchored(verified: Sequence[Statement], question: str, opening: str, lang: str = "en") -> Statement | None:
    """The verified sentence sharing the most :func:`~vericite.engine.text.content.answer_words`
    with ``opening`` (stage 1's first sentence that says anything beyond the question), the
    earliest of equals (``verified`` is listed most relevant first); None when none shares one."""
    key = answer_words(opening, question, lang)
    if not key:
        return None
    best, score = None, 0
    for s in verified:
        n = len(answer_words(s.text, question, lang) & key)
        if n > score:
            best, score = s, n
    return best


def _compose(sel: Selection, verified: Sequence[Statement], question: str, lang: str, opening: str = "",
             titles: Sequence[str] = ()) -> Picked:
    picks: list[Statement] = []
    for k in sel.picks:
        s = verified[k]
        own = answer_words(s.text, question, lang)
        if not picks or not own <= answer_words(" ".join(p.text for p in picks), question, lang):
            picks.append(s)
            continue
        # a repeat that says more of the question ties the answer to it ("Southrey is a village in the
        # civil parish of Bardney" beside "Southrey is 2 miles south-east from Bardney"): it stands instead
        repeated = [i for i, p in enumerate(picks) if own <= answer_words(p.text, question, lang)
                    and _asked(s.text, question, lang) > _asked(p.text, question, lang)]
        if repeated:
            picks[repeated[0]] = s
    notes = [f"answer: {sel.answer!r} from {', '.join(f'S{k + 1}' for k in sel.picks) or 'no sentence'} "
             f"of {len(verified)} verified"]
    if len(picks) < len(sel.picks):
        notes.append(f"answer: {len(sel.picks) - len(picks)} picked sentence(s) repeat an earlier one: left out")
    if sel.unknown:
        shown = picks or D.relevant(question, verified, CLOSEST, lang)
        why = (f"the LLM found no answer to the question in the verified sentences; the answer shows the "
               f"{len(shown)} it found closest")
        return Picked(tuple(shown[:MAX_PICKS]), tuple(notes), D.Caveat(ANSWER_UNKNOWN, why))
    if sel.yes_no:
        return Picked(tuple((picks or D.relevant(question, verified, CLOSEST, lang))[:MAX_PICKS]), tuple(notes))
    # a time asked ("... was found which year?"): the reply's time names the answer ("1730" of "Lancaster, England,
    # 1730"), not its place, which the picks about something else in Lancaster name too
    wanted = (_short_part(sel.answer, True) or sel.answer) if _WHEN_QUESTION.search(question) else sel.answer
    naming = [s for s in picks if names(wanted, s.text, lang)]
    texts = [v.text for v in verified]

    def titled(s: Statement) -> str:  # a document's sentence is about its subject though it does not name it ("At
        # its peak, the Ghetto held 29,000 people" in "Kovno Ghetto", beside "Kadish documented ... the Kovno Ghetto")
        title = bare_title(_sole_title(s, titles))
        return f"{s.text} {title}" if title and _a_name(title) else s.text

    off = [s for s in naming if not about(titled(s), question, texts)]
    if off:  # the model's answer words in a sentence about something else (often its answer is a sentence)
        naming = [s for s in naming if s not in off]
        picks = [s for s in picks if s not in off]
        notes.append(f"answer: {len(off)} sentence(s) naming {sel.answer!r} name nothing the question names "
                     f"and tie to no verified sentence that does: left out: {[s.text for s in off]}")
    anchor = None
    verb = done_by_name(question)  # what a named one did, said of someone else, neither anchors nor shows
    if not naming:
        others = [s for s in verified if names(wanted, s.text, lang) and about(titled(s), question, texts)]
        # one naming every word of the answer comes before those naming two thirds ("Qazi Touqeer was born in
        # Kolkata", a template fill, for the answer "Ruprekha Banerjee was born in Kolkata.")
        whole = [s for s in others if names(wanted, s.text, lang, whole=True)]
        others = whole or others
        if others:  # those that link to a pick (the bridge's other half), else the two closest to the question
            tied = [s for s in others if any(links(p.text, s.text, question) for p in picks)]
            naming = D.relevant(question, tied or others, 1 if tied else NAMING, lang)
            picks = naming + picks
            notes.append(f"answer: no picked sentence names {wanted!r}; put first: {[s.text for s in naming]}")
        elif (anchor := anchored([s for s in verified if not _of_someone_else(s, question, verb, texts)], question,
                                 opening, lang)) is not None:
            naming = [anchor]
            picks = [anchor] + [p for p in picks if p is not anchor]
            notes.append(f"answer: {sel.answer!r} is in no verified sentence; put first the one closest to stage 1's "
                         f"opening {opening!r}: {anchor.text!r}")
        else:
            shown = [p for p in picks if not _of_someone_else(p, question, verb, texts)] or picks or D.relevant(
                question, verified, CLOSEST, lang)
            why = (f"the model's short answer {sel.answer!r} is in no verified sentence; the answer shows the "
                   f"{len(shown)} sentence(s) it picked")
            return Picked(tuple(shown[:MAX_PICKS]), tuple(notes), D.Caveat(ANSWER_UNSUPPORTED, why))
    named = " ".join(s.text for s in naming)
    # "When ... and which ...": a pick may answer the other part; after an anchor a pick may say
    # more of stage 1's answer, which the anchor may not name, or else is a fact beside it
    both = several_parts(question)
    # (a number alone ties nothing: "four-games-to-two" is not the opening's "uniform number 4")
    said = frozenset(w for w in answer_words(opening, question, lang) if not w.isdigit()) if anchor is not None \
        else frozenset()
    linked = [s for s in picks if s not in naming and (both or links(s.text, named, question)
                                                       or _titled(s, named, titles, question, lang)
                                                       or answer_words(s.text, question, lang) & said)]
    unlinked = [s for s in picks if s not in naming and s not in linked]
    if unlinked:
        notes.append(f"answer: left out {len(unlinked)} picked sentence(s) sharing no name with the sentences "
                     f"that name the answer: {[s.text for s in unlinked]}")
    chosen = without_repeats(naming + linked, question, lang)
    if len(chosen) < len(naming + linked):
        notes.append(f"answer: left out {len(naming + linked) - len(chosen)} sentence(s) the others repeat")
    return Picked(tuple(chosen[:MAX_PICKS]), tuple(notes))


def _titled(s: Statement, named: str, titles: Sequence[str], question: str, lang: str = "en") -> bool:
    """Whether ``s`` comes from one document whose title (a name, not one the question names) ``named`` names, and
    says two words of the question ``named`` does not: a document's sentence is about its subject though it does
    not name it ("mentalfloss.com ... draws 20.5 million unique users a month" in "Mental Floss", beside "...
    appeared in ..., Mental Floss, ..." for "Where has Kerwin Swint's work appeared that draws 20.5 million unique
    visitors a month?"); one saying no more of the question is another fact about the answer."""
    title = _sole_title(s, titles)
    if not title:
        return False
    more = answer_words(s.text, "", lang) & answer_words(question, "", lang) - answer_words(named, "", lang)
    return len(more) >= 2 and _a_name(bare_title(title)) and _title_in(title, named) and not _title_in(title, question)


#: a first pick saying this many times as much of the question as stage 1's sentence (and at least ASKED_WORDS of it)
#: stays first when the two share no name
ASKED_RATIO, ASKED_WORDS = 3, 4


def _off_question(head: Statement, first: Statement, question: str, lang: str,
                  as_shown: Callable[[Statement], str], texts: Sequence[str] = ()) -> bool:
    """Whether the sentence closest to stage 1's opening (``head``) is off the question that the ``first`` pick says:
    the first is its document's own words (in the cited one of ``texts``, the documents in order; not the model's
    restatement of the question) and names a name of the question; it says at least :data:`ASKED_RATIO` times as many
    of the question's content stems (and at least :data:`ASKED_WORDS`); the head states no relation the question asks
    (:func:`~vericite.engine.text.relations.asked`: "population"), and the two share no name (:func:`links`; a second
    hop names the first's new one). Stage 1's answer is unverified: "Criss Angel ... is an American magician" (its
    "Angel" the question's "The Angel Levine") must not replace "The Angel Levine is a 1970 American film ... about an
    impoverished New York City tailor (played by Zero Mostel)"."""
    shown, other = as_shown(first), as_shown(head)
    own = " ".join(shown.split()).rstrip(".")
    if not own or not any(0 < c <= len(texts) and own in " ".join(texts[c - 1].split()) for c in first.citations):
        return False
    if not any(found(n, shown) for n in names_in(question)) or states(other, asked(question, lang), lang):
        return False
    said, off = _asked(shown, question, lang), _asked(other, question, lang)
    return said >= max(ASKED_WORDS, ASKED_RATIO * off) and not links(other, shown, question)


def _asked(sentence: str, question: str, lang: str) -> int:
    """How many content stems of ``question`` ``sentence`` says."""
    return len(stems(sentence, lang) & stems(question, lang))


def without_repeats(sentences: list[Statement], question: str, lang: str) -> list[Statement]:
    """``sentences`` without each one (last first) whose answer words the others all say
    ("Valuair was acquired by Jetstar" beside "Valuair was acquired by Jetstar, based in Singapore"),
    or, when it says 8 or more, one other says three quarters of (a document saying the same twice: "... part of the
    California Desert Studies Consortium, which consists of 7 CSU campuses: ..." and "It is
    officially operated by the California Desert Studies Consortium, a consortium of 7 CSU campuses: ...";
    in a short sentence one word is the fact: "Chiang Hsiao-wu is the second son of Chiang Ching-kuo" is not
    "Chiang Hsiao-wen is the eldest son ..."),
    unless it is a document's sentence (a stage-2 fact or a quote) that says more of the question than any
    of them (it ties the answer to the question); a stage-1 statement saying more of the question only
    restates it (stage 1 echoes the question's words around the documents' facts)."""
    out = list(sentences)
    for s in reversed(sentences):
        others = [o for o in out if o is not s]
        own = answer_words(s.text, question, lang)
        if others and (own <= answer_words(" ".join(o.text for o in others), question, lang)
                       or len(own) >= 8 and any(4 * len(own - answer_words(o.text, question, lang)) <= len(own)
                                                for o in others)) \
                and (s.stage == STAGE_1
                     or _asked(s.text, question, lang) <= max(_asked(o.text, question, lang) for o in others)):
            out = others
    return out


_PARTS = re.compile(r"\b(?:and|или|и)\s+(?P<wh>when|where|which|what|who|whom|how|why|"
                    r"когда|где|как|какой|какая|какое|какие|кто|что|почему|сколько|зачем)\b", re.I)


@dataclass(frozen=True)
class Conclusion:
    """The short answer the answer opens with (``text``, "" when none) and whether :func:`buried` gave it (``buried``:
    the model's own answer, which the sentences shown name but bury; the other rules read it off those sentences or
    the model's yes/no)."""

    text: str
    buried: bool = False


def conclusion(sel: Selection, question: str, opening: str = "", lang: str = "en", shown: Sequence[str] = (),
               first: str = "") -> str:
    """The text of :func:`concluded` (same arguments): the short answer, "" when none."""
    return concluded(sel, question, opening, lang, shown, first).text


def concluded(sel: Selection, question: str, opening: str = "", lang: str = "en", shown: Sequence[str] = (),
              first: str = "") -> Conclusion:
    """The short answer a yes/no or comparison question needs said, for the answer to open with:
    for "Are A and B in the same province?" the "Yes" or "No" the ``shown`` sentences' provinces (or
    nationalities) give (:func:`~vericite.engine.text.compare.same`), else
    "No" when a sentence about one of the two things places it in another US state than the one asked, or
    outside the United States (:func:`~vericite.engine.text.compare.elsewhere`), or when one about one of the two
    says it is what the question asks and one about the other says it is something else
    (:func:`~vericite.engine.text.compare.one_lacks`: "Ara Babajian is an American drummer"; the model's "Yes"
    beside them is often wrong), else "Yes" when, for each of
    the two things the question asks the same of, a ``shown`` sentence naming it alone says every other word of
    the question (:func:`~vericite.engine.text.compare.both_say`, the rule that passes such a "Yes"), else
    the model's "Yes"/"No" to a yes/no question ("Are both ...?"), else the one stage 1's ``first``
    sentence or ``opening`` starts with ("Yes, both ..."); for a question
    asking what two things have in common, the word the ``shown`` sentences about each share
    (:func:`~vericite.engine.text.compare.in_common`: "Documentary"); for a comparison
    whose ``shown`` sentences (the answer's) date or number both things, the one their dates or numbers make the answer
    (:func:`~vericite.engine.text.compare.compared`); for a comparison by kind ("Which is a comedy
    film, A or B?") the one whose sentence alone says every other word of the question
    (:func:`~vericite.engine.text.compare.by_words`); for another comparison ("Who was born
    first, A or B?") the one of A and B that stage 1's ``opening`` names alone (it read both
    documents at once: "Erika Jayne was born first"), else the one the model's answer names alone
    (often a copied sentence about one of them); for another question, the model's short answer when the ``shown``
    sentences name it but bury it (:func:`buried`); "" otherwise. The caller
    cites it with the documents of the sentences shown, and the final check rewrites it as a claim
    with the question ("Erika Jayne was born first") and checks it against those documents joined,
    like any short final sentence."""
    pair = choices(question)
    if yes_no_question(question) and not pair:
        # the shown sentences' provinces or nationalities decide "the same ...?"; a shown sentence about each
        # saying what the question asks, "Yes" (the model's "No" beside them is wrong); else the model's or
        # stage 1's word
        said = next((w.capitalize() for t in (sel.answer, first, opening) if (w := yes_no_word(t))), "")
        return Conclusion(by_sides(question, shown) or ("Yes" if both_say(question, shown) else "") or said)
    shared = in_common(question, shown)  # "A and B are both what kind of film?": "Documentary"
    if shared:
        return Conclusion(shared[0].upper() + shared[1:])
    if sel.yes_no:
        return Conclusion("")
    decided = compared(question, shown) or by_words(question, shown)
    if decided:
        return Conclusion(decided)
    for text in (opening, sel.answer):
        named = [c for c in pair if names(c, text, lang)]
        if len(named) == 1:
            return Conclusion(named[0])
    hidden = "" if pair else buried(sel.answer, question, shown, lang)
    return Conclusion(hidden, buried=bool(hidden))


#: a first sentence longer than this many words that names the answer past its opening buries it
BURIED_WORDS = 20
#: the model's short answer is its reply up to the first comma or bracket, when it is at most this many words
SHORT_WORDS = 6
_MEASURE_QUESTION = re.compile(r"\bhow\s+(?:many|much|long|old|far|tall|big|large|high)\b", re.I)
#: lower-case words a name may hold ("Jay DeMarcus of Rascal Flatts", "Ludwig van Beethoven")
_NAME_PARTICLES = frozenset("of the and de del der da di von van la le du y st".split())
_WHEN_QUESTION = re.compile(r"^\W*when\b|\b(?:what|which)\s+(?:year|date|month|decade|century)\b", re.I)


def buried(answer: str, question: str, shown: Sequence[str], lang: str = "en") -> str:
    """The model's short ``answer`` to a wh-question ("Ron Silverman" of "Ron Silverman, \"Krull\", 1950, unknown":
    its reply up to the first comma or bracket, at most :data:`SHORT_WORDS` words; for "When ...?" the first such
    part with a digit, "15th century" of "Barcelona, Catalonia, Spain, 15th century, yes") for the answer to open with, when
    the ``shown`` sentences name it but do not say it plainly first: the first names it only past its opening
    words and runs longer than :data:`BURIED_WORDS` words ("Shape is a monthly ... magazine started by Weider
    Publications in 1981, founded by Christine MacIntyre (...) and became ..."), or a later one names it (the first
    is a hop on the way). A reader takes an answer buried in a copied sentence for a fact beside the question. The
    caller cites it with the shown sentences' documents; the final check rewrites it as a claim with the question
    ("... a fitness magazine founded by Christine MacIntyre") and checks it against them joined (the entity guard
    fails it when they never name what the question names), so it opens the answer only as a checked claim.

    "" for a question not in English (not measured there) or asking two things (:func:`several_parts`), one asking
    how many or how much (a number the model read off a sentence is often another count), an answer with a lower-case
    word outside a name ("Domhnall Gleeson starred in About Time": a sentence, not a name),
    a "when" answer with no digit, another answer with no capital letter or digit (not a name), one the question names,
    or one no shown sentence names, and when the shown sentences together leave out a content word of the question,
    or the first names a name of it but not all of it (it says something else of the answer's subject: the model's
    answer is the hop, not the answer)."""
    when = bool(_WHEN_QUESTION.search(question))
    short = _short_part(answer, when)
    words = short.split()
    if (lang != "en" or not words or len(words) > SHORT_WORDS or yes_no_word(short) or Selection(short, ()).unknown
            or not when and any(w[0].islower() and w not in _NAME_PARTICLES for w in words)  # "... starred in ..."
            or _MEASURE_QUESTION.search(question) or several_parts(question) or names(short, question, lang)
            or not re.search(r"\d" if when else r"[A-Z\d]", short)):
        return ""
    naming = [k for k, s in enumerate(shown) if names(short, s, lang)]
    # the sentences shown must say all the question says (the chain is there, only its end is buried): a name the
    # model read off sentences saying less is often a hop on the way or another relation's ("Robert Ludlum" for
    # the actor playing Bourne, off "... the Jason Bourne series created by Robert Ludlum")
    if not naming or stems(question, lang) - FUNCTION_WORDS - stems(" ".join(shown), lang):
        return ""
    if naming[0] > 0:  # unless the first names part of it: the answer is another ("Athenion was ... a military
        # commander of the Egyptian queen Cleopatra", then "Cleopatra VII Philopator ... was the last active ruler")
        return "" if any(found(n, shown[0]) for n in names_in(short)) else short
    first = _WORD.findall(shown[0])
    opens = (_units(" ".join(first[:3]), lang) & _units(short, lang)) - _ARTICLES  # "David Andrew Platt is ..."
    return short if len(first) > BURIED_WORDS and not opens else ""


def _short_part(answer: str, timed: bool) -> str:
    """The answer step's short answer as :func:`buried` reads it: its reply up to the first comma or bracket ("Ron
    Silverman" of "Ron Silverman, \"Krull\", 1950, unknown"); ``timed`` (a time is asked) the first such part with a
    digit ("15th century" of "Barcelona, Catalonia, Spain, 15th century, yes"; "February 12, 1975" whole; "" when none
    has one)."""
    parts = [p.strip(" .;:)]") for p in re.split(r"(?<!\d),|,(?!\s*\d{4}\b)|\s[(\[]", answer)]  # "February 12, 1975" whole
    if timed:  # "born in February 12, 1975" -> "February 12, 1975"
        return next((re.sub(r"^(?:[a-z]+\s+)+", "", p) for p in parts if re.search(r"\d", p)), "")
    return parts[0]


#: a question asking for a name, a place or a time ("Who ...", "In which city ...", "When ..."), not "Why"/"How"
_WH_OPENING = re.compile(r"^\W*(?:(?:in|at|on|from|for|to|of|by|during|with)\s+)?(?:who|whom|whose|what|which|where|when)"
                         r"\b", re.I)
#: a question asking why or how, whatever it asks after ("How is dust formed", "Why do birds that ...")
_HOW_WHY = re.compile(r"^\W*(?:how|why)\b", re.I)
#: a question asking a time in any position ("What was the wettest year of ...?", "... on what date?")
_ASKS_TIME = re.compile(r"\b(?:when|year|date|month|decade|century)\b", re.I)


def named_answer(answer: str, question: str, lang: str = "en") -> str:
    """The answer step's short answer (:func:`_short_part`) to a question opening with who, what, which, where or when,
    or asking a time later ("... released on what date?"; "How is dust formed", an explanation, has none) when it
    reads as a name, a date or a number the question does not name: at most :data:`SHORT_WORDS` words, a capital
    letter or a digit, no "yes"/"no"/"unknown"; "" else (a sentence, "Leslie Iwerks is the creator of ...", is no
    short answer); for a question asking a time anywhere
    ("What was the wettest year of ...?") the first part with a digit; "" for a question asking how many or how
    much (as :func:`buried`: the model's count is often another one, its name a hop: "Billy Crystal" for the albums
    of the soundtrack's singer)."""
    # "How is dust formed": an explanation, not a name, is the answer; "... from the album scheduled to be released on
    # what date?" asks a time at its end (a name asked there, "... from what Wisconsin town?", the model's reply often
    # gives of another: "Stacey McKenzie" for Matt McKenzie's show's town)
    if not _WH_OPENING.match(question) and (_HOW_WHY.match(question) or not _WHEN_QUESTION.search(question)):
        return ""
    short = _short_part(answer, bool(_WHEN_QUESTION.search(question)))
    if _ASKS_TIME.search(question) and not re.search(r"\d", short):  # "What was the wettest year of ...?": a year,
        short = _short_part(answer, True)  # not "Pima County", the hop
    words = short.split()
    if (not words or _MEASURE_QUESTION.search(question) or len(words) > SHORT_WORDS or yes_no_word(short)
            or Selection(short, ()).unknown or not re.search(r"[A-Z\d]", short) or not answer_words(short, question, lang)):
        return ""
    return short


def several_parts(question: str) -> bool:
    """Whether the question asks two things joined by "and" ("When was it launched and which
    categories does it sell?", "Когда ... и какие ..."), or compares two it names after a comma
    ("Who was born first, Erika Jayne or Marco Da Silva?"): the picks that answer the second part,
    or say the other one's date, share no name with the sentence that names the answer, and are kept. A second
    relative clause of the same one is no second part ("Name the actor who has acted in the film Arrival and who has
    been nominated for ...": one actor)."""
    return any(not re.search(rf"\w\s+{re.escape(m.group('wh'))}\b", question[:m.start()], re.I)
               for m in _PARTS.finditer(question)) or bool(choices(question))


def about(sentence: str, question: str, beside: Sequence[str] = ()) -> bool:
    """Whether ``sentence`` is about what ``question`` asks of: it names one of the question's names
    (:func:`~vericite.engine.text.entities.names`), or shares a name the question lacks with one of the
    ``beside`` sentences that does (the second hop of a bridge: "Brad Silberling directed ..." beside
    "Jamie Harris played in ... directed by Brad Silberling"); True when the question names nothing. "Jacqueline Fontyn received
    the title of baroness ... in recognition of ..." is not about "What recognition did the actor of
    Truman Capote from Capote receive?"."""
    asked = names_in(question)
    if not asked or any(found(n, sentence) for n in asked):
        return True
    return any(any(found(n, b) for n in asked) and links(sentence, b, question) for b in beside)


def links(sentence: str, named: str, question: str) -> bool:
    """Whether ``sentence`` shares a name the question lacks with ``named`` (the sentences that
    name the answer): the link of a bridge ("Peart was inducted ..." beside "Peart was the drummer
    of Rush"), not another fact about the question's own subject. A nationality
    (:data:`~vericite.engine.text.entities.DEMONYMS`: "American") and a month or weekday ("March": two dates)
    link nothing."""
    return bool(shared_names(sentence, named, question))


#: month and weekday names: capitalised, yet two dates in the same month tie nothing together
_CALENDAR = frozenset(MONTH.lower().split("|")) | frozenset(
    "monday tuesday wednesday thursday friday saturday sunday".split())


def _no_one(name: str) -> bool:
    """Whether a capitalised word names no one: a nationality ("American"), a month or weekday ("March"), or a
    name's "Jr"/"Sr" ("Watts Jr." and "William Herrnstein, Jr." are two families)."""
    return name.lower() in DEMONYMS or name.lower() in _CALENDAR or name.lower().rstrip(".") in ("jr", "sr")


def shared_names(sentence: str, named: str, question: str) -> set[str]:
    """The names of ``sentence`` found in ``named`` and not in ``question``, nationalities, months and weekdays
    aside (see :func:`links`)."""
    return {n for n in names_in(sentence) if not _no_one(n) and found(n, named) and not found(n, question)}
