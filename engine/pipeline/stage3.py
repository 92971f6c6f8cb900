"""Stage 3: wait for the checks, find conflicts between documents, make the draft (the answer step
or the authors' merge, :mod:`~vericite.engine.selection`) and run the rules over it
(:data:`~vericite.engine.draft.RULES`: final check, strict, put-backs, marks)."""
from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from .. import cancel
from .. import draft as D
from .. import records as R
from ..claims import end_fill
from ..conflicts import Conflict, find_conflicts
from ..draft import Draft, with_citations
from ..llm.fitting import fit_documents
from ..records import StageTrace, Statement
from ..selection import (
    Conclusion,
    Picked,
    Selection,
    both_sides,
    compose,
    concluded,
    conclusion,
    lead,
    next_hop,
    numbered,
    parse_selection,
    ranked,
    resolve_pronoun,
    select_grammar,
    without_repeats,
)
from ..text.citations import merge_adjacent, strip_citations
from ..text.compare import alone, choices, chosen_claim, measured
from ..text.content import answer_words
from ..text.relevance import relevant_sentences
from ..text.splitter import split_sentences, stated
from ..verifier import answer_claims
from .calls import budget, chat, cite_grammar, complete, documents_block, split_lang
from .context import Question, Stage

if TYPE_CHECKING:
    from .method import VeriCite

log = logging.getLogger(__name__)


def verified(pipe: VeriCite, q: Question, answer: Stage, evidence: Stage) -> list[Statement]:
    """Wait for the checks of stages 1 and 2 (their verdicts go into the traces); the kept
    sentences, stage 2's facts first (the authors' order)."""
    cancel.check()  # between the pipeline's steps
    for st in (answer, evidence):
        st.trace.statements = [s for b in st.checks for s in pipe.verifier().resolve(b, st.trace, q.timeline)]
    return [s for s in evidence.trace.statements + answer.trace.statements if s.verdict == R.KEPT]


def conflicts(pipe: VeriCite, q: Question, verified: list[Statement]) -> list[Conflict]:
    """Where another document gives a different number or year for a verified claim
    (:mod:`~vericite.engine.conflicts`: the checker must entail the claim with the other
    document's number)."""
    cancel.check()  # between the pipeline's steps
    if not pipe.settings.conflicts or not verified:
        return []
    with q.timeline.span("nli", "conflicts"):
        threshold = pipe.settings.conflict_threshold or pipe.settings.threshold
        found = find_conflicts(verified, q.documents, pipe.checker.scores, threshold,
                               split_lang(pipe, q, " ".join(d.text for d in q.documents)[:2000]),
                               related=pipe.settings.conflict_related,
                               restated=pipe.settings.conflict_restated)
    return found


def refine(pipe: VeriCite, q: Question, verified: list[Statement], answer: Stage | None = None) -> Stage:
    """The stage's draft from the verified statements: the answer step's picks (:func:`_pick`),
    else the authors' merge (:func:`_merge`); no verified statement: the fallback quotes, or an
    empty draft. ``answer`` (stage 1) gives the answer step its first answer as written."""
    cancel.check()  # between the pipeline's steps
    st = Stage(StageTrace(R.REFINE))
    with q.timeline.span(None) as t:
        said = [strip_citations(s.raw or s.text) for s in answer.trace.statements
                if not _foreign_fill(q, s)] if answer else []
        quotes, led = fallback_quotes(pipe, q, _opening(q, said)) if not verified else ([], ())
        if quotes:
            st.draft = Draft.of(" ".join(quotes), [f"no verified statement: the answer quotes the {len(quotes)} "
                                                   "document sentence(s) most relevant to the question (fallback_quotes)",
                                                   *led])
            st.draft = st.draft.warn(D.FALLBACK_QUOTES, "no generated statement survived the NLI checks; the answer "
                                     "quotes the documents' most relevant sentences instead (--fallback-quotes 0: "
                                     "an empty answer)")
        elif not verified:
            st.draft = Draft.of("", ["no verified statement: nothing to refine, the answer is empty"])
            st.draft = st.draft.warn(D.EMPTY_NOTHING_VERIFIED, "no statement survived the NLI checks; the answer is empty")
        else:
            st.draft = _pick(pipe, q, st, verified, said) or _merge(pipe, q, st, verified)
    st.trace.wall_ms = round(t.ms, 1)
    return st


