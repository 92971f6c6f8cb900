"""Build a tiny random-weight Qwen2 GGUF model for fast tests of the llama.cpp backend.

Why this exists
---------------
The llama.cpp backend (llama-cpp-python) needs a real GGUF file to load, tokenize,
apply a chat template, sample, honour GBNF grammars and report token usage.  Real
models are hundreds of MB and cannot be fetched in CI (no Hugging Face hub), so the
test-suite ships ``tests/data/tiny-qwen2.gguf`` instead: a ~0.5 MB file whose
*weights are random noise* but whose *plumbing* is exactly that of a Qwen2-Instruct
model (byte-level BPE vocab with the Qwen2 pre-tokenizer, ChatML special tokens and
chat template, eos = ``<|im_end|>``).  Its output text is gibberish; tests should only
assert on structure (types, token counts, grammar conformance, determinism).

This module regenerates that file reproducibly:

1. train a small byte-level BPE tokenizer offline with ``tokenizers`` on a built-in
   corpus, using Qwen2's normalizer / pre-tokenizer / decoder verbatim, and wrap it as a
   ``PreTrainedTokenizerFast`` with Qwen2's special tokens and ChatML template;
2. build a 2-layer, 64-wide ``Qwen2ForCausalLM`` with seeded random weights;
3. convert it with the ``convert_hf_to_gguf.py`` shipped inside the llama-cpp-python
   sdist (same llama.cpp revision as the runtime we test against), which is downloaded
   once with ``pip download`` and cached under ``~/.cache/vericite/``;
4. write ``<out>.gguf`` and a ``sha256sum``-compatible ``<out>.gguf.sha256``.

The converter's BPE pre-tokenizer detection fingerprints the *token ids* produced for a
probe string (``chkhsh``), i.e. it recognises specific published vocabularies, so no
freshly trained vocab can ever match a known hash and the converter refuses it.  There
is no command-line option to override this.  Because our pre-tokenizer is byte-for-byte
Qwen2's (checked in :func:`_check_qwen2_pretokenizer`), we run the converter through a
small shim that answers ``"qwen2"`` only when the hash lookup fails; everything else in
the converter runs unmodified.

Usage (from the repository root)::

    .venv/bin/python -m export.tiny_gguf            # writes tests/data/tiny-qwen2.gguf
    .venv/bin/python -m export.tiny_gguf --out /tmp/x.gguf --seed 1

Requires torch, transformers, tokenizers, numpy, safetensors, tqdm, pyyaml, requests and
sentencepiece (the converter imports sentencepiece before looking for a
``tokenizer.model``, even for BPE models), plus network access to PyPI on first run.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from vericite.engine.config.paths import REPO_ROOT

logger = logging.getLogger(__name__)

LLAMA_CPP_PYTHON_VERSION = "0.3.36"
DEFAULT_OUT = REPO_ROOT / "tests" / "data" / "tiny-qwen2.gguf"
DEFAULT_CACHE_DIR = Path(os.environ.get("VERICITE_CACHE_DIR", Path.home() / ".cache" / "vericite"))
MODEL_NAME = "tiny-qwen2"

# --- tokenizer ---------------------------------------------------------------------------

BPE_VOCAB_SIZE = 765  # learned byte-level BPE vocab; + 3 special tokens = 768 ids
IM_START, IM_END, ENDOFTEXT = "<|im_start|>", "<|im_end|>", "<|endoftext|>"
SPECIAL_TOKENS = [ENDOFTEXT, IM_START, IM_END]

# The Qwen2 chat template (ChatML), verbatim.
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

# Qwen2's pre-tokenizer split regex, as in Qwen/Qwen2-*/tokenizer.json (and in
# llama.cpp's LLAMA_VOCAB_PRE_TYPE_QWEN2, which is what tokenizer.ggml.pre="qwen2" selects).
QWEN2_SPLIT_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# The tokenizer.json sections that decide how text is split before BPE (what llama.cpp's
# "pre-tokenizer type" stands for), as serialised in Qwen2's tokenizer.json.  We require
# ours to serialise identically.
QWEN2_TOKENIZER_JSON_SECTIONS = {
    "normalizer": {"type": "NFC"},
    "pre_tokenizer": {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": QWEN2_SPLIT_REGEX}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        ],
    },
}

_CORPUS_PARAGRAPHS = [
    "The quick brown fox jumps over the lazy dog. A journey of a thousand miles begins with a single step.",
    "Answer the question using only the numbered sources below. Cite every claim with its source number "
    "in square brackets, for example [1] or [2]. If the sources do not contain the answer, say that you do "
    "not know.",
    "Question: When was the bridge opened? Answer: The bridge was opened in 1932 [1], and it was "
    "extended in 1987 [2][3].",
    "Does the passage support the claim? Answer Yes or No. Yes. No. Yes, it does. No, it does not.",
    "The city lies on the northern bank of the river. Its population grew quickly during the nineteenth "
    "century, when the railway connected it to the capital and the port.",
    "Water boils at 100 degrees Celsius at sea level. The Earth orbits the Sun once every 365.25 days, "
    "and the Moon orbits the Earth in about 27 days.",
    "She wrote three novels and a collection of short stories. Her first book was published in 1961; "
    "the last one appeared after her death.",
    "Researchers measured the effect in 42 patients. The results were significant (p < 0.05), but the "
    "authors warned that the sample was small.",
    "The committee will meet on Monday, Tuesday, Wednesday, Thursday and Friday. Please read the report "
    "before the meeting and bring your notes.",
    "Although it was raining, they walked to the station, bought two tickets and took the early train "
    "to the coast.",
    "Sources: [1] History of the bridge. [2] City archive, 1990. [3] Annual report. [4] Interview. "
    "[5] Encyclopedia entry. [6] News article. [7] Government statistics. [8] Museum catalogue.",
    "I don't think it's true; they're sure we'll win, you've said you'd come, and I'm glad he's here.",
    "What is the capital of France? Paris is the capital of France [1]. Who discovered penicillin? "
    "Alexander Fleming discovered penicillin in 1928 [2].",
    "The system retrieves relevant passages, generates an answer, and verifies that each citation "
    "actually supports the sentence it is attached to.",
]


def _training_corpus() -> list[str]:
    """A small built-in English corpus plus digits, citation markers and Yes/No."""
    lines = list(_CORPUS_PARAGRAPHS)
    lines.append(" ".join(str(i) for i in range(100)))
    lines.append("0123456789 " * 4)
    lines.append(" ".join(f"[{i}]" for i in range(1, 21)) + " " + "".join(f"[{i}]" for i in range(1, 21)))
    lines.extend(["Yes", "No", "Yes.", "No.", " Yes", " No"] * 8)
    # Repeat so frequent pairs clearly dominate and merges are stable.
    return lines * 3


def build_tokenizer():
    """Train the byte-level BPE tokenizer and wrap it as a Qwen2-style fast tokenizer."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None, byte_fallback=False))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_SPLIT_REGEX), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    tok.post_processor = processors.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()

    trainer = trainers.BpeTrainer(
        vocab_size=BPE_VOCAB_SIZE,
        min_frequency=2,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_training_corpus(), trainer=trainer)
    learned = tok.get_vocab_size()
    if learned != BPE_VOCAB_SIZE:
        logger.warning("BPE trainer stopped at %d tokens (asked for %d)", learned, BPE_VOCAB_SIZE)

    # Qwen2 puts its special tokens right after the BPE vocab, in this order.
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIAL_TOKENS])

    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=None,
        eos_token=IM_END,
        pad_token=ENDOFTEXT,
        unk_token=None,
        additional_special_tokens=[IM_START, IM_END],
        model_max_length=2048,
        clean_up_tokenization_spaces=False,
        chat_template=CHAT_TEMPLATE,
    )
    for offset, special in enumerate(SPECIAL_TOKENS):
        ids = fast.encode(special, add_special_tokens=False)
        if ids != [learned + offset]:
            raise RuntimeError(f"special token {special!r} encodes to {ids}, expected [{learned + offset}]")
    logger.info("tokenizer: %d ids (%d BPE + %d special)", len(fast), learned, len(SPECIAL_TOKENS))
    return fast


