"""Failure classes (issue 15) on real models: threads sharing the tiny GGUF, llama.cpp
errors, a GGUF without a chat template, NaN logits in the real checker's session.

The same subject in other tiers: tests/unit/test_robustness.py.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

from vericite.engine.errors import ConfigError, InferenceError
from vericite.engine.pipeline import VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.config.settings import Settings

from tests.conftest import TINY_GGUF
from tests.fakes import WordChecker
from tests.unit.test_pipeline_rules import DOCS, Q


# -- one model shared by threads --------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny():
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

    return LlamaCppLLM(TINY_GGUF, n_ctx=1024, n_threads=2, anchor_min_tokens=64)


def test_threads_sharing_one_llama_get_the_sequential_outputs(tiny):
    prompts = [[{"role": "user", "content": f"Document [{i}]: band {i} was formed in {1960 + i}. Who?"}] for i in range(8)]
    sequential = [tiny.chat(p, max_tokens=6, purpose=f"p{i}").text for i, p in enumerate(prompts)]
    got: dict[int, str] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(k, len(prompts), 4):
                got[i] = tiny.chat(prompts[i], max_tokens=6, purpose=f"p{i}").text
                tiny.count_tokens(prompts[i][0]["content"])
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors and [got[i] for i in range(len(prompts))] == sequential


def test_two_threads_answering_on_one_pipeline_equal_one_by_one(tiny):
    pipe = VeriCite(tiny, WordChecker(), prompts=PromptSet.load("paper-en-kv"), settings=Settings(citation_grammar=True))
    questions = [Q, "Who was the drummer of The Who?"]
    alone = [pipe.answer(q, DOCS).answer for q in questions]
    out: dict[int, str] = {}
    threads = [threading.Thread(target=lambda i=i: out.__setitem__(i, pipe.answer(questions[i], DOCS).answer))
               for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert [out[0], out[1]] == alone


def test_llama_errors_become_inference_errors_naming_the_call(tiny, monkeypatch):
    def boom(**kw):
        raise RuntimeError("llama_decode returned -1")

    monkeypatch.setattr(tiny._llm, "create_chat_completion", boom)
    with pytest.raises(InferenceError, match="'extract:2'.*llama_decode returned -1"):
        tiny.chat([{"role": "user", "content": "x"}], max_tokens=2, purpose="extract:2")


def test_the_onnx_scorer_refuses_nan_logits(checker, monkeypatch):
    inner = getattr(checker, "checker", checker)  # the number guard wraps the model
    monkeypatch.setattr(inner, "run_batch", lambda feeds: np.full(len(feeds["input_ids"]), np.nan, dtype=np.float32))
    with pytest.raises(InferenceError, match="non-finite"):
        inner.scores([("Rush is a band.", "Rush is a band.")])


def test_a_gguf_without_template_names_the_setting(monkeypatch):
    from llama_cpp import Llama

    from vericite.engine.llm.llama_cpp import LlamaCppLLM

    real = Llama.__init__

    def no_template(self, *a, **kw):
        real(self, *a, **kw)
        self.metadata.pop("tokenizer.chat_template", None)

    monkeypatch.setattr(Llama, "__init__", no_template)
    with pytest.raises(ConfigError, match="chat_format.*--set chat_format"):
        LlamaCppLLM(TINY_GGUF, n_ctx=256, n_threads=1)
