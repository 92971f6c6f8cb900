"""Build a tiny random-weight T5 with the TRUE checker's layout, for fast tests of the T5 NLI path.

Why this exists
---------------
TRUE (``google/t5_xxl_true_nli_mixture``) is T5-11B v1.0: 44 GB of fp32 weights that no test can
load, and nothing may come from the Hugging Face hub. The export (:mod:`vericite.export.t5_true`)
and the runtime (:mod:`vericite.engine.nli.t5`) only depend on the *plumbing* of that model, so
the tests use a model with the same plumbing and random weights:

* T5 v1.0 layout as in the 11B checkpoint's config: ``feed_forward_proj="relu"``
  (``DenseReluDense`` with ``wi``/``wo``), tied input/output embeddings (so the decoder output
  is scaled by ``d_model ** -0.5`` before the LM head), relative position buckets, and
  ``num_heads * d_kv != d_model`` (11B: 128 * 128 = 16384 vs d_model 1024; here 8 * 16 = 128
  vs 64), which catches any code that assumes the two are equal;
* a SentencePiece-like Unigram tokenizer trained offline with ``tokenizers`` on NLI premises
  and hypotheses from the shared data, with T5's special-token ids (``<pad>`` = 0 = decoder
  start, ``</s>`` = 1, ``<unk>`` = 2) and single pieces for ``"1"`` and ``"0"`` (TRUE's
  targets), saved as ``tokenizer.json`` for ``T5TokenizerFast`` (no ``spiece.model``);
* ``config.json`` + ``model.safetensors`` + ``generation_config.json`` loadable by
  ``T5ForConditionalGeneration.from_pretrained(out, local_files_only=True)``.

Score spread (what differs from plain random weights)
-----------------------------------------------------
With T5's random init every first-step logit is about N(0, 1) over the whole vocabulary, so
P("1") ~ 1/vocab for every input and a parity gate on labels would be vacuous. Two changes
after the seeded random init:

1. the decoder's cross-attention output weights (``EncDecAttention.o``) are multiplied by
   :data:`CROSS_ATTENTION_GAIN`. With T5's init the near-uniform cross-attention averages the
   encoder states away: over SNLI inputs the first-step decoder output varies by only ~16% of
   the norm of its input-independent mean, and int8 weight noise flipped 1.5-3% of labels; with
   the gain it varies by ~54% and int8 weight-only quantization flips 0-2 of 200 SNLI labels
   (seed 0: 2, max |dP| 0.028), still more than a trained model would: many random scores sit
   near 0.5;
2. the two embedding rows of "1" and "0" (tied, so also their LM-head rows) are rewritten from
   the decoder's first-step output ``h`` (already scaled by ``d_model**-0.5``) on
   :data:`CALIBRATION_PAIRS` training pairs:

* ``m`` = mean of ``h``; ``v`` = the top principal direction of ``h - m``, made orthogonal to ``m``;
* ``E["1"] = LOGIT_LEVEL * m/|m|^2 + (SPREAD/2) * v/sd``, ``E["0"] = LOGIT_LEVEL * m/|m|^2 - (SPREAD/2) * v/sd``
  where ``sd`` is the standard deviation of ``(h - m) . v``.

Then both logits sit near ``LOGIT_LEVEL`` (far above the log-sum-exp of the ~2000 other
logits, about 8), so "1" and "0" take almost all the mass, and ``logit("1") - logit("0")`` has
mean 0 and standard deviation ``SPREAD`` over the calibration pairs: P("1") spreads over (0, 1)
and depends on the input through the encoder and cross-attention. The model still means nothing;
agreement figures on it test the code path, not the quality of any checkpoint.

Usage (from the repository root)::

    .venv/bin/python -m vericite.export.tiny_t5 /tmp/tiny-t5 [--seed 0]
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from vericite.engine.config.paths import shared_dir

log = logging.getLogger(__name__)

__all__ = ["TINY_T5_CONFIG", "make_tiny_t5"]

#: The 11B TRUE config scaled down (11B: d_model 1024, d_kv 128, num_heads 128, d_ff 65536, 24+24 layers).
TINY_T5_CONFIG = {
    "d_model": 64,
    "d_kv": 16,            # num_heads * d_kv = 128 != d_model, as in 11B
    "num_heads": 8,
    "d_ff": 256,
    "num_layers": 2,
    "num_decoder_layers": 2,
    "feed_forward_proj": "relu",        # T5 v1.0 (TRUE), not v1.1's gated-gelu
    "tie_word_embeddings": True,        # v1.0: lm_head shares the input embedding; output scaled by d_model**-0.5
    "relative_attention_num_buckets": 32,
    "relative_attention_max_distance": 128,
    "dropout_rate": 0.1,                # as in the real config; export and tests run in eval mode
    "layer_norm_epsilon": 1e-6,
    "initializer_factor": 1.0,
    "pad_token_id": 0,
    "eos_token_id": 1,
    "decoder_start_token_id": 0,
}
#: Tokenizer vocabulary size (11B: 32128 incl. 100 sentinel tokens; the tiny one has no sentinels).
VOCAB_SIZE = 2000
#: NLI rows read from the training file for the tokenizer: each gives "premise: .. hypothesis: .."
#: plus a target line "1" or "0", as TRUE's training data would.
TOKENIZER_ROWS = 3000
#: Pairs whose first-step decoder outputs set the "1"/"0" embedding rows (module docstring).
CALIBRATION_PAIRS = 128
#: Mean first-step logit of "1" and "0" (the other ~2000 logits are ~N(0, 1): log-sum-exp ~8).
LOGIT_LEVEL = 20.0
#: Standard deviation of logit("1") - logit("0") over the calibration pairs.
SPREAD = 3.0
#: Gain on the decoder's cross-attention output weights (module docstring, "Score spread").
CROSS_ATTENTION_GAIN = 8.0
#: Training text for the tokenizer and the calibration (SNLI test premises and hypotheses).
DEFAULT_CORPUS = "data/nli/snli_test.jsonl"
#: TRUE's input template.
TEMPLATE = "premise: {premise} hypothesis: {hypothesis}"


def _read_pairs(path: Path, n: int) -> list[tuple[str, str, str]]:
    """The first ``n`` (premise, hypothesis, target) rows; target "1" for entailment else "0"."""
    rows: list[tuple[str, str, str]] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if len(rows) >= n:
                break
            if line.strip():
                r = json.loads(line)
                rows.append((str(r["premise"]), str(r["hypothesis"]), "1" if r.get("label") == "entailment" else "0"))
    if not rows:
        raise ValueError(f"no NLI rows in {path}")
    return rows


def _train_tokenizer(rows: list[tuple[str, str, str]]):
    """A Unigram ``tokenizers.Tokenizer`` with T5's special ids, normaliser-free Metaspace pieces."""
    from tokenizers import (
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )

    tok = Tokenizer(models.Unigram())
    # T5's converted tokenizer: NFKC-like normalisation, runs of spaces collapsed, then "▁"-prefixed words
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(),
        pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True),
    ])
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    trainer = trainers.UnigramTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=["<pad>", "</s>", "<unk>"],  # ids 0, 1, 2 as in T5
        unk_token="<unk>",
        show_progress=False,
    )

    def lines():
        for premise, hypothesis, target in rows:
            yield TEMPLATE.format(premise=premise, hypothesis=hypothesis)
            yield target

    tok.train_from_iterator(lines(), trainer=trainer, length=2 * len(rows))
    tok = _finish_vocab(tok, ["▁1", "▁0"])
    eos = tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", eos)]
    )
    for tid, name in ((0, "<pad>"), (1, "</s>"), (2, "<unk>")):
        if tok.token_to_id(name) != tid:
            raise RuntimeError(f"tokenizer: {name} got id {tok.token_to_id(name)}, expected {tid}")
    for digit in ("1", "0"):
        if len(tok.encode(digit, add_special_tokens=False).ids) != 1:
            raise RuntimeError(f"tokenizer: {digit!r} is not a single token; add more target lines")
    return tok


