"""The Python entry point: ``from vericite import VeriCite``, ``VeriCite.load(llm=..., nli=...)`` and
``answer(question, documents)`` with plain strings or ``{title, text}`` dicts."""
from __future__ import annotations

import pytest

from vericite.engine import records as R
from vericite.engine.errors import InputError
from vericite.engine.models import Registry
from vericite.engine.records import Document

from .conftest import REPO, TINY_GGUF
from .fakes import ScriptedLLM, WordChecker


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


def test_load_builds_from_models_toml_names(tmp_path):
    """The tiny GGUF and the real small checker, named in a registry of their own."""
    from vericite import VeriCite

    nli = Registry.load().get(None, "nli")
    sha = (TINY_GGUF.parent / "tiny-qwen2.gguf.sha256").read_text().split()[0]
    toml = tmp_path / "models.toml"
    toml.write_text(
        '[defaults]\nllm = "tiny"\nnli = "mini"\n'
        f'[models.tiny]\nrole = "llm"\nformat = "gguf"\nsource = "path"\npath = "{TINY_GGUF}"\nsha256 = "{sha}"\n'
        'context = 1024\nchat_format = "chatml"\n'
        f'[models.mini]\nrole = "nli"\nformat = "onnx"\nsource = "path"\npath = "{REPO / nli.path}"\n'
        f'tokenizer = "{REPO / nli.tokenizer}"\nsha256 = "{nli.sha256}"\ninput_format = "cross-encoder"\n'
        'max_length = 128\nthreshold = 0.7\n', encoding="utf-8")
    with VeriCite.load(llm="tiny", nli="mini", models_toml=str(toml), threads=1, nli_threads=1) as vc:
        assert isinstance(vc, VeriCite) and vc.settings.threshold == 0.7 and vc.checker.name == "mini"
        res = vc.answer("Who drummed for Rush?", ["Neil Peart was the drummer of Rush."])
        assert res.settings["llm"] == "tiny" and res.settings["nli"] == "mini"
