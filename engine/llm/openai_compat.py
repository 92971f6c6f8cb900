"""LLM backend: an OpenAI-compatible server (llama-server, vLLM, or any other), same interface as
:class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM`.

The prompt is made here, not on the server: a vocabulary-only load of the served model's GGUF
(``tokenizer_gguf``) renders the chat template and tokenises exactly as the in-process backend does
(:func:`~vericite.engine.llm.llama_cpp.prompt_tokens`), and llama-server and vLLM receive those token ids. So
prompts, truncation and token counts equal the in-process path; start-up refuses a server whose
``/tokenize`` splits a probe text differently. What each server gets:

- ``llama-server``: ``POST /completion`` with the prompt as token ids, ``n_predict``, greedy sampling
  (``temperature 0``, ``top_k 1``, seed 0, penalties off), ``cache_prompt``, the GBNF ``grammar`` and
  ``return_tokens`` (the text is detokenised here, as llama-cpp-python does). The scored gate asks for
  one token with ``n_probs`` top log-probabilities (of the raw logits; a ``"Yes" | "No"`` grammar only
  keeps the sampled token whole, without which a first token that is part of a UTF-8 character or
  end-of-generation comes back with no probabilities). ``timings``
  (``prompt_n``, ``prompt_ms``, ``predicted_ms``) and ``tokens_predicted`` fill the LLMCall.
- ``vllm``: ``POST /v1/completions`` with token ids, ``structured_outputs: {"grammar": ...}``, and for
  the scored gate ``logprobs`` with ``return_tokens_as_token_ids``. vLLM reports no prompt/generation
  split of the time (both 0; ``wall_ms`` is measured here) and counts cached prompt tokens only when
  started with ``--enable-prompt-tokens-details``.
- ``generic``: ``POST /v1/chat/completions`` (``/v1/completions`` for a plain prompt string) with
  the messages as text: the server applies its own template and no grammar is sent, so a one-time
  warning says citations are checked only after the fact. Token counts are the server's usage.

The scored gate's P(Yes) is e^yes / (e^yes + e^no) over the first token's top log-probabilities (the
in-process softmax over the two logits, since both log-probabilities share one normaliser). When one
of the two tokens is not among the top ``n_probs``, it is taken at the smallest listed
log-probability (it is at most that): P(Yes) is then an upper bound when "Yes" is missing (so at
most 0.5, and the answer is "No"), a lower bound when "No" is missing (at least 0.5, "Yes"). When
both are missing, P(Yes) = 0.5 (no information) and a warning is logged.

Known differences from the in-process path (tests/*/test_openai_llm.py pins both): at the
``max_tokens`` cap, llama-cpp-python keeps decoding while its text ends inside a multi-byte UTF-8
character, where the server stops at ``n_predict`` (its text is then the in-process text less that
character); and the server must run without flash attention, as :class:`LlamaCppLLM` does
(:mod:`~vericite.engine.llm.llama_server` does), or logits move by ~1e-2 and long greedy generations of a
weak model part ways.

Connection errors, dropped connections and 5xx answers are retried with exponential backoff
(tenacity); a call that waits longer than ``timeout`` seconds for an answer is not retried. Either
way the InferenceError names the URL. One instance serves any number of threads: the HTTP client is
thread-safe and the local tokenizer and state sit behind a lock; with a one-slot llama-server
concurrent calls queue on the server, so outputs equal a sequential run.
A stopped question (:mod:`~vericite.engine.cancel`) stops waiting for its call within
:data:`~vericite.engine.cancel.POLL_S`; the synchronous HTTP call cannot be closed from another thread,
so it ends in the background and the server finishes that completion.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import overload

from .. import cancel
from ..errors import ConfigError, InferenceError, ModelFileError
from ..records import LLMCall
from .llama_cpp import control_texts, count_tokens, defang, prompt_tokens, truncate
from .server_replies import _GREEDY, _LLAMA_PENALTIES_OFF, ServerReplies

log = logging.getLogger(__name__)

SERVERS = ("llama-server", "vllm", "generic")
#: tokenised by server and local tokenizer at start-up: words, digits, punctuation, accents, CJK,
#: Cyrillic, an emoji, a tab and a newline, a citation mark
PROBE = ("VeriCite probe: Zürich's 1,234.5 km naïve café — \"quotes\" [12].\n\tTokyo 東京, "
         "Москва 2024 🙂 don't re-check U.S.A.")
class _ServerError(Exception):
    """A 5xx answer (retried)."""

    def __init__(self, response):
        super().__init__(f"HTTP {response.status_code}: {_error_text(response)}")
        self.response = response


def _error_text(response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300]
    err = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(err, dict):
        return str(err.get("message") or err.get("detail") or err)[:300]
    return str(err)[:300]


class OpenAICompatLLM(ServerReplies):
    """An LLM behind an OpenAI-compatible HTTP server; the :class:`~vericite.engine.pipeline.LLM` protocol.

    Args:
        base_url: the server's root (``http://127.0.0.1:8080``; a trailing ``/v1`` is dropped).
        model: the server's model name (sent to vLLM and generic servers; llama-server ignores it).
        tokenizer_gguf: the served model's GGUF, loaded vocabulary-only (no weights): chat template,
            token counts and truncation.
        server: "llama-server" | "vllm" | "generic" (module docstring).
        n_ctx: the context the pipeline plans with (tokens); lowered to the server's slot context
            when that is smaller (llama-server ``/props``, vLLM ``max_model_len``), with a warning.
        timeout: seconds to wait for one HTTP answer.
        retries: retries after a connection error or 5xx (exponential backoff from ``backoff`` s).
        n_probs: top log-probabilities asked for by :meth:`yes_probability`.
        api_key: sent as ``Authorization: Bearer``.
        seed: sampling seed (decoding is greedy).
        reuse_prefix: let the server reuse the prompt prefix it has cached (llama-server
            ``cache_prompt``; vLLM's prefix cache, bypassed with a fresh ``cache_salt`` when False).
        check_tokenizer: compare the server's ``/tokenize`` with the local tokenizer at start-up
            (llama-server, vLLM).
        transport: an ``httpx`` transport (tests).
        stop_repeats: cut each completion at its first repeated line, as
            :class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM` ``stop_repeats`` stops there (same text; the
            server still generated the rest, and its token count includes it).

    Raises:
        ModelFileError: tokenizer_gguf is missing or unreadable.
        ConfigError: unknown server kind, a GGUF without chat template, or the server tokenises the
            probe text differently (the message names both token counts).
        InferenceError: the server cannot be reached (the message names the URL).
    """

    def __init__(self, base_url: str, *, model: str, tokenizer_gguf: str | Path, server: str = "llama-server",
                 n_ctx: int = 4096, timeout: float = 300.0, retries: int = 3, backoff: float = 0.5,
                 n_probs: int = 20, api_key: str | None = None, seed: int = 0, reuse_prefix: bool = True,
                 check_tokenizer: bool = True, transport=None, stop_repeats: bool = False):
        import httpx
        from llama_cpp import Llama

        if server not in SERVERS:
            raise ConfigError(f"server = {server!r}, expected one of {list(SERVERS)}")
        path = Path(tokenizer_gguf)
        if not path.is_file():
            raise ModelFileError(f"tokenizer GGUF not found: {path}")
        try:  # vocabulary only; a tiny batch keeps llama-cpp-python's logits buffer small
            self._tok = Llama(model_path=str(path), vocab_only=True, n_ctx=8, n_batch=8, verbose=False)
        except (ValueError, RuntimeError, OSError) as e:
            raise ModelFileError(f"llama.cpp could not read the vocabulary of {path}: {e}") from e
        self._controls = control_texts(self._tok)  # prompt text may not spell these (defang)
        if server != "generic" and not self._tok.metadata.get("tokenizer.chat_template"):
            raise ConfigError(f"{path} carries no tokenizer.chat_template: chat prompts cannot be rendered locally")
        base = base_url.rstrip("/")
        self.base_url = base[:-3] if base.endswith("/v1") else base
        self.model = model
        self.server = server
        self.tokenizer_path = path
        self.n_ctx = n_ctx
        self.seed = seed
        self.n_probs = n_probs
        self.reuse_prefix = reuse_prefix
        self.stop_repeats = stop_repeats
        self.retries = retries
        self.backoff = backoff
        self.timeout = timeout
        self.name = f"{model} @ {self.base_url}"
        self.n_threads = None  # the server's business
        self._lock = threading.RLock()
        self._reset_pending = False
        self._warned: set[str] = set()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)), headers=headers,
                                    transport=transport)
        self._yes_no = [self._tok.tokenize(w.encode("utf-8"), add_bos=False, special=False)[0] for w in ("Yes", "No")]
        try:
            self._check_server(check_tokenizer)
        except BaseException:
            self._client.close()
            raise

    # -- set-up ----------------------------------------------------------------------------------
    def _check_server(self, check_tokenizer: bool) -> None:
        """Server context and tokenizer against ours (llama-server, vLLM); generic: nothing to ask."""
        if self.server == "generic":
            log.info("%s: generic OpenAI server: prompts use its chat template; token counts are the local "
                     "tokenizer's estimate for budgets and the server's usage in the trace", self.name)
            return
        if self.server == "llama-server":
            props = self._request("GET", "/props", None, missing_ok=True)
            slot_ctx = (props or {}).get("default_generation_settings", {}).get("n_ctx")
            remote = self._request("POST", "/tokenize", {"content": PROBE, "add_special": False})["tokens"] \
                if check_tokenizer else None
        else:
            got = self._request("POST", "/tokenize", {"model": self.model, "prompt": PROBE, "add_special_tokens": False})
            slot_ctx, remote = got.get("max_model_len"), got["tokens"] if check_tokenizer else None
        if slot_ctx and int(slot_ctx) < self.n_ctx:
            log.warning("%s: the server's context is %d tokens, below the configured %d; planning with %d",
                        self.name, slot_ctx, self.n_ctx, slot_ctx)
            self.n_ctx = int(slot_ctx)
        if remote is None:
            return
        remote = [t if isinstance(t, int) else t.get("id") for t in remote]  # llama-server may send pieces
        local = self._tok.tokenize(PROBE.encode("utf-8"), add_bos=False, special=False)
        if remote != local:
            first = next((i for i, (a, b) in enumerate(zip(remote, local)) if a != b), min(len(remote), len(local)))
            raise ConfigError(f"{self.base_url}/tokenize: the server's tokenizer splits the probe text into "
                              f"{len(remote)} tokens, the local tokenizer {self.tokenizer_path.name} into {len(local)} "
                              f"(first difference at token {first}); tokenizer_gguf must be the GGUF the server runs")

    def close(self) -> None:
        self._client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- HTTP --------------------------------------------------------------------------------------
    @overload
    def _request(self, method: str, path: str, body: dict | None) -> dict: ...
    @overload
    def _request(self, method: str, path: str, body: dict | None, *, missing_ok: bool) -> dict | None: ...

    def _request(self, method: str, path: str, body: dict | None, *, missing_ok: bool = False) -> dict | None:
        """One JSON call with retries on connection errors and 5xx; ``missing_ok``: a 404 returns None.

        Raises:
            InferenceError: the server is unreachable after the retries, timed out, or answered 4xx/5xx.
        """
        import httpx
        import tenacity

        url = self.base_url + path

        def transient(e: BaseException) -> bool:
            return isinstance(e, _ServerError) or (isinstance(e, httpx.TransportError)
                                                   and not isinstance(e, (httpx.ReadTimeout, httpx.WriteTimeout)))

        def warn_retry(rs: tenacity.RetryCallState) -> None:
            assert rs.outcome is not None  # tenacity sets the failed attempt's outcome before before_sleep
            log.warning("%s %s: %s; retry %d of %d", method, url, rs.outcome.exception(), rs.attempt_number, self.retries)

        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retries + 1),
            wait=tenacity.wait_exponential(multiplier=self.backoff, max=10.0),
            retry=tenacity.retry_if_exception(transient), reraise=True,
            before_sleep=warn_retry)
        try:
            for attempt in retrying:
                with attempt:
                    r = self._client.request(method, url, json=body)
                    if r.status_code >= 500:
                        raise _ServerError(r)
        except _ServerError as e:
            raise InferenceError(f"LLM server {url} failed after {self.retries + 1} attempts: {e}") from e
        except (httpx.ReadTimeout, httpx.WriteTimeout) as e:
            raise InferenceError(f"LLM server {url} sent no answer within {self.timeout:g} s") from e
        except httpx.TransportError as e:
            raise InferenceError(f"LLM server {url} unreachable after {self.retries + 1} attempts "
                                 f"({type(e).__name__}: {e}); is it running?") from e
        if r.status_code == 404 and missing_ok:
            return None
        if r.status_code >= 400:
            raise InferenceError(f"LLM server {url} refused the request: HTTP {r.status_code}: {_error_text(r)}")
        try:
            return r.json()
        except ValueError as e:
            raise InferenceError(f"LLM server {url} answered with no JSON: {r.text[:200]!r}") from e

    def _post(self, path: str, body: dict, purpose: str) -> tuple[dict, float]:
        t0 = time.perf_counter()
        try:
            # a stopped question stops waiting within cancel.POLL_S; the server still finishes the call
            data = cancel.call(self._request, "POST", path, body)
        except InferenceError as e:
            raise InferenceError(f"LLM call {purpose!r}: {e}") from e
        return data, (time.perf_counter() - t0) * 1000

    # -- tokens ------------------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` (no BOS), by the local tokenizer."""
        with self._lock:
            return count_tokens(self._tok, text)

    def truncate(self, text: str, max_tokens: int) -> tuple[str, bool]:
        """``text`` cut to at most ``max_tokens`` tokens; returns (text, was_truncated)."""
        with self._lock:
            return truncate(self._tok, text, max_tokens)

    def prompt_tokens(self, messages: list[dict[str, str]] | str) -> list[int]:
        """The prompt as token ids, rendered locally with the GGUF's chat template (as in-process)."""
        with self._lock:
            return prompt_tokens(self._tok, defang(messages, self._controls))

    def reset_cache(self) -> None:
        """Make the next call evaluate its whole prompt (the server's cache is not reused once)."""
        with self._lock:
            self._reset_pending = True

    def _use_cache(self) -> bool:
        with self._lock:
            reset, self._reset_pending = self._reset_pending, False
        return self.reuse_prefix and not reset

    def _fit(self, tokens: list[int], purpose: str) -> None:
        if len(tokens) >= self.n_ctx:
            raise InferenceError(f"'{purpose}': prompt of {len(tokens)} tokens does not fit n_ctx={self.n_ctx}")

    def _warn_once(self, key: str, msg: str, *args) -> None:
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        log.warning(msg, *args)

    # -- calls -------------------------------------------------------------------------------------
    def chat(self, messages: list[dict[str, str]] | str, *, max_tokens: int, purpose: str,
             grammar: str | None = None) -> LLMCall:
        """One greedy completion of the chat ``messages`` (or of a plain prompt string), as
        :meth:`LlamaCppLLM.chat <vericite.engine.llm.llama_cpp.LlamaCppLLM.chat>`.

        Raises:
            InferenceError: the prompt does not fit, or the server failed (the message names the URL).
        """
        if self.server == "generic":  # the server renders the template: user text defanged here
            return self._chat_generic(defang(messages, self._controls), max_tokens=max_tokens, purpose=purpose,
                                      grammar=grammar)
        tokens = self.prompt_tokens(messages)
        self._fit(tokens, purpose)
        n_predict = min(max_tokens, self.n_ctx - len(tokens))  # as llama-cpp-python caps max_tokens
        cache = self._use_cache()
        if self.server == "llama-server":
            body = {"prompt": tokens, "n_predict": n_predict, **_GREEDY, **_LLAMA_PENALTIES_OFF, "seed": self.seed,
                    "cache_prompt": cache, "return_tokens": True}
            if grammar is not None:
                body["grammar"] = grammar
            data, wall = self._post("/completion", body, purpose)
            return self._llama_call(data, tokens, wall, purpose, text=self._completion_text(data, tokens))
        body = self._vllm_body(tokens, n_predict, cache)
        body["return_token_ids"] = True
        if grammar is not None:
            body["structured_outputs"] = {"grammar": grammar}
        data, wall = self._post("/v1/completions", body, purpose)
        choice = data["choices"][0]
        text = self._completion_text({"tokens": choice.get("token_ids"), "content": choice.get("text") or ""}, tokens)
        return self._usage_call(data, wall, purpose, text=text,
                                finish=str(choice.get("finish_reason")), prompt_tokens=len(tokens))


def from_spec(spec, tokenizer_gguf: Path, *, n_ctx: int | None = None, reuse_prefix: bool = True) -> OpenAICompatLLM:
    """An :class:`OpenAICompatLLM` for a models.toml entry with ``format = "openai"`` (``api_key_env``
    names the environment variable with the API key)."""
    key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
    if spec.api_key_env and not key:
        raise ConfigError(f"[models.\"{spec.name}\"] api_key_env = {spec.api_key_env!r}: that variable is not set")
    lm = OpenAICompatLLM(spec.base_url, model=spec.model, tokenizer_gguf=tokenizer_gguf, server=spec.server,
                         n_ctx=n_ctx or spec.context, timeout=float(spec.timeout), retries=int(spec.retries),
                         n_probs=int(spec.n_probs), api_key=key, reuse_prefix=reuse_prefix, stop_repeats=True)
    return lm
