"""Question-aware claims: a fragment answer becomes a full sentence before it is checked.

A bare name ("Berea College", "Norihiro Koizumi") is "entailed" by any document that mentions it,
so checking it as written tests that the name is in the document, never that it answers the
question. A sentence with fewer than ``claim_words`` words is therefore rewritten by the LLM, with
the question, as one full declarative sentence ("James Fieser received his B.A. from Berea
College") and that sentence is the hypothesis: a distractor that only names the entity fails.

The converse holds for a statement or fact that *is* the question's own wording with a name put in
the slot the question asks about (:func:`template_fill`: "DeKalb County shares a border with the county
where the most populous city in the state where Redan High School is located" for "Which county shares a
border with the county where ..."): a document naming the county and the school entails it for the
checker, though no document says it. So is a comparison stated from one document ("The Second Battle of
Guam occurred first" for "Which battle occurred first, the Battle of Manila or the Battle of Guam?", from a
document that never names Manila).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from . import records as R
from .records import Statement
from .text.citations import strip_citations
from .text.compare import restates_comparison
from .text.content import content_free, invented
from .text.copies import altered_copy, opening
from .text.entities import names as names_in
from .text.relations import swapped_act, unstated
from .text.splitter import stated
from .verifier import Claim


def is_fragment(text: str, min_words: int) -> bool:
    """Whether ``text`` (citation marks removed) has fewer than ``min_words`` words (0: never)."""
    return min_words > 0 and len(text.split()) < min_words


def clean_rewrite(text: str) -> str:
    """The rewrite step's reply as one sentence: its first line, citation marks and quotes removed."""
    line = next((ln.strip() for ln in text.strip().splitlines() if ln.strip()), "")
    return strip_citations(line).strip().strip('"“”«»').strip()


def complete_claims(items: Sequence[Statement | Claim], rewrite: Callable[[str], str] | None, min_words: int, *,
                    question: str = "", lang: str = "en", guard: bool = True, failed: str = R.DROPPED_FRAGMENT,
                    notes: list[str] | None = None) -> list[Statement | Claim]:
    """``items`` with every fragment claim rewritten as a full sentence by ``rewrite``.

    With ``guard``, a fragment with no content (:func:`~vericite.engine.text.content.content_free`: "According to
    Document [4]") is not sent to ``rewrite``: asked to make a sentence of it, a small model answers
    the question from memory. A rewrite that says what neither the fragment nor ``question`` says
    (:func:`~vericite.engine.text.content.invented`: "... won the NBA Finals 6 times" from "According
    to Document") is refused. Both get ``failed``.

    Args:
        items: a stage's sorted sentences (:func:`~vericite.engine.verifier.answer_claims` / ``fact_claims``).
        rewrite: fragment text -> the LLM's full sentence (the prompt set's claim step); None when
            the prompt set has no claim step (fragments then fail).
        min_words: a claim with fewer words is a fragment (:func:`is_fragment`); 0 changes nothing.
        question: the question the rewrite may take words from.
        lang: the language of the stems compared (:func:`~vericite.engine.text.content.stems`).
        guard: apply the two rules above (False: every fragment is rewritten, every rewrite taken).
        failed: the verdict of a fragment that could not be made a full sentence (no content, the
            rewrite empty, still a fragment, or inventing): ``dropped:not_a_statement`` in stages
            1-2, ``unsupported`` in the final check.
        notes: when given, one line per refused rewrite is appended (the trace's notes).

    Returns:
        The items in order; a rewritten claim keeps its citations, premise and ``raw`` (the
        sentence as first written) and gets the full sentence as ``text``, the hypothesis.
    """
    out: list[Statement | Claim] = []
    for x in items:
        if not isinstance(x, Claim) or not is_fragment(x.text, min_words):
            out.append(x)
            continue
        full = clean_rewrite(rewrite(x.text)) if rewrite and not (guard and content_free(x.text)) else ""
        new = invented(full, x.text, question, lang) if full and guard else frozenset()
        if new and notes is not None:
            notes.append(f"claim rewrite refused: {full!r} adds {sorted(new)} to {x.text!r}")
        if not full or is_fragment(full, min_words) or new:
            out.append(Statement(x.stage, x.text, x.citations, failed, None, x.raw))
        else:
            out.append(replace(x, text=full, rewritten=True))
    return out


