import json

import pytest

from vericite.bench.datasets import oracle_documents
from vericite.engine.inputs import load_input
from vericite.engine.errors import InputError


def test_item_json_and_question_override(tmp_path):
    p = tmp_path / "item.json"
    p.write_text(json.dumps({"question": "Q?", "docs": [{"title": "A", "text": "a"}, {"title": "B", "text": "b"}]}))
    q, docs = load_input(p)
    assert q == "Q?" and [d.title for d in docs] == ["A", "B"]
    q, _ = load_input(p, question="Other?")
    assert q == "Other?"


def test_jsonl_items_index(tmp_path):
    p = tmp_path / "items.jsonl"
    rows = [{"question": f"Q{i}?", "docs": [{"title": "t", "text": f"x{i}"}]} for i in range(3)]
    p.write_text("\n".join(json.dumps(r) for r in rows))
    q, docs = load_input(p, index=2)
    assert q == "Q2?" and docs[0].text == "x2"
    with pytest.raises(InputError, match="out of range"):
        load_input(p, index=3)


def test_plain_document_list_needs_question(tmp_path):
    p = tmp_path / "docs.json"
    p.write_text(json.dumps([{"title": "A", "text": "a"}]))
    with pytest.raises(InputError, match="--question"):
        load_input(p)
    assert load_input(p, question="Q?")[1][0].text == "a"


def test_malformed_json_names_line(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"question": "Q", "docs": []}\n{"question": oops}\n')
    with pytest.raises(InputError, match="line 2"):
        load_input(p)


def test_empty_and_missing_files(tmp_path):
    (tmp_path / "e.json").write_text("")
    with pytest.raises(InputError, match="empty"):
        load_input(tmp_path / "e.json")
    with pytest.raises(InputError, match="not found"):
        load_input(tmp_path / "nope.json")


def test_document_without_text(tmp_path):
    p = tmp_path / "d.json"
    p.write_text(json.dumps({"question": "Q?", "docs": [{"title": "A"}]}))
    with pytest.raises(InputError, match="'text'"):
        load_input(p)


def test_answer_takes_the_first_documents_in_order_never_the_gold_labels(tmp_path):
    docs = [{"title": str(i), "text": f"text {i}", "is_supporting": i in (4, 6)} for i in range(10)]
    p = tmp_path / "item.json"
    p.write_text(json.dumps({"question": "Q?", "docs": docs}))
    _, got = load_input(p, ndoc=5)
    assert [d.title for d in got] == ["0", "1", "2", "3", "4"]


def test_bench_oracle_keeps_supporting_then_distractors_in_order():
    docs = [{"title": str(i), "text": "", "is_supporting": i in (4, 6)} for i in range(10)]
    assert [d["title"] for d in oracle_documents(docs, 5)] == ["0", "1", "2", "4", "6"]
    plain = [{"title": str(i), "text": ""} for i in range(10)]
    assert [d["title"] for d in oracle_documents(plain, 3)] == ["0", "1", "2"]


def test_more_bad_inputs(tmp_path):
    item = tmp_path / "item.json"
    item.write_text(json.dumps({"question": "Q?", "docs": [{"title": "A", "text": "a"}]}))
    with pytest.raises(InputError, match="directory"):
        load_input(tmp_path)
    with pytest.raises(InputError, match="--index applies"):
        load_input(item, index=3)
    with pytest.raises(InputError, match="--ndoc"):
        load_input(item, ndoc=0)
    with pytest.raises(InputError, match="question is empty"):
        load_input(item, question="   ")
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(json.dumps({"question": "Q", "docs": []}) + "\n" + json.dumps({"question": "Q2"}) + "\n")
    with pytest.raises(InputError, match="item 2"):
        load_input(mixed)