def _check_qwen2_pretokenizer(model_dir: Path) -> None:
    """Fail unless the saved tokenizer.json splits text exactly as Qwen2's does."""
    saved = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    for key, expected in QWEN2_TOKENIZER_JSON_SECTIONS.items():
        if saved.get(key) != expected:
            raise RuntimeError(
                f"tokenizer.json {key!r} differs from Qwen2's; the 'qwen2' pre-tokenizer override "
                f"would be wrong.\n got:      {saved.get(key)}\n expected: {expected}"
            )


# --- model ------------------------------------------------------------------------------


def build_model(tokenizer, seed: int):
    """A 2-layer, 64-wide Qwen2ForCausalLM with seeded random weights (~0.15 M parameters)."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        # Wider than the default 0.02 so greedy argmax has clear margins and stays
        # stable across CPUs / SIMD paths.
        initializer_range=0.2,
        bos_token_id=tokenizer.convert_tokens_to_ids(ENDOFTEXT),
        eos_token_id=tokenizer.convert_tokens_to_ids(IM_END),
        pad_token_id=tokenizer.convert_tokens_to_ids(ENDOFTEXT),
        use_sliding_window=False,
        torch_dtype="float32",
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config).to(torch.float32).eval()
    logger.info("model: %d parameters", sum(p.numel() for p in model.parameters()))
    return model


# --- converter --------------------------------------------------------------------------


def _fetch_sdist(cache_dir: Path) -> Path:
    """Download (once) the llama-cpp-python sdist that carries convert_hf_to_gguf.py."""
    sdist_dir = cache_dir / "sdist"
    name = f"llama_cpp_python-{LLAMA_CPP_PYTHON_VERSION}.tar.gz"
    sdist = sdist_dir / name
    if sdist.is_file():
        logger.info("using cached sdist %s", sdist)
        return sdist
    sdist_dir.mkdir(parents=True, exist_ok=True)
    logger.info("downloading llama-cpp-python==%s sdist (~75 MB) into %s", LLAMA_CPP_PYTHON_VERSION, sdist_dir)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
         f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}", "-d", str(sdist_dir)],
        check=True,
    )
    if not sdist.is_file():
        raise FileNotFoundError(f"pip download did not produce {sdist}")
    return sdist


def _extract_converter(cache_dir: Path) -> Path:
    """Extract convert_hf_to_gguf.py and the python packages it imports; return their dir.

    Besides ``gguf-py/`` the script needs ``conversion/``: current llama.cpp keeps the
    per-architecture model classes there and convert_hf_to_gguf.py is only the CLI.
    """
    dest = cache_dir / f"llama.cpp-{LLAMA_CPP_PYTHON_VERSION}"
    done_marker = dest / ".extracted"
    if done_marker.is_file():
        return dest
    sdist = _fetch_sdist(cache_dir)
    prefix = f"llama_cpp_python-{LLAMA_CPP_PYTHON_VERSION}/vendor/llama.cpp/"
    wanted_dirs = ("gguf-py/", "conversion/")
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    n = 0
    with tarfile.open(sdist, "r:gz") as tar:
        for member in tar:
            if not member.name.startswith(prefix):
                continue
            rel = member.name[len(prefix):]
            if rel != "convert_hf_to_gguf.py" and not rel.startswith(wanted_dirs):
                continue
            member.name = rel
            tar.extract(member, dest, filter="data")
            n += 1
    if not (dest / "convert_hf_to_gguf.py").is_file():
        raise FileNotFoundError(f"convert_hf_to_gguf.py not found in {sdist}")
    done_marker.write_text(f"{sdist.name}\n")
    logger.info("extracted %d converter files into %s", n, dest)
    return dest


# Runs the unmodified converter in a child interpreter, with one narrow override: if the
# chkhsh lookup fails (always the case for a freshly trained vocab) report the "qwen2"
# pre-tokenizer, which the parent has verified is what our tokenizer.json uses.
_PRE_OVERRIDE_MARK = "unknown chkhsh for a freshly trained vocab; using pre-tokenizer qwen2"
_CONVERTER_SHIM = """
import logging, runpy, sys
script = sys.argv[1]
sys.argv = sys.argv[1:]
from conversion.base import TextModel
_lookup = TextModel.get_vocab_base_pre
def get_vocab_base_pre(self, tokenizer):
    try:
        return _lookup(self, tokenizer)
    except NotImplementedError:
        logging.getLogger('tiny_gguf').warning('%s')
        return 'qwen2'
