"""Conflict rules (engine/conflicts.py) with a scripted checker: the threshold, the related bar and
the stems that tell whether another document's sentence is about the same event."""
from __future__ import annotations

import numpy as np
import pytest

from vericite.engine.config import settings as S
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
    """P = ``p_new`` for a claim without 2000, 1983 or 2005 read against another document, 1.0 for
    a document stating the claim verbatim, else 0.0 (so the original never holds elsewhere)."""
    def scores(pairs):
        out = []
        for premise, hypothesis in pairs:
            out.append(1.0 if hypothesis in premise else p_new if not any(y in hypothesis for y in ("2000", "1983", "2005"))
                       else 0.0)
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


@pytest.mark.parametrize("sentence, kept", [
    ("С 1991 по 2000 годы биржа находилась в здании партии.", "С 199"),      # the number is among the first words
    ("Yandex Market was launched in 2000 as a price comparison service.", "was launched in 200"),
    ("Викинги начали прибывать в 880-х годах на побережье Нормандии.", "прибывать в "),
])
def test_a_planted_conflict_states_a_changed_number_of_the_same_kind(sentence, kept):
    import random

    from vericite.bench.conflicts import _changed
    from vericite.engine.nli.guard import numbers

    for seed in range(5):
        planted = _changed(sentence, random.Random(seed))
        assert planted is not None and planted.startswith(kept)
        new = numbers(planted) - numbers(sentence)
        old = numbers(sentence) - numbers(planted)
        # exactly one value changed, to a value the sentence did not have, and a year stays a year
        assert len(new) == len(old) == 1
        (a,), (b,) = old, new
        assert (1000 <= float(a) <= 2100) == (1000 <= float(b) <= 2100)


def test_no_planted_conflict_from_a_time_a_decimal_or_a_value_the_sentence_has():
    import random

    from vericite.bench.conflicts import _changed

    rng = random.Random(0)
    assert _changed("The score was 2,4 after 4:51 in the 3rd quarter.", rng) is None
    assert _changed("He added 6½ sacks.", rng) is None
    # 3 -> 7 would repeat the sentence's own 7; 7 -> 15 is taken instead
    assert _changed("Kick-off at 3 with 7 players on the field today.", random.Random(0)) == \
        "3 with 15 players on the field today."


def test_the_planted_set_counts_each_fact_once():
    from vericite.bench.conflicts import measure

    docs = [Document("A", "Yandex Market was launched in 2000 as a price comparison service."),
            Document("B", "The town had 281 inhabitants in the census.")]
    one = measure([(docs, [True, True], "en")], scripted(0.0), [0.7])
    # XQuAD-ru style: two items of one article, the same documents
    two = measure([(docs, [True, True], "en"), (list(docs), [True, True], "en")], scripted(0.0), [0.7])
    assert one["0.7"]["facts_with_numbers"] == two["0.7"]["facts_with_numbers"] == 2
    assert one["0.7"]["planted"] == two["0.7"]["planted"] == 2
    # one row per rule: with and without the restated check, from one scoring
    both = measure([(docs, [True, True], "en")], scripted(0.0), [0.7], related=[0.0, 0.5], restated=[False, True])
    assert sorted(both) == ["0.7", "0.7+restated", "0.7/0.5", "0.7/0.5+restated"]


