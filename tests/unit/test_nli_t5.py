"""T5 TRUE-style checker without torch or shared data: the runtime's premise windows, its imports,
and the export dispatcher's choice of path (the torch-based export tests are in tests/lab/test_t5_true.py)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from vericite.engine.nli.t5 import TrueInputEncoder
from vericite.export.nli_onnx import ExportValidationError
from vericite.export.t5_true import export_nli


def test_windows_overlap_by_half():
    class FakeTok:  # one token per word, ids = word numbers
        def token_to_id(self, t):
            return 1 if t == "</s>" else None

        def encode(self, text, add_special_tokens=False):
            return type("E", (), {"ids": [int(w) if w.isdigit() else 5 for w in text.split()]})()

    enc = TrueInputEncoder(FakeTok(), template="{premise} | {hypothesis}", max_length=14)
    rows = enc.windows(" ".join(str(i) for i in range(100, 120)), "7 7")
    # fixed: "|" (1) + hypothesis (2) + </s> (1) = 4 -> 10 premise tokens per window, step 5
    assert [r[0] for r in rows] == [100, 105, 110]
    assert rows[0][:10] == list(range(100, 110)) and rows[-1][:10] == list(range(110, 120))
    assert rows[0][10:] == [5, 7, 7, 1]


def test_engine_module_imports_no_torch():
    code = ("import sys, vericite.engine.nli.t5; "
            "bad = [m for m in ('torch', 'transformers', 'optimum', 'onnx') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_export_nli_dispatches_on_config(tmp_path, monkeypatch):
    from vericite.export import t5_true

    calls = []
    monkeypatch.setattr(t5_true, "export_cross_encoder", lambda src, out, **kw: calls.append(("ce", kw)) or {})
    monkeypatch.setattr(t5_true, "export_t5_true", lambda src, out, **kw: calls.append(("t5", kw)) or {})
    for name, config in (("bert", {"model_type": "bert", "architectures": ["BertForSequenceClassification"]}),
                         ("t5", {"model_type": "t5", "architectures": ["T5ForConditionalGeneration"]}),
                         ("bart", {"model_type": "bart", "architectures": ["BartForConditionalGeneration"]})):
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.json").write_text(json.dumps(config))
        t5_true.export_nli(tmp_path / name, tmp_path / f"{name}-out", quantize="none")
    assert calls == [("ce", {"quantize": "none"}), ("t5", {"quantize": "none"}), ("t5", {"quantize": "none"})]
    monkeypatch.undo()
    (tmp_path / "bart" / "model.safetensors").write_bytes(b"")
    with pytest.raises(ExportValidationError, match="model_type 'bart'"):  # the T5 path refuses other seq2seq
        export_nli(tmp_path / "bart", tmp_path / "bart-out")
    assert not (tmp_path / "bart-out").exists()
