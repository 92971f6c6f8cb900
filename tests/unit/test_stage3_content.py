"""Content-word rules (issue 13): a claim rewrite may not invent, stage 3 adds nothing, and the
verified facts the refinement dropped come back. Scripted LLM and the word-containment checker."""
from __future__ import annotations

import pytest

from vericite.engine import records as R
from vericite.engine.claims import end_fill, template_fill
from vericite.engine.text.content import adds, answer_words, content_free, invented, stems
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Document

from tests.fakes import ScriptedLLM, WordChecker

LAKERS = [Document("Lakers", "The Lakers won the finals six times in the 1960s and 16 times in all."),
          Document("Celtics", "The Celtics won the finals 17 times.")]
Q_LAKERS = "How many times have the Lakers won the finals?"


@pytest.fixture
def checker():
    return WordChecker()


def answer(checker, replies, docs=LAKERS, question=Q_LAKERS, **settings):
    llm = ScriptedLLM(replies)
    res = VeriCite(llm, checker, prompts=PromptSet.load("paper-en"), settings=Settings(**settings)).answer(question, docs)
    return llm, res


def test_content_words_are_stems_and_numbers_beyond_the_question():
    assert answer_words("The Lakers have won the NBA Finals 6 times.", Q_LAKERS) == {"6", "nba"}
    # an English 3-letter word is content unless it is a function word; a shorter one never is
    assert stems("The Bye Bye Man was made by his son in Ohio; it does") == {"bye", "man", "made", "son", "ohio"}
    assert "die" in stems("He died in 1995") and stems("год для", "ru") == frozenset()
    assert answer_words("Згідно", "") == {"згідно"}  # no stemmer for the language: the word itself
    assert stems("Яндекс Маркет запущен в 2000 году", "ru") >= {"яндекс", "маркет", "запущ"}
    assert invented("The Lakers have won the finals 6 times.", "According to Document", Q_LAKERS) == {"6"}
    assert invented("The Lakers won the finals 16 times.", "16 times", Q_LAKERS) == frozenset()
    assert invented("Keith Moon was the drummer of Rush.", "Neil Peart", "Who was the drummer of Rush?") == {"keith", "moon"}
    # an English number word from two to twelve is also its digits: "third-largest" says "3rd largest"
    assert "3" in answer_words("making it the third-largest urban area", "Where does it rank?")
    assert answer_words("It ranks 3rd.", "") & answer_words("the third-largest", "") == {"3"}
    assert invented("The club won 5 Super Cups.", "five Super Cups", "Which club won?") == frozenset()
    assert "1" not in answer_words("the first European club", "") and answer_words("Third", "", "ru") == {"third"}


@pytest.mark.parametrize("text,free", [("According to Document [4][1][2]!", True), ("[2] a", True), ("and.", True),
                                       ("Yes [1].", False), ("1939 [1]", False), ("Berea College [2]", False)])
def test_content_free_fragments(text, free):
    assert content_free(text) is free


def test_adds_new_words_or_prompt_talk():
    src = "The Lakers won the finals 16 times."
    assert adds("The Lakers won the finals 16 times [1].", src, Q_LAKERS) is None
    assert adds("The Lakers won the finals 12 times in Boston.", src, Q_LAKERS) == "new words"
    assert adds("Based on the provided answer statements, the Lakers won the finals as follows.", src, Q_LAKERS) == "no answer"
    assert adds("The Lakers won the finals.", src, Q_LAKERS) is None  # restates the question: not this rule's business


