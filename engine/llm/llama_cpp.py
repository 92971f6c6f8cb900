"""LLM backend: llama.cpp (llama-cpp-python) on a local GGUF file.

Greedy decoding, fixed seed, chat template read from the GGUF, optional GBNF grammar, and one
:class:`~vericite.engine.records.LLMCall` per call with token counts and timings. One instance
serves any number of threads: one lock around every llama.cpp call makes them take turns (the
outputs equal a sequential run), since llama.cpp contexts are not thread-safe.

Two latency levers (issue 17) run in this module's own greedy loop (:meth:`LlamaCppLLM._generate`)
instead of llama-cpp-python's ``create_completion``:

- lazy grammar (``lazy_grammar=True``, default): the argmax of the raw logits is checked alone
  against the grammar, and the grammar is applied to the whole vocabulary only when that token is
  rejected (as llama.cpp's own common sampler does). Greedy, so the chosen token is the same as
  when the grammar masks the vocabulary first; only the ~150k-token mask per token is saved.
- prompt-lookup decoding (``draft_tokens=N > 0``): up to N tokens that follow the latest n-gram's
  earlier occurrence in the prompt or output are drafted (llama-cpp-python's
  ``LlamaPromptLookupDecoding``) and verified in one batch; the greedy choices decide what is
  kept, so the output is the greedy output up to float rounding of batched evaluation. That
  rounding does differ on quantised models (the 0.5B Qwen Q4_K_M changed 1 of 2 answers), and on
  2 CPU cores a 9-token batch costs ~6 single-token steps, so it is off by default (docs/benchmarks.md).
  The drafter is used directly rather than as ``Llama(draft_model=...)``: that forces
  ``logits_all`` (full-vocabulary logits for every prompt token, an n_ctx x n_vocab float32
  buffer: 2.5 GB for Qwen at n_ctx 4096) and its loop masks the whole vocabulary per token.
"""
from __future__ import annotations

import ctypes
import functools
import logging
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import cancel
from ..errors import ConfigError, InferenceError, ModelFileError
from ..records import LLMCall
from .greedy import _LOOP_STATS, GreedyLoop, _kv_tokens

if TYPE_CHECKING:
    from .batch import _Engine

log = logging.getLogger(__name__)


