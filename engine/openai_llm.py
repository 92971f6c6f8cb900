"""LLM backend: an OpenAI-compatible server (llama-server, vLLM, or any other), same interface as
:class:`~vericite.engine.llm.LlamaCppLLM`.

The prompt is made here, not on the server: a vocabulary-only load of the served model's GGUF
(``tokenizer_gguf``) renders the chat template and tokenises exactly as the in-process backend does
(:func:`~vericite.engine.llm.prompt_tokens`), and llama-server and vLLM receive those token ids. So
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

Known differences from the in-process path (tests/test_openai_llm.py pins both): at the
``max_tokens`` cap, llama-cpp-python keeps decoding while its text ends inside a multi-byte UTF-8
character, where the server stops at ``n_predict`` (its text is then the in-process text less that
character); and the server must run without flash attention, as :class:`LlamaCppLLM` does
(:mod:`~vericite.engine.llama_server` does), or logits move by ~1e-2 and long greedy generations of a
weak model part ways.

Connection errors, dropped connections and 5xx answers are retried with exponential backoff
(tenacity); a call that waits longer than ``timeout`` seconds for an answer is not retried. Either
way the InferenceError names the URL. One instance serves any number of threads: the HTTP client is
thread-safe and the local tokenizer and state sit behind a lock; with a one-slot llama-server
concurrent calls queue on the server, so outputs equal a sequential run.
"""
from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from .decoding import cut_at_repeat
from .errors import ConfigError, InferenceError, ModelFileError
from .llm import count_tokens, prompt_tokens, truncate
from .records import LLMCall

log = logging.getLogger(__name__)

SERVERS = ("llama-server", "vllm", "generic")
#: tokenised by server and local tokenizer at start-up: words, digits, punctuation, accents, CJK,
#: Cyrillic, an emoji, a tab and a newline, a citation mark
PROBE = ("VeriCite probe: Zürich's 1,234.5 km naïve café — \"quotes\" [12].\n\tTokyo 東京, "
         "Москва 2024 🙂 don't re-check U.S.A.")
# greedy decoding, every other sampler neutral (llama-server and vLLM spell these alike)
_GREEDY = {"temperature": 0.0, "top_k": 1, "top_p": 1.0, "min_p": 0.0}
_LLAMA_PENALTIES_OFF = {"repeat_penalty": 1.0, "presence_penalty": 0.0, "frequency_penalty": 0.0, "dry_multiplier": 0.0}
_FINISH = {"eos": "stop", "word": "stop", "limit": "length"}  # llama-server stop_type -> finish_reason


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


def p_yes_from_top(top: dict[Any, float], yes: Any, no: Any) -> tuple[float, str]:
    """P(yes) renormalised over {yes, no} from a top-n map {token: log-probability}.

    A token missing from the map is taken at the smallest listed log-probability (module docstring);
    both missing gives 0.5. Returns (p_yes, how): how is "both", "no-yes" (yes missing),
    "no-no" (no missing) or "neither".
    """
    if yes in top and no in top:
        ly, ln, how = top[yes], top[no], "both"
    elif yes not in top and no not in top:
        return 0.5, "neither"
    else:
        floor = min(top.values())
        ly, ln = top.get(yes, floor), top.get(no, floor)
        how = "no-yes" if yes not in top else "no-no"
    d = ln - ly
    p = 1.0 / (1.0 + math.exp(d)) if d < 700 else 0.0
    return p, how


