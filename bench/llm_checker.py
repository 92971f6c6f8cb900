"""Checkers that are not NLI models: the ablations of the VeriCite paper's verification step.

Each class implements the pipeline's ``Checker`` protocol (``name``, ``scores(pairs) -> float32
[n]``) plus ``ep`` (where it runs), ``threshold`` (the P(supported) cut the pipeline should use
with it: the method registry in ``bench/methods.py`` sets ``Settings.threshold`` to it) and
``stats`` (pairs, LLM calls, ms, format warnings), so the pipeline code runs unchanged:

- :class:`AcceptAll`: every pair scores 1.0 (``vericite --no-nli``: the LLM's output unchecked).
- :class:`LLMYesNoChecker`: the LLM answers Yes/No per pair; score = P(Yes) from one forward pass
  (``llm.yes_probability``), threshold 0.5.
- :class:`LLMBatchChecker`: up to ``batch`` statements about one premise in one prompt, one
  "N. Yes|No" line each; score 1.0 / 0.0, threshold 0.5. A line missing from the reply counts as
  "No" and as one format warning.
- :class:`LLMGradedChecker`: the LLM rates 1 verbatim, 2 paraphrase, 3 partial, 4 not supported;
  score 1.0 / 0.75 / 0.5 / 0.0 (:data:`GRADE_SCORES`); ``keep=2`` (strict, keep grades 1-2) sets
  threshold 0.625, ``keep=3`` (lenient, keep 1-3) 0.25: midpoints between adjacent scores, so
  ``score >= threshold`` keeps exactly the intended grades. An unreadable grade counts as 4 and
  as one format warning.

Prompts are data: ``bench/prompts/checker-en.json`` (:class:`CheckerPrompts`).
Premises too long for the LLM's context are cut (token-exact, ``llm.truncate``).
"""
from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vericite.engine.errors import ConfigError
from vericite.engine.llm.grammar import YES_NO
from vericite.engine.llm.fitting import prompt_budget
from vericite.engine.prompts import PromptFile, chat_messages, fill, load_prompt_file

#: The benches' own prompt files (LLM checkers, vanilla): bench/prompts/NAME.json.
BENCH_PROMPTS = Path(__file__).resolve().parent / "prompts"

log = logging.getLogger(__name__)

#: Grade -> score for :class:`LLMGradedChecker` (1 verbatim, 2 paraphrase, 3 partial, 4 not supported).
GRADE_SCORES = {1: 1.0, 2: 0.75, 3: 0.5, 4: 0.0}
#: Threshold per ``keep`` (highest grade kept): midpoints between adjacent grade scores.
GRADE_THRESHOLDS = {1: 0.875, 2: 0.625, 3: 0.25}
GRADE_GRAMMAR = 'root ::= [1-4]'


@dataclass(frozen=True)
class CheckerPrompts(PromptFile):
    """The three checker prompt kinds (yes_no, batch, graded) of one versioned JSON file."""

    sections: dict

    @classmethod
    def load(cls, name_or_path: str = "checker-en") -> CheckerPrompts:
        """Load ``bench/prompts/NAME.json`` or a JSON file by path.

        Raises:
            ConfigError: file not found, invalid JSON, or a missing section/field.
        """
        path, raw = load_prompt_file(name_or_path, BENCH_PROMPTS, what="checker prompt set")
        need = {"yes_no": ("instruction", "template"), "batch": ("instruction", "template", "item"),
                "graded": ("instruction", "template")}
        for sec, fields in need.items():
            for f in fields:
                if f not in raw.get(sec, {}):
                    raise ConfigError(f"{path}: missing field {sec}.{f}")
        return cls(raw["name"], str(raw["version"]), raw.get("system", ""), {k: raw[k] for k in need})

    def messages(self, kind: str, *, premise: str, hypothesis: str = "", statements: str = "",
                 k: int = 0) -> list[dict[str, str]]:
        """Chat messages for one check of ``kind`` ("yes_no", "batch", "graded")."""
        s = self.sections[kind]
        return chat_messages(self.system, fill(s["template"], INST=s["instruction"], P=premise, H=hypothesis,
                                               S=statements, K=str(k)))


class AcceptAll:
    """Accepts every pair: scores are all 1.0 (``--no-nli``: stage outputs pass unchecked).

    ``ep`` is "none": nothing runs.
    """

    name = "accept-all"
    ep = "none"
    threshold = 0.5

    def __init__(self) -> None:
        self.stats = {"pairs": 0, "llm_calls": 0, "ms": 0.0, "format_warnings": 0}

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """float32 [len(pairs)], all 1.0."""
        self.stats["pairs"] += len(pairs)
        return np.ones(len(pairs), dtype=np.float32)


