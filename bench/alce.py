"""ALCE metrics (Gao et al., EMNLP 2023; princeton-nlp/ALCE eval.py @ 5947208): citation recall,
citation precision, citation F1, ASQA str_em / str_hit, ELI5 claims_nli, and answer EM / F1 /
presence for HotpotQA and MuSiQue.

Every function is pure: entailment comes from a ``scores(pairs) -> float32 [n]`` callable
(P(entailment) in [0, 1]; a pair counts as entailed when its score >= ``threshold``), so tests
can pass the real checker or a hand-built scorer. Rates are returned in percent (0-100), as
ALCE prints them.

Rules (ALCE eval.py ``compute_autoais``, citations on, at_most_citations = 3):

- A document is rendered ``"Title: {title}\\n{text}"``; the premise of a sentence is the
  rendering of its cited documents (at most the first 3, in the order cited) joined by ``"\\n"``.
  The hypothesis is the sentence without its citation marks.
- **Recall**, per sentence: 1 if the joint premise entails it; 0 if it has no citation, or any
  citation names no document (checked before the cap of 3, as ALCE does). Item recall = mean over
  its sentences.
- **Precision**, per citation: the item's denominator is the number of (capped) citations of its
  sentences with valid citations. A sentence whose joint premise does not entail it earns nothing.
  An entailed sentence with one citation earns 1. An entailed sentence with several citations
  earns 1 per citation that is not irrelevant; a citation is *irrelevant* when the document alone
  does not entail the sentence AND the other cited documents without it still do. Item precision
  = earned / denominator (0 when the item has no valid citation).
- Dataset recall / precision = mean over items that have at least one sentence (ALCE skips items
  whose output has no sentence: an empty answer is left out of the citation means; count it with
  ``answered``). **Citation F1** = 2PR / (P + R) of the dataset means (0 if both are 0).
- **str_em** (ASQA): per item, the fraction of its qa_pairs any of whose short answers occurs
  (after :func:`normalize_answer`) in the normalized output without citations; **str_hit**: all
  of them do.
- **claims_nli** (ELI5): per item, the fraction of gold claims entailed by the whole output
  without citations (the premise); an empty output entails nothing.
- **answer_em / answer_f1** (HotpotQA, MuSiQue): SQuAD EM and token F1 of the whole output
  without citations against each gold answer (aliases included), max over golds;
  **answer_in_output**: a normalized gold answer occurs in the normalized output (str_em with
  one qa_pair), the headline correctness for these datasets.

Where we differ from ALCE (``Rules``):

- ALCE scores only the first line of the output (``output.strip().split("\\n")[0]``); we score
  the whole output unless ``alce_compat`` is set (VeriCite's refined answers and the citation
  grammar are single-line anyway). ``<|im_end|>`` is removed in both modes, as ALCE does.
- Sentences: pysbd via ``engine/text/splitter.py`` (citation marks a splitter leaves at the start of
  the next sentence are moved back, list bullets dropped) instead of nltk ``sent_tokenize``
  (needs a download); a sentence that is only citation marks is not a sentence.
- Citations: ``engine.citations.parse_citations`` reads every number of a group ("[1, 2]" ->
  1, 2; ALCE's regex reads only the 1) and removes duplicates ("[1][1]" is one citation; ALCE
  counts two); "[0]" is out of range (ALCE indexes the last document with it); other systems'
  forms ("[1-3]", "[Document 1]", "【1】") are citations, a bracketed number of 3+ digits
  ("[2004]") is not. ``alce_parse_differs`` (per item and summed by :func:`aggregate`) counts the
  sentences where ALCE's ``\\[\\d+`` reading gives other documents than ours.
- NLI: any checker with a threshold instead of TRUE (T5-11B) generating "1".
"""
from __future__ import annotations

import collections
import re
import string
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from vericite.engine.text.citations import (
    alce_citations,
    invalid_citations,
    parse_citations,
    strip_citations,
)
from vericite.engine.records import Document
from vericite.engine.text.splitter import split_statements

