"""The remote backend (engine/openai_llm.py) against a real llama-server and against fakes.

The real server is llama.cpp's own (xllamacpp wheel, ``python -m vericite.engine.llama_server``) on
the tiny random GGUF, 1 slot, n_ctx 1024, 2 threads, on a free 127.0.0.1 port. llama.cpp runs one
model at a time here: the in-process reference results are computed first and the model freed
(fixture ``reference``), and only then is the server started (fixture ``server``).

vLLM and generic servers are fakes (httpx.MockTransport) answering in the shapes of their docs.
"""
from __future__ import annotations

import gc
import json
import logging
import math
import socket
import subprocess
import sys
import time

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("tenacity")

from vericite.engine import models as M  # noqa: E402
from vericite.engine.errors import ConfigError, InferenceError  # noqa: E402
from vericite.engine.grammar import YES_NO, citation_grammar  # noqa: E402
from vericite.engine.openai_llm import PROBE, OpenAICompatLLM, p_yes_from_top  # noqa: E402
from vericite.engine.pipeline import Settings, VeriCite  # noqa: E402
from vericite.engine.prompts import PromptSet  # noqa: E402

from .conftest import REPO, TINY_GGUF  # noqa: E402
from .fakes import WordChecker  # noqa: E402
from .test_pipeline_rules import DOCS, Q  # noqa: E402

N_CTX = 1024
VOCAB = 768  # the tiny GGUF's vocabulary: n_probs = VOCAB lists every token
CHAT_UTF8_TAIL = ([{"role": "user", "content": "Is the sky blue? Answer Yes or No."}], 12)
CHATS = [  # (messages, max_tokens, grammar)
    ([{"role": "user", "content": "Is the sky blue? Answer Yes or No."}], 9, None),
    ([{"role": "user", "content": "Does [1] support the claim?"}], 2, YES_NO),
    ([{"role": "system", "content": "Cite documents."}, {"role": "user", "content": "Write about documents."}], 60,
     citation_grammar(3, max_sentences=3)),
    ("Question: who was the drummer of Rush?\nAnswer:", 10, None),
]
SCORED = [[{"role": "user", "content": f"Document [{i}]: band {i} had a drummer. Is it useful? Yes or No."}]
          for i in range(4)] + ["Is this useful? Answer:"]
TEXTS = [PROBE, "", "Neil Peart was the drummer of Rush [1].", "Ёлка, 東京 and 🙂 — naïve"]
PIPELINES = {  # name: (prompt set, settings)
    "grammar-gate": ("paper-en-kv", Settings(schedule="sequential", citation_grammar=True)),
    "scored-gate": ("compact-en", Settings(schedule="sequential", citation_grammar=True, gate="scored",
                                           gate_threshold=0.5)),
}


def _calls(result):
    return [(c.purpose, c.text, c.prompt_tokens, c.completion_tokens) for st in result.stages for c in st.llm_calls]


def _verdicts(result):
    return [(s.stage, s.text, s.citations, s.verdict) for st in result.stages for s in st.statements]


