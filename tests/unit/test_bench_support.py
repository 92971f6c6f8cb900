"""`vericite bench support`: the verify step against claim-support labels (bench/support.py), on fakes."""
from __future__ import annotations

import json

import pytest

from vericite.engine.loader import NoLLM
from vericite.bench import support
from vericite.bench.support import false_accepts, metrics, reason, report, score_claims
from vericite.engine import records as R
from vericite.engine.errors import InferenceError, InputError
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet

from tests.fakes import WordChecker

DOCS = [
    {"n": 1, "title": "Neil Peart", "text": "Neil Peart was a Canadian musician. He was the drummer of the rock band "
                                            "Rush. Peart was inducted into the Modern Drummer Hall of Fame in 1983."},
    {"n": 2, "title": "Counterparts (song)", "text": "Counterparts is a song by the Canadian rock band Rush, "
                                                     "released in 1993."},
    {"n": 3, "title": "Keith Moon", "text": "Keith Moon was an English drummer of the rock band The Who."},
]
Q = "Which Canadian band released Counterparts and had a Hall of Fame drummer?"


def row(i, claim, cited, stage, label="supported", **extra):
    return {"id": f"t-{i}", "lang": "en", "dataset": "toy", "index": 0, "question": Q, "documents": DOCS,
            "claim": claim, "cited": cited, "stage": stage, "label": label, "contradicted": False, "fragment": False,
            "per_doc": None, "note": "", **extra}


def pipeline(checker=None, **settings) -> VeriCite:
    """A pipeline on the fake checker whose LLM raises if called: the verify step must not call it."""
    return VeriCite(NoLLM(), checker or WordChecker(), prompts=PromptSet.load("paper-en"),
                    settings=Settings(**settings))


def result(label, kept, score):
    return {"label": label, "kept": kept, "score": score}


def test_metrics_by_hand_partial_counts_as_not_supported():
    res = [result("supported", True, 0.9), result("supported", True, 0.8), result("supported", False, 0.3),
           result("partial", True, 0.75), result("not_supported", False, 0.1), result("partial", False, 0.2),
           result("not_supported", False, None)]  # no check ran: scores 0
    m = metrics(res)
    # kept 3, of them supported 2; supported 3, kept 2; rejected 3 of the 4 others
    assert m == {"n": 7, "precision_kept": 0.6667, "recall_supported": 0.6667,
                 "balanced_accuracy": round((2 / 3 + 3 / 4) / 2, 4),
                 # positives 0.9, 0.8, 0.3 vs negatives 0.75, 0.1, 0.2, 0: 4 + 4 + 3 of 12 pairs ranked right
                 "auc": round(11 / 12, 4)}
    # the same claims with the partial ones called supported: a different, higher precision
    assert metrics([{**r, "label": "supported" if r["label"] == "partial" else r["label"]} for r in res])[
        "precision_kept"] == 1.0


def test_metrics_ties_and_one_class():
    assert metrics([result("supported", True, 0.5), result("partial", True, 0.5)])["auc"] == 0.5
    one = metrics([result("supported", True, 0.9), result("supported", False, 0.1)])
    assert one["auc"] is None and one["balanced_accuracy"] is None and one["recall_supported"] == 0.5
    assert metrics([result("partial", False, 0.1)])["precision_kept"] is None


@pytest.mark.parametrize("fields, bucket", [
    ({"fragment": True, "contradicted": True, "note": "bare names"}, "fragment"),
    ({"contradicted": True, "note": "doc 2 says 1931, not 1932"}, "contradicted"),
    ({"cited": [2], "note": "doc 2 never mentions the scandal; text is from doc 1"}, "wrong_document"),
    ({"cited": [1], "note": "Terri Irwin only in uncited doc 5"}, "wrong_document"),
    ({"cited": [3], "note": "doc 3 gives one hop only; no bridge to the film"}, "two_hop"),
    ({"cited": [2], "note": "doc 2 places the museum on the island; population not stated"}, "extra_detail"),
    ({"cited": [4], "note": "doc 4: many types; qualifier dropped"}, "extra_detail"),
    ({"cited": [1], "note": "doc 1 never mentions Osbert Sitwell"}, "entity"),
    ({"cited": [3], "note": "doc 3 says an FA Cup won between 1904 and 1910"}, "number_or_date"),
    ({"cited": [3], "note": "doc 3: Renner plays Aaron Cross in Legacy, not Bourne"}, "swapped"),
    ({"cited": [3], "note": "garbled relation in doc 3"}, "other"),  # a cited document's number is no number
])
def test_reason_buckets(fields, bucket):
    assert reason({"cited": [1], "note": "", **fields}) == bucket


