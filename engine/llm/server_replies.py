"""What :class:`~vericite.engine.llm.openai_compat.OpenAICompatLLM` reads from each kind of server:
P(Yes) from the first token's top log-probabilities, and the reply of llama-server, vLLM or a generic
OpenAI server as an :class:`~vericite.engine.records.LLMCall`. A mixin over the instance's HTTP
client (``_post``), tokenizer, ``server``, ``model`` and ``seed``.
"""
from __future__ import annotations

import json
import logging
import math
import threading
import uuid
from typing import TYPE_CHECKING, Any

from ..errors import InferenceError
from ..records import LLMCall
from .decoding import cut_at_repeat
from .llama_cpp import defang

if TYPE_CHECKING:
    from llama_cpp import Llama

log = logging.getLogger("vericite.engine.llm.openai_compat")

# greedy decoding, every other sampler neutral (llama-server and vLLM spell these alike)
_GREEDY = {"temperature": 0.0, "top_k": 1, "top_p": 1.0, "min_p": 0.0}
_LLAMA_PENALTIES_OFF = {"repeat_penalty": 1.0, "presence_penalty": 0.0, "frequency_penalty": 0.0, "dry_multiplier": 0.0}
_FINISH = {"eos": "stop", "word": "stop", "limit": "length"}  # llama-server stop_type -> finish_reason


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


class ServerReplies:
    """Scoring and reading replies per server (see the module docstring)."""

    # what the class mixing this in sets (OpenAICompatLLM.__init__); declared for the type checker only
    _tok: Llama  # the local vocabulary-only tokenizer
    _yes_no: list[int]
    _controls: tuple[str, ...]  # the vocabulary's control-token texts (llama_cpp.defang)
    _lock: threading.RLock
    base_url: str
    model: str
    name: str
    server: str
    seed: int
    n_probs: int
    stop_repeats: bool

    if TYPE_CHECKING:
        def prompt_tokens(self, messages: list[dict[str, str]] | str) -> list[int]: ...
        def _fit(self, tokens: list[int], purpose: str) -> None: ...
        def _use_cache(self) -> bool: ...
        def _post(self, path: str, body: dict, purpose: str) -> tuple[dict, float]: ...
        def _warn_once(self, key: str, msg: str, *args) -> None: ...

    def yes_probability(self, messages: list[dict[str, str]] | str, *, purpose: str, yes: str = "Yes",
                        no: str = "No") -> tuple[float, LLMCall]:
        """P(first answer token is ``yes``) against ``no`` from the server's top log-probabilities of
        the first token (module docstring for a token missing from the top ``n_probs``), as
        :meth:`LlamaCppLLM.yes_probability <vericite.engine.llm.llama_cpp.LlamaCppLLM.yes_probability>`.

        Raises:
            InferenceError: the prompt does not fit, the server failed, or its answer has no log-probabilities.
        """
        ids = self._yes_no if (yes, no) == ("Yes", "No") else \
            [self._tok.tokenize(w.encode("utf-8"), add_bos=False, special=False)[0] for w in (yes, no)]
        keys: tuple[Any, ...]  # yes and no as the keys of `top`: texts (generic server) or token ids
        if self.server == "generic":
            top, data, wall, tokens = self._generic_top(defang(messages, self._controls), purpose)
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
