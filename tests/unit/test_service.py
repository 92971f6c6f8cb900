"""The HTTP service (engine/service/) against real uvicorn servers on loopback ports, backed by
the scripted LLM and the word-containment checker behind a real DynamicBatcher (tests/serve_fake.py).

No model is loaded. Every server listens on 127.0.0.1 on a free port and is stopped after its
test; every wait is bounded.
"""
from __future__ import annotations

import ast
import json
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("prometheus_client")

from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from vericite.engine.errors import InputError  # noqa: E402
from vericite.engine.records import Document  # noqa: E402
from vericite.engine.pipeline import VeriCite  # noqa: E402
from vericite.engine.prompts import PromptSet  # noqa: E402
from vericite.engine.service import errors as E  # noqa: E402
from vericite.engine.service.admission import Admission  # noqa: E402
from vericite.engine.service.app import create_app, openapi_text  # noqa: E402
from vericite.engine.service.errors import Rejected  # noqa: E402
from vericite.engine.service.limits import Limits  # noqa: E402
from vericite.engine.service.schema import AnswerOut  # noqa: E402
from vericite.engine.service.server import serve_in_thread  # noqa: E402

from tests.conftest import REPO  # noqa: E402
from tests.serve_fake import fake_pipeline  # noqa: E402
from tests.unit.test_pipeline_rules import DOCS, Q  # noqa: E402

OPENAPI = REPO / "engine" / "service" / "openapi.json"
from vericite.bench.serve_mix import untimed  # noqa: E402  (answers compared without their timings)


def body(question: str = Q, docs=DOCS, **extra) -> dict:
    return {"question": question, "documents": [{"title": d.title, "text": d.text} for d in docs], **extra}


def events(response) -> list[tuple[str, dict]]:
    out, name = [], None
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[len("event: "):]
        elif line.startswith("data: "):
            out.append((name, json.loads(line[len("data: "):])))
    return out


def metrics(client) -> dict[str, list]:
    r = client.get("/metrics")
    assert r.status_code == 200
    return {f.name: f.samples for f in text_string_to_metric_families(r.text)}


def value(fams: dict, name: str, **labels) -> float:
    return sum(s.value for s in fams[name] if all(s.labels.get(k) == v for k, v in labels.items())
               and not s.name.endswith("_created"))


@pytest.fixture(scope="module")
def server():
    """One fake-backed server for the tests that need no special capacity."""
    pipe = fake_pipeline()
    with serve_in_thread(create_app(pipe, limits=Limits(timeout_s=30))) as srv:
        srv.pipeline = pipe
        with httpx.Client(base_url=srv.url, timeout=30) as client:
            srv.client = client
            yield srv


# -- endpoints ---------------------------------------------------------------------------------
def test_health_ready_and_models(server):
    c = server.client
    assert c.get("/health").json()["status"] == "ok"
    assert c.get("/ready").status_code == 200
    m = c.get("/v1/models").json()
    assert m["llm"]["name"] == "scripted" and m["nli"]["name"] == "word-checker"
    assert m["prompts"] == f"paper-en@{PromptSet.load('paper-en').version}" and m["settings"]["threshold"] == 0.5 and "sha256" in m["llm"]
    assert "deadline_s" in m["options"] and "threshold" in m["options"]


def test_answer_is_exactly_the_engine_json(server):
    r = server.client.post("/v1/answer", json=body())
    assert r.status_code == 200, r.text
    got = r.json()
    want = server.pipeline.answer(Q, DOCS).to_json()  # what `vericite answer --json` prints
    assert untimed(got) == untimed(json.loads(json.dumps(want)))
    assert set(got) == set(want)
    AnswerOut.model_validate(got)  # the documented schema has every key, and no other
    # the refined answer, then the verified fact it dropped that shares two stems with the question (backbone_facts)
    assert got["answer"] == ("Rush released Counterparts in 1993 [2]. Neil Peart was the drummer of Rush [1]. "
                             "Peart was inducted into the Hall of Fame in 1983 [1].")


def test_options_make_a_per_request_pipeline_and_leave_the_shared_one(server):
    shared = server.pipeline.settings
    r = server.client.post("/v1/answer", json=body(options={"threshold": 0.99, "schedule": "sequential",
                                                            "deadline_s": 10}))
    assert r.status_code == 200, r.text
    s = r.json()["settings"]
    assert s["threshold"] == 0.99 and s["schedule"] == "sequential"
    assert server.pipeline.settings is shared and shared.threshold == 0.5
    assert server.client.post("/v1/answer", json=body()).json()["settings"]["threshold"] == 0.5


