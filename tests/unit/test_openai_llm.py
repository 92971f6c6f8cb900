"""The remote backend (engine/llm/openai_compat.py) without a server or a GGUF: the P(Yes)
rule and the commented models.toml example.

The same subject in other tiers: tests/integration/test_openai_llm.py, tests/external/test_openai_llm.py.
"""
from __future__ import annotations

import math

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("tenacity")

from vericite.engine.config import registry as M  # noqa: E402
from vericite.engine.llm.server_replies import p_yes_from_top  # noqa: E402

from tests.conftest import REPO  # noqa: E402


def test_p_yes_rule():
    p, how = p_yes_from_top({1: -0.5, 2: -1.5, 3: -3.0}, 1, 2)
    assert how == "both" and p == pytest.approx(1 / (1 + math.exp(-1.0)))
    p, how = p_yes_from_top({7: -0.1, 2: -1.0, 3: -4.0}, 1, 2)  # Yes missing: at most the floor -4.0
    assert how == "no-yes" and p == pytest.approx(1 / (1 + math.e ** 3.0)) and p < 0.5
    p, how = p_yes_from_top({1: -1.0, 7: -0.1, 3: -4.0}, 1, 2)  # No missing
    assert how == "no-no" and p == pytest.approx(1 / (1 + math.e ** -3.0)) and p > 0.5
    assert p_yes_from_top({7: -0.1}, 1, 2) == (0.5, "neither")
    assert p_yes_from_top({1: 0.0, 2: -1e6}, 1, 2)[0] == 1.0 and p_yes_from_top({1: -1e6, 2: 0.0}, 1, 2)[0] == 0.0


# -- models.toml ------------------------------------------------------------------------------------
def _toml(tmp_path, body):
    p = tmp_path / "models.toml"
    p.write_text(body)
    return p


def test_the_commented_models_toml_example_parses(tmp_path):
    text = (REPO / "models.toml").read_text()
    block = text[text.index('# [models."qwen2.5-coder-0.5b-server"]'):]
    entry = "\n".join(line[2:] for line in block.splitlines() if line.startswith("# ") and not line.startswith("# #"))
    reg = M.Registry.load(_toml(tmp_path, text + "\n" + entry + "\n"))
    spec = reg.named("qwen2.5-coder-0.5b-server")
    assert spec.format == "openai" and spec.tokenizer_spec is reg.named("qwen2.5-coder-0.5b-instruct-q4km")
    assert spec.setting("gate") == "scored" and M.fix_hint(spec).endswith("qwen2.5-coder-0.5b-instruct-q4km")