def test_a_content_free_fragment_is_not_sent_to_the_rewrite_and_an_inventing_rewrite_is_refused(checker):
    replies = {"answer": "According to Document [1][2]! The Lakers won the finals 16 times [1].", "gate": "No",
               "claim": "The Lakers won the finals six times.", "refine": "The Lakers won the finals 16 times [1]."}
    llm, res = answer(checker, replies, claim_words=5)
    assert not [c for c in llm.calls if c[0].startswith("claim")]  # "According to Document!" has nothing to rewrite
    assert [s.verdict for s in res.stages[0].statements] == [R.DROPPED_FRAGMENT, R.KEPT]
    # without the guard the rewrite answers from memory and document 1 "entails" it
    llm, off = answer(checker, replies, claim_words=5, claim_guard=False)
    assert [c[0] for c in llm.calls if c[0].startswith("claim")] == ["claim:answer"]
    assert [(s.verdict, s.rewritten) for s in off.stages[0].statements] == [(R.KEPT, True), (R.KEPT, False)]
    # a fragment with content is rewritten; a rewrite inventing a number it lacks is refused, with a note
    replies = dict(replies, answer="Six times [1].", claim="The Lakers have won the finals 17 times.")
    llm, res = answer(checker, replies, claim_words=5, fallback_quotes=0)
    s = res.stages[0].statements[0]
    assert (s.verdict, s.text) == (R.DROPPED_FRAGMENT, "Six times.")
    assert any("claim rewrite refused" in n and "['17']" in n for n in res.stages[0].notes)


class EntailsAll(WordChecker):
    """Entails every hypothesis: what a weak checker does with prompt talk."""

    @staticmethod
    def score(premise, hypothesis):
        return 1.0


def test_a_refined_sentence_that_talks_about_the_prompt_fails_and_the_verified_sentences_answer():
    replies = {"answer": "The Lakers won the finals 16 times [1].", "gate": "No",
               "refine": "Based on the provided answer statements, the Lakers won the finals as follows [1]."}
    _, res = answer(EntailsAll(), replies, backbone=False)
    assert res.answer == "The Lakers won the finals 16 times [1]."
    assert any(n.startswith("add nothing:") and "no answer" in n for n in res.stages[2].notes)
    # the rule off, nothing fails it (document_words, which would show its document's sentence, off too)
    _, off = answer(EntailsAll(), replies, backbone=False, add_nothing=False, document_words=False)
    assert off.answer == replies["refine"]


def test_a_refined_sentence_with_words_no_verified_sentence_has_fails(checker):
    # document 2 entails the merged sentence, but no verified sentence says it: stage 3 added it
    replies = {"answer": "The Lakers won the finals 16 times [1].", "gate": "No",
               "refine": "The Celtics won the finals 17 times [2]."}
    _, res = answer(checker, replies, backbone=False)
    assert [(s.verdict, s.text) for s in res.stages[2].statements] == [(R.UNSUPPORTED, "The Celtics won the finals 17 times.")]
    assert res.answer == "The Lakers won the finals 16 times [1]."
    _, off = answer(checker, replies, backbone=False, add_nothing=False)
    assert off.answer == "The Celtics won the finals 17 times [2]."


def test_backbone_facts_put_back_the_most_relevant_dropped_facts_without_repeats(checker):
    docs = LAKERS + [Document("Arena", "The arena was built in 1999 in Los Angeles.")]
    replies = {"answer": "The Lakers won the finals 16 times [1].", "gate": "Yes",
               "extract:1": "The Lakers won the finals six times in the 1960s. The Lakers won the finals 16 times in all.",
               "extract:2": "The Celtics won the finals 17 times.",
               "extract:3": "The arena was built in 1999.",
               "refine": "The Lakers won the finals 16 times [1]."}
    _, res = answer(checker, replies, docs=docs, backbone_facts=3)
    # "16 times in all" is carried by the answer; the arena shares no word with the question
    assert res.answer == ("The Lakers won the finals 16 times [1]. The Lakers won the finals six times in the 1960s [1]. "
                          "The Celtics won the finals 17 times [2].")
    assert [s.verdict for s in res.final] == [R.SUPPORTED] * 3
    assert any(n.startswith("backbone: put back 2 verified stage-2 fact(s)") for n in res.stages[2].notes)
    _, one = answer(checker, replies, docs=docs, backbone_facts=1)
    assert one.answer == "The Lakers won the finals 16 times [1]. The Lakers won the finals six times in the 1960s [1]."
    _, none = answer(checker, replies, docs=docs, backbone_facts=0)
    assert none.answer == "The Lakers won the finals 16 times [1]."


