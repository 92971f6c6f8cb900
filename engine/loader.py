"""Build a ready VeriCite pipeline from models.toml names: loads the models and resolves the
settings (declared in :mod:`~vericite.engine.config.settings`) from the models' profiles and overrides."""
from __future__ import annotations

import argparse
import logging
import os
from typing import NoReturn

from .config import settings as S
from .config.registry import Registry, fix_hint, verify
from .errors import ConfigError, InferenceError, ModelFileError
from .llm.llama_cpp import LlamaCppLLM
from .nli.batching import DynamicBatcher
from .nli.cache import ScoreCache
from .nli.load import load_checker
from .nli.onnx_scorer import NLI_EP_ENV
from .pipeline import VeriCite
from .prompts import PromptSet

log = logging.getLogger(__name__)

#: ``nli`` value (and the default) that routes questions by language: models.toml's default checker,
#: and for a language it does not read, the checker [nli_by_language] names for it
AUTO = "auto"


def default_nli_threads() -> int:
    """ONNX Runtime threads for the NLI checker when it shares the CPU with the LLM: a quarter of
    the cores, at least 1 (the LLM is the bottleneck; see ``vericite bench latency --nli-threads``)."""
    return max(1, (os.cpu_count() or 1) // 4)


def default_llm_threads(nli_threads: int) -> int:
    """llama.cpp threads beside ``nli_threads`` ONNX Runtime threads: the cores left, at least 1, so the
    two never ask for more threads than there are cores. On 2 cores, 1 + 1 answered 3 HotpotQA items
    5-18% faster than 2 + 1, with identical answers (docs/architecture.md, "Threads")."""
    return max(1, (os.cpu_count() or 1) - nli_threads)


def build_pipeline(*, llm: str | None = None, nli: str | None = None, models_toml: str | None = None,
                   prompts: str | None = None, n_ctx: int | None = None, threads: int | None = None,
                   gpu_layers: int = 0, nli_threads: int | None = None, nli_cache: str | None = None,
                   reuse_prefix: bool = True, chat_format: str | None = None, lazy_grammar: bool = True,
                   draft_tokens: int = 0, load_llm: bool = True, overrides_origin: str = "argument",
                   **overrides) -> VeriCite:
    """Load the LLM and the checker named in models.toml (defaults when None) into a pipeline.

    ``nli`` None or "auto" also routes by language: for each language in models.toml's
    ``[nli_by_language]`` that the default checker does not read, that table's checker is loaded
    too, and a question in that language is checked by it (:meth:`VeriCite.route`; its own
    threshold, bands and guard; the same LLM). A named ``nli`` checks every question. A routed
    checker whose file is missing or corrupt is logged and skipped (its questions get the default
    checker's language warning).

    The LLM entry's ``format`` picks the backend: "gguf" runs llama.cpp in this process
    (:class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM`), "openai" talks to a server
    (:class:`~vericite.engine.llm.openai_compat.OpenAICompatLLM`; ``threads``, ``gpu_layers`` are then the
    server's business).

    The checker sits behind a :class:`~vericite.engine.nli.batching.DynamicBatcher` with a
    premise-hypothesis :class:`~vericite.engine.nli.cache.ScoreCache` (in memory, plus the sqlite
    file ``nli_cache`` when given). ``threads`` / ``nli_threads``: CPU threads of llama.cpp (default
    :func:`default_llm_threads`: the cores the checker leaves) and of ONNX Runtime (default
    :func:`default_nli_threads`). ``reuse_prefix``: keep
    the LLM's KV cache between calls. ``chat_format``: a llama-cpp-python chat format for a GGUF
    without a chat template (default: the LLM entry's ``chat_format``, else the GGUF's template).
    ``lazy_grammar`` / ``draft_tokens``: the llama.cpp backend's latency levers (see
    :class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM`: check only the greedy token against a grammar;
    prompt-lookup drafts of up to N tokens, 0 = off); a server backend samples on its own, so
    ``lazy_grammar`` does not apply there and ``draft_tokens > 0`` is an error. ``overrides`` replace
    :class:`~vericite.engine.config.settings.Settings`
    fields whose value is not None (e.g. threshold=0.7, schedule="sequential"); ``overrides_origin``
    "flag" makes a bad value's error name its command-line flag. ``prompts`` is the ``prompts``
    setting (kept as a named argument for callers). ``load_llm=False`` loads no LLM: a
    :class:`NoLLM` stands in (the LLM entry's profile still applies), for work that only checks.

    Raises:
        ConfigError: unknown model name, bad profile or prompt set.
        ModelFileError: a model file is missing or corrupt (the message names the fix).
    """
    reg = Registry.load(models_toml)
    pinned = nli not in (None, AUTO)
    llm_spec, nli_spec = reg.get(llm, "llm"), reg.get(None if nli == AUTO else nli, "nli")
    routes = {} if pinned else {lang: reg.get(name, "nli") for lang, name in reg.nli_by_language.items()
                                if lang not in nli_spec.setting("checker_languages")}
    resolved = {spec.name: S.resolve((llm_spec.profile, llm_spec.name), (spec.profile, spec.name),
                                     overrides={"prompts": prompts, **overrides}, overrides_origin=overrides_origin)
                for spec in (nli_spec, *routes.values())}
    prompt_set = PromptSet.load(resolved[nli_spec.name].prompts)  # fail before loading models
    nli_threads = nli_threads or default_nli_threads()
    checkers = {nli_spec.name: _load_checker(nli_spec, nli_threads, nli_cache)}

    def close_all() -> None:
        for c in checkers.values():
            c.close()

    try:
        for lang, spec in list(routes.items()):
            if spec.name in checkers:
                continue
            try:
                checkers[spec.name] = _load_checker(spec, nli_threads, nli_cache)
            except ModelFileError as e:  # the default checker still answers, with its language warning
                log.warning("%r questions fall back to %s: %s", lang, nli_spec.name, e)
                routes = {k: v for k, v in routes.items() if v.name != spec.name}
        if load_llm:
            log.info("loading %s", llm_spec.name)
            lm = _load_llm(llm_spec, n_ctx=n_ctx, threads=threads or default_llm_threads(nli_threads),
                           gpu_layers=gpu_layers, reuse_prefix=reuse_prefix, chat_format=chat_format,
                           lazy_grammar=lazy_grammar, draft_tokens=draft_tokens)
        else:
            lm = NoLLM(n_ctx or llm_spec.context)
    except ModelFileError as e:
        close_all()
        _raise_with_hint(e, llm_spec)
    except BaseException:
        close_all()
        raise
    if load_llm:
        lm.name, lm.sha256 = llm_spec.name, llm_spec.sha256 or None

    def pipeline(spec) -> VeriCite:
        return VeriCite(lm, checkers[spec.name], prompts=prompt_set, settings=resolved[spec.name])

    routed = {lang: pipeline(spec) for lang, spec in routes.items()}
    for lang, pipe in routed.items():
        log.info("%r questions are checked by %s", lang, pipe.checker.name)
    return VeriCite(lm, checkers[nli_spec.name], prompts=prompt_set, settings=resolved[nli_spec.name], routes=routed)


def load_llm(name: str | None = None, *, models_toml: str | None = None, threads: int = 1, n_ctx: int | None = None):
    """The LLM named in models.toml (the default when None) alone, without a checker or settings
    (benches that answer some calls live, e.g. ``vericite bench replay --llm``).

    Raises:
        ConfigError: unknown model name or format.
        ModelFileError: the model file is missing or corrupt (the message names the fix).
    """
    spec = Registry.load(models_toml).get(name, "llm")
    try:
        lm = _load_llm(spec, n_ctx=n_ctx, threads=threads, gpu_layers=0, reuse_prefix=True, chat_format=None)
    except ModelFileError as e:
        _raise_with_hint(e, spec)
    lm.name, lm.sha256 = spec.name, spec.sha256 or None
    return lm


def _load_checker(spec, nli_threads: int, nli_cache: str | None) -> DynamicBatcher:
    """The checker of ``spec`` behind a dynamic batcher with its premise-hypothesis cache.

    Raises:
        ModelFileError: the model file is missing or corrupt (the message names the fix).
    """
    try:
        model = load_checker(spec, intra_op_threads=nli_threads)
    except ModelFileError as e:
        _raise_with_hint(e, spec)
    checker = DynamicBatcher(model, cache=ScoreCache(model.cache_id, path=nli_cache))
    checker.sha256 = spec.sha256
    return checker


def _load_llm(spec, *, n_ctx: int | None, threads: int, gpu_layers: int, reuse_prefix: bool,
              chat_format: str | None, lazy_grammar: bool = True, draft_tokens: int = 0):
    """The LLM backend of the spec's format: "gguf" runs in llama.cpp here (:class:`LlamaCppLLM`),
    "openai" talks to a server (:class:`~vericite.engine.llm.openai_compat.OpenAICompatLLM`; its
    ``tokenizer_gguf`` is verified like a model file)."""
    if spec.format == "openai":
        from .llm.openai_compat import from_spec

        try:
            import httpx  # noqa: F401
            import tenacity  # noqa: F401
        except ImportError as e:
            raise ConfigError(f"[models.\"{spec.name}\"] format = 'openai' needs httpx and tenacity: "
                              "pip install -e '.[openai]'") from e
        if chat_format or spec.chat_format:
            raise ConfigError(f"[models.\"{spec.name}\"]: chat_format does not apply to format = 'openai' "
                              "(the chat template is the tokenizer GGUF's)")
        if draft_tokens:
            raise ConfigError(f"[models.\"{spec.name}\"]: draft tokens apply to format = 'gguf' (llama.cpp in this "
                              "process); a server decodes on its own")
        return from_spec(spec, verify(spec), n_ctx=n_ctx, reuse_prefix=reuse_prefix)
    if spec.format != "gguf":
        raise ConfigError(f"model {spec.name!r} has format {spec.format!r}; an LLM is 'gguf' or 'openai'")
    # the pipeline stops a greedy loop at its first repeated line (facts-en-kv's extraction loops often)
    return LlamaCppLLM(verify(spec), n_ctx=n_ctx or spec.context, n_threads=threads, n_gpu_layers=gpu_layers,
                       reuse_prefix=reuse_prefix, chat_format=chat_format or spec.chat_format,
                       lazy_grammar=lazy_grammar, draft_tokens=draft_tokens, stop_repeats=True)


def _raise_with_hint(e: ModelFileError, spec) -> NoReturn:
    """Re-raise ``e``, naming the fix if it does not already (load failures after a good hash)."""
    hint = fix_hint(spec)
    if hint in str(e):
        raise e
    raise ModelFileError(f"{e}; {hint}") from e


class NoLLM:
    """Stands where the pipeline's LLM does when only checks run (``build_pipeline(load_llm=False)``):
    token counts are ~4 characters per token (they only size prompts, never sent); any call raises.

    Raises (chat, yes_probability):
        InferenceError: always (a call means the caller ran more than checks).
    """

    name = "none"
    sha256 = None

    def __init__(self, n_ctx: int = 4096):
        self.n_ctx = n_ctx

    def chat(self, messages, *, max_tokens, purpose, grammar=None):
        raise InferenceError(f"no LLM is loaded (load_llm=False); the pipeline asked it for {purpose!r}")

    def yes_probability(self, messages, *, purpose):
        raise InferenceError(f"no LLM is loaded (load_llm=False); the pipeline asked it for {purpose!r}")

    def count_tokens(self, text: str) -> int:
        return len(text) // 4 + 1

    def truncate(self, text: str, max_tokens: int) -> tuple[str, bool]:
        return (text, False) if self.count_tokens(text) <= max_tokens else (text[: 4 * max_tokens], True)


def pipeline_arguments(args: argparse.Namespace) -> dict:
    """:func:`~vericite.engine.loader.build_pipeline`'s keyword arguments from a command line with
    ``--llm``, ``--nli`` and the settings' options (:func:`~vericite.engine.config.settings.add_arguments`):
    a flag's model before the preset's; ``nli_ep`` goes to the environment, where every ONNX Runtime
    session reads it.

    Raises:
        ConfigError: a bad ``--set``, preset value or flag (named in the message).
    """
    given = S.given(args)
    resources = dict(given.resources)
    nli_ep = resources.pop("nli_ep", None)
    if nli_ep:
        os.environ[NLI_EP_ENV] = nli_ep
    return {"llm": args.llm or given.models.get("llm"), "nli": args.nli or given.models.get("nli"),
            "models_toml": args.models, "overrides_origin": "flag", **resources, **given.settings}
