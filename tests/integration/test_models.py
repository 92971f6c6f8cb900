"""build_pipeline's language routes on the real carried checker files (the LLM is a fake).

The same subject in other tiers: tests/unit/test_models.py.
"""
from vericite.engine.config import registry as M
from tests.unit.test_models import _toml


def test_build_pipeline_routes_languages_the_default_checker_does_not_read(tmp_path, monkeypatch, caplog):
    """The real MiniLM files under two names (one declared to read Russian); the LLM is a fake."""
    from vericite.engine import loader
    from vericite.engine.pipeline import VeriCite

    from tests.conftest import REPO
    from tests.fakes import ScriptedLLM

    real = M.Registry.load().get(None, "nli")
    entry = ('[models."{0}"]\nrole = "nli"\nformat = "onnx"\nsource = "path"\npath = "{1}"\ntokenizer = "{2}"\n'
             'sha256 = "{3}"\ninput_format = "cross-encoder"\nmax_length = 128\nthreshold = {4}\nlanguages = {5}\n')
    model, tok = REPO / real.path, REPO / real.tokenizer
    body = ('[defaults]\nllm = "llm"\nnli = "en"\n[models.llm]\nrole = "llm"\nformat = "gguf"\nsource = "path"\n'
            'path = "x.gguf"\nsha256 = "' + "0" * 64 + '"\n'
            + entry.format("en", model, tok, real.sha256, 0.7, '["en"]')
            + entry.format("multi", model, tok, real.sha256, 0.55, '["ru", "en"]')
            + entry.format("missing", tmp_path / "none.onnx", tok, "0" * 64, 0.5, '["de"]')
            + '[nli_by_language]\nru = "multi"\nde = "missing"\nen = "multi"\n')
    monkeypatch.setattr(loader, "_load_llm", lambda spec, **kw: ScriptedLLM({}))
    pipe = loader.build_pipeline(models_toml=str(_toml(tmp_path, body)), nli_threads=1)
    try:
        assert isinstance(pipe, VeriCite) and set(pipe.routes) == {"ru"} and pipe.routes["ru"].checker is not pipe.checker
        assert pipe.settings.threshold == 0.7 and pipe.routes["ru"].settings.threshold == 0.55
        assert pipe.routes["ru"].llm is pipe.llm
        assert "'de' questions fall back" in caplog.text and "none.onnx" in caplog.text
    finally:
        pipe.close()
    pinned = loader.build_pipeline(models_toml=str(_toml(tmp_path, body)), nli="en", nli_threads=1)
    pinned.close()
    assert pinned.routes == {}