class TwoAnswers(ScriptedLLM):
    """Stage 1's calls get ``answers`` in turn; everything else as ScriptedLLM."""

    def __init__(self, replies, answers):
        super().__init__(replies)
        self.answers = list(answers)

    def chat(self, messages, *, max_tokens, purpose, grammar=None):
        if purpose == "answer" and self.answers:
            self.replies = dict(self.replies, answer=self.answers.pop(0))
        return super().chat(messages, max_tokens=max_tokens, purpose=purpose, grammar=grammar)


def test_a_stage_1_that_says_nothing_under_the_grammar_is_asked_again_with_inline_citations(checker):
    replies = {"gate": "No", "refine": "The Lakers won the finals 16 times [1]."}
    answers = ["According to Document [1][2]!", "According to Document [1], the Lakers won the finals 16 times [1]."]
    llm = TwoAnswers(replies, answers)
    pipe = VeriCite(llm, checker, prompts=PromptSet.load("paper-en"), settings=Settings(citation_grammar=True))
    res = pipe.answer(Q_LAKERS, LAKERS)
    grammars = [g for p, _, g in llm.calls if p == "answer"]
    assert len(grammars) == 2 and "[,:;]" not in grammars[0] and "[,:;]" in grammars[1]  # the retry allows inline marks
    assert [s.text for s in res.stages[0].statements] == ["The Lakers won the finals 16 times."]  # the opener goes
    assert any(n.startswith("stage 1 said nothing ('According to Document [1][2]!')") for n in res.stages[0].notes)
    # off, or a first answer with content: one call
    for settings, first in [({"answer_retry": False}, answers[0]), ({}, "The Lakers won the finals 16 times [1].")]:
        llm = TwoAnswers(replies, [first, answers[1]])
        VeriCite(llm, checker, prompts=PromptSet.load("paper-en"),
                 settings=Settings(citation_grammar=True, **settings)).answer(Q_LAKERS, LAKERS)
        assert [p for p, _, _ in llm.calls].count("answer") == 1


MOSBY = [Document("Ted Mosby", "Theodore Evelyn Mosby is the narrator of How I Met Your Mother. Ted married Tracy "
                               "McConnell, who is the mother of his children.")]
Q_MOSBY = "Who married the narrator of How I Met Your Mother?"


def test_template_fill_is_the_questions_wording_with_a_name_put_in_its_slot():
    docs = MOSBY[0].text
    assert template_fill("Theodore Evelyn Mosby married the narrator of How I Met Your Mother.", Q_MOSBY, docs) \
        == "married the narrator of how i met your mother"
    # the question's subject with the answer after it, a fact about part of the question, and the document's
    # own wording are no fills; nor is anything for a yes/no question or a long sentence before the words
    assert not template_fill("The narrator of How I Met Your Mother married Tracy Mosby.", Q_MOSBY, docs)
    assert not template_fill("Neil Peart was the drummer of Rush.", "Who was the drummer of Rush?", "Neil Peart was "
                             "the drummer of the rock band Rush.")  # a short question's plain answer
    q = "How many UEFA Super Cups has the team that has won the treble competitions twice received?"
    assert not template_fill("Barcelona has won the treble competitions twice.", q, "Barcelona won the treble.")
    assert not template_fill("Ted married the narrator of How I Met Your Mother.", Q_MOSBY,
                             "Ted married the narrator of How I Met Your Mother in 2030.")
    assert not template_fill("Ted married the narrator of How I Met Your Mother.", "Did " + Q_MOSBY[4:], docs)
    assert not template_fill("In the final season of the long show in 2014 Ted married the narrator of How I Met Your "
                             "Mother.", Q_MOSBY, docs)
    q = ("Which county shares a border with the county where the most populous city in the state where Redan High "
         "School is located?")
    assert template_fill("DeKalb County shares a border with the county where the most populous city in the state "
                         "where Redan High School is located [2].", q, "Redan High School is in DeKalb County.")