def _serialised(method):
    """Run ``method`` under the instance's lock; llama.cpp's own errors become InferenceError naming the call."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            try:
                return method(self, *args, **kwargs)
            except (InferenceError, ConfigError):
                raise
            except (RuntimeError, ValueError, OSError) as e:  # llama_decode returned -1, context full, ...
                what = kwargs.get("purpose") or method.__name__
                raise InferenceError(f"llama.cpp call {what!r} on {self.name} failed: {e}") from e
    return run


class LlamaCppLLM(GreedyLoop):
    """A chat LLM running in llama.cpp; safe to share between threads (calls take turns).

    Args:
        model_path: a GGUF file.
        n_ctx: context size in tokens (prompt + completion).
        n_threads: CPU threads for generation and for prompt eval (llama.cpp's ``n_threads`` and
            ``n_threads_batch``; default: all cores).
        n_gpu_layers: layers to offload to a GPU build of llama.cpp (0 = CPU only, -1 = all).
        seed: RNG seed (decoding is greedy; the seed matters only for reproducible ties).
        chat_format: override the GGUF's chat template with a llama-cpp-python format name;
            None (default) requires the GGUF to carry ``tokenizer.chat_template``.
        reuse_prefix: keep the KV cache between calls, so a prompt that starts with the previous
            call's tokens evaluates only the new ones (default). False evaluates every prompt from
            scratch, as separate API calls do (the reference order of ``vericite bench latency``).
        anchor_min_tokens: after a chat call whose prompt has at least this many tokens, keep a
            copy of the KV cache (an "anchor", ~28 KB per token for the 1.5B Qwen); a later prompt
            sharing a longer prefix with an anchor than with the live KV cache restores it first.
            This is how stage 3 reuses stage 1's documents after the stage-2 calls in between.
        max_anchors: anchors kept (least recently used dropped).
        lazy_grammar: under a grammar, check only the greedy token against it and mask the whole
            vocabulary only when that token is rejected (same output, less grammar work per token).
            False decodes grammar calls with llama-cpp-python's sampler chain, which masks the
            whole vocabulary for every token (the reference for tests and ``bench latency``).
        draft_tokens: prompt-lookup decoding: draft up to this many tokens per step from earlier
            occurrences of the latest 2-gram (prompt and output) and verify them in one batch;
            0 (default) turns it off. Applies to every chat call, with or without a grammar.
        stop_repeats: stop a completion when it completes a line equal to an earlier one, the repeat
            left out (:func:`~vericite.engine.llm.decoding.repeated_line`: a greedy loop would copy it up
            to the cap; ``LLMCall.finish_reason`` is then "stop"). Every call then uses the own loop.
            False (default) decodes as llama-cpp-python does.

    Calls that use the module's own loop (a grammar with ``lazy_grammar``, ``draft_tokens > 0``, or
    ``stop_repeats``)
    need the prompt as tokens: a ``chat_format`` override cannot be rendered that way, so chat
    messages under an override always go through ``create_chat_completion`` (levers off).

    ``stats`` accumulates, over the calls that used the own loop: ``grammar_ms`` (time in the
    grammar: parse, checks, full-vocabulary masks, accepts), ``grammar_checks`` (tokens checked
    alone), ``grammar_full`` (full-vocabulary masks), ``draft_proposed`` / ``draft_accepted``
    (drafted tokens / those kept), ``loop_calls``, ``repeat_stops`` (completions ended by
    ``stop_repeats``). ``last_call_stats`` holds the same keys for the latest ``chat`` call (empty
    dict: it went through llama-cpp-python's own loop, where grammar time is only visible as
    wall - prompt eval - generation).

    Raises:
        ModelFileError: the file is missing or llama.cpp cannot load it.
        ConfigError: the GGUF has no chat template and no ``chat_format`` was given; ``draft_tokens < 0``.
    """

    def __init__(self, model_path: str | Path, *, n_ctx: int = 4096, n_threads: int | None = None,
                 n_gpu_layers: int = 0, seed: int = 0, chat_format: str | None = None, reuse_prefix: bool = True,
                 anchor_min_tokens: int = 512, max_anchors: int = 2, lazy_grammar: bool = True,
                 draft_tokens: int = 0, stop_repeats: bool = False):
        from llama_cpp import (
            Llama,  # imported here: the package is heavy and optional for unit tests
        )

        if draft_tokens < 0:
            raise ConfigError(f"draft_tokens must be >= 0 (0 = off), got {draft_tokens}")
        path = Path(model_path)
        if not path.is_file():
            raise ModelFileError(f"GGUF file not found: {path}")
        try:
            # n_threads_batch too: llama-cpp-python's default is every core for prompt batches, which
            # oversubscribes the cores beside the NLI threads; OpenMP's spinning threads then made a
            # 100-token prompt suffix cost 8.5 s instead of 0.76 s (0.5B Qwen, 2 loaded cores, issue 17)
            self._llm = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads or os.cpu_count(),
                              n_threads_batch=n_threads or os.cpu_count(), n_gpu_layers=n_gpu_layers, seed=seed,
                              chat_format=chat_format, verbose=False)
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelFileError(f"llama.cpp could not load {path}: {e}") from e
        if chat_format is None and not self._llm.metadata.get("tokenizer.chat_template"):
            raise ConfigError(f"{path} carries no tokenizer.chat_template; set chat_format (models.toml key of the LLM "
                              "entry, or --set chat_format=...) to a llama-cpp-python chat format such as 'chatml'")
        self._chat_format = chat_format
        self._controls = control_texts(self._llm)  # prompt text may not spell these (defang)
        self.path = path
        self.n_ctx = n_ctx
        self.seed = seed
        self.name = path.name
        self.n_threads = n_threads or os.cpu_count()
        self.reuse_prefix = reuse_prefix
        self.anchor_min_tokens = anchor_min_tokens
        self._anchors = KVAnchors(self._llm, max_anchors)
        self.lazy_grammar = lazy_grammar
        self.draft_tokens = draft_tokens
        self.stop_repeats = stop_repeats
        self.stats: dict[str, float] = dict.fromkeys(_LOOP_STATS, 0)
        self.last_call_stats: dict[str, float] = {}
        self._cand = None    # full-vocabulary llama_token_data buffer, made on first use
        self._batch = None   # llama_batch for draft verification, made on first use
        self._batched: _Engine | None = None  # the batch context of batched(), made on first use
        self._lock = threading.RLock()
        template = "chat_format " + chat_format if chat_format else "the GGUF's tokenizer.chat_template"
        log.info("%s: chat template: %s", path.name, template)

    # -- tokens -----------------------------------------------------------------------------
    @_serialised
    def count_tokens(self, text: str) -> int:
        """Number of llama.cpp tokens of ``text`` (no BOS)."""
        return count_tokens(self._llm, text)

    @_serialised
    def truncate(self, text: str, max_tokens: int) -> tuple[str, bool]:
        """``text`` cut to at most ``max_tokens`` tokens; returns (text, was_truncated)."""
        return truncate(self._llm, text, max_tokens)

    # -- calls ------------------------------------------------------------------------------
    @_serialised
    def chat(self, messages: list[dict[str, str]] | str, *, max_tokens: int, purpose: str,
             grammar: str | None = None) -> LLMCall:
        """Run one greedy chat completion, or a plain completion when ``messages`` is a string.

        Args:
            messages: OpenAI-style ``[{"role": ..., "content": ...}]``, rendered with the GGUF's chat
                template; or a plain prompt string, continued as is (BOS added, no template).
            max_tokens: generation cap (tokens).
            purpose: a label stored in the returned record ("answer", "gate:2", ...).
            grammar: optional GBNF text constraining the output.

        Returns:
            LLMCall with the text, prompt tokens submitted / actually computed (the rest reused
            from the KV cache), completion tokens, prompt-eval and generation ms, wall ms.

        Raises:
            InferenceError: llama.cpp failed (e.g. the prompt does not fit ``n_ctx``).
            ConfigError: llama.cpp cannot parse ``grammar`` (own loop only).
            Cancelled: the question was stopped (:mod:`~vericite.engine.cancel`): in the own loop before
                the next prompt batch or token; through ``create_completion`` (a ``chat_format``
                override without the loop's levers) only once the call ends.
        """
        import llama_cpp

        messages = defang(messages, self._controls)  # user text never becomes a control token
        self.last_call_stats = {}
        own_loop = (grammar is not None and self.lazy_grammar) or self.draft_tokens > 0 or self.stop_repeats
        if own_loop and (self._chat_format is None or isinstance(messages, str)):
            return self._generate(messages, max_tokens=max_tokens, purpose=purpose, grammar=grammar)
        kwargs: dict[str, Any] = {}
        if grammar is not None:
            kwargs["grammar"] = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
        ctx = self._llm.ctx
        tokens = None
        if not self.reuse_prefix:
            self._llm.reset()  # forget the KV cache: the whole prompt is evaluated again
        elif self._chat_format is None or isinstance(messages, str):
            tokens = self._prompt_tokens(messages)
            self._anchors.restore_best(tokens)
        llama_cpp.llama_perf_context_reset(ctx)
        t0 = time.perf_counter()
        sampling: dict[str, Any] = dict(temperature=0.0, top_k=1, top_p=1.0, max_tokens=max_tokens, seed=self.seed, **kwargs)
        out: Any  # stream=False: one response dict (completion or chat: read alike below)
        try:
            if isinstance(messages, str):
                out = self._llm.create_completion(prompt=tokens or self._prompt_tokens(messages), **sampling)
            else:
                # plain OpenAI-style dicts; llama_cpp types the messages as per-role TypedDicts
                out = self._llm.create_chat_completion(messages=messages, **sampling)  # type: ignore[arg-type]
        except (ValueError, RuntimeError) as e:
            raise InferenceError(f"llama.cpp call '{purpose}' failed: {e}") from e
        cancel.check()  # the library's loop cannot be stopped inside; its result is dropped
        wall_ms = (time.perf_counter() - t0) * 1000
        perf = llama_cpp.llama_perf_context(ctx)
        if tokens is not None and len(tokens) >= self.anchor_min_tokens:
            self._anchors.save()
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return LLMCall(
            purpose=purpose,
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            prompt_tokens_computed=int(perf.n_p_eval),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            prompt_eval_ms=round(float(perf.t_p_eval_ms), 1),
            generation_ms=round(float(perf.t_eval_ms), 1),
            wall_ms=round(wall_ms, 1),
            finish_reason=str(choice.get("finish_reason")),
            text=((choice["text"] if isinstance(messages, str) else choice["message"].get("content")) or "").strip(),
        )

    @_serialised
    def reset_cache(self) -> None:
        """Forget the KV cache and every anchor: the next prompt is evaluated from scratch."""
        self._anchors.clear()
        self._llm.reset()
        if self._batched is not None:
            self._batched.clear()

    @_serialised
    def batched(self, *, slots: int, clients: int, cells: int | None = None):
        """A :class:`~vericite.engine.llm.batch.BatchSession`: ``clients`` threads' calls decoded
        together, up to ``slots`` sequences at once, in a second llama.cpp context on this model
        (made on first use and kept, remade larger when a session needs more slots or cells; ``cells``
        KV cells, default ``n_ctx * (slots + 2) // 2``).
        Use it as a context manager; each client thread inside ``with session.client(k):``.

        Raises:
            ConfigError: a ``chat_format`` override (the batch needs the prompt as tokens), slots < 1.
            InferenceError: llama.cpp could not make the context.
        """
        from .batch import BatchSession, _Engine

        if slots < 1:
            raise ConfigError(f"slots must be >= 1, got {slots}")
        if self._chat_format is not None:
            raise ConfigError("decoding documents together needs the GGUF's own chat template (chat_format override "
                              "given); set parallel_docs = 1")
        cells = cells or self.n_ctx * (slots + 2) // 2
        eng = self._batched
        if eng is None or len(eng.slots) < slots or eng.asked < cells:  # a larger one serves smaller sessions
            old = (len(eng.slots), eng.asked) if eng is not None else (0, 0)
            self._batched = eng = None  # the old context is freed with its engine (or its last session)
            eng = self._batched = _Engine(self, max(slots, old[0]), max(cells, old[1]))
        return BatchSession(self, eng, clients=clients, slots=slots)

    # -- scored answers ----------------------------------------------------------------------
    def _prompt_tokens(self, messages: list[dict[str, str]] | str) -> list[int]:
        """The chat prompt (GGUF template, generation prompt appended) as tokens; a string prompt
        is tokenised as is, after BOS."""
        if not isinstance(messages, str) and self._chat_format is not None:
            raise ConfigError("scored answers need the GGUF's own chat template (chat_format override given)")
        return prompt_tokens(self._llm, defang(messages, self._controls))

    @_serialised
    def yes_probability(self, messages: list[dict[str, str]] | str, *, purpose: str, yes: str = "Yes",
                        no: str = "No") -> tuple[float, LLMCall]:
        """P(first answer token is ``yes``) against ``no``, from one forward pass (no sampling).

        ``messages``: chat messages (GGUF template) or a plain completion prompt string. The
        prompt's prefix already in the KV cache is reused. Returns the probability
        renormalised over the two tokens, softmax([logit_yes, logit_no])[0] in [0, 1], and an
        LLMCall whose text is "Yes" or "No" by argmax (completion_tokens = 0).

        Raises:
            InferenceError: the prompt does not fit the context.
            Cancelled: the question was stopped before a prompt batch (:mod:`~vericite.engine.cancel`).
        """
        import llama_cpp

        llm = self._llm
        tokens = self._prompt_tokens(messages)
        if len(tokens) >= self.n_ctx:
            raise InferenceError(f"'{purpose}': prompt of {len(tokens)} tokens does not fit n_ctx={self.n_ctx}")
        t0 = time.perf_counter()
        if self.reuse_prefix:
            self._anchors.restore_best(tokens)
        prefix = llm.longest_token_prefix(_kv_tokens(llm), tokens) if llm.n_tokens and self.reuse_prefix else 0
        prefix = min(prefix, len(tokens) - 1)  # re-evaluate at least one token to refresh the logits
        llm.n_tokens = prefix
        self._eval(tokens[prefix:])  # stops between prompt batches when the question is stopped
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits(llm.ctx), shape=(llm.n_vocab(),))
        ids = [llm.tokenize(w.encode("utf-8"), add_bos=False, special=False)[0] for w in (yes, no)]
        pair = logits[ids].astype(np.float64)
        p_yes = float(1.0 / (1.0 + np.exp(pair[1] - pair[0])))
        wall_ms = (time.perf_counter() - t0) * 1000
        call = LLMCall(purpose=purpose, prompt_tokens=len(tokens), prompt_tokens_computed=len(tokens) - prefix,
                       completion_tokens=0, prompt_eval_ms=round(wall_ms, 1), generation_ms=0.0,
                       wall_ms=round(wall_ms, 1), finish_reason="scored",
                       text=yes if p_yes >= 0.5 else no)
        return p_yes, call


def count_tokens(llm, text: str) -> int:
    """Number of tokens of ``text`` (no BOS) in ``llm``'s vocabulary (a ``llama_cpp.Llama``, weights or vocab only)."""
    return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))


