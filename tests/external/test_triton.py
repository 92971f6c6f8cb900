"""The checker on Triton: `vericite export triton` (config.pbtxt against the ONNX graph), the
``format = "triton"`` entry, the pluggable batch runner, and a real Triton server on loopback.

The server is the ``tritonserver`` binary inside the nvidia-pytriton wheel, which has Triton's Python
backend only, so the served repository is the ``--backend python`` one (model.py runs the same
model.onnx with ONNX Runtime inside Triton; same config.pbtxt but for its ``backend`` line). The
``platform: "onnxruntime_onnx"`` repository is checked by parsing its config with Triton's own
ModelConfig schema and comparing it with the graph; serving it needs a full Triton (NGC container).

The same subject in other tiers: tests/unit/test_triton.py, tests/integration/test_triton.py, tests/lab/test_triton.py.
"""
from __future__ import annotations

import json
import threading
from dataclasses import replace

import numpy as np
import pytest

from vericite.engine.errors import InferenceError, ModelFileError
from vericite.engine.config.registry import Registry

from tests.conftest import REPO, SHARED
from tests.unit.test_triton import _toml
from tests.integration import test_triton as integration_part
from tests.lab import test_triton as lab_part

spec = integration_part.spec  # fixture shared with tests/integration/test_triton.py
raw = lab_part.raw  # fixture shared with tests/lab/test_triton.py


SNLI = SHARED / "data" / "nli" / "snli_test.jsonl"
HOTPOT = SHARED / "data" / "hotpotqa.jsonl"


# -- a real Triton server ---------------------------------------------------------------------

def _server_or_skip():
    pytest.importorskip("tritonclient.http")
    pytest.importorskip("onnx")
    from vericite.export import triton_server as ts

    try:
        ts.pytriton_dist()
    except ts.TritonServerError as e:
        pytest.skip(str(e))
    if not (ts.STUB_SITE / "numpy").is_dir():
        pytest.skip(f"no numpy 1.x for Triton's Python backend stub: {ts.STUB_HINT}")
    return ts


@pytest.fixture(scope="module")
def triton(spec, raw, tmp_path_factory):
    """One server on a free loopback port, two models: the checker as exported (2 ms queue delay),
    and the same with a 300 ms delay (so concurrent requests are surely joined)."""
    ts = _server_or_skip()
    from vericite.export.triton import export_triton

    repo = tmp_path_factory.mktemp("triton-repo")
    port = ts.free_port()
    url = f"http://127.0.0.1:{port}"
    m = export_triton(spec, repo, backend="python", url=url, raw_entry=raw)
    export_triton(spec, repo, backend="python", model_name="slow-batcher", queue_delay_us=300_000, preferred=[64])
    with ts.LocalTritonServer(repo, port=port, ready_timeout=90) as server:
        toml = _toml(repo, m["models_toml"])
        yield server, Registry.load(toml).named(f"{spec.name}-triton")


def _pairs() -> list[tuple[str, str]]:
    """SNLI pairs (short), HotpotQA paragraphs with one of their sentences and another paragraph's
    (token and sentence windows), and a long hypothesis (split into parts)."""
    pairs = [("A man plays a guitar on stage.", "A man plays music."), ("A dog runs.", "A cat sleeps.")]
    if SNLI.is_file():
        with SNLI.open() as fh:
            for line, _ in zip(fh, range(80)):
                r = json.loads(line)
                pairs.append((r["premise"], r["hypothesis"]))
    if HOTPOT.is_file():
        with HOTPOT.open() as fh:
            items = [json.loads(line) for line, _ in zip(fh, range(2))]
        texts = [d["text"] for it in items for d in it["docs"][:3] if d.get("text")]
        for i, t in enumerate(texts):
            sent = t.split(". ")[0]
            pairs += [(t, sent), (t, texts[(i + 1) % len(texts)].split(". ")[0])]
        pairs.append((texts[0], " ".join(texts[1].split(". ")[:6])))
    if not SNLI.is_file():  # a clone without ../shared: the repo's examples, each sentence against its
        # own document and against the next one (token and sentence windows as above)
        for name in ("hotpotqa-0.json", "demo_yandex_market.json"):
            raw = json.loads((REPO / "examples" / name).read_text(encoding="utf-8"))
            texts = [d["text"] for d in raw["docs"] if d.get("text")]
            for i, t in enumerate(texts):
                for sent in t.split(". ")[:4]:
                    pairs += [(t, sent), (texts[(i + 1) % len(texts)], sent)]
    return pairs