TextModel.get_vocab_base_pre = get_vocab_base_pre
runpy.run_path(script, run_name='__main__')
""" % _PRE_OVERRIDE_MARK


def _check_converter_deps() -> None:
    missing = [m for m in ("numpy", "torch", "transformers", "safetensors", "sentencepiece", "tqdm", "yaml", "requests")
               if importlib.util.find_spec(m) is None]
    if missing:
        raise RuntimeError(f"convert_hf_to_gguf.py needs these missing modules: {', '.join(missing)}")


def convert_to_gguf(model_dir: Path, out_file: Path, converter_dir: Path, outtype: str = "f32") -> None:
    _check_converter_deps()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(converter_dir / "gguf-py"), str(converter_dir), env.get("PYTHONPATH", "")) if p
    )
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    cmd = [sys.executable, "-c", _CONVERTER_SHIM, str(converter_dir / "convert_hf_to_gguf.py"),
           str(model_dir), "--outfile", str(out_file), "--outtype", outtype, "--model-name", MODEL_NAME]
    logger.info("running convert_hf_to_gguf.py (outtype %s)", outtype)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    for line in proc.stderr.splitlines() + proc.stdout.splitlines():
        logger.debug("converter: %s", line)
    if proc.returncode != 0:
        raise RuntimeError(f"convert_hf_to_gguf.py failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    if _PRE_OVERRIDE_MARK in proc.stderr:
        logger.info("converter did not know this vocab's chkhsh (expected); wrote tokenizer.ggml.pre = 'qwen2'")


# --- entry points -----------------------------------------------------------------------


def make_tiny_gguf(out_path: str | os.PathLike, *, seed: int = 0, cache_dir: Path | None = None) -> Path:
    """Build the tiny random Qwen2 GGUF at ``out_path`` (+ ``out_path.sha256``); return its path."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    out_path = Path(out_path).resolve()
    cache_dir = Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR
    converter_dir = _extract_converter(cache_dir)

    with tempfile.TemporaryDirectory(prefix="tiny-gguf-") as tmp:
        model_dir = Path(tmp) / MODEL_NAME
        tokenizer = build_tokenizer()
        model = build_model(tokenizer, seed)
        model.save_pretrained(model_dir, safe_serialization=True)
        tokenizer.save_pretrained(model_dir)
        _check_qwen2_pretokenizer(model_dir)

        tmp_out = Path(tmp) / "model.gguf"
        convert_to_gguf(model_dir, tmp_out, converter_dir)
        out_path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tmp_out, out_path)

    digest = hashlib.sha256(out_path.read_bytes()).hexdigest()
    out_path.with_name(out_path.name + ".sha256").write_text(f"{digest}  {out_path.name}\n")
    logger.info("wrote %s (%d bytes, sha256 %s)", out_path, out_path.stat().st_size, digest)
    return out_path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output .gguf (default: {DEFAULT_OUT})")
    parser.add_argument("--seed", type=int, default=0, help="torch seed for the random weights")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR, help="where the sdist is cached")
    parser.add_argument("-v", "--verbose", action="store_true", help="also log the converter's output")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    start = time.perf_counter()
    make_tiny_gguf(args.out, seed=args.seed, cache_dir=args.cache_dir)
    logger.info("done in %.1f s", time.perf_counter() - start)


if __name__ == "__main__":
    main()