def _finish_vocab(tok, pieces: list[str]):
    """``tok`` with a reproducible piece order and each of ``pieces`` in its Unigram vocabulary.

    The trainer's output order of its kept characters (and the last bits of the scores) varies
    from run to run; scores are rounded to 1e-9, the kept characters get their scores in sorted
    order and pieces after the specials are sorted by (score descending, piece), so the same
    corpus always gives the same ids. The Unigram trainer may
    keep "0" only as "▁" + "0" (it did here, although "0" is a whole target line 2000 times);
    SentencePiece's fix is a user-defined symbol: the piece is added with the best score of any
    learned piece, so the Viterbi segmentation of the bare word picks it.
    """
    from tokenizers import Tokenizer

    spec = json.loads(tok.to_str())
    vocab = spec["model"]["vocab"]  # [[piece, log-prob], ...]; the 3 specials first
    learned = [[p, round(score, 9)] for p, score in vocab[3:]]
    have = {p for p, _ in learned}
    best = max(score for _, score in learned)
    # the trainer appends the characters it must keep below every learned piece, with scores
    # min - 1e-4 * i in hash order: give those scores to the characters in sorted order instead
    floor = min(score for p, score in learned if len(p) > 1)
    tail = [e for e in learned if e[1] < floor]
    for entry, piece, score in zip(tail, sorted(e[0] for e in tail), sorted((e[1] for e in tail), reverse=True)):
        entry[0], entry[1] = piece, score
    learned += [[piece, best] for piece in pieces if piece not in have]
    spec["model"]["vocab"] = vocab[:3] + sorted(learned, key=lambda e: (-e[1], e[0]))
    return Tokenizer.from_str(json.dumps(spec))


