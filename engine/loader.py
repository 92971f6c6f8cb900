"""Build a ready VeriCite pipeline from models.toml names: the one place that turns model
profiles (prompt set, grammars, gate, thresholds) into :class:`~vericite.engine.pipeline.Settings`."""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import NoReturn

from .llm import LlamaCppLLM
from .errors import ModelFileError
from .models import Registry, fix_hint, verify
from .nli import load_checker
from .pipeline import Settings, VeriCite
from .prompts import PromptSet

log = logging.getLogger(__name__)


def build_pipeline(*, llm: str | None = None, nli: str | None = None, models_toml: str | None = None,
                   prompts: str | None = None, n_ctx: int | None = None, threads: int | None = None,
                   gpu_layers: int = 0, **overrides) -> VeriCite:
    """Load the LLM and the checker named in models.toml (defaults when None) into a pipeline.

    ``overrides`` replace :class:`Settings` fields whose value is not None (e.g. threshold=0.7).

    Raises:
        ConfigError: unknown model name, bad profile or prompt set.
        ModelFileError: a model file is missing or corrupt (the message names the fix).
    """
    reg = Registry.load(models_toml)
    llm_spec, nli_spec = reg.get(llm, "llm"), reg.get(nli, "nli")
    settings = Settings(threshold=nli_spec.threshold, citation_grammar=llm_spec.citation_grammar,
                        gate=llm_spec.gate, gate_threshold=llm_spec.gate_threshold,
                        checker_languages=nli_spec.languages)
    settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
    prompt_set = PromptSet.load(prompts or llm_spec.prompts)
    VeriCite.check_settings(settings)  # fail before loading models
    try:
        checker = load_checker(nli_spec)
    except ModelFileError as e:
        _raise_with_hint(e, nli_spec)
    log.info("loading %s", llm_spec.name)
    try:
        model = LlamaCppLLM(verify(llm_spec), n_ctx=n_ctx or llm_spec.context, n_threads=threads,
                            n_gpu_layers=gpu_layers)
    except ModelFileError as e:
        _raise_with_hint(e, llm_spec)
    model.name = llm_spec.name
    return VeriCite(model, checker, prompts=prompt_set, settings=settings)


def _raise_with_hint(e: ModelFileError, spec) -> NoReturn:
    """Re-raise ``e``, naming the fix if it does not already (load failures after a good hash)."""
    hint = fix_hint(spec)
    if hint in str(e):
        raise e
    raise ModelFileError(f"{e}; {hint}") from e
