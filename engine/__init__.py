"""VeriCite run time: question -> stage 1 (answer) -> stage 2 (evidence) -> stage 3 (refine) -> answer.

Public entry point: :class:`vericite.engine.pipeline.VeriCite`.
"""
from .errors import ConfigError, InferenceError, InputError, ModelFileError, VeriCiteError
from .records import Document, LLMCall, Statement, StageTrace, VerifiedAnswer

__all__ = [
    "ConfigError", "InferenceError", "InputError", "ModelFileError", "VeriCiteError",
    "Document", "LLMCall", "Statement", "StageTrace", "VerifiedAnswer",
]
