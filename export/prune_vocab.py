"""Prune a SentencePiece-Unigram model's vocabulary to the pieces a corpus uses (and remap its embeddings).

``vericite export prune-vocab SRC OUT --corpus PATH [--corpus PATH ...] [--pairs N] [--min-count K]``

multilingual-e5-small (XLM-R's 250,002 pieces) spends 96M of its 118M parameters on the word
embeddings, most of them for scripts a Russian/English checker never sees. This step keeps:

* every piece that occurs when the corpus is tokenized with the full tokenizer (the corpus: every
  string of every ``.jsonl``/``.json`` file, every line of a ``.txt`` file, folders read
  recursively; e.g. ``shared/data``: the NLI sets, training and evaluation, and the QA documents);
* every special token (``added_tokens``: ``<s>``, ``<pad>``, ``</s>``, ``<unk>``, ``<mask>``);
* every piece of one character, with or without the word-start mark ``▁``, whose character is
  Latin (U+0020-U+024F), Greek, Cyrillic (U+0370-U+052F), a letter-like symbol (U+2100-U+214F,
  e.g. ``№``), or any punctuation, digit, currency or math sign (Unicode categories P*, Nd, No,
  Sc, Sm): so any text in these scripts still tokenizes, into smaller pieces where a word's
  pieces were pruned (:func:`keep_char`);
* the piece with the lowest score: the Unigram model scores an unknown character at
  ``min(scores) - 10``, so keeping it keeps every lattice score, and a text whose pieces all
  survived tokenizes exactly as before.

``--min-count K`` (default 1) keeps only corpus pieces seen at least K times: a smaller model, and
texts with a dropped piece tokenize into smaller kept pieces (the record counts them; the checks
then run over the texts whose pieces all survived).

Kept pieces keep their order (ids are remapped monotonically: the special tokens 0-3 keep their
ids) and their scores, so for a corpus text the Viterbi segmentation over the kept subset is the
full vocabulary's (its best path uses only kept pieces, and a subset offers no better one).
``OUT`` is ``SRC`` with ``tokenizer.json`` (+ ``tokenizer_config.json``) rewritten, the rows of the
word-embedding matrix selected (``config.json`` ``vocab_size`` updated; every other weight
copied bit for bit), and ``pruning.json`` (the kept old ids and the figures). A
``metrics.json`` of ``SRC`` is copied with a ``vocab_pruning`` record added, so the manifest of
``vericite export nli OUT ...`` carries it.

Two checks run before anything is written to ``OUT`` (:class:`PruneCheckError` otherwise): every
corpus text gives the same pieces under both tokenizers (ids compared through the map), and on
``--pairs`` premise/hypothesis pairs drawn from the corpus the pruned model's outputs (logits of a
classifier, else the last hidden state) equal the full model's (max |diff| <= 1e-4).

Pruning commutes with fine-tuning when the word embeddings are frozen (``train-nli
--freeze-word-embeddings``): prune the encoder first, or the trained checker afterwards.
"""
from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from vericite.engine.config.registry import sha256_file

log = logging.getLogger(__name__)

__all__ = ["PruneCheckError", "corpus_texts", "keep_char", "main", "prune_tokenizer_json", "prune_vocab",
           "used_ids"]

WORD_START = "\u2581"   # SentencePiece's word-start mark
#: Unicode categories whose characters keep their one-character pieces in any script
KEEP_CATEGORIES = frozenset({"Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Nd", "No", "Sc", "Sm"})
#: code point ranges (inclusive) whose characters keep their one-character pieces
KEEP_RANGES = ((0x0020, 0x024F),   # Basic Latin, Latin-1, Latin Extended-A/B
               (0x0370, 0x052F),   # Greek, Cyrillic, Cyrillic Supplement
               (0x2100, 0x214F))   # letter-like symbols (№, ℃, ™)
#: max |output_full - output_pruned| the model check allows
MAX_ABS_DIFF = 1e-4