def truncate(llm, text: str, max_tokens: int) -> tuple[str, bool]:
    """``text`` cut to at most ``max_tokens`` of ``llm``'s tokens, " ..." appended; returns (text, was_truncated)."""
    toks = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
    if len(toks) <= max_tokens:
        return text, False
    cut = llm.detokenize(toks[:max(0, max_tokens)]).decode("utf-8", errors="ignore")
    return cut.rstrip() + " ...", True


def prompt_tokens(llm, messages: list[dict[str, str]] | str) -> list[int]:
    """The prompt as ``llm`` (a ``llama_cpp.Llama``, weights or vocab only) evaluates it: chat messages
    rendered with the GGUF's ``tokenizer.chat_template`` (generation prompt appended), or a string
    prompt tokenised as is after BOS. The remote backend (:mod:`~vericite.engine.llm.openai_compat`) sends
    these very tokens, so both backends see one prompt."""
    from llama_cpp import llama_chat_format

    if isinstance(messages, str):
        return llm.tokenize(messages.encode("utf-8"), add_bos=True, special=False)
    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        raise ConfigError("the GGUF carries no tokenizer.chat_template: chat prompts cannot be rendered")
    eos, bos = llm.token_eos(), llm.token_bos()
    fmt = llama_chat_format.Jinja2ChatFormatter(template=template, eos_token=_token_text(llm, eos),
                                                bos_token=_token_text(llm, bos))
    res = fmt(messages=messages)  # type: ignore[arg-type]  # plain dicts; llama_cpp types per-role TypedDicts
    return llm.tokenize(res.prompt.encode("utf-8"), add_bos=not res.added_special, special=True)