@pytest.mark.triton
def test_triton_scores_equal_the_in_process_checker(triton, checker):
    from vericite.engine.nli.load import load_checker

    server, entry = triton
    remote = load_checker(entry)
    pairs = _pairs()
    local_scores, remote_scores = checker.scores(pairs), remote.scores(pairs)
    assert remote.ep == "triton" and remote.cache_id != checker.cache_id
    assert len(pairs) > 80 and float(np.abs(local_scores - remote_scores).max()) < 1e-5
    assert remote.stats["windows"] > len(pairs)  # premise windows were planned here, on the client
    from vericite.engine.nli.batching import DynamicBatcher

    with DynamicBatcher(remote) as batcher:  # the engine's path: many threads -> one worker -> Triton
        futures = [batcher.submit(pairs[k::3]) for k in range(3)]
        for k, f in enumerate(futures):
            assert np.array_equal(f.result(timeout=60), remote_scores[k::3])


@pytest.mark.triton
def test_concurrent_callers_are_batched_by_triton(triton, spec):
    """Four threads, one request of 4 rows each, same padded width: Triton's dynamic batcher joins
    them into fewer executions (300 ms queue delay), and every caller gets its own scores."""
    import tritonclient.http as httpclient

    from vericite.engine.nli.load import load_checker

    server, entry = triton
    slow = load_checker(replace(entry, model_name="slow-batcher", number_guard=False))
    groups = [[(f"The tower is {10 + 7 * k + i} metres tall.", f"The tower is {10 + 7 * k + i} metres tall.")
               for i in range(4)] for k in range(4)]
    out: dict[int, np.ndarray] = {}
    threads = [threading.Thread(target=lambda k=k: out.__setitem__(k, slow.scores(groups[k]))) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    client = httpclient.InferenceServerClient(server.url.split("//", 1)[1])
    stats = client.get_inference_statistics("slow-batcher")["model_stats"][0]
    assert stats["inference_count"] == 16 and stats["execution_count"] < 4
    for k in range(4):
        assert out[k].shape == (4,) and (out[k] > 0.5).all()


@pytest.mark.triton
def test_a_missing_model_or_another_models_file_is_named(triton, spec):
    from vericite.engine.nli.load import load_checker

    server, entry = triton
    with pytest.raises(ModelFileError, match=rf"Triton at {server.url} has no ready model 'nope' .*"
                                             rf"{spec.name} \(READY\)"):
        load_checker(replace(entry, model_name="nope"))
    with pytest.raises(ModelFileError, match="serves ONNX sha256 .* another model"):
        load_checker(replace(entry, sha256="0" * 64))
    runner = load_checker(replace(entry, number_guard=False))._runner
    with pytest.raises(InferenceError, match=rf"Triton at {server.url}, model '{spec.name}'"):
        runner({"input_ids": np.zeros((2, 3), dtype=np.int64)})  # inputs missing
    with pytest.raises(InferenceError, match="exceed model .* max_batch_size 64"):
        runner({n: np.zeros((65, 3), dtype=np.int64) for n in runner.input_names})


@pytest.mark.triton
def test_the_bundled_server_reads_the_onnxruntime_config_but_has_no_such_backend(spec, tmp_path):
    """What stays untested here, made explicit: Triton parses the onnxruntime_onnx config.pbtxt (its
    platform maps to the onnxruntime backend) and fails only because nvidia-pytriton's binary ships
    no onnxruntime backend; the error names it."""
    ts = _server_or_skip()
    from vericite.export.triton import export_triton

    export_triton(spec, tmp_path / "repo")
    with pytest.raises(ts.TritonServerError, match="unable to find backend library for backend 'onnxruntime'"):
        ts.LocalTritonServer(tmp_path / "repo", ready_timeout=60).start()