class OpenAICompatLLM:
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
            :class:`~vericite.engine.llm.LlamaCppLLM` ``stop_repeats`` stops there (same text; the
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

        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retries + 1),
            wait=tenacity.wait_exponential(multiplier=self.backoff, max=10.0),
            retry=tenacity.retry_if_exception(transient), reraise=True,
            before_sleep=lambda rs: log.warning("%s %s: %s; retry %d of %d", method, url, rs.outcome.exception(),
                                                rs.attempt_number, self.retries))
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
            data = self._request("POST", path, body)
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
            return prompt_tokens(self._tok, messages)

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
        :meth:`LlamaCppLLM.chat <vericite.engine.llm.LlamaCppLLM.chat>`.

        Raises:
            InferenceError: the prompt does not fit, or the server failed (the message names the URL).
        """
        if self.server == "generic":
            return self._chat_generic(messages, max_tokens=max_tokens, purpose=purpose, grammar=grammar)
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

    def yes_probability(self, messages: list[dict[str, str]] | str, *, purpose: str, yes: str = "Yes",
                        no: str = "No") -> tuple[float, LLMCall]:
        """P(first answer token is ``yes``) against ``no`` from the server's top log-probabilities of
        the first token (module docstring for a token missing from the top ``n_probs``), as
        :meth:`LlamaCppLLM.yes_probability <vericite.engine.llm.LlamaCppLLM.yes_probability>`.

        Raises:
            InferenceError: the prompt does not fit, the server failed, or its answer has no log-probabilities.
        """
        ids = self._yes_no if (yes, no) == ("Yes", "No") else \
            [self._tok.tokenize(w.encode("utf-8"), add_bos=False, special=False)[0] for w in (yes, no)]
        if self.server == "generic":
            top, data, wall, tokens = self._generic_top(messages, purpose)
            keys, n_prompt = (yes, no), None
        else:
            tokens = self.prompt_tokens(messages)
            self._fit(tokens, purpose)
            cache = self._use_cache()
            n_prompt = len(tokens)
            if self.server == "llama-server":
                body = {"prompt": tokens, "n_predict": 1, **_GREEDY, **_LLAMA_PENALTIES_OFF, "seed": self.seed,
                        "cache_prompt": cache, "n_probs": self.n_probs,
                        # the log-probabilities are the raw logits' (no sampler, no grammar); the grammar only
                        # keeps the one sampled token whole text: a first token that is an end-of-generation
                        # token or part of a UTF-8 character comes back with no probabilities at all
                        "grammar": f"root ::= {json.dumps(yes)} | {json.dumps(no)}"}
                data, wall = self._post("/completion", body, purpose)
                try:
                    first = data["completion_probabilities"][0]["top_logprobs"]
                    top = {int(e["id"]): float(e["logprob"]) for e in first}
                except (KeyError, IndexError, TypeError, ValueError) as e:
                    raise InferenceError(f"'{purpose}': {self.base_url}/completion sent no top log-probabilities "
                                         f"(completion_probabilities[0].top_logprobs)") from e
                keys = tuple(ids)
            else:
                body = self._vllm_body(tokens, 1, cache)
                body.update(logprobs=self.n_probs, return_tokens_as_token_ids=True)
                data, wall = self._post("/v1/completions", body, purpose)
                try:
                    first = data["choices"][0]["logprobs"]["top_logprobs"][0]
                    top = {int(str(k).rsplit(":", 1)[-1]): float(v) for k, v in first.items()}
                except (KeyError, IndexError, TypeError, ValueError) as e:
                    raise InferenceError(f"'{purpose}': {self.base_url}/v1/completions sent no top log-probabilities "
                                         f"(choices[0].logprobs.top_logprobs[0])") from e
                keys = tuple(ids)
        p_yes, how = p_yes_from_top(top, *keys)
        if how != "both":
            log.debug("'%s': %s among the top %d log-probabilities; P(Yes) = %.4f by the missing-token rule",
                      purpose, "neither Yes nor No" if how == "neither" else f"{yes if how == 'no-yes' else no} not",
                      len(top), p_yes)
            if how == "neither":
                self._warn_once("neither", "%s: neither %r nor %r among the top %d tokens of '%s'; P(Yes) = 0.5 "
                                "(raise n_probs)", self.name, yes, no, len(top), purpose)
        if self.server == "llama-server":
            call = self._llama_call(data, tokens, wall, purpose, text=yes if p_yes >= 0.5 else no)
            call = LLMCall(purpose=purpose, prompt_tokens=call.prompt_tokens,
                           prompt_tokens_computed=call.prompt_tokens_computed, completion_tokens=0,
                           prompt_eval_ms=call.prompt_eval_ms, generation_ms=0.0, wall_ms=call.wall_ms,
                           finish_reason="scored", text=call.text)
        else:
            call = self._usage_call(data, wall, purpose, text=yes if p_yes >= 0.5 else no, finish="scored",
                                    prompt_tokens=n_prompt, completion_tokens=0)
        return p_yes, call

    # -- per server ----------------------------------------------------------------------------------
    def _llama_call(self, data: dict, tokens: list[int], wall: float, purpose: str, *, text: str) -> LLMCall:
        t = data.get("timings") or {}
        stop = str(data.get("stop_type", ""))
        predicted = int(data.get("tokens_predicted", t.get("predicted_n", 0)))
        if stop == "eos" and predicted > 0:
            predicted -= 1  # llama-server counts the end-of-generation token; llama-cpp-python does not
        return LLMCall(purpose=purpose, prompt_tokens=len(tokens),
                       prompt_tokens_computed=int(t.get("prompt_n", len(tokens))), completion_tokens=predicted,
                       prompt_eval_ms=round(float(t.get("prompt_ms", 0.0)), 1),
                       generation_ms=round(float(t.get("predicted_ms", 0.0)), 1), wall_ms=round(wall, 1),
                       finish_reason=_FINISH.get(stop, stop or "unknown"), text=text)

    def _completion_text(self, data: dict, prompt: list[int]) -> str:
        """The generated text as llama-cpp-python makes it: the returned token ids detokenised after the
        prompt, invalid UTF-8 dropped (llama-server's ``content`` shows U+FFFD there); ``content``
        when the server sends no ids."""
        out = data.get("tokens")
        if not out or not all(isinstance(t, int) for t in out):
            content = str(data.get("content", "")).encode("utf-8")
            return (cut_at_repeat(content) if self.stop_repeats else content).decode("utf-8").strip()
        with self._lock:
            raw = self._tok.detokenize(out, prev_tokens=prompt)
        if self.stop_repeats:
            raw = cut_at_repeat(raw)
        return raw.decode("utf-8", errors="ignore").strip()

    def _vllm_body(self, tokens: list[int], max_tokens: int, cache: bool) -> dict:
        body = {"model": self.model, "prompt": tokens, "max_tokens": max_tokens, **_GREEDY, "seed": self.seed,
                "repetition_penalty": 1.0, "presence_penalty": 0.0, "frequency_penalty": 0.0}
        if not cache:
            body["cache_salt"] = uuid.uuid4().hex  # a fresh salt: no cached prefix matches
        return body

    def _usage_call(self, data: dict, wall: float, purpose: str, *, text: str, finish: str,
                    prompt_tokens: int | None, completion_tokens: int | None = None) -> LLMCall:
        usage = data.get("usage") or {}
        n_prompt = int(usage.get("prompt_tokens", prompt_tokens or 0)) if prompt_tokens is None else prompt_tokens
        cached = int(((usage.get("prompt_tokens_details") or {}).get("cached_tokens")) or 0)
        n_out = int(usage.get("completion_tokens", 0)) if completion_tokens is None else completion_tokens
        return LLMCall(purpose=purpose, prompt_tokens=n_prompt, prompt_tokens_computed=max(0, n_prompt - cached),
                       completion_tokens=n_out, prompt_eval_ms=0.0, generation_ms=0.0, wall_ms=round(wall, 1),
                       finish_reason=finish, text=text)

    def _generic_body(self, messages, max_tokens: int) -> tuple[str, dict]:
        body = {"model": self.model, "max_tokens": max_tokens, "temperature": 0.0, "top_p": 1.0, "seed": self.seed}
        if isinstance(messages, str):
            return "/v1/completions", {**body, "prompt": messages}
        return "/v1/chat/completions", {**body, "messages": messages}

    def _chat_generic(self, messages, *, max_tokens: int, purpose: str, grammar: str | None) -> LLMCall:
        if grammar is not None:
            self._warn_once("grammar", "%s: generic OpenAI server: no grammar is sent, so answers are not "
                            "constrained; citations are checked only after the fact", self.name)
        path, body = self._generic_body(messages, max_tokens)
        data, wall = self._post(path, body, purpose)
        choice = data["choices"][0]
        text = choice.get("text") if isinstance(messages, str) else (choice.get("message") or {}).get("content")
        return self._usage_call(data, wall, purpose, text=(text or "").strip(), finish=str(choice.get("finish_reason")),
                                prompt_tokens=None)

    def _generic_top(self, messages, purpose: str):
        """Top log-probabilities of the first answer token from a generic server: {token text: logprob}."""
        path, body = self._generic_body(messages, 1)
        if isinstance(messages, str):
            body["logprobs"] = min(self.n_probs, 5)  # the OpenAI completions API caps logprobs at 5
        else:
            body.update(logprobs=True, top_logprobs=min(self.n_probs, 20))  # chat caps top_logprobs at 20
        data, wall = self._post(path, body, purpose)
        try:
            lp = data["choices"][0]["logprobs"]
            if isinstance(messages, str):
                top = {str(k): float(v) for k, v in lp["top_logprobs"][0].items()}
            else:
                top = {str(e["token"]): float(e["logprob"]) for e in lp["content"][0]["top_logprobs"]}
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise InferenceError(f"'{purpose}': {self.base_url}{path} sent no top log-probabilities") from e
        return top, data, wall, None


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