class _LLMChecker:
    """Shared parts: prompts, premise fitting, statistics."""

    ep = "llama.cpp"
    kind = ""

    def __init__(self, llm, prompts: CheckerPrompts | str = "checker-en"):
        self.llm = llm
        self.prompts = prompts if isinstance(prompts, CheckerPrompts) else CheckerPrompts.load(prompts)
        self.stats = {"pairs": 0, "llm_calls": 0, "ms": 0.0, "format_warnings": 0}

    def _max_tokens(self, k: int = 1) -> int:
        return int(self.prompts.sections[self.kind].get("max_tokens", 2))

    def _fit(self, premise: str, hypothesis: str = "", statements: str = "", k: int = 1) -> str:
        """The premise cut so the prompt and the reply fit the LLM context."""
        fixed = [m["content"] for m in
                 self.prompts.messages(self.kind, premise="", hypothesis=hypothesis, statements=statements, k=k)]
        budget = prompt_budget(self.llm, fixed, self._max_tokens(k))
        text, cut = self.llm.truncate(premise, max(16, budget))
        if cut:
            log.debug("%s: premise cut to %d tokens", self.name, budget)
        return text

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """One LLM check per pair (:meth:`score_one`): float32 [len(pairs)] in [0, 1].

        Raises:
            InferenceError: the LLM call failed.
        """
        t0 = time.perf_counter()
        out = np.zeros(len(pairs), dtype=np.float32)
        for i, (premise, hyp) in enumerate(pairs):
            msgs = self.prompts.messages(self.kind, premise=self._fit(premise, hypothesis=hyp), hypothesis=hyp)
            out[i] = self.score_one(msgs)
        self._done(len(pairs), len(pairs), t0)
        return out

    def score_one(self, messages: list[dict[str, str]]) -> float:
        """The score of one pair from its rendered prompt."""
        raise NotImplementedError

    def _done(self, n_pairs: int, n_calls: int, t0: float) -> None:
        self.stats["pairs"] += n_pairs
        self.stats["llm_calls"] += n_calls
        self.stats["ms"] = round(self.stats["ms"] + (time.perf_counter() - t0) * 1000, 1)


class LLMYesNoChecker(_LLMChecker):
    """The LLM judges each (premise, statement) pair; score = P(Yes) in [0, 1].

    P(Yes) = softmax(logit "Yes", logit "No")[0] of the first answer token, from one forward pass
    (:meth:`LlamaCppLLM.yes_probability`); pairs with the same premise reuse its KV-cache prefix.

    Args:
        llm: a loaded :class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM` (or anything with
            ``yes_probability``, ``count_tokens``, ``truncate``, ``n_ctx``, ``name``).
        prompts: a :class:`CheckerPrompts` or its name/path (default "checker-en").
    """

    kind = "yes_no"
    threshold = 0.5

    def __init__(self, llm, prompts: CheckerPrompts | str = "checker-en"):
        super().__init__(llm, prompts)
        self.name = f"llm-yesno:{llm.name}:{self.prompts.tag}"

    def score_one(self, messages: list[dict[str, str]]) -> float:
        """P(Yes) in [0, 1]."""
        p, _ = self.llm.yes_probability(messages, purpose="check")
        return p


_LINE = re.compile(r"^\s*(?:(\d+)\s*[.):\-]?\s*)?\**\s*(yes|no)\b", re.IGNORECASE)


def parse_batch_reply(text: str, k: int) -> tuple[list[float | None], int]:
    """Read "N. Yes|No" lines of a batch reply for ``k`` statements.

    A numbered line goes to statement N (1-based, the first answer per number counts); an
    unnumbered line goes to the next statement without an answer. Returns ([1.0 | 0.0 | None]
    * k, warnings), None = no answer found; warnings = unanswered statements, plus one if a
    line could not be read.
    """
    got: list[float | None] = [None] * k
    bad = 0
    nxt = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        m = _LINE.match(line)
        if not m:
            bad = 1
            continue
        val = 1.0 if m.group(2).lower() == "yes" else 0.0
        if m.group(1) is not None:
            j = int(m.group(1)) - 1
            if 0 <= j < k and got[j] is None:
                got[j] = val
            else:
                bad = 1
        else:
            while nxt < k and got[nxt] is not None:
                nxt += 1
            if nxt < k:
                got[nxt] = val
            else:
                bad = 1
    return got, sum(g is None for g in got) + bad


def batch_grammar(k: int) -> str:
    """GBNF for exactly ``k`` lines "1. Yes|No" ... "k. Yes|No"."""
    lines = ' "\\n" '.join(f'"{i}. " yn' for i in range(1, k + 1))
    return f"root ::= {lines}\n{YES_NO.replace('root', 'yn', 1)}"