@pytest.mark.parametrize("options, status, words", [
    ({"threshold": 2}, 422, "options.threshold = 2: must be in (0, 1)"),
    ({"threshold": "high"}, 422, "options.threshold"),
    ({"gate": "maybe"}, 422, "options.gate"),
    ({"no_such_option": 1}, 422, "options.no_such_option: unknown option"),
    ({"prompts": "/etc/passwd"}, 422, "options.prompts"),
    ({"deadline_s": 3600}, 422, "--timeout"),
    # options that scale work or memory are capped (a 20-sequence context would stay with the shared LLM)
    ({"parallel_docs": 20}, 422, "options.parallel_docs = 20: the limit is max_parallel_docs = 4 (--max-parallel-docs)"),
    ({"claim_words": 1000}, 422, "options.claim_words = 1000: the limit is max_option_count = 10 (--max-option-count)"),
    ({"fallback_quotes": 50}, 422, "max_option_count = 10"),
    ({"fallback_sentences": 50}, 422, "max_option_count = 10"),
    ({"backbone_facts": 50}, 422, "max_option_count = 10"),
])
def test_bad_options_answer_422_naming_the_option(server, options, status, words):
    r = server.client.post("/v1/answer", json=body(options=options))
    assert r.status_code == status and words in r.json()["error"]["message"]
    assert server.client.post("/v1/answer", json=body()).status_code == 200


def test_capped_options_are_served_up_to_their_limit(server):
    r = server.client.post("/v1/answer", json=body(options={"parallel_docs": 4, "claim_words": 10}))
    assert r.status_code == 200, r.text
    assert r.json()["settings"]["parallel_docs"] == 4 and r.json()["settings"]["claim_words"] == 10


def test_stream_sends_stage1_documents_final_then_answer(server):
    with server.client.stream("POST", "/v1/answer", json=body(stream=True)) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        ev = events(r)
    names = [n for n, _ in ev]
    assert names == ["stage1", "document", "document", "document", "final", "answer"]
    data = dict(ev[:1] + ev[-2:])
    assert [s["verdict"] for s in data["stage1"]["statements"]] == ["kept", "dropped:not_entailed"]
    docs = [d for n, d in ev if n == "document"]
    assert [(d["number"], d["useful"]) for d in docs] == [(1, True), (2, False), (3, True)]
    assert [f["verdict"] for f in docs[2]["facts"]] == ["dropped:not_entailed", "kept"]
    assert docs[1]["facts"] == [] and docs[1]["gate"]["text"] == "No"
    full = server.client.post("/v1/answer", json=body()).json()
    assert untimed(data["answer"]) == untimed(full)
    assert data["final"]["answer"] == full["answer"] and data["final"]["final_check"] == full["final_check"]
    # the stream's verdicts are the trace's
    assert data["stage1"]["statements"] == full["stages"][0]["statements"]


# -- limits and malformed requests --------------------------------------------------------------
BAD = [
    ("no documents", body(docs=[]), 422, "at least 1 document"),
    ("500 documents", body(docs=[Document("t", "Rush is a band.")] * 500), 422, "max_docs = 20 (--max-docs)"),
    ("a 10 MB document", body(docs=[Document("big", "word " * 2_000_000)]), 413,
     "max_body_bytes = 2097152 (--max-body-bytes)"),
    ("a 25k-character document", body(docs=[Document("long", "a" * 25_000)]), 422,
     "max_doc_chars = 20000 (--max-doc-chars)"),
    ("malformed JSON", b'{"question": "x", "documents": [', 400, "malformed JSON"),
    ("not an object", b"[1, 2]", 422, "body"),
    ("no question", {"documents": body()["documents"]}, 422, "question: Field required"),
    ("no documents field", {"question": Q}, 422, "documents: Field required"),
    ("a document without text", {"question": Q, "documents": [{"title": "x"}]}, 422, "documents[0].text"),
    ("an empty question", body(question="   "), 422, "question: empty"),
    ("a typo in a field", {**body(), "option": {}}, 422, "option"),
    ("an unknown option", body(options={"treshold": 0.4}), 422, "options.treshold: unknown option"),
    ("a lone surrogate in a document",
     b'{"question": "Who drummed?", "documents": [{"title": "t", "text": "Rush \\ud800 is a band."}]}', 422,
     "document [1] holds invalid Unicode"),
    ("a lone surrogate in the question",
     b'{"question": "Who \\udfff drummed?", "documents": [{"title": "t", "text": "Rush is a band."}]}', 422,
     "the question holds invalid Unicode"),
    ("a lone surrogate in a title",
     b'{"question": "Who drummed?", "documents": [{"title": "\\ud800", "text": "Rush is a band."}]}', 422,
     "title holds invalid Unicode"),
]