class PruneCheckError(Exception):
    """The pruned tokenizer or model does not reproduce the full one on the corpus."""


def keep_char(ch: str) -> bool:
    """Whether a one-character piece of ``ch`` is kept whatever the corpus (see module docstring)."""
    cp = ord(ch)
    return any(a <= cp <= b for a, b in KEEP_RANGES) or unicodedata.category(ch) in KEEP_CATEGORIES


def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def corpus_texts(paths: Iterable[str | Path]) -> list[str]:
    """Every non-empty string of the corpus files, deduplicated, in first-seen order.

    ``.jsonl``: every string value of every line's JSON object (nested); ``.json``: the same for the
    whole document; ``.txt``: every line; a folder: its ``.jsonl``/``.json``/``.txt`` files,
    recursively, sorted by path. Other files are skipped.

    Raises:
        FileNotFoundError: a path does not exist.
    """
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in (".jsonl", ".json", ".txt")))
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"corpus path {p} not found")
    seen: dict[str, None] = {}
    for f in files:
        text = f.read_text(encoding="utf-8")
        if f.suffix == ".jsonl":
            items = (s for line in text.splitlines() if line.strip() for s in _strings(json.loads(line)))
        elif f.suffix == ".json":
            items = _strings(json.loads(text))
        elif f.suffix == ".txt":
            items = iter(text.splitlines())
        else:
            continue
        for s in items:
            if s.strip():
                seen.setdefault(s, None)
    return list(seen)


def used_ids(tokenizer: Any, texts: Sequence[str], batch: int = 2048, min_count: int = 1) -> set[int]:
    """Ids of every piece the ``tokenizers.Tokenizer`` produces at least ``min_count`` times on ``texts``
    (no special tokens)."""
    counts: Counter[int] = Counter()
    for i in range(0, len(texts), batch):
        for enc in tokenizer.encode_batch(list(texts[i:i + batch]), add_special_tokens=False):
            counts.update(enc.ids)
    return {i for i, c in counts.items() if c >= min_count}


def _remap_ids(obj: Any, old2new: dict[int, int]) -> Any:
    """A post-processor JSON with every ``ids`` list remapped."""
    if isinstance(obj, dict):
        return {k: ([old2new[i] for i in v] if k == "ids" and isinstance(v, list) else _remap_ids(v, old2new))
                for k, v in obj.items()}
    if isinstance(obj, list):
        return [_remap_ids(v, old2new) for v in obj]
    return obj


def prune_tokenizer_json(tok_json: dict, keep: Iterable[int]) -> tuple[dict, list[int]]:
    """``(pruned tokenizer.json dict, kept old ids in new-id order)``.

    Raises:
        ValueError: not a Unigram model, or a special token / ``unk_id`` missing from ``keep``.
    """
    model = tok_json.get("model", {})
    if model.get("type") != "Unigram":
        raise ValueError(f"only SentencePiece Unigram tokenizers can be pruned, got {model.get('type')!r}")
    kept = sorted(set(keep))
    old2new = {o: n for n, o in enumerate(kept)}
    specials = [t["id"] for t in tok_json.get("added_tokens", [])]
    missing = [i for i in [*specials, model.get("unk_id")] if i is not None and i not in old2new]
    if missing:
        raise ValueError(f"special token ids {missing} are not in the kept set")
    vocab = model["vocab"]
    out = json.loads(json.dumps(tok_json))
    out["model"]["vocab"] = [vocab[i] for i in kept]
    if model.get("unk_id") is not None:
        out["model"]["unk_id"] = old2new[model["unk_id"]]
    for t in out.get("added_tokens", []):
        t["id"] = old2new[t["id"]]
    if out.get("post_processor") is not None:
        out["post_processor"] = _remap_ids(out["post_processor"], old2new)
    return out, kept


