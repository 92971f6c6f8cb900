"""Build a ready VeriCite pipeline from models.toml names: the one place that turns model
profiles (prompt set, grammars, gate, thresholds) into :class:`~vericite.engine.pipeline.Settings`."""
from __future__ import annotations

import logging
import os
from dataclasses import replace
from typing import NoReturn

from .batching import DynamicBatcher
from .llm import LlamaCppLLM
from .nli_cache import ScoreCache
from .errors import ModelFileError
from .models import Registry, fix_hint, verify
from .nli import load_checker
from .pipeline import Settings, VeriCite
from .prompts import PromptSet

log = logging.getLogger(__name__)


def default_nli_threads() -> int:
    """ONNX Runtime threads for the NLI checker when it shares the CPU with the LLM: a quarter of
    the cores, at least 1 (the LLM is the bottleneck; see ``vericite bench latency --nli-threads``)."""
    return max(1, (os.cpu_count() or 1) // 4)


def build_pipeline(*, llm: str | None = None, nli: str | None = None, models_toml: str | None = None,
                   prompts: str | None = None, n_ctx: int | None = None, threads: int | None = None,
                   gpu_layers: int = 0, nli_threads: int | None = None, nli_cache: str | None = None,
                   reuse_prefix: bool = True, **overrides) -> VeriCite:
    """Load the LLM and the checker named in models.toml (defaults when None) into a pipeline.

    The checker sits behind a :class:`~vericite.engine.batching.DynamicBatcher` with a
    premise-hypothesis :class:`~vericite.engine.nli_cache.ScoreCache` (in memory, plus the sqlite
    file ``nli_cache`` when given). ``threads`` / ``nli_threads``: CPU threads of llama.cpp (default
    all cores) and of ONNX Runtime (default :func:`default_nli_threads`). ``reuse_prefix``: keep
    the LLM's KV cache between calls. ``overrides`` replace :class:`Settings` fields whose value is
    not None (e.g. threshold=0.7, schedule="sequential").

    Raises:
        ConfigError: unknown model name, bad profile or prompt set.
        ModelFileError: a model file is missing or corrupt (the message names the fix).
    """
    reg = Registry.load(models_toml)
    llm_spec, nli_spec = reg.get(llm, "llm"), reg.get(nli, "nli")
    settings = Settings(threshold=nli_spec.threshold, citation_grammar=llm_spec.citation_grammar,
                        gate=llm_spec.gate, gate_threshold=llm_spec.gate_threshold,
                        prompt_format=llm_spec.prompt_format, doc_tokens=llm_spec.doc_tokens,
                        checker_languages=nli_spec.languages, grade_bands=nli_spec.grade_bands)
    settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
    prompt_set = PromptSet.load(prompts or llm_spec.prompts)
    VeriCite.check_settings(settings)  # fail before loading models
    try:
        model = load_checker(nli_spec, intra_op_threads=nli_threads or default_nli_threads())
    except ModelFileError as e:
        _raise_with_hint(e, nli_spec)
    log.info("loading %s", llm_spec.name)
    checker = DynamicBatcher(model, cache=ScoreCache(model.cache_id, path=nli_cache))
    try:
        lm = LlamaCppLLM(verify(llm_spec), n_ctx=n_ctx or llm_spec.context, n_threads=threads,
                         n_gpu_layers=gpu_layers, reuse_prefix=reuse_prefix)
    except ModelFileError as e:
        checker.close()
        _raise_with_hint(e, llm_spec)
    lm.name = llm_spec.name
    return VeriCite(lm, checker, prompts=prompt_set, settings=settings)


def _raise_with_hint(e: ModelFileError, spec) -> NoReturn:
    """Re-raise ``e``, naming the fix if it does not already (load failures after a good hash)."""
    hint = fix_hint(spec)
    if hint in str(e):
        raise e
    raise ModelFileError(f"{e}; {hint}") from e