_WH = frozenset({"who", "whom", "whose", "what", "which", "when", "where", "how"})
_TOKEN = re.compile(r"\w+")
#: a filled template is a name (at most this many words) and the question's own words after its wh-phrase
_SLOT_WORDS = 6
#: ... at least this many of them: a plain answer restates a short question ("Neil Peart was the drummer of
#: Rush"); a long one describes what it asks about, which one sentence of one document rarely resolves
_RUN_WORDS = 8


def _tokens(text: str) -> list[str]:
    return [w.casefold() for w in _TOKEN.findall(strip_citations(text))]


def template_fill(claim: str, question: str, documents: str) -> str:
    """The question's words that ``claim`` ends with when it is the question's own template with a name
    put in the slot the question asks about ("Theodore Evelyn Mosby married the narrator of How I Met
    Your Mother" for "Who married the narrator of How I Met Your Mother?"; "DeKalb County shares a
    border with the county where ..." for "Which county shares a border with the county where ...?"),
    "" when it is not. It is one when the question opens with a wh-word (English), the claim ends with
    all of the question's words after its first one to three (eight words at least: a plain answer
    restates a short question, "Neil Peart was the drummer of Rush"), those follow at most six words (the
    name), and the cited ``documents`` (their texts joined) never say those words in a row: a small
    model extracting "the facts that help answer the question" from a document that names some entity
    writes it into the question, and the checker, reading a document that names the entity and the
    question's words, often passes it. A claim in the document's own words is no fill, nor is a fact
    about part of the question ("Barcelona has won the treble competitions twice" for "How many UEFA Super Cup
    awards has the team that has won the treble competitions twice received?"). The slot may also open the
    claim: "What is the nationality of the most successful female ski racer ever?" answered "The nationality of
    the most successful female ski racer ever is Switzerland" from a document about a Swiss racer; or the question's
    words after "What N" make the noun's relative clause: "What county shares a border with the county in which
    Johnnycake, West Virginia is located?" answered "The county that shares a border with ... is McDowell County"
    (the county Johnnycake is in)."""
    asked, said = _tokens(question), _tokens(claim)
    if not asked or asked[0] not in _WH:
        return ""
    front = _front_fill(asked, said) or _relative_fill(asked, said)
    if front:
        return "" if _says(documents, front) else front
    for k in range(1, 4):
        run = asked[k:]
        if len(run) < _RUN_WORDS or not 0 < len(said) - len(run) <= _SLOT_WORDS or said[-len(run):] != run:
            continue
        words = " ".join(run)
        return "" if _says(documents, words) else words
    return ""


#: the copula of a "What is X?" question and of the claim that answers it "X is NAME"
_COPULA = frozenset({"is", "was", "are", "were"})


def _front_fill(asked: list[str], said: list[str]) -> str:
    """The question's words after "What is" (``asked``: its tokens) when ``said`` (a claim's tokens) opens
    with them (eight at least) and a copula and a name of at most six words follow ("The nationality of the
    most successful female ski racer ever is Switzerland"), "" when not."""
    if len(asked) < 3 or asked[1] not in _COPULA:
        return ""
    run = asked[2:]
    rest = said[len(run):]
    if len(run) < _RUN_WORDS or said[:len(run)] != run or not rest or rest[0] not in _COPULA \
            or not 0 < len(rest) - 1 <= _SLOT_WORDS:
        return ""
    return " ".join(run)


#: the relative word a "What N <rest>?" template's claim puts after its noun ("the county that shares a border ...")
_RELATIVE = frozenset({"that", "which", "who"})
#: at most this many words before that noun ("Therefore, the county that ...")
_RELATIVE_LEAD = 3


