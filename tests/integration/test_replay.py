"""`vericite bench replay` from the command line with the real default checker.

The same subject in other tiers: tests/unit/test_replay.py.
"""
from __future__ import annotations

import json

from vericite.bench.replay import main
from vericite.engine.nli.batching import DynamicBatcher

from tests.unit.test_replay import recorded


def test_the_cli_replays_a_file_with_the_real_checker_and_names_a_missing_one(tmp_path, checker, capsys):
    batcher = DynamicBatcher(checker)
    row = recorded(batcher, claim_words=5)
    batcher.close()
    path, out = tmp_path / "run.jsonl", tmp_path / "replay.jsonl"
    path.write_text(json.dumps(row) + "\n")
    assert main([str(path), "--out", str(out), "--no-progress", "--nli-cache", ""]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["rows"], summary["same_output"]) == (1, 1)
    assert json.loads(out.read_text())["output"] == row["output"]
    bad = dict(row, trace=dict(row["trace"], settings=dict(row["trace"]["settings"], nli="word-checker")))
    path.write_text(json.dumps(bad) + "\n")
    assert main([str(path), "--out", str(out), "--no-progress", "--nli-cache", ""]) == 2
    assert "unknown nli model 'word-checker'" in capsys.readouterr().err
    assert main([str(path), "--out", str(out), "--set", "nonsense=1"]) == 2
    assert "unknown setting(s) ['nonsense']" in capsys.readouterr().err
