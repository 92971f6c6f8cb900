"""The remote backend (engine/llm/openai_compat.py) against fakes: httpx.MockTransport
answering in the shapes of llama-server's, vLLM's and generic servers' docs; the
tokenizer is the tiny GGUF's (tests/data). Its models.toml entries.

The same subject in other tiers: tests/unit/test_openai_llm.py, tests/external/test_openai_llm.py.
"""
from __future__ import annotations

import json
import logging
import math
import socket
import time

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("tenacity")

from vericite.engine.config import registry as M  # noqa: E402
from vericite.engine.errors import ConfigError, InferenceError  # noqa: E402
from vericite.engine.llm.grammar import YES_NO, citation_grammar  # noqa: E402
from vericite.engine.llm.openai_compat import PROBE, OpenAICompatLLM  # noqa: E402

from tests.conftest import TINY_GGUF  # noqa: E402
from tests.unit.test_openai_llm import _toml  # noqa: E402


# -- a free loopback port (the real server's too: tests/external/test_openai_llm.py) ------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_server_down_retries_then_names_the_url(caplog):
    port = free_port()  # nothing listens there
    t0 = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="vericite.engine.llm.openai_compat"):
        with pytest.raises(InferenceError, match=rf"http://127\.0\.0\.1:{port}/props.*3 attempts"):
            OpenAICompatLLM(f"http://127.0.0.1:{port}", model="tiny", tokenizer_gguf=TINY_GGUF, retries=2,
                            backoff=0.05)
    assert len([r for r in caplog.records if "retry" in r.getMessage()]) == 2
    assert time.monotonic() - t0 < 10


# -- fakes ------------------------------------------------------------------------------------------
def _local_tokens(text=PROBE):
    from llama_cpp import Llama

    tok = Llama(model_path=str(TINY_GGUF), vocab_only=True, n_ctx=8, n_batch=8, verbose=False)
    return tok.tokenize(text.encode(), add_bos=False, special=False)


class FakeServer:
    """An httpx.MockTransport handler: ``routes[path](body) -> (status, json)``; records every request."""

    def __init__(self, routes):
        self.routes, self.requests = routes, []

    def __call__(self, request):
        body = json.loads(request.content) if request.content else None
        self.requests.append((request.url.path, body))
        status, data = self.routes[request.url.path](body)
        return httpx.Response(status, json=data)

    def llm(self, **kw):
        kw.setdefault("server", "llama-server")
        return OpenAICompatLLM("http://fake:1", model="m", tokenizer_gguf=TINY_GGUF, backoff=0.01,
                               transport=httpx.MockTransport(self), **kw)


def _llama_routes(tokens, **extra):
    return {"/props": lambda b: (200, {"default_generation_settings": {"n_ctx": 4096}}),
            "/tokenize": lambda b: (200, {"tokens": tokens}), **extra}


def test_tokenize_mismatch_refused_naming_both_counts():
    local = _local_tokens()
    with pytest.raises(ConfigError, match=rf"into {len(local) + 1} tokens.*into {len(local)} "):
        FakeServer(_llama_routes(local + [5])).llm()
    swapped = [local[1], local[0]] + local[2:]
    with pytest.raises(ConfigError, match=rf"into {len(local)} tokens.*first difference at token 0"):
        FakeServer(_llama_routes(swapped)).llm()
    FakeServer(_llama_routes(local)).llm()  # equal: accepted


def test_small_server_context_lowers_n_ctx(caplog):
    routes = _llama_routes(_local_tokens())
    routes["/props"] = lambda b: (200, {"default_generation_settings": {"n_ctx": 512}})
    with caplog.at_level(logging.WARNING):
        lm = FakeServer(routes).llm(n_ctx=4096)
    assert lm.n_ctx == 512 and "below the configured 4096" in caplog.text


def test_5xx_retried_then_succeeds_and_4xx_is_not_retried():
    answers = iter([(503, {"error": {"message": "Loading model"}}), (502, {}), (200, {
        "content": " Yes", "tokens_predicted": 2, "stop_type": "eos",
        "timings": {"prompt_n": 7, "cache_n": 3, "prompt_ms": 1.5, "predicted_ms": 2.5}})])
    fake = FakeServer(_llama_routes(_local_tokens(), **{"/completion": lambda b: next(answers)}))
    lm = fake.llm(retries=2)
    call = lm.chat("Hi", max_tokens=4, purpose="gate:1", grammar=YES_NO)
    assert (call.text, call.completion_tokens, call.prompt_tokens_computed, call.prompt_eval_ms, call.generation_ms,
            call.finish_reason) == ("Yes", 1, 7, 1.5, 2.5, "stop")
    sent = [b for p, b in fake.requests if p == "/completion"]
    assert len(sent) == 3 and sent[0]["grammar"] == YES_NO and sent[0]["cache_prompt"] is True
    assert (sent[0]["temperature"], sent[0]["top_k"], sent[0]["seed"], sent[0]["n_predict"]) == (0.0, 1, 0, 4)
    assert sent[0]["prompt"] == lm.prompt_tokens("Hi")  # token ids, rendered here
    bad = FakeServer(_llama_routes(_local_tokens(), **{
        "/completion": lambda b: (400, {"error": {"message": "failed to parse grammar"}})}))
    with pytest.raises(InferenceError, match="'answer'.*HTTP 400: failed to parse grammar"):
        bad.llm().chat("Hi", max_tokens=4, purpose="answer", grammar="root ::= [")
    assert len([p for p, _ in bad.requests if p == "/completion"]) == 1
    always = FakeServer(_llama_routes(_local_tokens(), **{"/completion": lambda b: (500, {"error": "boom"})}))
    with pytest.raises(InferenceError, match=r"http://fake:1/completion failed after 2 attempts: HTTP 500"):
        always.llm(retries=1).chat("Hi", max_tokens=4, purpose="x")


