"""The number guard (engine/nli/guard.py) with the real default checker.

The same subject in other tiers: tests/unit/test_guard.py.
"""
from dataclasses import replace

import numpy as np

from vericite.engine.nli.batching import DynamicBatcher
from vericite.engine.nli.guard import NumberGuard
from vericite.engine.config.registry import Registry
from vericite.engine.nli.load import load_checker
from vericite.engine.nli.cache import ScoreCache
from tests.unit.test_guard import DOC


def test_guard_rejects_the_wrong_year_and_keeps_other_scores(checker):
    checker = getattr(checker, "checker", checker)  # the bare model, if the default entry has the guard on
    g = NumberGuard(checker)
    pairs = [(DOC, "Yandex Market was launched in 2000."), (DOC, "Yandex Market was launched in 2001."),
             (DOC, "Yandex Market is a price comparison service.")]
    bare, guarded = checker.scores(pairs), g.scores(pairs)
    assert guarded.dtype == np.float32 and guarded.shape == (3,)
    assert guarded[1] == 0.0 and bare[1] > 0.0
    assert np.allclose(guarded[[0, 2]], bare[[0, 2]])
    assert g.cache_id != checker.cache_id and g.name.endswith("+number-guard")


def test_registry_flag_wraps_the_checker_behind_the_batcher():
    spec = replace(Registry.load().get(None, "nli"), number_guard=True)
    model = load_checker(spec, intra_op_threads=1)
    assert isinstance(model, NumberGuard)
    model.premise_window = 64                       # settings reach the wrapped checker
    assert model.checker.premise_window == 64
    with DynamicBatcher(model, cache=ScoreCache(model.cache_id)) as b:
        s = b.submit([(DOC, "It opened in 1999."), (DOC, "It opened in 2000.")]).result(timeout=60)
    assert s[0] == 0.0 and s[1] > 0.0
