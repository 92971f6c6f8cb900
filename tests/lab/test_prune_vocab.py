"""Vocabulary pruning (export/prune_vocab.py) on a tiny random model.

The fixture builds, offline, a SentencePiece-Unigram ``tokenizers`` vocabulary of a few hundred
pieces (Latin and Cyrillic letters, words, sub-words, CJK characters, the XLM-R special tokens
in XLM-R's order) and a tiny random ``BertForSequenceClassification`` over it: the pruned
tokenizer must give the full one's pieces (ids remapped) on every corpus text, the pruned
model the same logits, and text outside the corpus must still tokenize without ``<unk>``.
Skips without torch and transformers. No shared data, no downloads.

The same subject in other tiers: tests/unit/test_prune_vocab.py.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest


SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
WORDS = ["кошка", "собака", "дом", "сидит", "на", "в", "был", "основан", "году", "Маркет", "Яндекс",
         "cat", "dog", "house", "sits", "on", "the", "was", "founded", "in", "market", "Yandex"]
CJK = ["漢", "字", "東", "京"]


def _pieces() -> list[tuple[str, float]]:
    """Unigram pieces with scores: specials, single characters (with and without ▁), words, sub-words, CJK."""
    chars = sorted({c for w in WORDS for c in w.lower() + w} | set("0123456789.,!?-№")
                   | set("абвгдеёжзийклмнопрстуфхцчшщъыьэюя") | set("abcdefghijklmnopqrstuvwxyz"))
    out: list[tuple[str, float]] = [(s, 0.0) for s in SPECIALS]
    out.append(("\u2581", -2.0))
    seen = {p for p, _ in out}
    def add(p: str, s: float) -> None:
        if p not in seen:
            seen.add(p)
            out.append((p, s))
    for w in WORDS:
        add("\u2581" + w, -5.0 - 0.1 * len(w))
        add(w[: len(w) // 2 + 1], -7.0)
        add("\u2581" + w[:2], -6.5)
    for c in chars:
        add(c, -9.0)
        add("\u2581" + c, -9.5)
    for c in CJK:
        add(c, -11.0)
    add("\u2581漢字", -10.5)
    add("qzx", -13.0)                      # the lowest score: kept (it sets the unknown-character score)
    out.append(("<mask>", 0.0))
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    root = tmp_path_factory.mktemp("prune")
    src = root / "full"
    vocab = _pieces()
    tok = Tokenizer(models.Unigram(vocab, unk_id=3, byte_fallback=False))
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    tok.post_processor = processors.TemplateProcessing(
        single="<s>:0 $A:0 </s>:0", pair="<s>:0 $A:0 </s>:0 $B:1 </s>:1", special_tokens=[("<s>", 0), ("</s>", 2)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>",
                                   pad_token="<pad>", cls_token="<s>", sep_token="</s>", mask_token="<mask>")
    fast.save_pretrained(str(src))
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64, type_vocab_size=2, pad_token_id=1,
                     num_labels=2, id2label={0: "not_entailment", 1: "entailment"},
                     label2id={"not_entailment": 0, "entailment": 1})
    BertForSequenceClassification(cfg).eval().save_pretrained(str(src), safe_serialization=True)
    (src / "metrics.json").write_text(json.dumps({"epoch": 1}), encoding="utf-8")
    corpus = root / "corpus"
    corpus.mkdir()
    rows = [{"premise": "Яндекс Маркет был основан в 2000 году.", "hypothesis": "Маркет основан в 2000 году.",
             "label": "entailment"},
            {"premise": "The cat sits on the house.", "hypothesis": "A dog sits.", "label": "neutral"}]
    (corpus / "nli.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                      encoding="utf-8")
    (corpus / "docs.json").write_text(json.dumps([{"title": "Дом", "text": "Кошка сидит на доме, собака в доме!"}],
                                                 ensure_ascii=False), encoding="utf-8")
    return src, corpus, root


def _ids(folder: Path, texts):
    from tokenizers import Tokenizer

    t = Tokenizer.from_file(str(folder / "tokenizer.json"))
    return [e.ids for e in t.encode_batch(list(texts), add_special_tokens=False)]


def test_corpus_texts_reads_every_string(tiny):
    from vericite.export.prune_vocab import corpus_texts

    _, corpus, _ = tiny
    texts = corpus_texts([corpus])
    assert "Кошка сидит на доме, собака в доме!" in texts and "Дом" in texts
    assert "entailment" in texts and len(texts) == len(set(texts))


def test_pruned_tokenizer_and_model_reproduce_the_full_ones(tiny):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    from vericite.export.prune_vocab import corpus_texts, prune_vocab

    src, corpus, root = tiny
    out = root / "pruned"
    rec = prune_vocab(src, out, [corpus], pairs=8, max_length=32)
    full_vocab = json.loads((src / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    new_vocab = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    assert rec["counts"]["of"] == len(full_vocab) and rec["counts"]["kept"] == len(new_vocab) < len(full_vocab)
    kept = json.loads((out / "pruning.json").read_text(encoding="utf-8"))["kept_old_ids"]
    assert kept == sorted(kept) and kept[:4] == [0, 1, 2, 3]      # specials keep their ids
    assert [new_vocab[i] for i in range(len(kept))] == [full_vocab[o] for o in kept]
    assert "\u2581漢字" not in {p for p, _ in new_vocab} and "漢" not in {p for p, _ in new_vocab}
    assert "qzx" in {p for p, _ in new_vocab}
    assert new_vocab[-1][0] == "<mask>"
    old2new = {o: n for n, o in enumerate(kept)}

    # same pieces on every corpus text (ids through the map)
    texts = corpus_texts([corpus])
    for a, b in zip(_ids(src, texts), _ids(out, texts)):
        assert [old2new[i] for i in a] == b
    # text outside the corpus still tokenizes into known pieces (single characters kept)
    unseen = ["ёжик бежит 12 км, ура!", "zebra quiz"]  # words the corpus lacks, letters the full vocabulary has
    for ids in _ids(out, unseen):
        assert 3 not in ids

    # same logits on corpus pairs, special tokens included (HF tokenizer of each folder; a text outside
    # the corpus may tokenize into other pieces, so its row and the batch's padding could differ)
    pairs = [("Яндекс Маркет был основан в 2000 году.", "Маркет основан в 2000 году."),
             ("The cat sits on the house.", "A dog sits."), ("Кошка сидит на доме, собака в доме!", "Дом")]
    logits = []
    for folder in (src, out):
        tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        model = AutoModelForSequenceClassification.from_pretrained(str(folder), local_files_only=True).eval()
        enc = tok([p for p, _ in pairs], [h for _, h in pairs], padding=True, return_tensors="pt")
        with torch.inference_mode():
            logits.append(model(**enc).logits.numpy())
        assert enc["input_ids"][0, 0].item() == 0 and tok.sep_token_id == 2
    np.testing.assert_allclose(logits[0], logits[1], atol=1e-6)
    assert json.loads((out / "config.json").read_text())["vocab_size"] == len(new_vocab)
    assert json.loads((out / "metrics.json").read_text())["vocab_pruning"]["counts"]["kept"] == len(new_vocab)
    assert rec["model_check"]["max_abs_diff"] <= 1e-4


def test_the_runtime_encoder_reads_the_pruned_tokenizer(tiny, tmp_path):
    """engine/nli/cross_encoder.py builds <s> premise </s> hypothesis </s> from the pruned tokenizer's ids."""
    from tokenizers import Tokenizer
    from vericite.engine.nli.cross_encoder import OnnxCrossEncoder
    from vericite.export.prune_vocab import prune_vocab

    src, corpus, _ = tiny
    out = tmp_path / "p"
    prune_vocab(src, out, [corpus], pairs=0)
    ce = OnnxCrossEncoder.__new__(OnnxCrossEncoder)
    ce._tok = Tokenizer.from_file(str(out / "tokenizer.json"))
    assert ce._special(("[CLS]", "<s>"), 101) == 0 and ce._special(("[SEP]", "</s>"), 102) == 2


