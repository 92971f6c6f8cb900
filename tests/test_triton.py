"""The checker on Triton: `vericite export triton` (config.pbtxt against the ONNX graph), the
``format = "triton"`` entry, the pluggable batch runner, and a real Triton server on loopback.

The server is the ``tritonserver`` binary inside the nvidia-pytriton wheel, which has Triton's Python
backend only, so the served repository is the ``--backend python`` one (model.py runs the same
model.onnx with ONNX Runtime inside Triton; same config.pbtxt but for its ``backend`` line). The
``platform: "onnxruntime_onnx"`` repository is checked by parsing its config with Triton's own
ModelConfig schema and comparing it with the graph; serving it needs a full Triton (NGC container).
"""
from __future__ import annotations

import json
import threading
from dataclasses import replace

import numpy as np
import pytest

from vericite.engine.errors import ConfigError, InferenceError, ModelFileError
from vericite.engine.models import Registry
from vericite.engine.onnx_scorer import SessionRunner, bucket_width

from .conftest import REPO, SHARED

SNLI = SHARED / "data" / "nli" / "snli_test.jsonl"
HOTPOT = SHARED / "data" / "hotpotqa.jsonl"


@pytest.fixture(scope="module")
def spec():
    return Registry.load().get(None, "nli")


@pytest.fixture(scope="module")
def raw(spec):
    """The default checker's entry as models.toml writes it (its profile keys)."""
    import tomllib

    reg = Registry.load()
    return tomllib.loads(reg.source.read_text())["models"][spec.name]


def _toml(tmp_path, body: str):
    p = tmp_path / "models.toml"
    p.write_text(body)
    return p


TOKENIZER = "models/nli-minilm-l6-bin-int8/tokenizer.json"


def _entry(url="http://127.0.0.1:9", model="m", extra=""):
    return (f'[models.t]\nrole = "nli"\nformat = "triton"\nurl = "{url}"\nmodel_name = "{model}"\n'
            f'tokenizer = "{TOKENIZER}"\nmax_length = 320\n' + extra)


# -- fast: no server ------------------------------------------------------------------------

def test_bucket_width_rounds_up_to_the_smallest_bucket_that_holds_the_batch():
    assert bucket_width(17, (16, 32, 64)) == 32
    assert bucket_width(32, (16, 32, 64)) == 32
    assert bucket_width(70, (16, 32, 64)) == 70  # wider than all: its own width
    assert bucket_width(9, ()) == 9


def test_triton_entries_parse_and_bad_ones_name_the_key(tmp_path):
    reg = Registry.load(_toml(tmp_path, _entry(extra='threshold = 0.7\nlanguages = ["en"]\nsentence_window = 1\n')))
    s = reg.named("t")
    assert (s.format, s.source, s.input_format, s.url, s.model_name, s.model_version) == (
        "triton", "server", "cross-encoder", "http://127.0.0.1:9", "m", "")
    assert s.threshold == 0.7 and s.sentence_window == 1 and s.timeout == 60.0
    with pytest.raises(ConfigError, match="needs 'url'"):
        Registry.load(_toml(tmp_path, _entry().replace('url = "http://127.0.0.1:9"\n', "")))
    with pytest.raises(ConfigError, match="must start with http"):
        Registry.load(_toml(tmp_path, _entry(url="127.0.0.1:8000")))
    with pytest.raises(ConfigError, match="is for role = 'nli'"):
        Registry.load(_toml(tmp_path, _entry().replace('role = "nli"', 'role = "llm"').replace("max_length = 320\n", "")))
    with pytest.raises(ConfigError, match="belong to format = 'triton'"):
        Registry.load(_toml(tmp_path, '[models.o]\nrole = "nli"\nformat = "onnx"\nsource = "path"\npath = "x"\n'
                                      f'sha256 = "{"0" * 64}"\ninput_format = "cross-encoder"\nurl = "http://x:1"\n'))
    with pytest.raises(ConfigError, match="belong to format = 'openai'"):
        Registry.load(_toml(tmp_path, _entry(extra='base_url = "http://x:1"\n')))


def test_a_triton_entry_without_a_server_fails_at_load_naming_the_url(tmp_path):
    pytest.importorskip("tritonclient.http")
    from vericite.engine.checkers import load_checker
    from vericite.export.triton_server import free_port

    url = f"http://127.0.0.1:{free_port()}"
    spec = Registry.load(_toml(tmp_path, _entry(url=url, extra="number_guard = true\n"))).named("t")
    with pytest.raises(ModelFileError, match=rf"Triton at {url} is not reachable"):
        load_checker(spec)
    missing = replace(spec, tokenizer=str(tmp_path / "none.json"))
    with pytest.raises(ModelFileError, match="tokenizer .*none.json is missing"):
        load_checker(missing)