class LLMBatchChecker(_LLMChecker):
    """The LLM checks up to ``batch`` statements about one premise per prompt, one Yes/No line each.

    Pairs are grouped by premise (order of first appearance) and each group cut into chunks of
    at most ``batch``. Score 1.0 for "Yes", 0.0 for "No" or a missing line (counted in
    ``stats["format_warnings"]``).

    Args:
        llm: a loaded LLM (``chat``, ``count_tokens``, ``truncate``, ``n_ctx``, ``name``).
        batch: statements per prompt (>= 1).
        grammar: constrain the reply to exactly the k "N. Yes|No" lines (default True, as the
            pipeline constrains its small models' gate); False lets the model write freely.
        prompts: a :class:`CheckerPrompts` or its name/path.

    Raises:
        ConfigError: batch < 1.
    """

    kind = "batch"
    threshold = 0.5

    def __init__(self, llm, batch: int = 5, *, grammar: bool = True, prompts: CheckerPrompts | str = "checker-en"):
        if batch < 1:
            raise ConfigError(f"checker batch must be >= 1, got {batch}")
        super().__init__(llm, prompts)
        self.batch = batch
        self.grammar = grammar
        self.name = f"llm-batch{batch}:{llm.name}:{self.prompts.tag}"

    def _max_tokens(self, k: int = 1) -> int:
        return int(self.prompts.sections["batch"].get("max_tokens_per_item", 4)) * k + 4

    def _statements(self, hyps: Sequence[str]) -> str:
        item = self.prompts.sections["batch"]["item"]
        return "\n".join(fill(item, N=str(n), H=h) for n, h in enumerate(hyps, start=1))

    def scores(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """1.0 / 0.0 per pair: float32 [len(pairs)].

        Raises:
            InferenceError: the LLM call failed.
        """
        t0 = time.perf_counter()
        out = np.zeros(len(pairs), dtype=np.float32)
        groups: dict[str, list[int]] = {}
        for i, (premise, _) in enumerate(pairs):
            groups.setdefault(premise, []).append(i)
        calls = 0
        for premise, idx in groups.items():
            for b in range(0, len(idx), self.batch):
                chunk = idx[b:b + self.batch]
                stmts = self._statements([pairs[i][1] for i in chunk])
                k = len(chunk)
                msgs = self.prompts.messages("batch", premise=self._fit(premise, statements=stmts, k=k),
                                             statements=stmts, k=k)
                call = self.llm.chat(msgs, max_tokens=self._max_tokens(k), purpose="check-batch",
                                     grammar=batch_grammar(k) if self.grammar else None)
                calls += 1
                got, warn = parse_batch_reply(call.text, k)
                if warn:
                    log.warning("%s: reply ignored the format (%d of %d statements unanswered): %r",
                                self.name, sum(g is None for g in got), k, call.text[:200])
                self.stats["format_warnings"] += warn
                for i, g in zip(chunk, got):
                    out[i] = g or 0.0
        self._done(len(pairs), calls, t0)
        return out


def parse_grade(text: str) -> int | None:
    """The first digit 1-4 in ``text``, or None."""
    m = re.search(r"[1-4]", text)
    return int(m.group(0)) if m else None


class LLMGradedChecker(_LLMChecker):
    """The LLM grades support 1-4 (1 verbatim, 2 paraphrase, 3 partial, 4 not supported).

    Score per :data:`GRADE_SCORES`; ``threshold`` per :data:`GRADE_THRESHOLDS` so that
    ``score >= threshold`` keeps grades 1..keep. Greedy, constrained to one digit by a grammar
    (``grammar=False``: free text, first digit 1-4 read; none -> grade 4, one format warning).

    Args:
        llm: a loaded LLM.
        keep: highest grade kept: 2 = strict (verbatim or paraphrase), 3 = lenient (also partial).
        grammar: constrain the reply to one digit 1-4 (default True).
        prompts: a :class:`CheckerPrompts` or its name/path.

    Raises:
        ConfigError: keep not in 1..3.
    """

    kind = "graded"

    def __init__(self, llm, keep: int = 2, *, grammar: bool = True, prompts: CheckerPrompts | str = "checker-en"):
        if keep not in GRADE_THRESHOLDS:
            raise ConfigError(f"graded checker: keep must be 1, 2 or 3, got {keep}")
        super().__init__(llm, prompts)
        self.keep = keep
        self.grammar = grammar
        self.threshold = GRADE_THRESHOLDS[keep]
        label = {1: "verbatim", 2: "strict", 3: "lenient"}[keep]
        self.name = f"llm-graded-{label}:{llm.name}:{self.prompts.tag}"
        self.grades: dict[int, int] = {g: 0 for g in GRADE_SCORES}

    def score_one(self, messages: list[dict[str, str]]) -> float:
        """The grade's score, one of 1.0, 0.75, 0.5, 0.0 (:data:`GRADE_SCORES`)."""
        call = self.llm.chat(messages, max_tokens=self._max_tokens(), purpose="check-graded",
                             grammar=GRADE_GRAMMAR if self.grammar else None)
        grade = parse_grade(call.text)
        if grade is None:
            log.warning("%s: unreadable grade %r, counted as 4", self.name, call.text[:80])
            self.stats["format_warnings"] += 1
            grade = 4
        self.grades[grade] += 1
        return GRADE_SCORES[grade]
