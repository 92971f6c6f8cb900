"""Quality benchmark: ALCE metrics on hand-built cases, data loading, resumable runs, the report,
the vanilla method and the LLM checkers (scripted LLM; one real tiny GGUF check).

The same subject in other tiers: tests/integration/test_alce.py, tests/lab/test_alce.py.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from vericite.bench import alce
from vericite.bench.alce import Rules, citation_scores
from vericite.bench.datasets import bm25_order, load_items, select_bm25
from vericite.bench.methods import (
    Vanilla,
    VanillaPrompt,
    pick_demos,
    resolve_method,
)
from vericite.bench.run import evaluate_rows, markdown_table, read_results, run_items
from vericite.engine.errors import ConfigError, InputError
from vericite.engine.llm.grammar import citation_grammar
from vericite.bench.llm_checker import (
    LLMBatchChecker,
    LLMGradedChecker,
    LLMYesNoChecker,
    parse_batch_reply,
)
from vericite.engine.records import Document

from tests.unit.test_pipeline_rules import ScriptedLLM


def words(s: str) -> set[str]:
    return set(re.findall(r"\w+", s.lower())) - {"title"}


def overlap_scores(pairs):
    """A hand-built 'NLI': entailed (1.0) iff every word of the hypothesis occurs in the premise."""
    return np.array([1.0 if words(h) <= words(p) else 0.0 for p, h in pairs], dtype=np.float32)


DOCS = [Document("Rush", "rush released counterparts"),          # [1]
        Document("Peart", "peart drummed for them"),               # [2]
        Document("Moon", "keith moon was english"),                # [3]
        Document("X", "nothing here"),                             # [4]
        Document("Y", "still nothing")]                            # [5]


# -- citation recall / precision ----------------------------------------------------------------
def test_recall_precision_rules():
    out = ("Rush released Counterparts [1]. "            # entailed, 1 citation: 1/1 precise
           "Rush released Counterparts [1][3]. "         # entailed; [3] alone no, [1] without it yes -> irrelevant
           "Rush released Counterparts, Peart drummed [1][2]. "  # only jointly entailed: both precise
           "Keith Moon was English. "                     # no citation: recall 0, no citations counted
           "Peart drummed for them [9]. "                 # out of range: recall 0, not counted
           "Keith Moon drummed [3].")                     # not entailed: 0 of 1
    res = citation_scores(out, DOCS, overlap_scores, Rules(threshold=0.5))
    st = [s.status for s in res.sentences]
    assert st == [alce.ENTAILED, alce.ENTAILED, alce.ENTAILED, alce.NO_CITATION, alce.OUT_OF_RANGE, alce.NOT_ENTAILED]
    assert res.n_sentences == 6 and res.n_entailed == 3
    assert res.recall == pytest.approx(3 / 6)
    assert res.n_citations == 1 + 2 + 2 + 1          # no-citation and out-of-range sentences add nothing
    assert res.sentences[1].irrelevant == (3,) and res.sentences[1].precise == (1,)
    assert res.sentences[2].precise == (1, 2) and res.sentences[2].irrelevant == ()
    assert res.n_precise == 1 + 1 + 2
    assert res.precision == pytest.approx(4 / 6)


def test_irrelevant_needs_both_conditions():
    # [2] alone does not entail, but removing it breaks the joint entailment -> not irrelevant
    res = citation_scores("Rush released Counterparts, Peart drummed [1][2].", DOCS, overlap_scores, Rules(0.5))
    assert res.precision == 1.0
    # a document that alone entails is never irrelevant, even if the others also do
    res = citation_scores("Rush released Counterparts [1][1, 2].", [DOCS[0], DOCS[0]], overlap_scores, Rules(0.5))
    assert res.sentences[0].citations == (1, 2) and res.precision == 1.0


def test_joint_not_entailed_earns_no_precision():
    res = citation_scores("Keith Moon drummed for Toto [1][2][3].", DOCS, overlap_scores, Rules(0.5))
    assert res.recall == 0.0 and res.n_citations == 3 and res.precision == 0.0


def test_three_citation_cap_and_out_of_range_before_cap():
    # the supporting document is the 4th citation: only [2][3][4] count -> not entailed
    res = citation_scores("Rush released Counterparts [2][3][4][1].", DOCS, overlap_scores, Rules(0.5))
    assert res.sentences[0].citations == (2, 3, 4) and res.n_citations == 3 and res.recall == 0.0
    res = citation_scores("Rush released Counterparts [2][3][4][1].", DOCS, overlap_scores, Rules(0.5, at_most_citations=4))
    assert res.recall == 1.0
    # an out-of-range 4th citation still zeroes the sentence (ALCE checks range before the cap)
    res = citation_scores("Rush released Counterparts [1][2][3][6].", DOCS, overlap_scores, Rules(0.5))
    assert res.sentences[0].status == alce.OUT_OF_RANGE and res.n_citations == 0
    assert citation_scores("Rush released Counterparts [0].", DOCS, overlap_scores).sentences[0].status == alce.OUT_OF_RANGE


def test_no_sentence_is_left_out_and_no_citations_give_zero_precision():
    assert citation_scores("", DOCS, overlap_scores).recall is None
    res = citation_scores("Rush released Counterparts.", DOCS, overlap_scores)
    assert res.recall == 0.0 and res.precision == 0.0


def test_first_line_rule():
    out = "Rush released Counterparts [1].\nKeith Moon drummed [3].<|im_end|>"
    assert citation_scores(out, DOCS, overlap_scores, Rules(0.5)).n_sentences == 2
    compat = citation_scores(out, DOCS, overlap_scores, Rules(0.5, alce_compat=True))
    assert compat.n_sentences == 1 and compat.recall == 1.0
    assert alce.prepare_output("  a\nb<|im_end|>", alce_compat=True) == "a"


def test_document_rendering_and_joint_premise():
    seen = []

    def spy(pairs):
        seen.extend(pairs)
        return overlap_scores(pairs)

    citation_scores("Rush released Counterparts, Peart drummed [1][2].", DOCS, spy)
    assert seen[0] == ("Title: Rush\nrush released counterparts\nTitle: Peart\npeart drummed for them",
                       "Rush released Counterparts, Peart drummed.")


# -- correctness ----------------------------------------------------------------------------------
def test_normalization_and_squad_metrics():
    assert alce.normalize_answer("The  Rush, (band)!") == "rush band"
    assert alce.compute_exact("Rush", "the rush.") == 1
    assert alce.compute_f1("Josef Bican", "Bican") == pytest.approx(2 * 1.0 * 0.5 / 1.5)
    m = alce.answer_match(alce.answer_text("The answer is Rush [1]."), ["Rush", "Rush (band)"])
    assert m == {"em": 0.0, "f1": pytest.approx(0.5), "in_output": 1.0}   # tokens answer/is/rush vs rush
    m = alce.answer_match(alce.answer_text("Rush [1]."), ["rush"])
    assert m["em"] == 1.0 and m["f1"] == 1.0


def test_str_em():
    pairs = [{"short_answers": ["Daei", "Ali Daei"]}, {"short_answers": ["Bican"]}, {"short_answers": ["Sinclair"]}]
    em, hit = alce.str_em(alce.answer_text("Ali Daei scored most [1]. The Bican record stands [2]."), pairs)
    assert em == pytest.approx(2 / 3) and hit is False
    assert alce.str_em("daei bican sinclair", pairs) == (1.0, True)


def test_claims_nli():
    calls = []

    def spy(pairs):
        calls.append(len(pairs))
        return overlap_scores(pairs)

    assert alce.claims_nli("rush released counterparts", ["Rush released it", "Counterparts"], spy, 0.5) == 0.5
    assert alce.claims_nli("", ["x"], spy, 0.5) == 0.0 and calls == [2]


def test_evaluate_aggregate_and_report(tmp_path):
    gold = {"answers": ["Rush"]}
    docs = [{"title": d.title, "text": d.text} for d in DOCS]
    rows = [
        {"id": "a", "dataset": "hotpotqa", "method": "m1", "output": "Rush released Counterparts [1].", "docs": docs,
         "gold": gold, "seconds": 2.0, "run": {"llm": "L", "checker": "C"}},
        {"id": "b", "dataset": "hotpotqa", "method": "m1", "output": "", "docs": docs, "gold": gold, "seconds": 4.0},
        {"id": "a", "dataset": "hotpotqa", "method": "m2", "output": "Keith Moon drummed [3].", "docs": docs,
         "gold": gold, "seconds": 1.0},
    ]
    res = evaluate_rows(rows, alce.MemoScores(overlap_scores), Rules(0.5), progress=False)
    m1, m2 = res
    assert (m1["items"], m1["items_with_sentences"], m1["answered"]) == (2, 1, 50.0)
    assert (m1["citation_recall"], m1["citation_precision"], m1["citation_f1"]) == (100.0, 100.0, 100.0)
    assert m1["answer_in_output"] == 50.0 and m1["correctness"] == 50.0 and m1["seconds_per_item"] == 3.0
    assert m1["llm"] == "L" and m1["checker"] == "C" and m1["statements_per_answer"] == 1.0
    assert m2["citation_recall"] == 0.0 and m2["citation_f1"] == 0.0
    ev = {"evaluator": {"nli": "toy-nli", "threshold": 0.5, "metric_version": alce.METRIC_VERSION}, "results": res}
    md = markdown_table(ev)
    lines = md.strip().splitlines()
    assert "toy-nli" in lines[0]
    assert lines[2].startswith("| dataset | method | LLM | pipeline checker | n |")
    assert lines[4].startswith("| hotpotqa | m1 | L | C | 2 | 50.0 | 100.0 | 100.0 | 100.0 | 50.0 | answer_in_output |")
    assert lines[5].startswith("| hotpotqa | m2 | - | - | 1 |")
    with pytest.raises(InputError, match="duplicate"):
        evaluate_rows(rows + [dict(rows[0])], overlap_scores, Rules(0.5), progress=False)


def test_memo_scores_only_scores_misses():
    n = []

    def s(pairs):
        n.append(len(pairs))
        return overlap_scores(pairs)

    memo = alce.MemoScores(s)
    a = memo([("a b", "a"), ("a b", "c"), ("a b", "a")])
    b = memo([("a b", "c"), ("x", "y")])
    assert a.tolist() == [1.0, 0.0, 1.0] and b.tolist() == [0.0, 0.0] and n == [2, 1]


# -- data ------------------------------------------------------------------------------------------
def test_bm25_order_is_deterministic_with_index_ties():
    docs = [Document("a", "apple pie"), Document("b", "banana"), Document("c", "banana"), Document("d", "apple banana")]
    order = bm25_order("banana", docs)
    assert order == bm25_order("banana", docs)
    assert order.index(1) < order.index(2)          # equal scores: original order
    assert order[-1] == 0                           # no query term
    # supporting documents are kept even when BM25 ranks them last; output in rank order
    keep = select_bm25("banana", docs, [True, False, False, False], 2)
    assert 0 in keep and len(keep) == 2 and keep[-1] == 0


def test_load_items_shapes(shared, tmp_path):
    hp = load_items(shared / "data" / "hotpotqa.jsonl", limit=2)
    assert hp == load_items(shared / "data" / "hotpotqa.jsonl", limit=2)
    raw = json.loads((shared / "data" / "hotpotqa.jsonl").read_text().splitlines()[0])
    sup = {d["title"] for d in raw["docs"] if d["is_supporting"]}
    assert hp[0]["dataset"] == "hotpotqa" and len(hp[0]["docs"]) == 5 and sup <= {d.title for d in hp[0]["docs"]}
    asqa = load_items(shared / "data" / "asqa.jsonl", limit=1)[0]
    assert asqa["dataset"] == "asqa" and asqa["gold"]["qa_pairs"][0]["short_answers"]
    raw = json.loads((shared / "data" / "asqa.jsonl").read_text().splitlines()[0])
    assert [d.title for d in asqa["docs"]] == [d["title"] for d in raw["docs"][:5]]
    ru = load_items(shared / "data" / "ru_xquad.jsonl", limit=1)[0]
    raw_ru = json.loads((shared / "data" / "ru_xquad.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert ru["dataset"] == "xquad-ru" and ru["gold"]["answers"][0] == raw_ru["answer"]
    assert [d.text for d in ru["docs"]] == [d["text"].strip() for d in raw_ru["docs"][:5]]
    row = {"dataset": "xquad-ru", "docs": [], "gold": {"answers": ["308"]}, "output": "Защита уступила 308 очков [1]."}
    assert alce.evaluate_item(row, lambda pairs: [1.0] * len(pairs), Rules())["answer_in_output"] == 1.0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(raw) + "\n{oops\n")
    with pytest.raises(InputError, match=r"bad.jsonl: malformed JSONL at line 2"):
        load_items(bad)


# -- resumable runs --------------------------------------------------------------------------------
def _items(n):
    return [{"id": f"q{i}", "index": i, "dataset": "hotpotqa", "question": f"Q{i}?", "docs": DOCS[:2],
             "gold": {"answers": ["Rush"]}} for i in range(n)]


class FakeMethod:
    name = "fake"
    def __init__(self, fail_at=None):
        self.stamp = {"llm": "L", "checker": None}
        self.fail_at = fail_at
        self.seen = []

    def __call__(self, item):
        if item["id"] == self.fail_at:
            raise RuntimeError("boom")
        self.seen.append(item["id"])
        return {"output": f"Rush released Counterparts [1]. ({item['id']})", "warnings": [], "trace": {}}


def test_resume_after_crash(tmp_path):
    out = tmp_path / "r.jsonl"
    with pytest.raises(RuntimeError, match="boom"):
        run_items(FakeMethod(fail_at="q3"), _items(6), out, progress=False)
    assert [r["id"] for r in read_results(out)] == ["q0", "q1", "q2"]
    with open(out, "a") as f:
        f.write('{"id": "q3", "dataset": "hotp')        # a torn line from a kill mid-write
    m = FakeMethod()
    res = run_items(m, _items(6), out, progress=False)
    assert m.seen == ["q3", "q4", "q5"] and res["done"] == 3 and res["skipped"] == 3
    assert [r["id"] for r in read_results(out)] == [f"q{i}" for i in range(6)]
    assert run_items(FakeMethod(), _items(6), out, progress=False)["done"] == 0
    other = FakeMethod()
    other.stamp = {"llm": "another"}
    with pytest.raises(ConfigError, match="another --out"):
        run_items(other, _items(7), out, progress=False)


def test_an_empty_out_is_no_results_and_a_second_writer_is_refused(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text("")  # a run killed before its first item
    assert run_items(FakeMethod(), _items(2), out, progress=False)["done"] == 2
    assert [r["id"] for r in read_results(out)] == ["q0", "q1"]

    class Interleaving(FakeMethod):
        """Starts a second run on the same --out while its own first item runs."""

        def __call__(self, item):
            if not hasattr(self, "second"):
                self.second = None
                try:
                    run_items(FakeMethod(), _items(4), out, progress=False)
                except ConfigError as e:
                    self.second = str(e)
            return super().__call__(item)

    m = Interleaving()
    assert run_items(m, _items(4), out, progress=False)["done"] == 2
    assert "another `vericite run` is writing to this file" in m.second
    assert [r["id"] for r in read_results(out)] == ["q0", "q1", "q2", "q3"]  # no item twice


def test_malformed_results_name_file_and_line(tmp_path):
    p = tmp_path / "r.jsonl"
    p.write_text('{"id": 1}\n')
    with pytest.raises(InputError, match=r"r.jsonl:1: result row misses dataset"):
        read_results(p)
    p.write_text('\n{"a": 1\n')
    with pytest.raises(InputError, match="line 2"):
        read_results(p)


# -- methods -----------------------------------------------------------------------------------
def test_resolve_method():
    assert resolve_method("vericite", checker="llm") == "vericite-llm"
    assert resolve_method("vericite", no_nli=True) == "vericite-no-nli"
    assert resolve_method("vericite", checker="nli") == "vericite"
    with pytest.raises(ConfigError):
        resolve_method("vanilla", checker="llm")


def test_vanilla_prompt_demos_and_grammar(shared):
    from vericite.bench.datasets import load_demos

    demos = pick_demos(load_demos(shared / "data" / "asqa_demos.jsonl"), 2)
    assert [d["question"] for d in demos] == ["When did the us break away from england?",
                                              "Who played galen in planet of the apes?"]  # seed 42 -> demos 1, 3
    llm = ScriptedLLM({"answer": "Rush released Counterparts [1]."})
    m = Vanilla(llm, prompt=VanillaPrompt.load(), demos=demos, citation_grammar=True)
    out = m({"question": "Which band?", "docs": DOCS})
    (_, msgs, grammar), = llm.calls
    assert out["output"] == "Rush released Counterparts [1]." and grammar == citation_grammar(5)
    assert [x["role"] for x in msgs] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert msgs[-1]["content"].startswith("Instruction: Write an accurate")
    assert "Question: Which band?" in msgs[-1]["content"] and "Document [5](Title: Y): still nothing" in msgs[-1]["content"]
    assert msgs[-1]["content"].endswith("Answer:")
    # a Russian question gets the Russian prompt (its system message, instruction and templates)
    llm_ru = ScriptedLLM({"answer": "Ответ [1]."})
    Vanilla(llm_ru, prompt=VanillaPrompt.load(), demos=[], citation_grammar=True)(
        {"question": "Сколько очков уступила защита Пэнтерс?", "docs": DOCS[:2]})
    (_, msgs_ru, _), = llm_ru.calls
    assert msgs_ru[0]["content"] == "Вы — полезный ассистент." and msgs_ru[-1]["content"].startswith("Инструкция:")
    assert "Документ [1](Заголовок: " in msgs_ru[-1]["content"] and msgs_ru[-1]["content"].endswith("Ответ:")


def test_yes_no_checker_scores_p_yes():
    llm = ScriptedLLM({"check": 0.8})
    c = LLMYesNoChecker(llm)
    s = c.scores([("doc a", "h1"), ("doc b", "h2")])
    assert s.dtype == np.float32 and s.tolist() == pytest.approx([0.8, 0.8])
    assert c.ep == "llama.cpp" and c.threshold == 0.5 and c.stats["llm_calls"] == 2
    assert "Document: doc a" in llm.calls[0][1][-1]["content"] and "Statement: h1" in llm.calls[0][1][-1]["content"]


def test_batch_checker_groups_by_premise_and_counts_format_warnings():
    llm = ScriptedLLM({"check-batch": "1. Yes\n2. No\n3. Yes\n4. Yes\n5. No"})
    c = LLMBatchChecker(llm, batch=5)
    pairs = [("P", f"s{i}") for i in range(7)] + [("Q", "t0")]
    s = c.scores(pairs)
    assert len(llm.calls) == 3                      # P: 5 + 2, Q: 1
    assert s.tolist() == [1, 0, 1, 1, 0, 1, 0, 1]
    assert c.stats["format_warnings"] == 2          # the same 5-line reply to 2- and 1-statement prompts: extra lines
    assert llm.calls[0][2] is not None and '"5. " yn' in llm.calls[0][2]
    free = LLMBatchChecker(ScriptedLLM({"check-batch": "The statements are true."}), batch=5, grammar=False)
    assert free.scores([("P", "a"), ("P", "b")]).tolist() == [0.0, 0.0]
    assert free.stats["format_warnings"] == 3       # 2 unanswered + 1 unreadable line


def test_parse_batch_reply():
    assert parse_batch_reply("1. Yes\n2. No", 2) == ([1.0, 0.0], 0)
    assert parse_batch_reply("Yes\nno", 2) == ([1.0, 0.0], 0)
    assert parse_batch_reply("2. yes", 3) == ([None, 1.0, None], 2)
    assert parse_batch_reply("1. Yes\n7. No", 2) == ([1.0, None], 2)


@pytest.mark.parametrize("keep,kept", [(2, [1, 2]), (3, [1, 2, 3])])
def test_graded_checker_strict_and_lenient(keep, kept):
    for grade in (1, 2, 3, 4):
        c = LLMGradedChecker(ScriptedLLM({"check-graded": str(grade)}), keep=keep)
        s = c.scores([("P", "h")])
        assert (s[0] >= c.threshold) == (grade in kept), (grade, keep)
    bad = LLMGradedChecker(ScriptedLLM({"check-graded": "dunno"}), keep=2, grammar=False)
    assert bad.scores([("P", "h")]).tolist() == [0.0] and bad.stats["format_warnings"] == 1
    with pytest.raises(ConfigError):
        LLMGradedChecker(ScriptedLLM({}), keep=4)


def test_run_command_skips_finished_items_without_loading_models(shared, tmp_path, capsys):
    from vericite.bench.run import run_main

    data = shared / "data" / "hotpotqa.jsonl"
    out = tmp_path / "r.jsonl"
    m = FakeMethod()
    m.name = "vanilla"
    run_items(m, load_items(data, limit=2), out, progress=False)
    assert run_main(["--method", "vanilla", "--data", str(data), "--limit", "2", "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == 2


def test_bench_items_gold_and_gate_counts():
    from types import SimpleNamespace

    from vericite.bench.items import gate_counts, gold_present, totals

    assert gold_present("The band is Rush [1].", {"answers": ["Rush"]}) is True
    assert gold_present("The band is Yes [1].", {"answers": ["Rush"]}) is False
    qa = {"qa_pairs": [{"question": "a", "short_answers": ["Ali Daei"]}, {"question": "b", "short_answers": ["Bican"]}]}
    assert gold_present("Ali Daei scored 109 goals [2].", qa) is True and gold_present("Pele [1].", qa) is False
    assert gold_present("anything", {"claims": ["c"]}) is None
    calls = [SimpleNamespace(purpose=f"gate:{i}", text=t) for i, t in enumerate(["Yes", "No", "Yes", "No"], start=1)]
    res = SimpleNamespace(stages=[None, SimpleNamespace(llm_calls=calls), None])
    c = gate_counts(res, [True, True, False, False])
    assert c == {"gate_tp": 1, "gate_fn": 1, "gate_fp": 1, "gate_tn": 1}
    assert gate_counts(res, None) == {}
    row = {k: 0 for k in ("seconds", "s1_statements", "s1_cited", "s1_kept", "s1_dropped_no_citation",
                          "s1_dropped_out_of_range", "s1_dropped_nli", "s1_dropped_fragment", "gates_yes",
                          "gates_no", "s2_facts", "s2_kept", "s2_dropped_nli", "s2_dropped_fragment",
                          "final_sentences", "final_supported", "prompt_tokens", "prompt_tokens_computed",
                          "completion_tokens", "nli_pairs", "nli_ms")}
    row.update(s1_statements=4, s1_cited=3, answer_nonempty=True, gold_in_answer=True, final_all_cited=True, **c)
    t = totals([row])
    assert t["s1_cited_rate"] == 0.75 and t["gate_recall"] == 0.5 and t["gate_precision"] == 0.5


def test_run_ablation_needs_a_label_and_skips_under_it(shared, tmp_path, capsys):
    from vericite.bench.run import run_main
    from vericite.engine.errors import ConfigError

    data = shared / "data" / "hotpotqa.jsonl"
    out = tmp_path / "r.jsonl"
    with pytest.raises(ConfigError, match="need --label"):
        run_main(["--method", "vericite", "--data", str(data), "--limit", "2", "--out", str(out), "--no-backbone"])
    m = FakeMethod()
    m.name = "vericite-no-backbone"
    run_items(m, load_items(data, limit=2), out, progress=False)
    assert run_main(["--method", "vericite", "--data", str(data), "--limit", "2", "--out", str(out), "--no-backbone",
                     "--label", "vericite-no-backbone"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == 2


def test_gate_calibration_auc_and_relative_scores():
    from vericite.bench.gate import relative_scores, roc_auc

    y = np.array([True, False, True, False])
    assert roc_auc(np.array([0.9, 0.1, 0.8, 0.2]), y) == 1.0
    assert roc_auc(np.array([0.1, 0.9, 0.2, 0.8]), y) == 0.0
    assert roc_auc(np.array([0.5, 0.5, 0.5, 0.5]), y) == 0.5
    assert roc_auc(np.array([0.5, 0.4]), np.array([True, True])) is None
    # item 1's scores are all high, item 2's all low: relative scores put each item's best at 1
    rows = [{"item": 1, "p_yes": 0.9}, {"item": 1, "p_yes": 0.45}, {"item": 2, "p_yes": 0.2}, {"item": 2, "p_yes": 0.1}]
    assert relative_scores(rows).tolist() == [1.0, 0.5, 1.0, 0.5]


def test_eval_names_a_self_evaluated_method():
    from vericite.bench.run import same_family

    assert same_family("nli-minilm-l6-bin-int8+number-guard", "nli-minilm-l6-hn-int8")
    assert same_family("nli-minilm-l6-bin-int8", "nli-minilm-l6-bin-int8")
    assert not same_family("nli-me5-small-ru-int8+number-guard", "nli-minilm-l6-bin-int8")
    assert not same_family(None, "nli-minilm-l6-bin-int8")
    res = [{"dataset": "hotpotqa", "method": "vericite", "checker": "nli-minilm-l6-bin-int8+number-guard", "items": 1,
            "answered": 100.0, "citation_recall": 90.0, "citation_precision": 90.0, "citation_f1": 90.0,
            "statements_per_answer": 2.0, "self_evaluated": True},
           {"dataset": "hotpotqa", "method": "vanilla", "checker": None, "items": 1, "answered": 100.0,
            "citation_recall": 30.0, "citation_precision": 30.0, "citation_f1": 30.0, "statements_per_answer": 1.0,
            "self_evaluated": False}]
    md = markdown_table({"evaluator": {"nli": "nli-minilm-l6-hn-int8", "threshold": 0.5}, "results": res})
    assert "**Self-evaluated**: vericite (nli-minilm-l6-bin-int8+number-guard)" in md and "vanilla (" not in md
