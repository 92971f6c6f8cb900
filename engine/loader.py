"""Build a ready VeriCite pipeline from models.toml names: loads the models and resolves the
settings (declared in :mod:`~vericite.engine.settings`) from the models' profiles and overrides."""
from __future__ import annotations

import logging
import os
from typing import NoReturn

from . import settings as S
from .batching import DynamicBatcher
from .checkers import load_checker
from .errors import ConfigError, ModelFileError
from .llm import LlamaCppLLM
from .models import Registry, fix_hint, verify
from .nli_cache import ScoreCache
from .pipeline import VeriCite
from .prompts import PromptSet

log = logging.getLogger(__name__)


def default_nli_threads() -> int:
    """ONNX Runtime threads for the NLI checker when it shares the CPU with the LLM: a quarter of
    the cores, at least 1 (the LLM is the bottleneck; see ``vericite bench latency --nli-threads``)."""
    return max(1, (os.cpu_count() or 1) // 4)


def default_llm_threads(nli_threads: int) -> int:
    """llama.cpp threads beside ``nli_threads`` ONNX Runtime threads: the cores left, at least 1, so the
    two never ask for more threads than there are cores. On 2 cores, 1 + 1 answered 3 HotpotQA items
    5-18% faster than 2 + 1, with identical answers (README, "Threads")."""
    return max(1, (os.cpu_count() or 1) - nli_threads)


def build_pipeline(*, llm: str | None = None, nli: str | None = None, models_toml: str | None = None,
                   prompts: str | None = None, n_ctx: int | None = None, threads: int | None = None,
                   gpu_layers: int = 0, nli_threads: int | None = None, nli_cache: str | None = None,
                   reuse_prefix: bool = True, chat_format: str | None = None, lazy_grammar: bool = True,
                   draft_tokens: int = 0, overrides_origin: str = "argument", **overrides) -> VeriCite:
    """Load the LLM and the checker named in models.toml (defaults when None) into a pipeline.

    The LLM entry's ``format`` picks the backend: "gguf" runs llama.cpp in this process
    (:class:`~vericite.engine.llm.LlamaCppLLM`), "openai" talks to a server
    (:class:`~vericite.engine.openai_llm.OpenAICompatLLM`; ``threads``, ``gpu_layers`` are then the
    server's business).

    The checker sits behind a :class:`~vericite.engine.batching.DynamicBatcher` with a
    premise-hypothesis :class:`~vericite.engine.nli_cache.ScoreCache` (in memory, plus the sqlite
    file ``nli_cache`` when given). ``threads`` / ``nli_threads``: CPU threads of llama.cpp (default
    :func:`default_llm_threads`: the cores the checker leaves) and of ONNX Runtime (default
    :func:`default_nli_threads`). ``reuse_prefix``: keep
    the LLM's KV cache between calls. ``chat_format``: a llama-cpp-python chat format for a GGUF
    without a chat template (default: the LLM entry's ``chat_format``, else the GGUF's template).
    ``lazy_grammar`` / ``draft_tokens``: the llama.cpp backend's latency levers (see
    :class:`~vericite.engine.llm.LlamaCppLLM`: check only the greedy token against a grammar;
    prompt-lookup drafts of up to N tokens, 0 = off); a server backend samples on its own, so
    ``lazy_grammar`` does not apply there and ``draft_tokens > 0`` is an error. ``overrides`` replace :class:`~vericite.engine.settings.Settings`
    fields whose value is not None (e.g. threshold=0.7, schedule="sequential"); ``overrides_origin``
    "flag" makes a bad value's error name its command-line flag. ``prompts`` is the ``prompts``
    setting (kept as a named argument for callers).

    Raises:
        ConfigError: unknown model name, bad profile or prompt set.
        ModelFileError: a model file is missing or corrupt (the message names the fix).
    """
    reg = Registry.load(models_toml)
    llm_spec, nli_spec = reg.get(llm, "llm"), reg.get(nli, "nli")
    settings = S.resolve((llm_spec.profile, llm_spec.name), (nli_spec.profile, nli_spec.name),
                         overrides={"prompts": prompts, **overrides}, overrides_origin=overrides_origin)
    prompt_set = PromptSet.load(settings.prompts)  # fail before loading models
    nli_threads = nli_threads or default_nli_threads()
    try:
        model = load_checker(nli_spec, intra_op_threads=nli_threads)
    except ModelFileError as e:
        _raise_with_hint(e, nli_spec)
    log.info("loading %s", llm_spec.name)
    checker = DynamicBatcher(model, cache=ScoreCache(model.cache_id, path=nli_cache))
    try:
        lm = _load_llm(llm_spec, n_ctx=n_ctx, threads=threads or default_llm_threads(nli_threads),
                       gpu_layers=gpu_layers, reuse_prefix=reuse_prefix, chat_format=chat_format,
                       lazy_grammar=lazy_grammar, draft_tokens=draft_tokens)
    except ModelFileError as e:
        checker.close()
        _raise_with_hint(e, llm_spec)
    except BaseException:
        checker.close()
        raise
    lm.name, lm.sha256 = llm_spec.name, llm_spec.sha256 or None
    checker.sha256 = nli_spec.sha256
    return VeriCite(lm, checker, prompts=prompt_set, settings=settings)


def _load_llm(spec, *, n_ctx: int | None, threads: int, gpu_layers: int, reuse_prefix: bool,
              chat_format: str | None, lazy_grammar: bool = True, draft_tokens: int = 0):
    """The LLM backend of the spec's format: "gguf" runs in llama.cpp here (:class:`LlamaCppLLM`),
    "openai" talks to a server (:class:`~vericite.engine.openai_llm.OpenAICompatLLM`; its
    ``tokenizer_gguf`` is verified like a model file)."""
    if spec.format == "openai":
        from .openai_llm import from_spec

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
    return LlamaCppLLM(verify(spec), n_ctx=n_ctx or spec.context, n_threads=threads, n_gpu_layers=gpu_layers,
                       reuse_prefix=reuse_prefix, chat_format=chat_format or spec.chat_format,
                       lazy_grammar=lazy_grammar, draft_tokens=draft_tokens)


def _raise_with_hint(e: ModelFileError, spec) -> NoReturn:
    """Re-raise ``e``, naming the fix if it does not already (load failures after a good hash)."""
    hint = fix_hint(spec)
    if hint in str(e):
        raise e
    raise ModelFileError(f"{e}; {hint}") from e