#: Stamped on every evaluation: ALCE eval.py commit whose rules these are, and our revision of them.
METRIC_VERSION = "alce-eval@5947208/vericite-1"
AT_MOST_CITATIONS = 3

ScoreFn = Callable[[Sequence[tuple[str, str]]], np.ndarray]


# -- text normalisation (ALCE eval.py = SQuAD v1.1 evaluate.py) --------------------------------
def normalize_answer(s: str) -> str:
    """Lower-case, remove punctuation, the articles a/an/the and extra whitespace (ALCE, SQuAD)."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def exact_presence(answers: Iterable[str], context: str) -> bool:
    """True if any normalized answer is a substring of the normalized context (ALCE)."""
    ctx = normalize_answer(context)
    return any(normalize_answer(a) in ctx for a in answers)


def compute_exact(gold: str, pred: str) -> int:
    """1 if the two strings are equal after :func:`normalize_answer`, else 0 (SQuAD EM)."""
    return int(normalize_answer(gold) == normalize_answer(pred))


def compute_f1(gold: str, pred: str) -> float:
    """SQuAD token F1 in [0, 1] between normalized strings (1 if both are empty, 0 if one is)."""
    g, p = normalize_answer(gold).split(), normalize_answer(pred).split()
    if not g or not p:
        return float(g == p)
    same = sum((collections.Counter(g) & collections.Counter(p)).values())
    if same == 0:
        return 0.0
    prec, rec = same / len(p), same / len(g)
    return 2 * prec * rec / (prec + rec)


# -- output preparation ----------------------------------------------------------------------
@dataclass(frozen=True)
class Rules:
    """How an output is read before scoring.

    alce_compat: score only the first line of the output, as ALCE eval.py does.
    at_most_citations: citations per sentence that count (ALCE's default 3).
    threshold: a pair is entailed when its score >= threshold.
    """

    threshold: float = 0.5
    alce_compat: bool = False
    at_most_citations: int = AT_MOST_CITATIONS


def prepare_output(output: str, *, alce_compat: bool = False) -> str:
    """The text that is scored: ``<|im_end|>`` removed, stripped; first line only with ``alce_compat``."""
    text = (output or "").replace("<|im_end|>", "").strip()
    if alce_compat:
        text = text.split("\n")[0].strip()
    return text


def sentences(output: str) -> list[str]:
    """The sentences of a prepared output (pysbd, English), each with its citation marks;
    sentences that are only marks are dropped."""
    return [s for s in split_statements(output, "en") if strip_citations(s)]


def render_document(doc: Document) -> str:
    """ALCE's ``_format_document``: ``"Title: {title}\\n{text}"``."""
    return f"Title: {doc.title}\n{doc.text}"


def joint_premise(docs: Sequence[Document], cites: Sequence[int]) -> str:
    """The cited documents (1-based numbers) rendered and joined by newlines."""
    return "\n".join(render_document(docs[c - 1]) for c in cites)


# -- citation recall and precision -------------------------------------------------------------
NO_CITATION = "no_citation"
OUT_OF_RANGE = "out_of_range"
ENTAILED = "entailed"
NOT_ENTAILED = "not_entailed"


@dataclass
class SentenceCheck:
    """One sentence's citation verdicts: ``citations`` as cited (after the cap), ``status`` one of
    no_citation / out_of_range / entailed / not_entailed, ``precise`` the citations credited for
    precision, ``irrelevant`` those found unnecessary."""

    text: str
    citations: tuple[int, ...]
    status: str
    joint_score: float | None = None
    precise: tuple[int, ...] = ()
    irrelevant: tuple[int, ...] = ()


@dataclass
class CitationResult:
    """Citation metrics of one output. ``recall`` and ``precision`` are fractions in [0, 1], or
    None when the output has no sentence (ALCE leaves such items out of the means)."""

    n_sentences: int
    n_entailed: int
    n_citations: int
    n_precise: int
    sentences: list[SentenceCheck] = field(default_factory=list)
    #: sentences whose cited documents, as ALCE's eval.py reads them (``\\[\\d+``), differ from ours
    n_alce_differs: int = 0

    @property
    def recall(self) -> float | None:
        return self.n_entailed / self.n_sentences if self.n_sentences else None

    @property
    def precision(self) -> float | None:
        if not self.n_sentences:
            return None
        return self.n_precise / self.n_citations if self.n_citations else 0.0


def citation_scores(output: str, docs: Sequence[Document], scores: ScoreFn, rules: Rules = Rules()) -> CitationResult:
    """Citation recall and precision of one output (rules: module docstring; ALCE compute_autoais).

    Args:
        output: the answer with ``[N]`` marks (1-based document numbers).
        docs: the documents the answer was written from, in citation order.
        scores: ``scores(pairs) -> float32 [n]`` P(entailment) per (premise, hypothesis).
        rules: threshold, first-line rule, citation cap.

    Returns:
        CitationResult with counts and per-sentence verdicts. At most 3 calls to ``scores``:
        joint premises, then single documents, then leave-one-out premises (only for the
        citations whose document alone does not entail, as ALCE).
    """
    sents = sentences(prepare_output(output, alce_compat=rules.alce_compat))
    checks: list[SentenceCheck] = []
    joint_pairs, joint_idx = [], []
    n_citations = 0
    for s in sents:
        hyp = strip_citations(s)
        cites = parse_citations(s)
        if not cites:
            checks.append(SentenceCheck(hyp, (), NO_CITATION))
            continue
        if invalid_citations(cites, len(docs)):
            checks.append(SentenceCheck(hyp, cites, OUT_OF_RANGE))
            continue
        cites = cites[: rules.at_most_citations]
        n_citations += len(cites)
        joint_idx.append(len(checks))
        joint_pairs.append((joint_premise(docs, cites), hyp))
        checks.append(SentenceCheck(hyp, cites, NOT_ENTAILED))
    if joint_pairs:
        for j, p in zip(joint_idx, _scores(scores, joint_pairs)):
            checks[j].joint_score = round(float(p), 4)
            if p >= rules.threshold:
                checks[j].status = ENTAILED
    # precision: single-citation entailed sentences earn 1; multi-citation ones per citation
    multi = [c for c in checks if c.status == ENTAILED and len(c.citations) > 1]
    for c in checks:
        if c.status == ENTAILED and len(c.citations) == 1:
            c.precise = c.citations
    single_pairs = [(render_document(docs[d - 1]), c.text) for c in multi for d in c.citations]
    single_ok = iter(_scores(scores, single_pairs) >= rules.threshold) if single_pairs else iter(())
    need_loo: list[tuple[SentenceCheck, int]] = []
    for c in multi:
        for d in c.citations:
            if next(single_ok):
                c.precise += (d,)
            else:
                need_loo.append((c, d))
    if need_loo:
        loo_pairs = [(joint_premise(docs, [x for x in c.citations if x != d]), c.text) for c, d in need_loo]
        for (c, d), p in zip(need_loo, _scores(scores, loo_pairs)):
            if p >= rules.threshold:
                c.irrelevant += (d,)
            else:
                c.precise += (d,)
    for c in multi:  # keep the written order
        c.precise = tuple(d for d in c.citations if d in c.precise)
        c.irrelevant = tuple(d for d in c.citations if d in c.irrelevant)
    return CitationResult(
        n_sentences=len(checks), n_entailed=sum(c.status == ENTAILED for c in checks),
        n_citations=n_citations, n_precise=sum(len(c.precise) for c in checks), sentences=checks,
        n_alce_differs=sum(parse_citations(s) != tuple(dict.fromkeys(alce_citations(s))) for s in sents))


def _scores(scores: ScoreFn, pairs: list[tuple[str, str]]) -> np.ndarray:
    out = np.asarray(scores(pairs), dtype=np.float32)
    if out.shape != (len(pairs),):
        raise ValueError(f"scores() returned shape {out.shape} for {len(pairs)} pairs")
    return out


# -- correctness -------------------------------------------------------------------------------
def answer_text(output: str, *, alce_compat: bool = False) -> str:
    """The prepared output without citation marks (what correctness metrics read)."""
    return strip_citations(prepare_output(output, alce_compat=alce_compat))


def str_em(output: str, qa_pairs: Sequence[dict]) -> tuple[float, bool]:
    """ASQA STR-EM of one output: (fraction of qa_pairs whose short answers occur, all occur).

    ``output`` should already be without citations (:func:`answer_text`). Source: ALCE
    ``compute_str_em``. Raises ValueError when ``qa_pairs`` is empty.
    """
    if not qa_pairs:
        raise ValueError("str_em needs at least one qa_pair")
    hits = [exact_presence(q["short_answers"], output) for q in qa_pairs]
    return sum(hits) / len(hits), all(hits)


def claims_nli(output: str, claims: Sequence[str], scores: ScoreFn, threshold: float) -> float:
    """ELI5 claims recall: fraction of ``claims`` entailed by ``output`` (premise, citations
    removed); an empty output entails none (no model call). Source: ALCE ``compute_claims``.
    Raises ValueError when ``claims`` is empty."""
    if not claims:
        raise ValueError("claims_nli needs at least one claim")
    if not output.strip():
        return 0.0
    p = _scores(scores, [(output, c) for c in claims])
    return float((p >= threshold).mean())


def answer_match(output: str, answers: Sequence[str]) -> dict[str, float]:
    """HotpotQA/MuSiQue: {"em": max SQuAD EM, "f1": max SQuAD F1, "in_output": 0/1 presence}
    of ``output`` (without citations) against the gold answers (aliases included), each in [0, 1].
    Raises ValueError when ``answers`` is empty."""
    answers = [a for a in answers if a]
    if not answers:
        raise ValueError("answer_match needs at least one gold answer")
    return {"em": float(max(compute_exact(a, output) for a in answers)),
            "f1": float(max(compute_f1(a, output) for a in answers)),
            "in_output": float(exact_presence(answers, output))}


#: The headline correctness metric per dataset (others are reported too).
CORRECTNESS = {"asqa": "str_em", "eli5": "claims_nli", "hotpotqa": "answer_in_output", "musique": "answer_in_output",
               "xquad-ru": "answer_in_output"}


# -- one item, many items ----------------------------------------------------------------------
def evaluate_item(row: dict, scores: ScoreFn, rules: Rules, *, details: bool = False) -> dict:
    """All metrics of one result row ({dataset, output, docs [{title, text}], gold}).

    Returns a dict: n_sentences, n_citations, citation_recall / citation_precision (fractions,
    None for an output without sentences), answered (bool), and the dataset's correctness
    metrics as fractions (str_em, str_hit | claims_nli | answer_em, answer_f1, answer_in_output);
    with ``details``, also "sentences": the per-sentence verdicts (:class:`SentenceCheck` dicts).

    Raises:
        ValueError: unknown dataset or missing gold fields.
    """
    docs = [d if isinstance(d, Document) else Document(str(d.get("title") or ""), str(d.get("text") or ""))
            for d in row["docs"]]
    cit = citation_scores(row.get("output") or "", docs, scores, rules)
    text = answer_text(row.get("output") or "", alce_compat=rules.alce_compat)
    gold = row.get("gold") or {}
    out: dict = {"n_sentences": cit.n_sentences, "n_citations": cit.n_citations, "answered": bool(text),
                 "alce_parse_differs": cit.n_alce_differs,
                 "citation_recall": cit.recall, "citation_precision": cit.precision}
    if details:
        out["sentences"] = [asdict(c) for c in cit.sentences]
    ds = row.get("dataset")
    if ds == "asqa":
        out["str_em"], out["str_hit"] = str_em(text, gold["qa_pairs"])
    elif ds == "eli5":
        out["claims_nli"] = claims_nli(text, gold["claims"], scores, rules.threshold)
    elif ds in ("hotpotqa", "musique", "xquad-ru"):
        m = answer_match(text, gold["answers"])
        out["answer_em"], out["answer_f1"], out["answer_in_output"] = m["em"], m["f1"], m["in_output"]
    else:
        raise ValueError(f"unknown dataset {ds!r}; known: {sorted(CORRECTNESS)}")
    return out


def _pct(xs: list[float]) -> float | None:
    return round(100 * float(np.mean(xs)), 2) if xs else None


def aggregate(per_item: Sequence[dict], *, seconds: Sequence[float] = ()) -> dict:
    """Dataset-level metrics (percent, 0-100) from :func:`evaluate_item` dicts.

    citation_recall / citation_precision: mean over items with >= 1 sentence (ALCE);
    citation_f1: 2PR/(P+R) of those means; answered: percent of non-empty outputs;
    statements_per_answer: mean sentences over answered items; correctness metrics: mean over
    all items; seconds_per_item: mean of ``seconds`` (None if not given).
    """
    scored = [m for m in per_item if m["citation_recall"] is not None]
    r = float(np.mean([m["citation_recall"] for m in scored])) if scored else None
    p = float(np.mean([m["citation_precision"] for m in scored])) if scored else None
    f1 = None if r is None else (round(100 * 2 * p * r / (p + r), 2) if p + r > 0 else 0.0)
    r, p = (None, None) if r is None else (round(100 * r, 2), round(100 * p, 2))
    answered = [m for m in per_item if m["answered"]]
    out = {
        "items": len(per_item), "items_with_sentences": len(scored),
        "answered": _pct([float(m["answered"]) for m in per_item]),
        "citation_recall": r, "citation_precision": p, "citation_f1": f1,
        "statements_per_answer": round(float(np.mean([m["n_sentences"] for m in answered])), 2) if answered else 0.0,
        "citations_per_sentence": (round(sum(m["n_citations"] for m in scored) / max(1, sum(m["n_sentences"] for m in scored)), 2)),
        "seconds_per_item": round(float(np.mean(seconds)), 2) if len(seconds) else None,
        # ALCE-parity report: sentences where ALCE's citation regex reads other documents than we do
        "alce_parse_differs": sum(int(m.get("alce_parse_differs", 0)) for m in per_item),
    }
    for k in ("str_em", "str_hit", "claims_nli", "answer_em", "answer_f1", "answer_in_output"):
        vals = [float(m[k]) for m in per_item if k in m]
        if vals:
            out[k] = _pct(vals)
    return out


class MemoScores:
    """A ``scores`` callable behind the engine's premise-hypothesis cache.

    Only the distinct pairs the cache does not hold reach ``scorer`` (one call per batch of
    misses); the order of the returned float32 [n] array follows ``pairs``. ``hits`` / ``misses``
    count pair lookups served / scored. With a sqlite-backed cache an evaluation rerun scores nothing.
    """

    def __init__(self, scorer: ScoreFn, cache=None):
        from vericite.engine.nli.cache import ScoreCache

        self.scorer = scorer
        self.cache = cache if cache is not None else ScoreCache("memo")
        self.hits = 0
        self.misses = 0

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        pairs = [(p, h) for p, h in pairs]
        uniq = list(dict.fromkeys(pairs))
        known = dict(zip(uniq, self.cache.get_many(uniq)))
        todo = [x for x in uniq if known[x] is None]
        self.hits += len(pairs) - len(todo)
        self.misses += len(todo)
        if todo:
            scored = [float(v) for v in _scores(self.scorer, todo)]
            self.cache.put_many(todo, scored)
            known.update(zip(todo, scored))
        return np.array([known[x] for x in pairs], dtype=np.float32)


def cached_scores(checker, path: str | None = None) -> MemoScores:
    """The evaluator's scorer: ``checker.scores`` behind a :class:`~vericite.engine.nli.cache.ScoreCache`
    keyed by the checker's ``cache_id`` (its file sha256 and settings), persisted in the sqlite
    file ``path`` when given (so an evaluation rerun scores nothing)."""
    from vericite.engine.nli.cache import ScoreCache

    return MemoScores(checker.scores, ScoreCache(getattr(checker, "cache_id", checker.name), path=path))

