"""``VeriCite.load(llm=..., nli=...)`` from models.toml names: the tiny GGUF and the real
small checker, named in a registry of their own.

The same subject in other tiers: tests/unit/test_api.py.
"""
from __future__ import annotations

from vericite.engine.config.registry import Registry

from tests.conftest import REPO, TINY_GGUF


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