def test_template_fill_with_the_slot_opening_the_claim():
    q = "What is the nationality of the most successful female ski racer ever?"
    doc = "Vreni Schneider is a Swiss former alpine ski racer, the third most successful female ski racer ever."
    assert template_fill("The nationality of the most successful female ski racer ever is Switzerland [1].", q, doc) \
        == "the nationality of the most successful female ski racer ever"
    # a document saying the question's words in a row, a short question, a long sentence after the words, or
    # no copula are no fills
    assert not template_fill("The nationality of the most successful female ski racer ever is American.", q,
                             "Vonn is American; the nationality of the most successful female ski racer ever is "
                             "American.")
    assert not template_fill("The capital of France is Paris.", "What is the capital of France?", "Paris is big.")
    assert not template_fill("The nationality of the most successful female ski racer ever is a question many fans "
                             "of the sport in Europe ask.", q, doc)
    assert not template_fill("The nationality of the most successful female ski racer ever remains Swiss.", q, doc)


def test_template_fill_as_the_asked_nouns_relative_clause():
    q = "What county shares a border with the county in which Johnnycake, West Virginia is located?"
    doc = "Johnnycake is located on U.S. Route 52 north of Iaeger. This route passes through McDowell County."
    fill = "Therefore, the county that shares a border with the county in which Johnnycake, West Virginia is located " \
           "is McDowell County [1]."
    assert template_fill(fill, q, doc) == "shares a border with the county in which johnnycake west virginia is located"
    # a document saying the words in a row, a long predicate, another noun, a short question, or the clause
    # far into the claim are no fills
    assert not template_fill(fill, q, doc + " Wyoming County shares a border with the county in which Johnnycake, "
                                            "West Virginia is located.")
    assert not template_fill(fill.replace("McDowell County", "a large rural county in the south of the state"), q, doc)
    assert not template_fill(fill.replace("the county that", "the town that"), q, doc)
    assert not template_fill("The county that borders Fayette is Wyoming County.", "What county borders Fayette?", doc)
    assert not template_fill("In the 2010 census records of the state, the county that shares a border with the county "
                             "in which Johnnycake, West Virginia is located is McDowell County.", q, doc)


def test_a_fact_filling_the_questions_template_is_dropped_before_its_check(checker):
    # the document names Theodore Evelyn Mosby and every word of the question: the checker passes the fill
    replies = {"answer": "Tracy McConnell married him [1].", "gate": "Yes",
               "extract": "Theodore Evelyn Mosby married the narrator of How I Met Your Mother. Ted married Tracy "
                          "McConnell who is the mother.", "refine": "Ted married Tracy McConnell [1]."}
    _, res = answer(checker, replies, docs=MOSBY, question=Q_MOSBY)
    facts = res.stages[1].statements
    assert [s.verdict for s in facts] == [R.DROPPED_TEMPLATE, R.KEPT]
    assert any(n.startswith("template fill:") for n in res.stages[1].notes)
    assert "narrator" not in res.answer
    _, off = answer(checker, replies, docs=MOSBY, question=Q_MOSBY, template_guard=False)
    assert [s.verdict for s in off.stages[1].statements] == [R.KEPT, R.KEPT]