def test_a_sentence_the_claim_with_its_number_entails_is_a_restated_conflict():
    claim = Statement("evidence", "The Warsaw Stock Exchange was founded in 1817 and traded until the war.", (1,),
                      "kept", 0.9)
    docs = [Document("A", claim.text),
            Document("B", "The city grew fast. It was founded in 1820 and traded until the war."),
            Document("C", "The museum was opened in 1820.")]

    def scores(pairs):
        # forward (a document as premise) never reaches the bar: the claim names the exchange, B does not;
        # backward (the rewritten claim as premise) entails any sentence it contains word for word but "It"
        out = []
        for premise, hypothesis in pairs:
            back = premise.startswith("The Warsaw")
            out.append(0.9 if back and hypothesis.replace("It was", "").strip() in premise else
                       0.1 if back else 0.2)
        return np.array(out, dtype=np.float32)

    assert find_conflicts([claim], docs, scores, 0.55, "en", related=0.35) == []
    found = find_conflicts([claim], docs, scores, 0.55, "en", related=0.35, restated=True)
    # B restates the claim with 1820 (shares "found", "trade", "war"); C's museum sentence is not the claim
    assert [(c.other_document, c.other_value, c.basis, c.score) for c in found] == [(2, "1820", "restated", 0.9)]
    assert found[0].other_sentence == "It was founded in 1820 and traded until the war."


def test_a_restated_conflict_stands_when_a_number_blind_checker_entails_the_claim_too():
    claim = Statement("evidence", "His best book was The 7 Habits of Highly Effective People.", (1,), "kept", 0.9)
    docs = [Document("A", claim.text),
            Document("B", "Covey wrote many books. His best book was The 15 Habits of Highly Effective People."),
            Document("C", "Covey wrote many books. His best book was The 7 Habits of Highly Effective People. "
                          "He also wrote The 15 Habits of Highly Effective Families.")]

    def blind(pairs):
        # a checker that cannot see numbers: a premise holding the hypothesis with any number entails it
        def strip(t):
            return " ".join(w for w in t.replace(".", " ").split() if not w.isdigit())
        return np.array([0.9 if strip(h) in strip(p) else 0.0 for p, h in pairs], dtype=np.float32)

    # B states the claim with 15 only; the blind checker says B entails the claim with 7 as well
    assert find_conflicts([claim], docs, blind, 0.7, "en") == []
    found = find_conflicts([claim], docs, blind, 0.7, "en", restated=True)
    assert [(c.other_document, c.value, c.other_value, c.basis) for c in found] == [(2, "7", "15", "restated")]
    # C states the claim with 7 itself: its "Families" sentence is another book, not the claim restated
    assert all(c.other_document != 3 for c in found)


def test_a_sentence_about_another_subject_is_no_conflict():
    """The demo's Hall-of-Fame lines: another drummer's year is not a conflict with Peart's."""
    claim = Statement("evidence", "Neil Peart was inducted into the Modern Drummer Hall of Fame in 1983.", (1,), "kept", 0.9)
    docs = [Document("Neil Peart", claim.text),
            Document("Jeff Porcaro", "Porcaro was inducted into the Modern Drummer Hall of Fame in 1993."),
            Document("Rush", "The drummer was inducted into the Modern Drummer Hall of Fame in 1993.")]
    found = find_conflicts([claim], docs, scripted(0.9), 0.7, "en")  # the checker entails both rewrites
    assert [c.other_document for c in found] == [3]  # document 2 names another drummer; 3 names none
    # the same sentence naming Peart is about him: a conflict
    docs[1] = Document("Jeff Porcaro", "Porcaro and Neil Peart were inducted into the Modern Drummer Hall of Fame in 1993.")
    assert sorted(c.other_document for c in find_conflicts([claim], docs, scripted(0.9), 0.7, "en")) == [2, 3]


def test_he_in_a_document_about_someone_else_is_another_subject():
    claim = Statement("evidence", "Copeland was inducted into the Modern Drummer Hall of Fame in 2005.", (2,), "kept", 0.9)
    docs = [Document("Jeff Porcaro", "He was posthumously inducted into the Modern Drummer Hall of Fame in 1993."),
            Document("Stewart Copeland", claim.text),
            Document("Interview", "After the launch in 1993 the drummer was inducted into the Modern Drummer Hall of Fame.")]
    found = find_conflicts([claim], docs, scripted(0.9), 0.7, "en")
    assert [c.other_document for c in found] == [3]  # "He" is Jeff Porcaro; document 3 names nobody else