def make_tiny_t5(out_dir: str | Path, seed: int = 0, *, corpus: str | Path | None = None,
                 config: dict | None = None) -> Path:
    """Write a tiny random T5 (TRUE's v1.0 layout) and its tokenizer to ``out_dir``.

    Deterministic for a given ``seed`` and corpus: the tokenizer is trained on the first
    :data:`TOKENIZER_ROWS` rows of ``corpus``, the weights come from ``torch.manual_seed(seed)``,
    and the "1"/"0" embedding rows are then set as described in the module docstring.
    Takes a few seconds on one CPU thread.

    Args:
        out_dir: folder to write (created; existing files of the same names are overwritten):
            ``config.json``, ``generation_config.json``, ``model.safetensors``, ``tokenizer.json``,
            ``tokenizer_config.json``, ``special_tokens_map.json``.
        seed: torch seed for the weights.
        corpus: JSONL file with ``premise``, ``hypothesis`` (and ``label``) fields; default
            ``<shared>/data/nli/snli_test.jsonl`` (``<shared>`` = ``$VERICITE_SHARED`` or the
            ``shared`` folder next to the repository).
        config: ``T5Config`` fields that replace :data:`TINY_T5_CONFIG`'s, e.g. t5-large's sizes
            for a speed benchmark (bench/gpu_check.py); the tokenizer and the score spread stay.

    Returns:
        ``out_dir`` as a Path.

    Raises:
        FileNotFoundError: the corpus file is missing.
        RuntimeError: the trained tokenizer lacks T5's special ids or single tokens for "1"/"0".
    """
    import torch
    from transformers import T5Config, T5ForConditionalGeneration, T5TokenizerFast

    out = Path(out_dir)
    src = Path(corpus) if corpus is not None else shared_dir() / DEFAULT_CORPUS
    if not src.is_file():
        raise FileNotFoundError(f"tokenizer corpus not found: {src} (set VERICITE_SHARED or pass corpus)")
    rows = _read_pairs(src, TOKENIZER_ROWS)
    tok = _train_tokenizer(rows)

    config = T5Config(vocab_size=tok.get_vocab_size(), **{**TINY_T5_CONFIG, **(config or {})})
    torch.manual_seed(seed)
    model = T5ForConditionalGeneration(config).eval()
    with torch.no_grad():
        for block in model.decoder.block:  # see "Score spread" in the module docstring
            block.layer[1].EncDecAttention.o.weight.mul_(CROSS_ATTENTION_GAIN)

    fast = T5TokenizerFast(tokenizer_object=tok, eos_token="</s>", pad_token="<pad>", unk_token="<unk>",
                           extra_ids=0, additional_special_tokens=[], model_max_length=512)
    id1 = tok.encode("1", add_special_tokens=False).ids[0]
    id0 = tok.encode("0", add_special_tokens=False).ids[0]
    calib = [TEMPLATE.format(premise=p, hypothesis=h) for p, h, _ in rows[-CALIBRATION_PAIRS:]]
    with torch.inference_mode():
        enc = fast(calib, padding=True, return_tensors="pt")
        start = torch.full((len(calib), 1), config.decoder_start_token_id, dtype=torch.long)
        out_dec = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                        decoder_input_ids=start, output_hidden_states=True)
        dec = out_dec.decoder_hidden_states[-1][:, 0].double() * config.d_model ** -0.5  # what lm_head sees
        m = dec.mean(0)
        dev = dec - m
        v = torch.linalg.svd(dev, full_matrices=False).Vh[0]
        v = v - (v @ m) / (m @ m) * m  # orthogonal to the mean: logit difference centred at 0
        v = v / (dev @ v).std()
        base = LOGIT_LEVEL * m / (m @ m)
        emb = model.shared.weight
        emb[id1] = (base + SPREAD / 2 * v).float()
        emb[id0] = (base - SPREAD / 2 * v).float()
    if model.lm_head.weight.data_ptr() != model.shared.weight.data_ptr():
        raise RuntimeError("tiny T5: lm_head is not tied to the shared embedding")

    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    fast.save_pretrained(out)
    log.info("tiny T5 written to %s (vocab %d, '1'=%d, '0'=%d)", out, config.vocab_size, id1, id0)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Write a tiny random T5 with TRUE's layout (tests only).")
    ap.add_argument("out", help="output folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--corpus", help="NLI JSONL for the tokenizer (default: shared SNLI test)")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    make_tiny_t5(args.out, args.seed, corpus=args.corpus)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
