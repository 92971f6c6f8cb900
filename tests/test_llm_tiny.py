"""The llama.cpp backend on a tiny random GGUF (tests/data, made by export/tiny_gguf.py)."""
import re

import pytest

from vericite.engine.citations import invalid_citations, parse_citations, strip_citations
from vericite.engine.errors import ModelFileError
from vericite.engine.grammar import YES_NO, citation_grammar
from vericite.engine.splitter import split_statements

from .conftest import TINY_GGUF


@pytest.fixture(scope="module")
def llm():
    from vericite.engine.llm import LlamaCppLLM

    return LlamaCppLLM(TINY_GGUF, n_ctx=512, n_threads=2)


MSG = [{"role": "user", "content": "Is the sky blue? Answer Yes or No."}]


def test_chat_records_tokens_and_timings(llm):
    call = llm.chat(MSG, max_tokens=8, purpose="t")
    assert call.purpose == "t"
    assert call.prompt_tokens > 5 and 0 < call.completion_tokens <= 8
    assert call.prompt_tokens_computed <= call.prompt_tokens
    assert call.wall_ms > 0 and call.prompt_eval_ms >= 0 and call.generation_ms >= 0
    assert call.finish_reason in {"stop", "length"}


def test_greedy_is_deterministic_and_prefix_is_reused(llm):
    a = llm.chat(MSG, max_tokens=12, purpose="a")
    b = llm.chat(MSG, max_tokens=12, purpose="b")
    assert a.text == b.text
    # the second identical prompt finds its prefix in the KV cache
    assert b.prompt_tokens_computed < b.prompt_tokens


def test_yes_no_grammar(llm):
    for q in ["Is the sky blue?", "hi", "Does [1] support the claim?"]:
        call = llm.chat([{"role": "user", "content": q}], max_tokens=2, purpose="gate", grammar=YES_NO)
        assert call.text in {"Yes", "No"}


@pytest.mark.parametrize("k", [1, 3, 12])
def test_citation_grammar_forces_in_range_citations(llm, k):
    call = llm.chat([{"role": "user", "content": "Write about documents."}], max_tokens=120, purpose="answer",
                    grammar=citation_grammar(k, max_sentences=3))
    sents = split_statements(call.text)
    assert sents
    complete = sents if call.finish_reason == "stop" else sents[:-1]  # a cut-off last sentence may lack marks
    for s in complete:
        cites = parse_citations(s)
        assert cites and not invalid_citations(cites, k), s
        assert re.search(r"(\][.!?]|[.!?] (\[\d+\])+)$", s), s  # "... [1]." or "... . [1]"
        assert strip_citations(s)


def test_token_count_and_truncate(llm):
    text = "one two three four five six seven eight nine ten " * 20
    n = llm.count_tokens(text)
    cut, was_cut = llm.truncate(text, 10)
    assert was_cut and llm.count_tokens(cut) < n
    same, was_cut = llm.truncate("short", 10)
    assert same == "short" and not was_cut


def test_missing_and_corrupt_gguf(tmp_path):
    from vericite.engine.llm import LlamaCppLLM

    with pytest.raises(ModelFileError, match="not found"):
        LlamaCppLLM(tmp_path / "none.gguf")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 100)
    with pytest.raises(ModelFileError, match="could not load"):
        LlamaCppLLM(bad)


def test_yes_probability_reads_logits_reuses_prefix(llm):
    m1 = [{"role": "user", "content": "Is the sky blue? Answer Yes or No."}]
    m2 = [{"role": "user", "content": "Does [2] mention Rush? Answer Yes or No."}]
    p1, c1 = llm.yes_probability(m1, purpose="gate:1")
    p1b, c1b = llm.yes_probability(m1, purpose="gate:1")
    p2, _ = llm.yes_probability(m2, purpose="gate:2")
    assert 0.0 <= p1 <= 1.0 and p1 == pytest.approx(p1b, abs=1e-6)
    assert p1 != pytest.approx(p2, abs=1e-6)  # real logits: another prompt, another probability
    assert c1b.prompt_tokens_computed == 1 < c1b.prompt_tokens  # the whole prompt came from the KV cache
    assert c1.completion_tokens == 0 and c1.text in {"Yes", "No"} and c1.finish_reason == "scored"
    # generation after a scored call still works and is unchanged
    a = llm.chat(MSG, max_tokens=6, purpose="a")
    llm.yes_probability(m2, purpose="gate:2")
    assert llm.chat(MSG, max_tokens=6, purpose="b").text == a.text