def _relative_fill(asked: list[str], said: list[str]) -> str:
    """The question's words after "What/Which N" (``asked``: its tokens) when ``said`` (a claim's tokens) says them
    as the noun's relative clause (eight words at least), then a copula and a name of at most six words that end
    it ("Therefore, the county that shares a border with the county in which Johnnycake, West Virginia is located is
    McDowell County" for "What county shares a border with ...?"), "" when not."""
    if len(asked) < 3 or asked[0] not in ("what", "which") or asked[1] in _COPULA:
        return ""
    noun, run = asked[1], asked[2:]
    if len(run) < _RUN_WORDS:
        return ""
    for k in range(min(_RELATIVE_LEAD, len(said)) + 1):
        rest = said[k + 2 + len(run):]
        if (said[k:k + 1] == [noun] and said[k + 1:k + 2] and said[k + 1] in _RELATIVE
                and said[k + 2:k + 2 + len(run)] == run and rest and rest[0] in _COPULA
                and 0 < len(rest) - 1 <= _SLOT_WORDS):
            return " ".join(run)
    return ""


def _says(text: str, words: str) -> bool:
    """Whether ``text`` says ``words`` (lower-case tokens joined by spaces) in a row."""
    return f" {words} " in f" {' '.join(_tokens(text))} "


#: the wh-word that opens a question's slot at its end ("... is a port city of what bay?")
_SLOT_WH = frozenset({"what", "which", "whom", "whose"})
#: words a slot's name may carry besides its own ("the Bay of Bengal")
_SLOT_FILLER = frozenset({"the", "a", "an", "of", "in", "and"})


def end_fill(claim: str, question: str, premises: Sequence[str]) -> str:
    """The question's words ``claim`` opens with when it is the question's own template with a name put in
    the slot at its end ("The birthplace of George McCall Theal is a port city of the Bay of Bengal" for "The
    birthplace of George McCall Theal is a port city of what bay?"), "" when it is not. It is one when the
    claim opens with all of the question's words before its wh-word (eight at least), a name of at most six words
    follows, the cited documents (``premises``, one text each) never say those words in a row, and the
    document saying the name names none of the question's names: the model took the name from another
    document (Chittagong's "Bay of Bengal"), and the checker, reading the two documents joined, passed the
    template. A name from the document about the question's subject is the model's answer, checked as usual
    ("In the USA, a tobacconist ... is traditionally represented by a wooden Indian")."""
    asked, said = _tokens(question), _tokens(claim)
    wh = next((k for k, w in enumerate(asked) if k >= _RUN_WORDS and w in _SLOT_WH), None)
    if wh is None or said[:wh] != asked[:wh] or not 0 < len(said) - wh <= _SLOT_WORDS:
        return ""
    words = " ".join(asked[:wh])
    if any(_says(p, words) for p in premises):
        return ""
    slot = [w for w in said[wh:] if w not in _SLOT_FILLER] or said[wh:]
    own = [n.casefold() for n in names_in(question)]
    for p in premises:
        tokens = set(_tokens(p))
        if all(w in tokens for w in slot) and not any(n in tokens for n in own):
            return words
    return ""


def without_template_fills(items: Sequence[Statement | Claim], question: str, notes: list[str] | None = None
                           ) -> list[Statement | Claim]:
    """``items`` with every claim as written (not a fragment's rewrite, which is the question's wording
    by design) that is a :func:`template_fill` of ``question`` against its premise or an :func:`end_fill`
    (the slot at the question's end) against its documents, or that states the
    comparison the question asks from a premise naming only one of the two things
    (:func:`~vericite.engine.text.compare.restates_comparison`: "The Second Battle of Guam occurred first"),
    given the verdict ``dropped:template_fill`` before it is checked; ``notes`` gets one line per claim dropped."""
    def why(x: Claim) -> str:
        if x.rewritten:
            return ""
        words = template_fill(x.text, question, x.premise) or end_fill(x.text, question, x.premises or (x.premise,))
        if not words and restates_comparison(x.text, question, x.premise):
            words = "the comparison"  # "X occurred first" from a document that names only X
        return f"template fill: {x.raw!r} is the question's {words!r} with a name put in" if words else ""

    return _dropped_before_check(items, why, R.DROPPED_TEMPLATE, notes)