def test_min_count_drops_rare_pieces_and_extra_embedding_rows(tiny, tmp_path):
    """min_count 2 drops pieces seen once (their texts re-tokenize, no <unk>); embedding rows past the
    tokenizer's pieces (multilingual-e5 has 35) are dropped."""
    import torch
    from safetensors.torch import load_file, save_file
    from vericite.export.prune_vocab import corpus_texts, prune_vocab

    src, corpus, _ = tiny
    big = tmp_path / "big"
    big.mkdir()
    for f in src.iterdir():
        (big / f.name).write_bytes(f.read_bytes())
    state = load_file(str(big / "model.safetensors"))
    key = "bert.embeddings.word_embeddings.weight"
    state[key] = torch.cat([state[key], torch.zeros(3, state[key].shape[1])])
    save_file(state, str(big / "model.safetensors"), metadata={"format": "pt"})
    cfg = json.loads((big / "config.json").read_text())
    cfg["vocab_size"] += 3
    (big / "config.json").write_text(json.dumps(cfg))
    exact = prune_vocab(big, tmp_path / "p1", [corpus], pairs=0)
    rec = prune_vocab(big, tmp_path / "p2", [corpus], pairs=4, min_count=2)
    assert rec["counts"]["kept"] < exact["counts"]["kept"]
    assert rec["embedding"]["rows"][0] == len(_pieces()) + 3
    assert rec["tokenizer_check"]["identical"] < rec["tokenizer_check"]["texts"]
    texts = corpus_texts([corpus])
    for full_ids, ids in zip(_ids(big, texts), _ids(tmp_path / "p2", texts)):
        assert ids.count(3) == full_ids.count(3)       # <unk> only where the full vocabulary has none either
    with pytest.raises(ValueError, match="min_count"):
        prune_vocab(big, tmp_path / "p3", [corpus], min_count=0)


def test_a_saved_truncation_setting_does_not_hide_pieces(tiny, tmp_path):
    """train-nli saves its tokenizer with truncation at max_len: the pieces past it count too."""
    from tokenizers import Tokenizer
    from vericite.export.prune_vocab import corpus_texts, prune_vocab

    src, corpus, _ = tiny
    trunc = tmp_path / "trunc"
    trunc.mkdir()
    for f in src.iterdir():
        (trunc / f.name).write_bytes(f.read_bytes())
    tj = json.loads((trunc / "tokenizer.json").read_text(encoding="utf-8"))
    tj["truncation"] = {"direction": "Right", "max_length": 3, "strategy": "OnlyFirst", "stride": 0}
    (trunc / "tokenizer.json").write_text(json.dumps(tj, ensure_ascii=False), encoding="utf-8")
    prune_vocab(trunc, tmp_path / "p", [corpus], pairs=0)
    texts = corpus_texts([corpus])
    kept = json.loads((tmp_path / "p" / "pruning.json").read_text())["kept_old_ids"]
    old2new = {o: n for n, o in enumerate(kept)}
    full = Tokenizer.from_file(str(src / "tokenizer.json"))
    pruned = Tokenizer.from_file(str(tmp_path / "p" / "tokenizer.json"))
    pruned.no_truncation()
    for t in texts:
        assert [old2new[i] for i in full.encode(t, add_special_tokens=False).ids] == \
            pruned.encode(t, add_special_tokens=False).ids
    assert json.loads((tmp_path / "p" / "tokenizer.json").read_text())["truncation"]["max_length"] == 3
