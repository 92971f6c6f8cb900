"""Stage 2's documents together sent to a real llama-server with 2 slots (xllamacpp),
against the in-process sequential run on the tiny GGUF.

The same subject in other tiers: tests/unit/test_parallel_docs.py, tests/integration/test_parallel_docs.py.
"""
from __future__ import annotations

import pytest

from tests.conftest import TINY_GGUF
from tests.unit.test_parallel_docs import calls, verdicts
from tests.integration.test_parallel_docs import N_CTX, answer, gate_scores
from tests.integration import test_parallel_docs as integration_part

results = integration_part.results  # fixture shared with tests/integration/test_parallel_docs.py


def outcomes(result):
    return [(s.stage, s.citations, s.verdict) for st in result.stages for s in st.statements] + \
        [(s.citations, s.verdict) for s in result.final]


# -- llama-server with 2 slots ---------------------------------------------------------------------
def test_server_with_two_slots_equals_in_process_sequential(results):
    """Stage 2's calls sent concurrently to a 2-slot llama-server: the same calls and answer as the
    same server one call at a time, and as the in-process sequential run up to the one known
    difference of the server backend (engine/llm/openai_compat.py): at the max_tokens cap llama-cpp-python
    decodes on while its text ends inside a UTF-8 character, the server stops (its text is then a
    prefix). On these six documents that is exactly one extraction per prompt set."""
    pytest.importorskip("httpx")
    from vericite.engine.llm.openai_compat import OpenAICompatLLM

    from tests.external.test_openai_llm import LlamaServer

    srv = LlamaServer(ctx=2 * N_CTX, parallel=2, threads=1)  # each slot gets the whole N_CTX
    try:
        for name in ("grammar-gate", "scored-gate"):
            got = {}
            for n in (1, 2):
                with OpenAICompatLLM(srv.url, model="tiny", tokenizer_gguf=TINY_GGUF, n_ctx=N_CTX, n_probs=768) as lm:
                    got[n] = answer(lm, name, parallel_docs=n)
            assert calls(got[2]) == calls(got[1]) and verdicts(got[2]) == verdicts(got[1]), name
            ref = results[name][1]
            assert got[2].answer == ref.answer, name
            # the same verdicts (a fact of the cut extraction reads as its prefix)
            assert outcomes(got[2]) == outcomes(ref), name
            differ = [(a, b) for a, b in zip(calls(ref), calls(got[2])) if a != b]
            assert len(calls(ref)) == len(calls(got[2])) and len(differ) == 1, (name, differ)
            for a, b in differ:  # in-process ran past the cap inside a character; the server's text is its prefix
                assert a[0] == b[0] and a[3] > b[3] and b[4] == "length" and a[1].startswith(b[1]), (a, b)
            assert all(abs(a - b) <= 1e-3 for a, b in zip(gate_scores(got[2]), gate_scores(ref)) if a is not None)
    finally:
        srv.stop()