def control_texts(llm) -> tuple[str, ...]:
    """The texts of the vocabulary's control tokens (turn markers such as "<|im_start|>", end of text),
    longest first: what prompt text must not spell, since prompts are tokenised with special tokens
    parsed (the chat template's own markers must become control tokens)."""
    import llama_cpp

    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    texts = {_token_text(llm, t) for t in range(llm.n_vocab())
             if llama_cpp.llama_vocab_get_attr(vocab, t) & llama_cpp.LLAMA_TOKEN_ATTR_CONTROL}
    return tuple(sorted((x for x in texts if len(x) > 1), key=len, reverse=True))


#: inserted after a control token's first character in prompt text: invisible, and no token's text
WORD_JOINER = "\u2060"


def defang(messages: list[dict[str, str]] | str, controls: Sequence[str]) -> list[dict[str, str]] | str:
    """``messages`` (or a plain prompt) with every spelling of a control token in their text broken
    by :data:`WORD_JOINER` ("<|im_start|>" -> "<\u2060|im_start|>"): a document or question can then
    never become a turn boundary or an end of text. Unchanged (the same object) when none occurs."""
    def clean(text: str) -> str:
        for c in controls:
            if c in text:
                text = text.replace(c, c[0] + WORD_JOINER + c[1:])
        return text

    if isinstance(messages, str):
        return clean(messages)
    if not any(c in m.get("content", "") for m in messages for c in controls):
        return messages
    return [{**m, "content": clean(m["content"])} if "content" in m else m for m in messages]


