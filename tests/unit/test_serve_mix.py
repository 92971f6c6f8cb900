"""`vericite bench serve-mix` (bench/serve_mix.py), issue 31's goal on a reduced mix: honest and hostile
requests of every class, 4 clients, through the fake-backed service (tests/serve_fake.py) on a loopback
port with `vericite serve`'s loopback Host check: every honest request answers as when sent alone, every
hostile one gets its 4xx with the JSON error shape, no 5xx, /health within 1 s.

No model is loaded; every server is stopped after its test; every wait is bounded.
"""
from __future__ import annotations

import json
from collections import Counter

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("prometheus_client")

from vericite.bench import serve_mix as M  # noqa: E402
from vericite.engine.records import Document  # noqa: E402
from vericite.engine.service.app import LOOPBACK_HOSTS, create_app  # noqa: E402
from vericite.engine.service.server import serve_in_thread  # noqa: E402

from tests.serve_fake import SLOW, fake_pipeline  # noqa: E402
from tests.unit.test_pipeline_rules import DOCS, Q  # noqa: E402


def test_the_bench_sends_the_question_and_documents_the_fake_is_scripted_for():
    assert M.QUESTION == Q and [Document(t, x) for t, x in M.DOCUMENTS] == DOCS and M.SLOW == SLOW


def test_the_mix_has_every_class_its_size_and_the_bytes_it_says():
    classes = M.catalogue()
    for n in (30, 100):
        mix = M.build_mix(classes, n, 0)
        assert len(mix) == n and {r.cls for r in mix} == set(classes)
    assert M.build_mix(classes, 100, 3) == M.build_mix(classes, 100, 3) != M.build_mix(classes, 100, 4)
    kinds = Counter(r.kind for r in M.build_mix(classes, 100, 0))
    assert kinds["honest"] >= 35 and kinds["hostile"] >= 50 and kinds["deadline"] == kinds["leaves"] == 4
    # a lone surrogate reaches the server as the JSON escape (or as raw CESU bytes), never re-encoded
    surrogate = {r.variant: r.body for r in classes["lone surrogate"].variants}
    assert json.loads(surrogate["\\ud800 in a document"])["documents"][3]["text"] == "Rush \ud800 is a band."
    assert b"\\ud800" in surrogate["\\ud800 in a document"] and b"\xed\xa0\x80" in surrogate["raw bytes ED A0 80 in a document"]
    for r in classes["non-UTF-8 body"].variants:
        with pytest.raises(UnicodeDecodeError):
            r.body.decode("utf-8")
    assert len(next(r for r in classes["oversized body"].variants).body) > 2 * 1024 * 1024


def test_judge_and_the_error_shape_fail_what_breaks_a_goal():
    honest = M.Req("plain", "honest", "as is", b"{}")
    assert M.judge(honest, {"status": 200, "answer": {"a": 1, "wall_ms": 3.0}}, {"a": 1}) == (True, "")
    assert M.judge(honest, {"status": 200, "answer": {"a": 2}}, {"a": 1}) == (False, "differs from its answer alone at .a")
    assert M.judge(honest, {"status": 429, "answer": None}, {"a": 1})[0] is False
    hostile = M.Req("too many documents", "hostile", "21", b"{}", 422, words="--max-docs")
    ok = {"status": 422, "error": None, "type": "limit", "message": "the limit is max_docs = 20 (--max-docs)"}
    assert M.judge(hostile, ok, None) == (True, "")
    assert M.judge(hostile, {**ok, "status": 500}, None)[0] is False
    assert M.judge(hostile, {**ok, "error": "not the error shape"}, None)[0] is False
    assert M.judge(hostile, {**ok, "message": "documents: 21 given"}, None)[0] is False
    assert M.error_shape('{"error": {"type": "limit", "message": "x"}}') is None
    assert M.error_shape('{"detail": "Not Found"}') == "not the error shape"
    assert M.error_shape("Internal Server Error") == "not JSON"
    assert M.error_shape('{"error": {"type": "internal", "message": "Traceback (most recent call last)"}}') == "a traceback"


def test_a_reduced_mix_meets_every_goal(tmp_path, capsys):
    """30 requests (every class at least once), 4 clients, shuffled; the exit code says the goals hold."""
    with serve_in_thread(create_app(fake_pipeline(slow_s=0.1), allowed_hosts=LOOPBACK_HOSTS)) as srv:
        out = tmp_path / "mix.json"
        code = M.main(["--url", srv.url, "--requests", "30", "--concurrency", "4", "--seed", "1", "--json",
                       "--out", str(out)])
    rep = json.loads(out.read_text())
    misses = {k: c["why"] for k, c in rep["classes"].items() if c["why"]}
    assert {k: g["ok"] for k, g in rep["goals"].items()} == {k: True for k in rep["goals"]}, (rep["goals"], misses)
    assert code == 0 and set(rep["goals"]) == {"honest", "hostile", "deadline", "leaves", "no_5xx", "health"}
    assert rep["n"] == 30 and set(rep["classes"]) == set(M.catalogue()) and len(rep["requests"]) == 30
    assert rep["health"]["polls"] > 0 and rep["health"]["max_s"] <= 1.0
    assert not [s for s in rep["server_status"] if s.startswith("5") and s != "504"]
    assert json.loads(capsys.readouterr().out)["goals"] == rep["goals"]


def test_the_goals_fail_on_a_server_that_answers_a_hostile_request():
    """Without the Host check a rebinding page's request is answered (200): the hostile goal fails."""
    classes = M.catalogue()
    mix = [classes["bad Host"].variants[0], classes["plain"].variants[0]]
    with serve_in_thread(create_app(fake_pipeline())) as srv:
        run = M.run_mix(srv.url, mix, concurrency=2, timeout=30)
    s = M.summarise(run)
    assert s["goals"]["hostile"] == {"ok": False, "value": "0/1"} and s["goals"]["honest"]["ok"]
    assert s["classes"]["bad Host"]["why"] == ["evil.example: status 200, expected 400"]
    assert "| hostile | NO | 0/1 |" in M.table(s, {"url": srv.url, "server": "given", "concurrency": 2, "seed": 0,
                                                   "git_sha": "x"})