def without_unstated_relations(items: Sequence[Statement | Claim], question: str, lang: str = "en",
                               notes: list[str] | None = None) -> list[Statement | Claim]:
    """``items`` with every claim that states a relation the question names which its cited documents state in
    no word of their own (:func:`~vericite.engine.text.relations.unstated`: "John Arledge directed the 1940 film The
    Grapes of Wrath" from a document saying he played in it), or give the name it is "by" only another act
    (:func:`~vericite.engine.text.relations.swapped_act`: "... was produced by Joachim Trier" from "... film directed
    by Joachim Trier"), given the verdict ``dropped:unstated_relation`` before
    it is checked: the checker, reading a document that names both things, passes such a relation. ``notes`` gets
    one line per claim dropped. Other items (already given a verdict) pass through; English only."""
    def why(x: Claim) -> str:
        premise = " ".join(x.premises or (x.premise,))
        word = unstated(x.text, question, premise, lang)
        if word:
            return (f"unstated relation: {x.raw!r} states the question's {word!r}, which document(s) "
                    f"{list(x.citations)} never state")
        act = swapped_act(x.text, question, premise, lang)
        return (f"unstated relation: {x.raw!r} says {act!r} by a name document(s) {list(x.citations)} give only "
                "another act") if act else ""

    return _dropped_before_check(items, why, R.DROPPED_RELATION, notes)


#: an altered copy is checked as the document's sentence it copies when that has at most this many words
MAX_COPY_WORDS = 60


def without_altered_copies(items: Sequence[Statement | Claim], lang: str = "en", notes: list[str] | None = None
                           ) -> list[Statement | Claim]:
    """``items`` with every claim that copies a sentence of its cited documents but leaves out its negation, puts
    another name of the document in place of the sentence's or splices in a number from another sentence
    (:func:`~vericite.engine.text.copies.altered_copy`: "N3 stage is the most important sleep stage ..." from "REM is
    probably the most important sleep stage ...") checked as that sentence instead, verbatim (what the document says;
    the fact it carries stays in the answer's reach; a snippet's cut end given as its whole clauses,
    :func:`~vericite.engine.text.splitter.stated`), or, when the sentence runs over :data:`MAX_COPY_WORDS` words (a
    paragraph the splitter could not cut) or states nothing (a question), given the verdict ``dropped:altered_copy``
    before any check. The checker
    passes a claim sharing nearly every word with its premise. Whom a document's pronouns stand for (its title and
    opening sentence; a heading opening it, "N3 stage.", names no one) is no swap. ``notes`` gets one line per claim.
    Other items pass through; English only."""
    out: list[Statement | Claim] = []
    for x in items:
        if not isinstance(x, Claim):
            out.append(x)
            continue
        texts = x.premises or (x.premise,)
        subject = " ".join([*(x.titles[c - 1] for c in x.citations if 0 < c <= len(x.titles)),
                            *(opening(t, lang) for t in texts)])
        reason, copied = altered_copy(x.text, " ".join(texts), subject, lang)
        if not reason:
            out.append(x)
            continue
        # as an answer quotes a document: a snippet's cut end given as its whole clauses, a question never
        sentence = stated(copied) or ""
        if not sentence or len(sentence.split()) > MAX_COPY_WORDS:
            out.append(Statement(x.stage, x.text, x.citations, R.DROPPED_ALTERED, None, x.raw))
            if notes is not None:
                notes.append(f"altered copy: {x.raw!r} {reason}; dropped before its check")
            continue
        out.append(replace(x, text=sentence))
        if notes is not None:
            notes.append(f"altered copy: {x.raw!r} {reason}; checked as the document's sentence")
    return out


def _dropped_before_check(items: Sequence[Statement | Claim], why: Callable[[Claim], str], verdict: str,
                          notes: list[str] | None) -> list[Statement | Claim]:
    """``items`` with every claim for which ``why`` gives a reason replaced by a Statement with ``verdict`` (it is
    never checked); ``notes`` gets the reason of each, "; dropped before its check" added. Other items pass through."""
    out: list[Statement | Claim] = []
    for x in items:
        reason = why(x) if isinstance(x, Claim) else ""
        if reason:
            out.append(Statement(x.stage, x.text, x.citations, verdict, None, x.raw))
            if notes is not None:
                notes.append(f"{reason}; dropped before its check")
        else:
            out.append(x)
    return out
