"""Checker training (export/train_nli.py): the parts that need neither torch nor
transformers.

The same subject in other tiers: tests/lab/test_train_nli.py.
"""
from __future__ import annotations

import json
import random
import zipfile

import pytest


def test_engine_takes_xlmr_special_tokens_from_the_tokenizer():
    """A tokenizer without [CLS]/[SEP] (XLM-R sentencepiece, e.g. multilingual-e5) gets <s>/</s>."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from vericite.engine.nli.cross_encoder import OnnxCrossEncoder

    ce = OnnxCrossEncoder.__new__(OnnxCrossEncoder)
    ce._tok = Tokenizer(WordLevel({"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}, unk_token="<unk>"))
    assert ce._special(("[CLS]", "<s>"), 101) == 0 and ce._special(("[SEP]", "</s>"), 102) == 2
    ce._tok = Tokenizer(WordLevel({"[PAD]": 0, "[CLS]": 5, "[SEP]": 6, "<s>": 7}, unk_token="[PAD]"))
    assert ce._special(("[CLS]", "<s>"), 101) == 5 and ce._special(("[SEP]", "</s>"), 102) == 6
    assert ce._special(("[X]",), 101) == 101


def test_premise_embedding_is_seeded():
    from vericite.export.train_nli import _embed_premises

    rows = [{"premise": f"premise number {i} .", "hypothesis": "h", "label": 1, "source": "snli_dev"} for i in range(50)]
    rows.append({"premise": "a qa paragraph", "hypothesis": "h", "label": 1, "source": "qa-positive"})
    pool = [r["premise"] for r in rows[:50]]
    a = _embed_premises(rows, 0.5, random.Random(1), pool)
    assert a == _embed_premises(rows, 0.5, random.Random(1), pool)
    changed = [(r, x) for r, x in zip(rows, a) if r != x]
    assert 10 < len(changed) < 40 and a[-1] == rows[-1]  # about half; QA paragraphs untouched
    for r, x in changed:
        assert r["premise"] in x["premise"] and 200 <= len(x["premise"]) - len(r["premise"]) <= 900 + 40


def test_resolve_base_unpacks_a_wheel(tmp_path, monkeypatch):
    from vericite.export.train_nli import resolve_base

    base = tmp_path / "base"  # what resolve_base looks for in a model folder (the files are not read)
    base.mkdir()
    (base / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 32}))
    (base / "model.safetensors").write_bytes(b"\0" * 64)
    (base / "vocab.txt").write_text("[PAD]\n[UNK]\n")
    whl = tmp_path / "tiny_enc-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as zf:
        for f in base.iterdir():
            zf.write(f, f"tiny_enc/model/{f.name}")
        zf.writestr("tiny_enc/__init__.py", "")
    monkeypatch.setenv("VERICITE_CACHE", str(tmp_path / "cache"))
    got = resolve_base(str(whl))
    assert got == tmp_path / "cache" / "base" / whl.stem
    assert (got / "config.json").read_bytes() == (base / "config.json").read_bytes()
    assert resolve_base(str(whl)) == got  # unpacked once
    assert resolve_base(str(base)) == base


def test_claim_pairs_take_one_half_of_the_items_and_count_partial_as_negative(tmp_path):
    from vericite.export.train_nli import claim_pairs

    docs = [{"n": 1, "title": "A", "text": "Rush is a band."}, {"n": 2, "title": "B", "text": "Peart drummed."}]
    rows = [{"index": 2, "documents": docs, "claim": "Rush is a band.", "cited": [1], "label": "supported"},
            {"index": 4, "documents": docs, "claim": "Peart drummed for Rush.", "cited": [1, 2], "label": "partial",
             "per_doc": {"1": "none", "2": "part"}},
            {"index": 3, "documents": docs, "claim": "Held apart.", "cited": [2], "label": "supported"}]
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    even = claim_pairs(path, "even")
    assert [(r["premise"], r["label"], r["source"]) for r in even] == [
        ("Rush is a band.", 1, "claims"), ("Rush is a band.\nPeart drummed.", 0, "claims"),
        ("Rush is a band.", 0, "claims-per-doc")]
    assert [r["hypothesis"] for r in claim_pairs(path, "odd")] == ["Held apart."]
    with pytest.raises(ValueError, match="even, odd or all"):
        claim_pairs(path, "half")


def test_grounding_pairs_read_factcg_rows_skip_empty_documents_and_name_a_bad_line(tmp_path):
    from vericite.export.train_nli import TrainConfig, build_training_data, grounding_pairs

    rows = [{"task": "bin_grounding", "text_a": "Bell returned to Boston.", "text_b": ["Bell went back to Boston."],
             "text_c": [], "orig_label": 1},
            {"task": "bin_grounding", "text_a": "", "text_b": ["No document here."], "text_c": [], "orig_label": 1},
            {"task": "bin_grounding", "text_a": "Bell returned to Boston.", "text_b": ["Bell died in Boston."],
             "text_c": [], "orig_label": 0}]
    path = tmp_path / "CG2C_doc.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    got = grounding_pairs(path)
    assert [(r["hypothesis"], r["label"], r["source"]) for r in got] == [
        ("Bell went back to Boston.", 1, "grounding:CG2C_doc"), ("Bell died in Boston.", 0, "grounding:CG2C_doc")]
    (tmp_path / "snli_dev.jsonl").write_text(json.dumps({"premise": "p", "hypothesis": "h", "label": "entailment"}) + "\n",
                                             encoding="utf-8")
    built, summary, _ = build_training_data(TrainConfig(out="x", data_dir=str(tmp_path), sets=("snli_dev",),
                                                        grounding=(str(path),), grounding_max=1))
    assert summary["grounding"]["CG2C_doc.json"]["pairs"] == 1 and summary["grounding"]["CG2C_doc.json"]["of"] == 2
    assert sum(r["source"] == "grounding:CG2C_doc" for r in built) == 1
    bad = tmp_path / "bad.json"
    bad.write_text('{"text_a": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="bad.json:1: not a FactCG grounding row"):
        grounding_pairs(bad)


def test_the_translated_multinli_splits_into_disjoint_train_and_dev_and_a_set_can_be_repeated(tmp_path):
    from vericite.export.train_nli import TrainConfig, build_training_data, load_set

    labels = ["entailment", "neutral", "contradiction"]
    with (tmp_path / "mnli_dev_matched_ru1800.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(18):
            fh.write(json.dumps({"id": f"m-{i}", "premise": f"посылка {i}", "hypothesis": f"гипотеза {i}",
                                 "label": labels[i % 3]}, ensure_ascii=False) + "\n")
    train, dev = load_set("mnli_ru_train", tmp_path), load_set("mnli_ru_dev", tmp_path)
    assert (len(train), len(dev)) == (15, 3)                  # every sixth pair is dev
    assert not {r["premise"] for r in train} & {r["premise"] for r in dev}
    assert [r["premise"] for r in dev] == ["посылка 0", "посылка 6", "посылка 12"]
    assert all(r["label"] == 1 for r in dev)                  # index 0, 6, 12: entailment
    cfg = TrainConfig(out=str(tmp_path / "o"), data_dir=str(tmp_path), sets=("mnli_ru_train",),
                      repeat_sets=(("mnli_ru_train", 3),), eval_sets=("mnli_ru_dev",))
    rows, summary, _ = build_training_data(cfg)
    assert len(rows) == 45 and summary["sets"]["mnli_ru_train"] == 45
    with pytest.raises(ValueError, match="--repeat-set names sets that are not trained on"):
        build_training_data(TrainConfig(out="o", data_dir=str(tmp_path), sets=("mnli_ru_train",),
                                        repeat_sets=(("terra_train", 2),), eval_sets=()))
