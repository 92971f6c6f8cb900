"""NLI checks of sentences: which sentences need a check, the check in flight, and its verdicts.

Every stage hands its sentences to :class:`Verifier`:

1. :func:`answer_claims` / :func:`fact_claims` sort sentences into decided :class:`Statement` s
   (no citation, citation out of range, a fragment: no check needed) and :class:`Claim` s (a
   hypothesis with its premise, to be checked).
2. :meth:`Verifier.submit` sends the claims' (premise, hypothesis) pairs to the checker and returns
   a :class:`CheckBatch`: the sentences in text order plus the future of the claims' scores.
   With the overlap schedule the checker's batcher scores them while the LLM goes on; with the
   sequential schedule they are scored before ``submit`` returns.
3. :meth:`Verifier.resolve` waits for the scores and returns every sentence as a Statement with
   its verdict, score and grade.
"""
from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np

from . import cancel
from . import records as R
from .nli.grading import grade, is_own_sentence, is_verbatim
from .nli.onnx_scorer import require_finite
from .records import Document, StageTrace, Statement
from .text.citations import invalid_citations, parse_citations, strip_citations
from .text.content import names_only
from .text.entities import names_itself, pronoun_of_another, self_related, swapped_subject, unsupported_names
from .text.lifedates import life_date_stated
from .text.relations import reversed_kin
from .text.splitter import cut_end, cut_start, spliced, split_statements, without_inference
from .timeline import Timeline


class Checker(Protocol):
    """An NLI scorer: P(entailment) per (premise, hypothesis) pair, float32 [n] in [0, 1].

    A checker that also has ``submit(pairs) -> Future`` (the dynamic batcher) runs the overlap schedule.
    """

    name: str

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray: ...


class _SubmittingChecker(Checker, Protocol):
    """A :class:`Checker` with ``submit`` (the dynamic batcher): what the overlap schedule calls."""

    def submit(self, pairs: Sequence[tuple[str, str]]) -> Future: ...


@dataclass(frozen=True)
class Claim:
    """A sentence whose check is in flight: ``text`` (the hypothesis, citation marks removed) against ``premise``.

    ``premises`` are the cited documents' texts one by one (a sentence citing several; empty
    otherwise), for per-document scoring; ``rewritten``: ``text`` is the question-aware claim made
    from the fragment in ``raw``.
    """

    stage: str
    text: str
    citations: tuple[int, ...]
    raw: str
    premise: str
    premises: tuple[str, ...] = ()
    rewritten: bool = False
    #: (citations, premise) to try when the written citations do not carry it (``recite``)
    alternatives: tuple[tuple[tuple[int, ...], str], ...] = ()
    #: every document's title, in document order: the entity guard reads the cited ones with the premise
    titles: tuple[str, ...] = ()


@dataclass(frozen=True)
class CheckBatch:
    """Sentences of one stage step in text order: decided Statements and Claims awaiting ``future``.

    ``future`` resolves to the claims' scores (float32 [number of claims], claim order); None when
    there is no claim. ``verdicts`` is (pass, fail) for the claims.
    """

    items: tuple[Statement | Claim, ...]
    future: Future | None
    verdicts: tuple[str, str]

    @property
    def claims(self) -> list[Claim]:
        return [x for x in self.items if isinstance(x, Claim)]