def _foreign_fill(q: Question, s: Statement) -> bool:
    """Whether stage 1's ``s`` was dropped as the question's wording with the name of a document about something
    else put in its end slot (:func:`~vericite.engine.claims.end_fill`: "... a port city of the Bay of Bengal", the
    Bay from the Port of Chittagong's document): no answer to lead with or to show the answer step. A fill whose
    name comes from a document about the question's subject still points at the answer ("The Treaty of Gandamak
    officially ended the first phase of ...")."""
    if s.verdict != R.DROPPED_TEMPLATE:
        return False
    cited = [q.documents[c - 1].text for c in s.citations if 0 < c <= len(q.documents)]
    return bool(cited) and bool(end_fill(s.text, q.text, cited))


def _pick(pipe: VeriCite, q: Question, st: Stage, verified: list[Statement], said: Sequence[str] = ()) -> Draft | None:
    """The answer step (``refine`` = answer, :mod:`~vericite.engine.selection`): the LLM names
    the short answer and picks the verified sentences that show it; the draft is those
    sentences with their citations; ``said`` (stage 1's sentences, unchecked: it read every
    document at once) helps it find the answer, and the first of them that says anything beyond
    the question points to the answer when the model's own answer is in no verified sentence.
    None (the merge runs instead) when the setting is off, the prompt set has no select step, or the reply cannot be read."""
    if pipe.settings.refine != "answer" or "select" not in q.prompts.steps:
        return None
    first = " ".join(said)
    log.info("stage 3: picking the answer from %d verified statements", len(verified))
    verified = ranked(verified, q.text, first)  # listed most relevant first
    lines = numbered(verified)
    uses_docs = "{D}" in q.prompts.steps["select"].template  # the built-in sets pick from the sentences alone
    block = documents_block(pipe, "select", q, statements=lines) if uses_docs else ""
    call = chat(pipe, q, q.prompts.messages("select", question=q.text, docs=block, statements=lines,
                                             first=first or "-"),
                      step="select", purpose="select", grammar=select_grammar(len(verified)))
    st.trace.llm_calls.append(call)
    sel = parse_selection(call.text, len(verified))
    if sel is None:
        st.trace.notes.append(f"answer step: no 'Answer:' line in the reply {call.text[:200]!r}; merged instead")
        return None
    opening = _opening(q, said)
    quotes = document_sentences(pipe, q)
    picked = compose(sel, verified, q.text, q.lang, titles=[d.title for d in q.documents], opening=opening,
                     quotes=quotes, texts=[d.text for d in q.documents])
    said_by = {v.text for v in verified}  # the rest are document sentences (a pronoun resolved to its title)
    quoted = tuple(s.text for s in picked.sentences if s.text not in said_by)
    sentences = [with_citations(s) for s in picked.sentences]
    notes = picked.notes
    short = concluded(sel, q.text, opening, q.lang, [s.text for s in picked.sentences],
                      said[0] if said else "") if picked.sentences else Conclusion("")
    if short.text:  # "Yes" / the one compared / a buried name: a fragment the final check makes a claim of and checks
        sentences.insert(0, _short_answer(short.text, picked.sentences, q.text))
        notes += (f"answer: opens with the short answer {short.text!r}, cited with the sentences shown",)
    draft = Draft.of(merge_adjacent(" ".join(sentences)), notes, picked=True, quoted=quoted, answer=sel.answer,
                     buried=short.text if short.buried else "")
    return draft.warn(picked.caveat.code, picked.caveat.text) if picked.caveat else draft


#: stage 1 planning aloud, not answering ("To answer this question, we need to analyze the information ...")
_PLAN = re.compile(r"^\W*(?:To (?:answer|determine|find|identify)\b|(?:First,?\s+)?(?:we|I|let's|let us)\s)", re.I)


def _opening(q: Question, said: Sequence[str]) -> str:
    """Stage 1's first sentence that says anything beyond the question ("" when none does); a sentence planning
    the answer (:data:`_PLAN`) says nothing of it: its words ("analyze", "process") led with a document's question
    "What would be the amount of energy needed to ...?"."""
    return next((x for x in said if answer_words(x, q.text, q.lang) and not _PLAN.match(x)), "")


