"""`vericite bench eval` and `report` on a fake method's results: the evaluator is the real
default checker and the report's chart needs matplotlib (the bench extra).

The same subject in other tiers: tests/unit/test_alce.py, tests/integration/test_alce.py.
"""
from __future__ import annotations

import json

import pytest
from vericite.bench.run import run_items

from tests.unit.test_alce import FakeMethod, _items


# -- commands ----------------------------------------------------------------------------------
def test_eval_and_report_commands(tmp_path, capsys, checker):
    pytest.importorskip("matplotlib", reason="the report's chart needs the bench extra")
    from vericite.bench.run import eval_main, report_main

    out = tmp_path / "r.jsonl"
    m = FakeMethod()
    m.stamp = {"llm": "L", "checker": "C"}
    run_items(m, _items(2), out, progress=False)
    assert eval_main([str(out), "--json", "--no-progress"]) == 0
    ev = json.loads(capsys.readouterr().out)
    assert ev["evaluator"]["nli"] == checker.name and ev["evaluator"]["alce_compat"] is False
    (r,) = ev["results"]
    assert (r["method"], r["checker"], r["evaluator_nli"], r["items"]) == ("fake", "C", checker.name, 2)
    assert r["answer_in_output"] == 100.0
    md = tmp_path / "report.md"
    assert report_main([str(out), "--out", str(md), "--no-progress"]) == 0
    assert "| hotpotqa | fake | L | C | 2 |" in md.read_text()
    assert (tmp_path / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