def test_false_accepts_count_kept_unsupported_only():
    rows = [{"kept": True, "label": "partial", "note": "doc 1 never mentions X", "cited": [1]},
            {"kept": True, "label": "not_supported", "note": "x", "cited": [1], "fragment": True},
            {"kept": False, "label": "not_supported", "note": "doc 1 never mentions Y", "cited": [1]},
            {"kept": True, "label": "supported", "note": "", "cited": [1]}]
    fa = false_accepts(rows)
    assert list(fa) == list(support.REASONS)
    assert fa["entity"] == 1 and fa["fragment"] == 1 and sum(fa.values()) == 2


def test_scoring_runs_the_verify_step_per_stage():
    rows = [
        row(0, "Counterparts is a song by the Canadian rock band Rush.", [2], "answer"),
        row(1, "Counterparts is a song by the Canadian rock band Rush.", [3], "answer", "not_supported",
            note="doc 3 never mentions Counterparts; text is from doc 2"),
        row(2, "Keith Moon was an English drummer.", [3], "evidence"),
        row(3, "Neil Peart was the drummer of The Who.", [3], "evidence", "partial", note="doc 3 never mentions Peart"),
        row(4, "Peart was the drummer of the rock band Rush.", [2, 1], "refine"),
    ]
    res = score_claims(pipeline(), rows)
    assert [r["kept"] for r in res] == [True, False, True, False, True]
    assert [r["verdict"] for r in res] == [R.KEPT, R.DROPPED_NLI, R.KEPT, R.DROPPED_NLI, R.SUPPORTED]
    assert res[0]["score"] == 1.0 and res[1]["score"] < 0.1 and res[0]["citations"] == [2]
    # cite_each: document 1 alone carries the final sentence, so citation 2 is removed (as the pipeline does)
    assert res[4]["citations"] == [1] and res[4]["removed"] == [2]
    assert all(r["parts"] == 1 and r["checker"] == "word-checker" and r["recorded"] is None for r in res)
    m = metrics(res)
    assert m["precision_kept"] == 1.0 and m["recall_supported"] == 1.0 and m["balanced_accuracy"] == 1.0
    # without cite_each both citations stay (joint premise)
    assert score_claims(pipeline(cite_each=False), rows[4:])[0]["citations"] == [2, 1]


def test_claim_split_in_two_is_kept_only_if_every_checked_part_passes():
    ok = row(0, "Keith Moon was an English drummer. Rush is a Canadian rock band.", [3], "evidence")
    res = score_claims(pipeline(), [ok, {**ok, "id": "t-1", "cited": [2]}])
    assert [r["parts"] for r in res] == [2, 2]
    assert not res[0]["kept"] and not res[1]["kept"]  # each document carries one part only
    twice = "Keith Moon was an English drummer. Keith Moon was the drummer of The Who."
    both = score_claims(pipeline(), [{**ok, "claim": twice}])
    assert both[0]["kept"] and both[0]["parts"] == 2


def test_recite_finds_the_document_that_carries_the_claim():
    r = row(0, "Counterparts is a song by the Canadian rock band Rush.", [3], "answer")
    res = score_claims(pipeline(recite=True), [r])[0]
    # kept only with another document: not kept as the reader judged it (the label is about [3])
    assert not res["kept"] and res["citations"] == [2] and res["recited"] == [2]


def test_questions_in_another_language_go_to_the_routed_checker():
    class RuChecker(WordChecker):
        name = "ru-word-checker"

    ru = VeriCite(NoLLM(), RuChecker(), prompts=PromptSet.load("paper-en"),
                  settings=Settings(checker_languages=("ru", "en")))
    pipe = VeriCite(NoLLM(), WordChecker(), prompts=PromptSet.load("paper-en"), routes={"ru": ru})
    docs = [{"n": 1, "title": "Маркет", "text": "Яндекс Маркет был запущен в 2000 году как сервис сравнения цен."}]
    r = {**row(0, "Яндекс Маркет был запущен в 2000 году.", [1], "evidence"), "lang": "ru", "documents": docs,
         "question": "Когда был запущен Яндекс Маркет?"}
    res = score_claims(pipe, [r, row(1, "Keith Moon was an English drummer.", [3], "evidence")])
    assert [x["checker"] for x in res] == ["ru-word-checker", "word-checker"] and res[0]["kept"]