def document_sentences(pipe: VeriCite, q: Question) -> list[Statement]:
    """Every sentence of the documents as the LLM saw them, verbatim, each citing its document
    (1-based), in document order: what the answer step may quote when no verified sentence
    carries stage 1's answer (:func:`~vericite.engine.selection.lead`); the final check checks
    them like any answer sentence. A piece of a sentence (a snippet's cut start or end) is left out,
    or given as its whole clauses (:func:`~vericite.engine.text.splitter.whole_part`), and so is a question."""
    out = []
    for i, d in enumerate(q.shown):
        parts = (stated(s) for s in split_sentences(d.text, split_lang(pipe, q, d.text[:2000])))
        out += [_quote(i, p) for p in parts if p]
    return out


def _merge(pipe: VeriCite, q: Question, st: Stage, verified: list[Statement]) -> Draft:
    """The authors' refinement: every verified statement given to the LLM; its reply (citing
    only documents they cite) is the draft."""
    log.info("stage 3: refining %d verified statements", len(verified))
    lines = "\n".join(with_citations(s) for s in verified)
    block = documents_block(pipe, R.REFINE, q, statements=lines)
    cited = {c for s in verified for c in s.citations}
    call = chat(pipe, q, q.prompts.messages(R.REFINE, question=q.text, docs=block, statements=lines),
                      step=R.REFINE, purpose=R.REFINE, grammar=cite_grammar(pipe, len(q.documents), cited))
    st.trace.llm_calls.append(call)
    text = merge_adjacent(call.text.strip())
    if call.finish_reason == "length":
        text, cut = _drop_unfinished_tail(text)
        draft = Draft.of(text, [cut] if cut else [])
        if not text:
            draft = draft.warn(D.EMPTY_TOKEN_CAP, f"the refinement reached its "
                               f"{q.prompts.steps[R.REFINE].max_tokens}-token cap before its first "
                               "sentence ended; the answer is empty")
        return draft
    draft = Draft.of(text)
    return draft if text else draft.warn(D.EMPTY_NO_TEXT, "the refinement step returned no text; the answer is empty")


def fallback_quotes(pipe: VeriCite, q: Question, opening: str = "") -> tuple[list[str], tuple[str, ...]]:
    """The fallback answer when nothing was verified (``fallback_quotes`` = N > 0): the N
    sentences of the documents as the LLM saw them that are most relevant to the question
    (:func:`~vericite.engine.text.relevance.relevant_sentences`), verbatim (a piece of a sentence
    left out or given as its whole clauses: :func:`~vericite.engine.text.splitter.whole_part`; a question left
    out), each ending with its
    document's citation, in document order, none that another says all of (:func:`~vericite.engine.selection.without_repeats`),
    an opening pronoun resolved to the document's title
    (:func:`~vericite.engine.selection.resolve_pronoun`: "It has 15,900 ATMs" -> "Bank of America has
    15,900 ATMs"); the final check then checks them like any answer. With stage 1's ``opening``
    (its first sentence saying anything beyond the question: unverified, it read every document
    at once and usually names the answer), the document sentence that says most of it leads instead,
    with the sentence tying it to the question (:func:`~vericite.engine.selection.lead`, as after
    the answer step: "Professional cyclist Sara Symington competed in the 2000 Summer Olympics" ->
    document 2's "The 2000 Summer Olympic Games, ... Sydney 2000 ...", not the cyclist's birth date),
    when those share a content word with the question (else the opening answered something else);
    when the first quote stops at the first hop of a two-hop question, the document sentence stating
    what the question asks of the one it introduces leads (:func:`~vericite.engine.selection.next_hop`);
    for a question about two named things, one sentence about each (:func:`~vericite.engine.selection.both_sides`),
    opened with the short answer the answer step's would open with (:func:`~vericite.engine.selection.conclusion`:
    for a comparison the one their dates or numbers make the answer, for "both examples of what?" the word both
    say, for a yes/no question the "Yes"/"No" the quotes or stage 1's ``opening`` give), checked like that one.

    Returns:
        (the sentences with their citation marks, the trace notes of the lead and of the quotes left out).
    """
    n = pipe.settings.fallback_quotes
    if n < 1:
        return [], ()
    texts = [d.text for d in q.shown]
    found = relevant_sentences(q.text, texts, n, split_lang(pipe, q, " ".join(texts)[:2000]), part=stated)
    in_order = sorted(found, key=lambda f: (f[0], texts[f[0]].find(f[1].rstrip("."))))  # a part ends with its own "."
    titles = [d.title for d in q.shown]
    quotes = [resolve_pronoun(_quote(i, sent), titles, texts) for i, sent in in_order]
    notes: tuple[str, ...] = ()
    sentences = document_sentences(pipe, q)  # what the lead and the second hop may quote
    if quotes and opening:
        led = lead(Picked(tuple(quotes), ()), [], sentences, q.text, opening, q.lang, titles, texts)
        said = answer_words(" ".join(s.text for s in led.sentences), "", q.lang)
        # stage 1 unverified may answer another relation ("... has 4301 branches" for "how many ATMs"):
        # a lead that shares no word with the question answers something else
        if led.sentences and list(led.sentences) != quotes and said & answer_words(q.text, "", q.lang):
            quotes, notes = [resolve_pronoun(s, titles, texts) for s in led.sentences], led.notes
    # as after the answer step: the second hop leads when the quotes stop at the first; two things
    # asked about get one sentence each
    for step in (next_hop, both_sides):
        done = step(Picked(tuple(quotes), ()), [], sentences, q.text, q.lang, titles, texts)
        if list(done.sentences) != quotes:
            quotes, notes = list(done.sentences), notes + done.notes
    shown = without_repeats(quotes, q.text, q.lang)  # one document's piece of another's sentence
    if len(shown) < len(quotes):
        notes += (f"fallback quotes: left out {len(quotes) - len(shown)} that another quote says: "
                  f"{[s.text for s in quotes if s not in shown]}",)
    out = [with_citations(s) for s in shown]
    # as after the answer step: the short answer a yes/no question, a comparison or "what do both share" needs
    short = conclusion(Selection("", ()), q.text, opening, q.lang, [s.text for s in shown]) if shown else ""
    if short:
        out.insert(0, _short_answer(short, shown, q.text))
        notes += (f"fallback quotes: open with {short!r}, the short answer the quotes or stage 1's opening give",)
    return out, notes