def test_the_cross_encoder_takes_any_runner_and_pads_to_the_buckets(spec):
    """The refactor's point: only the runner changes; windows, batches and scores stay the same."""
    from vericite.engine.models import model_path, tokenizer_path
    from vericite.engine.nli import OnnxCrossEncoder

    path, tok = model_path(spec), tokenizer_path(spec)
    inner = SessionRunner(path, intra_op_threads=1)
    widths = []

    class Recording:
        what, label, ep, intra_op_threads = "Recording", "rec", "test", 1
        input_names, output_names = inner.input_names, inner.output_names

        def __call__(self, feeds, outputs=None):
            widths.append(feeds["input_ids"].shape[1])
            return inner(feeds, outputs)

    kw = dict(max_length=spec.max_length, premise_window=spec.premise_window, sentence_window=spec.sentence_window)
    local = OnnxCrossEncoder(path, tok, intra_op_threads=1, **kw)
    remote = OnnxCrossEncoder(None, tok, runner=Recording(), width_buckets=(16, 32, 64, 96, 128, 192, 256, 320), **kw)
    doc = ("Rush is a Canadian rock band formed in Toronto in 1968. The band was composed of Geddy Lee, Alex "
           "Lifeson and Neil Peart. " * 6)
    pairs = [(doc, "Rush was formed in 1968."), (doc, "Rush is a jazz trio from Ohio."),
             ("A man plays a guitar on stage.", "A man plays music."), ("", "Nothing.")]
    assert np.abs(local.scores(pairs) - remote.scores(pairs)).max() < 1e-5
    assert widths and set(widths) <= {16, 32, 64, 96, 128, 192, 256, 320}
    assert remote.name == "rec" and remote.ep == "test" and "rec" in remote.cache_id


def test_config_pbtxt_matches_the_onnx_graph(spec, raw, tmp_path):
    """The onnxruntime_onnx repository (what a full Triton serves): parsed with Triton's ModelConfig
    schema, every input/output against the graph, batching, instances, parameters, files."""
    pytest.importorskip("onnx")
    pytest.importorskip("tritonclient")
    from vericite.engine.models import model_path, sha256_file
    from vericite.export.triton import check_config, export_triton, graph_io, parse_config

    m = export_triton(spec, tmp_path / "repo", max_batch_size=32, queue_delay_us=500, instances=2, kind="gpu",
                      raw_entry=raw)
    mdir = tmp_path / "repo" / spec.name
    cfg = parse_config((mdir / "config.pbtxt").read_text())
    inputs, outputs = graph_io(mdir / "1" / "model.onnx")
    assert [t.name for t in inputs] == ["input_ids", "attention_mask", "token_type_ids"]
    assert check_config((mdir / "config.pbtxt").read_text(), inputs, outputs) == []
    assert (cfg.name, cfg.platform, cfg.backend, cfg.max_batch_size) == (spec.name, "onnxruntime_onnx", "", 32)
    assert [(i.name, i.data_type, list(i.dims)) for i in cfg.input] == [(n, 9, [-1]) for n in  # 9 = TYPE_INT64
                                                                        ("input_ids", "attention_mask", "token_type_ids")]
    assert [(o.name, o.data_type, list(o.dims)) for o in cfg.output] == [("logits", 11, [2])]  # 11 = TYPE_FP32
    assert cfg.dynamic_batching.max_queue_delay_microseconds == 500
    assert list(cfg.dynamic_batching.preferred_batch_size) == [8, 16, 32]
    assert [(g.count, g.kind) for g in cfg.instance_group] == [(2, 1)]  # 1 = KIND_GPU
    params = {k: v.string_value for k, v in cfg.parameters.items()}
    assert params["vericite_onnx_sha256"] == spec.sha256 == sha256_file(mdir / "1" / "model.onnx")
    assert params["vericite_width_buckets"].endswith(",320") and "intra_op_thread_count" not in params  # gpu
    assert sha256_file(mdir / "1" / "model.onnx") == sha256_file(model_path(spec))
    assert (mdir / "tokenizer.json").is_file() and not (mdir / "1" / "model.py").exists()
    assert json.loads((mdir / "vericite.json").read_text())["config"]["instances"] == 2
    entry = Registry.load(_toml(tmp_path, m["models_toml"])).named(f"{spec.name}-triton")
    assert (entry.format, entry.threshold, entry.sentence_window, entry.number_guard) == (
        "triton", spec.threshold, spec.sentence_window, spec.number_guard)
    assert entry.setting("checker_languages") == spec.setting("checker_languages")
    # a config that disagrees with the graph is caught
    bad = (mdir / "config.pbtxt").read_text().replace('name: "logits"', 'name: "scores"').replace("dims: [ 2 ]", "dims: [ 3 ]")
    assert check_config(bad, inputs, outputs) == ["output names ['scores'] != graph ['logits']"]


