"""Replay recorded runs through today's stage rules: the LLM's recorded replies, the real checker.

`vericite bench replay RESULTS.jsonl [...] --out OUT.jsonl [--label NAME] [--set KEY=VALUE ...]`

A quality run costs about a minute of LLM time per item on this machine; most rules between the
LLM calls (claims, checks, the final check, the backbone) do not change what the LLM is asked
until stage 3. This bench answers each recorded ``vericite`` row again with a :class:`ReplayLLM`
that returns the row's recorded reply for each call (by purpose; a claim rewrite by the fragment in
its prompt) and the real checker, under the row's recorded settings with ``--set`` overrides, so a
rule's effect is measured on every recorded item in seconds. Rows keep their fields; ``method``
becomes ``--label`` and ``replay`` records what the replay could not reproduce:

- ``missing``: calls with no recorded reply (answered with empty text: a new fragment rewrite, ...);
- ``live``: calls with no recorded reply answered by the ``--llm`` model (a new step, e.g. stage 3's
  answer step on rows recorded with the merge);
- ``stale_refine``: the verified sentences given to stage 3 differ from the recorded ones, so the
  recorded refinement answers another prompt (count these rows apart; the rest are exact); with
  ``--llm``, the answer step's call (``select``) is then asked live, as a new run would ask it
  (listed in ``live``), instead of applying the recorded picks to a list they were not made for;
- ``same_output``: the replayed answer equals the recorded one.

The summary line also counts the citations of supported final sentences and those whose recorded
quote (the span of the cited document that carried the sentence) alone passes the checker's
threshold (``quotes``: :func:`quote_counts`).

With no override that changes a rule, every row should come back with ``same_output`` true: run
that first (the bench prints the count). Evaluate the output with ``vericite eval``.
"""
from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections import defaultdict, deque
from dataclasses import fields

from tqdm import tqdm

from vericite.engine import records as R
from vericite.engine.config import settings as S
from vericite.engine.nli.batching import DynamicBatcher
from vericite.engine.nli.load import load_checker
from vericite.engine.text.citations import strip_citations
from vericite.engine.errors import ConfigError, ModelFileError
from vericite.engine.loader import load_llm
from vericite.engine.config.registry import Registry
from vericite.engine.nli.cache import ScoreCache
from vericite.engine.pipeline import VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Document, LLMCall

from .run import read_results

log = logging.getLogger(__name__)

_SHORT = re.compile(r"Short answer: (.*)\n")
_SETTINGS = {f.name for f in fields(S.Settings)}


def _norm(text: str) -> str:
    return " ".join(strip_citations(text).split())


_LISTED = re.compile(r"^S\d+: (.*)$", re.M)  # a numbered sentence of the answer step's prompt


def _prompt(messages) -> str:
    """The text a call asks about: a completion prompt, or a chat's last message."""
    return messages if isinstance(messages, str) else messages[-1]["content"]


