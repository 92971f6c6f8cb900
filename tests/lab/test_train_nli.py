"""Checker training (export/train_nli.py).

The training tests build a tiny random BERT and a word-level vocabulary in a temp folder (no
shared data, no downloads): a few steps on a few dozen synthetic pairs must lower the loss, be
reproducible from the seed, save a loadable HF folder and export through the ONNX parity gate.
They skip without torch and transformers (the ``tiny`` fixture asks for them).
Hard negatives: tests/unit/test_hard_negatives.py; calibration: tests/unit/test_calibration.py.

The same subject in other tiers: tests/unit/test_train_nli.py.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

# ------------------------------------------------------------------------------------------------
# training a tiny random BERT


WORDS = ["cat", "dog", "man", "woman", "car", "tree", "house", "river", "ball", "book", "red", "blue", "runs",
         "sits", "sleeps", "plays", "the", "a", "in", "on", "was", "born", "2000", "2001", "is", "not", "."]


def _synthetic(n: int, seed: int) -> list[dict]:
    """Premise: 6 content words; hypothesis: 2 words; entailment iff both occur in the premise."""
    rng = random.Random(seed)
    content = WORDS[:16]
    rows = []
    for i in range(n):
        prem = rng.sample(content, 6)
        if i % 2 == 0:
            hyp = rng.sample(prem, 2)
        else:
            hyp = [rng.choice(prem), rng.choice([w for w in content if w not in prem])]
        rows.append({"premise": "the " + " ".join(prem) + " .", "hypothesis": " ".join(hyp) + " .",
                     "label": "entailment" if i % 2 == 0 else "neutral"})
    # pairs the hard-negative generators can edit
    rows.append({"premise": "the man was born in 2000 .", "hypothesis": "the man was born in 2000 .", "label": "entailment"})
    rows.append({"premise": "a dog is in the house .", "hypothesis": "a dog is in the house .", "label": "entailment"})
    return rows


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny random BertModel (no head) with a word-level fast tokenizer, and a tiny data folder
    (skips without torch and transformers)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import BertConfig, BertModel, BertTokenizerFast

    root = tmp_path_factory.mktemp("tiny")
    base = root / "base"
    base.mkdir()
    vocab = base / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n", encoding="utf-8")
    tok = BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True)
    tok.save_pretrained(str(base))
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(WORDS) + 5, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64,
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    BertModel(cfg).save_pretrained(str(base), safe_serialization=True)
    data = root / "nli"
    data.mkdir()
    for name, n, seed in (("snli_dev", 46, 1), ("snli_test", 16, 2)):
        with (data / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for r in _synthetic(n, seed):
                fh.write(json.dumps(r) + "\n")
    return base, data


def _args(out: Path, base: Path, data: Path, *extra: str) -> list[str]:
    return [str(out), "--base", str(base), "--data-dir", str(data), "--sets", "snli_dev", "--eval-sets", "snli_test",
            "--epochs", "20", "--batch", "8", "--lr", "2e-3", "--warmup", "0", "--embed-frac", "0", "--threads", "1",
            "--max-len", "64", "--log-every", "12", "--seed", "7", "-q", *extra]


def test_tiny_training_run_saves_a_reproducible_checker(tiny, tmp_path):
    from transformers import AutoModelForSequenceClassification
    from vericite.export.train_nli import main

    base, data = tiny
    out = tmp_path / "run1"
    assert main(_args(out, base, data, "--hard-negatives", "1.0")) == 0
    m = json.loads((out / "metrics.json").read_text())
    hist = m["loss_history"]
    assert len(hist) >= 4 and hist[-1] < hist[0] - 0.05  # the loss falls
    assert m["steps"] == 20 * -(-m["data"]["pairs"] // 8)
    assert m["data"]["hard_negatives"]["made"] >= 2 and (out / "hard_negatives.jsonl").is_file()
    assert m["train_sets"] == ["snli_dev"] and m["eval"]["snli_test"]["n"] == 18
    assert m["seeds"]["seed"] == 7 and m["versions"]["torch"] and m["train_pairs_per_s"] > 0
    assert m["source"]["head_initialised"] is True
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["id2label"] == {"0": "not_entailment", "1": "entailment"}
    assert (out / "model.safetensors").is_file() and (out / "tokenizer.json").is_file()
    model = AutoModelForSequenceClassification.from_pretrained(str(out), local_files_only=True)
    assert model.config.num_labels == 2

    out2 = tmp_path / "run2"  # same seed, same run
    main(_args(out2, base, data, "--hard-negatives", "1.0"))
    m2 = json.loads((out2 / "metrics.json").read_text())
    assert m2["loss_history"] == hist and m2["eval"] == m["eval"]
    from safetensors.numpy import load_file

    w1, w2 = load_file(str(out / "model.safetensors")), load_file(str(out2 / "model.safetensors"))
    assert all(np.array_equal(w1[k], w2[k]) for k in w1)

    # continue training from the saved checkpoint (--init) for one step
    out3 = tmp_path / "run3"
    args = _args(out3, base, data, "--max-steps", "1")
    args[args.index("--base")] = "--init"
    args[args.index(str(base))] = str(out)
    main(args)
    m3 = json.loads((out3 / "metrics.json").read_text())
    assert m3["steps"] == 1 and m3["source"]["kind"] == "init" and m3["source"]["head_initialised"] is False


def test_tiny_checker_exports_through_the_parity_gate(tiny, tmp_path):
    pytest.importorskip("optimum.onnxruntime")
    from vericite.engine.nli.cross_encoder import OnnxCrossEncoder
    from vericite.export.nli_onnx import export_cross_encoder
    from vericite.export.train_nli import main

    base, data = tiny
    out = tmp_path / "hf"
    main(_args(out, base, data, "--max-steps", "3"))
    rows = [json.loads(x) for x in (data / "snli_test.jsonl").read_text().splitlines()]
    pairs = [(r["premise"], r["hypothesis"]) for r in rows]
    manifest = export_cross_encoder(out, tmp_path / "onnx", quantize="int8", max_length=64, parity_pairs=pairs)
    assert manifest["parity"]["agreement"] >= 0.99 and manifest["labels"]["1"] == "entailment"
    assert manifest["source"]["metrics"]["steps"] == 3  # training provenance travels into the manifest
    ce = OnnxCrossEncoder(tmp_path / "onnx" / "model.onnx", tmp_path / "onnx" / "tokenizer.json", max_length=64,
                          intra_op_threads=1)
    p = ce.scores(pairs)
    assert p.shape == (18,) and np.all((p >= 0) & (p <= 1))


def test_freeze_word_embeddings_and_extra_sets(tiny, tmp_path):
    """--freeze-word-embeddings leaves the word-embedding matrix as it was (the rest trains);
    --extra-sets adds a set (here a stand-in terra_train) to --sets."""
    import shutil

    from safetensors.numpy import load_file
    from vericite.export.train_nli import main

    base, data = tiny
    data2 = tmp_path / "nli"
    shutil.copytree(data, data2)
    shutil.copy(data / "snli_dev.jsonl", data2 / "terra_train.jsonl")
    out = tmp_path / "frozen"
    assert main(_args(out, base, data2, "--max-steps", "4", "--freeze-word-embeddings",
                      "--extra-sets", "terra_train", "--save-epochs")) == 0
    assert (out / "epoch-1" / "model.safetensors").is_file() and not (out / "epoch-2").exists()
    m = json.loads((out / "metrics.json").read_text())
    assert m["train_sets"] == ["snli_dev", "terra_train"] and m["data"]["sets"]["terra_train"] == 48
    assert m["frozen"] == ["bert.embeddings.word_embeddings.weight"] and m["steps"] == 4
    assert m["config"]["freeze_word_embeddings"] is True
    w0, w1 = load_file(str(base / "model.safetensors")), load_file(str(out / "model.safetensors"))
    k0 = "embeddings.word_embeddings.weight" if "embeddings.word_embeddings.weight" in w0 else \
        "bert.embeddings.word_embeddings.weight"
    assert np.array_equal(w0[k0], w1["bert.embeddings.word_embeddings.weight"])
    k0 = k0.replace("word_embeddings", "position_embeddings")
    assert not np.array_equal(w0[k0], w1["bert.embeddings.position_embeddings.weight"])
    emb = w1["bert.embeddings.word_embeddings.weight"].size
    assert m["trainable_parameters"] == sum(v.size for v in w1.values()) - emb


def test_training_option_errors(tiny, tmp_path):
    from vericite.export.train_nli import (
        TrainConfig,
        build_training_data,
        resolve_base,
        train,
    )

    _, data = tiny
    with pytest.raises(ValueError, match="also evaluation"):
        build_training_data(TrainConfig(out=str(tmp_path), data_dir=str(data), sets=("snli_test",),
                                        eval_sets=("snli_test",)))
    with pytest.raises(ValueError, match="unknown NLI set"):
        build_training_data(TrainConfig(out=str(tmp_path), data_dir=str(data), sets=("nope",)))
    with pytest.raises(ValueError, match="exactly one"):
        train(TrainConfig(out=str(tmp_path / "x"), data_dir=str(data), sets=("snli_dev",), eval_sets=()))
    with pytest.raises(FileNotFoundError):
        resolve_base("no-such-distribution-anywhere")
