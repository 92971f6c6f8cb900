"""The module's own greedy decoding loop of :class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM`: the lazy
grammar and prompt-lookup drafts (the latency levers its module docstring describes), over the
instance's llama.cpp context. A mixin: it reads the instance's ``_llm``, ``n_ctx``, ``reuse_prefix``,
``draft_tokens``, ``lazy_grammar``, ``stop_repeats``, anchors and stats; every method runs under the
instance's lock (its callers hold it). The batching session (:mod:`~vericite.engine.llm.batch`) uses
its grammar sampler and token pick too.
"""
from __future__ import annotations

import ctypes
import math
import time
import weakref
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import cancel
from ..errors import ConfigError, InferenceError
from ..records import LLMCall
from .decoding import logits_row as _logits_row
from .decoding import multibyte_fix as _multibyte_fix
from .decoding import repeated_line as _repeated_line
from .decoding import vocab_text as _vocab_text

if TYPE_CHECKING:
    from llama_cpp import Llama

    from .llama_cpp import KVAnchors

#: keys of ``LlamaCppLLM.stats`` / ``last_call_stats`` (see the class docstring)
_LOOP_STATS = ("grammar_ms", "grammar_checks", "grammar_full", "draft_proposed", "draft_accepted", "loop_calls",
               "repeat_stops")


def _kv_tokens(llm) -> list[int]:
    """The tokens whose keys and values are in the live KV cache."""
    return llm.input_ids[:llm.n_tokens].tolist()