@pytest.mark.parametrize("what, payload, status, words", BAD, ids=[b[0] for b in BAD])
def test_limits_and_bad_requests_are_refused_then_a_good_request_succeeds(server, what, payload, status, words):
    c = server.client
    if isinstance(payload, bytes):
        r = c.post("/v1/answer", content=payload, headers={"content-type": "application/json"})
    else:
        r = c.post("/v1/answer", json=payload)
    assert r.status_code == status, r.text
    msg = r.json()["error"]["message"]
    assert words in msg and "Traceback" not in r.text
    assert c.post("/v1/answer", json=body()).status_code == 200


@pytest.mark.parametrize("stream", [False, True], ids=["answer", "stream"])
@pytest.mark.parametrize("what, text, words", [
    ("a lone surrogate", "Rush \\ud800 is a band.", "document [2] holds invalid Unicode"),
    ("only zero-width characters", "\\u200b\\u200c\\u2060", "document(s) [2] have no text"),
])
def test_input_errors_are_answered_422_before_admission_and_before_a_stream(what, text, words, stream):
    """The engine's input checks run before the request is admitted: a bad input gets its 422 while the
    queue is full (not 429), and a streaming request gets it as its status (not 200 and an error event)."""
    from tests.serve_fake import SLOW

    pipe = fake_pipeline(slow_s=5)
    limits = Limits(workers=1, queue_size=0, timeout_s=30)
    with serve_in_thread(create_app(pipe, limits=limits)) as srv, httpx.Client(base_url=srv.url, timeout=30) as c, \
            ThreadPoolExecutor(1) as pool:
        adm = srv.server.service.admission
        busy = pool.submit(c.post, "/v1/answer", json=body(question=f"{Q} {SLOW}", options={"deadline_s": 1.5}))
        t_end = time.monotonic() + 10
        while adm.running == 0 and time.monotonic() < t_end:
            time.sleep(0.01)
        assert adm.running == 1  # the only thread is busy and the queue holds none: a valid request gets 429
        assert c.post("/v1/answer", json=body()).status_code == 429
        raw = ('{"question": "Who drummed?", "stream": %s, "documents": [{"title": "a", "text": "Rush is a band."}, '
               '{"title": "b", "text": "%s"}]}' % ("true" if stream else "false", text)).encode()
        r = c.post("/v1/answer", content=raw, headers={"content-type": "application/json"})
        assert r.status_code == 422 and r.headers["content-type"] == "application/json", (what, r.text[:200])
        assert set(r.json()) == {"error"} and r.json()["error"]["type"] == "InputError"
        assert words in r.json()["error"]["message"]
        assert busy.result().status_code == 504


