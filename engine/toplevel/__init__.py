"""VeriCite: answers with verified citations, offline.

    from vericite import VeriCite
    vc = VeriCite.load()                      # the default models of models.toml
    result = vc.answer("When was Rush formed?", ["Rush is a Canadian rock band formed in 1968 ..."])
    print(result.answer)

This package is the top level of the distribution (its files live in engine/toplevel/ because the
repository's layout is fixed); the run time is :mod:`vericite.engine`.
"""
from vericite.engine.api import VeriCite

__all__ = ["VeriCite"]
