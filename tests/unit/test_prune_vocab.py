"""Vocabulary pruning (export/prune_vocab.py): the rules that need no model (no torch).

The same subject in other tiers: tests/lab/test_prune_vocab.py.
"""
from __future__ import annotations

import pytest


def test_refuses_a_non_unigram_tokenizer_and_missing_specials():
    from vericite.export.prune_vocab import prune_tokenizer_json

    with pytest.raises(ValueError, match="Unigram"):
        prune_tokenizer_json({"model": {"type": "WordPiece", "vocab": {}}}, [0])
    tj = {"model": {"type": "Unigram", "unk_id": 3, "vocab": [["<s>", 0.0], ["a", -1.0], ["b", -2.0], ["<unk>", 0.0]]},
          "added_tokens": [{"id": 0, "content": "<s>"}, {"id": 3, "content": "<unk>"}]}
    with pytest.raises(ValueError, match="special"):
        prune_tokenizer_json(tj, [0, 1])
    out, kept = prune_tokenizer_json(tj, [0, 2, 3])
    assert kept == [0, 2, 3] and out["model"]["unk_id"] == 2 and out["added_tokens"][1]["id"] == 2


def test_keep_char_rule():
    from vericite.export.prune_vocab import keep_char

    assert all(keep_char(c) for c in "aZé1,.!?«»—№ЖёΩ€+")
    assert not any(keep_char(c) for c in "漢あ한")