def test_a_stage_1_piece_opening_in_lower_case_is_dropped_as_a_fragment():
    # "[1] provides additional information about ..." leaves "provides additional information about ...": a
    # checker may keep it (this one keeps everything); it is prompt talk, not a statement
    replies = {"answer": "The Lakers won the finals 16 times. [1] provides additional information about the Lakers "
                         "and the 1960s [1].", "gate": "No", "refine": "The Lakers won the finals 16 times [1]."}
    _, res = answer(EntailsAll(), replies, claim_words=0)
    assert [(s.text.split()[0], s.verdict) for s in res.stages[0].statements] == [("The", R.KEPT),
                                                                                   ("provides", R.DROPPED_FRAGMENT)]


def test_end_fill_is_the_questions_wording_with_another_documents_name_at_its_end():
    q = "The birthplace of George McCall Theal is a port city of what bay?"
    theal = ("George McCall Theal (11 April 1837, Saint John, New Brunswick - 17 April 1919, Wynberg, Cape Town), was "
             "the most prolific South African historian.")
    port = "The Port of Chittagong is the busiest seaport on the coastline of the Bay of Bengal."
    fundy = "Saint John is the port city of the Bay of Fundy in the Canadian province of New Brunswick."
    claim = "The birthplace of George McCall Theal is a port city of the Bay of Bengal."
    assert end_fill(claim, q, [theal, port]) == "the birthplace of george mccall theal is a port city of"
    # the name from a document about the question's subject is the model's answer, checked as usual; a document
    # saying the question's words in a row says the claim
    assert not end_fill(claim, q, [theal + " He was born in a port city of the Bay of Bengal."])
    assert not end_fill(claim, q, [port + " The birthplace of George McCall Theal is a port city of the Bay of Bengal."])
    # not the question's opening words, a long name, or a short question
    assert not end_fill("Theal was born in a port city of the Bay of Fundy.", q, [theal, fundy])
    assert not end_fill("The birthplace of George McCall Theal is a port city of the great northern bay that the "
                        "Bay of Bengal opens to.", q, [theal, port])
    assert not end_fill("Rush is a band from Canada.", "Rush is a band from what country?", ["Canada is a country."])


def test_a_stage_1_statement_filling_the_end_slot_is_dropped_before_its_check():
    from vericite.engine import records as R
    from vericite.engine.claims import without_template_fills
    from vericite.engine.verifier import answer_claims
    q = "The birthplace of George McCall Theal is a port city of what bay?"
    docs = [Document("George McCall Theal", "George McCall Theal (11 April 1837, Saint John, New Brunswick - 17 April "
                     "1919) was a South African historian."),
            Document("Port of Chittagong", "The Port of Chittagong is the busiest seaport on the Bay of Bengal.")]
    items = answer_claims(R.ANSWER, "The birthplace of George McCall Theal is a port city of the Bay of Bengal [1][2]. "
                          "George McCall Theal was born in Saint John [1].", docs, "en", final=False)
    notes: list[str] = []
    out = without_template_fills(items, q, notes)
    assert [getattr(x, "verdict", "claim") for x in out] == [R.DROPPED_TEMPLATE, "claim"]
    assert "template fill" in notes[0]


def test_a_run_of_names_states_nothing_and_stage_1_drops_it():
    from vericite.engine.records import Document
    from vericite.engine.text.content import names_only
    from vericite.engine.verifier import answer_claims

    assert names_only('"Yodel It! and "Shake It Off!') and names_only("Neil Peart and Geddy Lee of Rush")
    assert not names_only("Neil Peart drummed for Rush") and not names_only("Yes, Rush and Yes")
    assert not names_only("Rush Yes")  # fewer than three words: the fragment rules' (claims)
    docs = [Document("Yodel It!", '"Yodel It!" is a song. Its message is like "Shake It Off".')]
    out = answer_claims("answer", '"Yodel It! and "Shake It Off [1]! Yodel It! is a song [1].', docs, "en", final=False)
    assert len(out) == 2 and getattr(out[0], "verdict", None) == "dropped:not_a_statement"
    assert getattr(out[1], "verdict", None) != "dropped:not_a_statement"