def _token_text(llm, token: int) -> str:
    """A special token's text as the chat template spells it ("" for -1: the model has none)."""
    return llm.detokenize([token], special=True).decode("utf-8", errors="ignore") if token != -1 else ""


class KVAnchors:
    """Saved copies of the KV cache ("anchors"), each with the tokens it holds; least recently used dropped.

    The one place that touches llama-cpp-python below its public surface, for one reason:
    ``Llama.save_state()`` also copies the logits buffer (n_batch x n_vocab float32, about 311 MB for
    Qwen2.5's 151,936-token vocabulary at n_batch 512) on every save, where an anchor needs only the
    KV state (about 28 KB per token for the 1.5B). So saving uses llama.cpp's own
    ``llama_state_get_data`` (public low-level bindings) and restoring mirrors ``Llama.load_state``,
    including its one private flag: ``_requires_eval`` (logits are stale until the next decode).
    ``LlamaCppLLM._generate`` reads and sets the same flag, for the same reason, and nothing else
    private (``input_ids`` / ``n_tokens`` are public attributes).
    """

    def __init__(self, llm, max_anchors: int):
        self._llm = llm
        self.max_anchors = max_anchors
        self._saved: list[tuple[list[int], bytes]] = []

    def __len__(self) -> int:
        return len(self._saved)

    def clear(self) -> None:
        self._saved = []

    def save(self) -> None:
        """Copy the live KV cache with the tokens it holds (replaces an anchor of the same tokens)."""

        import llama_cpp

        if self.max_anchors <= 0:
            return
        ctx = self._llm.ctx
        size = llama_cpp.llama_state_get_size(ctx)
        buf = (ctypes.c_uint8 * int(size))()
        n = llama_cpp.llama_state_get_data(ctx, buf, size)
        toks = _kv_tokens(self._llm)
        keep = [a for a in self._saved if a[0] != toks]
        self._saved = keep[-(self.max_anchors - 1):] if self.max_anchors > 1 else []
        self._saved.append((toks, bytes(buf)[:int(n)]))

    def restore_best(self, tokens: list[int]) -> None:
        """Load the anchor sharing the longest prefix with ``tokens`` if it beats the live KV cache.

        Raises:
            InferenceError: llama.cpp refused the saved state.
        """

        import llama_cpp

        if not self._saved:
            return
        llm = self._llm
        live = llm.longest_token_prefix(_kv_tokens(llm), tokens) if llm.n_tokens else 0
        best, best_len = None, live
        for i, (toks, _) in enumerate(self._saved):
            n = llm.longest_token_prefix(toks, tokens)
            if n > best_len:
                best, best_len = i, n
        if best is None:
            return
        toks, state = self._saved.pop(best)
        self._saved.append((toks, state))  # most recently used last
        buf = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if llama_cpp.llama_state_set_data(llm.ctx, buf, len(state)) != len(state):
            raise InferenceError("llama.cpp could not restore a saved KV-cache state")
        llm.input_ids[:len(toks)] = toks
        llm.n_tokens = len(toks)
        llm._requires_eval = True  # as Llama.load_state: the restored state has no fresh logits
        log.debug("restored a KV-cache anchor: %d of %d prompt tokens reused", best_len, len(tokens))
