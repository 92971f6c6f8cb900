"""Hard negatives (export/hard_negatives.py): the edits, their seeds, QA-document pairs and the frozen
sentence splitter. Pure Python: no torch, no shared data."""
from __future__ import annotations

import json

import pytest
from vericite.export import hard_negatives as hn

PREMISE = ("Yandex Market was launched in 2000 as a price comparison service. It was founded by Arkady Volozh "
           "in Moscow. The film grossed $5 million in its first week.")
CASES = {
    "year": (PREMISE, "Yandex Market was launched in 2000.", "2000"),
    "date": ("The single was released on 4 August 2007 in Australia.", "The single was released on 4 August 2007.",
             "4 August 2007"),
    "number": ("The town has 12 schools and a library.", "The town has 12 schools.", "12"),
    "quantity": (PREMISE, "The film grossed $5 million in its first week.", None),
    "entity": ("Coulter wrote the song in Sydney. Nirvana was formed in Aberdeen.", "Coulter wrote the song in Sydney.",
               None),
    "negation": ("A man is playing a guitar on stage.", "A man is playing a guitar.", "is"),
    "role_swap": ("A dog chases a cat in the park.", "A dog chases a cat.", "A dog chases a cat."),
}


@pytest.mark.parametrize("kind", hn.KINDS)
def test_each_generator_changes_the_hypothesis_deterministically(kind):
    premise, hyp, old = CASES[kind]
    gen = hn.GENERATORS[kind]
    a = gen(premise, hyp, seed=3)
    b = gen(premise, hyp, seed=3)
    assert a is not None and a == b  # same inputs, same edit
    assert a.kind == kind and a.label == "not_entailment"
    assert a.hypothesis != hyp and a.source_hypothesis == hyp and a.premise == premise
    assert a.old != a.new and hyp[a.start:a.start + len(a.old)] == a.old
    assert a.hypothesis == hyp[:a.start] + a.new + hyp[a.start + len(a.old):]  # the record explains the edit
    if old is not None:
        assert a.old == old
    assert a.hypothesis.lower().rstrip(".") not in premise.lower()
    json.dumps(a.to_dict())


def test_generator_specifics():
    year = hn.change_year(PREMISE, "Yandex Market was launched in 2000.", seed=0)
    assert year.new not in PREMISE and abs(int(year.new) - 2000) <= 10
    assert hn.change_quantity(PREMISE, "The film grossed $5 million in its first week.", seed=0).old in ("5", "million")
    ent = hn.change_entity("Coulter wrote the song in Sydney. Nirvana was formed in Aberdeen.",
                           "Coulter wrote the song in Sydney.", seed=0)
    assert ent.new in ("Nirvana", "Aberdeen")
    # names coordinated with the replaced one in a premise sentence are never used
    coord = hn.change_entity("It was written by Brian Kierulf and Joshua Schwartz.", "It was written by Brian Kierulf.",
                             seed=0, pool=["Paris"])
    assert coord.new == "Paris"
    assert hn.negate("", "He isn't happy.", seed=0).hypothesis == "He is happy."
    assert hn.negate("", "Coulter wrote the song.", seed=0).hypothesis == "Coulter never wrote the song."
    assert hn.swap_roles("", "A dog chases a cat.").hypothesis == "A cat chases a dog."
    assert hn.change_entity("The band is American.", "The band is American.", seed=0).new in hn._DEMONYMS


def test_nothing_to_change_returns_none():
    plain = "nothing to see here"
    for kind, gen in hn.GENERATORS.items():
        assert gen(plain, plain, seed=0) is None, kind
    assert hn.swap_roles("", "John married Mary.") is None  # symmetric verb
    assert hn.swap_roles("", "A man is sitting on a bench.") is None  # prepositional object
    assert hn.change_entity("Paris is big.", "Paris is big.", seed=0) is None  # no other name anywhere
    assert hn.perturb(plain, plain) == []


def test_perturb_and_seeds():
    p, h = "Shirley Temple was born on April 23, 1928 in Santa Monica.", "Shirley Temple was born on April 23, 1928."
    edits = hn.perturb(p, h, seed=0)
    assert {e.kind for e in edits} >= {"year", "date", "negation"}
    assert hn.perturb(p, h, seed=0) == edits
    assert any(x != y for x, y in zip(edits, hn.perturb(p, h, seed=1)))  # another seed, other choices
    with pytest.raises(ValueError):
        hn.perturb(p, h, kinds=["nope"])


def test_qa_document_pairs_and_splitter():
    assert hn.split_sentences_regex("It was written by Joshua M. Schwartz. It peaked at No. 2 in the U.S. charts.") == [
        "It was written by Joshua M. Schwartz.", "It peaked at No. 2 in the U.S. charts."]
    item = {"id": "x", "docs": [
        {"title": "Can't Touch It", "is_supporting": True,
         "text": "Can't Touch It is a song by Ricki-Lee Coulter.  It was released on 4 August 2007 in Australia."},
        {"title": "Sydney", "is_supporting": False, "text": "Sydney is the capital of New South Wales since 1788."},
    ]}
    pairs, edits = hn.qa_document_pairs([item], seed=0, sentences_per_item=2)
    assert [p["source"] for p in pairs] == ["qa-positive", "qa-distractor"] * 2
    assert all(p["hypothesis"] in p["premise"] for p in pairs if p["label"] == "entailment")
    assert len(edits) == 2 and all(e.hypothesis not in e.premise for e in edits)
    assert hn.qa_document_pairs([item], seed=0, sentences_per_item=2) == (pairs, edits)


def test_regex_splitter_is_frozen():
    """split_sentences_regex defines the training data of nli-minilm-l6-hn-int8: it is not the engine's
    (pysbd) splitter, which splits these two differently."""
    assert hn.split_sentences_regex('He said "it is the sound of Jeff Porcaro." He was inducted in 1993.') == [
        'He said "it is the sound of Jeff Porcaro.', "He was inducted in 1993."]  # the closing quote goes
    assert hn.split_sentences_regex('It ran "through Linings". From "A Change" on, he wrote.') == [
        'It ran "through Linings".', 'From "A Change" on, he wrote.']
    assert hn.split_sentences_regex("First.  Second one.  Third") == ["First.", "Second one.", "Third"]  # HotpotQA joins


def test_number_words_are_the_guards():
    """The generators' number words come from engine/nli/guard.py's tables, cut to the same lists as before."""
    assert hn._CARDINALS == ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                             "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                             "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
                             "eighty", "ninety", "hundred"]
    assert hn._ORDINALS == ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
                            "tenth", "eleventh", "twelfth"]