# -- the real server ------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """llama-server in a child process on a free port; started and stopped by the test, bounded waits."""

    def __init__(self, model=TINY_GGUF, *, ctx=N_CTX, parallel=1, threads=2, ready_s=60.0):
        pytest.importorskip("xllamacpp")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vericite.engine.llama_server", str(model), "--port", str(self.port),
             "--ctx", str(ctx), "--parallel", str(parallel), "--threads", str(threads)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + ready_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama-server exited with {self.proc.returncode}")
            try:
                if httpx.get(self.url + "/health", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"llama-server not ready within {ready_s} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)


@pytest.fixture(scope="module")
def reference():
    """Everything the in-process backend says on the test prompts; the model is freed before any server starts."""
    from vericite.engine.llm import LlamaCppLLM

    llm = LlamaCppLLM(TINY_GGUF, n_ctx=N_CTX, n_threads=2)
    ref = {
        "chat": [llm.chat(m, max_tokens=n, purpose=f"c{i}", grammar=g) for i, (m, n, g) in enumerate(CHATS)],
        "scored": [llm.yes_probability(m, purpose=f"s{i}") for i, m in enumerate(SCORED)],
        "count": [llm.count_tokens(t) for t in TEXTS],
        "truncate": [llm.truncate(t, 5) for t in TEXTS],
        "prompt": [llm._prompt_tokens(m) for m, _, _ in CHATS],
        "yes_no": [llm._llm.tokenize(w.encode(), add_bos=False, special=False)[0] for w in ("Yes", "No")],
        "utf8_tail": llm.chat(CHAT_UTF8_TAIL[0], max_tokens=CHAT_UTF8_TAIL[1], purpose="tail"),
    }
    for name, (prompts, settings) in PIPELINES.items():
        ref[name] = VeriCite(llm, WordChecker(), prompts=PromptSet.load(prompts), settings=settings).answer(Q, DOCS)
    del llm
    gc.collect()
    return ref


@pytest.fixture(scope="module")
def server(reference):
    srv = LlamaServer()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def remote(server):
    with OpenAICompatLLM(server.url, model="tiny", tokenizer_gguf=TINY_GGUF, n_ctx=N_CTX, n_probs=VOCAB) as lm:
        yield lm


def test_chat_text_and_token_counts_equal_in_process(reference, remote):
    for i, ((m, n, g), ref) in enumerate(zip(CHATS, reference["chat"])):
        got = remote.chat(m, max_tokens=n, purpose=f"c{i}", grammar=g)
        assert ref.completion_tokens <= n, "llama-cpp-python ran past max_tokens (UTF-8 tail): pick another cap"
        assert got.text == ref.text, (i, got.text, ref.text)
        assert (got.prompt_tokens, got.completion_tokens, got.finish_reason) == \
            (ref.prompt_tokens, ref.completion_tokens, ref.finish_reason), i
        assert 0 < got.prompt_tokens_computed <= got.prompt_tokens and got.wall_ms > 0


def test_max_tokens_inside_a_utf8_character_is_the_one_known_difference(reference, remote):
    """At the cap, llama-cpp-python keeps decoding while its text ends inside a multi-byte UTF-8
    character (CHAT_UTF8_TAIL: 12 tokens asked, 14 made); the server stops at n_predict. The server's
    text is then the in-process text's prefix with the incomplete character dropped."""
    m, n = CHAT_UTF8_TAIL
    ref = reference["utf8_tail"]
    got = remote.chat(m, max_tokens=n, purpose="tail")
    assert ref.completion_tokens > n == got.completion_tokens
    assert ref.text.startswith(got.text) and got.finish_reason == "length"


def test_prompt_count_and_truncate_equal_in_process(reference, remote):
    assert [remote.prompt_tokens(m) for m, _, _ in CHATS] == reference["prompt"]
    assert [remote.count_tokens(t) for t in TEXTS] == reference["count"]
    assert [remote.truncate(t, 5) for t in TEXTS] == reference["truncate"]
    assert remote._yes_no == reference["yes_no"]


def test_server_reuses_the_cached_prefix(remote):
    m, n, g = CHATS[0]
    remote.chat(m, max_tokens=n, purpose="a")
    again = remote.chat(m, max_tokens=n, purpose="b")
    assert again.prompt_tokens_computed < again.prompt_tokens
    remote.reset_cache()
    fresh = remote.chat(m, max_tokens=n, purpose="c")
    assert fresh.prompt_tokens_computed == fresh.prompt_tokens and fresh.text == again.text


def test_yes_probability_within_1e3_of_in_process(reference, remote):
    for i, (m, (p_ref, c_ref)) in enumerate(zip(SCORED, reference["scored"])):
        p, call = remote.yes_probability(m, purpose=f"s{i}")
        assert abs(p - p_ref) < 1e-3, (i, p, p_ref)
        assert (call.text, call.prompt_tokens, call.completion_tokens, call.finish_reason) == \
            (c_ref.text, c_ref.prompt_tokens, 0, "scored")


def test_missing_token_rule_on_the_real_server(server, remote):
    """With a short top-n, P(Yes) follows the documented rule, computed from the full distribution."""
    yes, no = remote._yes_no
    seen = set()
    with OpenAICompatLLM(server.url, model="tiny", tokenizer_gguf=TINY_GGUF, n_ctx=N_CTX, n_probs=3) as short:
        for i, m in enumerate(SCORED):
            body = {"prompt": remote.prompt_tokens(m), "n_predict": 1, "temperature": 0, "n_probs": VOCAB}
            full = httpx.post(server.url + "/completion", json=body, timeout=30).json()
            ranked = [(int(e["id"]), float(e["logprob"])) for e in full["completion_probabilities"][0]["top_logprobs"]]
            top3 = dict(ranked[:3])
            want, how = p_yes_from_top(top3, yes, no)
            got, _ = short.yes_probability(m, purpose=f"s{i}")
            assert got == pytest.approx(want, abs=1e-6)
            seen.add(how)
            if how == "no-yes":
                assert got <= 0.5
            elif how == "no-no":
                assert got >= 0.5
    assert seen - {"both"}, "every prompt had both tokens in the top 3: the rule was not exercised"


def test_full_answer_through_the_server_equals_in_process(reference, server):
    for name, (prompts, settings) in PIPELINES.items():
        with OpenAICompatLLM(server.url, model="tiny", tokenizer_gguf=TINY_GGUF, n_ctx=N_CTX, n_probs=VOCAB) as lm:
            got = VeriCite(lm, WordChecker(), prompts=PromptSet.load(prompts), settings=settings).answer(Q, DOCS)
        ref = reference[name]
        assert got.answer == ref.answer, name
        assert _verdicts(got) == _verdicts(ref), name
        assert _calls(got) == _calls(ref), name


def test_build_pipeline_picks_the_openai_backend(server, tmp_path):
    from vericite.engine.loader import build_pipeline
    from vericite.engine.openai_llm import OpenAICompatLLM as Remote

    toml = tmp_path / "models.toml"
    toml.write_text((REPO / "models.toml").read_text() + f'''
[models."tiny-remote"]
role = "llm"
format = "openai"
server = "llama-server"
base_url = "{server.url}/v1"
model = "tiny"
tokenizer_gguf = "{TINY_GGUF}"
context = {N_CTX}
prompts = "compact-en"
''')
    pipe = build_pipeline(llm="tiny-remote", models_toml=str(toml), nli_threads=1)
    try:
        assert isinstance(pipe.llm, Remote) and pipe.llm.name == "tiny-remote" and pipe.llm.n_ctx == N_CTX
        assert pipe.llm.base_url == server.url  # the /v1 suffix dropped
        assert pipe.llm.count_tokens(PROBE) > 10
    finally:
        pipe.checker.close()


def test_server_down_retries_then_names_the_url(caplog):
    port = free_port()  # nothing listens there
    t0 = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="vericite.engine.openai_llm"):
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