def _short_answer(short: str, shown: Sequence[Statement], question: str) -> str:
    """The short answer ("Yes", "Broad Peak") as the answer's opening sentence, citing every document the
    ``shown`` sentences cite: the final check rewrites it as a claim with the question and checks it. One of the
    two things of a comparison by what one of them is or did (:func:`~vericite.engine.text.compare.measured`:
    not by an order or a measure) cites only the documents of the sentences naming it alone: "W. Somerset
    Maugham was ordained to priesthood" checked against Thomas Merton's document and Maugham's joined passed
    (the checker joins Merton's ordination to Maugham's name); against Maugham's alone it fails. Such a one is written
    as the question's claim where the question allows (:func:`~vericite.engine.text.compare.chosen_claim`)."""
    pair = choices(question)
    own = [s for s in shown if short in pair and alone(short, pair[1 - pair.index(short)], s.text)]
    cites = tuple(sorted({c for s in (own if own and not measured(question) else shown) for c in s.citations}))
    # such a one is said as the question's own claim ("Norman Lindsay also enjoyed boxing"): a rewrite of the bare name
    # by the LLM may garble it ("Amy Tan also enjoyed boxing, Norman Lindsay")
    text = chosen_claim(question, short) or f"{short}."
    return merge_adjacent(with_citations(Statement(R.REFINE, text, cites, R.KEPT, None, short)))


def _quote(i: int, sent: str) -> Statement:
    """Document ``i``'s (0-based) sentence ``sent`` as a stage-3 sentence citing it, verbatim."""
    return Statement(R.REFINE, sent, (i + 1,), R.KEPT, None, sent)


def rules(pipe: VeriCite, q: Question, refine: Stage, answer: Stage, verified: list[Statement]) -> Draft:
    """Stage 3's rules (:data:`~vericite.engine.draft.RULES`) over the refinement's draft; the
    stage-3 trace gets the checked sentences, the rules' notes, and the LLM calls and NLI
    pairs of their checks; the question gets their warnings.

    Returns:
        The final draft: its sentences with verdicts, its text the answer.
    """
    cancel.check()  # between the pipeline's steps
    facts = D.Facts(question=q.text, lang=q.lang, documents=q.documents, verified=verified,
                    statements=answer.trace.statements, settings=pipe.settings,
                    check=lambda text: _check_final(pipe, q, refine, text), scores=pipe.checker.scores,
                    read_back=_reader(pipe, q, refine), quotable=_quotable(pipe, q))
    draft = D.apply(refine.draft, facts)
    refine.trace.statements = list(draft.checked)
    refine.trace.notes += draft.notes
    q.warnings += [w.text for w in draft.warnings]
    return draft


