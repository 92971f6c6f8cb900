"""`vericite export triton`: config.pbtxt against the ONNX graph and the export options
(needs onnx and tritonclient).

The same subject in other tiers: tests/unit/test_triton.py, tests/integration/test_triton.py, tests/external/test_triton.py.
"""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from vericite.engine.config.registry import Registry

from tests.unit.test_triton import _toml
from tests.integration import test_triton as integration_part

spec = integration_part.spec  # fixture shared with tests/integration/test_triton.py


@pytest.fixture(scope="module")
def raw(spec):
    """The default checker's entry as models.toml writes it (its profile keys)."""
    import tomllib

    reg = Registry.load()
    return tomllib.loads(reg.source.read_text())["models"][spec.name]


def test_config_pbtxt_matches_the_onnx_graph(spec, raw, tmp_path):
    """The onnxruntime_onnx repository (what a full Triton serves): parsed with Triton's ModelConfig
    schema, every input/output against the graph, batching, instances, parameters, files."""
    pytest.importorskip("onnx")
    pytest.importorskip("tritonclient")
    from vericite.engine.config.registry import model_path, sha256_file
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
