"""The methods the quality benchmark compares, on the same LLM and the same documents.

- ``vanilla``: one LLM pass with ALCE's prompt (``bench/prompts/alce-vanilla-en.json``) and
  ``shots`` demos (default 2) as user/assistant turns, as the VeriCite authors' ``vanilla.py``
  does. Demos: ``<data dir>/{dataset}_demos.jsonl`` (ALCE's ASQA / ELI5 demos); HotpotQA and
  MuSiQue have no demos file, so they use ALCE's ASQA demos (short cited answers over Wikipedia
  passages; our choice, stated in every record). Which demos: ``np.random.seed(42)`` then
  ``np.random.choice(n, shots, replace=False)``, the authors' selection (demos 1 and 3 of 4).
  Decoding: greedy, 200 new tokens, and, when the LLM's profile (models.toml
  ``citation_grammar``) decodes the pipeline's stages 1 and 3 under the citation grammar, the
  same grammar (``citation_grammar(k)``: every sentence ends with 1-3 in-range citations), so
  both methods work under the same constraint; ``citation_grammar=False/True`` overrides.
  Documents that do not fit the context are cut to an equal share each (as the pipeline does).
- ``vericite``: the pipeline (0-shot, as configured in models.toml) with the NLI checker.
- Ablations (the pipeline code unchanged, only its checker swapped, ``Settings.threshold`` set
  to the checker's own): ``vericite-no-nli`` (:class:`~vericite.bench.llm_checker.AcceptAll`),
  ``vericite-llm`` (the LLM's P(Yes)), ``vericite-llm-batch`` (up to ``checker_batch``
  statements per prompt; the name carries the size, e.g. ``vericite-llm-batch5``),
  ``vericite-graded-strict`` / ``vericite-graded-lenient`` (1-4 scale, keep 1-2 / 1-3).

A method is a callable ``method(item) -> {"output", "warnings", "trace"}`` with a ``stamp``
dict (method, models and their sha256, checker, threshold, prompts, grammar, demos, git).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
from vericite.engine.errors import ConfigError, InputError
from vericite.engine.config import settings as S
from vericite.engine.llm.grammar import citation_grammar
from vericite.engine.llm.fitting import MARGIN_TOKENS, fit_documents
from vericite.engine.text.language import detect
from vericite.engine.prompts import PromptFile, fill, load_prompt_file
from vericite.engine.records import Document

from .common import git_revision
from .llm_checker import BENCH_PROMPTS

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parent.parent
DEMO_SEED = 42


@dataclass(frozen=True)
class MethodSpec:
    """A registered method: ``kind`` "vanilla" | "vericite"; ``checker`` for vericite:
    "nli" | "none" | "llm" | "llm-batch" | "graded-strict" | "graded-lenient"."""

    name: str
    kind: str
    checker: str | None
    help: str


METHODS: dict[str, MethodSpec] = {m.name: m for m in [
    MethodSpec("vanilla", "vanilla", None, "one LLM pass, ALCE prompt + demos"),
    MethodSpec("vericite", "vericite", "nli", "the VeriCite pipeline with the NLI checker"),
    MethodSpec("vericite-no-nli", "vericite", "none", "ablation: nothing checked (accept-all checker)"),
    MethodSpec("vericite-llm", "vericite", "llm", "ablation: the LLM checks each statement, P(Yes) >= 0.5"),
    MethodSpec("vericite-llm-batch", "vericite", "llm-batch", "ablation: the LLM checks up to N statements per prompt"),
    MethodSpec("vericite-graded-strict", "vericite", "graded-strict", "ablation: 1-4 scale, keep verbatim/paraphrase"),
    MethodSpec("vericite-graded-lenient", "vericite", "graded-lenient", "ablation: 1-4 scale, keep verbatim/paraphrase/partial"),
]}
CHECKERS = ("nli", "none", "llm", "llm-batch", "graded-strict", "graded-lenient")


def resolve_method(method: str, *, checker: str | None = None, no_nli: bool = False) -> str:
    """The registry name for ``--method M [--checker C | --no-nli]`` (e.g. vericite + llm -> vericite-llm).

    Raises:
        ConfigError: unknown method or checker, or a checker option with ``vanilla``.
    """
    if method not in METHODS:
        raise ConfigError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    if no_nli:
        if checker not in (None, "none"):
            raise ConfigError("--no-nli and --checker together: pick one")
        checker = "none"
    if checker is None:
        return method
    if checker not in CHECKERS:
        raise ConfigError(f"unknown checker {checker!r}; known: {', '.join(CHECKERS)}")
    if METHODS[method].kind != "vericite":
        raise ConfigError(f"--checker/--no-nli apply to vericite, not {method!r}")
    return "vericite" if checker == "nli" else f"vericite-{'no-nli' if checker == 'none' else checker}"


# -- vanilla ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class VanillaPrompt(PromptFile):
    """ALCE's vanilla prompt as data: instruction, demo/test prompt ({INST} {Q} {D}), document
    block ({ID} {T} {P}), system message, generation cap (tokens)."""

    instruction: str
    demo_prompt: str
    doc_prompt: str
    max_tokens: int
    #: language code -> the prompt for questions in that language (as the pipeline's prompt sets)
    languages: tuple[tuple[str, str], ...] = ()

    @classmethod
    def load(cls, name_or_path: str = "alce-vanilla-en") -> VanillaPrompt:
        """Load ``bench/prompts/NAME.json`` or a JSON file by path.

        Raises:
            ConfigError: not found, invalid JSON, or a missing field.
        """
        path, raw = load_prompt_file(name_or_path, BENCH_PROMPTS, what="vanilla prompt")
        try:
            return cls(raw["name"], str(raw["version"]), raw.get("system", ""), raw["instruction"],
                       raw["demo_prompt"], raw["doc_prompt"], int(raw["max_tokens"]),
                       tuple(sorted((raw.get("languages") or {}).items())))
        except KeyError as e:
            raise ConfigError(f"{path}: missing field {e}") from e

    def for_language(self, lang: str) -> VanillaPrompt:
        """The prompt for a question in ``lang`` (this one unless ``languages`` names another)."""
        target = dict(self.languages).get(lang)
        return VanillaPrompt.load(target) if target else self

    def doc(self, number: int, title: str, text: str) -> str:
        return fill(self.doc_prompt, ID=str(number), T=title, P=text)

    def user(self, question: str, docs_block: str) -> str:
        return fill(self.demo_prompt, INST=self.instruction, Q=question, D=docs_block).rstrip()


def pick_demos(demos: list[dict], shots: int, seed: int = DEMO_SEED) -> list[dict]:
    """``shots`` demos chosen as the authors' vanilla.py does (np.random.seed(seed); choice without replacement).

    Raises:
        ConfigError: more shots than demos.
    """
    if shots <= 0:
        return []
    if shots > len(demos):
        raise ConfigError(f"{shots} shots asked, only {len(demos)} demos")
    idx = np.random.RandomState(seed).choice(len(demos), shots, replace=False)
    return [demos[int(i)] for i in idx]


class Vanilla:
    """One greedy LLM pass with the ALCE prompt and demos (see module docstring).

    Args:
        llm: a loaded LLM (``chat``, ``count_tokens``, ``truncate``, ``n_ctx``, ``name``).
        prompt: the :class:`VanillaPrompt`.
        demos: the chosen demos ({question, answer, docs: [Document]}), in order.
        citation_grammar: decode under ``citation_grammar(k)``.
        inline_citations: the grammar also allows citations inside a sentence (the pipeline's setting).
    """

    def __init__(self, llm, *, prompt: VanillaPrompt, demos: list[dict], citation_grammar: bool, name: str = "vanilla",
                 inline_citations: bool = False):
        self.llm = llm
        self.prompt = prompt
        self.demos = demos
        self.citation_grammar = citation_grammar
        self.inline_citations = inline_citations
        self.name = name
        self.stamp: dict = {}
        self._by_lang: dict[str, VanillaPrompt] = {}

    def prompt_for(self, question: str) -> VanillaPrompt:
        """The prompt for the question's language (:meth:`VanillaPrompt.for_language`), loaded once per language."""
        if not self.prompt.languages:
            return self.prompt
        lang = detect(question)[0]
        if lang not in self._by_lang:
            self._by_lang[lang] = self.prompt.for_language(lang)
        return self._by_lang[lang]

    def messages(self, question: str, docs: list[Document], warnings: list[str]) -> list[dict[str, str]]:
        """System message, the demos as user/assistant turns, then the question with its documents
        (each cut to an equal share of the context left, if needed), in the prompt for the
        question's language (:meth:`prompt_for`; the demos stay as given).

        Raises:
            InputError: the documents cannot get 16 tokens each.
        """
        prompt = self.prompt_for(question)

        def block(ds: list[Document]) -> str:
            return "".join(prompt.doc(i, d.title, d.text) for i, d in enumerate(ds, start=1))

        msgs = [{"role": "system", "content": prompt.system}] if prompt.system else []
        for d in self.demos:
            msgs += [{"role": "user", "content": prompt.user(d["question"], block(d["docs"]))},
                     {"role": "assistant", "content": d["answer"]}]
        fixed = sum(self.llm.count_tokens(m["content"]) for m in msgs) + self.llm.count_tokens(prompt.user(question, ""))
        budget = self.llm.n_ctx - prompt.max_tokens - fixed - MARGIN_TOKENS - 8 * len(msgs)
        docs_block = fit_documents(self.llm, docs, budget, prompt.doc, warnings,
                                   hint=f"after {len(self.demos)} demos; use fewer --shots or --ndoc")
        return msgs + [{"role": "user", "content": prompt.user(question, docs_block)}]

    def __call__(self, item: dict) -> dict:
        """Answer one item. Returns {"output": text, "warnings": [...], "trace": {"prompts": the prompt's
        tag for the question's language, "llm_calls": [...]}}.

        Raises:
            InputError: documents do not fit; InferenceError: the LLM call failed.
        """
        warnings: list[str] = []
        docs = list(item["docs"])
        msgs = self.messages(item["question"], docs, warnings)
        grammar = citation_grammar(len(docs), inline=self.inline_citations) if self.citation_grammar else None
        used = self.prompt_for(item["question"])
        call = self.llm.chat(msgs, max_tokens=used.max_tokens, purpose="answer", grammar=grammar)
        return {"output": call.text.strip(), "warnings": warnings,
                "trace": {"prompts": used.tag, "llm_calls": [asdict(call)]}}


# -- vericite ----------------------------------------------------------------------------------
class VeriCiteMethod:
    """The pipeline as a method: output = the final answer; trace = ``VerifiedAnswer.to_json()``
    without the documents (kept once per row), plus the checker's statistics for this item."""

    def __init__(self, pipe, *, name: str = "vericite"):
        self.pipe = pipe
        self.name = name
        self.stamp: dict = {}

    def __call__(self, item: dict) -> dict:
        before = dict(getattr(self.pipe.checker, "stats", {}) or {})
        res = self.pipe.answer(item["question"], item["docs"])
        trace = res.to_json()
        trace.pop("documents", None)
        after = getattr(self.pipe.checker, "stats", {}) or {}
        trace["checker_stats"] = {k: round(after[k] - before.get(k, 0), 1) for k in after
                                  if isinstance(after[k], (int, float))}
        return {"output": res.answer, "warnings": list(res.warnings), "trace": trace}


def make_checker(kind: str, llm, nli_checker, *, batch: int = 5):
    """The checker for an ablation ``kind`` (see :data:`CHECKERS`); "nli" returns ``nli_checker``.

    Raises:
        ConfigError: unknown kind or bad batch size.
    """
    from .llm_checker import (
        AcceptAll,
        LLMBatchChecker,
        LLMGradedChecker,
        LLMYesNoChecker,
    )

    if kind == "nli":
        return nli_checker
    if kind == "none":
        return AcceptAll()
    if kind == "llm":
        return LLMYesNoChecker(llm)
    if kind == "llm-batch":
        return LLMBatchChecker(llm, batch=batch)
    if kind == "graded-strict":
        return LLMGradedChecker(llm, keep=2)
    if kind == "graded-lenient":
        return LLMGradedChecker(llm, keep=3)
    raise ConfigError(f"unknown checker {kind!r}; known: {', '.join(CHECKERS)}")


def with_checker(pipe, checker):
    """The pipeline with ``checker``: itself for its own checker (language routes kept), else a new
    pipeline on the same LLM and prompts whose threshold becomes the checker's own ``threshold``
    attribute when it has one; the replaced checkers are then closed (batchers' worker threads)."""
    from vericite.engine.pipeline import VeriCite

    if checker is pipe.checker:
        return pipe  # the pipeline's own checker, with its language routes
    thr = getattr(checker, "threshold", None)
    settings = pipe.settings if thr is None else replace(pipe.settings, threshold=thr)
    if checker.name == "accept-all":  # the no-NLI ablation checks nothing, the entity guard included
        settings = replace(settings, entity_guard=False)
    pipe.close()  # the unused NLI batchers' worker threads
    return VeriCite(pipe.llm, checker, prompts=pipe.prompts, settings=settings)


def default_demos_path(data_path: str | Path, dataset: str) -> Path:
    """``<data dir>/{dataset}_demos.jsonl``; for HotpotQA/MuSiQue (no demos of their own) the ASQA demos."""
    base = Path(data_path).resolve().parent
    own = base / f"{dataset}_demos.jsonl"
    return own if own.is_file() or dataset in ("asqa", "eli5") else base / "asqa_demos.jsonl"


def build_method(name: str, *, data_path: str | Path | None = None, dataset: str | None = None,
                 models_toml: str | None = None, llm: str | None = None, nli: str | None = None,
                 threads: int | None = None, n_ctx: int | None = None, checker_batch: int = 5, shots: int = 2,
                 demos_path: str | Path | None = None, citation_grammar: bool | None = None,
                 inline_citations: bool | None = None, gate: str | None = None, pipeline_factory: Callable | None = None,
                 overrides: dict | None = None, label: str | None = None) -> Callable[[dict], dict]:
    """Load the models once and return the method ``name`` (see :data:`METHODS`) with its ``stamp``.

    Args:
        data_path, dataset: where the items come from (vanilla finds its demos next to the data).
        models_toml, llm, nli, threads, n_ctx, gate: as ``engine.loader.build_pipeline``.
        checker_batch: statements per prompt for ``vericite-llm-batch``.
        shots, demos_path: vanilla's demos (``shots=0``: none).
        citation_grammar: override the LLM profile's citation grammar (both methods).
        inline_citations: override the profile's inline citations in that grammar (both methods).
        pipeline_factory: replaces ``build_pipeline`` (tests).
        overrides: pipeline settings changed for an ablation (vericite methods only).
        label: the method's name in results (default: ``name``).

    Raises:
        ConfigError: unknown method/model, bad options; ModelFileError: missing model file;
        InputError: demos file missing or malformed.
    """
    from vericite.engine.loader import build_pipeline
    from vericite.engine.config.registry import Registry

    from .datasets import load_demos

    if name not in METHODS:
        raise ConfigError(f"unknown method {name!r}; known: {', '.join(METHODS)}")
    spec = METHODS[name]
    factory = pipeline_factory or build_pipeline
    pipe = factory(models_toml=models_toml, llm=llm, nli=nli, threads=threads, n_ctx=n_ctx,
                   citation_grammar=citation_grammar, inline_citations=inline_citations, gate=gate)
    stamp = {"method": name, "llm": pipe.llm.name, "git": git_revision()}
    if pipeline_factory is None:  # a test double's pipeline names no registry model
        reg = Registry.load(models_toml)
        stamp["llm_sha256"] = reg.get(llm, "llm").sha256
        stamp["nli_sha256"] = reg.get(nli, "nli").sha256
    if spec.kind == "vanilla":
        if overrides:
            raise ConfigError(f"vanilla has no pipeline settings to change ({sorted(overrides)})")
        prompt = VanillaPrompt.load()
        demos: list[dict] = []
        if shots > 0:
            path = Path(demos_path) if demos_path else (default_demos_path(data_path, dataset) if data_path and dataset else None)
            if path is None or not path.is_file():
                raise InputError(f"vanilla needs a demos file ({path or 'none found'}); pass --demos FILE or --shots 0")
            demos = pick_demos(load_demos(path), shots)
            stamp["demos"] = str(path.name)
        method = Vanilla(pipe.llm, prompt=prompt, demos=demos, citation_grammar=pipe.settings.citation_grammar,
                         inline_citations=pipe.settings.inline_citations)
        stamp.update({"checker": None, "checker_ep": None, "threshold": None, "prompts": prompt.tag,
                      "citation_grammar": pipe.settings.citation_grammar, "shots": len(demos),
                      "inline_citations": pipe.settings.inline_citations,
                      "demo_questions": [d["question"] for d in demos]})
    else:
        checker = make_checker(spec.checker, pipe.llm, pipe.checker, batch=checker_batch)
        run_name = f"{name}{checker_batch}" if spec.checker == "llm-batch" else name
        pipe = with_checker(pipe, checker)
        if overrides:
            pipe = pipe.with_settings(S.validate(replace(pipe.settings, **overrides), "vericite run"))
            stamp["overrides"] = dict(overrides)
        run_name = label or run_name
        method = VeriCiteMethod(pipe, name=run_name)
        stamp["method"] = run_name
        stamp.update({"method": run_name, "checker": checker.name, "checker_ep": getattr(checker, "ep", None),
                      "threshold": pipe.settings.threshold, "prompts": pipe.prompts.tag,
                      "citation_grammar": pipe.settings.citation_grammar, "shots": 0,
                      "gate": pipe.settings.gate, "gate_threshold": pipe.settings.gate_threshold})
        if spec.checker not in ("nli", "none"):
            stamp["checker_prompts"] = checker.prompts.tag
    method.stamp = stamp
    return method