def _quotable(pipe: VeriCite, q: Question) -> list[Statement]:
    """The documents' sentences as an answer may quote them (:func:`document_sentences`), an opening pronoun
    resolved to the cited document's title as the lead shows it (:func:`~vericite.engine.selection.resolve_pronoun`)."""
    titles, texts = [d.title for d in q.shown], [d.text for d in q.shown]
    return [resolve_pronoun(s, titles, texts) for s in document_sentences(pipe, q)]


def _reader(pipe: VeriCite, q: Question, refine: Stage) -> Callable[[tuple[int, ...], str], float] | None:
    """The LLM reading a final sentence back against the documents it cites (:func:`~vericite.engine.draft.read_back`):
    ``(citations, sentence) -> P(Yes)`` from one forward pass over the cited documents fitted to the context as every
    step's are (:func:`~vericite.engine.llm.fitting.fit_documents`), the call recorded in the stage-3 trace; None when
    ``read_back`` is 0 or the question's prompt set has no ``read_back`` step."""
    if pipe.settings.read_back <= 0 or "read_back" not in q.prompts.steps:
        return None

    def read(citations: tuple[int, ...], sentence: str) -> float:
        docs = fit_documents(pipe.llm, [q.shown[c - 1] for c in citations],
                             budget(pipe, q.prompts, R.READ_BACK, q.text, sentence), q.prompts.doc, q.warnings,
                             hint=f"for {R.READ_BACK}", numbers=citations)
        cancel.check()
        with q.timeline.span("llm", R.READ_BACK):
            p_yes, call = pipe.llm.yes_probability(pipe.render(q.prompts.messages(
                R.READ_BACK, question=q.text, docs=docs, statements=sentence)), purpose=R.READ_BACK)
        refine.trace.llm_calls.append(replace(call, score=round(p_yes, 4)))
        return p_yes

    return read


def _check_final(pipe: VeriCite, q: Question, refine: Stage, text: str) -> tuple[D.Block, list[str]]:
    """The final check of ``text`` (stage 3's rules call it): every sentence checked against
    its cited documents; LLM calls (fragment rewrites) and NLI pairs are recorded in the
    stage-3 trace.

    Returns:
        (the block: ``text`` and its sentences with verdicts, each passing sentence in its
        checked form: a fragment as its question-aware claim, citations that did not carry it
        removed; the trace notes the check wrote).
    """
    scratch = StageTrace(R.REFINE)  # the notes go to the draft, in the rules' order
    with q.timeline.span(None) as t:
        items = answer_claims(R.REFINE, text, q.documents, split_lang(pipe, q, text), final=True,
                              recite=pipe.settings.recite)
        items = complete(pipe, q, items, scratch, R.REFINE, failed=R.UNSUPPORTED)
        refine.trace.llm_calls += scratch.llm_calls
        batch = pipe.verifier().submit(items, (R.SUPPORTED, R.UNSUPPORTED), refine.trace, q.timeline)
        final = pipe.verifier().resolve(batch, refine.trace, q.timeline)
    refine.trace.wall_ms = round(refine.trace.wall_ms + t.ms, 1)
    out = []
    for s in final:
        if s.verdict == R.SUPPORTED and (s.rewritten or s.removed or s.recited) and s.raw in text:
            s = replace(s, raw=merge_adjacent(with_citations(s)))
        out.append(s)
    return D.Block(text, tuple(out), tuple(s.raw for s in final)), scratch.notes


def _drop_unfinished_tail(text: str) -> tuple[str, str]:
    """Cut a trailing fragment the token cap left unfinished (no closing punctuation): (the text
    kept, the trace note; "" when nothing was cut)."""
    m = re.search(r"[.!?](?:\s*\[\d+(?:,\s*\d+)*\])*[\"')]?\s*$", text)
    if m or not text:
        return text, ""
    last = max(text.rfind(". "), text.rfind("! "), text.rfind("? "))
    kept = text[:last + 1].rstrip() if last >= 0 else ""
    return kept, f"token cap reached: unfinished tail removed: {text[len(kept):].strip()!r}"
