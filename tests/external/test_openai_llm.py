"""The remote backend (engine/llm/openai_compat.py) against a real llama-server and against fakes.

The real server is llama.cpp's own (xllamacpp wheel, ``python -m vericite.engine.llm.llama_server``) on
the tiny random GGUF, 1 slot, n_ctx 1024, 2 threads, on a free 127.0.0.1 port. llama.cpp runs one
model at a time here: the in-process reference results are computed first and the model freed
(fixture ``reference``), and only then is the server started (fixture ``server``).

vLLM and generic servers are fakes (httpx.MockTransport) answering in the shapes of their docs.

The same subject in other tiers: tests/unit/test_openai_llm.py, tests/integration/test_openai_llm.py.
"""
from __future__ import annotations

import gc
import subprocess
import sys
import time

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("tenacity")

from vericite.engine.llm.grammar import YES_NO, citation_grammar  # noqa: E402
from vericite.engine.llm.openai_compat import PROBE, OpenAICompatLLM  # noqa: E402
from vericite.engine.llm.server_replies import p_yes_from_top  # noqa: E402
from vericite.engine.pipeline import Settings, VeriCite  # noqa: E402
from vericite.engine.prompts import PromptSet  # noqa: E402

from tests.conftest import REPO, TINY_GGUF  # noqa: E402
from tests.fakes import WordChecker  # noqa: E402
from tests.unit.test_pipeline_rules import DOCS, Q  # noqa: E402
from tests.integration.test_openai_llm import free_port  # noqa: E402


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


class LlamaServer:
    """llama-server in a child process on a free port; started and stopped by the test, bounded waits."""

    def __init__(self, model=TINY_GGUF, *, ctx=N_CTX, parallel=1, threads=2, ready_s=60.0):
        pytest.importorskip("xllamacpp")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "vericite.engine.llm.llama_server", str(model), "--port", str(self.port),
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
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

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
    from vericite.engine.llm.openai_compat import OpenAICompatLLM as Remote

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
