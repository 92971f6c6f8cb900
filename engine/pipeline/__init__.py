"""The VeriCite pipeline: :class:`VeriCite` (:mod:`.method`) runs :mod:`.prepare` -> :mod:`.stage1`
-> :mod:`.stage2` -> :mod:`.stage3` over one question in flight (:mod:`.context`)."""
from __future__ import annotations

from ..config.settings import Settings
from ..verifier import Checker
from .context import LLM, DocumentEvidence, Hooks, Question, Stage
from .method import VeriCite
from .prepare import check_input
from .stage2 import MAX_PAIRS, linked_pairs, names

__all__ = ["LLM", "MAX_PAIRS", "Checker", "DocumentEvidence", "Hooks", "Question", "Settings", "Stage", "VeriCite",
           "check_input", "linked_pairs", "names"]