def test_p_yes_rule():
    p, how = p_yes_from_top({1: -0.5, 2: -1.5, 3: -3.0}, 1, 2)
    assert how == "both" and p == pytest.approx(1 / (1 + math.exp(-1.0)))
    p, how = p_yes_from_top({7: -0.1, 2: -1.0, 3: -4.0}, 1, 2)  # Yes missing: at most the floor -4.0
    assert how == "no-yes" and p == pytest.approx(1 / (1 + math.e ** 3.0)) and p < 0.5
    p, how = p_yes_from_top({1: -1.0, 7: -0.1, 3: -4.0}, 1, 2)  # No missing
    assert how == "no-no" and p == pytest.approx(1 / (1 + math.e ** -3.0)) and p > 0.5
    assert p_yes_from_top({7: -0.1}, 1, 2) == (0.5, "neither")
    assert p_yes_from_top({1: 0.0, 2: -1e6}, 1, 2)[0] == 1.0 and p_yes_from_top({1: -1e6, 2: 0.0}, 1, 2)[0] == 0.0


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
    with caplog.at_level(logging.WARNING, logger="vericite.engine.openai_llm"):
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


# -- models.toml ------------------------------------------------------------------------------------
def _toml(tmp_path, body):
    p = tmp_path / "models.toml"
    p.write_text(body)
    return p


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


def test_the_commented_models_toml_example_parses(tmp_path):
    text = (REPO / "models.toml").read_text()
    block = text[text.index('# [models."qwen2.5-coder-0.5b-server"]'):]
    entry = "\n".join(line[2:] for line in block.splitlines() if line.startswith("# ") and not line.startswith("# #"))
    reg = M.Registry.load(_toml(tmp_path, text + "\n" + entry + "\n"))
    spec = reg.named("qwen2.5-coder-0.5b-server")
    assert spec.format == "openai" and spec.tokenizer_spec is reg.named("qwen2.5-coder-0.5b-instruct-q4km")
    assert spec.setting("gate") == "scored" and M.fix_hint(spec).endswith("qwen2.5-coder-0.5b-instruct-q4km")
