"""`vericite bench judge`: blinded packets of two methods' outputs and the readers' labels scored."""
from __future__ import annotations

import json

import pytest

from vericite.bench.judge import prepare, score, sentences
from vericite.engine.errors import InputError


def rows(method: str, outputs: list[str]) -> list[dict]:
    docs = [{"title": "Rush", "text": "Rush is a Canadian rock band."}, {"title": "Peart", "text": "Neil Peart drummed."}]
    return [{"id": str(k), "dataset": "hotpotqa", "method": method, "question": f"Question {k}?", "docs": docs,
             "gold": {"answers": ["Rush"]}, "output": out} for k, out in enumerate(outputs)]


def write(path, rs):
    path.write_text("".join(json.dumps(r) + "\n" for r in rs), encoding="utf-8")
    return str(path)


def test_prepare_hides_the_methods_and_score_joins_the_labels_back(tmp_path):
    a = write(tmp_path / "a.jsonl", rows("vanilla", ["Rush [1].", "I do not know.", "Peart drummed [2]."]))
    b = write(tmp_path / "b.jsonl", rows("vericite", ["Rush is the band [1]. Peart drummed [2].", "Rush [1].", ""]))
    summary = prepare(a, b, tmp_path / "j", per_packet=2, seed=1)
    assert summary["items"] == 3 and summary["packets"] == 2
    packets = [json.loads((tmp_path / "j" / f"packet-0{n}.json").read_text()) for n in (1, 2)]
    text = json.dumps(packets)
    assert "vanilla" not in text and "vericite" not in text  # blind
    key = json.loads((tmp_path / "j" / "key.json").read_text())
    labels = []
    for p in packets:
        for item in p:
            for o in item["outputs"]:
                method = key[item["item"]][o["o"]]["method"]
                labels.append({"item": item["item"], "o": o["o"],
                               "correct": "correct" if method == "vericite" and o["text"] else "wrong",
                               "sentences": ["supported"] * len(o["sentences"])})
    (tmp_path / "j" / "labels-1.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels), encoding="utf-8")
    res = score(tmp_path / "j")
    assert res["vericite"]["all"]["correct"] == round(2 / 3, 3) and res["vanilla"]["all"]["correct"] == 0.0
    assert res["vericite"]["all"]["supported_sentences"] == 1.0 and res["vericite"]["all"]["labelled"] == 3
    assert res["vanilla"]["hotpotqa"]["gold_in_output"] == round(1 / 3, 3)  # the string metric beside
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"item": "i001", "o": "X", "correct": "maybe"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="'correct' must be one of"):
        score(tmp_path / "j", [str(bad)])


def test_one_method_per_side_and_sentences_keep_their_citations(tmp_path):
    a = write(tmp_path / "a.jsonl", rows("m", ["x"]) + rows("n", ["y"]))
    with pytest.raises(InputError, match="--a-method"):
        prepare(a, a, tmp_path / "j")
    assert sentences("Rush is a band [1][2]. According to Document [3]! Peart drummed.") == [
        {"s": 1, "text": "Rush is a band [1][2].", "cited": [1, 2]},
        {"s": 2, "text": "According to Document [3]!", "cited": [3]},
        {"s": 3, "text": "Peart drummed.", "cited": []}]