def test_stop_repeats_cuts_the_servers_text_where_the_in_process_loop_stops():
    text = "Rush is a band.\nPeart drums.\nRush is a band.\nPeart drums.\n"
    fake = FakeServer(_llama_routes(_local_tokens(), **{"/completion": lambda b: (200, {
        "content": text, "tokens_predicted": 20, "stop_type": "limit", "timings": {}})}))
    assert fake.llm(stop_repeats=True).chat("Hi", max_tokens=20, purpose="extract:1").text == \
        "Rush is a band.\nPeart drums."
    assert fake.llm().chat("Hi", max_tokens=20, purpose="extract:1").text == text.strip()


# vLLM: /v1/completions answers in the OpenAI completions shape (vLLM docs, "Completions API": prompt
# as token ids, extra parameters top_k / structured_outputs / return_tokens_as_token_ids; logprobs with
# top_logprobs as {token: logprob}, tokens spelled "token_id:N"); /tokenize -> {count, max_model_len, tokens}
VLLM_CHAT = {
    "id": "cmpl-7f3c", "object": "text_completion", "created": 1733000000, "model": "Qwen/Qwen2.5-0.5B-Instruct",
    "choices": [{"index": 0, "text": " Rush had a drummer [1].", "logprobs": None, "finish_reason": "stop",
                 "stop_reason": None, "prompt_logprobs": None}],
    "usage": {"prompt_tokens": 31, "total_tokens": 38, "completion_tokens": 7,
              "prompt_tokens_details": {"cached_tokens": 16}},
}


def _vllm_scored(yes, no):
    return {
        "id": "cmpl-81aa", "object": "text_completion", "created": 1733000001, "model": "Qwen/Qwen2.5-0.5B-Instruct",
        "choices": [{"index": 0, "text": "Yes", "finish_reason": "length", "stop_reason": None,
                     "logprobs": {"text_offset": [0], "token_logprobs": [-0.3567],
                                  "tokens": [f"token_id:{yes}"],
                                  "top_logprobs": [{f"token_id:{yes}": -0.3567, f"token_id:{no}": -1.2040,
                                                    "token_id:11": -4.1}]}}],
        "usage": {"prompt_tokens": 25, "total_tokens": 26, "completion_tokens": 1, "prompt_tokens_details": None},
    }


def test_vllm_request_and_response_shapes():
    local = _local_tokens()
    yes, no = _local_tokens("Yes")[0], _local_tokens("No")[0]
    fake = FakeServer({
        "/tokenize": lambda b: (200, {"count": len(local), "max_model_len": 32768, "tokens": local}),
        "/v1/completions": lambda b: (200, _vllm_scored(yes, no) if b.get("logprobs") else VLLM_CHAT),
    })
    lm = fake.llm(server="vllm", n_probs=5)
    msgs = [{"role": "user", "content": "Who drummed?"}]
    call = lm.chat(msgs, max_tokens=40, purpose="answer", grammar=citation_grammar(2))
    assert (call.text, call.prompt_tokens, call.prompt_tokens_computed, call.completion_tokens, call.finish_reason) == \
        ("Rush had a drummer [1].", len(lm.prompt_tokens(msgs)), len(lm.prompt_tokens(msgs)) - 16, 7, "stop")
    p, gate = lm.yes_probability(msgs, purpose="gate:1")
    assert p == pytest.approx(1 / (1 + math.e ** (-1.2040 + 0.3567)))
    assert (gate.text, gate.completion_tokens, gate.finish_reason) == ("Yes", 0, "scored")
    (_, tok), (_, gen), (_, sc) = fake.requests
    assert tok == {"model": "m", "prompt": PROBE, "add_special_tokens": False}
    assert gen["prompt"] == lm.prompt_tokens(msgs) and gen["model"] == "m" and gen["max_tokens"] == 40
    assert gen["structured_outputs"] == {"grammar": citation_grammar(2)}
    assert (gen["temperature"], gen["top_k"], gen["seed"], gen["repetition_penalty"]) == (0.0, 1, 0, 1.0)
    assert (sc["logprobs"], sc["return_tokens_as_token_ids"], sc["max_tokens"]) == (5, True, 1)
    assert "structured_outputs" not in sc and "cache_salt" not in gen
    lm.reset_cache()
    lm.chat(msgs, max_tokens=4, purpose="answer")
    assert "cache_salt" in fake.requests[-1][1]  # a fresh salt: vLLM's prefix cache is bypassed once


