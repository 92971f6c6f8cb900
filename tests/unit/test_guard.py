"""The number guard (engine/nli/guard.py): the numbers it reads, without a model.

The same subject in other tiers: tests/integration/test_guard.py.
"""
from vericite.engine.nli.guard import numbers, premise_numbers, unsupported_numbers


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