class ReplayLLM:
    """An LLM that answers each call with the recorded reply of one result row.

    ``chat`` / ``yes_probability`` return the recorded :class:`LLMCall` of the same purpose, in
    recorded order; a claim rewrite (purpose ``claim:*``) returns the full sentence the recorded
    trace shows for the fragment named in the prompt. A call with nothing recorded is answered by
    ``live`` (a real LLM, listed in ``asked``) when given, else with empty text (listed in
    ``missing``). With ``live``, the answer step's call (``select``) whose numbered sentences are
    not the recorded verified ones is asked live too (its recorded picks number another list).
    Token counts are ``live``'s, else ~4 characters per token (they only size prompts, which a
    replay without ``live`` sends nowhere).
    """

    name = "replay"

    def __init__(self, trace: dict, n_ctx: int = 4096, live=None):
        self.n_ctx = n_ctx
        self.live = live  # an LLM that answers the calls with nothing recorded (a new step), or None
        self.asked: list[str] = []
        self.calls: dict[str, deque] = defaultdict(deque)
        self.rewrites: dict[tuple[str, str], str] = {}
        self.missing: list[str] = []
        self.verified = {strip_citations(t).strip() for t, _ in verified_set(trace)} if trace.get("stages") else set()
        for st in trace.get("stages", []):
            for c in st.get("llm_calls", []):
                if not c["purpose"].startswith("claim:"):
                    self.calls[c["purpose"]].append(LLMCall(**c))
            for s in st.get("statements", []):
                if s.get("rewritten"):
                    self.rewrites[(st["name"], _norm(s["raw"]))] = s["text"]

    def chat(self, messages, *, max_tokens, purpose, grammar=None) -> LLMCall:
        if purpose.startswith("claim:"):
            m = _SHORT.search(_prompt(messages))
            stage = purpose.split(":", 1)[1].split(":")[0]
            key = (stage, _norm(m.group(1))) if m else None
            if key in self.rewrites or self.live is None:  # as recorded; a fragment new to this replay goes live
                return LLMCall(purpose, 0, 0, 0, 0.0, 0.0, 0.0, "stop", self.rewrites.get(key, ""))
        elif purpose == "select" and self.live is not None and self._listed(messages) != self.verified:
            if self.calls[purpose]:
                self.calls[purpose].popleft()  # made for another list of sentences
        elif self.calls[purpose]:
            return self.calls[purpose].popleft()
        if self.live is not None:
            self.asked.append(purpose)
            return self.live.chat(messages, max_tokens=max_tokens, purpose=purpose, grammar=grammar)
        self.missing.append(purpose)
        return LLMCall(purpose, 0, 0, 0, 0.0, 0.0, 0.0, "stop", "")

    @staticmethod
    def _listed(messages) -> set[str]:
        """The sentences a ``select`` prompt numbers ("S1: text" lines, :func:`numbered`)."""
        return set(_LISTED.findall(_prompt(messages)))

    def yes_probability(self, messages, *, purpose) -> tuple[float, LLMCall]:
        if not self.calls[purpose] and self.live is not None:  # a scored step new to this replay: scored live
            self.asked.append(purpose)
            return self.live.yes_probability(messages, purpose=purpose)
        call = self.chat(messages, max_tokens=1, purpose=purpose)
        return float(call.score or 0.0), call

    def count_tokens(self, text: str) -> int:
        return self.live.count_tokens(text) if self.live is not None else len(text) // 4 + 1

    def truncate(self, text: str, max_tokens: int) -> tuple[str, bool]:
        if self.live is not None:
            return self.live.truncate(text, max_tokens)
        return (text, False) if self.count_tokens(text) <= max_tokens else (text[: 4 * max_tokens], True)


def recorded_settings(stamp: dict, overrides: dict) -> S.Settings:
    """The Settings a row was answered with (its trace's stamp; settings added since take today's
    defaults), then ``overrides``. ``lang`` is "auto" (the stamp holds the language detected).

    Raises:
        ConfigError: an override names no setting or breaks its rule.
    """
    unknown = sorted(set(overrides) - _SETTINGS)
    if unknown:
        raise ConfigError(f"--set: unknown setting(s) {unknown}; known: {', '.join(sorted(_SETTINGS))}")
    kept = {k: tuple(v) if isinstance(v, list) else v for k, v in stamp.items() if k in _SETTINGS}
    kept["lang"] = "auto"
    return S.validate(S.Settings(**{**kept, **overrides}))


def quote_counts(trace: dict) -> tuple[int, int]:
    """``(citations, with_quote)`` of a pipeline trace (``VerifiedAnswer.to_json()``): the
    citations of the final sentences judged supported, and those whose quote for that document
    scored at least the run's threshold."""
    threshold = trace["settings"]["threshold"]
    cited = passing = 0
    for s in trace.get("final_check") or []:
        if s.get("verdict") != R.SUPPORTED:
            continue
        best = {q["document"]: q["score"] for q in s.get("quotes") or []}
        for c in s.get("citations") or []:
            cited += 1
            passing += best.get(c, -1.0) >= threshold
    return cited, passing


def verified_set(trace: dict) -> list[tuple[str, tuple]]:
    """The sentences given to stage 3: kept statements of stages 1-2 as (text, citations)."""
    return sorted((s["text"], tuple(s["citations"])) for st in trace["stages"][:2] for s in st["statements"]
                  if s["verdict"] == R.KEPT)