def test_generic_server_chat_warns_once_and_reads_logprobs(caplog):
    chat = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Rush [1]."},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23}}
    scored = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "No"}, "finish_reason": "length",
                           "logprobs": {"content": [{"token": "No", "logprob": -0.2, "top_logprobs": [
                               {"token": "No", "logprob": -0.2}, {"token": "Yes", "logprob": -1.8}]}]}}],
              "usage": {"prompt_tokens": 20, "completion_tokens": 1, "total_tokens": 21}}
    fake = FakeServer({"/v1/chat/completions": lambda b: (200, scored if b.get("logprobs") else chat)})
    lm = fake.llm(server="generic", n_probs=50)
    msgs = [{"role": "user", "content": "Who?"}]
    with caplog.at_level(logging.WARNING, logger="vericite.engine.llm.openai_compat"):
        a = lm.chat(msgs, max_tokens=30, purpose="answer", grammar=citation_grammar(2))
        lm.chat(msgs, max_tokens=30, purpose="refine", grammar=citation_grammar(2))
    assert caplog.text.count("checked only after the fact") == 1
    assert (a.text, a.prompt_tokens, a.completion_tokens) == ("Rush [1].", 20, 3)
    p, call = lm.yes_probability(msgs, purpose="gate:1")
    assert p == pytest.approx(1 / (1 + math.e ** 1.6)) and call.text == "No"
    bodies = [b for _, b in fake.requests]
    assert all(b["messages"] == msgs and "grammar" not in b and "structured_outputs" not in b for b in bodies)
    assert bodies[-1]["top_logprobs"] == 20 and bodies[-1]["max_tokens"] == 1  # OpenAI's cap


def test_threads_share_one_instance():
    from concurrent.futures import ThreadPoolExecutor

    def completion(body):
        return 200, {"content": f"n={len(body['prompt'])}", "tokens_predicted": 1, "stop_type": "limit",
                     "timings": {"prompt_n": len(body["prompt"])}}

    lm = FakeServer(_llama_routes(_local_tokens(), **{"/completion": completion})).llm()
    prompts = [f"question number {i} " * (i + 1) for i in range(16)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda p: lm.chat(p, max_tokens=1, purpose="x").text, prompts))
    assert got == [f"n={len(lm.prompt_tokens(p))}" for p in prompts]


REMOTE = f'''[models.r]
role = "llm"
format = "openai"
base_url = "http://127.0.0.1:8080"
model = "qwen"
tokenizer_gguf = "{TINY_GGUF}"
'''


def test_models_toml_openai_entry(tmp_path):
    spec = M.Registry.load(_toml(tmp_path, REMOTE + 'server = "vllm"\ntimeout = 30\nn_probs = 50\ngate = "scored"\n')).named("r")
    assert (spec.source, spec.server, spec.timeout, spec.n_probs, spec.retries, spec.sha256) == \
        ("server", "vllm", 30, 50, 3, "")
    assert M.model_path(spec) == TINY_GGUF and M.status(spec) == "present" and M.verify(spec) == TINY_GGUF
    assert spec.setting("gate") == "scored"
    for bad, match in [(REMOTE.replace('model = "qwen"\n', ""), "needs 'model'"),
                       (REMOTE + 'server = "triton"\n', "server = 'triton'"),
                       (REMOTE.replace("http://", "ftp://"), "base_url"),
                       (REMOTE + "timeout = -1\n", "timeout"),
                       (REMOTE.replace('"llm"', '"nli"'), "role = 'llm'")]:
        with pytest.raises(ConfigError, match=match):
            M.Registry.load(_toml(tmp_path, bad))
    gguf = '[models.g]\nrole = "llm"\nformat = "gguf"\nsource = "path"\npath = "x"\nsha256 = "' + "0" * 64 + '"\n'
    with pytest.raises(ConfigError, match="belong to format = 'openai'"):
        M.Registry.load(_toml(tmp_path, gguf + 'base_url = "http://x"\n'))


def test_models_toml_tokenizer_gguf_names_an_entry(tmp_path):
    gguf = ('[models.g]\nrole = "llm"\nformat = "gguf"\nsource = "path"\npath = "tests/data/tiny-qwen2.gguf"\n'
            f'sha256 = "{(TINY_GGUF.parent / "tiny-qwen2.gguf.sha256").read_text().split()[0]}"\n')
    reg = M.Registry.load(_toml(tmp_path, gguf + REMOTE.replace(f'"{TINY_GGUF}"', '"g"')))
    spec = reg.named("r")
    assert spec.tokenizer_spec is reg.named("g")
    assert M.model_path(spec) == TINY_GGUF and M.verify(spec) == TINY_GGUF
    assert "vericite models fetch g" in M.fix_hint(spec)