def answer_claims(stage: str, text: str, documents: Sequence[Document], lang: str, *, final: bool,
                  min_words: int = 0, recite: bool = False) -> list[Statement | Claim]:
    """Stage 1's statements or the final check's sentences: each checked against the joined text
    of the documents it cites.

    Stage 1 (``final=False``) drops fragments (fewer than ``min_words`` words, or opening with a word
    in lower case: a piece of a sentence, "provides additional information about ..."; or two pieces spliced,
    "... stems. has simple leaves": :func:`~vericite.engine.text.splitter.spliced`; or cut off, "... a combination
    of": :func:`~vericite.engine.text.splitter.cut_end`; or names only, '"Yodel It! and "Shake It Off!':
    :func:`~vericite.engine.text.content.names_only`), uncited and
    out-of-range sentences with a ``dropped:*`` verdict; the final check (``final=True``) reports
    uncited or out-of-range sentences as ``no_citation`` and keeps them.

    ``recite``: each claim also carries alternatives to try when its citations do not carry it:
    every other document alone, then its cited documents plus one other (a two-hop claim the LLM
    cited with one document).
    """
    out: list[Statement | Claim] = []
    for sent in split_statements(text, lang):
        cites = parse_citations(sent)
        clean = strip_citations(sent) if final else without_inference(strip_citations(sent))
        if not clean:
            continue
        if not final and (len(clean.split()) < min_words or cut_start(clean.lstrip("\"“«'(")) or spliced(clean)
                          or cut_end(clean) or lang == "en" and names_only(clean)):
            # a piece of a sentence: "[5] provides additional information about X" leaves "provides ... X"; two
            # pieces spliced ("... stems. has simple leaves")
            out.append(Statement(stage, clean, cites, R.DROPPED_FRAGMENT, None, sent))
        elif not cites:
            out.append(Statement(stage, clean, (), R.NO_CITATION if final else R.DROPPED_NO_CITATION, None, sent))
        elif invalid_citations(cites, len(documents)):
            out.append(Statement(stage, clean, cites, R.NO_CITATION if final else R.DROPPED_OUT_OF_RANGE, None, sent))
        else:
            texts = tuple(documents[c - 1].text for c in cites)
            premise = "\n".join(texts)  # authors: texts joined by newlines
            alts: tuple[tuple[tuple[int, ...], str], ...] = ()
            if recite:
                others = [j for j in range(1, len(documents) + 1) if j not in cites]
                alts = tuple(((j,), documents[j - 1].text) for j in others) + tuple(
                    ((*cites, j), "\n".join((*texts, documents[j - 1].text))) for j in others)
            out.append(Claim(stage, clean, cites, sent, premise, texts if len(texts) > 1 else (), alternatives=alts,
                             titles=tuple(d.title for d in documents)))
    return out


def fact_claims(stage: str, text: str, number: int, document: Document, lang: str, *,
                min_words: int = 0) -> list[Statement | Claim]:
    """Stage 2's facts extracted from document ``number`` (1-based): each checked against that
    document alone; citation marks the LLM wrote are removed; fragments (too short, or cut off: "... a combination of")
    and repeats are dropped."""
    return joint_fact_claims(stage, text, [(number, document)], lang, min_words=min_words)


def joint_fact_claims(stage: str, text: str, cited: Sequence[tuple[int, Document]], lang: str, *,
                      min_words: int = 0) -> list[Statement | Claim]:
    """Facts extracted from the documents ``cited`` ((1-based number, document) pairs) read
    together: each cites all of them and is checked against their joined text, and with several,
    against each alone too (:class:`Verifier` ``cite_each``); fragments are dropped, and a fact
    repeated in the same extraction (case and spacing aside) is checked once."""
    numbers = tuple(n for n, _ in cited)
    texts = tuple(d.text for _, d in cited)
    titles = tuple(dict(cited)[n].title if n in dict(cited) else "" for n in range(1, max(numbers) + 1))
    out: list[Statement | Claim] = []
    seen: set[str] = set()
    for sent in split_statements(text, lang):
        fact = without_inference(strip_citations(sent))
        key = " ".join(fact.casefold().split())
        if not fact or key in seen:  # a small model's greedy extraction often repeats a line
            continue
        seen.add(key)
        if len(fact.split()) < min_words or cut_end(fact):  # too short, or cut off: "... a combination of"
            out.append(Statement(stage, fact, numbers, R.DROPPED_FRAGMENT, None, fact))
        else:
            out.append(Claim(stage, fact, numbers, fact, "\n".join(texts), texts if len(texts) > 1 else (), titles=titles))
    return out


