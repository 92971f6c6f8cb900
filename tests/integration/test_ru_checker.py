"""The Russian-reading checker carried in git (models/nli-me5-small-ru-mnli-int8; issues 14, 28).

Every fresh clone has it: the file is present, its size and sha256 are models.toml's (what
``verify`` checks before first use) and the manifest's, its tokenizer is the pruned one of its
manifest, and it reads the brief's Russian example (the year and a category).
"""
from __future__ import annotations

import hashlib
import json

import pytest

from vericite.engine.config.registry import Registry, model_path, tokenizer_path

NAME = "nli-me5-small-ru-mnli-int8"


@pytest.fixture(scope="module")
def spec():
    return Registry.load().get(NAME, "nli")


def test_entry_reads_russian_and_english_and_lives_in_the_repo(spec):
    assert spec.source == "path" and not spec.path.startswith("/")
    assert spec.path.startswith(f"models/{NAME}/")
    assert set(spec.setting("checker_languages")) == {"ru", "en"}
    assert spec.input_format == "cross-encoder" and spec.max_length == 128


def test_file_present_and_sha256_matches_models_toml(spec):
    path = model_path(spec)
    assert path.is_file(), f"{path} missing: the Russian checker must be in git"
    assert path.stat().st_size == spec.size
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    assert h.hexdigest() == spec.sha256
    man = json.loads((path.parent / "manifest.json").read_text(encoding="utf-8"))
    assert man["onnx"]["sha256"] == spec.sha256 and man["onnx"]["size_bytes"] == spec.size
    assert spec.size < 50 * 2**20


def test_tokenizer_is_the_pruned_vocabulary(spec):
    tok = json.loads(tokenizer_path(spec).read_text(encoding="utf-8"))
    pruning = json.loads((model_path(spec).parent / "manifest.json").read_text())["source"]["metrics"]["vocab_pruning"]
    assert len(tok["model"]["vocab"]) == pruning["counts"]["kept"] < 250_002
    assert [p for p, _ in tok["model"]["vocab"][:4]] == ["<s>", "<pad>", "</s>", "<unk>"]


def test_reads_the_briefs_russian_example(spec):
    from vericite.engine.nli.load import load_checker

    from tests.conftest import REPO

    checker = load_checker(spec, intra_op_threads=1)
    docs = [d["text"] for d in json.loads((REPO / "examples" / "demo_yandex_market.json").read_text())["docs"]]
    p = checker.scores([(docs[0], "Яндекс Маркет запущен в 2000 году."),
                        (docs[0], "Яндекс Маркет запущен в 2001 году."),
                        (docs[1], "На Маркете представлены электроника и одежда.")])
    assert p[0] >= spec.threshold > p[1]
    assert p[2] >= spec.threshold
