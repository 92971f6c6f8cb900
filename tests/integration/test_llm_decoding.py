"""LlamaCppLLM's own greedy loop (issue 17) on the tiny random GGUF: the lazy grammar and
prompt-lookup drafts must give exactly the text of llama-cpp-python's create_completion path.
(Drafts are identical here; on the quantised 0.5B Qwen batched verification rounds differently and
changed 1 of 2 answers, see README "LLM decoding levers".)

The same subject in other tiers: tests/unit/test_llm_decoding.py.
"""
import pytest

from vericite.engine.errors import ConfigError
from vericite.engine.llm.grammar import YES_NO, citation_grammar

from tests.conftest import TINY_GGUF


DOCS = "Document [1] Rush is a Canadian rock band. Document [2] Rush plays rock music from Toronto."
CASES = [  # (messages or completion prompt, grammar, max_tokens)
    ([{"role": "user", "content": "Write about documents."}], citation_grammar(3, max_sentences=3), 120),
    ([{"role": "user", "content": "Write about documents."}], citation_grammar(12), 60),
    ([{"role": "user", "content": DOCS + " Who is Rush?"}], citation_grammar(2), 7),  # cut by max_tokens
    ([{"role": "user", "content": DOCS}], citation_grammar(5, allowed={2, 4}), 40),
    ([{"role": "user", "content": "Is the sky blue? Answer Yes or No."}], YES_NO, 4),
    ("Question: Is the sky blue?\nAnswer:", YES_NO, 4),                              # completion prompt
    ("Question: " + DOCS + " Who is Rush?\nAnswer:", citation_grammar(2), 50),
]


@pytest.fixture(scope="module")
def model():
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

    return LlamaCppLLM(TINY_GGUF, n_ctx=512, n_threads=2)


@pytest.fixture
def llm(model):
    """The shared model with the levers restored after each test."""
    yield model
    model.lazy_grammar, model.draft_tokens, model.reuse_prefix = True, 0, True
    model.reset_cache()


def run(llm, msgs, grammar, max_tokens, *, lazy: bool, draft: int = 0, reset: bool = True):
    llm.lazy_grammar, llm.draft_tokens = lazy, draft
    if reset:
        llm.reset_cache()
    return llm.chat(msgs, max_tokens=max_tokens, purpose="t", grammar=grammar)


def same(a, b) -> bool:
    return (a.text, a.finish_reason, a.completion_tokens, a.prompt_tokens) == \
           (b.text, b.finish_reason, b.completion_tokens, b.prompt_tokens)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_lazy_grammar_equals_full_grammar(llm, case):
    msgs, grammar, max_tokens = CASES[case]
    full = run(llm, msgs, grammar, max_tokens, lazy=False)
    assert llm.last_call_stats == {}  # the reference went through llama-cpp-python's sampler chain
    lazy = run(llm, msgs, grammar, max_tokens, lazy=True)
    st = llm.last_call_stats
    assert st["loop_calls"] == 1 and st["grammar_checks"] >= lazy.completion_tokens
    assert same(lazy, full), (lazy, full)
    assert lazy.prompt_tokens_computed == full.prompt_tokens_computed
    assert lazy.prompt_eval_ms >= 0 and lazy.generation_ms >= 0 and lazy.wall_ms > 0


def test_cases_cover_stop_cut_and_rejections(llm):
    """The cases above include a stop, a max_tokens cut, and tokens the grammar rejected."""
    finishes, full_masks = set(), 0
    for msgs, grammar, max_tokens in CASES:
        call = run(llm, msgs, grammar, max_tokens, lazy=True)
        finishes.add(call.finish_reason)
        full_masks += llm.last_call_stats["grammar_full"]
    assert finishes == {"stop", "length"} and full_masks > 0


def test_same_calls_in_sequence_reuse_the_same_prefixes(llm):
    """KV prefix reuse across calls: both paths leave the same KV state, so a sequence of calls
    gives the same texts and the same computed prompt tokens."""
    out = {}
    for lazy in (False, True):
        llm.reset_cache()
        out[lazy] = [run(llm, m, g, n, lazy=lazy, reset=False) for m, g, n in CASES[:5] + CASES[:2]]
    for a, b in zip(out[False], out[True]):
        assert same(a, b) and a.prompt_tokens_computed == b.prompt_tokens_computed
    assert any(c.prompt_tokens_computed < c.prompt_tokens for c in out[True][5:])  # a prefix came from the cache


def test_no_prefix_reuse_and_anchor_save(llm):
    msgs, grammar, max_tokens = CASES[3]
    llm.reuse_prefix = False
    ref = run(llm, msgs, grammar, max_tokens, lazy=False)
    a = run(llm, msgs, grammar, max_tokens, lazy=True, reset=False)
    assert same(a, ref) and a.prompt_tokens_computed == a.prompt_tokens  # evaluated from scratch
    llm.reuse_prefix, llm.anchor_min_tokens = True, 10
    try:
        llm.reset_cache()
        b = run(llm, msgs, grammar, max_tokens, lazy=True, reset=False)
        assert same(b, ref) and len(llm._anchors) == 1  # the own loop saves an anchor too
    finally:
        llm.anchor_min_tokens = 512