def _keep_set(tok_json: dict, used: set[int]) -> tuple[set[int], dict[str, int]]:
    vocab = tok_json["model"]["vocab"]
    specials = {t["id"] for t in tok_json.get("added_tokens", [])}
    unk = tok_json["model"].get("unk_id")
    if unk is not None:
        specials.add(unk)
    chars = set()
    for i, (piece, _) in enumerate(vocab):
        body = piece[1:] if piece.startswith(WORD_START) else piece
        if len(body) <= 1 and all(keep_char(c) for c in body):
            chars.add(i)
    non_special = [i for i in range(len(vocab)) if i not in specials]
    lowest = {min(non_special, key=lambda i: vocab[i][1])} if non_special else set()
    keep = used | specials | chars | lowest
    return keep, {"corpus": len(used), "special": len(specials), "single_char": len(chars),
                  "lowest_score": len(lowest), "kept": len(keep), "of": len(vocab)}


def _embedding_key(state: dict) -> str:
    keys = [k for k in state if k.endswith("word_embeddings.weight")]
    if len(keys) != 1:
        raise ValueError(f"expected one word_embeddings.weight in the weights, found {keys}")
    return keys[0]


def _sample_pairs(texts: Sequence[str], n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    short = [t for t in texts if len(t) <= 400] or list(texts)
    return [(rng.choice(short), rng.choice(short)) for _ in range(n)]


def _outputs(folder: Path, pairs: Sequence[tuple[str, str]], max_length: int) -> Any:
    """Logits (classifier) or last hidden states (encoder) of ``pairs``, float64 numpy, padded rows masked."""
    import numpy as np
    import torch
    from transformers import AutoConfig, AutoModel, AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    cfg = AutoConfig.from_pretrained(str(folder), local_files_only=True)
    is_cls = any(a.endswith("ForSequenceClassification") for a in (cfg.architectures or []))
    cls = AutoModelForSequenceClassification if is_cls else AutoModel
    model = cls.from_pretrained(str(folder), local_files_only=True, dtype=torch.float32).eval()
    outs = []
    with torch.inference_mode():
        for i in range(0, len(pairs), 16):
            chunk = pairs[i:i + 16]
            enc = tok([p for p, _ in chunk], [h for _, h in chunk], truncation="only_first", max_length=max_length,
                      padding=True, return_tensors="pt")
            res = model(**enc)
            if is_cls:
                outs.append(res.logits.double().numpy())
            else:  # first position and the masked mean of the last hidden state
                m = enc["attention_mask"][..., None].double()
                h = res.last_hidden_state.double()
                outs.append(torch.cat([h[:, 0], (h * m).sum(1) / m.sum(1)], dim=1).numpy())
    return np.concatenate(outs)


def prune_vocab(src: str | Path, out: str | Path, corpus: Sequence[str | Path], *, pairs: int = 64,
                max_length: int = 128, seed: int = 0, min_count: int = 1) -> dict[str, Any]:
    """Write the pruned copy of the HF folder ``src`` to ``out`` (see module docstring).

    Args:
        src: HF folder with ``config.json``, ``model.safetensors`` and a Unigram ``tokenizer.json``.
        out: output folder (must differ from ``src``; created).
        corpus: files/folders whose texts decide the kept pieces (:func:`corpus_texts`).
        pairs: premise/hypothesis pairs (drawn from the corpus) of the model check; 0 skips it.
        max_length: tokens per pair in the model check.
        min_count: keep a corpus piece only if it occurs at least this often (1 = every piece: the
            exact mode). Above 1 a text with a dropped piece tokenizes into smaller pieces, so both
            checks are reported over the texts (and pairs) whose pieces all survived, and the share
            of corpus texts that tokenize differently is recorded instead of refused.

    Returns:
        The ``pruning.json`` record (without the id list): counts, sizes, sha256s, check figures.

    Raises:
        ValueError: not a Unigram tokenizer, no corpus text, ``out`` == ``src``.
        PruneCheckError: a corpus text tokenizes differently, or the outputs differ.
        FileNotFoundError: a missing file or corpus path.
    """
    import numpy as np
    import torch
    from safetensors.torch import load_file, save_file
    from tokenizers import Tokenizer

    src, out = Path(src).resolve(), Path(out).resolve()
    if src == out:
        raise ValueError("out must differ from src")
    for f in ("config.json", "model.safetensors", "tokenizer.json"):
        if not (src / f).is_file():
            raise FileNotFoundError(f"{src / f} not found (need an HF folder with a tokenizer.json)")
    texts = corpus_texts(corpus)
    if not texts:
        raise ValueError("the corpus has no text")
    tok_json = json.loads((src / "tokenizer.json").read_text(encoding="utf-8"))
    full = Tokenizer.from_file(str(src / "tokenizer.json"))
    # a tokenizer saved after training may carry truncation (train-nli's max_len): pieces past it
    # would go uncounted, so both tokenizers read whole texts here (the file keeps its settings)
    full.no_truncation()
    full.no_padding()
    if min_count < 1:
        raise ValueError(f"min_count must be >= 1, got {min_count}")
    used = used_ids(full, texts, min_count=min_count)
    keep, counts = _keep_set(tok_json, used)
    new_json, kept = prune_tokenizer_json(tok_json, keep)
    old2new = {o: n for n, o in enumerate(kept)}
    pruned = Tokenizer.from_str(json.dumps(new_json, ensure_ascii=False))
    pruned.no_truncation()
    pruned.no_padding()

    # check 1: every corpus text, same pieces
    mismatches = []
    for i in range(0, len(texts), 2048):
        chunk = texts[i:i + 2048]
        a = full.encode_batch(chunk, add_special_tokens=False)
        b = pruned.encode_batch(chunk, add_special_tokens=False)
        for t, ea, eb in zip(chunk, a, b):
            if [old2new.get(x, -1) for x in ea.ids] != eb.ids:  # -1: a piece below min_count
                mismatches.append(t)
    exact = set(texts)
    if mismatches and min_count > 1:
        exact -= set(mismatches)
        log.info("min_count %d: %d of %d corpus texts tokenize into other (smaller) pieces", min_count,
                 len(mismatches), len(texts))
    elif mismatches:
        raise PruneCheckError(f"{len(mismatches)} of {len(texts)} corpus texts tokenize differently after pruning, "
                              f"e.g. {mismatches[0][:80]!r}; nothing written to {out}")
    log.info("vocabulary %d -> %d pieces (%s); %d of %d corpus texts tokenize identically",
             counts["of"], counts["kept"], counts, len(texts) - len(mismatches), len(texts))

    state = load_file(str(src / "model.safetensors"))
    key = _embedding_key(state)
    rows = state[key].shape[0]
    if rows < len(tok_json["model"]["vocab"]):
        raise ValueError(f"{key} has {rows} rows, fewer than the tokenizer's {len(tok_json['model']['vocab'])} pieces")
    # rows past the tokenizer's pieces (multilingual-e5: 250,037 rows for 250,002 pieces) are never looked up
    state[key] = state[key][torch.tensor(kept)].contiguous()
    cfg = json.loads((src / "config.json").read_text(encoding="utf-8"))
    cfg["vocab_size"] = len(kept)
    for k in ("pad_token_id", "bos_token_id", "eos_token_id"):
        if isinstance(cfg.get(k), int):
            cfg[k] = old2new[cfg[k]]

    stage = out.parent / f".{out.name}.tmp"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    try:
        for f in src.iterdir():
            if f.is_file() and f.name not in ("model.safetensors", "tokenizer.json", "config.json",
                                             "tokenizer_config.json", "metrics.json", "pruning.json"):
                shutil.copyfile(f, stage / f.name)
        save_file(state, str(stage / "model.safetensors"), metadata={"format": "pt"})
        (stage / "config.json").write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
        (stage / "tokenizer.json").write_text(json.dumps(new_json, ensure_ascii=False) + "\n", encoding="utf-8")
        tc_path = src / "tokenizer_config.json"
        if tc_path.is_file():
            tc = json.loads(tc_path.read_text(encoding="utf-8"))
            if isinstance(tc.get("added_tokens_decoder"), dict):
                tc["added_tokens_decoder"] = {str(old2new[int(k)]): v for k, v in tc["added_tokens_decoder"].items()}
            (stage / "tokenizer_config.json").write_text(json.dumps(tc, indent=2, ensure_ascii=False) + "\n",
                                                         encoding="utf-8")

        # check 2: the model's outputs on pairs drawn from the corpus
        figures: dict[str, Any] = {"pairs": 0}
        if pairs > 0:
            sample = _sample_pairs([t for t in texts if t in exact], pairs, seed)
            ref = _outputs(src, sample, max_length)
            got = _outputs(stage, sample, max_length)
            diff = float(np.abs(ref - got).max())
            figures = {"pairs": len(sample), "max_abs_diff": diff, "limit": MAX_ABS_DIFF, "max_length": max_length}
            if diff > MAX_ABS_DIFF:
                raise PruneCheckError(f"pruned model's outputs differ by {diff:.2e} (> {MAX_ABS_DIFF}) on "
                                      f"{len(sample)} corpus pairs; nothing written to {out}")
            log.info("model check: %d pairs, max |diff| %.2e", len(sample), diff)

        record: dict[str, Any] = {
            "schema": 1,
            "source": {"path": str(src), "model_safetensors_sha256": sha256_file(src / "model.safetensors"),
                       "tokenizer_sha256": sha256_file(src / "tokenizer.json")},
            "corpus": {"paths": [str(p) for p in corpus], "texts": len(texts)},
            "counts": counts,
            "rule": "corpus pieces + special tokens + one-character pieces (optionally after U+2581) of Latin, "
                    "Greek, Cyrillic, letter-like, punctuation/digit/currency/math characters + the lowest-score piece",
            "min_count": min_count,
            "tokenizer_check": {"texts": len(texts), "identical": len(texts) - len(mismatches)},
            "model_check": figures,
            "embedding": {"key": key, "rows": [rows, len(kept)]},
        }
        (stage / "pruning.json").write_text(json.dumps({**record, "kept_old_ids": kept}) + "\n", encoding="utf-8")
        if (src / "metrics.json").is_file():
            metrics = json.loads((src / "metrics.json").read_text(encoding="utf-8"))
            metrics["vocab_pruning"] = record
            (stage / "metrics.json").write_text(json.dumps(metrics, indent=1, ensure_ascii=False) + "\n",
                                                encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        stage.rename(out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    log.info("wrote %s", out)
    return record


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="vericite export prune-vocab", description=__doc__.splitlines()[0])
    ap.add_argument("src", help="HF model folder (config.json, model.safetensors, Unigram tokenizer.json)")
    ap.add_argument("out", help="output HF folder")
    ap.add_argument("--corpus", action="append", required=True,
                    help="file or folder of texts (.jsonl/.json: every string; .txt: every line); repeatable")
    ap.add_argument("--pairs", type=int, default=64, help="corpus pairs of the model check (0 = skip)")
    ap.add_argument("--max-length", type=int, default=128, help="tokens per pair in the model check")
    ap.add_argument("--min-count", type=int, default=1,
                    help="keep corpus pieces seen at least this often (1 = all: exact on the corpus)")
    ap.add_argument("--seed", type=int, default=0)
    return ap


def main(argv: list[str] | None = None) -> int:
    """CLI entry (``vericite export prune-vocab``): prune, print the record."""
    args = build_parser().parse_args(argv)
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    rec = prune_vocab(args.src, args.out, args.corpus, pairs=args.pairs, max_length=args.max_length, seed=args.seed,
                      min_count=args.min_count)
    print(json.dumps(rec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