def test_a_client_that_leaves_mid_body_is_counted_499_not_500():
    """No response goes to a client that closed its connection while sending its body: /metrics counts
    it as 499 (client closed request), never as a server error."""
    import socket

    with serve_in_thread(create_app(fake_pipeline())) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        payload = json.dumps(body()).encode()
        port = int(srv.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"POST /v1/answer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload[:50])
            time.sleep(0.2)
        t_end = time.monotonic() + 5
        while not value(metrics(c), "vericite_requests", route="/v1/answer") and time.monotonic() < t_end:
            time.sleep(0.02)
        fams = metrics(c)
        assert value(fams, "vericite_requests", route="/v1/answer", status="499") == 1
        assert value(fams, "vericite_requests", route="/v1/answer", status="500") == 0
        assert c.post("/v1/answer", json=body()).status_code == 200


def test_api_key_is_required_on_v1_and_metrics_only():
    with serve_in_thread(create_app(fake_pipeline(), api_key="s3cret")) as srv, httpx.Client(base_url=srv.url) as c:
        assert c.post("/v1/answer", json=body()).status_code == 401
        r = c.post("/v1/answer", json=body(), headers={"Authorization": "Bearer wrong"})
        assert r.status_code == 401 and "API key" in r.json()["error"]["message"]
        assert r.headers["www-authenticate"] == "Bearer"
        assert c.get("/metrics").status_code == 401 and c.get("/v1/models").status_code == 401
        assert c.get("/health").status_code == 200 and c.get("/ready").status_code == 200
        ok = {"Authorization": "Bearer s3cret"}
        assert c.post("/v1/answer", json=body(), headers=ok).status_code == 200
        assert c.get("/metrics", headers=ok).status_code == 200


def test_a_loopback_server_answers_only_requests_that_name_a_loopback_host():
    from vericite.engine.service.app import LOOPBACK_HOSTS, _host_name

    assert [_host_name(h) for h in ("127.0.0.1:8000", "LOCALHOST", "[::1]:8000", "evil.example:80", "::1")] == \
        ["127.0.0.1", "localhost", "::1", "evil.example", "::1"]
    app = create_app(fake_pipeline(), allowed_hosts=LOOPBACK_HOSTS)
    with serve_in_thread(app) as srv, httpx.Client(base_url=srv.url) as c:
        assert c.post("/v1/answer", json=body()).status_code == 200          # Host: 127.0.0.1:PORT
        assert c.get("/health", headers={"Host": "localhost:8000"}).status_code == 200
        for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example", ""):
            r = c.post("/v1/answer", json=body(), headers={"Host": host})
            assert r.status_code == 400, host
            assert r.json()["error"]["type"] == "host" and "Host header" in r.json()["error"]["message"]
        assert c.get("/health", headers={"Host": "evil.example"}).status_code == 400
    with serve_in_thread(create_app(fake_pipeline())) as srv, httpx.Client(base_url=srv.url) as c:
        assert c.get("/health", headers={"Host": "evil.example"}).status_code == 200   # no list: no check


@pytest.mark.parametrize("mark, status, words", [
    ("[fail:inference]", 502, "fake decode error"),
    ("[fail:input]", 422, "fake input error"),
    ("[fail:config]", 422, "fake config error"),
    ("[fail:bug]", 500, "internal error"),
])
def test_engine_errors_map_to_statuses_and_the_server_keeps_serving(server, mark, status, words):
    r = server.client.post("/v1/answer", json=body(question=f"{Q} {mark}"))
    assert r.status_code == status and words in r.json()["error"]["message"]
    assert "secret" not in r.text and "Traceback" not in r.text
    with server.client.stream("POST", "/v1/answer", json=body(question=f"{Q} {mark}", stream=True)) as s:
        ev = events(s)
    assert ev[-1][0] == "error" and ev[-1][1]["status"] == status
    assert server.client.post("/v1/answer", json=body()).status_code == 200


def test_ready_is_503_while_loading_and_after_a_failed_load():
    go = threading.Event()

    def slow_factory():
        assert go.wait(20)
        return fake_pipeline()

    with serve_in_thread(create_app(slow_factory)) as srv, httpx.Client(base_url=srv.url) as c:
        assert c.get("/health").status_code == 200
        assert c.get("/ready").json()["status"] == "loading" and c.get("/ready").status_code == 503
        assert c.post("/v1/answer", json=body()).status_code == 503
        go.set()
        t_end = time.monotonic() + 10
        while c.get("/ready").status_code != 200 and time.monotonic() < t_end:
            time.sleep(0.02)
        assert c.post("/v1/answer", json=body()).status_code == 200

    def broken():
        raise InputError("models.toml: no model named 'nope'")

    with serve_in_thread(create_app(broken)) as srv, httpx.Client(base_url=srv.url) as c:
        t_end = time.monotonic() + 10
        while c.get("/ready").json()["status"] == "loading" and time.monotonic() < t_end:
            time.sleep(0.02)
        r = c.get("/ready")
        assert r.status_code == 503 and "no model named 'nope'" in r.json()["error"]


# -- concurrency ---------------------------------------------------------------------------------
def test_queue_bound_holds_and_32_clients_each_get_200_or_429():
    pipe = fake_pipeline(llm_delay=0.01)
    limits = Limits(workers=2, queue_size=3, timeout_s=60)
    with serve_in_thread(create_app(pipe, limits=limits)) as srv, httpx.Client(base_url=srv.url, timeout=60) as c:
        adm = srv.server.service.admission
        depths, stop = [], threading.Event()

        def watch():
            while not stop.is_set():
                depths.append(adm.waiting)
                time.sleep(0.002)

        def ask(k: int):
            with httpx.Client(base_url=srv.url, timeout=60) as own:
                r = own.post("/v1/answer", json=body(question=f"{Q} (request {k})"))
                return k, r.status_code, r.json(), r.headers.get("retry-after")

        watcher = threading.Thread(target=watch)
        watcher.start()
        with ThreadPoolExecutor(32) as pool:
            results = list(pool.map(ask, range(32)))
        stop.set()
        watcher.join(5)
        assert len(results) == 32 and {s for _, s, _, _ in results} <= {200, 429}
        ok = [(k, j) for k, s, j, _ in results if s == 200]
        assert all(j["question"] == f"{Q} (request {k})" for k, j in ok)  # each got its own answer
        assert len({j["question"] for _, j in ok}) == len(ok)
        assert len(ok) >= limits.workers + limits.queue_size
        assert all(ra is not None and int(ra) >= 1 for _, s, _, ra in results if s == 429)
        assert max(depths) <= 3 and adm.peak_waiting <= 3
        assert sum(pipe.llm.per_question.get(str(k), 0) > 0 for k in range(32)) == len(ok)  # 429s never ran
        fams = metrics(c)
        assert value(fams, "vericite_queue_depth_peak") <= 3
        assert value(fams, "vericite_requests", route="/v1/answer", status="200") == len(ok)
        assert value(fams, "vericite_requests", route="/v1/answer", status="429") == 32 - len(ok)


def test_deadline_answers_504_and_frees_the_place():
    pipe = fake_pipeline(llm_delay=0.15)
    limits = Limits(workers=1, queue_size=1, timeout_s=30)
    with serve_in_thread(create_app(pipe, limits=limits)) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        adm = srv.server.service.admission
        # a running request past its deadline: 504, and its thread stops at the next LLM call
        t0 = time.monotonic()
        r = c.post("/v1/answer", json=body(question=f"{Q} (request 1)", options={"deadline_s": 0.2}))
        assert r.status_code == 504 and "deadline of 0.2 s" in r.json()["error"]["message"]
        assert time.monotonic() - t0 < 2
        t_end = time.monotonic() + 5
        while adm.running and time.monotonic() < t_end:  # its thread is freed at the next LLM call
            time.sleep(0.005)
        assert adm.running == 0 and adm.abandoned == 1
        # a queued request past its deadline leaves the queue: the next one is admitted, not refused
        with ThreadPoolExecutor(3) as pool:
            long = pool.submit(c.post, "/v1/answer", json=body(question=f"{Q} (request 2)"))
            t_end = time.monotonic() + 5
            while "2" not in pipe.llm.per_question and time.monotonic() < t_end:
                time.sleep(0.005)
            short = c.post("/v1/answer", json=body(question=f"{Q} (request 3)", options={"deadline_s": 0.2}))
            assert short.status_code == 504 and adm.waiting == 0
            after = pool.submit(c.post, "/v1/answer", json=body(question=f"{Q} (request 4)"))
            assert long.result().status_code == 200 and after.result().status_code == 200
        assert pipe.llm.per_question["1"] < pipe.llm.per_question["2"]  # dropped at a call boundary
        assert "3" not in pipe.llm.per_question  # never ran
        with c.stream("POST", "/v1/answer", json=body(stream=True, options={"deadline_s": 0.2})) as s:
            ev = events(s)
        assert ev[-1][0] == "error" and ev[-1][1]["status"] == 504
        assert c.post("/v1/answer", json=body()).status_code == 200


def test_checks_of_concurrent_requests_share_batches():
    pipe = fake_pipeline(nli_delay=0.03)
    with serve_in_thread(create_app(pipe, limits=Limits(workers=4, queue_size=8))) as srv, \
            httpx.Client(base_url=srv.url, timeout=60) as c:
        def ask(k: int):
            docs = [Document(d.title, f"{d.text} Case {k}.") for d in DOCS]  # the premise names its request
            return c.post("/v1/answer", json=body(question=f"{Q} (request {k})", docs=docs)).status_code

        with ThreadPoolExecutor(8) as pool:
            assert list(pool.map(ask, range(8))) == [200] * 8
        checker = pipe.checker.checker
        mixed = [call for call in checker.calls if len({p.rsplit("Case ", 1)[-1] for p, _ in call}) > 1]
        assert mixed, "no checker call held pairs of two requests"
        stats = pipe.checker.stats
        assert stats["requests"] / stats["steps"] > 1
        assert value(metrics(c), "vericite_nli_batch_submissions_mean") > 1


def test_admission_alone_bounds_the_queue_and_abandons():
    release = threading.Event()
    adm = Admission(1, 2)
    try:
        jobs = [adm.submit(lambda job: release.wait(5), 10) for _ in range(3)]
        with pytest.raises(Rejected) as e:
            adm.submit(lambda job: None, 10)
        assert e.value.status == 429 and "Retry-After" in e.value.headers
        assert adm.waiting == 2 and adm.peak_waiting == 2
        adm.abandon(jobs[2])
        assert adm.waiting == 1 and jobs[2].future.cancelled()
        adm.submit(lambda job: "late", 10)
        release.set()
        assert [j.future.result(5) for j in jobs[:2]] == [True, True]
    finally:
        release.set()
        adm.close(5)


# -- documents, metrics, command line -------------------------------------------------------------
def test_openapi_json_is_committed_and_current(server):
    app = create_app(fake_pipeline())
    assert OPENAPI.read_text(encoding="utf-8") == openapi_text(app), \
        "regenerate: vericite serve --write-openapi engine/service/openapi.json"
    assert server.client.get("/openapi.json").json() == json.loads(OPENAPI.read_text())
    assert server.client.get("/docs").status_code == 200


def test_write_openapi_command_loads_no_model(tmp_path):
    from vericite.engine.cli import main

    out = tmp_path / "openapi.json"
    assert main(["serve", "--write-openapi", str(out)]) == 0
    assert out.read_text() == OPENAPI.read_text()


def test_metrics_parse_and_count(server):
    c = server.client
    assert c.post("/v1/answer", json=body()).status_code == 200
    c.post("/v1/answer", json=body(docs=[]))
    fams = metrics(c)
    assert value(fams, "vericite_requests", route="/v1/answer", status="200") >= 1
    assert value(fams, "vericite_requests", route="/v1/answer", status="422") >= 1
    for stage in ("answer", "evidence", "refine"):
        assert value(fams, "vericite_stage_seconds", stage=stage) > 0  # _count and _sum samples
    assert "vericite_request_seconds" in fams and "vericite_queue_wait_seconds" in fams
    assert value(fams, "vericite_queue_depth") == 0 and value(fams, "vericite_queue_size") == 8
    assert value(fams, "vericite_nli_pairs") > 0 and value(fams, "vericite_nli_batch_pairs_mean") > 0
    assert 0 < value(fams, "vericite_nli_cache_hit_rate") <= 1  # the same pairs again: cache hits
    assert value(fams, "vericite_llm_prompt_tokens", kind="computed") > 0
    assert value(fams, "vericite_llm_prompt_tokens", kind="reused") == 0  # the fake reuses none
    assert value(fams, "vericite_llm_completion_tokens") > 0


def test_serve_without_the_extra_names_it(monkeypatch, capsys):
    import importlib.util

    from vericite.engine.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "fastapi" else real(name, *a))
    assert main(["serve", "--port", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error:") and "serve extra" in err[-1] and "fastapi" in err[-1]


def test_sigterm_drains_in_flight_requests_then_exits(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "tests.serve_fake", "--port", str(port), "--llm-delay", "0.1"],
                            cwd=REPO, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        t_end = time.monotonic() + 30
        while time.monotonic() < t_end:
            try:
                if httpx.get(f"{url}/ready", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        with ThreadPoolExecutor(1) as pool:
            inflight = pool.submit(httpx.post, f"{url}/v1/answer", json=body(), timeout=30)
            # admitted and running (the fake makes 6 calls of 0.1 s): the server says so, however loaded the machine
            t_end = time.monotonic() + 20
            while time.monotonic() < t_end and not inflight.done() and not re.search(
                    r"^vericite_requests_running 1", httpx.get(f"{url}/metrics", timeout=5).text, re.M):
                time.sleep(0.02)
            proc.send_signal(signal.SIGTERM)
            r = inflight.result(timeout=30)
        assert r.status_code == 200 and r.json()["answer"]
        assert proc.wait(timeout=30) in (0, -signal.SIGTERM)  # uvicorn re-raises the signal after its shutdown
        assert "NLI batchers closed" in proc.stderr.read()
        with pytest.raises(httpx.TransportError):
            httpx.get(f"{url}/health", timeout=1)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_error_status_table():
    from vericite.engine.errors import ConfigError, InferenceError

    assert [E.status_of(x) for x in (InputError("a"), ConfigError("b"), InferenceError("c"), KeyError("d"))] == \
        [422, 422, 502, 500]
    assert E.body(KeyError("secret"))["error"]["message"].startswith("internal error")


def test_service_imports_no_bench_export_or_torch():
    bad = ("torch", "transformers", "optimum", "onnx", "vericite.bench", "vericite.export")
    for path in (REPO / "engine" / "service").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            assert not [n for n in names if any(n == b or n.startswith(b + ".") for b in bad)], path.name


# -- the load test ---------------------------------------------------------------------------------
def test_bench_serve_reports_latency_throughput_and_batching(server, tmp_path):
    from vericite.bench.serve_load import main

    data = tmp_path / "items.jsonl"
    rows = [{"_id": f"item-{k}", "question": f"{Q} (request {100 + k})", "answer": "Rush",
             "docs": [{"title": d.title, "text": d.text, "is_supporting": i < 2} for i, d in enumerate(DOCS)]}
            for k in range(4)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    assert main(["--url", server.url, "--data", str(data), "--ndoc", "3", "--concurrency", "4", "--requests", "8",
                 "--out-dir", str(out), "--no-progress", "--json"]) == 0
    rep = json.loads((out / "serve.json").read_text())
    s = rep["summary"]
    assert s["n"] == 8 and s["status"] == {"200": 8} and s["mismatched_answers"] == 0
    assert s["latency_ok_s"]["p50"] <= s["latency_ok_s"]["p95"] and s["throughput_rps"] > 0
    assert s["nli_batch_submissions_mean"] >= 1 and s["queue_size"] == 8
    assert rep["meta"]["models"]["llm"]["name"] == "scripted" and len(rep["requests"]) == 8
    md = (out / "serve.md").read_text()
    assert "p50 / p95" in md and "status counts" in md


def test_a_russian_request_is_checked_by_the_routed_checker_with_the_request_options():
    from vericite.engine.config.settings import Settings

    from tests.serve_fake import SlowChecker

    pipe = fake_pipeline()
    ru_checker = SlowChecker()
    ru_checker.name = "ru-word-checker"
    pipe.routes = {"ru": VeriCite(pipe.llm, ru_checker, settings=Settings(checker_languages=("ru", "en"), threshold=0.6))}
    ru_docs = [{"title": "История", "text": "Яндекс Маркет запущен в 2000 году как сервис сравнения цен."}]
    with serve_in_thread(create_app(pipe)) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        r = c.post("/v1/answer", json={"question": "Когда запустили Яндекс Маркет?", "documents": ru_docs,
                                       "options": {"min_statement_words": 2}})
        assert r.status_code == 200, r.text
        s = r.json()["settings"]
        assert (s["nli"], s["threshold"], s["min_statement_words"], s["lang"]) == ("ru-word-checker", 0.6, 2, "ru")
        assert ru_checker.calls
        assert c.post("/v1/answer", json=body()).json()["settings"]["nli"] == "word-checker"


def test_a_client_that_promises_a_body_and_stalls_gets_408_and_frees_nothing_it_holds():
    """The body must arrive within --body-timeout: a client that sends its headers and part of its body, then
    nothing, gets 408 with the JSON error shape and its connection closed; honest requests go on."""
    import socket

    with serve_in_thread(create_app(fake_pipeline(), limits=Limits(body_timeout_s=0.5))) as srv, \
            httpx.Client(base_url=srv.url, timeout=30) as c:
        port = int(srv.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            t0 = time.monotonic()
            sock.sendall(b"POST /v1/answer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 1000\r\n\r\n{\"question\": ")
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
            waited = time.monotonic() - t0
        head, _, payload = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408") and b"connection: close" in head.lower()
        err = json.loads(payload)["error"]
        assert err["type"] == "timeout" and "--body-timeout" in err["message"]
        assert 0.4 <= waited < 5
        assert c.post("/v1/answer", json=body()).status_code == 200