class Verifier:
    """Submits claims to the checker and turns scores into verdicts.

    Args:
        checker: scores pairs; with ``submit`` (a :class:`~vericite.engine.nli.batching.DynamicBatcher`)
            and ``schedule="overlap"`` the checks run beside the LLM.
        threshold: P(entailment) a claim needs to pass.
        schedule: "overlap" or "sequential".
        grade_bands: the checker's ``[b1, b2, b3]``; when set, every checked sentence gets a grade 1-4.
        lenient: a claim graded 3 (partial: P >= b3) passes too (the brief's lenient scale).
        cite_each: a claim citing several documents is also scored against each alone (and, with
            three or more, against all but each one): its score is the best of the joint and the
            single-document scores, and a citation that does not carry it is removed (ALCE's
            precision rule: not entailing alone while the others entail without it).
        entity_guard: a pair whose hypothesis names what its documents (texts and titles) never
            name (:mod:`~vericite.engine.text.entities`) scores at most just below ``threshold``,
            whatever the checker says: such a claim is at most partial (grade 3 when the
            checker's score reaches the third band: kept with a mark only in lenient mode).
        life_dates: a claim "<Name> was born in/on <date>" (or "died") that a cited document's life span
            after that name gives (:func:`~vericite.engine.text.lifedates.life_date_stated`) passes, graded 2
            (a paraphrase), whatever the checker scores.
    """

    def __init__(self, checker: Checker, *, threshold: float, schedule: str,
                 grade_bands: tuple[float, float, float] | None = None, lenient: bool = False,
                 cite_each: bool = False, entity_guard: bool = False, life_dates: bool = False):
        self.checker = checker
        self.threshold = threshold
        self.lenient = lenient and grade_bands is not None
        self.schedule = schedule if hasattr(checker, "submit") else "sequential"
        self.grade_bands = grade_bands
        self.cite_each = cite_each
        self.entity_guard = entity_guard
        self.life_dates = life_dates

    def premises(self, claim: Claim) -> list[tuple[tuple[int, ...], str]]:
        """(citations, premise) of each pair one claim is scored on: the joint premise, then with
        ``cite_each`` and several citations each document alone, then (three or more) all but each,
        then the ``recite`` alternatives."""
        cites = claim.citations
        out = [(cites, claim.premise)]
        if self.cite_each and len(claim.premises) > 1:
            out += list(zip(((c,) for c in cites), claim.premises))
            if len(claim.premises) > 2:
                out += [(tuple(c for j, c in enumerate(cites) if j != i),
                         "\n".join(p for j, p in enumerate(claim.premises) if j != i)) for i in range(len(cites))]
        return out + list(claim.alternatives)

    def pairs(self, claim: Claim) -> list[tuple[str, str]]:
        """The (premise, hypothesis) pairs one claim is scored on (:meth:`premises`)."""
        return [(premise, claim.text) for _, premise in self.premises(claim)]

    def guarded(self, claim: Claim, probs: list[float]) -> tuple[list[float], str]:
        """``probs`` of the claim's :meth:`pairs` with the entity guard applied (capped just below
        the threshold where the pair's documents never name one of the claim's names, say the
        predicate the claim copies of another subject (:func:`~vericite.engine.text.entities.swapped_subject`;
        a "He"/"She" of a document about another person: :func:`~vericite.engine.text.entities.pronoun_of_another`),
        or the claim relates its subject to itself: :func:`~vericite.engine.text.entities.self_related`,
        :func:`~vericite.engine.text.entities.names_itself` where the premise does not say it as written, or states
        a kin tie the premise states the other way round: :func:`~vericite.engine.text.relations.reversed_kin`),
        and why its written citations fail it ("" : the guard passed them or is off)."""
        if not self.entity_guard:
            return probs, ""
        out, why = [], ""
        related, repeated = self_related(claim.text), names_itself(claim.text)  # of the claim alone: once
        for k, (cites, premise) in enumerate(self.premises(claim)):
            titles = [claim.titles[c - 1] for c in cites if 0 < c <= len(claim.titles)]
            missing = unsupported_names("\n".join((*titles, premise)), claim.text)
            swapped = "" if missing else (swapped_subject(premise, claim.text, titles)
                                          or pronoun_of_another(premise, claim.text, titles))
            itself = "" if missing or swapped else related or (
                "" if not repeated or is_verbatim(premise, claim.text) else repeated)
            kin = "" if missing or swapped or itself else reversed_kin(premise, claim.text)
            out.append(min(probs[k], self.threshold - 1e-4) if missing or swapped or itself or kin else probs[k])
            if k == 0 and missing:
                why = f"{', '.join(missing)} not in document(s) {list(cites)}"
            elif k == 0 and swapped:
                why = f"document(s) {list(cites)} say it of {swapped!r}, not of its subject"
            elif k == 0 and itself:
                why = f"it relates {itself!r} to itself"
            elif k == 0 and kin:
                why = f"document(s) {list(cites)} say the {kin!r} tie the other way round"
        return out, why

    def _decide(self, claim: Claim, probs: Sequence[float]) -> tuple[float, tuple[int, ...], tuple[int, ...],
                                                                     tuple[int, ...]]:
        """(score, citations, citations removed, citations added) of one claim from its
        :meth:`pairs`' scores. When the written citations do not carry it, the best alternative
        that does is taken (one other document alone first, then the cited ones plus one)."""
        n_alt = len(claim.alternatives)
        main = list(probs[:len(probs) - n_alt])
        score, kept, removed = self._decide_written(claim, main)
        if score >= self.threshold or not n_alt:
            return score, kept, removed, ()
        alts = list(zip(claim.alternatives, probs[len(main):]))
        for group in ([a for a in alts if len(a[0][0]) == 1], [a for a in alts if len(a[0][0]) > 1]):
            ok = [a for a in group if a[1] >= self.threshold]
            if ok:
                (cites, _), p = max(ok, key=lambda a: a[1])
                return (float(p), cites, tuple(c for c in claim.citations if c not in cites),
                        tuple(c for c in cites if c not in claim.citations))
        return score, kept, removed, ()

    def _decide_written(self, claim: Claim, probs: Sequence[float]) -> tuple[float, tuple[int, ...], tuple[int, ...]]:
        """(score, citations kept, citations removed) of one claim on its written citations."""
        if len(probs) == 1:
            return float(probs[0]), claim.citations, ()
        n = len(claim.premises)
        joint, alone = float(probs[0]), [float(x) for x in probs[1:1 + n]]
        without = [float(x) for x in probs[1 + n:]] if n > 2 else alone[::-1]  # two: "the other" = it alone
        score = max(joint, *alone)
        t = self.threshold
        if score < t:
            return score, claim.citations, ()
        # ALCE's rule, applied so that what is kept is known to carry the sentence: one citation
        # removed when the others entail without it (the best such), then, from three, a second
        # one when the last left entails alone. Judged one by one, ALCE's rule can remove every
        # citation a joint claim needs.
        cites = list(claim.citations)
        alone_of = dict(zip(cites, alone))
        kept, kept_score = list(cites), joint if joint >= t else max(alone)
        drop = [i for i in range(n) if alone[i] < t and without[i] >= t]
        if drop:
            i = max(drop, key=lambda k: without[k])
            kept.remove(cites[i])
            kept_score = without[i]
            if len(kept) == 2:
                a, b = kept
                if alone_of[a] < t <= alone_of[b] or alone_of[b] < t <= alone_of[a]:
                    kept = [a if alone_of[a] >= t else b]
                    kept_score = alone_of[kept[0]]
        return kept_score, tuple(kept), tuple(c for c in cites if c not in kept)

    def submit(self, items: Sequence[Statement | Claim], verdicts: tuple[str, str], trace: StageTrace,
               timeline: Timeline) -> CheckBatch:
        """Send the claims among ``items`` to the checker; the sentences and the future of their scores.

        A checker failure surfaces in :meth:`resolve`, in the caller's thread, with either schedule.
        """
        pairs = [p for c in items if isinstance(c, Claim) for p in self.pairs(c)]
        if not pairs:
            return CheckBatch(tuple(items), None, verdicts)
        trace.nli_pairs += len(pairs)
        if self.schedule == "overlap":
            # "overlap" only when the checker has submit (__init__ falls back to "sequential")
            return CheckBatch(tuple(items), cast(_SubmittingChecker, self.checker).submit(pairs), verdicts)
        fut: Future = Future()
        with timeline.span("nli", f"{trace.name}: {len(pairs)} pairs") as t:
            try:
                fut.set_result(self.checker.scores(pairs))
            except Exception as e:  # noqa: BLE001  re-raised by resolve(), like the overlap path
                fut.set_exception(e)
        trace.nli_ms = round(trace.nli_ms + t.ms, 1)
        return CheckBatch(tuple(items), fut, verdicts)

    def resolve(self, batch: CheckBatch, trace: StageTrace, timeline: Timeline) -> list[Statement]:
        """Every sentence of ``batch`` as a Statement, in text order; waits for the scores.

        Raises:
            InferenceError: the checker failed on these pairs, or returned a NaN or infinite score.
            Cancelled: the question was stopped while it waited (:mod:`~vericite.engine.cancel`).
        """
        if batch.future is None:
            return [x for x in batch.items if isinstance(x, Statement)]
        with timeline.span("wait", f"{trace.name}: waiting for NLI", min_ms=1.0) as t:
            probs = cancel.wait(batch.future)  # a stopped question stops waiting
        trace.nli_ms = round(trace.nli_ms + t.ms, 1)
        require_finite(np.asarray(probs), lambda: [p for c in batch.claims for p in self.pairs(c)], self.checker.name)
        ok, ko = batch.verdicts
        out = []
        at = 0
        for x in batch.items:
            if isinstance(x, Statement):
                out.append(x)
                continue
            n = len(self.pairs(x))
            scored, why = self.guarded(x, [float(v) for v in probs[at:at + n]])
            at += n
            if why:
                trace.notes.append(f"entity guard: {x.raw!r}: {why}")
            p, kept, removed, added = self._decide(x, scored)
            g = grade(p, self.grade_bands, verbatim=is_verbatim(x.premise, x.text)) if self.grade_bands else None
            # a whole sentence of a cited document, word for word, is what it says, whatever the checker scores
            # ("Eldon is a city in Miller County, Missouri, ..." scored 0.63 against its own document)
            texts = x.premises or (x.premise,)  # each cited document's text
            own = not removed and not added and any(is_own_sentence(t, x.text) for t in texts)
            if own and g is not None:
                g = 1
            # a birth or death date read off the cited document's life span ("Ginger Rogers (born ...; July 16, 1911 –
            # April 25, 1995)"), which the checker scores 0.47-0.70
            dated = (self.life_dates and p < self.threshold and not own and not removed and not added
                     and any(life_date_stated(t, x.text) for t in texts))
            if dated:
                g = 2 if g is not None else None
                trace.notes.append(f"life dates: {x.raw!r} passes: its document's life span gives the date "
                                   f"(the checker: {p:.2f})")
            passed = p >= self.threshold or own or dated or (self.lenient and g == 3)
            out.append(Statement(x.stage, x.text, kept, ok if passed else ko, round(p, 4), x.raw, g,
                                 removed=removed, rewritten=x.rewritten, recited=added))
        return out
