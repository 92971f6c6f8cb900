"""``format = "triton"`` checker entries and the batch buckets, without a server or a model.

The same subject in other tiers: tests/integration/test_triton.py, tests/lab/test_triton.py, tests/external/test_triton.py.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from vericite.engine.errors import ConfigError, ModelFileError
from vericite.engine.config.registry import Registry
from vericite.engine.nli.onnx_scorer import bucket_width


def _toml(tmp_path, body: str):
    p = tmp_path / "models.toml"
    p.write_text(body)
    return p


TOKENIZER = "models/nli-minilm-l6-bin-int8/tokenizer.json"


def _entry(url="http://127.0.0.1:9", model="m", extra=""):
    return (f'[models.t]\nrole = "nli"\nformat = "triton"\nurl = "{url}"\nmodel_name = "{model}"\n'
            f'tokenizer = "{TOKENIZER}"\nmax_length = 320\n' + extra)


# -- fast: no server ------------------------------------------------------------------------

def test_bucket_width_rounds_up_to_the_smallest_bucket_that_holds_the_batch():
    assert bucket_width(17, (16, 32, 64)) == 32
    assert bucket_width(32, (16, 32, 64)) == 32
    assert bucket_width(70, (16, 32, 64)) == 70  # wider than all: its own width
    assert bucket_width(9, ()) == 9


def test_triton_entries_parse_and_bad_ones_name_the_key(tmp_path):
    reg = Registry.load(_toml(tmp_path, _entry(extra='threshold = 0.7\nlanguages = ["en"]\nsentence_window = 1\n')))
    s = reg.named("t")
    assert (s.format, s.source, s.input_format, s.url, s.model_name, s.model_version) == (
        "triton", "server", "cross-encoder", "http://127.0.0.1:9", "m", "")
    assert s.threshold == 0.7 and s.sentence_window == 1 and s.timeout == 60.0
    with pytest.raises(ConfigError, match="needs 'url'"):
        Registry.load(_toml(tmp_path, _entry().replace('url = "http://127.0.0.1:9"\n', "")))
    with pytest.raises(ConfigError, match="must start with http"):
        Registry.load(_toml(tmp_path, _entry(url="127.0.0.1:8000")))
    with pytest.raises(ConfigError, match="is for role = 'nli'"):
        Registry.load(_toml(tmp_path, _entry().replace('role = "nli"', 'role = "llm"').replace("max_length = 320\n", "")))
    with pytest.raises(ConfigError, match="belong to format = 'triton'"):
        Registry.load(_toml(tmp_path, '[models.o]\nrole = "nli"\nformat = "onnx"\nsource = "path"\npath = "x"\n'
                                      f'sha256 = "{"0" * 64}"\ninput_format = "cross-encoder"\nurl = "http://x:1"\n'))
    with pytest.raises(ConfigError, match="belong to format = 'openai'"):
        Registry.load(_toml(tmp_path, _entry(extra='base_url = "http://x:1"\n')))


def test_a_triton_entry_without_a_server_fails_at_load_naming_the_url(tmp_path):
    pytest.importorskip("tritonclient.http")
    from vericite.engine.nli.load import load_checker
    from vericite.export.triton_server import free_port

    url = f"http://127.0.0.1:{free_port()}"
    spec = Registry.load(_toml(tmp_path, _entry(url=url, extra="number_guard = true\n"))).named("t")
    with pytest.raises(ModelFileError, match=rf"Triton at {url} is not reachable"):
        load_checker(spec)
    missing = replace(spec, tokenizer=str(tmp_path / "none.json"))
    with pytest.raises(ModelFileError, match="tokenizer .*none.json is missing"):
        load_checker(missing)


def test_the_commented_models_toml_example_parses(tmp_path):
    from tests.conftest import REPO

    text = (REPO / "models.toml").read_text()
    block = text[text.index('# [models."nli-minilm-l6-bin-int8-triton"]'):].split("\n\n")[0]
    entry = "\n".join(line[2:] for line in block.splitlines() if line.startswith("# ") and not line.startswith("# #"))
    spec = Registry.load(_toml(tmp_path, text + "\n" + entry + "\n")).named("nli-minilm-l6-bin-int8-triton")
    default = Registry.load().named("nli-minilm-l6-bin-int8")  # the checker the example serves
    assert (spec.format, spec.url, spec.model_name, spec.sha256) == (
        "triton", "http://127.0.0.1:8000", default.name, default.sha256)
    assert (spec.threshold, spec.premise_window, spec.sentence_window, spec.number_guard, spec.max_length) == (
        default.threshold, default.premise_window, default.sentence_window, default.number_guard, default.max_length)