def test_export_options_are_checked(spec, tmp_path):
    pytest.importorskip("onnx")
    from vericite.export.triton import export_triton

    for kw, msg in (({"kind": "tpu"}, "kind must be"), ({"backend": "python", "kind": "gpu"}, "runs ONNX Runtime on CPU"),
                    ({"max_batch_size": 8, "preferred": [16]}, "preferred batch sizes"), ({"instances": 0}, "instances")):
        with pytest.raises(ValueError, match=msg):
            export_triton(spec, tmp_path / "r", **kw)
    with pytest.raises(ValueError, match="takes an ONNX cross-encoder"):
        export_triton(replace(spec, input_format="t5-true"), tmp_path / "r")


def test_cli_writes_the_repository(tmp_path, capsys):
    pytest.importorskip("onnx")
    from vericite.engine.cli import main

    assert main(["-q", "export", "triton", str(tmp_path / "repo"), "--backend", "python", "--max-batch-size", "16",
                 "--queue-delay-us", "100", "--json"]) == 0
    m = json.loads(capsys.readouterr().out)
    assert m["config"] | {"width_buckets": None} == {
        "backend": "python", "max_batch_size": 16, "queue_delay_us": 100, "preferred_batch_size": [8, 16],
        "instances": 1, "kind": "cpu", "threads": 1, "width_buckets": None}
    assert {f["file"] for f in m["files"]} == {"config.pbtxt", "tokenizer.json", "1/model.onnx", "1/model.py"}


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
    from vericite.engine.checkers import load_checker

    server, entry = triton
    remote = load_checker(entry)
    pairs = _pairs()
    local_scores, remote_scores = checker.scores(pairs), remote.scores(pairs)
    assert remote.ep == "triton" and remote.cache_id != checker.cache_id
    assert len(pairs) > 80 and float(np.abs(local_scores - remote_scores).max()) < 1e-5
    assert remote.stats["windows"] > len(pairs)  # premise windows were planned here, on the client
    from vericite.engine.batching import DynamicBatcher

    with DynamicBatcher(remote) as batcher:  # the engine's path: many threads -> one worker -> Triton
        futures = [batcher.submit(pairs[k::3]) for k in range(3)]
        for k, f in enumerate(futures):
            assert np.array_equal(f.result(timeout=60), remote_scores[k::3])


@pytest.mark.triton
def test_concurrent_callers_are_batched_by_triton(triton, spec):
    """Four threads, one request of 4 rows each, same padded width: Triton's dynamic batcher joins
    them into fewer executions (300 ms queue delay), and every caller gets its own scores."""
    import tritonclient.http as httpclient

    from vericite.engine.checkers import load_checker

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
    from vericite.engine.checkers import load_checker

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


def test_the_commented_models_toml_example_parses(tmp_path):
    from .conftest import REPO

    text = (REPO / "models.toml").read_text()
    block = text[text.index('# [models."nli-minilm-l6-bin-int8-triton"]'):].split("\n\n")[0]
    entry = "\n".join(line[2:] for line in block.splitlines() if line.startswith("# ") and not line.startswith("# #"))
    spec = Registry.load(_toml(tmp_path, text + "\n" + entry + "\n")).named("nli-minilm-l6-bin-int8-triton")
    default = Registry.load().named("nli-minilm-l6-bin-int8")  # the checker the example serves
    assert (spec.format, spec.url, spec.model_name, spec.sha256) == (
        "triton", "http://127.0.0.1:8000", default.name, default.sha256)
    assert (spec.threshold, spec.premise_window, spec.sentence_window, spec.number_guard, spec.max_length) == (
        default.threshold, default.premise_window, default.sentence_window, default.number_guard, default.max_length)


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
