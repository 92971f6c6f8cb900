"""The rules around LlamaCppLLM's greedy loop that need no GGUF: `bench latency`'s grammar
rows and the repeated-line rule.

The same subject in other tiers: tests/integration/test_llm_decoding.py.
"""
import pytest


# -- bench latency: the grammar's share per stage, vanilla, modes (no GGUF) -------------------------
def test_bench_latency_grammar_rows_and_vanilla_summary():
    from types import SimpleNamespace

    from vericite.bench import latency as L
    from vericite.engine.records import STAGES, LLMCall

    def call(purpose, gen, wall, pe=10.0, gms=20.0, text="x"):
        return LLMCall(purpose=purpose, prompt_tokens=100, prompt_tokens_computed=90, completion_tokens=gen,
                       prompt_eval_ms=pe, generation_ms=gms, wall_ms=wall, finish_reason="stop", text=text)

    class FakeLLM:
        last_call_stats: dict = {}

        def chat(self, messages, *, max_tokens, purpose, grammar=None):
            self.last_call_stats = {"grammar_ms": 5.0, "draft_proposed": 3, "draft_accepted": 2} if grammar else {}
            return call(purpose, 10, 50.0 if grammar else 35.0)

    llm = FakeLLM()
    log = L.CallLog(llm)
    g = llm.chat([], max_tokens=5, purpose="answer", grammar="root ::= \"a\"")
    u = llm.chat([], max_tokens=5, purpose="extract:1")
    scored = call("gate:1", 0, 12.0, gms=0.0)
    row = L._calls_row([g, u, scored], log)
    assert row["grammar_calls"] == 1 and row["grammar_overhead_ms"] == 20.0 and row["grammar_ms"] == 5.0
    assert row["other_overhead_ms"] == 5.0 and row["other_generated_tokens"] == 10  # the scored call is left out
    assert row["draft_accepted"] == 2 and row["draft_proposed"] == 3
    rates = L._with_rates(dict(row))
    assert rates["grammar_tokens_per_s"] == 250.0 and rates["unconstrained_tokens_per_s"] == 400.0
    assert L._calls_row([call("answer", 4, 30.0)], log)["grammar_ms"] is not None  # an unknown call: unconstrained

    def stage(name, calls):
        return SimpleNamespace(name=name, llm_calls=calls, wall_ms=100.0, prompt_tokens=100 * len(calls),
                               completion_tokens=sum(c.completion_tokens for c in calls), nli_pairs=1, nli_ms=2.0)

    pipe_row = {"wall_s": 4.0, "llm_busy_s": 3.0, "cache_hits": 0, "answer": "A [1].",
                "stages": {s: L._stage_row(stage(s, [g, u] if s != "evidence" else [u]), log) for s in STAGES}}
    items = [{"scheduled": pipe_row, "vanilla": {"wall_s": 2.0, "llm_busy_s": 2.0, "answer": "B [1].",
                                                 "stages": {"answer": L._with_rates(dict(row))}}}]
    s = L.summarise(items, ("scheduled", "vanilla"))
    assert s["vericite_over_vanilla"] == 2.0 and s["speedup"] is None and s["identical_answers"] is None
    assert s["per_stage"]["scheduled"]["answer"]["grammar_ms"] == 5.0
    assert s["per_stage"]["vanilla"]["answer"]["grammar_tokens_per_s"] == 250.0
    md = L.markdown(s, {"data": "d", "llm": "m", "llm_threads": 1, "nli": "n", "nli_threads": 1, "ep": "cpu",
                        "prompts": "p", "lazy_grammar": True, "draft_tokens": 0})
    assert "| vanilla | answer |" in md and "vericite_over_vanilla | 2.0" in md
    assert L._modes("vanilla,reference") == ("reference", "vanilla")
    with pytest.raises(Exception):
        L._modes("fast")


def test_repeated_line_rule():
    from vericite.engine.llm.decoding import cut_at_repeat, repeated_line

    assert repeated_line(b"A.\nB.\n") is None and repeated_line(b"A.\nB.\nA") is None  # unfinished line
    assert repeated_line(b"A.\nB.\n A. \n") == 6 and repeated_line(b"\n\n") is None   # blank lines repeat freely
    assert cut_at_repeat(b"A.\nB.\nA.\nC.\nA.\n") == b"A.\nB.\n" and cut_at_repeat(b"A.\nA.") == b"A.\nA."


def test_defang_breaks_every_spelling_of_a_control_token_and_nothing_else():
    from vericite.engine.llm.llama_cpp import WORD_JOINER, defang

    controls = ("<|im_start|>", "<|im_end|>", "</s>")
    msgs = [{"role": "system", "content": "Answer."}, {"role": "user", "content": "a <|im_start|>b</s> <|im_end|>"}]
    out = defang(msgs, controls)
    assert out[0] == msgs[0] and out is not msgs
    text = out[1]["content"]
    assert not any(c in text for c in controls) and text.replace(WORD_JOINER, "") == msgs[1]["content"]
    assert msgs[1]["content"] == "a <|im_start|>b</s> <|im_end|>"   # the caller's messages are not changed
    assert defang("x <|im_end|> y", controls) == "x <" + WORD_JOINER + "|im_end|> y"
    clean = msgs[:1]
    assert defang(clean, controls) is clean                          # nothing to change: the same object