@pytest.mark.parametrize("case", range(len(CASES)))
def test_prompt_lookup_drafts_do_not_change_greedy_output(llm, case):
    msgs, grammar, max_tokens = CASES[case]
    ref = run(llm, msgs, grammar, max_tokens, lazy=True, draft=0)
    for lazy in (True, False):
        got = run(llm, msgs, grammar, max_tokens, lazy=lazy, draft=8)
        assert same(got, ref), (lazy, got, ref)
        assert llm.last_call_stats["loop_calls"] == 1


def test_unconstrained_drafts_equal_the_library(llm):
    msgs = [{"role": "user", "content": DOCS + " Repeat the documents."}]
    ref = run(llm, msgs, None, 60, lazy=True, draft=0)
    assert llm.last_call_stats == {}  # no grammar, no drafts: llama-cpp-python's own loop
    got = run(llm, msgs, None, 60, lazy=True, draft=4)
    assert same(got, ref) and llm.last_call_stats["grammar_checks"] == 0


def test_accepted_and_rejected_drafts(llm, monkeypatch):
    """An oracle drafter that guesses the reference continuation right, except every fifth token:
    accepted drafts skip decoding steps, rejected ones are dropped from the KV cache, and the
    text stays the reference's."""
    msgs, grammar, max_tokens = CASES[0]
    ref = run(llm, msgs, grammar, max_tokens, lazy=True)
    prompt_len = ref.prompt_tokens
    ref_toks = llm._llm.input_ids[prompt_len:llm._llm.n_tokens].tolist()  # the output but its last token
    assert len(ref_toks) > 20

    def oracle(drafter, tok, room):
        done = llm._llm.n_tokens + 1 - prompt_len  # output tokens with tok
        guess = ref_toks[done:done + min(room, 6)]
        return [t if (done + i) % 5 else (t + 1) % 700 for i, t in enumerate(guess)]

    monkeypatch.setattr(llm, "_draft", oracle)
    got = run(llm, msgs, grammar, max_tokens, lazy=True, draft=6)
    st = llm.last_call_stats
    assert same(got, ref)
    assert st["draft_accepted"] > 0 and st["draft_proposed"] > st["draft_accepted"]
    monkeypatch.undo()
    # the KV cache holds no dropped draft: the next call equals the library's after the same call
    again = run(llm, msgs, YES_NO, 4, lazy=True, reset=False)
    run(llm, msgs, grammar, max_tokens, lazy=False)
    assert same(again, run(llm, msgs, YES_NO, 4, lazy=False, reset=False))


def test_bad_settings(llm, model):
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

    with pytest.raises(ConfigError, match="parse the GBNF"):
        llm.chat(CASES[0][0], max_tokens=4, purpose="t", grammar="root ::= (")
    with pytest.raises(ConfigError, match="draft_tokens"):
        LlamaCppLLM(TINY_GGUF, n_ctx=128, draft_tokens=-1)


def test_chat_format_override_keeps_the_library_path():
    """Messages under a chat_format override are rendered by llama-cpp-python, so the levers are
    off there (the own loop needs the prompt's tokens)."""
    from vericite.engine.llm.llama_cpp import LlamaCppLLM

    lm = LlamaCppLLM(TINY_GGUF, n_ctx=256, n_threads=2, chat_format="chatml", draft_tokens=4)
    call = lm.chat([{"role": "user", "content": "Is it?"}], max_tokens=3, purpose="g", grammar=YES_NO)
    assert call.text in {"Yes", "No"} and lm.last_call_stats == {}
    lm.chat("Question: is it?\nAnswer:", max_tokens=3, purpose="g", grammar=YES_NO)
    assert lm.last_call_stats["loop_calls"] == 1  # a plain prompt string is tokenised here


LOOP = 'root ::= "Rush is a band.\\n" "Peart drums.\\n" "Rush  is a band.\\n" "Lee sings.\\n"'  # a forced loop


def test_stop_repeats_ends_a_forced_loop_in_the_own_loop_and_in_the_batch(llm):
    """The grammar forces a repeated line; with stop_repeats the completion ends before it (and the
    batched decoder agrees), without it the whole forced text comes back."""
    msgs = [{"role": "user", "content": "List facts."}]
    full = run(llm, msgs, LOOP, 60, lazy=True)
    assert full.text == "Rush is a band.\nPeart drums.\nRush  is a band.\nLee sings."
    try:
        llm.stop_repeats = True
        cut = run(llm, msgs, LOOP, 60, lazy=True)
        assert (cut.text, cut.finish_reason) == ("Rush is a band.\nPeart drums.", "stop")
        assert llm.last_call_stats["repeat_stops"] == 1
        with llm.batched(slots=1, clients=1) as session, session.client(0):
            batched = session.chat(msgs, max_tokens=60, purpose="t", grammar=LOOP)
        assert (batched.text, batched.finish_reason) == (cut.text, "stop")
    finally:
        llm.stop_repeats = False