def test_every_claim_is_split_before_any_check_and_one_checker_runs_at_a_time(monkeypatch):
    """The engine's splitter is not thread-safe and a batcher splits premises in its own thread:
    no split may run while checks are in flight, nor two batchers at once."""
    from concurrent.futures import Future

    log = []

    class Batcher(WordChecker):
        def submit(self, pairs):
            log.append(f"submit:{self.name}")
            fut = Future()
            fut.set_result(self.scores(pairs))
            return fut

    class RuBatcher(Batcher):
        name = "ru-batcher"

    split = support.claim_items
    monkeypatch.setattr(support, "claim_items", lambda *a: log.append("split") or split(*a))
    ru = VeriCite(NoLLM(), RuBatcher(), prompts=PromptSet.load("paper-en"),
                  settings=Settings(checker_languages=("ru", "en")))
    pipe = VeriCite(NoLLM(), Batcher(), prompts=PromptSet.load("paper-en"), routes={"ru": ru})
    docs = [{"n": 1, "title": "Маркет", "text": "Яндекс Маркет был запущен в 2000 году как сервис сравнения цен."}]
    r = {**row(0, "Яндекс Маркет был запущен в 2000 году.", [1], "evidence"), "lang": "ru", "documents": docs,
         "question": "Когда был запущен Яндекс Маркет?"}
    en = row(1, "Keith Moon was an English drummer.", [3], "evidence")
    res = score_claims(pipe, [en, r, en, r])
    assert [x["kept"] for x in res] == [True] * 4 and res[1]["checker"] == "ru-batcher"
    assert log == ["split"] * 4 + ["submit:word-checker"] * 2 + ["submit:ru-batcher"] * 2


def test_no_llm_raises():
    with pytest.raises(InferenceError):
        NoLLM().chat([{"role": "user", "content": "hi"}], max_tokens=1, purpose="answer")


def test_report_has_recorded_block():
    rows = [row(0, "Keith Moon was an English drummer.", [3], "evidence",
                recorded={"verdict": "dropped:not_entailed", "score": 0.2}),
            row(1, "Neil Peart was the drummer of The Who.", [3], "evidence", "not_supported",
                recorded={"verdict": "kept", "score": 0.8}, note="doc 3 never mentions Peart")]
    out = report(score_claims(pipeline(), rows))
    assert out["all"]["balanced_accuracy"] == 1.0
    rec = out["recorded"]
    assert rec["all"] == {"n": 2, "precision_kept": 0.0, "recall_supported": 0.0, "balanced_accuracy": 0.0, "auc": 0.0}
    assert rec["false_accepts_by_reason"]["entity"] == 1 and rec["same_verdict"] == 0.0
    assert set(out) >= {"by_lang", "by_dataset", "by_stage", "false_accepts_by_reason"}
    assert set(out["by_lang"]["en"]) == {"n", "precision_kept", "recall_supported", "balanced_accuracy", "auc"}


def test_main_json_and_out(tmp_path, monkeypatch, capsys):
    data = tmp_path / "claims.jsonl"
    rows = [row(0, "Keith Moon was an English drummer.", [3], "evidence"),
            row(1, "Keith Moon was the drummer of Rush.", [3], "answer", "partial")]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    seen = {}

    def fake_load(**kw):
        seen.update(kw)
        return pipeline()
    monkeypatch.setattr(support, "load_pipeline", fake_load)
    out = tmp_path / "out.jsonl"
    assert support.main(["--data", str(data), "--json", "--out", str(out), "--no-progress", "--set", "threshold=0.8",
                         "--limit", "2"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["by_stage"]["answer"]["n"] == 1 and printed["false_accepts_by_reason"]["other"] == 0
    assert seen["overrides"] == {"threshold": 0.8} and seen["nli"] is None
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [(x["id"], x["label"], x["kept"]) for x in lines] == [("t-0", "supported", True), ("t-1", "partial", False)]
    assert support.main(["--data", str(data), "--no-progress"]) == 0
    assert "| all | 2 |" in capsys.readouterr().out


def test_bad_rows_are_input_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(row(0, "x y z.", [9], "answer")) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="outside documents"):
        support.read_claims(bad)
    bad.write_text(json.dumps({**row(0, "x y z.", [1], "answer"), "label": "maybe"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="label"):
        support.read_claims(bad)
