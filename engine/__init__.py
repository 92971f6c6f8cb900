"""VeriCite run time: question -> stage 1 (answer) -> stage 2 (evidence) -> stage 3 (refine) -> answer.

Public entry points: :class:`VeriCite` (``from vericite import VeriCite``; ``VeriCite.load(llm=..., nli=...)``)
and :func:`build_pipeline`; the method itself is :meth:`vericite.engine.pipeline.VeriCite.answer`.
"""
from .errors import (
    ConfigError,
    InferenceError,
    InputError,
    ModelFileError,
    VeriCiteError,
)
from .records import Document, LLMCall, StageTrace, Statement, VerifiedAnswer

__all__ = [
    "ConfigError", "InferenceError", "InputError", "ModelFileError", "VeriCiteError",
    "Document", "LLMCall", "Statement", "StageTrace", "VerifiedAnswer", "VeriCite", "build_pipeline",
]


def __getattr__(name: str):
    # loaded on first use: importing the light modules (records, settings) must not load llama.cpp
    if name == "VeriCite":
        from .api import VeriCite
        return VeriCite
    if name == "build_pipeline":
        from .loader import build_pipeline
        return build_pipeline
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
