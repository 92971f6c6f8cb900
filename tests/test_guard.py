"""The number guard (engine/guard.py) with the real default checker."""
from dataclasses import replace

import numpy as np

from vericite.engine.batching import DynamicBatcher
from vericite.engine.guard import NumberGuard, numbers, premise_numbers, unsupported_numbers
from vericite.engine.models import Registry
from vericite.engine.checkers import load_checker
from vericite.engine.nli_cache import ScoreCache

DOC = ("Yandex Market was launched in 2000 as a price comparison service. "
       "Today it has two warehouses and sells 1,500,000 products in 3.5 thousand categories.")


def test_numbers_are_normalised():
    assert numbers("1,500,000 items in the 1990s, 07 May, 3.5 kg, 19th") == {"1500000", "1990", "7", "3.5", "19"}
    assert numbers("no digits here") == set()
    assert {"2", "3", "20"} <= premise_numbers("two, third and twenty; два")


def test_unsupported_numbers():
    assert unsupported_numbers(DOC, "Yandex Market was launched in 2001.") == {"2001"}
    assert unsupported_numbers(DOC, "It was launched in 2000 and has 2 warehouses.") == set()
    assert unsupported_numbers(DOC, "It sells 1500000 products.") == set()
    assert unsupported_numbers(DOC, "It is a price comparison service.") == set()
    assert unsupported_numbers(DOC, "It has three warehouses.") == {"3"}           # number words are checked
    assert unsupported_numbers(DOC, "It has 3.5 billion categories.") == {"billion"}  # so are magnitudes
    assert unsupported_numbers(DOC, "It is one of the first such services.") == set()  # "one", "first" are not


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