class GreedyLoop:
    """Greedy decoding in this package's own loop (see the module docstring)."""

    # what the class mixing this in sets (LlamaCppLLM.__init__); declared for the type checker only
    _llm: Llama
    _anchors: KVAnchors
    n_ctx: int
    reuse_prefix: bool
    anchor_min_tokens: int
    lazy_grammar: bool
    draft_tokens: int
    stop_repeats: bool
    stats: dict[str, float]
    last_call_stats: dict[str, float]
    _cand: tuple[np.ndarray, Any] | None  # (candidates, llama_token_data_array), made on first use
    _batch: Any                            # llama_batch for draft verification, made on first use

    if TYPE_CHECKING:
        def _prompt_tokens(self, messages: list[dict[str, str]] | str) -> list[int]: ...

    def _generate(self, messages: list[dict[str, str]] | str, *, max_tokens: int, purpose: str,
                  grammar: str | None) -> LLMCall:
        """One greedy completion in this module's own loop: lazy grammar and/or prompt-lookup drafts.

        Mirrors ``Llama.create_completion`` at temperature 0: the same prompt tokens (GGUF chat
        template, or BOS + the string), KV prefix reuse and anchors, the cap clipped to the
        context, a stop at end-of-generation tokens and at the chat template's stop string (the
        EOS token's text), and the library's handling of a UTF-8 character split across tokens
        (generation goes on past the cap until the character is complete). With
        ``draft_tokens = 0`` every logit row comes from the same single-token evaluations as the
        library's, so the text is the same token for token. Called under :meth:`chat`'s lock.

        A stopped question (:mod:`~vericite.engine.cancel`) raises Cancelled before the next prompt
        batch or generated token; the KV cache then holds exactly the tokens evaluated so far (no
        draft), which the next call reuses or drops as usual, and no anchor is saved.

        Returns / raises: as :meth:`chat`. Timings: prompt eval from llama.cpp's counters right
        after the prompt; generation = all later decoding (draft verification batches included);
        grammar time goes to ``last_call_stats`` / ``stats`` (see the class docstring).
        """
        import llama_cpp
        from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

        llm, ctx = self._llm, self._llm.ctx
        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        n_vocab = llm.n_vocab()
        tokens = self._prompt_tokens(messages)
        if len(tokens) >= self.n_ctx:
            raise InferenceError(f"'{purpose}': prompt of {len(tokens)} tokens does not fit n_ctx={self.n_ctx}")
        eos = llm.token_eos()
        # the library's GGUF-template handler also stops where the model spells out the EOS text
        stops = [] if isinstance(messages, str) or eos == -1 else [_vocab_text(vocab, eos).encode("utf-8")]
        stops = [x for x in stops if x]
        max_tokens = self.n_ctx - len(tokens) if not max_tokens or max_tokens <= 0 else min(max_tokens, self.n_ctx - len(tokens))
        if not self.reuse_prefix:
            llm.reset()
        else:
            self._anchors.restore_best(tokens)
        st: dict[str, float] = dict.fromkeys(_LOOP_STATS, 0)
        st["loop_calls"] = 1
        llama_cpp.llama_perf_context_reset(ctx)
        t0 = time.perf_counter()
        self._eval(self._unevaluated(tokens))
        logits = _logits_row(ctx, -1, n_vocab)
        perf0 = llama_cpp.llama_perf_context(ctx)  # after the logits read (a synchronize): prompt eval only
        smpl = self._grammar_sampler(vocab, grammar, st) if grammar is not None else None
        drafter = LlamaPromptLookupDecoding(num_pred_tokens=self.draft_tokens) if self.draft_tokens else None
        completion: list[int] = []
        pending: list[int] = []  # drafted tokens in the KV cache after the position `logits` is for
        row = 0                  # batch row of `logits` while drafts are pending
        finish, text, multibyte_fix = "length", b"", 0
        try:
            while True:
                cancel.check()  # once per generated token
                tok = self._pick(logits, smpl, st)
                if llama_cpp.llama_vocab_is_eog(vocab, tok):
                    text, finish = llm.detokenize(completion, prev_tokens=tokens), "stop"
                    break
                if smpl is not None:
                    t = time.perf_counter()
                    llama_cpp.llama_sampler_accept(smpl, tok)
                    st["grammar_ms"] += (time.perf_counter() - t) * 1000
                completion.append(tok)
                all_text = llm.detokenize(completion, prev_tokens=tokens)
                multibyte_fix = _multibyte_fix(all_text, multibyte_fix)
                if multibyte_fix > 0:  # as create_completion: no stop or cap check inside a character
                    multibyte_fix -= 1
                else:
                    hit = [x for x in stops if x in all_text]
                    if hit:
                        text, finish = all_text[:all_text.index(hit[0])], "stop"
                        break
                    cut = _repeated_line(all_text) if self.stop_repeats else None
                    if cut is not None:
                        text, finish = all_text[:cut], "stop"
                        st["repeat_stops"] += 1
                        break
                    if len(completion) >= max_tokens:
                        text, finish = all_text, "length"
                        break
                if pending and tok == pending[0]:  # the draft guessed right: its row is the next logits
                    pending.pop(0)
                    row += 1
                    st["draft_accepted"] += 1
                    logits = _logits_row(ctx, row, n_vocab)
                    continue
                if pending:  # a wrong guess: drop it and the drafts after it from the KV cache
                    self._drop_kv_from(llm.n_tokens - len(pending))
                    pending = []
                if llm.n_tokens >= self.n_ctx:  # only a character split at the context's end gets here
                    text, finish = all_text, "length"
                    break
                draft = self._draft(drafter, tok, max_tokens - len(completion) - 1) if drafter else []
                if draft:
                    st["draft_proposed"] += len(draft)
                    self._decode_batch([tok, *draft])
                    pending, row = draft, 0
                    logits = _logits_row(ctx, 0, n_vocab)
                else:
                    llm.eval([tok])
                    logits = _logits_row(ctx, -1, n_vocab)
        finally:
            if smpl is not None:
                llama_cpp.llama_sampler_free(smpl)
            if pending:
                self._drop_kv_from(llm.n_tokens - len(pending))
                llm._requires_eval = True  # the live logits belong to a dropped draft (see KVAnchors)
        wall_ms = (time.perf_counter() - t0) * 1000
        perf = llama_cpp.llama_perf_context(ctx)
        if self.reuse_prefix and len(tokens) >= self.anchor_min_tokens:
            self._anchors.save()
        st["grammar_ms"] = round(st["grammar_ms"], 1)
        self.last_call_stats = st
        for k, v in st.items():
            self.stats[k] = round(self.stats[k] + v, 1)
        return LLMCall(
            purpose=purpose,
            prompt_tokens=len(tokens),
            prompt_tokens_computed=int(perf0.n_p_eval),
            completion_tokens=len(completion),
            prompt_eval_ms=round(float(perf0.t_p_eval_ms), 1),
            generation_ms=round(float(perf.t_p_eval_ms - perf0.t_p_eval_ms + perf.t_eval_ms), 1),
            wall_ms=round(wall_ms, 1),
            finish_reason=finish,
            text=text.decode("utf-8", errors="ignore").strip(),
        )

    def _eval(self, tokens: list[int]) -> None:
        """``Llama.eval(tokens)`` one ``n_batch`` chunk at a time, the question's stop signal checked
        before each (:mod:`~vericite.engine.cancel`). ``Llama.eval`` cuts the same chunks itself, so
        the logits and the KV cache are those of one call.

        Raises:
            Cancelled: the question was stopped; ``n_tokens`` counts the chunks evaluated.
        """
        llm = self._llm
        for i in range(0, max(1, len(tokens)), llm.n_batch):
            cancel.check()
            llm.eval(tokens[i:i + llm.n_batch])

    def _unevaluated(self, tokens: list[int]) -> list[int]:
        """The prompt tokens still to evaluate after KV prefix reuse (sets ``n_tokens`` to the kept
        prefix), decided as ``Llama.generate`` does: an exactly cached prompt with live logits needs
        none; otherwise at least one token is evaluated again to refresh the logits."""
        llm = self._llm
        if not llm.n_tokens:
            return tokens
        prefix = llm.longest_token_prefix(_kv_tokens(llm), tokens)
        if prefix == len(tokens) == llm.n_tokens and not getattr(llm, "_requires_eval", True):
            return []
        prefix = min(prefix, len(tokens) - 1)
        llm.n_tokens = prefix  # Llama.eval drops the KV cache from n_tokens on
        return tokens[prefix:]

    def _grammar_sampler(self, vocab, grammar: str, st: dict):
        """A fresh llama.cpp grammar sampler for ``grammar`` (free it with llama_sampler_free).

        Raises:
            ConfigError: llama.cpp cannot parse the grammar.
        """
        import llama_cpp

        t = time.perf_counter()
        smpl = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")
        st["grammar_ms"] += (time.perf_counter() - t) * 1000
        if not smpl:
            raise ConfigError(f"llama.cpp could not parse the GBNF grammar: {grammar[:200]!r}")
        return smpl

    def _pick(self, logits: np.ndarray, smpl, st: dict) -> int:
        """The greedy token from one row of logits (float32, shape (n_vocab,)) under the grammar
        sampler ``smpl`` (None: unconstrained). Ties go to the lowest id, as llama.cpp's greedy
        sampler. Lazy: the argmax alone is checked first; the whole vocabulary is masked only when
        it is rejected, which picks what masking first picks (the argmax is allowed, or it is not).

        Raises:
            InferenceError: the grammar allows no token at all.
        """
        import llama_cpp

        tok = int(np.argmax(logits))
        if smpl is None:
            return tok
        t = time.perf_counter()
        try:
            if self.lazy_grammar:
                st["grammar_checks"] += 1
                one = (llama_cpp.llama_token_data * 1)()
                # llama_cpp declares the ctypes fields as c_int32/c_float; ctypes converts the Python numbers
                one[0].id, one[0].logit, one[0].p = tok, float(logits[tok]), 0.0  # type: ignore[assignment]
                arr = llama_cpp.llama_token_data_array(data=one, size=1, selected=-1, sorted=False)
                llama_cpp.llama_sampler_apply(smpl, ctypes.byref(arr))
                if not math.isinf(one[0].logit):
                    return tok
            st["grammar_full"] += 1
            cand, arr = self._candidates(len(logits))
            cand["logit"] = logits
            arr.size, arr.selected, arr.sorted = len(cand), -1, False
            llama_cpp.llama_sampler_apply(smpl, ctypes.byref(arr))
            tok = int(np.argmax(cand["logit"]))
            if not np.isfinite(cand["logit"][tok]):
                raise InferenceError("the grammar allows no next token (a dead end in the GBNF)")
            return tok
        finally:
            st["grammar_ms"] += (time.perf_counter() - t) * 1000

    def _candidates(self, n_vocab: int):
        """The reusable full-vocabulary candidate buffer: a numpy record array laid out as
        ``llama_token_data`` (id int32, logit float32, p float32; 12 bytes each, ids 0..n_vocab-1)
        and a ``llama_token_data_array`` pointing at it."""
        import llama_cpp

        if self._cand is None or len(self._cand[0]) != n_vocab:
            cand = np.zeros(n_vocab, dtype=np.dtype([("id", "<i4"), ("logit", "<f4"), ("p", "<f4")]))
            cand["id"] = np.arange(n_vocab, dtype=np.int32)
            ptr = ctypes.cast(cand.ctypes.data, ctypes.POINTER(llama_cpp.llama_token_data))
            self._cand = (cand, llama_cpp.llama_token_data_array(data=ptr, size=n_vocab, selected=-1, sorted=False))
        return self._cand

    def _draft(self, drafter, tok: int, room: int) -> list[int]:
        """Up to ``min(draft_tokens, room)`` tokens to verify after ``tok``: what followed the latest
        2-gram (or 1-gram) of prompt + output, ``tok`` included, where it occurred first."""
        llm = self._llm
        k = min(self.draft_tokens, room, self.n_ctx - llm.n_tokens - 1)
        if k <= 0:
            return []
        n = llm.n_tokens
        llm.input_ids[n] = tok  # the drafter reads the history up to tok (evaluated next)
        return [int(t) for t in drafter(llm.input_ids[:n + 1])[:k]]

    def _decode_batch(self, toks: list[int]) -> None:
        """Evaluate ``toks`` after the KV cache's ``n_tokens`` with logits for every position
        (``Llama.eval`` computes the last position's only), as draft verification needs.

        Raises:
            InferenceError: llama_decode failed (e.g. no KV slot).
        """
        import llama_cpp

        llm = self._llm
        if self._batch is None:
            self._batch = llama_cpp.llama_batch_init(self.draft_tokens + 1, 0, 1)
            weakref.finalize(self, llama_cpp.llama_batch_free, self._batch)
        b, n0 = self._batch, llm.n_tokens
        self._drop_kv_from(n0)
        b.n_tokens = len(toks)
        for i, t in enumerate(toks):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = t, n0 + i, 1, 1
            b.seq_id[i][0] = 0
        rc = llama_cpp.llama_decode(llm.ctx, b)
        if rc != 0:
            raise InferenceError(f"llama_decode returned {rc} verifying {len(toks) - 1} drafted tokens")
        llm.input_ids[n0:n0 + len(toks)] = toks
        llm.n_tokens = n0 + len(toks)

    def _drop_kv_from(self, pos: int) -> None:
        """Forget the KV cache from position ``pos`` on (``n_tokens`` becomes ``pos``)."""
        import llama_cpp

        llama_cpp.llama_memory_seq_rm(llama_cpp.llama_get_memory(self._llm.ctx), -1, pos, -1)
        self._llm.n_tokens = pos