class Replayer:
    """Replays rows (see module docstring); one checker per recorded checker name, loaded once."""

    def __init__(self, *, models_toml: str | None = None, nli_cache: str | None = None, overrides: dict | None = None,
                 checker=None, live=None):
        self.live = live  # answers the calls with nothing recorded (ReplayLLM)
        self.registry = Registry.load(models_toml)
        self.nli_cache = nli_cache
        self.overrides = dict(overrides or {})
        self.checkers: dict[str, DynamicBatcher] = {}
        self.fixed = checker  # one checker for every row instead of the recorded ones (tests, other checkers)

    def checker(self, stamp: dict) -> DynamicBatcher:
        """The recorded checker (its models.toml entry by name, "+number-guard" aside).

        Raises:
            ConfigError: no entry of that name; ModelFileError: its file is missing.
        """
        if self.fixed is not None:
            return self.fixed
        name = stamp["nli"].split("+")[0]
        if name not in self.checkers:
            spec = self.registry.get(name, "nli")
            if stamp.get("nli_sha256") and spec.sha256 and stamp["nli_sha256"] != spec.sha256:
                log.warning("checker %s has changed since the run (sha256 %s, recorded %s)", name,
                            spec.sha256[:12], stamp["nli_sha256"][:12])
            model = load_checker(spec)
            self.checkers[name] = DynamicBatcher(model, cache=ScoreCache(model.cache_id, path=self.nli_cache))
        return self.checkers[name]

    def replay(self, row: dict, label: str) -> dict:
        """One recorded row answered again; the new row (see module docstring)."""
        trace = row["trace"]
        stamp = trace["settings"]
        settings = recorded_settings(stamp, self.overrides)
        llm = ReplayLLM(trace, n_ctx=stamp.get("n_ctx") or 4096, live=self.live)
        pipe = VeriCite(llm, self.checker(stamp), prompts=PromptSet.load(stamp["prompts"].split("@")[0]),
                        settings=settings)
        docs = [Document(title=str(d.get("title") or ""), text=d["text"]) for d in row["docs"]]
        res = pipe.answer(row["question"], docs)
        new = res.to_json()
        new.pop("documents", None)
        out = {k: v for k, v in row.items() if k not in ("output", "warnings", "trace", "seconds")}
        out.update(method=label, output=res.answer, warnings=list(res.warnings), trace=new,
                   seconds=row.get("seconds"),
                   replay={"from": row["method"], "overrides": self.overrides, "missing": llm.missing, "live": llm.asked,
                           "stale_refine": verified_set(new) != verified_set(trace),
                           "same_output": res.answer == row["output"]})
        return out

    def close(self) -> None:
        for c in self.checkers.values():
            c.close()
        if self.live is not None and hasattr(self.live, "close"):
            self.live.close()


def main(argv: list[str] | None = None, *, models_toml: str | None = None) -> int:
    ap = argparse.ArgumentParser(prog="vericite bench replay", description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", help="result files of `vericite run` (rows with a pipeline trace)")
    ap.add_argument("--out", required=True, help="JSON lines of the replayed rows (overwritten)")
    ap.add_argument("--label", help="method name of the replayed rows (default: METHOD-replay)")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting for the replay, e.g. backbone_facts=0 (repeatable; JSON values)")
    ap.add_argument("--method", help="replay only rows of this method")
    ap.add_argument("--dataset", help="replay only rows of this dataset")
    ap.add_argument("--nli-cache", help="sqlite premise-hypothesis score cache (reused across replays)")
    ap.add_argument("--llm", help="answer the calls with no recorded reply (a new step) with this LLM of models.toml "
                                  "(one thread); without it they get empty text")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    try:
        overrides = S.parse_assignments(args.sets)
        rows = [r for p in args.results for r in read_results(p)
                if isinstance(r.get("trace"), dict) and "stages" in r["trace"]
                and (not args.method or r["method"] == args.method) and (not args.dataset or r["dataset"] == args.dataset)]
        if not rows:
            raise ConfigError("no rows with a pipeline trace in " + ", ".join(args.results))
        live = load_llm(args.llm, models_toml=models_toml) if args.llm else None
        replayer = Replayer(models_toml=models_toml, nli_cache=args.nli_cache, overrides=overrides, live=live)
    except (ConfigError, ModelFileError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    counts = defaultdict(int)
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            for row in tqdm(rows, desc="replay", unit="item", disable=args.no_progress):
                new = replayer.replay(row, args.label or f"{row['method']}-replay")
                rp = new["replay"]
                counts["rows"] += 1
                counts["same_output"] += rp["same_output"]
                counts["stale_refine"] += rp["stale_refine"]
                counts["with_missing_calls"] += bool(rp["missing"])
                counts["live_calls"] += len(rp["live"])
                cited, passing = quote_counts(new["trace"])
                counts["cited_supported"] += cited
                counts["quote_passes"] += passing
                f.write(json.dumps(new, ensure_ascii=False) + "\n")
    except ConfigError as e:  # a recorded checker or prompt set that this registry lacks
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        replayer.close()
    print(json.dumps({"out": args.out, "overrides": overrides, **counts}))
    return 0
