"""Conflict rules (engine/conflicts.py) with a scripted checker: the threshold, the related bar and
the stems that tell whether another document's sentence is about the same event."""
from __future__ import annotations

import numpy as np
import pytest

from vericite.engine import settings as S
from vericite.engine.conflicts import MIN_SHARED_STEMS, find_conflicts, stems
from vericite.engine.errors import ConfigError
from vericite.engine.records import Document, Statement

CLAIM = Statement("answer", "Yandex Market was launched in 2000 as a price comparison service.", (1,), "kept", 0.9)
DOCS = [
    Document("History", "Yandex Market was launched in 2000 as a price comparison service."),
    Document("Interview", "After the launch in 2001 the service long remained a place to compare prices."),
    Document("Census", "In 2001 the town had 281 inhabitants."),
]


def scripted(p_new: float):
    """P = ``p_new`` for a claim with a year other than 2000 read against another document, 1.0 for
    a document stating the claim verbatim, else 0.0 (so the original never holds elsewhere)."""
    def scores(pairs):
        out = []
        for premise, hypothesis in pairs:
            out.append(1.0 if hypothesis in premise else p_new if "2000" not in hypothesis else 0.0)
        return np.array(out, dtype=np.float32)
    return scores


def test_a_document_telling_the_launch_without_the_name_is_a_related_conflict():
    assert find_conflicts([CLAIM], DOCS, scripted(0.4), 0.7, "en") == []  # below the threshold, no bar
    found = find_conflicts([CLAIM], DOCS, scripted(0.4), 0.7, "en", related=0.35)
    # document 2 shares "launch", "service" with the claim; the census sentence shares no word
    assert [(c.other_document, c.other_value, c.basis, c.score) for c in found] == [(2, "2001", "related", 0.4)]
    assert find_conflicts([CLAIM], DOCS, scripted(0.3), 0.7, "en", related=0.35) == []  # under the bar
    entailed = find_conflicts([CLAIM], DOCS, scripted(0.8), 0.7, "en", related=0.35)
    assert sorted((c.other_document, c.basis) for c in entailed) == [(2, "entailed"), (3, "entailed")]


def test_the_related_bar_cannot_exceed_the_threshold():
    with pytest.raises(ValueError, match="above the threshold"):
        find_conflicts([CLAIM], DOCS, scripted(0.4), 0.5, "en", related=0.6)
    with pytest.raises(ConfigError, match="conflict_related = 0.8 is above the conflict threshold 0.7"):
        S.validate(S.Settings(threshold=0.7, conflict_related=0.8))
    S.validate(S.Settings(threshold=0.7, conflict_threshold=0.9, conflict_related=0.8))  # its own threshold


def test_stems_join_a_words_forms_in_russian_and_english():
    # the brief's document 1 and document 3: "сервис", "сравнения" shared across word forms
    one = stems("Яндекс Маркет запущен в 2000 году как сервис сравнения цен.", "ru")
    three = stems("После запуска в 2001 году сервис долго оставался площадкой для сравнения цен.", "ru")
    assert len(one & three) >= MIN_SHARED_STEMS and not any(ch.isdigit() for w in one for ch in w)
    assert stems("The services launched", "en") == stems("a service launches", "en") == {"servic", "launch"}
    assert stems("Wörter und Sätze", "de") == {"wörter", "sätze"}  # no stemmer: the words themselves
