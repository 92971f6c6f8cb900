"""The Python entry point: ``from vericite import VeriCite``, ``VeriCite.load(llm=..., nli=...)`` and
``answer(question, documents)`` with plain strings or ``{title, text}`` dicts.

The same subject in other tiers: tests/integration/test_api.py.
"""
from __future__ import annotations

import pytest

from vericite.engine import records as R
from vericite.engine.errors import InputError
from vericite.engine.records import Document

from tests.fakes import ScriptedLLM, WordChecker


def test_answer_takes_strings_dicts_and_documents():
    from vericite import VeriCite

    replies = {"answer": "Neil Peart was the drummer of Rush [1].", "gate": "No",
               "refine": "Neil Peart was the drummer of Rush [1]."}
    with VeriCite(ScriptedLLM(replies), WordChecker()) as vc:
        res = vc.answer("Who drummed for Rush?", ["Neil Peart was the drummer of the rock band Rush.",
                                                  {"title": "Counterparts", "text": "Counterparts is a song by Rush."},
                                                  Document("Keith Moon", "Keith Moon was the drummer of The Who.")])
        assert res.documents[0] == Document("", "Neil Peart was the drummer of the rock band Rush.")
        assert res.documents[1].title == "Counterparts"
        assert [s.verdict for s in res.final] == [R.SUPPORTED] and res.answer == "Neil Peart was the drummer of Rush [1]."
        with pytest.raises(InputError, match="must be a list"):
            vc.answer("Who?", "one string, not a list")
        with pytest.raises(InputError, match="document 2"):
            vc.answer("Who?", ["fine", 42])
        assert type(vc.with_settings(threshold=0.6)) is VeriCite  # derived pipelines keep the class
