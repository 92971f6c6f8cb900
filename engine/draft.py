"""Stage 3 after the refinement: an immutable draft of the answer and the chain of rules over it.

The refinement (or a fallback) writes a :class:`Draft`; :data:`RULES` then run in order, each a
function ``(Draft, Facts) -> Draft`` that returns a new draft with its trace notes and coded
warnings added:

1. :func:`final_check`   every sentence checked against the documents it cites;
   :func:`as_written`    a sentence failing after its pronoun became its document's title, as the document wrote it;
   :func:`read_back`     a passing sentence in the model's own words fails unless the LLM reads it in its documents;
2. :func:`add_nothing`   a sentence saying what no verified sentence says fails;
   :func:`asked_in_full` an opening buried answer whose claim leaves out a word of the question fails;
   :func:`compared_by_measure` a comparison's short answer the dates or numbers of the answer's sentences give passes;
   :func:`compared_alone` a comparison's short answer its documents do not compare fails;
   :func:`both_said`     a "Yes" to "Are A and B both X?" passes when a sentence about each says X;
   :func:`same_said` / :func:`common_said`  "the same province?" / "both what kind of film?" answered by the sentences about each;
3. :func:`strict`        failing sentences removed (or only reported), the verified sentences as fallback;
   :func:`one_answer`    after an opening "Yes"/"No", a later sentence's own "Yes, " goes;
   :func:`trimmed`       a long passing sentence shown as its leading clauses when those pass too;
4. :func:`put_back_statements` / :func:`put_back_facts`  verified sentences the merge lost, put back, checked
   (not after the answer step, :mod:`~vericite.engine.selection`: its picks are the answer);
   :func:`said_once`     a sentence whose words an earlier one says, left out;
5. :func:`lenient_marks` citations that support their sentence only partly marked ``[3*]``;
6. :func:`marks_before_stop` "... the Police. [4]" shown as "... the Police [4].";
7. :func:`quotes`        per cited document, the span that carries each final sentence.

A rule that a setting turns off returns its draft unchanged. A new rule is one function added to
:data:`RULES`; it reads the draft and :class:`Facts`, never the pipeline.

The answer text is rendered in one place, :meth:`Draft.text`: a :class:`Block` whose sentences all
stand reads as written (its line breaks kept, each checked sentence in its checked form); once a
rule removes one of its sentences, the block is its sentences joined by spaces.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from . import records as R
from .config.settings import Settings
from .nli.grading import grade
from .records import Document, Quote, Statement
from .text.citations import format_citations, merge_adjacent, strip_citations
from .text.clauses import asks_number, examples_kept, leading_clauses
from .text.compare import (
    alone,
    both,
    both_say,
    by_sides,
    choices,
    chosen_claim,
    common,
    compared,
    in_common,
    named,
    restates_comparison,
)
from .text.content import FUNCTION_WORDS, adds, answer_words, carried, stems, yes_no_question
from .text.entities import DEMONYMS, FULL_NAME, SUBJECT_NOUN, SUBJECT_PRONOUNS, bare_title, found, names
from .text.relations import swapped_act
from .text.relevance import bm25_scores
from .text.splitter import split_sentences, stated

# Warning codes (Caveat.code). "empty:*" say why the answer is empty.
EMPTY_NOTHING_VERIFIED = "empty:nothing_verified"   # no statement survived the checks, no fallback quotes
EMPTY_TOKEN_CAP = "empty:token_cap"                 # the refinement's cap cut its first sentence
EMPTY_NO_TEXT = "empty:no_text"                     # the refinement returned nothing
FALLBACK_QUOTES = "fallback:quotes"                 # nothing verified: the answer quotes the documents
FINAL_FAILED = "final:failed"                       # final sentences failed and were kept (--no-drop-unsupported)
FINAL_REMOVED = "final:removed"                     # final sentences failed and were removed (strict)
FINAL_NONE_PASSED = "final:none_passed"             # none passed: the answer is the verified sentences
UNCOVERED = "answer:uncovered"                      # the answer leaves out a name the question names

#: a verified fact the refinement dropped is put back only when it shares this many content-word
#: stems with the question (``backbone_facts``)
MIN_QUESTION_STEMS = 2
#: after the answer step, when none of its picks passes the final check, the answer is at most this
#: many verified sentences (the most relevant), not all of them
PICKED_FALLBACK = 3


@dataclass(frozen=True)
class Caveat:
    """A warning with a code (one of the module's constants) and the text shown to the user."""

    code: str
    text: str


@dataclass(frozen=True)
class Block:
    """A stretch of the answer: the text it came from and its checked sentences, in order.

    ``written`` holds each sentence's ``raw`` as ``source`` has it (a checked sentence's ``raw``
    may be its checked form: a fragment's claim, citations that did not carry it removed, a
    partial mark); ``whole`` says every sentence of ``source`` still stands.
    """

    source: str
    sentences: tuple[Statement, ...] = ()
    written: tuple[str, ...] = ()
    whole: bool = True

    def render(self) -> str:
        """The block as the answer shows it (str; may be empty)."""
        if not self.whole:
            return " ".join(s.raw for s in self.sentences)
        text = self.source
        for w, s in zip(self.written, self.sentences):
            if s.raw != w:
                text = text.replace(w, s.raw, 1)
        return text

    def keep(self, sentences: Sequence[Statement]) -> Block:
        """This block with only ``sentences`` (a subset, in order): no longer read as written."""
        keep = {id(s) for s in sentences}
        pairs = [(s, w) for s, w in zip(self.sentences, self.written) if id(s) in keep]
        return Block(self.source, tuple(s for s, _ in pairs), tuple(w for _, w in pairs), whole=False)

    def revise(self, changed: dict[int, Statement]) -> Block:
        """This block with each sentence ``s`` replaced by ``changed[id(s)]`` where given."""
        return replace(self, sentences=tuple(changed.get(id(s), s) for s in self.sentences))


@dataclass(frozen=True)
class Draft:
    """Stage 3's answer while the rules run.

    ``blocks``: the answer's stretches in order; ``checked``: every sentence the final check judged
    that the stage-3 trace records (the refined sentences, with their verdicts, and the sentences
    put back); ``notes``: trace notes; ``warnings``: coded warnings for the user.
    """

    blocks: tuple[Block, ...] = ()
    checked: tuple[Statement, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[Caveat, ...] = ()
    picked: bool = False  # the answer step picked these sentences (engine/selection.py): nothing is put back
    quoted: tuple[str, ...] = ()  # document sentences the answer step quotes verbatim: they add nothing
    answer: str = ""  # the answer step's short answer as the model wrote it ("" when none)
    buried: str = ""  # the short answer the draft opens with because its sentences bury it ("" when none)

    @classmethod
    def of(cls, text: str, notes: Sequence[str] = (), warnings: Sequence[Caveat] = (), *, picked: bool = False,
           quoted: Sequence[str] = (), answer: str = "", buried: str = "") -> Draft:
        """A draft of unchecked ``text`` (the refinement's reply, the picked sentences, quotes, or "");
        ``quoted``: the sentences of it that are document sentences verbatim; ``answer``: the answer
        step's short answer; ``buried``: the short answer it opens with, which its sentences name but bury
        (:func:`~vericite.engine.selection.buried`)."""
        return cls((Block(text),) if text else (), (), tuple(notes), tuple(warnings), picked, tuple(quoted), answer,
                   buried)

    @property
    def sentences(self) -> list[Statement]:
        """The answer's sentences with their final-check verdicts, in order."""
        return [s for b in self.blocks for s in b.sentences]

    def text(self) -> str:
        """The answer text: the blocks rendered, joined by spaces."""
        return " ".join(r for r in (b.render() for b in self.blocks) if r).strip()

    def note(self, text: str) -> Draft:
        return replace(self, notes=self.notes + (text,))

    def warn(self, code: str, text: str) -> Draft:
        return replace(self, warnings=self.warnings + (Caveat(code, text),))

    def keep(self, sentences: Sequence[Statement]) -> Draft:
        """This draft's answer with only ``sentences`` (a subset of :attr:`sentences`, told apart by identity: an
        equal sentence elsewhere is another one); each block no longer reads as written. The record stays whole."""
        return replace(self, blocks=tuple(b.keep(sentences) for b in self.blocks))

    def revise(self, changed: dict[int, Statement]) -> Draft:
        """Every sentence ``s`` (answer and record) replaced by ``changed[id(s)]`` where given."""
        return replace(self, blocks=tuple(b.revise(changed) for b in self.blocks),
                       checked=tuple(changed.get(id(s), s) for s in self.checked))

    def empty_reason(self) -> str:
        """Why the answer is empty ("" when it is not): the last ``empty:*`` warning, else what
        the rules did."""
        if self.text():
            return ""
        why = [w.text for w in self.warnings if w.code.startswith("empty:")]
        if why:
            return why[-1]
        if any(w.code == FINAL_NONE_PASSED for w in self.warnings):
            return "no final sentence passed the final check (strict; --no-drop-unsupported keeps them)"
        return "the refinement produced no sentence"


@dataclass(frozen=True)
class Facts:
    """What stage 3's rules read besides the draft.

    ``check(text)`` runs the final check on ``text`` (its claims, fragment rewrites and NLI checks,
    recorded in the stage-3 trace) and returns the block with verdicts and the notes it wrote;
    ``scores(pairs)`` is the checker: P(entailment) float32 [n] per (premise, hypothesis).
    """

    question: str
    lang: str
    documents: Sequence[Document]
    verified: Sequence[Statement]      # the verified statements and facts (stage 2's facts first)
    statements: Sequence[Statement]    # stage 1's statements with their verdicts
    settings: Settings
    check: Callable[[str], tuple[Block, list[str]]]
    scores: Callable[[Sequence[tuple[str, str]]], np.ndarray]
    #: P(Yes) in [0, 1] that the documents a sentence cites (1-based numbers) state it, asked of the LLM
    #: (:func:`read_back`); None: no such reader (the setting is 0 or the prompt set has no read_back step)
    read_back: Callable[[tuple[int, ...], str], float] | None = None
    #: the documents' sentences as the answer may quote them, each citing its document (whole, no question, an
    #: opening pronoun resolved to the document's title: stage 3's); None: :func:`document_words` splits the documents
    quotable: Sequence[Statement] | None = None


Rule = Callable[[Draft, Facts], Draft]


# -- the rules ----------------------------------------------------------------------------------
def final_check(d: Draft, f: Facts) -> Draft:
    """Every sentence of the draft checked against its cited documents (verdict ``supported``,
    ``unsupported`` or ``no_citation``), written as checked; the stage-3 record is these sentences. A question
    ("... needed to disable Earth's magnetic field?") fails: it states nothing a reader could check."""
    text = d.text()
    if not text:
        return d
    block, notes = f.check(text)
    asks = {id(s): replace(s, verdict=R.UNSUPPORTED) for s in block.sentences
            if s.verdict == R.SUPPORTED and s.text.rstrip().endswith("?")}
    if asks:  # a document's question ("What would be the amount of energy needed ...?") passes the checker
        block = block.revise(asks)
        notes = [*notes, f"final check: {len(asks)} question(s) fail: a question states nothing"]
    return replace(d, blocks=(block,), checked=block.sentences, notes=d.notes + tuple(notes))


#: the openings the answer step replaces by a document's title (:func:`~vericite.engine.selection.resolve_pronoun`)
_OPENERS = rf"(?:{SUBJECT_PRONOUNS}|{SUBJECT_NOUN})"


def as_written(d: Draft, f: Facts) -> Draft:
    """A final sentence that failed its check after the answer step put its document's title for
    its opening pronoun, "The <noun>" or "This <noun>" ("Children's Mercy Park is Sporting Kansas City's third home
    venue; ..." for "The stadium is ...") is shown as the document wrote it, and passes, when that
    passes the checker against the document: a long document is read in windows, and the one holding
    the sentence may not name its subject. A reader finds the sentence in the document as shown. Only
    where the pronoun reads as the document's subject: opening the answer, or after a sentence citing that
    document alone ("He also directed dark comedies" after a sentence about Christopher Guest [1] points at
    him, not at Elem Klimov [3]: it stays failed)."""
    changed: dict[int, Statement] = {}
    for k, s in enumerate(d.sentences):
        if s.verdict == R.SUPPORTED or len(s.citations) != 1 or not 1 <= s.citations[0] <= len(f.documents):
            continue
        if k and d.sentences[k - 1].citations != s.citations:
            continue
        doc = f.documents[s.citations[0] - 1]
        name = bare_title(doc.title)
        for head in (f"{name}'s ", f"{name} "):
            if name and s.text.startswith(head):
                rest = s.text[len(head) - 1:].rstrip(" .")
                m = re.search(rf"(?<!\w){_OPENERS}{re.escape(rest)}", doc.text)
                if m:
                    original = m.group(0) + "."
                    if float(f.scores([(doc.text, original)])[0]) >= f.settings.threshold:
                        changed[id(s)] = replace(s, text=original, verdict=R.SUPPORTED,
                                                 raw=with_citations(replace(s, text=original)))
                        d = d.note(f"as written: {s.text!r} failed; its document's sentence {original!r} passes")
                break
    return d.revise(changed) if changed else d


def copied(text: str, documents: Sequence[Document]) -> bool:
    """Whether ``text`` (without its citation marks) is a stretch of one of ``documents``' texts, case,
    punctuation and spacing aside: a document sentence quoted, not the model's own words."""
    words = " ".join(re.findall(r"\w+", strip_citations(text).lower()))
    return bool(words) and any(words in " ".join(re.findall(r"\w+", doc.text.lower())) for doc in documents)


#: a sentence of fewer words is a short answer ("No.", "Erika Jayne."), judged by the rules that compare
READ_BACK_MIN_WORDS = 4


def read_back(d: Draft, f: Facts) -> Draft:
    """A final sentence that passed the checker in the model's own words (no document says it word for
    word) fails when the LLM, shown the documents it cites, gives P(Yes) below ``read_back`` that they state it
    (``f.read_back``). The pair checker passes sentences that put the documents' words in a relation they never
    state ("Neil Young is the sibling of the performer of Decade", "Holly is Holly's brother"); careful readers
    found copied sentences supported almost always, own-words ones far less often (bench/RESULTS.md). A sentence
    a document says word for word, of fewer than :data:`READ_BACK_MIN_WORDS` words, or opening the answer to a
    comparison or yes/no question (a short answer: the comparison rules judge it) is not read back. Off unless set:
    the 1.5B model's reading failed as many supported sentences as unsupported ones (bench/RESULTS.md)."""
    if f.read_back is None or f.settings.read_back <= 0:
        return d
    short = bool(choices(f.question)) or yes_no_question(f.question)  # its first sentence: the comparison rules'
    changed: dict[int, Statement] = {}
    for k, s in enumerate(d.sentences):
        if s.verdict != R.SUPPORTED or len(s.text.split()) < READ_BACK_MIN_WORDS or (short and k == 0):
            continue
        docs = [f.documents[c - 1] for c in s.citations if 1 <= c <= len(f.documents)]
        if not docs or copied(s.text, docs):
            continue
        p = f.read_back(s.citations, s.text)
        fails = p < f.settings.read_back
        d = d.note(f"read back: {s.raw!r} {'fails' if fails else 'passes'} (P(Yes) {p:.3f} that documents "
                   f"{list(s.citations)} state it; needed {f.settings.read_back})")
        if fails:
            changed[id(s)] = replace(s, verdict=R.UNSUPPORTED)
    return d.revise(changed) if changed else d


def add_nothing(d: Draft, f: Facts) -> Draft:
    """Stage 3 adds nothing (``add_nothing``): a refined sentence that passed the checker but
    says what no verified sentence (nor document sentence the answer step quotes) says, or only
    talks about the prompt (:func:`~vericite.engine.text.content.adds`), fails the final check."""
    if not (f.verified and f.settings.add_nothing):
        return d
    sources = " ".join([*(v.text for v in f.verified), *d.quoted])
    changed: dict[int, Statement] = {}
    for s in d.sentences:
        why = adds(s.text, sources, f.question, f.lang) if s.verdict == R.SUPPORTED else None
        if why:
            d = d.note(f"add nothing: {s.raw!r} fails ({why} beyond the verified sentences)")
            changed[id(s)] = replace(s, verdict=R.UNSUPPORTED)
    return d.revise(changed) if changed else d


def asked_in_full(d: Draft, f: Facts) -> Draft:
    """The buried answer the draft opens with (:attr:`Draft.buried`), checked as the claim the question makes of it,
    fails when that claim leaves out the answer or a content word of the question: it then answers another
    question, a hop on the way ("Ahmad Jamal was the performer of Count 'Em 88" for "Where was the performer of Count
    'Em 88 born?"), though its documents carry it; and when its cited documents give the name it says did the
    question's act only another (:func:`~vericite.engine.text.relations.swapped_act`: "Joachim Trier produced the 2015
    film starring ..." where they say "... drama film directed by Joachim Trier")."""
    first = next(iter(d.sentences), None)
    if not (d.buried and first and first.rewritten and first.verdict == R.SUPPORTED):
        return d
    left = stems(f.question, f.lang) - stems(first.text, f.lang) - FUNCTION_WORDS
    cited = " ".join(f.documents[c - 1].text for c in first.citations if 0 < c <= len(f.documents))
    act = swapped_act(first.text, f.question, cited, f.lang)  # "Joachim Trier produced ..." of "directed by ..."
    if found(d.buried, first.text) and not left and not act:
        return d
    why = (f"leaves out {sorted(left)} of the question" if left else f"leaves out {d.buried!r}" if not act
           else f"says {act!r} of a name its documents give only another act")
    return d.note(f"asked in full: the opening {first.raw!r} fails ({why})").revise(
        {id(first): replace(first, verdict=R.UNSUPPORTED)})


def compared_by_measure(d: Draft, f: Facts) -> Draft:
    """A comparison's short answer ("Erika Jayne" for "Who was born first, Erika Jayne or Marco Da
    Silva?", checked as the claim "Erika Jayne was born first"; "Broad Peak" for "Which mountain is
    higher, Nanda Devi or Broad Peak?") that failed the final check passes when the answer's passing
    sentences date or number both things and their dates or numbers make it the answer
    (:func:`~vericite.engine.text.compare.compared`: "born on July 10, 1971 [2]", "born on 10 April
    1992 [4]"; "at 8051 m [2]", "7,816 m [1]"): a sentence-pair checker cannot compare two documents'
    dates or numbers. Shown as the claim when that names it. The other one as the short answer fails,
    though the checker passed it: the dates or numbers say otherwise; the right one the checker passed with
    one document's citation cites the documents of both sides' sentences, which together carry it."""
    passing = [s for s in d.sentences if s.verdict == R.SUPPORTED]
    winner = compared(f.question, [s.text for s in passing])
    if not winner:
        return d
    pair = choices(f.question)  # two things: compared() named one of them
    losers = [c for c in pair if c != winner]
    changed: dict[int, Statement] = {}
    for s in d.sentences:
        if s.verdict != R.SUPPORTED and _bare(s) == winner:
            # shown as the claim when that names it first ("The Apple Dumpling Gang is newer than Heavyweights"
            # for "Heavyweights" says the other) and ends with no choice after a comma ("The Boatniks was released
            # first, Charley and the Angel", "Dinosaur came out first, Dinosaur": the rewrite copied one)
            shown = merge_adjacent(with_citations(s)) if s.rewritten and _first_named(winner, pair, s.text) and not any(
                re.search(rf",\s*(?:or\s+)?{re.escape(c)}\W*$", s.text) for c in pair) else s.raw
            changed[id(s)] = replace(s, verdict=R.SUPPORTED, raw=shown)
            d = d.note(f"compared: {s.raw!r} passes: the answer's sentences date or number both, and say it")
        elif s.verdict == R.SUPPORTED and s.rewritten and not named(winner, s.text) and any(
                named(c, s.text) for c in losers):  # "The Korean War took place first"
            changed[id(s)] = replace(s, verdict=R.UNSUPPORTED)
            d = d.note(f"compared: {s.raw!r} fails: the answer's sentences date or number both and say {winner!r}")
        elif s.verdict == R.SUPPORTED and (s.rewritten and named(winner, s.text) or _bare(s) == winner):
            # the checker kept one document's citation ("Ulf Merbold was born first [2]"; a name long enough to be
            # checked as written, "The New York Enterprise Report [1]"); both sides' documents carry it: it cites them
            cited = _citing_sides(s, passing, pair)
            if cited is not s:
                changed[id(s)] = cited
                d = d.note(f"compared: {s.raw!r} cites the documents dating both sides: {cited.raw!r}")
    return d.revise(changed) if changed else d


def compared_alone(d: Draft, f: Facts) -> Draft:
    """A comparison's short answer that passed the final check as the claim the question makes of it ("Waterton Lake
    is located further south" for "Which lake is located further south, Dal Lake or Waterton Lake?") fails when its
    cited documents do not make the comparison (:func:`~vericite.engine.text.compare.restates_comparison`: they name
    only the one claimed, or name both with no sentence comparing the one claimed) and the answer's passing sentences
    do not decide it by dates or numbers (:func:`compared_by_measure` runs before): the checker passed that claim on a
    page placing a ranger station "South of Goat Haunt" near the one lake. Only the short answer is read (rewritten by
    the final check, or written as the question's claim: :func:`~vericite.engine.text.compare.chosen_claim`): a
    document's own sentence ("Waterton Lake has more than 20 islands") is not the comparison."""
    pair = choices(f.question)
    passing = [s for s in d.sentences if s.verdict == R.SUPPORTED]
    if len(pair) != 2 or compared(f.question, [s.text for s in passing]):
        return d
    texts = [doc.text for doc in f.documents]
    claims = {chosen_claim(f.question, c) for c in pair} - {""}  # the short answer written as the question's claim
    failed: dict[int, Statement] = {}
    for s in passing:
        premise = "\n".join(texts[c - 1] for c in s.citations if 0 < c <= len(texts))
        if (s.rewritten or s.text in claims) and restates_comparison(s.text, f.question, premise):
            failed[id(s)] = replace(s, verdict=R.UNSUPPORTED)
            d = d.note(f"compared alone: {s.raw!r} fails: its documents do not compare {pair[0]!r} and {pair[1]!r}")
    return d.revise(failed) if failed else d


def _first_named(name: str, pair: Sequence[str], text: str) -> bool:
    """Whether ``text`` names ``name`` (:func:`~vericite.engine.text.entities.found`) and no other of ``pair``
    before it: the claim is about it."""
    if not found(name, text):
        return False
    at = text.casefold().find(name.casefold())
    return at >= 0 and not any(0 <= text.casefold().find(c.casefold()) < at for c in pair if c != name)


def _citing_sides(s: Statement, passing: Sequence[Statement], pair: Sequence[str]) -> Statement:
    """A short answer ``s`` citing, besides its own, the documents of the ``passing`` sentences about either of
    the two things ``pair`` names (each naming one alone): those carry it together; ``s`` when it cites them."""
    sides = {c for p in passing if p is not s and not p.rewritten and _one_side(pair, p.text) for c in p.citations}
    if not sides - set(s.citations):
        return s
    cited = replace(s, citations=tuple(sorted(set(s.citations) | sides)))
    return replace(cited, raw=merge_adjacent(with_citations(cited)))


def _one_side(pair: Sequence[str], text: str) -> bool:
    """Whether ``text`` names one of the two things ``pair`` names and not the other (:func:`alone`)."""
    return len(pair) == 2 and (alone(pair[0], pair[1], text) or alone(pair[1], pair[0], text))


def _bare(s: Statement) -> str:
    """A final sentence as written, without its citations and closing full stop ("Rush [1, 2]." -> "Rush")."""
    return strip_citations(s.raw).strip().rstrip(".").strip()


def both_said(d: Draft, f: Facts) -> Draft:
    """A "Yes" to a question asking the same of two things ("Are A and B both American
    singer-songwriters?", checked as the claim "A and B are both ...") that failed the final check
    passes when, for each, a passing sentence of the answer naming it alone says every word the
    question asks of them (:func:`~vericite.engine.text.compare.both_say`): a sentence-pair checker
    cannot join two documents' sentences."""
    failed = [s for s in d.sentences if s.verdict != R.SUPPORTED and _bare(s).casefold() == "yes"]
    if not failed or not both_say(f.question, [s.text for s in d.sentences if s.verdict == R.SUPPORTED]):
        return d
    return _passed(d, failed, "both said", "a sentence about each says what the question asks of both")


def same_said(d: Draft, f: Facts) -> Draft:
    """A "Yes" or "No" to "Are A and B in the same province?" (or of the same nationality) that failed the
    final check passes when the passing sentences about each give the two provinces and they make it
    the answer (:func:`~vericite.engine.text.compare.same`: "the Jiangsu province", "Sichuan province"):
    a sentence-pair checker cannot compare two documents' provinces. So does a "No" to "Are both A and B located
    in Michigan?" when the passing sentence about one places it in another state ("in Elko County, Nevada") or,
    for "from the U.S.?", gives another nationality (:func:`~vericite.engine.text.compare.elsewhere`), and a "No" to
    "Are both A and B chefs?" when one's passing sentence says it is one and the other's something else
    (:func:`~vericite.engine.text.compare.one_lacks`)."""
    word = by_sides(f.question, [s.text for s in d.sentences if s.verdict == R.SUPPORTED])
    failed = [s for s in d.sentences if s.verdict != R.SUPPORTED and word and _bare(s).casefold() == word.casefold()]
    return _passed(d, failed, "same said", "the sentences about each give what the question compares") if failed else d


def common_said(d: Draft, f: Facts) -> Draft:
    """The short answer to "What kind of film are both A and B?" ("Documentary", checked as the claim "A and
    B are both documentary films") that failed the final check passes when the passing sentences about each
    say it (:func:`~vericite.engine.text.compare.in_common`: "a documentary starring ...", "a 2007
    documentary film"): a sentence-pair checker cannot join two documents' sentences. One the checker passed on
    one document ("Cocktail [2]") cites the documents of the passing sentences about each too."""
    passing = [s for s in d.sentences if s.verdict == R.SUPPORTED]
    word = in_common(f.question, [s.text for s in passing])
    if not word:
        return d
    failed = [s for s in d.sentences if s.verdict != R.SUPPORTED and _bare(s).casefold() == word.casefold()]
    d = _passed(d, failed, "common said", "the sentences about each say what they share") if failed else d
    # the checker passed it on one document ("Cocktail [2]"): it cites the documents of both sides' sentences
    pair = common(f.question)
    changed = {id(s): c for s in d.sentences if s.verdict == R.SUPPORTED and _bare(s).casefold() == word.casefold()
               and (c := _citing_sides(s, passing, pair)) is not s}
    for c in changed.values():
        d = d.note(f"common said: {c.raw!r} cites the documents saying what each is")
    return d.revise(changed) if changed else d


#: a document sentence opening with one of these points back at a sentence the answer does not show
_POINTS_BACK = re.compile(r"^\W*(?:He|She|It|They|His|Her|Its|Their|This|These|Those|Он|Она|Оно|Они|Его|Её|Их)\b")
#: a document sentence shown in place of a fill has at least this many words (not a heading)
QUOTE_MIN_WORDS = 4
#: a sentence in the model's own words that puts this many words its document lacks, no sentence of which alone
#: passes it, fails
FILL_WORDS = 2


def document_words(d: Draft, f: Facts) -> Draft:
    """A passing final sentence in the model's own words (:func:`copied` is false) that puts a word its one cited
    document lacks (a content word's stem not in the document's text or title: "The original artist of "The Sound
    of Silence" is Paul Simon [1]" where the document says "... is a song by the American music duo Simon &
    Garfunkel. The song was written by Paul Simon"; "Andrés Wood was born in Chile" where it says "Chilean") is
    shown as the sentence of that document the checker passes it on best, when one alone passes it (P(entailment)
    >= ``threshold``; ``f.quotable``'s sentences of the document, "He" resolved to its title; at least
    :data:`QUOTE_MIN_WORDS` words, not a question, not opening with a pronoun that stays: "He gained worldwide fame
    ..."; whole as the lead quotes them, :func:`~vericite.engine.text.splitter.whole_part`: no infobox's cells run
    together). With none, a sentence that puts :data:`FILL_WORDS` or more such words fails ("The system containing
    Umchabezi River serves as the mouth of the Mzingwane River" from "The Umchabezi River is a tributary of the
    Mzingwane River"), one that puts fewer stays as checked: failing those dropped more supported sentences
    ("Jessica Chastain attended the Juilliard School") than unsupported ones (bench/RESULTS.md). The model fills
    the question's wording with what a document holds ("The first Apple iPhone was made in September 2006" from "In
    September 2006, Apple discontinued support for the ROKR ...") and words a document's fact its own way; the pair
    checker passes both, careful readers judged them unsupported or partial far more often than a document's own
    sentence (bench/RESULTS.md), and the reader finds the quote in the document as shown. The opening short answer
    of a comparison or yes/no question (the comparison rules judge it) and a sentence citing several documents
    stay. A quote another sentence of the answer already shows is not shown twice: the sentence goes."""
    if not f.settings.document_words:
        return d
    short = bool(choices(f.question)) or yes_no_question(f.question)
    final = d.sentences
    changed: dict[int, Statement] = {}
    gone: set[int] = set()
    shown = {strip_citations(s.text).strip().casefold() for s in final}
    quoted: list[str] = []
    for k, s in enumerate(final):
        if (s.verdict != R.SUPPORTED or s.rewritten or len(s.citations) != 1 or (short and k == 0)
                or not 1 <= s.citations[0] <= len(f.documents)):
            continue
        doc = f.documents[s.citations[0] - 1]
        if copied(s.text, [doc]):
            continue
        lacks = stems(s.text, f.lang) - stems(doc.text, f.lang) - stems(doc.title, f.lang) - FUNCTION_WORDS
        if not lacks:
            continue
        if f.quotable is None:
            parts: Sequence[str | None] = [stated(t.strip()) for t in split_sentences(doc.text, f.lang)]
        else:  # stage 3's: already no question
            parts = [x.text for x in f.quotable if x.citations == s.citations]
        sents = [t for t in parts if t and len(t.split()) >= QUOTE_MIN_WORDS and not _POINTS_BACK.match(t)]
        scores = f.scores([(t, s.text) for t in sents]) if sents else np.zeros(1, dtype=np.float32)
        best = int(np.argmax(scores))
        p = float(scores[best])
        if p < f.settings.threshold and len(lacks) >= FILL_WORDS:
            changed[id(s)] = replace(s, verdict=R.UNSUPPORTED)
            d = d.note(f"document words: {s.raw!r} puts {sorted(lacks)} that document {s.citations[0]} lacks; no "
                       f"sentence of it alone passes it (best {p:.3f}): it fails")
            continue
        if p < f.settings.threshold:
            d = d.note(f"document words: {s.raw!r} puts {sorted(lacks)} that document {s.citations[0]} lacks; no "
                       f"sentence of it alone passes it (best {p:.3f}): it stays as checked")
            continue
        quote = sents[best]
        if quote.casefold() in shown:
            gone.add(id(s))
            d = d.note(f"document words: {s.raw!r} puts {sorted(lacks)} that document {s.citations[0]} lacks; "
                       f"its sentence {quote!r} is shown already: left out")
            continue
        shown.add(quote.casefold())
        quoted.append(quote)
        new = replace(s, text=quote, score=round(p, 4),
                      grade=grade(p, f.settings.grade_bands) if f.settings.grade_bands else s.grade)
        changed[id(s)] = replace(new, raw=merge_adjacent(with_citations(new)))
        d = d.note(f"document words: {s.raw!r} puts {sorted(lacks)} that document {s.citations[0]} lacks; shown as "
                   f"its sentence {quote!r} (P {p:.3f})")
    if changed:
        d = replace(d.revise(changed), quoted=d.quoted + tuple(quoted))
    if gone:
        d = d.keep([s for s in d.sentences if id(s) not in gone])
    return d


def _passed(d: Draft, failed: Sequence[Statement], rule: str, why: str) -> Draft:
    """``d`` with the ``failed`` short answers passing by ``rule``, noted with ``why``."""
    d = d.note(f"{rule}: {failed[0].raw!r} passes: {why}")
    return d.revise({id(s): replace(s, verdict=R.SUPPORTED) for s in failed})


def strict(d: Draft, f: Facts) -> Draft:
    """Failing final sentences: with ``drop_unsupported`` (strict, the default) removed, and when
    none passes the answer falls back to the verified sentences themselves (with
    ``fallback_sentences`` N > 0, at most N, the most relevant to the question: :func:`relevant`),
    checked again as final sentences (those that fail are removed too; after the answer step at
    most :data:`PICKED_FALLBACK` when N is 0); without it, reported in a warning."""
    final = d.sentences
    bad = [s for s in final if s.verdict != R.SUPPORTED]
    if not bad:
        return d
    if not f.settings.drop_unsupported:
        return d.warn(FINAL_FAILED, f"{len(bad)} of {len(final)} final sentences failed the final check (see final_check)")
    kept = [s for s in final if s.verdict == R.SUPPORTED]
    d = d.note(f"strict: removed {len(bad)} of {len(final)} final sentences that failed the final "
               f"check: {[s.raw for s in bad]}")
    if kept:
        d = d.keep(kept)
        return d.warn(FINAL_REMOVED, f"removed {len(bad)} of {len(final)} final sentences that failed the final check "
                                     "(strict; --no-drop-unsupported keeps them)")
    # a verified sentence the answer's check failed as a final sentence is no fallback ("The system containing
    # Umchabezi River serves as the mouth of ..." failed by document_words is stage 1's verified sentence)
    gone = {_as_said(s.text) for s in bad}
    pool = [s for s in f.verified if _as_said(s.text) not in gone]
    chosen = relevant(f.question, pool, f.settings.fallback_sentences or (PICKED_FALLBACK if d.picked else 0), f.lang)
    d = d.note("strict: no final sentence passed; the answer is the verified sentences"
               + (f" most relevant to the question ({len(chosen)} of {len(f.verified)})"
                  if len(chosen) < len(f.verified) else ""))
    d = d.warn(FINAL_NONE_PASSED, f"no final sentence passed the final check; the answer is the {len(chosen)} "
                                  "verified sentences themselves" + (f" most relevant to the question (of {len(f.verified)})"
                                                                     if len(chosen) < len(f.verified) else ""))
    text = merge_adjacent(" ".join(with_citations(s) for s in chosen))
    block, notes = f.check(text) if text else (Block(""), [])
    d = replace(d, blocks=(block,) if text else (), notes=d.notes + tuple(notes))
    if text:  # the fallback's own fills are shown as their documents' sentences or fail, as the answer's were
        d = document_words(d, f)
        block = d.blocks[0] if d.blocks else Block("")
    failed = [s for s in block.sentences if s.verdict != R.SUPPORTED]
    if failed:  # strict holds for the fallback too (a sentence can read differently once split again)
        d = replace(d, blocks=(block.keep([s for s in block.sentences if s.verdict == R.SUPPORTED]),))
        d = d.note(f"strict: removed {len(failed)} verified sentence(s) that failed as final "
                   f"sentences: {[s.raw for s in failed]}")
    return d


def _as_said(text: str) -> str:
    """``text`` without its citations, spacing, case and closing stop: one sentence however it is cited."""
    return " ".join(strip_citations(text).split()).casefold().rstrip(".")


def one_answer(d: Draft, f: Facts) -> Draft:
    """The opening short answer says it once: a later sentence the same as its checked claim is left out ("The
    Bears and I was released on July 31, 1974 ..." twice; "Brett Allen Scallions is a member of ..." after "Brett
    Scallions is a member of ...": a name written in full; after a buried answer's claim, one with no word the claim
    lacks), and after a passing "Yes" or "No" a later sentence's
    own opening "Yes, " or "No, " goes ("No [1, 5]. Yes, Skin Yard was an American grunge band ..." -> "...
    Skin Yard was ..."): the opening answers; the sentence says the rest (less than was checked, nothing new). An
    opening of four words or more that opens a later sentence saying more, word for word (a name may be written in
    full there), gives its place to that sentence.
    For "Are A and B both ...?" a sentence about one of them loses its "Yes, " / "No, " whatever opens: it
    cannot answer for both ("Yes, Über Goober is a documentary about gaming" beside a film about jobs)."""
    passing = [s for s in d.sentences if s.verdict == R.SUPPORTED]
    opening = _bare(passing[0]) if passing else ""
    fuller = next((s for s in passing[1:] if _says_again(opening, _bare(s), opens=True)
                   and not _says_again(opening, _bare(s))), None)  # one saying only it again goes below
    if fuller is not None:
        # the opening claim opens a later sentence word for word ("A is home to the 642nd Aviation Support Battalion"
        # and "A is home to the 642nd Aviation Support Battalion, part of ..."): that one opens in its place
        d = d.note(f"one answer: the opening {_bare(passing[0])!r} opens a later sentence, which takes its place")
        d = d.revise({id(passing[0]): replace(fuller)})
        d = d.keep([s for s in d.sentences if s is not fuller])
        passing = [s for s in d.sentences if s.verdict == R.SUPPORTED]
    if passing and passing[0].rewritten:  # the short answer checked as a claim that a later sentence says again
        # a buried answer's claim said again in another order ("The main character of The Godfather was created by
        # Mario Puzo" after "Mario Puzo created the main character of The Godfather"): no word the claim lacks
        again = [s for s in passing[1:] if _says_again(_bare(passing[0]), _bare(s))
                 or d.buried and not answer_words(s.text, passing[0].text, f.lang)]
        if again:
            d = d.note(f"one answer: {len(again)} later sentence(s) repeating the opening {_bare(passing[0])!r} left out")
            gone = {id(s) for s in again}  # by identity: an equal sentence elsewhere stays
            d = d.keep([s for s in d.sentences if id(s) not in gone])
    opened = bool(passing) and _bare(passing[0]).casefold() in ("yes", "no")
    pair = both(f.question)  # "Are A and B both ...?": a sentence about one of them cannot say "Yes" for both
    changed: dict[int, Statement] = {}
    for s in passing[1:] if opened else passing:
        m = re.match(r"(?:Yes|No),\s+(?=\w)", s.text)
        if m and (opened or _one_side(pair, s.text)):
            rest = s.text[m.end():]
            text = rest[0].upper() + rest[1:]
            changed[id(s)] = replace(s, text=text, raw=merge_adjacent(with_citations(replace(s, text=text))))
    if changed and opened:
        d = d.note(f"one answer: the opening {_bare(passing[0])!r} answers; {len(changed)} later sentence(s) without "
                   "their own")
    elif changed:
        d = d.note(f"one answer: {len(changed)} sentence(s) about one of {pair} without their own 'Yes'/'No'")
    return d.revise(changed) if changed else d


def _says_again(opening: str, later: str, opens: bool = False) -> bool:
    """Whether ``later`` says ``opening`` again: the same words, or the same with at most two more name words
    or articles ("Brett Allen Scallions is a member of the post-grunge band Fuel" after "Brett Scallions is ...";
    "... ordained to the priesthood" after "... ordained to priesthood"); with ``opens``, whether ``later`` opens with
    them so, whatever follows ("Lev Ivanovich Yashin was nicknamed the "Black Spider" or the "Black Panther"" opens
    with "Lev Yashin was nicknamed the "Black Spider"", four words at least)."""
    if later.casefold() == opening.casefold():
        return True
    a, b = _WORDS.findall(opening), _WORDS.findall(later)
    k, inside = 0, []  # b read in order: a's words, and the others: articles, or words between two capitalised ones
    for i, w in enumerate(b):
        if k < len(a) and w == a[k]:
            k += 1
        elif opens and k == len(a):
            break
        elif w.casefold() in ("the", "a", "an") or 0 < i < len(b) - 1 and all(
                x[:1].isupper() for x in (b[i - 1], w, b[i + 1])):
            inside.append(w)
        else:
            return False
    return k == len(a) >= 4 and len(inside) <= 2


#: a word of a final sentence, as :func:`_says_again` compares them
_WORDS = re.compile(r"[\w'’-]+")

#: a role the question names and the verb a document says it with ("the same director": "directed by ..."), stemmed
_ROLE_VERBS = {stem: stems(verbs) for role, verbs in (("director", "directed directs"), ("producer", "produced"),
                                                      ("writer", "written wrote"), ("author", "written wrote"),
                                                      ("composer", "composed"), ("founder", "founded"),
                                                      ("creator", "created"), ("publisher", "published"))
               for stem in stems(role)}
_ENDING_MARKS = re.compile(r"(?:\s*\[[\d,\s*]+\])+\s*[.!?]?\s*$")
_INNER_MARK = re.compile(r"\[\d")


def trimmed(d: Draft, f: Facts) -> Draft:
    """A passing final sentence of more than ``trim_words`` words (English) shown as its leading clauses
    (:func:`~vericite.engine.text.clauses.leading_clauses`: "Oz the Great and Powerful is a 2013 American
    fantasy adventure film directed by Sam Raimi and produced by Joe Roth, from a screenplay written by
    ..." -> "... produced by Joe Roth.") when those pass the final check too; what they cut holds no word
    of the question or of the answer (the answer step's short answer, else stage 1's sentences; a role the
    question names keeps its verb: "director", "directed") and, for a
    question asking a date or number, no number the question does not give, nor a name another passing sentence of the
    answer names (the link of a chain: "..., based on Shakespeare's Henry V" after "Henry V tells the story of ...
    the Battle of Agincourt"); an empty aside ("Tenerife ( ; ] ) is ...") goes at any length. A closing list of
    examples ("including A, B, C and D") keeps only the items holding most of those words
    (:func:`~vericite.engine.text.clauses.examples_kept`: "... a stronghold for outlaws, including serial
    killers/bandits the Harpe brothers").
    Documents' sentences run long; the answer needs the clause that carries it."""
    if not f.settings.trim_words or f.lang != "en":
        return d
    said = d.answer or " ".join(s.text for s in f.statements)
    keep = answer_words(f.question, "", f.lang) | answer_words(said, "", f.lang)  # content words: not "which", "that"
    keep |= frozenset(w for k, verbs in _ROLE_VERBS.items() if k in keep for w in verbs)  # "director": "directed"
    numbers = asks_number(f.question)
    given = frozenset(re.findall(r"\d+", f.question))  # a year the question gives is not its answer
    changed: dict[int, Statement] = {}
    for s in d.sentences:
        if s.verdict != R.SUPPORTED or _INNER_MARK.search(_ENDING_MARKS.sub("", s.raw)):
            continue  # a citation inside: two documents' sentences run together ("guitarist, [5] Gerry Marsden ...")
        kept = keep | _linked(s, d.sentences)
        text = examples_kept(s.text, kept) if len(s.text.split()) > f.settings.trim_words else s.text
        short = leading_clauses(text, kept, numbers, f.settings.trim_words, given)
        if short == s.text:
            continue
        block, _ = f.check(with_citations(replace(s, text=short)))
        if len(block.sentences) == 1 and block.sentences[0].verdict == R.SUPPORTED:
            changed[id(s)] = block.sentences[0]
            d = d.note(f"trimmed: {s.raw!r} shown as {block.sentences[0].raw!r}")
    return d.revise(changed) if changed else d


def _linked(s: Statement, sentences: Sequence[Statement]) -> frozenset[str]:
    """The stems of the names ``s`` shares with the other passing ``sentences`` (a nationality aside): the link of a
    chain of sentences, which :func:`trimmed` keeps."""
    others = " ".join(o.text for o in sentences if o is not s and o.verdict == R.SUPPORTED)
    return stems(" ".join(n for n in names(s.text) if n.lower() not in DEMONYMS and found(n, others))) if others \
        else frozenset()


def put_back_statements(d: Draft, f: Facts) -> Draft:
    """Stage 1 answers the question in full sentences; the merge sometimes keeps only a stage-2
    fragment or loses the answer (``backbone``). A kept stage-1 statement whose answer words (its
    words that are not in the question, :func:`~vericite.engine.text.content.carried`) are mostly
    missing from the answer is put before it, checked as a final sentence first. Not after the
    answer step: its picks are the answer."""
    if not f.settings.backbone or d.picked:
        return d
    text = d.text()
    missing = [s for s in f.statements if s.verdict == R.KEPT and not carried(s.text, text, f.question, f.lang)]
    return _put_back(d, f, missing, "verified stage-1 statement(s)", before=True)


def put_back_facts(d: Draft, f: Facts) -> Draft:
    """Up to ``backbone_facts`` verified stage-2 facts the answer lost (:func:`dropped_facts`),
    put after it, each checked as a final sentence first. Not after the answer step."""
    if not f.settings.backbone_facts or d.picked:
        return d
    picked = dropped_facts(f.question, f.verified, d.text(), f.settings.backbone_facts, f.lang)
    return _put_back(d, f, picked, "verified stage-2 fact(s)", before=False)


def _put_back(d: Draft, f: Facts, missing: Sequence[Statement], what: str, *, before: bool) -> Draft:
    """``missing`` checked as final sentences and, those that pass (strict) or all, joined to the
    answer before or after its sentences; one trace note."""
    if not missing:
        return d
    block, notes = f.check(" ".join(merge_adjacent(with_citations(s)) for s in missing))
    d = replace(d, notes=d.notes + tuple(notes))
    if f.settings.drop_unsupported:
        block = block.keep([s for s in block.sentences if s.verdict == R.SUPPORTED])
    if not block.sentences:
        return d
    blocks = (block, *d.blocks) if before else (*d.blocks, block)
    checked = block.sentences + d.checked if before else d.checked + block.sentences
    d = replace(d, blocks=blocks, checked=checked)
    return d.note(f"backbone: put back {len(block.sentences)} {what} the refinement dropped: "
                  f"{[s.raw for s in block.sentences]}")


#: a later sentence adds nothing to an earlier one when at most this many of its content-word stems are new ...
SAID_ONCE_NEW = 1
#: ... and it has at least this many (a short sentence is too easily inside another)
SAID_ONCE_STEMS = 4


def said_once(d: Draft, f: Facts) -> Draft:
    """A passing sentence that says again what an earlier passing sentence of the answer says is left out: at most
    :data:`SAID_ONCE_NEW` of its content-word stems (:func:`~vericite.engine.text.content.stems`, at least
    :data:`SAID_ONCE_STEMS`) and none of its numbers are missing from that sentence ("The NSC Olimpiyskiy Stadium
    in Kiev, Ukraine was the venue for the champions league final 2018" after "The 2018 UEFA Champions League Final
    was held at the NSC Olimpiyskiy Stadium in Kiev, Ukraine ..."). Such a sentence is the template of another
    document's fact or a vaguer copy of the first, and it is where the checker passes what the document only
    partly says ("It is possible to travel faster than the speed of light" after a sentence on a technology that
    would allow it): the reader loses nothing and reads one claim once."""
    # a short answer checked as the question's claim ("Yes" as "A and B are both ...") is not what it shows;
    # :func:`one_answer` handles what repeats it
    passing = [s for s in d.sentences if s.verdict == R.SUPPORTED and not s.rewritten]
    seen: list[tuple[frozenset[str], frozenset[str]]] = []
    again: list[Statement] = []
    for s in passing:
        text = strip_citations(s.text)
        words, numbers = stems(text, f.lang), frozenset(re.findall(r"\d+", text))
        if len(words) >= SAID_ONCE_STEMS and any(len(words - w) <= SAID_ONCE_NEW and numbers <= n for w, n in seen):
            again.append(s)
        else:
            seen.append((words, numbers))
    if not again:
        return d
    d = d.note(f"said once: left out {len(again)} sentence(s) an earlier one says: {[s.raw for s in again]}")
    gone = {id(s) for s in again}  # by identity: the earlier sentence may be equal to it
    return d.keep([s for s in d.sentences if id(s) not in gone])


def lenient_marks(d: Draft, f: Facts) -> Draft:
    """Lenient strictness: each citation that supports its final sentence only partly (grade 3,
    each cited document scored alone when there are several) is marked with an asterisk,
    "[2, 3*]"; the Statement lists them in ``partial``. Strict: unchanged."""
    final = d.sentences
    if f.settings.strictness != "lenient" or not final:
        return d
    bands = f.settings.grade_bands
    multi = [(s, c) for s in final if len(s.citations) > 1 for c in s.citations]
    alone = iter(f.scores([(f.documents[c - 1].text, s.text) for s, c in multi])) if multi else iter(())
    changed: dict[int, Statement] = {}
    grades: dict[int, int | None]
    for s in final:
        if len(s.citations) > 1:
            assert bands is not None  # lenient strictness: settings.validate() requires grade_bands
            grades = {c: grade(float(next(alone)), bands) for c in s.citations}
        else:
            grades = {c: s.grade for c in s.citations}
        partial = tuple(c for c in s.citations if grades[c] == 3)
        if partial and s.verdict == R.SUPPORTED:
            raw = re.sub(r"\[[\d,\s]+\]", format_citations(s.citations, partial), s.raw, count=1)
            changed[id(s)] = replace(s, raw=raw, partial=partial)
    # the record keeps the sentences as checked; only the answer shows the marks
    return replace(d, blocks=tuple(b.revise(changed) for b in d.blocks)) if changed else d


_MARKS_AFTER_STOP = re.compile(r"^(?P<body>.*?\w)(?P<stop>[.!?…]+)\s*(?P<marks>(?:\[[\d,\s*]+\]\s*)+)$", re.S)


def marks_before_stop(d: Draft, f: Facts) -> Draft:
    """Citation marks written after a sentence's full stop ("... is the Police. [4]") move before
    it ("... is the Police [4]."): readers and ALCE-style evaluators take a mark after the stop as
    the next sentence's."""
    changed: dict[int, Statement] = {}
    for s in d.sentences:
        m = _MARKS_AFTER_STOP.match(s.raw)
        if m:
            marks = re.sub(r"\]\s*\[", "][", m.group("marks").strip())
            marks = marks if "*" in marks else merge_adjacent(marks)
            changed[id(s)] = replace(s, raw=f"{m.group('body')} {marks}{m.group('stop')}")
    return replace(d, blocks=tuple(b.revise(changed) for b in d.blocks)) if changed else d


#: a name as the question writes it, with its "of" parts ("Modern Drummer Hall of Fame"), not inside a word ("iPods")
_QUESTION_NAME = re.compile(r"(?<![\w'’-])" + FULL_NAME)
#: a question's opening words that are no name ("How many ...", "Did the Battle of ...")
_ASKING = frozenset("how why did does do can could would should will has have had is are was were".split())


def asked_names(question: str) -> list[tuple[str, list[str]]]:
    """The names an English ``question`` names, in order, each as (the run as written from its first name word, its
    possessive "'s" removed; the run's words that count): the question's capitalised runs with their "of" parts,
    their words as :func:`~vericite.engine.text.entities.names` keeps them (not "Which", "The"), but a nationality
    ("American") or the question's opening "How", "Did"; runs with no such word are left out. Not for Russian (a
    question's opening word is capitalised there)."""
    out = []
    for m in _QUESTION_NAME.finditer(question):
        words = [w for w in names(m.group(0)) if w.lower() not in DEMONYMS
                 and not (m.start() == question.find(w) and w.lower() in _ASKING)]
        if words:
            out.append((re.sub(r"['’]s?$", "", m.group(0)[m.group(0).index(words[0]):]), words))
    return out


def left_out(asked: Sequence[tuple[str, list[str]]], text: str) -> list[str]:
    """The runs of ``asked`` (:func:`asked_names`) that ``text`` mentions too little of: fewer than half their words
    :func:`~vericite.engine.text.entities.found` ("Rock and Roll Hall of Fame" is in "the Rock Hall", "Modern
    Drummer Hall of Fame" is not in "the drummer"); in order, each once."""
    return list(dict.fromkeys(run for run, words in asked if 2 * sum(found(w, text) for w in words) < len(words)))


def uncovered(d: Draft, f: Facts) -> Draft:
    """A warning (:data:`UNCOVERED`), the answer unchanged, when its passing sentences mention too little of a name
    the question names ("Counterparts" of "Which Canadian rock band released a song called "Counterparts" and had a
    drummer who was inducted into the Modern Drummer Hall of Fame?", answered from the drummer's document alone): no
    sentence shows that part of the question holds, and the analyst reading the answer should know before citing
    it. Names are the question's capitalised runs with their "of" parts, their words as
    :func:`~vericite.engine.text.entities.names` keeps them (not "Which", "The"), but a nationality ("American") or
    the question's opening "How", "Did"; a run counts as named when half its
    words are (:func:`~vericite.engine.text.entities.found`: "Rock and Roll Hall of Fame" in "the Rock Hall", not
    "Modern Drummer Hall of Fame" in "the drummer"); nothing for an empty answer or a question not in English (its
    opening words are not told from names there)."""
    shown = " ".join(s.text for s in d.sentences if s.verdict == R.SUPPORTED)
    if f.lang != "en" or not shown.strip():  # a Russian question's opening word is capitalised ("Городом какого ...")
        return d
    left = left_out(asked_names(f.question), shown)
    if not left:
        return d
    said = ", ".join(f'"{n}"' for n in dict.fromkeys(left))
    return d.note(f"uncovered: the answer mentions too little of {said}").warn(
        UNCOVERED, f"the question names {said}, which no sentence of the answer mentions: nothing shown ties the "
                   "answer to it")


def quotes(d: Draft, f: Facts) -> Draft:
    """Per cited document of each supported final sentence, the span that carries it
    (``quotes``): each run of one to three adjacent sentences of the document scored alone against
    the sentence, the best kept (the shortest among equals) with its character offsets, score and
    grade (the checker takes the best window of a long premise too; this names which one)."""
    if not f.settings.quotes:
        return d
    asked: list[tuple[int, int, int, int]] = []  # (sentence k, document, start, end)
    final = d.sentences
    spans: dict[int, list[tuple[int, int]]] = {}  # a document cited by several sentences is split once
    for k, s in enumerate(final):
        if s.verdict != R.SUPPORTED:
            continue
        for c in s.citations:
            if 1 <= c <= len(f.documents):
                if c not in spans:
                    spans[c] = windows(f.documents[c - 1].text, f.lang)
                asked += [(k, c, a, b) for a, b in spans[c]]
    if not asked:
        return d
    scores = f.scores([(f.documents[c - 1].text[a:b], final[k].text) for k, c, a, b in asked])
    best: dict[tuple[int, int], tuple[float, int, int]] = {}
    for (k, c, a, b), p in zip(asked, scores):
        if (k, c) not in best or float(p) > best[(k, c)][0]:
            best[(k, c)] = (float(p), a, b)
    changed: dict[int, Statement] = {}
    for k, s in enumerate(final):
        found = tuple(Quote(c, a, b, f.documents[c - 1].text[a:b], round(p, 4),
                            grade(p, f.settings.grade_bands) if f.settings.grade_bands else None)
                      for c in s.citations if (k, c) in best for p, a, b in [best[(k, c)]])
        if found:
            changed[id(s)] = replace(s, quotes=found)
    return replace(d, blocks=tuple(b.revise(changed) for b in d.blocks)) if changed else d


def windows(text: str, lang: str = "en", size: int = 3) -> list[tuple[int, int]]:
    """Character spans of ``text``'s runs of 1 to ``size`` adjacent sentences, shortest first (a
    sentence the splitter rewrote so that it is not found verbatim is left out)."""
    spans, at = [], 0
    for sent in split_sentences(text, lang):
        i = text.find(sent, at)
        if i < 0:
            continue
        spans.append((i, i + len(sent)))
        at = i + len(sent)
    return [(spans[k][0], spans[k + n - 1][1]) for n in range(1, size + 1) for k in range(len(spans) - n + 1)]


#: stage 3's rules, in the order they run
RULES: tuple[Rule, ...] = (final_check, as_written, read_back, add_nothing, asked_in_full, compared_by_measure,
                           compared_alone, both_said, same_said, common_said, document_words, strict, one_answer, trimmed,
                           put_back_statements, put_back_facts, said_once, lenient_marks, marks_before_stop, uncovered,
                           quotes)


def apply(d: Draft, f: Facts, rules: Sequence[Rule] = RULES) -> Draft:
    """``d`` after each of ``rules`` in order."""
    for rule in rules:
        d = rule(d, f)
    return d


# -- helpers ------------------------------------------------------------------------------------
def with_citations(s: Statement) -> str:
    """'Rush is a band.' + (1, 2) -> 'Rush is a band [1][2].' (the authors' [1][2] style)."""
    marks = "".join(format_citations((c,)) for c in s.citations)
    text = s.text.rstrip()
    if text and text[-1] in ".!?":
        return f"{text[:-1]} {marks}{text[-1]}"
    return f"{text} {marks}"


def relevant(question: str, verified: Sequence[Statement], n: int, lang: str = "en") -> list[Statement]:
    """At most ``n`` of ``verified`` (all when ``n`` is 0 or they are no more): those sharing at
    least :data:`MIN_QUESTION_STEMS` content stems with ``question``, the most relevant first (BM25),
    or the single most relevant when none does; returned in their own order. A sentence that only
    restates the question (no :func:`~vericite.engine.text.content.answer_words`: three documents'
    "Some TV remotes work when you point it in any direction ..." for "Why do some TV remotes work
    when you point it in any direction ...?") and a repeat of an earlier one (the same words, other
    citations) are left out, unless nothing else is left (a sentence restating a yes/no question
    answers it: kept)."""
    said = ([s for s in verified if answer_words(s.text, question, lang)] if not yes_no_question(question) else []
            ) or list(verified)
    seen: set[str] = set()
    pool = []
    for s in said:
        key = " ".join(s.text.lower().split()).rstrip(".!? ")
        if key not in seen:
            seen.add(key)
            pool.append(s)
    if not n or len(pool) <= n:
        return pool
    ranked, close = _ranked(question, [s.text for s in pool], lang)
    return [pool[k] for k in sorted([k for k in ranked if close(k)][:n] or ranked[:1])]


def _ranked(question: str, texts: Sequence[str], lang: str) -> tuple[list[int], Callable[[int], bool]]:
    """(indexes of ``texts``, most relevant to ``question`` first (BM25, ties in order); whether
    text k shares at least :data:`MIN_QUESTION_STEMS` content stems with the question)."""
    scores = bm25_scores(question, list(texts))
    asked = stems(question, lang) - stems(" ".join(FUNCTION_WORDS), lang)
    return (sorted(range(len(texts)), key=lambda k: (-scores[k], k)),
            lambda k: len(asked & stems(texts[k], lang)) >= MIN_QUESTION_STEMS)


def dropped_facts(question: str, verified: Sequence[Statement], text: str, n: int, lang: str = "en") -> list[Statement]:
    """Up to ``n`` verified stage-2 facts whose content ``text`` (the answer) does not carry
    (:func:`~vericite.engine.text.content.carried`), sharing at least :data:`MIN_QUESTION_STEMS` content
    stems with ``question``, the most relevant to it first (BM25 over those facts), none carried by
    one picked before it (no repeats)."""
    facts = [s for s in verified if s.stage == R.EVIDENCE and not carried(s.text, text, question, lang)]
    if not facts or n < 1:
        return []
    ranked, close = _ranked(question, [s.text for s in facts], lang)
    picked: list[Statement] = []
    for k in ranked:
        if len(picked) == n:
            break
        if close(k) and not carried(facts[k].text, " ".join(p.text for p in picked), question, lang):
            picked.append(facts[k])
    return picked
