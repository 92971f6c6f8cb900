"""The entry point people expect: ``from vericite import VeriCite``.

    vc = VeriCite.load()                                   # models.toml's defaults
    vc = VeriCite.load(llm="qwen2.5-coder-0.5b-instruct-q4km", nli="nli-minilm-l6-bin-int8")
    with vc:
        result = vc.answer("When was Rush formed?", ["Rush is a Canadian rock band formed in 1968."])
    print(result.answer, result.final)
"""
from __future__ import annotations

from .loader import build_pipeline
from .pipeline import VeriCite as _Pipeline


class VeriCite(_Pipeline):
    """:class:`vericite.engine.pipeline.VeriCite` with :meth:`load`: the pipeline from model names."""

    @classmethod
    def load(cls, llm: str | None = None, nli: str | None = None, *, models_toml: str | None = None,
             **options) -> VeriCite:
        """Load the LLM and checker named in models.toml (None: its ``[defaults]``; a question in
        a language the checker does not read goes to ``[nli_by_language]``'s checker unless
        ``nli`` names one).

        Args:
            llm: an LLM entry of models.toml, e.g. "qwen2.5-coder-1.5b-instruct-q4km".
            nli: an NLI entry, e.g. "nli-minilm-l6-bin-int8".
            models_toml: another registry file (default: the repository's models.toml).
            options: :func:`~vericite.engine.loader.build_pipeline`'s options (threads, n_ctx,
                nli_cache, ...) and settings (threshold=0.7, strictness="lenient", ...).

        Raises:
            ConfigError: unknown model name, bad setting or prompt set.
            ModelFileError: a model file is missing or corrupt (the message names the command
                that fetches it: ``vericite models fetch NAME``).
        """
        pipe = build_pipeline(llm=llm, nli=nli, models_toml=models_toml, **options)
        return cls(pipe.llm, pipe.checker, prompts=pipe.prompts, settings=pipe.settings, routes=pipe.routes)


__all__ = ["VeriCite"]
