"""Greedy decoding's bookkeeping, shared by the sequential loop (:meth:`LlamaCppLLM._generate
<vericite.engine.llm.llama_cpp.LlamaCppLLM._generate>`) and the batched one (:mod:`~vericite.engine.llm.batch`):
a logits row of the last decode, a completion's text token by token (stops, cap, a UTF-8 character
split across tokens) as llama-cpp-python's ``create_completion`` makes it, and the repeated-line stop."""
from __future__ import annotations

import numpy as np

from ..errors import InferenceError


def logits_row(ctx, i: int, n_vocab: int) -> np.ndarray:
    """Row ``i`` of the last decode's logits (-1: the last row) as a float32 view, shape (n_vocab,);
    valid until the next decode.

    Raises:
        InferenceError: llama.cpp has no logits for that row.
    """
    import llama_cpp

    ptr = llama_cpp.llama_get_logits_ith(ctx, i)
    if not ptr:
        raise InferenceError(f"llama.cpp returned no logits for batch row {i}")
    return np.ctypeslib.as_array(ptr, shape=(n_vocab,))


def multibyte_fix(all_text: bytes, current: int) -> int:
    """``create_completion``'s count of tokens to wait for when the text ends inside a UTF-8
    character (kept verbatim, quirks included, so both loops stop after the same token)."""
    for k, char in enumerate(all_text[-3:]):
        k = 3 - k
        for num, pattern in [(2, 192), (3, 224), (4, 240)]:
            if num > k and pattern & char == pattern:
                current = num - k
    return current


def repeated_line(text: bytes) -> int | None:
    """Where a greedy loop starts: when ``text`` has just completed a line (ends with a newline) that
    equals an earlier line (spacing aside, non-empty), the byte offset of that repeated line, so
    ``text[:offset]`` keeps everything before it; else None. A small model's greedy extraction
    otherwise copies the same fact line until the token cap."""
    if not text.endswith(b"\n"):
        return None
    lines = text.split(b"\n")[:-1]
    last = b" ".join(lines[-1].split())
    if not last or all(b" ".join(x.split()) != last for x in lines[:-1]):
        return None
    return len(text) - len(lines[-1]) - 1


def cut_at_repeat(text: bytes) -> bytes:
    """``text`` cut where a decoding loop with the repeated-line stop would have ended it (the
    first completed line equal to an earlier one, :func:`repeated_line`); unchanged when none.
    Greedy decoding is deterministic, so this is that loop's text for a server that generated on
    to its cap."""
    end = text.find(b"\n")
    while end != -1:
        cut = repeated_line(text[:end + 1])
        if cut is not None:
            return text[:cut]
        end = text.find(b"\n", end + 1)
    return text


def vocab_text(vocab, token: int) -> str:
    """A token's text in the vocabulary, as llama-cpp-python's chat handlers read the EOS token's."""
    import llama_cpp

    return llama_cpp.llama_vocab_get_text(vocab, token).decode("utf-8")


class Completion:
    """One greedy completion's text bookkeeping, token by token, as :meth:`LlamaCppLLM._generate`
    does it (and ``create_completion`` at temperature 0): an end-of-generation token stops; else the
    token is accepted (``accept``: the grammar), the text is detokenised after the prompt, and
    unless it ends inside a UTF-8 character the stop strings, the repeated-line stop (``stop_repeats``)
    and the cap are checked. Used by the batched decoder (:mod:`~vericite.engine.llm.batch`), one per sequence."""

    def __init__(self, llm, vocab, prompt: list[int], stops: list[bytes], max_tokens: int,
                 stop_repeats: bool = False):
        self._llm, self._vocab, self._prompt = llm, vocab, prompt
        self.stops, self.max_tokens, self.stop_repeats = stops, max_tokens, stop_repeats
        self.tokens: list[int] = []
        self.text: bytes = b""
        self.finish: str | None = None  # "stop" or "length" once finished
        self._all, self._fix = b"", 0

    def add(self, tok: int, accept=None) -> bool:
        """Take the next greedy token; True when the completion is finished (``text``, ``finish`` set)."""
        import llama_cpp

        if llama_cpp.llama_vocab_is_eog(self._vocab, tok):
            self.text, self.finish = self._llm.detokenize(self.tokens, prev_tokens=self._prompt), "stop"
            return True
        if accept is not None:
            accept(tok)
        self.tokens.append(tok)
        self._all = self._llm.detokenize(self.tokens, prev_tokens=self._prompt)
        self._fix = multibyte_fix(self._all, self._fix)
        if self._fix > 0:
            self._fix -= 1
            return False
        hit = [x for x in self.stops if x in self._all]
        if hit:
            self.text, self.finish = self._all[:self._all.index(hit[0])], "stop"
            return True
        cut = repeated_line(self._all) if self.stop_repeats else None
        if cut is not None:
            self.text, self.finish = self._all[:cut], "stop"
            return True
        if len(self.tokens) >= self.max_tokens:
            self.text, self.finish = self._all, "length"
            return True
        return False

    def cut(self) -> None:
        """The context is full: finish with the text so far."""
        self.text, self.finish = self._all, "length"
