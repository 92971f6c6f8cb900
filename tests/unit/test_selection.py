"""Stage 3's answer step (engine/selection.py): the reply read, the answer's sentences composed, and
the pipeline with a scripted LLM and the word-containment checker."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from vericite.engine import draft as D
from vericite.engine import records as R
from vericite.engine import selection as SEL
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Statement
from vericite.engine.text.relations import asked, states

from tests.fakes import ScriptedLLM, WordChecker
from tests.unit.test_pipeline_rules import DOCS, Q


def fact(text: str, cites=(1,)) -> Statement:
    return Statement(R.EVIDENCE, text, tuple(cites), R.KEPT, 1.0, text)


VERIFIED = [
    fact("Neil Peart was the drummer of the rock band Rush.", (1,)),
    fact("Keith Moon was an English drummer of the rock band The Who.", (3,)),
    fact("Counterparts is a song by the Canadian rock band Rush, released in 1993.", (2,)),
    fact("Peart was inducted into the Modern Drummer Hall of Fame in 1983.", (1,)),
]


def test_the_reply_is_read_with_or_without_its_grammar():
    assert SEL.parse_selection("Answer: Rush\nSentences: S3, S1", 4) == SEL.Selection("Rush", (2, 0))
    assert SEL.parse_selection("answer: Rush.\nsentences: S3,S3, S9, s2", 4) == SEL.Selection("Rush.", (2, 1))
    assert SEL.parse_selection("**Ответ:** 2001\nПредложения: S2", 3) == SEL.Selection("2001", (1,))
    assert SEL.parse_selection("Rush released it [2].", 4) is None  # no answer line: the merge runs instead
    assert SEL.parse_selection("Answer: Rush\nSentences: " + ", ".join(f"S{k}" for k in range(1, 9)), 9).picks == (0, 1, 2)


def test_the_grammar_allows_only_existing_labels_longest_first():
    g = SEL.select_grammar(11, max_picks=3)
    assert 'root ::= "Sentences: " pick (", " pick){0,2} "\\nAnswer: " short' in g
    assert g.index('"S11"') < g.index('"S1"') and '"S12"' not in g
    with pytest.raises(ValueError):
        SEL.select_grammar(0)


def test_names_is_tolerant_of_case_articles_and_inflection():
    assert SEL.names("Rush", "Neil Peart was the drummer of the rock band Rush.")
    assert SEL.names("the Who", "Keith Moon was a drummer of The Who.")
    assert SEL.names("1983", "inducted in 1983")
    assert not SEL.names("Rush", "Keith Moon was a drummer of The Who.")
    assert not SEL.names("the", "the band")
    assert SEL.names("Яндекс Маркет", "Категория Яндекс Маркета появилась в 2001 году.", "ru")
    # a long answer needs two thirds of its words
    assert SEL.names("the Modern Drummer Hall of Fame", "the Modern Drummer Hall of Fame in 1983")
    assert not SEL.names("Modern Drummer Hall of Fame", "a Hall of legends")


def test_the_sentence_that_names_the_answer_goes_first_and_repeats_are_left_out():
    picked = SEL.compose(SEL.Selection("Rush", (3, 2, 0)), VERIFIED, Q)
    assert [s.text for s in picked.sentences] == [VERIFIED[2].text, VERIFIED[0].text, VERIFIED[3].text]
    assert picked.caveat is None and "'Rush' from S4, S3, S1 of 4 verified" in picked.notes[0]
    again = SEL.compose(SEL.Selection("Rush", (0, 4)), VERIFIED + [fact("Neil Peart was the drummer of Rush.", (2,))], Q)
    assert again.sentences == (VERIFIED[0],) and "1 picked sentence(s) repeat an earlier one" in again.notes[-1]


def test_a_sentence_the_others_repeat_is_left_out_after_ordering():
    short = fact("Valuair was acquired by Jetstar Asia Airways.")
    long = fact("Valuair was acquired by Jetstar Asia Airways, a low-cost airline based in Singapore.")
    picked = SEL.compose(SEL.Selection("Singapore", (0, 1)), [short, long], "Where is the airline that acquired Valuair based?")
    assert picked.sentences == (long,) and "left out 1 sentence(s) the others repeat" in picked.notes[-1]


def test_an_answer_no_pick_names_brings_the_sentence_that_does():
    picked = SEL.compose(SEL.Selection("Rush", (3,)), VERIFIED, Q)
    # the Rush sentence that links to the pick (Peart), then the Counterparts sentence tying Rush to the question
    # (tied_back)
    assert picked.sentences == (VERIFIED[0], VERIFIED[3], VERIFIED[2])
    assert picked.caveat is None and "no picked sentence names 'Rush'" in picked.notes[1]


def test_picks_that_share_no_name_with_the_answer_sentences_are_left_out():
    picked = SEL.compose(SEL.Selection("Rush", (2, 1, 3)), VERIFIED, Q)
    assert picked.sentences == (VERIFIED[2],)  # Moon and Peart: no name the Counterparts sentence has
    assert "left out 2 picked sentence(s) sharing no name" in picked.notes[-1]
    assert SEL.links(VERIFIED[3].text, VERIFIED[0].text, Q)  # "Peart" links the Hall of Fame fact to the answer
    assert not SEL.links(VERIFIED[3].text, VERIFIED[0].text, "When was Peart, a drummer, inducted?")  # the question's own name
    # a nationality both say is no link
    assert not SEL.links("Lady Alexandra Curzon married the American heiress Mary Leiter.",
                         "The Bye Bye Man is a 2017 American horror film.", "What 2017 film stars Douglas Smith?")


def test_an_answer_no_sentence_names_is_not_shown_as_found():
    picked = SEL.compose(SEL.Selection("Toto", (3,)), VERIFIED, Q)
    assert picked.sentences == (VERIFIED[3],) and picked.caveat.code == SEL.ANSWER_UNSUPPORTED
    assert "'Toto' is in no verified sentence" in picked.caveat.text


def test_stage_1s_opening_points_to_the_answer_when_the_models_answer_is_in_no_sentence():
    # the model names an answer no verified sentence holds; stage 1 (which read every document at
    # once) opened with the answer: the verified sentence that says most of what it says goes first,
    # then the model's picks that say more of that answer (Rush); a pick saying none of it (Keith
    # Moon of The Who) is a fact beside the answer and is left out
    opening = "The drummer inducted in 1983 was Neil Peart of Rush."
    picked = SEL.compose(SEL.Selection("Toto", (1, 2)), VERIFIED, "Which drummer was inducted in 1983?", opening=opening)
    assert picked.sentences == (VERIFIED[0], VERIFIED[2]) and picked.caveat is None
    assert any("closest to stage 1's opening" in n for n in picked.notes)
    assert any("left out 1 picked sentence(s)" in n for n in picked.notes)
    # a number alone ties no pick to that answer ("four-games-to-two" is not the opening's "uniform number 4")
    who = fact("The Who released the album Face Dances in 1983.", (3,))
    picked = SEL.compose(SEL.Selection("Toto", (4, 2)), [*VERIFIED, who], "Which drummer was inducted into a hall of fame?",
                         opening="The drummer inducted in 1983 was Neil Peart of Rush.")
    assert picked.sentences == (VERIFIED[0], VERIFIED[2])
    # an opening that says nothing beyond the question, or nothing any sentence says: as before
    assert SEL.anchored(VERIFIED, "Which drummer was inducted in 1983?", "The drummer was inducted in 1983.") is None
    assert SEL.anchored(VERIFIED, Q, "Toto sold records.") is None
    unsupported = SEL.compose(SEL.Selection("Toto", (3,)), VERIFIED, Q, opening="Toto sold records.")
    assert unsupported.caveat.code == SEL.ANSWER_UNSUPPORTED


def test_unknown_shows_the_picks_or_the_closest_sentences_with_a_caveat():
    picked = SEL.compose(SEL.Selection("unknown", ()), VERIFIED, Q)
    assert 1 <= len(picked.sentences) <= SEL.CLOSEST and picked.caveat.code == SEL.ANSWER_UNKNOWN
    assert SEL.compose(SEL.Selection("Unknown.", (1,)), VERIFIED, Q).sentences == (VERIFIED[1],)
    yes = SEL.compose(SEL.Selection("Yes", (0, 2)), VERIFIED, "Was Counterparts released by Rush?")
    assert yes.sentences == (VERIFIED[0], VERIFIED[2]) and yes.caveat is None


REPLIES = {
    "answer": "Rush released Counterparts [2]. Keith Moon drummed for The Who [3].",
    "gate": "Yes",
    "extract:1": "Neil Peart was the drummer of the rock band Rush.\nPeart was inducted into the Modern Drummer Hall of Fame in 1983.",
    "extract:2": "Counterparts is a song by the Canadian rock band Rush.",
    "extract:3": "Keith Moon was an English drummer.",
    "refine": "Rush is the band [1][2]. Keith Moon was an English drummer [3].",
}


class PickingLLM(ScriptedLLM):
    """A scripted LLM whose select reply names sentences by their opening words: "Answer: Rush\n
    Sentences: {Counterparts}, {Neil}" becomes the labels those sentences have in the prompt."""

    def chat(self, messages, *, max_tokens, purpose, grammar=None):
        call = super().chat(messages, max_tokens=max_tokens, purpose=purpose, grammar=grammar)
        if purpose != "select":
            return call
        labels = dict(re.findall(r"^(S\d+): (\S+)", messages[-1]["content"], re.M))
        by_word = {w: lab for lab, w in labels.items()}
        return replace(call, text=re.sub(r"\{(\S+?)\}", lambda m: by_word[m.group(1)], call.text))


def answer(replies, **settings):
    llm = PickingLLM(replies)
    pipe = VeriCite(llm, WordChecker(), prompts=PromptSet.load("facts-en-kv"), settings=Settings(claim_words=0, **settings))
    return llm, pipe.answer(Q, DOCS)


def test_the_answer_is_the_picked_verified_sentences_and_nothing_is_put_back():
    llm, res = answer({**REPLIES, "select": "Answer: Rush\nSentences: {Peart}, {Counterparts}, {Keith}"})
    assert [p for p, *_ in llm.calls][-1] == "select" and "refine" not in [p for p, *_ in llm.calls]
    assert res.answer == "Counterparts is a song by the Canadian rock band Rush [2]."  # S2, S4: no link to it
    llm, res = answer({**REPLIES, "select": "Answer: Rush\nSentences: {Peart}, {Counterparts}, {Neil}"})
    assert res.answer == ("Counterparts is a song by the Canadian rock band Rush [2]. Neil Peart was the drummer of "
                          "the rock band Rush [1]. Peart was inducted into the Modern Drummer Hall of Fame in 1983 [1].")
    assert all(s.verdict == R.SUPPORTED for s in res.final) and "Moon" not in res.answer
    prompt = llm.calls[-1][1][-1]["content"]
    assert re.search(r"^S\d: Counterparts is a song by the Canadian rock band Rush\.$", prompt, re.M) and "[2]" not in prompt
    assert "First answer (not checked): Rush released Counterparts. Keith Moon drummed for The Who." in prompt
    assert llm.calls[-1][2].startswith('root ::= "Sentences: "')
    assert not any("backbone" in n for n in res.stages[2].notes) and res.warnings == []


def test_an_unreadable_reply_or_refine_merge_runs_the_authors_merge():
    for replies, settings in (({**REPLIES, "select": "Rush [1]."}, {}), (dict(REPLIES), {"refine": "merge"})):
        llm, res = answer(replies, **settings)
        purposes = [p for p, *_ in llm.calls]
        assert "refine" in purposes and res.answer.startswith("Rush is the band [2].")
        assert ("select" in purposes) == (settings == {})


def test_an_unsupported_short_answer_is_said_in_a_warning():
    # stage 1 opened with nothing a verified sentence says: the picks stand, with the warning
    _, res = answer({**REPLIES, "answer": "Toto sold it [2].", "select": "Answer: Toto\nSentences: {Peart}"})
    assert res.answer == "Peart was inducted into the Modern Drummer Hall of Fame in 1983 [1]."
    assert any("'Toto' is in no verified sentence" in w for w in res.warnings)
    # stage 1 opened with the answer: the verified sentence that says it goes first, no warning
    _, res = answer({**REPLIES, "select": "Answer: Toto\nSentences: {Peart}"})
    assert res.answer.startswith("Rush released Counterparts [2].")  # a verified stage-1 sentence says it
    assert not any("'Toto' is in no verified sentence" in w for w in res.warnings)


def test_an_opening_pronoun_becomes_the_cited_documents_title():
    it = fact("It has 703 rooms and suites.", (2,))
    titles = ["Playboy Club", "Palms Casino Resort (Las Vegas)"]
    assert SEL.resolve_pronoun(it, titles).text == "Palms Casino Resort has 703 rooms and suites."
    assert SEL.resolve_pronoun(fact("His band was Rush.", (1,)), ["Neil Peart"]).text == "Neil Peart's band was Rush."
    assert SEL.resolve_pronoun(fact("Он родился в 1952 году.", (1,)), ["Нил Пирт"]).text == "Нил Пирт родился в 1952 году."
    assert SEL.resolve_pronoun(fact("Его группа Rush.", (1,)), ["Нил Пирт"]).text == "Его группа Rush."
    for unchanged in (fact("It has 703 rooms.", (1, 2)), fact("Italy has 703 rooms.", (2,)), fact("It has rooms.", (3,)),
                      fact("They came of the Yuezhi.", (2,))):  # a plural pronoun is not the document's title
        assert SEL.resolve_pronoun(unchanged, titles) is unchanged
    picked = SEL.compose(SEL.Selection("703", (0,)), [fact("It has 703 rooms and suites.", (2,))], "How many rooms?",
                         titles=titles)
    assert picked.sentences[0].text == "Palms Casino Resort has 703 rooms and suites." and "resolved" in picked.notes[-1]


def test_they_becomes_the_title_of_a_document_opening_with_it_as_a_plural():
    slade = "Slade are an English glam rock band from Wolverhampton. They rose to prominence during the early 1970s."
    they = fact("They rose to prominence during the early 1970s.", (1,))
    assert SEL.resolve_pronoun(they, ["Slade"], [slade]).text == "Slade rose to prominence during the early 1970s."
    assert SEL.resolve_pronoun(fact("Their first hit came in 1971.", (1,)), ["Slade"], [slade]).text == \
        "Slade's first hit came in 1971."
    # the document opens with its title as one ("Slade is ..."), or with someone else: "They" stays
    for text in ("Slade is an English glam rock band. They rose to prominence.", "Noddy Holder and Jim Lea wrote it."):
        assert SEL.resolve_pronoun(they, ["Slade"], [text]) is they
    # the second hop stated by the resolved sentence leads the answer
    q = 'When did the rock band that sang "All Join Hands" rise to prominence?'
    song = fact('"All Join Hands" is a song by the British rock band Slade, released in 1984.', (2,))
    quotes = [quote("Slade are an English glam rock band from Wolverhampton.", 1),
              quote("They rose to prominence during the early 1970s.", 1)]
    hop = SEL.next_hop(SEL.Picked((song,), ()), [], quotes, q, titles=["Slade", "All Join Hands"],
                       texts=[slade, song.text])
    assert [s.text for s in hop.sentences] == ["Slade rose to prominence during the early 1970s.", song.text]


def test_when_no_pick_passes_the_answer_is_a_few_verified_sentences_not_all():
    from vericite.engine import draft as D

    from tests.unit.test_stage3_rules import fake_facts

    verified = [fact(f"Peart drummed for Rush in show {k}.") for k in range(6)]
    # document_words off: the fake document does not hold these sentences, which would all show its one sentence
    f = fake_facts(bad_words=("Moon",), verified=verified, add_nothing=False, document_words=False)
    for picked, n in ((True, D.PICKED_FALLBACK), (False, 6)):
        d = D.strict(D.final_check(D.Draft.of("Moon drummed for Rush [1].", picked=picked), f), f)
        assert len(d.sentences) == n and [w.code for w in d.warnings] == [D.FINAL_NONE_PASSED]


def test_the_prompt_lists_the_sentences_most_relevant_first():
    out = SEL.ranked(VERIFIED, "Who was the drummer of Rush?", "Neil Peart was the drummer of Rush.")
    assert out[0] == VERIFIED[0] and sorted(map(id, out)) == sorted(map(id, VERIFIED))
    assert SEL.ranked(VERIFIED[:1], "q") == VERIFIED[:1]


def test_a_question_of_two_parts_keeps_the_pick_that_answers_the_second():
    launched = fact("Yandex Market was launched in 2000.", (1,))
    sells = fact("It sells electronics, clothes and books.", (2,))
    for q, kept in (("When was Yandex Market launched and which categories does it sell?", True),
                    ("When was Yandex Market launched?", False)):
        assert SEL.several_parts(q) == kept
        picked = SEL.compose(SEL.Selection("2000", (0, 1)), [launched, sells], q)
        assert (sells in picked.sentences) == kept
    assert SEL.several_parts("Когда запустили Яндекс Маркет и какие категории там есть?")
    assert not SEL.several_parts("Which band released Counterparts and had a drummer who was inducted?")
    assert SEL.several_parts("Who was born first, Erika Jayne or Marco Da Silva")
    assert SEL.several_parts("Кто старше, Нил Пирт или Кит Мун?")
    assert not SEL.several_parts("Was Counterparts released by Rush or by Toto?")  # no comma: one thing asked


def test_a_comparison_keeps_the_other_ones_sentence_after_stage_1s_answer():
    q = "Who was born first, Erika Jayne or Marco Da Silva?"
    marco = fact("Marco Da Silva was born on 10 April 1992.", (2,))
    erika = quote("Erika Jayne was born on July 10, 1971.", 1)
    edson = fact("Edson Aparecido da Silva was born in Villa Maria, Brazil.", (3,))
    picked = SEL.compose(SEL.Selection("Marco Da Silva", (0, 1)), [marco, edson], q,
                         titles=["Erika Jayne", "Marco Da Silva", "Edson Aparecido da Silva"],
                         opening="Erika Jayne was born first, on July 10, 1971.", quotes=[erika])
    assert picked.sentences == (erika, marco)  # not another Da Silva the question does not name


def test_the_film_is_the_documents_title_where_the_document_opens_calling_it_a_film():
    text = "The Bye Bye Man is a 2017 American horror film. The film stars Douglas Smith. The song is by Lana Del Rey."
    titles, texts = ["The Bye Bye Man"], [text]
    assert SEL.resolve_pronoun(fact("The film stars Douglas Smith."), titles, texts).text == \
        "The Bye Bye Man stars Douglas Smith."
    for unchanged in (fact("The song is by Lana Del Rey."), fact("The film stars Douglas Smith.", (1, 2)),
                      fact("The film Awake stars Douglas Smith."), fact("The American film stars Douglas Smith."),
                      fact("The film of the Bye Bye Man stars Douglas Smith.")):  # it names itself
        assert SEL.resolve_pronoun(unchanged, titles, texts) is unchanged
    # a band is a group: "The group" of a document opening "The Royal Teens was a ... band"
    teens = "The Royal Teens was a New Jersey rock and roll band. The group is best known for its single Short Shorts."
    assert SEL.resolve_pronoun(fact("The group is best known for its single Short Shorts."), ["The Royal Teens"],
                               [teens]).text == "The Royal Teens is best known for its single Short Shorts."
    label = "Motown is an American record label. The group is based in Detroit."
    group = fact("The group is based in Detroit.")
    assert SEL.resolve_pronoun(group, ["Motown"], [label]) is group  # a label is no group
    late = "The Bye Bye Man is a 2017 American horror. It was a film with Douglas Smith. The film stars Douglas Smith."
    assert SEL.resolve_pronoun(fact("The film stars Douglas Smith."), titles, [late]).text == "The film stars Douglas Smith."


def test_this_mixtape_is_the_documents_title_where_the_document_opens_calling_it_a_mixtape():
    # "This <noun>" names the subject as "The <noun>" does: the date sentence can lead an answer, read as its title
    text = ("Best Day Ever is the fifth mixtape by American rapper Mac Miller. This mixtape was released online March "
            "11, 2011. This week was busy.")
    titles, texts = ["Best Day Ever (mixtape)"], [text]
    released = fact("This mixtape was released online March 11, 2011.")
    assert SEL.resolve_pronoun(released, titles, texts).text == "Best Day Ever was released online March 11, 2011."
    week = fact("This week was busy.")  # not what the document opens calling its subject
    assert SEL.resolve_pronoun(week, titles, texts) is week
    album = "Best Day Ever is an album by Mac Miller. This mixtape was released online March 11, 2011."
    assert SEL.resolve_pronoun(released, titles, [album]) is released


def test_a_sentence_naming_the_answer_steps_answer_outranks_stage_1s_opening():
    # stage 1, unverified, answered "Gloucester, Massachusetts" off a rock formation's document; the answer step named
    # the World Film Corporation and the sentence saying where it was organized: that one leads, not the rock
    q = "What is the location of formation of the film company distributing The Boss?"
    opening = ("The location of the formation of the film company distributing The Boss is Gloucester, Massachusetts, "
               "United States.")
    world = fact("The World Film Corporation was organized in 1914 in Fort Lee, New Jersey.", (5,))
    boss = fact("The film company distributing The Boss is World Film Company.", (2,))
    rock = quote("Mother Ann is a rock formation located near the Eastern Point Lighthouse in Gloucester, "
                 "Massachusetts, United States.", 3)
    titles = ["The Fine Feathers", "The Boss (1915 film)", "Mother Ann (rock formation)", "Tathlina Lake",
              "World Film Company"]
    answer = "World Film Corporation, formed in 1914 in Fort Lee, New Jersey, United States."
    picked = SEL.compose(SEL.Selection(answer, (0,)), [world, boss], q, titles=titles, opening=opening,
                         quotes=[rock])
    assert picked.sentences[0] is world and rock not in picked.sentences
    # with no short answer from the answer step (a sentence, "unknown"), stage 1's opening leads as before
    for reply in ("The World Film Company distributed The Boss and was an American company.", "unknown"):
        led = SEL.compose(SEL.Selection(reply, (0,)), [world, boss], q, titles=titles, opening=opening, quotes=[rock])
        assert led.sentences[0] is rock
    assert SEL.named_answer(answer, q) == "World Film Corporation"
    # the sentence closest to stage 1's opening shares a word with the reply's name: it is about the same one, and
    # leads as before (the answer step named the MVP, a hop, for the position he plays)
    mvp_q = "What position did the winner of the MVP in Pool C of the 2017 WBC play?"
    mvp = fact("Manny Machado of the Dominican Republic was named MVP for the first-round Pool C bracket of the WBC.")
    position = quote("Manuel Arturo Machado (born July 6, 1992) is an American professional baseball third baseman and "
                     "shortstop for the Baltimore Orioles of Major League Baseball (MLB).", 5)
    led = SEL.compose(SEL.Selection("Manny Machado, shortstop, 2017 WBC", (0,)), [mvp], mvp_q,
                      titles=["2017 World Baseball Classic Pool C", "", "", "", "Manny Machado"],
                      opening="The winner of the MVP in Pool C of the 2017 WBC played as a shortstop.", quotes=[position])
    assert [s.text for s in led.sentences] == [position.text, mvp.text]
    assert SEL.named_answer("Billy Crystal", "How many top 20 albums has the singer had?") == ""  # a count asked
    assert SEL.named_answer("Mac Miller, March 11, 2011", "When did he release Best Day Ever?") == "March 11, 2011"
    assert SEL.named_answer("The Boss", q) == ""  # the question names it
    # a time asked anywhere wants a part with a digit, not the hop named first
    assert SEL.named_answer("Pima County, Arizona, United States", "What was the wettest year of the county?") == ""
    assert SEL.named_answer("Pima County, 1905", "What was the wettest year of the county?") == "1905"
    assert SEL.named_answer("Professor Jens Hjorth, head of the centre", "How is dust formed") == ""  # an explanation
    assert SEL.named_answer("Berlin, Germany", "In which city were the games held?") == "Berlin"


def test_a_title_that_is_not_a_name_is_not_put_for_a_pronoun():
    it = fact("It has 703 rooms and suites.", (1,))
    # the brief's example: the press release's "Он" is Yandex Market, and it never calls anything "Пресс-релиз"
    he = fact("Он предлагает бытовую технику, книги и игрушки.", (1,))
    release = "Маркет предлагает бытовую технику, книги и игрушки. В пресс-релизе также сообщается о новых пунктах."
    assert SEL.resolve_pronoun(he, ["Пресс-релиз"], [release]) is he
    assert SEL.resolve_pronoun(he, ["Маркет"], [release]).text.startswith("Маркет предлагает")
    assert SEL.resolve_pronoun(fact("He was a drummer.", (1,)), ["Neil Peart"],
                               ["Neil Ellwood Peart was a drummer. Peart wrote lyrics."]).text == "Neil Peart was a drummer."
    assert SEL.resolve_pronoun(it, ["Press release 2021"]) is it
    assert SEL.resolve_pronoun(it, ["Charles Carroll of Carrollton"]).text.startswith("Charles Carroll of Carrollton has")
    # a snippet that never names its subject: the checker reads the text, not the title, and would fail the name
    studied = fact("He studied physics at the Charles University in Prague.", (1,))
    snippet = "He studied physics at the Charles University in Prague. He became an assistant to Ernst Mach."
    assert SEL.resolve_pronoun(studied, ["Vinko Dvořák"], [snippet]) is studied
    # a title ending a sentence of its own ("What Would Jesus Buy?"): the answer split again would end there
    went = fact("It went into general U.S. release on November 16, 2007.", (1,))
    jesus = "What Would Jesus Buy? is a 2007 documentary film. It went into general U.S. release on November 16, 2007."
    assert SEL.resolve_pronoun(went, ["What Would Jesus Buy?"], [jesus]) is went
    assert SEL.resolve_pronoun(went, ["Super Size Me"], ["Super Size Me is a film. It went into release."]).text \
        .startswith("Super Size Me went")


def quote(text: str, doc: int) -> Statement:
    return Statement(R.REFINE, text, (doc,), R.KEPT, None, text)


HARRY_Q = "How many top 20 albums has the singer of the When Harry Met Sally soundtrack had?"
SOUNDTRACK = fact("The soundtrack to When Harry Met Sally was performed by Harry Connick Jr.", (1,))
CRYSTAL = fact("Billy Crystal starred in When Harry Met Sally.", (1,))
CONNICK = [quote("Harry Connick Jr. is an American singer.", 2), quote("He has had seven top 20 US albums.", 2)]
HARRY_TITLES = ["When Harry Met Sally (soundtrack)", "Harry Connick Jr."]


def test_stage_1s_answer_leads_from_a_document_sentence_then_the_sentence_tying_it_to_the_question():
    # no verified sentence says "seven" (stage 1 said it, over two documents, unverified); the model
    # picked a fact beside the answer: the document sentence that says it is quoted first (readers
    # want the answer early), its pronoun resolved, then the verified sentence tying its subject to the question
    opening = "The singer of the soundtrack has had seven top 20 US albums."
    picked = SEL.compose(SEL.Selection("Billy Crystal", (1,)), [SOUNDTRACK, CRYSTAL], HARRY_Q, titles=HARRY_TITLES,
                         opening=opening, quotes=CONNICK)
    assert [s.text for s in picked.sentences] == ["Harry Connick Jr. has had seven top 20 US albums.", SOUNDTRACK.text]
    assert picked.caveat is None and any("stage 1's opening" in n for n in picked.notes)
    # no other document ties it: its own document's sentence that shares words with the question does
    alone = SEL.compose(SEL.Selection("Billy Crystal", (0,)), [CRYSTAL], HARRY_Q, titles=HARRY_TITLES,
                        opening=opening, quotes=CONNICK)
    assert [s.text for s in alone.sentences] == ["Harry Connick Jr. has had seven top 20 US albums.", CONNICK[0].text]
    # nothing ties it: the answer sentence alone
    alone = SEL.compose(SEL.Selection("Billy Crystal", (0,)), [CRYSTAL], HARRY_Q, titles=HARRY_TITLES,
                        opening=opening, quotes=CONNICK[1:])
    assert [s.text for s in alone.sentences] == ["Harry Connick Jr. has had seven top 20 US albums."]
    # a sentence sharing only a first name with the answer and naming nothing the question names ties nothing
    q = "Who was the father of the person who issued the Tamworth manifesto?"
    peel = quote("Peel was the second son of Sir Robert Peel, 1st Baronet, and his first wife Ellen.", 5)
    kagan = quote("Frederick along with his brother Robert Kagan and their father Donald are signatories to the "
                  "manifesto titled Rebuilding America's Defenses.", 1)
    picked = SEL.compose(SEL.Selection("Abdolali Bazargan", (0,)), [fact("The manifesto was issued by Bazargan.")], q,
                         opening="William Yates Peel was the father of the person who issued the Tamworth Manifesto, "
                                 "Sir Robert Peel, 1st Baronet.", quotes=[peel, kagan], titles=["Kagan", "", "", "", "Peel"])
    assert [s.text for s in picked.sentences] == [peel.text]


def test_a_lead_naming_part_of_the_question_is_tied_by_a_strong_link_only():
    q = "Martin Patterson Hingle was a close friend of an actor who achieved success in what Western TV series?"
    opening = "Hingle was a close friend of an actor who achieved success in the Western TV series Rawhide."
    head = quote("After achieving success in the Western TV series Rawhide, he rose to international fame.", 2)
    friend = quote("Hingle was a close friend of Clint Eastwood and appeared in the Eastwood films.", 1)
    weak = quote("Hingle was a close friend of Eastwood Park's actor Bob Lee.", 3)
    for titles, tied in ((["Pat Hingle", "Clint Eastwood", "Eastwood Park"], True),
                         (["Pat Hingle", "Rawhide (TV series)", "Eastwood Park"], False)):
        picked = SEL.compose(SEL.Selection("Rawhide", (0,)), [fact("Hingle appeared in hundreds of shows.")], q,
                             titles=titles, opening=opening, quotes=[head, weak, friend])
        assert [s.text for s in picked.sentences] == [head.text, friend.text][:1 + tied]
    # the head's own document's copy of the head is no tie; another of its sentences is
    same = quote("Clint Eastwood, {'1': ''} rose to international fame after his success, a close friend of Hingle.", 2)
    picked = SEL.compose(SEL.Selection("Rawhide", (0,)), [fact("Hingle appeared in hundreds of shows.")], q,
                         titles=["Pat Hingle", "Clint Eastwood"], opening=opening, quotes=[head, same])
    assert [s.text for s in picked.sentences] == [head.text]
    other = quote("Clint Eastwood was a close friend of Hingle.", 2)
    picked = SEL.compose(SEL.Selection("Rawhide", (0,)), [fact("Hingle appeared in hundreds of shows.")], q,
                         titles=["Pat Hingle", "Clint Eastwood"], opening=opening, quotes=[head, same, other])
    assert [s.text for s in picked.sentences] == [head.text, other.text]

    # stage 1's statement saying the relation stays before its tie, though the tie names all its words
    q = "Which baseball player and National Baseball Hall of Fame inductee is featured in the Greatest Sports Legends?"
    featured = Statement(R.ANSWER, "Reggie Jackson is featured in the Greatest Sports Legends anthology.", (1,), R.KEPT,
                         1.0, "")
    career = quote("Reginald Martinez Reggie Jackson is a former baseball player of Major League Baseball anthology.", 2)
    picked = SEL.compose(SEL.Selection("Reggie Jackson", (0,)), [fact("Reggie Jackson was born in 1946.", (2,)), featured],
                         q, titles=["Greatest Sports Legends", "Reggie Jackson"], quotes=[career],
                         opening="Reggie Jackson is featured in the Greatest Sports Legends anthology.")
    assert picked.sentences == (featured, career)


def test_a_tie_from_the_heads_own_document_may_repeat_the_name_the_head_opens_with():
    # the head's three-word name is not "what it says": the Hall of Fame sentence says something else of him
    q = ('Which Canadian rock band released a song called "Counterparts" and had a drummer who was inducted into the '
         'Modern Drummer Hall of Fame?')
    rush = fact("Neil Ellwood Peart is the drummer and primary lyricist for the rock band Rush.", (5,))
    hall = fact('Neil Ellwood Peart received an induction into the "Modern Drummer" Hall of Fame in 1983.', (5,))
    moon = fact('Keith Moon was inducted into the "Modern Drummer" Hall of Fame in 1982.', (2,))
    opening_1 = ('Neil Peart, the drummer of the rock band Rush, released a song called "Counterparts" and had a drummer '
               'who was inducted into the Modern Drummer Hall of Fame.')
    picked = SEL.compose(SEL.Selection("Neil Ellwood Peart", (1, 2)), [rush, hall, moon], q,
                         titles=["Keith Moon", "", "", "", "Neil Peart"], opening=opening_1)
    assert [s.text for s in picked.sentences] == [rush.text, hall.text]


def test_a_first_pick_saying_stage_1s_answer_is_followed_by_its_tie_to_the_name_it_leaves_out():
    # the model picked the bridge sentence ("... mixture of Picric acid ..."), which says stage 1's answer but
    # not the formula the question names: the verified sentence naming the formula and the bridge follows it
    q = "Which component of shellite has the formula (ON)CHOH?"
    opening = "The component of shellite that has the formula (ON)CHOH is picric acid."
    mixture = fact("Shellite is an explosive mixture of Picric acid and Dinitrophenol.", (2,))
    formula = fact("Picric acid is an organic compound with the formula (ON)CHOH.", (3,))
    xylitol = fact("Xylitol has the formula CHOH(CHOH)CHOH.", (4,))
    picked = SEL.compose(SEL.Selection("picric acid", (0,)), [mixture, xylitol, formula], q, opening=opening,
                         titles=["", "Shellite", "Picric acid", "Xylitol"])
    assert picked.sentences == (mixture, formula)
    assert any("leaves out ['CHOH']" in n for n in picked.notes)
    # a sentence naming the formula but sharing no name with the first pick ties nothing: the pick stands alone
    picked = SEL.compose(SEL.Selection("picric acid", (0,)), [mixture, xylitol], q, opening=opening,
                         titles=["", "Shellite", "Picric acid", "Xylitol"])
    assert picked.sentences == (mixture,)
    # another pick saying more stays out: a third fact beside the answer and its tie reads as unrelated
    made = fact("Dinitrophenol is a yellow solid used in explosives since 1900.", (5,))
    picked = SEL.compose(SEL.Selection("picric acid", (0, 2)), [mixture, xylitol, made, formula], q, opening=opening,
                         titles=["", "Shellite", "Picric acid", "Xylitol"])
    assert picked.sentences == (mixture, formula)


def test_a_document_sentence_opening_with_a_pronoun_that_stays_never_leads_the_answer():
    # "His record ..." of a list article (a title that is no name) tied "Lionel Messi" to the question
    # and opened the answer, pointing at nobody; a pronoun its title resolves may still lead
    q = "Who has the highest goals in world football?"
    opening = "Lionel Messi has the highest goals in world football."
    titles = ["Pelé", "Godfrey Chitalu", "list of top international goalscorers"]
    messi = quote("FIFA would ratify neither Lionel Messi's nor Chitalu's records.", 2)
    his = quote("His record was broken by Roda Antar after his 20th goal in a FIFA World Cup qualifier.", 3)
    picked = SEL.compose(SEL.Selection("Lionel Messi", (0,)), [fact("Pelé scored 1281 goals.")], q, titles=titles,
                         opening=opening, quotes=[messi, his])
    assert [s.text for s in picked.sentences] == [messi.text]
    named = SEL.compose(SEL.Selection("Lionel Messi", (0,)), [fact("Pelé scored 1281 goals.")], q,
                        titles=[*titles[:2], "Wartan Ghazarian"], opening=opening, quotes=[messi, his],
                        texts=["", "", "Wartan Ghazarian scored. His record was broken by Roda Antar."])
    assert [s.text for s in named.sentences][0] == messi.text
    assert [s.text for s in named.sentences][1].startswith("Wartan Ghazarian's record was broken")


def test_stage_1s_ordinal_finds_the_documents_number_word_and_a_they_comma_never_leads():
    # stage 1 says "3rd largest", the document "third-largest"; the document's next sentence, "They, along
    # with ...", shares stage 1's names but points at nobody: the third-largest sentence leads, tied to the
    # question by the sentence naming where Golitzen died
    q = ("Where does the city where Alexander Golitzen died rank in the top five largest urban areas of the state "
         "where the band that Jacoby Shaddix is a member of formed?")
    opening = ("Alexander Golitzen died in San Diego, which ranks 3rd largest in the top five largest urban areas of "
               "the state where the band that Jacoby Shaddix is a member of formed.")
    third = quote("The urban area of San Diego extends beyond the city limits and had a population of 2,956,746, "
                  "making it the third-largest urban area in the state, after that of the Los Angeles metropolitan area.", 3)
    they = quote("They, along with the Riverside–San Bernardino, form those metropolitan areas in California larger "
                 "than the San Diego metropolitan area.", 3)
    died = fact("Prince Alexander Golitzen (Moscow, February 28, 1908 – San Diego, July 26, 2005) was a Russian-born "
                "American production designer.", (5,))
    band = fact("The band that Jacoby Shaddix is a member of formed in Vacaville, California.", (2,))
    titles = ["Tennessee", "Papa Roach", "San Diego", "Jacoby Shaddix", "Alexander Golitzen"]
    picked = SEL.compose(SEL.Selection("Vacaville, California", (0,)), [band, died], q, titles=titles,
                         opening=opening, quotes=[they, third])
    assert picked.sentences == (third, died)
    assert SEL.dangling(they.text) and SEL.dangling("It, too, was built in 1900.") and not SEL.dangling("Theyre here.")
    assert SEL.dangling("And it is a testimonial of unique quality of church architecture in Berlin.")
    assert not SEL.dangling("And Then There Were None is a novel.") and not SEL.dangling("Andit is here.")
    # a linking adverb before "the" and a noun, or a pronoun, leans on the sentence before
    assert SEL.dangling("Specifically, the book describes the author's conversion to Christianity.")
    assert SEL.dangling("However, he lost the final.") and SEL.dangling("In addition, their album sold well.")
    assert not SEL.dangling("However, Marco Fu won the final.") and not SEL.dangling("Specifically, Lewis wrote it.")
    # without the number word's sentence, the dangling one still never leads
    picked = SEL.compose(SEL.Selection("Vacaville, California", (0,)), [band, died], q, titles=titles,
                         opening=opening, quotes=[they])
    assert they not in picked.sentences


def test_a_lead_reaching_none_of_the_questions_names_is_followed_by_its_hop_toward_them():
    # the head names neither Eritrea nor anything else of the question, and no sentence names Eritrea: the
    # sentence of another document naming the head's "Islam" and saying two words of the question follows
    q = ("What percentage of Eritrea is estimated to adhere to the religion widely practiced in the region that the "
         "tentacled snake is native to?")
    opening = "According to recent estimates, 50% of the population adheres to Christianity, Islam 48%."
    head = quote("According to recent estimates, 50% of the population adheres to Christianity, Islam 48%, while 2% "
                 "follow other religions.", 5)
    islam = fact("Islam is the most widely practised religion in Southeast Asia, with 240 million adherents.", (4,))
    snake = fact("The tentacled snake is native to South-East Asia.", (1,))
    titles = ["Tentacled snake", "Guam", "Buddhism by country", "Southeast Asia", "Eritrea"]
    picked = SEL.compose(SEL.Selection("unknown", (0,)), [snake, islam], q, titles=titles, opening=opening,
                         quotes=[head])
    assert picked.sentences == (head, islam)
    # without the name in common nothing follows ("Robert" of "Sir Robert Peel" is no hop either: the test above)
    other = fact("Buddhism is the most widely practised religion in Thailand, with many adherents.", (3,))
    picked = SEL.compose(SEL.Selection("unknown", (0,)), [snake, other], q, titles=titles, opening=opening,
                         quotes=[head])
    assert picked.sentences == (head,)


def test_a_verified_sentence_is_weighed_against_stage_1s_answer_as_shown_with_its_subject_resolved():
    # "The city is located in Richland County" is Forest Acres' (its document opens "Forest Acres is a city"):
    # resolved, it says as much of stage 1's answer as the radio station's sentence and, verified, stays first
    q = ("In what county is located the city that shares a border with the capital of the state that won the 2017 "
         "NCAA Basketball Tournament?")
    opening = ("The city that shares a border with the capital of the state that won the 2017 NCAA Basketball "
               "Tournament is Forest Acres, South Carolina.")
    city = Statement(R.ANSWER, "The city is located in Richland County, South Carolina, United States.", (3,), R.KEPT,
                     1.0, "")
    capital = fact("The capital of South Carolina is Columbia.", (3,))
    radio = quote("WWNQ is a radio station licensed to Forest Acres, South Carolina, serving the Columbia, South "
                  "Carolina market.", 5)
    titles = ["2017 NCAA Tournament", "States of Nigeria", "Forest Acres, South Carolina", "Charleston", "WWNQ"]
    texts = ["", "", "Forest Acres is a city in Richland County, South Carolina, United States. The population was "
                     "10,361.", "", radio.text]
    picked = SEL.compose(SEL.Selection("South Carolina", (0, 1)), [city, capital], q, titles=titles, opening=opening,
                         quotes=[radio], texts=texts)
    assert picked.sentences[0].text == ("Forest Acres, South Carolina is located in Richland County, South Carolina, "
                                        "United States.")


def test_a_sentence_opening_with_a_pronoun_follows_its_documents_sentence_naming_the_subject():
    q = "Is the Virgilia found in Africa?"
    they = fact("They are valued as ornamental trees by gardeners.", (2,))
    genus = fact("Virgilia is a genus of Southern African trees.", (2,))
    other = fact("Koeleria is a genus of grasses.", (1,))
    picked = SEL.compose(SEL.Selection("yes", (0, 1, 2)), [they, other, genus], q, titles=["Koeleria", "Virgilia"])
    assert [s.text for s in picked.sentences] == [genus.text, they.text, other.text]
    assert SEL.antecedents_first([they, other, genus]) == [genus, they, other]
    assert SEL.antecedents_first([genus, other, they]) == [genus, other, they]   # named before: unchanged
    assert SEL.antecedents_first([they, other]) == [they, other]                 # nothing names it: unchanged


def test_the_picks_stand_when_they_already_say_stage_1s_answer_or_stage_1_says_nothing_new():
    said = fact("Harry Connick Jr. has had seven top 20 US albums.", (2,))
    for sel, verified, opening in ((SEL.Selection("seven", (0,)), [said, SOUNDTRACK], "He has had seven top 20 albums."),
                                   (SEL.Selection("Billy Crystal", (1,)), [SOUNDTRACK, CRYSTAL],
                                    "The singer of the soundtrack had top 20 albums."),
                                   (SEL.Selection("Billy Crystal", (1,)), [SOUNDTRACK, CRYSTAL], "Toto sold records.")):
        plain = SEL.compose(sel, verified, HARRY_Q, titles=HARRY_TITLES, opening=opening)
        assert SEL.compose(sel, verified, HARRY_Q, titles=HARRY_TITLES, opening=opening, quotes=CONNICK) == plain


def test_a_quoted_document_sentence_passes_the_final_check_and_adds_nothing():
    # stage 1's answer (1983) is in no verified fact, the model found none: the document's sentence
    # is the answer, checked like any final sentence, and not failed as "new words" by add_nothing
    replies = {**REPLIES, "answer": "The drummer of Rush was inducted in 1983 [2].",
               "extract:1": "Neil Peart was a Canadian musician.", "select": "Answer: unknown\nSentences: {Neil}"}
    llm = PickingLLM(replies)
    pipe = VeriCite(llm, WordChecker(), prompts=PromptSet.load("facts-en-kv"), settings=Settings(claim_words=0))
    res = pipe.answer("In which year was the drummer of Rush inducted into the Modern Drummer Hall of Fame?", DOCS)
    # then the sentence tying it to the question's Rush, from the same document (it repeats only his name)
    assert res.answer == ("Peart was inducted into the Modern Drummer Hall of Fame in 1983 [1]. "
                          "Neil Peart was the drummer of the rock band Rush [1].")
    assert [s.verdict for s in res.final] == [R.SUPPORTED] * 2 and res.warnings == []


def test_a_comparison_or_yes_no_answer_opens_with_its_short_answer_checked_as_a_claim():
    from vericite.engine.records import Document

    q = "Who was born first, Erika Jayne or Marco Da Silva?"
    replies = {"answer": "Erika Jayne was born earlier [1].", "gate": "Yes",
               "extract:1": "Erika Jayne was born on July 10, 1971.", "extract:2": "Marco Da Silva was born on 10 April 1992.",
               "select": "Sentences: {Marco}, {Erika}\nAnswer: Erika Jayne", "claim": "Erika Jayne was born first."}
    both = "Erika Jayne was born on July 10, 1971 [1]. Marco Da Silva was born on 10 April 1992 [2]."
    marco = "Marco Da Silva was born on 10 April 1992."
    for first, second, opening in (("first of her family", marco, "Erika Jayne was born first [1, 2]. "),
                                   ("in Atlanta", marco, "Erika Jayne was born first [1, 2]. "),
                                   ("in Atlanta", "Marco Da Silva was born in Paris.", "")):
        docs = [Document("Erika Jayne", f"Erika Jayne was born on July 10, 1971, {first}."),
                Document("Marco Da Silva", second)]
        llm = PickingLLM({**replies, "extract:2": second})
        res = VeriCite(llm, WordChecker(), prompts=PromptSet.load("facts-en-kv")).answer(q, docs)
        # the short answer, cited with the sentences shown ([1][2]), is rewritten with the question and
        # checked (document 1 alone "carries" it in the first case, "first of her family": the check removes
        # [2], and the dates of both, which carry it, cite it again); a claim they do not carry passes when
        # the dates of the answer's sentences say it (a checker of sentence pairs cannot compare two
        # documents' dates), else it is removed like any final sentence
        assert res.answer == opening + (both if second == marco else
                                        "Erika Jayne was born on July 10, 1971 [1]. Marco Da Silva was born in Paris [2].")
        assert "claim:refine" in [p for p, *_ in llm.calls]
        assert any("compared: " in n for n in res.stages[-1].notes) == bool(opening)
    yes = SEL.Selection("Yes, both are.", ())
    assert SEL.conclusion(yes, "Are Rush and Toto both bands?") == "Yes"
    assert SEL.conclusion(yes, "Which bands are both Canadian?") == ""  # not a yes/no question
    assert SEL.conclusion(SEL.Selection("Rush", ()), "Which is older, Rush or Toto?") == "Rush"
    assert SEL.conclusion(SEL.Selection("both", ()), "Which is older, Rush or Toto?", "Toto is older than Rush.") == ""
    assert SEL.conclusion(SEL.Selection("Rush", ()), "Who drummed for Rush?") == ""


KNIGHT_Q = "Who was married to the creator of Ruby Loftus Screwing a Breech Ring?"
LOFTUS = fact("Ruby Loftus Screwing a Breech Ring is a 1943 painting by Laura Knight.", (1,))
KNIGHT = [quote("Laura Knight was an English artist.", 2), quote("She married Harold Knight in 1903.", 2),
          quote("Harold Knight was a portrait painter.", 3)]


def test_an_answer_that_stops_at_the_first_hop_is_led_by_the_second():
    # the picks name the painter (the one the question describes) and stop: the document sentence
    # naming her and stating the relation asked ("married") leads, its pronoun resolved, the first hop follows
    titles = ["Ruby Loftus Screwing a Breech Ring", "Laura Knight", "Harold Knight"]
    picked = SEL.compose(SEL.Selection("Laura Knight", (0,)), [LOFTUS], KNIGHT_Q, titles=titles, quotes=KNIGHT)
    assert [s.text for s in picked.sentences] == ["Laura Knight married Harold Knight in 1903.", LOFTUS.text]
    assert any("stops at the first hop" in n for n in picked.notes)
    # no sentence names her and states the relation, or the first sentence states it already: unchanged
    alone = SEL.compose(SEL.Selection("Laura Knight", (0,)), [LOFTUS], KNIGHT_Q, titles=titles, quotes=KNIGHT[::2])
    assert alone.sentences == (LOFTUS,)
    wed = fact("Harold Knight married the creator of Ruby Loftus Screwing a Breech Ring, Laura Knight.", (3,))
    assert SEL.next_hop(SEL.Picked((wed,), ()), [], KNIGHT, KNIGHT_Q, titles=titles).sentences == (wed,)
    # a first sentence about someone the question does not name is no first hop; a comparison or
    # yes/no question, or a question asking no relation the table knows, is left alone
    other = fact("Harold Knight was a portrait painter.", (3,))
    assert SEL.next_hop(SEL.Picked((other,), ()), [], KNIGHT, KNIGHT_Q, titles=titles).sentences == (other,)
    # the first hop may follow a picked sentence that names no one new; a relation of something the
    # question names ("president of India") is not asked of the one it describes
    commissioned = fact("The painting Ruby Loftus Screwing a Breech Ring was commissioned in 1942.", (1,))
    later = SEL.next_hop(SEL.Picked((commissioned, LOFTUS), ()), [], KNIGHT, KNIGHT_Q, titles=titles)
    assert [s.text for s in later.sentences] == ["Laura Knight married Harold Knight in 1903.", LOFTUS.text]
    karve = fact("Raghunath was the eldest son of Bharat Ratna Dhondo Keshav Karve.", (1,))
    ratna = quote("The Bharat Ratna was awarded to former South African President Nelson Mandela.", 2)
    q = "Who was honored with the award Dhondo Keshav Karve received prior to becoming president of India?"
    assert SEL.next_hop(SEL.Picked((karve,), ()), [], [ratna], q).sentences == (karve,)
    # a sentence stating the relation of the question's own subject is no second hop; the one of the
    # organisation the first hop introduces is
    q = "Who is the president of the organization that Avery Brundage is a member of?"
    member = fact("Avery Brundage is a member of the International Olympic Committee (IOC).", (1,))
    own = quote("Avery Brundage was the fifth President of the International Olympic Committee (IOC).", 1)
    bach = fact("The president of the International Olympic Committee is Thomas Bach.", (2,))
    assert SEL.next_hop(SEL.Picked((member,), ()), [], [own], q).sentences == (member,)
    assert SEL.next_hop(SEL.Picked((member,), ()), [bach], [own], q).sentences == (bach, member)
    # a deputy's office ("Vice-President of the International Olympic Committee") states no president: the head
    # stating it of the question's own subject does not keep the picks as they are
    kim = fact("Kim Un-yong was a South Korean sports administrator, Vice-President of the International Olympic "
               "Committee.", (1,))
    q = "Who is the president of the group Kim Un-yong is a member of?"
    assert SEL.next_hop(SEL.Picked((kim,), ()), [bach], [], q).sentences == (bach, kim)
    assert not states(kim.text, asked(q)) and states("He was vice president, then president of it.", asked(q))
    # a first hop whose new names lead nowhere gives way to a later pick naming the question's names and new ones
    q = "Who is the writer for an American teen sitcom created by Kim Bass for Nickelodeon?"
    work = fact('Kim Bass\'s television work includes creating "Sister, Sister" and writing on "In Living Color".', (1,))
    kenan = fact("Kenan & Kel is an American teen sitcom created by Kim Bass for Nickelodeon.", (2,))
    conley = fact('The writer for "Kenan & Kel" is Wayne Conley.', (5,))
    assert SEL.next_hop(SEL.Picked((work, kenan), ()), [conley], [], q).sentences == (conley, kenan)
    assert SEL.next_hop(SEL.Picked((work, kenan), ()), [], [], q).sentences == (work, kenan)
    # a new name that is a word too ("Football" of "the Canadian Football League") is not named by "a football team"
    q = "Wade Watts is the uncle of a politican who played college footbal for which team ?"  # HotpotQA's spelling
    watts = fact("Watts Jr. is an American politician from Oklahoma who was a college football quarterback for the "
                 "Oklahoma Sooners and later played professionally in the Canadian Football League.", (2,))
    captain = quote("John Herrnstein was the captain of the 1958 Michigan Wolverines football team.", 1)
    father = quote("John Herrnstein's father William Herrnstein, Jr., played for the team from 1923 to 1925.", 1)
    texts = ["John Herrnstein played college football for the University of Michigan. He was its captain.", "..."]
    assert SEL.next_hop(SEL.Picked((watts,), ()), [], [captain], q, titles=["John Herrnstein", "Wade Watts"],
                        texts=texts).sentences == (watts,)
    # nor is "Jr." a name two sentences share
    assert SEL.next_hop(SEL.Picked((watts,), ()), [], [father], q).sentences == (watts,)
    assert asked(q)
    # the new name holding a name of the question ("Ernst Mach" for "Mach number") still leads to its hop
    q = "Who is the employer of the physicist who Mach number is named after?"
    mach = fact("The physicist who Mach number is named after is Ernst Mach.", (2,))
    dvorak = quote("He studied physics at the Charles University in Prague, and after graduating he became an "
                   "assistant to professor Ernst Mach.", 3)
    hop = SEL.next_hop(SEL.Picked((mach,), ()), [], [dvorak], q, titles=["Psycho", "Mach number", "Vinko Dvořák"])
    assert [s.text for s in hop.sentences] == ["Vinko Dvořák studied physics at the Charles University in Prague, and "
                                               "after graduating he became an assistant to professor Ernst Mach.",
                                               mach.text]
    # a birth asked: a biography's life span states it without the word "born"
    q = "Three Men on a Horse is a play by a playwright born in which year ?"
    play = fact("The play Three Men on a Horse was written by George Abbott and John Cecil Holm.", (1,))
    abbott = quote("George Abbott (June 25, 1887 – January 31, 1995) was an American theatre producer and director.", 2)
    assert SEL.next_hop(SEL.Picked((play,), ()), [], [abbott], q).sentences == (abbott, play)
    assert states(abbott.text, asked("In what year was the death of the playwright of Three Men on a Horse?"))
    assert not states("George Abbott was an American theatre producer.", asked(q))
    # a copy that lost the span's dash: the death's full date closes the bracket
    for span in ("(December 29, 1808 July 31, 1875)", "(29 December 1808 31 July 1875)"):
        assert states(f"Andrew Johnson {span} was the 17th President.", asked(q))
        assert states(f"Andrew Johnson {span} was the 17th President.", asked("When did Andrew Johnson die?"))
    assert not states("The album (released June 2, 1998 and reissued May 3, 2001) sold well.", asked(q))
    assert not states("Andrew Johnson (December 29, 1808) was the 17th President.", asked("When did he die?"))
    assert not asked("Кто муж актрисы, сыгравшей Тельму?", "ru")  # English only
    # a population or a seat asked: the town or the company the first hop names, then its figure or its seat
    q = "What is the population of the town at the intersection of Interstate Highways 77 and 81?"
    town = fact("The town at the intersection of Interstate Highways 77 and 81 is Wytheville, Virginia.", (1,))
    count = quote("Wytheville had a population of 8,211 at the 2010 census.", 1)
    assert SEL.next_hop(SEL.Picked((town,), ()), [], [count], q).sentences == (count, town)
    # a relation the table lacks: the noun the question asks for ("enrollment"), stated by the hop's sentence
    q = "What is the enrollment at the school that owns the Miami Hurricane?"
    paper = fact("The Miami Hurricane is the official student newspaper at the University of Miami.", (4,))
    enrolled = quote("The University of Miami had an enrollment of 16,801 undergraduate students in 2016.", 2)
    assert SEL.next_hop(SEL.Picked((paper,), ()), [], [enrolled], q).sentences == (enrolled, paper)
    assert not asked("What was the nickname of Anthony Corallo, boss of the Lucchese family?")  # asked of a name
    # the kind a "Which county does ...?" asks for is the relation, the birthplace the question names a hop to it;
    # a kind of time keeps the relation named ("What year did ... die?": the death)
    q = "Which county does Lloyd Dane's birthplace belong to?"
    driver = fact("Lloyd Dane (August 19, 1925 - December 11, 2015) was a NASCAR driver from Eldon, Missouri.", (1,))
    county = quote("Eldon is a city in Miller County, Missouri, United States.", 5)
    assert SEL.next_hop(SEL.Picked((driver,), ()), [], [county], q).sentences == (county, driver)
    assert states("Abbott died in 1995.", asked("What year did the playwright of Three Men on a Horse die?"))
    # a question about what two things share asks no hop
    q = "What pursuit did both Gevork Minaskanian and George Stambolian have in common?"
    chemist = fact("Gevork Minaskanian was a research professor at Virginia Commonwealth University.", (3,))
    play = quote("The Common Pursuit is a play about undergraduates at Cambridge University.", 1)
    assert SEL.next_hop(SEL.Picked((chemist,), ()), [], [play], q).sentences == (chemist,)
    # a sentence of the new one's own document states it without naming it
    q = "What was the population density of Tammy Leitner's city of birth in 2009?"
    born = fact("Tamara Leitner (born July 3, 1972 in San Diego, California) is an investigative TV reporter.", (2,))
    density = quote("The population density was 3,771.9 people per square mile (1,456.4/km2).", 5)
    titles = ["Seattle", "Tammy Leitner", "New York City", "Leitner system", "San Diego"]
    assert SEL.next_hop(SEL.Picked((born,), ()), [], [density], q, titles=titles).sentences == (density, born)
    # of two stating the population, the one saying what is asked ("population density"), not the one sharing more
    # of the question's other words
    count = quote("The estimated city population in 2009 was 1,306,300.", 5)
    assert SEL.next_hop(SEL.Picked((born,), ()), [], [count, density], q, titles=titles).sentences == (density, born)
    assert SEL.next_hop(SEL.Picked((born,), ()), [], [density], q, titles=titles[:4] + ["Seattle"]).sentences == (born,)
    q = "Where is the company that owns the Hungry Horse pub chain based?"
    owner = fact("The company that owns the Hungry Horse pub chain is Greene King.", (4,))
    seat = quote("Greene King is a brewer headquartered in Bury St Edmunds, Suffolk.", 2)
    assert SEL.next_hop(SEL.Picked((owner,), ()), [], [seat], q).sentences == (seat, owner)
    for q in ("Was the creator of Ruby Loftus Screwing a Breech Ring married?",
              "When was Ruby Loftus Screwing a Breech Ring painted?"):
        assert SEL.next_hop(SEL.Picked((LOFTUS,), ()), [], KNIGHT, q, titles=titles).sentences == (LOFTUS,)


def test_a_sentence_another_says_three_quarters_of_is_a_repeat():
    q = "How many campuses are there in the institution that Desert Studies Center is a part of?"
    part = quote("The Desert Studies Center is a part of the California Desert Studies Consortium, which consists of "
                 "7 CSU campuses: Dominguez Hills, Fullerton, Long Beach and Cal Poly Pomona.", 1)
    again = quote("Desert Studies Center is officially operated by the California Desert Studies Consortium, a consortium "
                  "of 7 CSU campuses: Dominguez Hills, Fullerton, Long Beach and Cal Poly Pomona.", 1)
    assert SEL.without_repeats([part, again], q, "en") == [part]
    # three quarters of the words about someone else is another fact
    q = "Who is the child of Chiang Hsiao-wen's father?"
    wen, wu = (fact("Chiang Hsiao-wen is the eldest son of Chiang Ching-kuo."),
               fact("Chiang Hsiao-wu is the second son of Chiang Ching-kuo.", (2,)))
    assert SEL.without_repeats([wen, wu], q, "en") == [wen, wu]
    # a link whose words two others say between them, each less than three quarters, stays
    assert SEL.without_repeats(VERIFIED[2::-2] + [VERIFIED[3]], Q, "en") == VERIFIED[2::-2] + [VERIFIED[3]]


def test_a_comparison_by_number_shows_both_sides_and_opens_with_the_one_their_numbers_say():
    from vericite.engine.records import Document

    q = "Which genus contains more species, Crowea or Dracula?"
    docs = [Document("Crowea", "Crowea is a genus of shrubs. There are three species of Crowea."),
            Document("Dracula", "The orchid genus Dracula consists of 118 species.")]
    # stage 1 says the wrong one and the model picks one side's fact: the answer gets the other side's
    # sentence giving its count, from the document; the claim "... Dracula contains more species" is in
    # neither document (the checker fails it) and passes because the two counts shown say it
    replies = {"answer": "Crowea contains more species [1].", "gate": "Yes",
               "extract:1": "Crowea is a genus of shrubs.", "extract:2": "The orchid genus Dracula consists of 118 species.",
               "select": "Sentences: {The}\nAnswer: Dracula", "claim": "The genus Dracula contains more species."}
    llm = PickingLLM(replies)
    res = VeriCite(llm, WordChecker(), prompts=PromptSet.load("facts-en-kv")).answer(q, docs)
    assert res.answer == ("The genus Dracula contains more species [1, 2]. There are three species of Crowea [1]. "
                          "The orchid genus Dracula consists of 118 species [2].")
    assert any("compared: " in n for n in res.stages[-1].notes)
    # the model and stage 1 naming the other one: the counts shown outrank them
    llm = PickingLLM({**replies, "select": "Sentences: {The}\nAnswer: Crowea", "answer": "Crowea has more."})
    res = VeriCite(llm, WordChecker(), prompts=PromptSet.load("facts-en-kv")).answer(q, docs)
    assert res.answer.startswith("The genus Dracula contains more species [1, 2]. ")


def test_a_yes_to_both_passes_when_a_sentence_about_each_says_it():
    from vericite.engine.records import Document

    q = "Are Marilyn Manson and Joe Lynn Turner both American singers?"
    docs = [Document("Marilyn Manson", "Marilyn Manson is an American singer and actor."),
            Document("Joe Lynn Turner", "Joe Lynn Turner is an American singer and guitarist.")]
    # stage 1 says "Yes"; its claim joins two documents, which the checker fails; a sentence about
    # each says "American" and "singer": the "Yes" passes
    replies = {"answer": "Yes, both are American singers [1][2].", "gate": "Yes",
               "extract:1": "Marilyn Manson is an American singer and actor.",
               "extract:2": "Joe Lynn Turner is an American singer and guitarist.",
               "select": "Sentences: {Joe}\nAnswer: Joe Lynn Turner is an American singer and guitarist.",
               "claim": "Yes, Marilyn Manson and Joe Lynn Turner are both American singers."}
    res = VeriCite(PickingLLM(replies), WordChecker(), prompts=PromptSet.load("facts-en-kv")).answer(q, docs)
    assert res.answer == ("Yes [1, 2]. Marilyn Manson is an American singer and actor [1]. "
                          "Joe Lynn Turner is an American singer and guitarist [2].")
    assert any("both said: " in n for n in res.stages[-1].notes)
    # one of them said to be English: the "Yes" fails and is removed
    docs[1] = Document("Joe Lynn Turner", "Joe Lynn Turner is an English singer and guitarist.")
    replies = {**replies, "extract:2": "Joe Lynn Turner is an English singer and guitarist.",
               "select": "Sentences: {Joe}\nAnswer: Joe Lynn Turner is an English singer and guitarist."}
    res = VeriCite(PickingLLM(replies), WordChecker(), prompts=PromptSet.load("facts-en-kv")).answer(q, docs)
    assert not res.answer.startswith("Yes") and "Joe Lynn Turner is an English singer" in res.answer
    # nobody says yes or no (stage 1 and the model name a singer): the sentence about each says it, so "Yes" opens
    docs[1] = Document("Joe Lynn Turner", "Joe Lynn Turner is an American singer and guitarist.")
    replies = {**replies, "answer": "Marilyn Manson is an American singer [1].",
               "extract:2": "Joe Lynn Turner is an American singer and guitarist.",
               "select": "Sentences: {Joe}\nAnswer: Joe Lynn Turner"}
    res = VeriCite(PickingLLM(replies), WordChecker(), prompts=PromptSet.load("facts-en-kv")).answer(q, docs)
    assert res.answer.startswith("Yes [1, 2]. ") and any("both said: " in n for n in res.stages[-1].notes)


def answer_about_two(q: str, texts: list[tuple[str, str]], replies: dict):
    """The facts-en-kv pipeline (fakes) over documents (title, text); each document's extraction is its text."""
    from vericite.engine.records import Document

    replies = {"gate": "Yes", **{f"extract:{k}": text for k, (_, text) in enumerate(texts, 1)}, **replies}
    return VeriCite(PickingLLM(replies), WordChecker(), prompts=PromptSet.load("facts-en-kv")).answer(
        q, [Document(title, text) for title, text in texts])


def test_the_same_province_is_answered_by_the_provinces_the_sentences_give():
    # stage 1 says "Yes" (wrong); the sentences about each give two provinces: the answer opens with "No",
    # which the checker cannot join from two documents and the provinces pass
    res = answer_about_two("Are both Dafeng District and Dazhou located in the same province?",
                           [("Dafeng District", "Dafeng District is located in the Jiangsu province."),
                            ("Dazhou", "Dazhou is located in Dazhou, Sichuan province, China.")],
                           {"answer": "Yes, both are located in the same province [1][2].",
                            "select": "Sentences: {Dazhou}\nAnswer: Dazhou",
                            "claim": "No, they are not in the same province."})
    assert res.answer.startswith("No [1, 2]. ") and any("same said: " in n for n in res.stages[-1].notes)
    assert SEL.conclusion(SEL.Selection("yes", ()), "Were A Smith and B Jones of the same nationality?", "", "en",
                          ["A Smith is an American director.", "B Jones was an American filmmaker."]) == "Yes"


def test_no_when_the_sentence_about_one_places_it_in_another_state():
    # stage 1 says "Yes" (wrong); the sentence about Elko places it in Nevada: the answer opens with "No",
    # which the checker cannot say from one document and the place passes
    q = "Are both Elko Regional Airport and Gerald R. Ford International Airport located in Michigan?"
    texts = [("Elko Regional Airport", "Elko Regional Airport is a mile west of downtown Elko, in Elko County, Nevada."),
             ("Gerald R. Ford International Airport", "Gerald R. Ford International Airport is located in Cascade "
                                                      "Township, Michigan.")]
    replies = {"answer": "Yes, both are located in Michigan [1][2].", "select": "Sentences: {Gerald}\nAnswer: Yes",
               "claim": "No, they are not both located in Michigan."}
    texts_elko = texts[0]
    res = answer_about_two(q, texts, replies)
    assert res.answer.startswith("No [1, 2]. ") and "Elko County, Nevada [1]." in res.answer
    assert any("same said: " in n for n in res.stages[-1].notes)
    texts[0] = ("Elko Regional Airport", "Elko Regional Airport is a mile west of downtown Grand Rapids, Michigan.")
    res = answer_about_two(q, texts, replies)
    assert not res.answer.startswith("No")
    # stage 1's own "Yes, ..." sentence is shown without its "Yes" (the checker here passes only the words a
    # document has, so the document says it too): the opening answers
    texts = [texts_elko, (texts[1][0], "Yes, Gerald R. Ford International Airport is located in Cascade Township, Michigan.")]
    said = {**replies, "answer": "Yes, Gerald R. Ford International Airport is located in Cascade Township, Michigan [2].",
            "extract:2": "Ford is busy.", "select": "Sentences: {Yes,}\nAnswer: Yes"}
    res = answer_about_two(q, texts, said)
    assert res.answer.startswith("No [1, 2]. ") and "Yes" not in res.answer
    assert "Gerald R. Ford International Airport is located in Cascade Township, Michigan [2]." in res.answer


def test_what_two_things_have_in_common_is_answered_by_the_word_the_sentences_about_each_share():
    # the model picks one side only; the answer gives a sentence about each and opens with what they share,
    # which the checker cannot join from two documents and the two sentences pass
    res = answer_about_two('"A Summer in the Cage" and "American Hardcore" are both what kind of film?',
                           [("A Summer in the Cage", "A Summer in the Cage is a 2007 documentary film about a man."),
                            ("American Hardcore", "American Hardcore is a 2006 American documentary film.")],
                           {"answer": "A Summer in the Cage is a documentary film [1].",
                            "select": "Sentences: {A}\nAnswer: documentary",
                            "claim": "They are both documentary films."})
    assert res.answer.startswith("Documentary [1, 2]. A Summer in the Cage is a ")
    assert "American Hardcore is a 2006 American documentary film [2]." in res.answer
    assert any("common said: " in n for n in res.stages[-1].notes)
    # the two share no such word: no opening
    res = answer_about_two('"A Summer in the Cage" and "American Hardcore" are both what kind of film?',
                           [("A Summer in the Cage", "A Summer in the Cage is a 2007 documentary film about a man."),
                            ("American Hardcore", "American Hardcore is a 2006 American punk film.")],
                           {"answer": "A Summer in the Cage is a documentary film [1].",
                            "select": "Sentences: {A}\nAnswer: documentary",
                            "claim": "They are both documentary films."})
    assert not res.answer.startswith("Documentary") and "punk film [2]" in res.answer
    # the best sentence about one of them shares nothing with the other's: the one that does is shown
    res = answer_about_two('"A Summer in the Cage" and "American Hardcore" are both what kind of film?',
                           [("A Summer in the Cage", "A Summer in the Cage is a 2007 documentary film about a man."),
                            ("American Hardcore", "American Hardcore is a film about punk bands. "
                                                  "American Hardcore is a 2006 American documentary.")],
                           {"answer": "A Summer in the Cage is a documentary film [1].",
                            "select": "Sentences: {A}\nAnswer: documentary",
                            "claim": "They are both documentary films."})
    assert res.answer.startswith("Documentary [1, 2]. ") and "2006 American documentary [2]." in res.answer


def test_a_repeated_pick_that_ties_the_answer_to_the_question_replaces_the_one_it_repeats():
    q = "Southrey is a village in the civil parish of which village in the West Lindsey district?"
    near = fact("Southrey is approximately 2 miles south-east from Bardney.")
    parish = fact("Southrey is a village in the civil parish of Bardney in the West Lindsey district.")
    picked = SEL.compose(SEL.Selection("Bardney", (0, 1)), [near, parish], q)
    assert [s.text for s in picked.sentences] == [parish.text]
    # the other way round: the repeat says less of the question and is left out
    picked = SEL.compose(SEL.Selection("Bardney", (1, 0)), [near, parish], q)
    assert [s.text for s in picked.sentences] == [parish.text, near.text]


def test_a_stage_1_statement_restating_the_question_is_a_repeat_a_document_sentence_is_not():
    q = "Southrey is a village in the civil parish of which village in the West Lindsey district?"
    fact_ = fact("Southrey is in the civil parish of Bardney.")
    echo = Statement(R.ANSWER, "Southrey is a village in the civil parish of Bardney in the West Lindsey district.",
                     (1,), R.KEPT, 0.9, "")
    # stage 1's sentence says nothing the fact does not, only more of the question: left out
    assert SEL.without_repeats([fact_, echo], q, "en") == [fact_]
    # the same words in a document's sentence tie the answer to the question: it stays, the fact it says
    # all of goes
    doc = quote(echo.text, 1)
    assert SEL.without_repeats([fact_, doc], q, "en") == [doc]


def test_a_sentence_with_the_models_answer_words_about_something_else_is_not_the_answer():
    q = "What recognition did the actor of Truman Capote from Capote receive?"
    hoffman = fact("Philip Seymour Hoffman won an Academy Award for Best Actor for his portrayal of Truman Capote.")
    friend = fact("Lee modeled the character of Dill on her childhood friend, Truman Capote.", (2,))
    fontyn = fact("Jacqueline Fontyn received the title of baroness from the King of Belgium in recognition of her "
                  "many artistic contributions.", (5,))
    # the model's "answer" is a sentence mixing two; the one sharing most of its words names no one the
    # question names and ties to no sentence that does: the picks stand, with the caveat
    sel = SEL.Selection("Philip Seymour Hoffman received the title of baroness from the King of Belgium in "
                        "recognition of her many artistic contributions.", (0, 1, 2))
    picked = SEL.compose(sel, [hoffman, friend, fontyn], q)
    assert fontyn not in picked.sentences and picked.sentences[0] == hoffman
    assert picked.caveat is not None and picked.caveat.code == SEL.ANSWER_UNSUPPORTED
    assert any("name nothing the question names" in n for n in picked.notes)
    assert not SEL.about(fontyn.text, q, [hoffman.text, friend.text])
    # a second hop naming none of the question's names, tied by a name to a sentence that does, is about it
    assert SEL.about("Brad Silberling directed the film.", "Who directed the film Jamie Harris played in?",
                     ["Jamie Harris played in a film directed by Brad Silberling."])


DEAN_Q = "What character did James Byron Dean play in his final lead role, which earned him his second Academy Award?"
DEAN_OPENING = ("James Byron Dean played the character Mitch Leary in his final lead role, which earned him his second "
                "Academy Award.")
MALKOVICH = fact('John Malkovich played the character of Mitch Leary in "In the Line of Fire" in 1993.', (5,))
GIANT = [fact("James Dean earned his second and last Academy Award nomination for Giant.", (2,)),
         fact("Giant was the last of James Dean's three films as a leading actor.", (2,))]


def test_what_a_named_one_did_is_not_answered_by_a_sentence_about_someone_else():
    # stage 1 gave another actor's role to James Dean; the verified sentence closest to it is about John
    # Malkovich, names nothing the question names and ties to nothing that does: it neither anchors nor leads
    titles = ["James Dean", "Giant (1956 film)", "", "", "John Malkovich filmography"]
    for verified, quotes in (([MALKOVICH, *GIANT], []), (GIANT, [MALKOVICH])):  # verified, or a document's sentence
        picked = SEL.compose(SEL.Selection("Mitch Leary", tuple(range(len(verified)))), verified, DEAN_Q,
                             titles=titles, opening=DEAN_OPENING, quotes=quotes)
        assert picked.sentences == tuple(GIANT), picked.notes
        assert picked.caveat.code == SEL.ANSWER_UNSUPPORTED  # the role itself is in no verified sentence
    # a question describing the one it asks about (not naming them) may be answered about a name it lacks
    q = "What character did the star of the 1993 thriller play in it?"
    picked = SEL.compose(SEL.Selection("Mitch Leary", (0, 1, 2)), [MALKOVICH, *GIANT], q, titles=titles,
                         opening="The star of the 1993 thriller played the character Mitch Leary.")
    assert picked.sentences[0] == MALKOVICH


def test_the_answer_steps_year_outranks_stage_1s_for_the_lead():
    q = "When did Nissan, the Acura Legend maker and the Scion owner open US assembly plants?"
    opening = "Nissan, the Acura Legend maker and the Scion owner, opened US assembly plants in 1973."
    pick = fact("Nissan opened US assembly plants in 1981.", (3,))
    crisis = quote("A decade after the 1973 oil crisis, Honda, Toyota and Nissan, affected by the 1981 voluntary export "
                   "restraints, opened US assembly plants.", 3)
    # stage 1's wrong year alone would lead with the sentence naming the 1973 oil crisis
    assert SEL.lead(SEL.Picked((pick,), ()), [pick], [crisis], q, opening).sentences[0] == crisis
    kept = SEL.lead(SEL.Picked((pick,), ()), [pick], [crisis], q, opening, answer="Nissan opened US assembly plants in 1981.")
    assert kept.sentences == (pick,)
    # the same year in both: stage 1's opening still leads
    agreed = "Nissan, the Acura Legend maker and the Scion owner, opened US assembly plants in 1973."
    assert SEL.lead(SEL.Picked((pick,), ()), [pick], [crisis], q, opening, answer=agreed).sentences[0] == crisis


def test_of_several_ties_the_one_naming_most_of_what_the_lead_leaves_out_follows_it():
    q = "What was Todd Boehly's former position at the firm where Mark Walter is the CEO?"
    head = quote("Mark Walter is a founder and the chief executive officer of Guggenheim Partners, a financial firm.", 4)
    ceo = fact("The firm's CEO is Mark Walter.", (1,))
    boehly = fact("Todd Boehly was the former president of Guggenheim Partners.", (5,))
    titles = ["Guggenheim Partners", "Founder CEO", "Andrew Todd", "Mark Walter", "Eldridge Industries"]
    for verified in ([ceo, boehly], [boehly, ceo]):
        picked = SEL.compose(SEL.Selection("Mark Walter is the CEO of Guggenheim Partners.", (0,)), verified, q,
                             titles=titles, opening=head.text, quotes=[head])
        assert [s.text for s in picked.sentences] == [head.text, boehly.text]


def test_a_comparison_by_what_one_did_checks_its_short_answer_against_that_ones_documents_only():
    from vericite.engine.records import Document

    q = "Which writer was ordained to priesthood, W. Somerset Maugham or Thomas Merton?"
    docs = [Document("Thomas Merton", "Thomas Merton was ordained to priesthood in 1949."),
            Document("W. Somerset Maugham", "W. Somerset Maugham was a British playwright.")]
    replies = {"answer": "Unknown.", "gate": "Yes", "extract:1": "Thomas Merton was ordained to priesthood in 1949.",
               "extract:2": "W. Somerset Maugham was a British playwright.",
               "claim": "{name} was ordained to priesthood."}
    from vericite.engine.pipeline.stage3 import _short_answer

    merton, maugham = fact(docs[0].text, (1,)), fact(docs[1].text, (2,))
    # the documents joined say every word of "W. Somerset Maugham was ordained to priesthood": it cites Maugham's alone,
    # as the question's own claim (no rewrite)
    assert _short_answer("W. Somerset Maugham", [maugham, merton], q) == \
        "W. Somerset Maugham was ordained to priesthood [2]."
    for name in ("W. Somerset Maugham", "Thomas Merton"):
        select = "Sentences: {Thomas}, {W.}\nAnswer: " + name
        llm = PickingLLM({**replies, "select": select, "claim": replies["claim"].format(name=name)})
        res = VeriCite(llm, WordChecker(), prompts=PromptSet.load("facts-en-kv")).answer(q, docs)
        # Merton's sentence says what the question asks ("ordained", "priesthood"): his short answer opens, checked
        # against his own document, and gives its place to his document's sentence, which it opens word for word
        assert res.answer == ("Thomas Merton was ordained to priesthood in 1949 [1]. W. Somerset Maugham was a British "
                              "playwright [2].")


def test_a_place_the_question_describes_by_its_own_relation_is_a_hop_not_the_relation_asked():
    assert asked("Where do Greyhound buses leave from in the city where Arna Selznick's employer is "
                 "headquartered?") == frozenset()
    assert asked("What is the seat of the county sharing a border with the county in which J. P. Hayes was "
                 "born?") == frozenset({"seat"})
    assert "popul" in asked("What is the population of the city where Tammy Leitner was born?")
    assert "born" not in asked("What is the population of the city where Tammy Leitner was born?")
    assert "spous" in asked("Who is the spouse of the actress who played the Fairy Godmother in Shrek 2?")
    # "How many ...": the noun counted, when the question names no relation
    assert asked("How many variants are there of the military transport aircraft that the Mercedes-Benz Zetros truck "
                 "was designed to be compatible with?") == frozenset({"variant"})
    assert asked("How many UEFA Super Cup awards have been received by the team that has won the treble?") == frozenset()


def test_the_noun_asked_read_with_a_word_before_it_or_at_the_questions_end():
    assert asked("What is the record label of the co-writer and recording artist of Permission to Fly?") == {"label"}
    assert asked("Which NFL team did both Don Looney and DeSean Jackson play for?") == {"team"}
    assert asked("What movie studio produced The Benchwarmers, which starred Rob Schneider?") == {"studio"}
    assert asked("Alexander Nikolayev received the title for his actions during the final major offensive of the "
                 "European theatre of what war?") == {"war"}
    # a relation the question names outranks the noun at its end; a described time is no noun asked
    assert "born" in asked("The director of Wild was born in which city?")
    assert asked("What was the wettest year in the second largest city in the state where Yuma is?") == frozenset()
    # without a word before it, a verb in the past is no sign of the noun asked ("Which movie directed by ...")
    assert "director" in asked("Which movie directed by James Gunn portrayed Ego the Living Planet?")


def test_the_second_hop_may_repeat_the_nationality_the_question_describes_the_first_with():
    q = ("Who directed the 2014 American biographical survival drama film which Laura Elizabeth Dern was nominated "
         "for the Academy Award for Best Supporting Actress in")
    head = fact('Laura Elizabeth Dern was nominated for the Academy Award for Best Supporting Actress in the 2014 '
                'American biographical survival drama film "Wild".', (1,))
    hop = quote("Wild is a 2014 American biographical survival drama film directed by Jean-Marc Vallée.", 5)
    titles = ["Laura Dern", "The Help", "Diane Ladd", "They Shoot Horses", "Wild (2014 film)"]
    picked = SEL.next_hop(SEL.Picked((head,), ()), [head], [hop], q, titles=titles)
    assert picked.sentences == (hop, head)
    # a name of the question other than a nationality keeps a sentence about the question's own subject out
    own = quote("Wild is a 2014 film directed by Jean-Marc Vallée, starring Laura Dern.", 5)
    assert SEL.next_hop(SEL.Picked((head,), ()), [head], [own], q, titles=titles).sentences == (head,)


def test_a_pick_stating_the_relation_of_someone_else_does_not_stop_the_second_hop():
    q = ("Alexander Nikolayev received the title Hero of the Soviet Union for his actions during the final major "
         "offensive of the European theatre of what war?")
    other = fact("Georgy Ivanov fought in World War II at the Battle of the Dnieper.", (3,))
    head = fact("Alexander Nikolayev received the title Hero of the Soviet Union for his actions during the Battle "
                "of Berlin.", (1,))
    hop = quote("The Battle of Berlin was the final major offensive of the European theatre of World War II.", 2)
    titles = ["Alexander Nikolayev", "Battle of Berlin", "Georgy Ivanov"]
    picked = SEL.next_hop(SEL.Picked((other, head), ()), [other, head], [hop], q, titles=titles)
    assert picked.sentences == (hop, head)
    # a pick stating it of the first hop's new name is the answer already: it leads, the first hop follows
    said = fact("The Battle of Berlin was part of World War II.", (2,))
    assert SEL.next_hop(SEL.Picked((head, said), ()), [head, said], [hop], q, titles=titles).sentences == (said, head)
    # first already, or naming only the question's own names, it leaves the picks as they are
    assert SEL.next_hop(SEL.Picked((said, head), ()), [head, said], [hop], q, titles=titles).sentences == (said, head)
    own = fact("Alexander Nikolayev fought in World War II.", (1,))
    assert SEL.next_hop(SEL.Picked((head, own), ()), [head, own], [hop], q, titles=titles).sentences == (head, own)


def test_a_pick_from_the_document_of_a_title_the_answer_names_is_linked_to_it():
    q = "Where has Kerwin Swint's work appeared that draws 20.5 million unique visitors a month?"
    media = fact("Kerwin Swint's work has appeared in a number of media, including CNN, National Journal, Mental Floss, "
                 "Publishers Weekly and Salon.", (1,))
    users = fact("mentalfloss.com, which presents facts, puzzles, and trivia with a humorous tone, draws 20.5 million "
                 "unique users a month.", (2,))
    titles = ["Kerwin Swint", "Mental Floss", "Salon (website)"]
    picked = SEL.compose(SEL.Selection("Mental Floss", (0, 1)), [media, users], q, titles=titles)
    assert picked.sentences == (media, users)
    # a document whose title the answer does not name stays out
    other = fact("salon.com draws 20.5 million unique users a month.", (3,))
    picked = SEL.compose(SEL.Selection("Mental Floss", (0, 1)), [media, other], q, titles=["Kerwin Swint", "x", "Time"])
    assert picked.sentences == (media,)
    # nor one saying no more of the question than the sentence naming the answer
    more = fact("The company is owned by a group and based in New York City.", (2,))
    assert SEL.compose(SEL.Selection("Mental Floss", (0, 1)), [media, more], q, titles=titles).sentences == (media,)


def test_work_games_owners_and_creators_are_relations_a_document_states_in_its_own_words():
    employers = ("While not in Oklahoma City proper, other large employers within the MSA region include: Tinker Air "
                 "Force Base (27,000); University of Oklahoma (11,900).")
    assert states(employers, asked("How many people work in Susan Winchester's alma mater?"))
    assert not states(employers, asked("How many people live in Susan Winchester's hometown?"))
    assert states("Each club plays every other club twice, for a total of 38 matchdays.",
                  asked("How many games in a season of the league in which Barcelona won titles in 1948 and 1949?"))
    assert states("Warner Music Group is the parent company of Warner Bros. Records.",
                  asked("Who is the owner of the record label of the songwriter?"))
    assert states("Vito Corleone is a fictional character created by Mario Puzo.",
                  asked("Who created the main character of The Godfather?"))


def test_the_second_hop_reaches_a_relation_stated_with_another_word():
    q = "How many people work in Susan Winchester's alma mater?"
    head = fact("Susan Winchester, born in Chickasha, Oklahoma, earned her bachelor's and master's degrees at the "
                "University of Oklahoma.", (2,))
    hop = quote("While not in Oklahoma City proper, other large employers within the MSA region include: Tinker Air "
                "Force Base (27,000); University of Oklahoma (11,900).", 5)
    titles = ["Frédéric Chopin", "Susan Winchester", "Winchester Mystery House", "Randy Conrads", "Oklahoma City"]
    assert SEL.next_hop(SEL.Picked((head,), ()), [head], [hop], q, titles=titles).sentences == (hop, head)


def test_a_sentence_of_the_new_names_own_document_is_about_it_as_much_as_one_naming_it():
    q = "How many games in a season of the league in which Barcelona won titles in 1948 and 1949?"
    said = fact("During the course of a season each club plays every other club twice, for a total of 38 "
                "matchdays.", (5,))
    head = fact("Barcelona won the treble in the 2014–2015 season, winning La Liga, Copa del Rey and UEFA Champions "
                "League titles.", (2,))
    crowds = quote("Back-to-back La Liga titles in 1948 and 1949 drew larger crowds to the games.", 1)
    titles = ["FC Barcelona", "FC Barcelona", "Howie Williams", "Arnold Schwarzenegger", "La Liga"]
    picked = SEL.Picked((said, head), ())
    assert SEL.next_hop(picked, [said, head], [crowds], q, titles=titles).sentences == (said, head)
    # without the pick from "La Liga" the hop is still sought
    assert SEL.next_hop(SEL.Picked((head,), ()), [head], [crowds], q, titles=titles).sentences == (crowds, head)


def test_a_sentence_naming_the_answer_is_about_the_question_through_its_documents_title():
    q = "The ghetto that George Kadish documented held how many people at its peak?"
    kadish = fact("George Kadish documented life in the Kovno Ghetto during the Holocaust.", (1,))
    peak = fact("At its peak, the Ghetto held 29,000 people.", (2,))
    titles = ["George Kadish", "Kovno Ghetto", "Częstochowa Ghetto"]
    picked = SEL.compose(SEL.Selection("29,000 people", (1,)), [kadish, peak], q, titles=titles)
    assert picked.sentences == (peak,) and picked.caveat is None
    # a sentence of another ghetto's document is about nothing the question names: the answer is not shown as found
    other = fact("At its peak, the Ghetto held 48,000 people.", (3,))
    picked = SEL.compose(SEL.Selection("48,000 people", (1,)), [kadish, other], q, titles=titles)
    assert picked.caveat is not None and picked.caveat.code == SEL.ANSWER_UNSUPPORTED


KRULL = ("Krull is a 1983 British-American science fantasy swashbuckler film directed by Peter Yates and produced by "
         "Ron Silverman with a screenplay by Stanford Sherman.")
SHERMAN = "Stanford Sherman is an American film and television writer."


def test_a_buried_answer_is_the_short_answer_to_open_with():
    q = "A 1983 film with a screenplay by Stanford Sherman, directed by Peter Yates, was produced by who?"
    reply = 'Ron Silverman, "Krull", 1950, unknown'  # the model's answer up to its first comma
    assert SEL.buried(reply, q, [KRULL, SHERMAN]) == "Ron Silverman"  # long, names it past its opening
    assert SEL.buried(reply, q, [SHERMAN, KRULL]) == "Ron Silverman"  # a later sentence names it
    assert SEL.buried("Ron Silverman", q, ["Krull was produced by Ron Silverman."]) == ""  # short: said plainly
    opens = "Ron Silverman produced Krull, a 1983 British-American science fantasy swashbuckler film directed by " \
            "Peter Yates with a screenplay by Stanford Sherman."
    assert SEL.buried("Ron Silverman", q, [opens]) == ""  # opens with it
    assert SEL.buried("Brad Stella", q, [KRULL]) == ""  # no sentence names it
    # the first names part of it: it says another thing of the answer's subject ("... commander of the Egyptian
    # queen Cleopatra"), the model's answer is a hop, not the one the first sentence leads with
    cleo = "Who was the military commander of the last active ruler of the Ptolemaic Kingdom of Egypt?"
    shown = ["Athenion was in the late 30s BC a military commander of the Egyptian queen Cleopatra in Coele-Syria.",
             "Cleopatra VII Philopator was the last active ruler of the Ptolemaic Kingdom of Egypt."]
    assert SEL.buried("Cleopatra VII Philopator, Queen of Egypt", cleo, shown) == ""
    assert SEL.buried("Cleopatra VII Philopator", cleo, [shown[0].replace("Cleopatra", "Octavia"), shown[1]]) \
        == "Cleopatra VII Philopator"
    assert SEL.buried(reply, q.replace("produced", "scored"), [KRULL, SHERMAN]) == ""  # nothing says "scored"
    assert SEL.buried("Peter Yates", q, [KRULL]) == ""  # the question names it
    assert SEL.buried("a producer", q, [KRULL]) == ""  # not a name
    assert SEL.buried("Ron Silverman produced the film for Dino De Laurentiis", q, [KRULL]) == ""  # not short
    assert SEL.buried("Ron Silverman", "How many films did the producer of Krull make?", [KRULL]) == ""
    assert SEL.buried("Ron Silverman", "When was the producer of Krull born?", [KRULL]) == ""  # no digit
    assert SEL.buried("1983", "When was the film with a screenplay by Stanford Sherman directed by Peter Yates?",
                      [KRULL]) == "1983"
    assert SEL.buried("Ron Silverman", q, [KRULL], "ru") == ""
    assert SEL.buried("Ron Silverman produced Krull", q, [KRULL]) == ""  # a sentence, not a name
    assert SEL.buried("Jay DeMarcus of Rascal Flatts", q, [KRULL.replace("Ron Silverman", "Jay DeMarcus of Rascal "
                                                                         "Flatts")]) == "Jay DeMarcus of Rascal Flatts"
    assert SEL.buried("July 10, 1983, London", "When was Krull released?",
                      [SHERMAN, "Krull was released on July 10, 1983."]) == "July 10, 1983"
    assert SEL.buried("released on July 10, 1983", "When was Krull released?",
                      [SHERMAN, "Krull was released on July 10, 1983."]) == "July 10, 1983"
    assert SEL.buried("London, 1983 in spring", "When was Krull released?",
                      [SHERMAN, "Krull was released in London in 1983 in spring."]) == "1983 in spring"
    assert SEL.conclusion(SEL.Selection(reply, ()), q, shown=[KRULL, SHERMAN]) == "Ron Silverman"
    # the caller learns which rule answered: only the buried answer is checked as the question's claim of it
    assert SEL.concluded(SEL.Selection(reply, ()), q, shown=[KRULL, SHERMAN]) == SEL.Conclusion("Ron Silverman", True)
    assert SEL.concluded(SEL.Selection("Rush", ()), "Which is older, Rush or Toto?") == SEL.Conclusion("Rush", False)


def test_a_buried_answer_opens_the_answer_as_a_checked_claim():
    # the picked sentence names the founder inside a long copied sentence about the magazine: the answer opens
    # with the short answer, checked as the claim the question makes of it against the documents joined;
    # a claim they do not carry fails and the answer is the picks as before
    q = "Elizabeth Austin wrote for a fitness magazine founded by who?"
    shape = ("Shape is a monthly English language fitness magazine started by Weider Publications in 1981, founded "
             "by Christine MacIntyre (a pioneer in women's free weight fitness) and became the number one women's "
             "fitness magazine.")
    texts = [("Elizabeth Austin", "Elizabeth Austin is a writer who wrote for Shape."), ("Shape (magazine)", shape)]
    replies = {"answer": "Shape was founded by Christine MacIntyre [2].",
               "select": "Sentences: {Shape}, {Elizabeth}\nAnswer: Christine MacIntyre, editor, Shape",
               "claim": "Elizabeth Austin wrote for a fitness magazine founded by Christine MacIntyre."}
    res = answer_about_two(q, texts, replies)
    assert res.answer.startswith("Elizabeth Austin wrote for a fitness magazine founded by Christine MacIntyre [1, 2]. ")
    assert any("opens with the short answer 'Christine MacIntyre'" in n for n in res.stages[-1].notes)
    res = answer_about_two(q, texts, {**replies, "claim": "Elizabeth Austin founded a fitness magazine in 1990."})
    assert res.answer.startswith("Shape is a monthly") and "1990" not in res.answer
    # a claim its documents carry that leaves out what the question asks of it answers another question: it fails
    res = answer_about_two(q, texts, {**replies, "claim": "Christine MacIntyre founded a fitness magazine."})
    assert res.answer.startswith("Shape is a monthly")
    assert any("asked in full: " in n and "'austin'" in n for n in res.stages[-1].notes)


def test_the_second_hop_names_the_first_hop_s_new_name_before_its_document_s_other_sentences():
    """Both sentences of the "Somalia" document say "President"; the one saying it of Somalia answers "Who was in
    charge of the country Ceelmakoile is located in?", not the one about whom the president appointed."""
    q = "Who was in charge of the country Ceelmakoile is located in?"
    town = quote("Ceelmakoile is a town in the central Hiran region of Somalia.", 1)
    appointed = quote("President Mohamud later appointed Abdi Farah Shirdon as the new Prime Minister on 6 October "
                      "2012.", 2)
    elected = quote("On 10 September 2012, parliament elected Hassan Sheikh Mohamud as the new President of Somalia.", 2)
    hop = SEL.next_hop(SEL.Picked((town,), ()), [], [appointed, elected], q, titles=["Ceelmakoile", "Somalia"],
                       texts=[town.text, f"{elected.text} {appointed.text}"])
    assert [s.text for s in hop.sentences] == [elected.text, town.text]


def test_a_relation_asked_in_a_question_that_does_not_open_with_its_wh_word():
    # the clause holding the wh-word is what is asked, not a hop on the way
    assert "headquart" in asked("Corn Ranch is a spaceport where test flights are carried out by a company "
                                "headquartered in what state?")
    assert asked("Park Seo-joon is best known for his role in a series that premiered on what month and day?") == {
        "premier"}
    assert asked("The Ingerophrynus gollum is named after a character in a book that sold how many copies?") == {
        "sold", "copi"}
    assert asked("The musical composer of Manru was a spokesman for what country's independence?") == {"spokesman"}
    assert asked("The Vermont senator was a member of what party in 1990?") == frozenset()  # no relation word
    assert asked("Who won the special election in 2014 to replace Bill Young?") == frozenset()


CORN_Q = "Corn Ranch is a spaceport where test flights are carried out by a company headquartered in what state?"
CORN = quote("Corn Ranch is a spaceport in the West Texas town of Van Horn, Texas, where flight tests of the New "
             "Shepard are carried out by Blue Origin.", 1)
BLUE = quote("Blue Origin is an aerospace company headquartered in Kent, Washington.", 2)


def test_a_pick_cut_short_of_its_document_sentence_is_shown_whole_and_its_next_hop_leads():
    cut = fact("Corn Ranch is a spaceport in the West Texas town of Van Horn, Texas.", (1,))
    titles = ["Corn Ranch", "Blue Origin"]
    picked = SEL.compose(SEL.Selection("Texas", (0,)), [cut], CORN_Q, titles=titles, quotes=[CORN, BLUE])
    # the rest named Blue Origin; the sentence stating where it is headquartered then leads
    assert [s.text for s in picked.sentences] == [BLUE.text, CORN.text]
    assert any("shown whole" in n for n in picked.notes)
    # the rest names Blue Origin, whom another document's sentence stating the relation asked names: without that
    # sentence, or from another document, or when the rest says neither, it stays as picked
    same = SEL.Picked((cut,), ())
    assert SEL.in_full(same, [CORN, BLUE], CORN_Q).sentences == (CORN,)
    assert SEL.in_full(same, [CORN], CORN_Q).sentences == (cut,)
    assert SEL.in_full(same, [replace(CORN, citations=(2,)), BLUE], CORN_Q).sentences == (cut,)
    assert SEL.in_full(same, [quote(cut.text[:-1] + ", in 2006.", 1), BLUE], CORN_Q).sentences == (cut,)
    # a rest stating the relation asked carries the answer itself; one restating the premise does not
    paderewski = fact("Ignacy Jan Paderewski was a Polish pianist and composer.", (1,))
    whole = quote("Ignacy Jan Paderewski (1860 - 1941) was a Polish pianist and composer, politician and spokesman "
                  "for Polish independence.", 1)
    manru_q = "The musical composer of Manru was a spokesman for what country's independence?"
    assert SEL.in_full(SEL.Picked((paderewski,), ()), [whole], manru_q).sentences == (whole,)
    premise = quote("Ignacy Jan Paderewski was a Polish pianist and composer, and he composed Manru.", 1)
    assert SEL.in_full(SEL.Picked((paderewski,), ()), [premise], manru_q).sentences == (paderewski,)
    shuffled = fact("Van Horn, Texas has the spaceport Corn Ranch.", (1,))
    assert SEL.in_full(SEL.Picked((shuffled,), ()), [CORN, BLUE], CORN_Q).sentences == (shuffled,)
    # a whole sentence over FULL_WORDS words is not shown in its place
    long = quote(CORN.text[:-1] + " " + "and more " * SEL.FULL_WORDS + ".", 1)
    assert SEL.in_full(same, [long, BLUE], CORN_Q).sentences == (cut,)
    # two picks cut from one sentence show it once
    half = fact("Corn Ranch is a spaceport.", (1,))
    assert SEL.in_full(SEL.Picked((cut, half), ()), [CORN, BLUE], CORN_Q).sentences == (CORN,)


def test_a_nationality_of_the_first_hop_is_no_one_new_for_the_second():
    q = "The Battle of Cambrai took place during a series of offensives that ended on what date?"
    first = fact("The Battle of Cambrai was fought by the British First Army during the Hundred Days Offensive.", (1,))
    british = quote("The conflict ended when the British bombed the Dervish capital of Taleh in 1920.", 3)
    hundred = quote("The Hundred Days Offensive ended on 11 November 1918.", 2)
    titles = ["Battle of Cambrai", "Hundred Days Offensive", "Somaliland Campaign"]
    assert SEL.next_hop(SEL.Picked((first,), ()), [], [british], q, titles=titles).sentences == (first,)
    assert SEL.next_hop(SEL.Picked((first,), ()), [], [british, hundred], q, titles=titles).sentences == (hundred, first)


def test_of_answers_equally_close_to_stage_1s_the_one_the_question_reaches_leads():
    # both say "Hillary Clinton won"; the home's document names New Hampshire, not Texas
    q = "Who did the state where Christian Science Pleasant View Home was located vote for in 2016?"
    opening = "The state where Christian Science Pleasant View Home was located voted for Hillary Clinton in 2016."
    home = quote("The Christian Science Pleasant View Home is a residence in Concord, New Hampshire, United States.", 1)
    texas = quote("The 2016 United States election in Texas was won by Donald Trump over Hillary Clinton.", 2)
    nh = quote("The 2016 United States election in New Hampshire was won by Hillary Clinton.", 3)
    titles = ["Christian Science Pleasant View Home", "Texas election", "New Hampshire election"]
    for quotes in ([home, texas, nh], [home, nh, texas]):
        picked = SEL.compose(SEL.Selection("Hillary Clinton", ()), [], q, titles=titles, opening=opening, quotes=quotes)
        assert [s.text for s in picked.sentences][:2] == [nh.text, home.text]
    assert SEL._most_linked([texas, nh], [home, texas, nh], q) == [nh]
    assert SEL._most_linked([texas, nh], [texas, nh], q) == [texas, nh]  # nothing names the question's names
    # naming the question's names counts for nothing: one restating the question is not the closer one
    named = quote("The Christian Science Pleasant View Home voted for Hillary Clinton.", 4)
    assert SEL._most_linked([nh, named], [home, texas, nh, named], q) == [nh]


def test_a_title_with_small_words_is_a_name_its_pronoun_resolves_to():
    q = "Park Seo-joon is best known for his role in a series that premiered on what month and day?"
    known = fact('Park Seo-joon is best known for his role in the dramas "She Was Pretty" (2015) and "Fight for My '
                 'Way" (2017).', (1,))
    it = quote("It premiered on May 22, 2017 on KBS2.", 2)
    titles = ["Park Seo-joon", "Fight for My Way"]
    texts = ["Park Seo-joon is a South Korean actor.", "Fight for My Way is a South Korean television series."]
    assert SEL.resolve_pronoun(it, titles, texts).text == "Fight for My Way premiered on May 22, 2017 on KBS2."
    picked = SEL.next_hop(SEL.Picked((known,), ()), [], [it], q, titles=titles, texts=texts)
    assert [s.text for s in picked.sentences] == ["Fight for My Way premiered on May 22, 2017 on KBS2.", known.text]
    assert SEL.resolve_pronoun(it, ["Press release for 2021"] * 2, texts) is it  # a common noun is no name


def test_a_sentence_of_a_document_opening_with_the_new_name_may_be_the_second_hop():
    q = "The Ingerophrynus gollum is named after a character in a book that sold how many copies?"
    named = fact("The Ingerophrynus gollum is named after the character Gollum created by J. R. R. Tolkien.", (1,))
    sold = quote('Written between 1937 and 1949, "The Lord of the Rings" is one of the best-selling novels ever written, '
                 "with over 150 million copies sold.", 2)
    titles = ["Ingerophrynus", "The Lord of the Rings", "Suanfa tongzong"]
    texts = ["Ingerophrynus is a genus of true toads.",
             "The Lord of the Rings is an epic high fantasy novel written by J. R. R. Tolkien. " + sold.text,
             "Suanfa tongzong is a mathematical text. The book sold 5000 copies."]
    picked = SEL.next_hop(SEL.Picked((named,), ()), [], [sold], q, titles=titles, texts=texts)
    assert [s.text for s in picked.sentences] == [sold.text, named.text]
    # a document whose opening names no one new is no hop, however it states the relation
    other = quote("The book sold 5000 copies.", 3)
    assert SEL.next_hop(SEL.Picked((named,), ()), [], [other], q, titles=titles, texts=texts).sentences == (named,)


def test_a_relation_before_the_wh_word_is_a_hops_only_in_a_clause_or_of_a_described_subject():
    assert asked("Kevin Watson currently manages which Southern League football team?") == frozenset()
    assert asked("Chiang Chungcheng was involved in what battle in 1942?") == frozenset()
    assert asked("The Battle of Cambrai took place during a series of offensives that ended on what date?") == {"end"}


def test_a_direction_word_of_a_name_opens_no_document_for_the_second_hop():
    q = "Jun Ji-hyun rose to fame after her role as a girl in a film that's title means what?"
    sassy = fact('My Sassy Girl (literally, "That Bizarre Girl") is a 2001 South Korean comedy film starring Jun '
                 "Ji-hyun.", (1,))
    mare = quote('The title, "Il Mare", means "The Sea" in Italian.', 2)
    texts = ["My Sassy Girl is a 2001 film.", "Il Mare is a 2000 South Korean film. " + mare.text]
    titles = ["My Sassy Girl", "Il Mare"]
    assert SEL.next_hop(SEL.Picked((sassy,), ()), [], [mare], q, titles=titles, texts=texts).sentences == (sassy,)


def test_of_ties_naming_as_much_the_one_saying_the_questions_words_follows_the_lead():
    # two ties name the king; Okapi BM25 over the two ranked the long battle sentence first
    q = "In which county is the English king Harold Godwinson buried?"
    opening = "Harold Godwinson is buried in Waltham Abbey, Essex, England."
    church = quote("The Abbey Church of Waltham Holy Cross is the parish church of the town of Waltham Abbey, Essex, "
                   "England.", 5)
    buried = fact("The English king Harold Godwinson is buried in Waltham Abbey.", (1,))
    battle = quote("The Battle of Stamford Bridge took place in England on 25 September 1066, between an English army "
                   "under King Harold Godwinson and a Norwegian force led by King Harald Hardrada and the English "
                   "king's brother Tostig Godwinson, near Waltham Abbey.", 4)
    pick = fact("Edith the Fair was the first wife of King Harold Godwinson.", (2,))
    for verified, quotes in (([pick, buried], [church, battle]), ([pick], [church, battle, quote(buried.text, 1)])):
        out = SEL.lead(SEL.Picked((pick,), ()), verified, quotes, q, opening, titles=["", "", "", "", ""])
        assert [s.text for s in out.sentences[:2]] == [church.text, buried.text]
    assert SEL.closest([battle], q) is battle


def test_the_tie_names_whom_the_lead_is_about_before_saying_more_of_the_question():
    q = ("When was the Argentine former footballer which Dutch manager Ronald Koeman replaced in 2014–15 Southampton "
         "F.C. season born?")
    opening = "The Argentine former footballer Mauricio Pochettino was born on 2 March 1972."
    head = quote("Mauricio Roberto Pochettino (born 2 March 1972) is an Argentine former footballer and the current "
                 "manager of Premier League club Tottenham Hotspur.", 2)
    replaced = quote("Ronald Koeman replaced Mauricio Pochettino as manager on 16 June 2014.", 1)
    season = quote("The 2014–15 Southampton F.C. season was the club's 16th season in the Premier League.", 1)
    pick = fact("Southampton is a football club.", (3,))
    titles = ["2014–15 Southampton F.C. season", "Mauricio Pochettino", "Southampton F.C.", "", ""]
    for quotes in ([head, season, replaced], [head, replaced, season]):
        out = SEL.lead(SEL.Picked((pick,), ()), [pick], quotes, q, opening, titles=titles)
        assert [s.text for s in out.sentences[:2]] == [head.text, replaced.text]
    # no tie names him: one sharing a name with the lead, not a direction word ("South" of "South Korean")
    q2 = "Which member of the boy group Shinee released their first studio album She Is?"
    lead2 = quote("Kim Jong-hyun, better known by the mononym Jonghyun, is a South Korean singer-songwriter.", 2)
    debut = quote("Jonghyun wrote Korean lyrics for the Shinee single Juliette, released on the album Romeo.", 3)
    first = quote("The First is the first Japanese studio album by South Korean boy group Shinee.", 1)
    pick2 = fact("Shinee is a boy group.", (5,))
    for quotes in ([lead2, first, debut], [lead2, debut, first]):
        out = SEL.lead(SEL.Picked((pick2,), ()), [pick2], quotes, q2, "Jonghyun of the boy group Shinee is a South Korean singer.",
                       titles=["The First (album)", "Kim Jong-hyun (singer)", "Songs by Jonghyun", "", "Shinee"])
        assert [s.text for s in out.sentences[:2]] == [lead2.text, debut.text]


def test_a_pick_sharing_only_a_month_with_the_answer_is_not_linked_to_it():
    q = 'The band who released the debut album "Tinted Windows" had their first performance in what city?'
    first = fact("The first performance by the band was on March 18, 2009 at Cain's Ballroom in Tulsa, Oklahoma.", (2,))
    tour = fact("The Delta Machine Tour was a worldwide concert tour by English electronic music band Depeche Mode in "
                "support of the group's 13th studio album, \"Delta Machine\", released 22 March 2013.", (4,))
    friday = fact("The band played on Friday, May 3, 2009 in New Jersey.", (2,))
    assert not SEL.links(tour.text, first.text, q) and not SEL.links(friday.text, "They met on Friday, June 1.", q)
    titles = ["Tinted Windows (album)", "Tinted Windows (band)", "Cain's Ballroom", "The Delta Machine Tour"]
    picked = SEL.compose(SEL.Selection("Tulsa, Oklahoma", (0, 1)), [first, tour], q, titles=titles)
    assert picked.sentences == (first,)
    # a real name shared still links
    hall = fact("Cain's Ballroom is a historic venue in Tulsa.", (3,))
    assert SEL.compose(SEL.Selection("Tulsa, Oklahoma", (0, 1)), [first, hall], q, titles=titles).sentences == (
        first, hall)


def test_the_sentence_naming_all_of_a_sentence_answer_comes_before_a_template_fill():
    q = 'Qazi is a Kashmiri singer that won "Fame Gurukul" along with a singer born where?'
    won = fact('Qazi Touqeer won "Fame Gurukul" along with Ruprekha Banerjee.', (1,))
    fill = fact("Qazi Touqeer was born in Kolkata.", (2,))
    born = fact("Ruprekha Banerjee was born in Kolkata.", (2,))
    other = fact("Kailash Mehra Sadhu is a Kashmiri singer.", (3,))
    sel = SEL.Selection("Ruprekha Banerjee was born in Kolkata.", (3,))
    picked = SEL.compose(sel, [won, fill, born, other], q)
    assert picked.sentences[0] is born
    # with no sentence naming all of it, the two-thirds ones are still found
    assert SEL.compose(SEL.Selection(sel.answer, (2,)), [won, fill, other], q).sentences[0] is fill


def test_a_tie_counts_the_question_words_it_says_as_shown():
    q = "The character Jack from While You Were Sleeping was born in what year?"
    head = fact('William James "Bill" Pullman was born in December 17, 1953.', (2,))
    stars = quote("It stars Sandra Bullock as Lucy, and Bill Pullman as Jack, the brother of a man whose life she "
                  "saves.", 1)
    titles = ["While You Were Sleeping (film)", "Bill Pullman"]
    texts = ["While You Were Sleeping is a 1995 romantic comedy film. " + stars.text,
             'William James "Bill" Pullman (born December 17, 1953) is an American actor.']
    opening = "The character Jack from While You Were Sleeping was born in 1953."
    picked = SEL.lead(SEL.Picked((head,), ()), [head], [stars], q, opening, titles=titles, texts=texts)
    assert [s.citations for s in picked.sentences] == [(2,), (1,)]  # "It" read as the film: Jack's film tied
    # as written, "It stars ... Jack" says one word of the question: no tie
    alone = SEL.lead(SEL.Picked((head,), ()), [head], [stars], q, opening, titles=["x", "Bill Pullman"], texts=texts)
    assert [s.citations for s in alone.sentences] == [(2,)]


def test_a_second_relative_clause_of_the_same_one_is_no_second_part():
    assert not SEL.several_parts("Name the actor who has acted in the film Arrival and who has been nominated for "
                                 "the Academy Award for Best Supporting Actor for the film The Town?")
    assert SEL.several_parts("Who coined the phrase manifest destiny and what does it mean?")
    assert SEL.several_parts("Who is fifa and how many member countries do they have?")
    assert SEL.several_parts("When was it launched and which categories does it sell?")


def test_a_pick_of_the_document_the_question_names_is_a_first_hop():
    q = "Who founded the company that distributed the film UHF?"
    support = fact("They struggled with finding a film production company, but were able to get Orion Pictures' "
                   "support.", (2,))
    founder = quote("Morris Mike Medavoy (born January 21, 1941) is an American film producer, co-founder of Orion "
                    "Pictures (1978).", 5)
    titles = ["SModcast Pictures", "UHF (film)", "Videodrome", "Amblin Entertainment", "Mike Medavoy"]
    hop = SEL.next_hop(SEL.Picked((support,), ()), [support], [founder], q, titles=titles)
    assert hop.sentences == (founder, support)
    # a pick of another document is no first hop
    titles[1] = "Weird Al Yankovic"
    assert SEL.next_hop(SEL.Picked((support,), ()), [support], [founder], q, titles=titles).sentences == (support,)


def test_they_after_two_names_joined_by_and_is_those_two():
    doc = ("Yankovic and Levey wrote the film after Yankovic's second studio album. They struggled with finding a "
           "film production company for financing the film.")
    they = fact("They struggled with finding a film production company for financing the film.", (1,))
    assert SEL.resolve_pronoun(they, ["UHF (film)"], [doc]).text.startswith("Yankovic and Levey struggled with")
    # not after another opening, nor without the document's text
    other = doc.replace("Yankovic and Levey wrote", "The two wrote")
    assert SEL.resolve_pronoun(they, ["UHF (film)"], [other]) is they
    assert SEL.resolve_pronoun(they, ["UHF (film)"]) is they
    # a title that resolves "They" still does
    slade = fact("They rose to prominence.", (1,))
    assert SEL.resolve_pronoun(slade, ["Slade"], ["Slade are an English glam rock band. They rose to prominence."]
                               ).text == "Slade rose to prominence."


def test_a_month_is_no_one_new_for_a_second_hop():
    q = 'The band who released the debut album "Tinted Windows" had their first performance in what city?'
    first = fact("The first performance by the band was on March 18, 2009 at Cain's Ballroom in Tulsa, Oklahoma.", (2,))
    acl = quote("The band performed at the Austin City Limits Music Festival, which in 2013 was held across two weekends "
                "for the first time.", 4)
    titles = ["Tinted Windows (album)", "Tinted Windows (band)", "x", "The Delta Machine Tour"]
    texts = ["Tinted Windows is the debut album of Tinted Windows.", "Tinted Windows is a supergroup. " + first.text,
             "x", "The Delta Machine Tour was a tour by Depeche Mode, released 22 March 2013. " + acl.text]
    assert SEL.next_hop(SEL.Picked((first,), ()), [first], [acl], q, titles=titles, texts=texts).sentences == (first,)


def test_a_later_pick_of_the_document_the_question_names_is_no_first_hop():
    q = "Chandgi Ram won a gold medal in 1970 in a continental multi-sport event held at which city?"
    games = fact("The 6th Asian Games were held from December 9, 1970, to December 20, 1970, in Bangkok, Thailand.", (5,))
    tie = fact("He won gold medal in the 1970 Asian Games and represented India in the 1972 Summer Olympics.", (1,))
    pan = quote("The 1955 Pan American Games were a continental multi-sport event held in Mexico City, Mexico.", 2)
    titles = ["Chandgi Ram", "1955 Pan American Games", "x", "y", "1970 Asian Games"]
    picked = SEL.Picked((games, tie), ())
    assert SEL.next_hop(picked, [games, tie], [pan], q, titles=titles).sentences == (games, tie)


def test_a_time_asked_is_named_by_the_time_in_the_reply_not_its_place():
    q = "a cabinet-making firm was found which year, from Lancaster?"
    museum = fact("The Lancaster City Museum was founded in 1923.", (3,))
    firm = fact("Gillows of Lancaster and London was an English furniture making firm based in Lancaster.", (5,))
    martyrs = fact("The Lancaster Martyrs were executed at Lancaster in England.", (2,))
    founded = fact("Gillows of Lancaster and London was founded in Lancaster in about 1730 by Robert Gillow.", (5,))
    verified = [museum, martyrs, firm, founded]
    picked = SEL.compose(SEL.Selection("Lancaster, England, 1730", (0, 1)), verified, q)
    assert picked.sentences[0] is founded  # the reply's year, in a sentence the model did not pick, leads
    assert martyrs not in picked.sentences  # "Lancaster" and "England" named it; it says no year of the firm
    # a question asking no time: the reply's first part is what a sentence must name, as before
    where = SEL.compose(SEL.Selection("Lancaster, England, 1730", (0, 1)), verified,
                        "Where were the Lancaster Martyrs executed?")
    assert where.sentences[0] is martyrs


def test_a_same_nationality_question_shows_the_two_sentences_that_give_the_nationalities():
    q = "Are Donald Fagen and Lauren Laverne of the same nationality?"
    known = fact("Donald Fagen is best known as the co-founder and lead singer of the band Steely Dan.", (3,))
    laverne = fact("Lauren Laverne is an English radio DJ, model and television presenter.", (1,))
    american = fact("Donald Fagen is an American musician and songwriter.", (3,))
    picked = SEL.Picked((known, laverne), ())
    shown = SEL.both_sides(picked, [known, laverne, american], [], q)
    assert shown.sentences == (american, laverne)  # "American" and "English" answer it; "best known" does not
    assert SEL.conclusion(SEL.Selection("Yes", (0, 1)), q, shown=[s.text for s in shown.sentences]) == "No"
    # no pair gives both nationalities: the best sentence about each, as before
    assert SEL.both_sides(picked, [known, laverne], [], q).sentences == (known, laverne)


def test_stage_1_s_answer_does_not_replace_a_first_pick_saying_the_question_with_a_sentence_off_it():
    q = "Which American actors and comedian played a New York City tailor in The Angel Levine?"
    film = fact("The Angel Levine is a 1970 American film about an impoverished New York City tailor (played by "
                "Zero Mostel).", (1,))
    belafonte = fact("The tailor's faith is challenged by Alexander Levine (Harry Belafonte).", (1,))
    criss = fact("Christopher Nicholas Sarantakos, known by the stage name Criss Angel, is an American magician.", (4,))
    opening = "Christopher Nicholas Sarantakos (Criss Angel) played a New York City tailor in The Angel Levine."
    texts = [f"{film.text} {belafonte.text}", "", "", criss.text]
    picked = SEL.compose(SEL.Selection(opening, (0, 1)), [film, belafonte], q, opening=opening, quotes=[criss],
                         texts=texts)
    assert picked.sentences[0] is film
    assert criss not in picked.sentences
    # the model's restatement of the question as a first pick is no document's word: stage 1's sentence leads
    fill = fact("Zero Mostel's co-star played a New York City tailor in The Angel Levine as an American actor.", (1,))
    picked = SEL.compose(SEL.Selection(opening, (0, 1)), [fill, belafonte], q, opening=opening, quotes=[criss],
                         texts=texts)
    assert picked.sentences[0] is criss
    # a second hop the first pick names leads as before ("Orion Pictures" of the first pick)
    q2 = "Who founded the company that distributed the film UHF?"
    uhf = fact("UHF is a 1989 American film distributed by Orion Pictures.", (1,))
    orion = fact("Orion Pictures was founded by Arthur Krim in 1978.", (2,))
    picked = SEL.compose(SEL.Selection("Arthur Krim", (0,)), [uhf, orion], q2, opening="Arthur Krim founded Orion.")
    assert picked.sentences[0] is orion


def test_a_sentence_about_a_namesake_never_leads():
    # stage 1 named a namesake beside the question's man; the sentence about him shares the most words with it
    q = "What rank was higher than Karl Hermann Frank's rank until April 1942?"
    frank = fact("Karl Hermann Frank was a Nazi official and an SS-Obergruppenfuehrer.", (2,))
    knob = fact("Karl Hermann Knoblauch was a German physicist.", (4,))
    opening = "Karl Hermann Frank's rank was higher than Karl Hermann Knoblauch's rank until April 1942."
    titles = ["Obergruppenfuehrer", "Karl Hermann Frank", "Plajner", "Hermann Knoblauch"]
    texts = ["Obergruppenfuehrer was a rank.", "Karl Hermann Frank was a Nazi official.", "Plajner was a scout.",
             "Karl Hermann Knoblauch was a German physicist. He was one of the founding members of the society."]
    member = quote("Hermann Knoblauch was one of the founding members of the Knoblauch society in 1845.", 4)
    picked = SEL.compose(SEL.Selection(frank.text, (0, 1)), [frank, knob], q, titles=titles, opening=opening,
                         quotes=[member], texts=texts)
    assert [s.text for s in picked.sentences] == [frank.text]
    # a sentence of the namesake's document not naming him leads when the documents are not read
    picked = SEL.compose(SEL.Selection(frank.text, (0, 1)), [frank, knob], q, titles=titles, opening=opening,
                         quotes=[member])
    assert picked.sentences[0].text == member.text
    # the same sentence about the man himself leads as before
    himself = fact("Karl Hermann Frank was a German physicist.", (4,))
    picked = SEL.compose(SEL.Selection(frank.text, (0, 1)), [frank, himself], q, titles=titles,
                         opening=opening.replace("Knoblauch's", "a physicist's"))
    assert picked.sentences[0].text == himself.text


def test_a_lead_saying_the_hop_keeps_the_first_pick_saying_what_the_question_asks_of_it():
    q = "Where is the investment firm that acquired TI Automotive in 2015 headquartered?"
    bain = fact("Bain Capital is a global alternative investment firm based in Boston, Massachusetts.", (5,))
    ti = fact("TI Automotive was acquired by Bain Capital in 2015, and its headquarters are located in Oxford, UK.", (4,))
    picked = SEL.compose(SEL.Selection(bain.text, (0,)), [bain, ti], q, opening=ti.text)
    assert [s.text for s in picked.sentences] == [ti.text, bain.text]
    # from the head's own document, the pick goes on from nothing: the head alone, as before
    own = replace(bain, citations=(4,))
    picked = SEL.compose(SEL.Selection(own.text, (0,)), [own, ti], q, opening=ti.text)
    assert [s.text for s in picked.sentences] == [ti.text]
    # a pick naming nothing the head names is no next hop either
    other = fact("Izurium Capital is a UK-based investment firm headquartered in London.", (3,))
    picked = SEL.compose(SEL.Selection(other.text, (0,)), [other, ti], q, opening=ti.text)
    assert [s.text for s in picked.sentences] == [ti.text]


def test_a_first_pick_stating_the_relation_before_its_tie_is_the_whole_chain():
    q = "What was Nintendo's limit on games per developer per year on the platform that plays Drac's Night Out?"
    limit = fact("Each third-party developer could only release up to five games per year.", (2,))
    tie = fact("Drac's Night Out was developed for the Nintendo Entertainment System.", (1,))
    console = quote("The Nintendo Entertainment System is an 8-bit home video game console.", 5)
    titles = ["Drac's Night Out", "Super Nintendo Entertainment System", "", "", "Nintendo Entertainment System"]
    kept = SEL.next_hop(SEL.Picked((limit, tie), ()), [limit, tie], [console], q, titles=titles)
    assert kept.sentences == (limit, tie)
    # the tie alone stops at the first hop: the sentence stating what the question asks of the console leads
    hop = SEL.next_hop(SEL.Picked((tie,), ()), [tie], [console], q, titles=titles)
    assert hop.sentences == (console, tie)


SNL_Q = ("Which American comedian starred in the original cast of Saturday Night Live and played Stan Winters in the "
         "sitcom Martin?")
BELUSHI = fact("John Adam Belushi starred in the original cast of Saturday Night Live.", (4,))
MORRIS_SNL = fact("Garrett Morris starred in the original cast of Saturday Night Live.", (1,))
MORRIS_MARTIN = fact("Garrett Morris played Stan Winters in the sitcom Martin.", (1,))


def test_the_one_whose_sentences_name_all_the_question_names_replaces_one_that_fits_half_of_it():
    picked = SEL.Picked((BELUSHI,), ("n",))
    verified = [MORRIS_SNL, MORRIS_MARTIN, BELUSHI,
                fact("The American comedian who starred in the original cast of Saturday Night Live is Lorne Michaels.",
                     (3,))]
    out = SEL.covering(picked, verified, SNL_Q)
    assert out.sentences == (MORRIS_MARTIN, MORRIS_SNL)  # most names first
    assert "Garrett Morris" in out.notes[-1]
    # through compose too: the answer step's pick of Belushi is replaced
    assert SEL.compose(SEL.Selection("John Adam Belushi", (2,)), verified, SNL_Q).sentences[0] is MORRIS_MARTIN
    # an answer naming every name of the question stands
    assert SEL.covering(SEL.Picked((MORRIS_MARTIN, BELUSHI), ()), verified, SNL_Q).sentences == (MORRIS_MARTIN, BELUSHI)
    # no other subject covers the question: unchanged; two that do alike: unchanged (no way to tell them apart)
    assert SEL.covering(picked, [BELUSHI, MORRIS_SNL], SNL_Q) is picked
    twin = [fact(t.text.replace("Garrett Morris", "Tim Meadows"), (2,)) for t in (MORRIS_SNL, MORRIS_MARTIN)]
    assert SEL.covering(picked, verified + twin, SNL_Q) is picked
    # a shorter name inside a longer one is the same subject: Belushi's sentences are the answer's already
    belushi_martin = fact("Adam Belushi played Stan Winters in the sitcom Martin.", (4,))
    assert SEL.covering(picked, [BELUSHI, belushi_martin], SNL_Q) is picked
    # a one-word name may be a thing's: no subject
    assert SEL.covering(picked, [BELUSHI, fact("Morris played Stan Winters in Martin on Saturday Night Live.")],
                        SNL_Q) is picked
    # not for a question asking a time, or an answer with a caveat
    when_q = SNL_Q.replace("Which American comedian starred", "When did the American comedian who starred")
    assert SEL.covering(picked, verified, when_q) is picked
    assert SEL.covering(SEL.Picked((BELUSHI,), (), SEL.D.Caveat("x", "y")), verified, SNL_Q).sentences == (BELUSHI,)


def test_who_is_he_at_the_end_asks_for_the_one_as_well():
    q = ("After David Stern retired from being commissioner of the NBA, this american lawyer and businessman succeed "
         "him and is now the current commissioner who is he?")
    manfred = fact("Robert D. Manfred Jr. is the tenth and current Commissioner of Baseball.", (3,))
    silver = [fact("Adam Silver succeeded David Stern on February 1, 2014.", (2,)),
              fact("Adam Silver is the current commissioner of the NBA.", (2,))]
    # John Drew's sentences name David Stern and the NBA too; Adam Silver's say more of the question
    drew = [fact("John Edward Drew was a two-time NBA All-Star.", (5,)),
            fact("John Edward Drew was one of the earliest casualties of the drug policy instituted by commissioner "
                 "David Stern.", (5,))]
    out = SEL.covering(SEL.Picked((manfred,), ()), [manfred, *drew, *silver], q)
    assert set(out.sentences) == set(silver)
    # with Adam Silver's sentences saying as much of the question as Drew's (a tie), nothing changes
    short = [fact("Adam Silver followed David Stern as commissioner.", (2,)), fact("Adam Silver is in the NBA.", (2,))]
    assert SEL.covering(SEL.Picked((manfred,), ()), [manfred, *drew, *short], q).sentences == (manfred,)
    assert SEL.covering(SEL.Picked((manfred,), ()), [manfred, *silver], q.replace("who is he?", "what year?")).sentences \
        == (manfred,)


def test_a_first_pick_saying_the_rest_of_stage_1s_answer_leads_the_head_that_leaves_its_name_out():
    q = "What happened to the Curonians who lived in the area where Erich Zakowski was born?"
    opening = ("The Curonians who lived in the area where Erich Zakowski was born, born on November 25, 1934 in East "
               "Prussia, were expelled by the Soviet Union.")
    curonians = fact("The Curonians who lived in the area around the Curonian Lagoon were expelled by the Soviet Union.",
                     (1,))
    zakowski = fact("Erich Zakowski (born 25 November 1934 in East Prussia) is a German master mechanic.", (2,))
    picked = SEL.compose(SEL.Selection(curonians.text, (0,)), [curonians, zakowski], q, opening=opening)
    assert picked.sentences == (curonians, zakowski)
    # from the head's own document, or naming nothing the head leaves out, or saying less than two words of the
    # opening, the pick does not lead: the head alone, as before
    for pick in (replace(curonians, citations=(2,)),
                 fact("The Lagoon people who lived in the area were expelled by the Soviet Union.", (1,)),
                 fact("The Curonians who lived in the area around the Curonian Lagoon were fishermen.", (1,))):
        picked = SEL.compose(SEL.Selection(pick.text, (0,)), [pick, zakowski], q, opening=opening)
        assert picked.sentences == (zakowski,), pick.text


def test_the_sentence_tying_the_answer_to_the_question_subject_follows_it_and_unlinked_picks_go():
    q = "Which basketball club located in Alytus, Lithuania does Anatoly Kashirov play for?"
    alita = fact("BC Alita was a basketball club from Alytus, Lithuania.", (2,))
    dzukija = fact("BC Dzūkija is a basketball club located in Alytus, Lithuania.", (5,))
    kashirov = fact("Anatoly Kashirov plays for Dzūkija Alytus of the Lithuanian Basketball League.", (1,))
    out = SEL.tied_back(SEL.Picked((alita, dzukija), ()), [alita, dzukija, kashirov], q)
    assert out.sentences == (dzukija, kashirov)
    assert "Anatoly Kashirov" in out.notes[-1]
    # an answer naming the question's names stands; a sentence sharing only the question's "Alytus" ties nothing;
    # two ties: unchanged
    assert SEL.tied_back(SEL.Picked((kashirov, dzukija), ()), [alita, dzukija, kashirov], q).sentences == (
        kashirov, dzukija)
    lone = fact("Anatoly Kashirov is a Russian basketball player born in Alytus.", (1,))
    assert SEL.tied_back(SEL.Picked((alita, dzukija), ()), [alita, dzukija, lone], q).sentences == (alita, dzukija)
    twin = fact("Anatoly Kashirov joined Dzūkija in 2016.", (1,))
    assert SEL.tied_back(SEL.Picked((alita, dzukija), ()), [alita, dzukija, kashirov, twin], q).sentences == (
        alita, dzukija)
    # "BC" of any basketball club links nothing: stage 1's "Anatoly Kashirov plays for BC Alytus" is no second tie
    bc = fact("Anatoly Kashirov plays for BC Alytus, a basketball club located in Alytus, Lithuania.", (1, 4))
    assert SEL.tied_back(SEL.Picked((alita, dzukija), ()), [alita, dzukija, kashirov, bc], q).sentences == (
        dzukija, kashirov)
    # a pick sharing no name with the tie stays when it names what the others do not
    rush = SEL.tied_back(SEL.Picked((VERIFIED[0], VERIFIED[3]), ()), VERIFIED, Q)
    assert rush.sentences == (VERIFIED[0], VERIFIED[3], VERIFIED[2])


def test_the_reply_copying_a_picked_sentence_with_the_date_asked_at_the_questions_end_leads_it():
    q = "...Ready for It? is a Taylor Swift song from the album scheduled to be released on what date?"
    album = fact("Reputation is the upcoming sixth studio album by American singer-songwriter Taylor Swift.", (2,))
    song = fact('The song "...Ready for It?" is from Taylor Swift\'s sixth studio album, "Reputation".', (1,))
    date = fact("It is scheduled for release on November 10, 2017, through Big Machine Records.", (2,))
    titles = ["...Ready for It?", "Reputation (Taylor Swift album)"]
    texts = ['"...Ready for It?" is a song by Taylor Swift.', album.text + " " + date.text]
    reply = ('Taylor Swift\'s sixth studio album, "Reputation", is scheduled for release on November 10, 2017, through '
             'Big Machine Records.')
    assert SEL.named_answer(reply, q) == "November 10, 2017"  # the wh-word ends the question
    assert SEL.named_answer(reply, "How is the album released on November 10, 2017 made?") == ""
    opening = ("Reputation (Taylor Swift album) is the upcoming sixth studio album by American singer-songwriter "
               "Taylor Swift.")
    picked = SEL.compose(SEL.Selection(reply, (1, 2)), [album, song, date], q, titles=titles, opening=opening,
                         texts=texts)
    # the date's sentence (its "It" the album) leads, not stage 1's opening; the song's sentence ties it to the question
    assert [s.text for s in picked.sentences] == [
        "Reputation is scheduled for release on November 10, 2017, through Big Machine Records.", song.text]


def test_the_airport_of_a_title_ending_in_airport_is_that_airport():
    s = quote("The airport is home to the 642nd Aviation Support Battalion, part of the 42nd Infantry Division.", 1)
    texts = ["Greater Rochester International Airport (IATA: ROC) is three miles southwest of downtown Rochester. "
             "The airport is home to the 642nd Aviation Support Battalion, part of the 42nd Infantry Division."]
    assert SEL.resolve_pronoun(s, ["Greater Rochester International Airport"], texts).text.startswith(
        "Greater Rochester International Airport is home to the 642nd")
    assert SEL.resolve_pronoun(s, ["Greater Rochester International Stadium"], [texts[0].replace("Airport", "Stadium")]) is s


def test_a_pronoun_that_stays_after_another_documents_sentence_is_left_out():
    q = "JSOC was created on the recommendation of a colonel who served in the Malayan Emergency and what other war?"
    vietnam = fact("He served in the Malayan Emergency and the Vietnam War.", (2,))
    malaya = fact("He was a colonel.", (2,))
    josey = fact("He was in charge of psychological warfare against the terrorists during The Malayan Emergency.", (3,))
    titles = ["Joint Special Operations Command", "Charles Alvin Beckwith", "Alex Josey"]
    texts = ["JSOC was created in 1980.", "Charles Alvin Beckwith was a colonel. He served in the Vietnam War.",
             "Alexander Arthur Josey was a journalist."]  # the text never calls him "Alex Josey": his "He" stays
    picked = SEL.compose(SEL.Selection("Vietnam War", (0, 2)), [vietnam, malaya, josey], q, titles=titles,
                         texts=texts)
    assert [s.text for s in picked.sentences] == [
        "Charles Alvin Beckwith served in the Malayan Emergency and the Vietnam War."]
    assert any("pronoun stays after another document's sentence" in n for n in picked.notes)


def test_sentences_after_the_shown_answer_that_name_nothing_of_it_are_left_out():
    q = "Who performed at the champions league final 2018?"
    final = fact("The 2018 UEFA Champions League Final was played in Kiev between Real Madrid and Liverpool.", (4,))
    women = fact("The 2018 UEFA Women's Champions League Final was held two days earlier between Wolfsburg and Lyon.",
                 (2,))
    again = fact("Real Madrid won the final against Liverpool 3-1.", (4,))
    picked = SEL.carried(SEL.Picked((final, women, again), ()), q, "Real Madrid and Liverpool")
    assert picked.sentences == (final, again)  # a later sentence naming the answer stays
    assert "left out 1 sentence" in picked.notes[-1]
    # before the answer is shown, or while a name of the question is not, a sentence stays
    assert SEL.carried(SEL.Picked((women, final), ()), q, "Real Madrid and Liverpool").sentences == (women, final)
    named_q = "Who performed at the 2018 final in Kiev won by Real Madrid?"
    tie = fact("Dua Lipa performed at the opening ceremony in Kiev.", (1,))
    madrid = fact("Real Madrid won the 2018 final.", (4,))
    assert SEL.carried(SEL.Picked((tie, madrid), ()), named_q, "Dua Lipa").sentences == (tie, madrid)
    # a sentence saying a word of the question the shown ones leave out ties them to it: a bridge's first hop
    child_q = "Who is the child of the first person who gave in person state of the union?"
    child = fact("Jessie Woodrow Wilson Sayre was the daughter of US President Woodrow Wilson.", (5,))
    first = fact("The first person to give in person state of the union was Woodrow Wilson.", (3,))
    assert SEL.carried(SEL.Picked((child, first), ()), child_q, "Jessie Woodrow Wilson Sayre").sentences == (child, first)
    # a sentence naming a name of the answer is about it
    duo = fact("The Sound of Silence is a song by the American music duo Simon & Garfunkel.", (1,))
    wrote = fact("The Sound of Silence was written by Paul Simon in 1963.", (1,))
    q_artist = "Who is the original artist of sound of silence?"
    assert SEL.carried(SEL.Picked((wrote, duo), ()), q_artist, "Paul Simon").sentences == (wrote, duo)
    # not for a question asking why or how (several reasons answer it), of two parts, or with a caveat
    for other in ("Why does Netflix remove content?", "Who performed at the final and when was it played?"):
        p = SEL.Picked((final, women), ())
        assert SEL.carried(p, other, "Real Madrid and Liverpool") is p
    p = SEL.Picked((final, women), (), D.Caveat("answer:unknown", "no answer"))
    assert SEL.carried(p, q, "Real Madrid and Liverpool") is p
    # through compose: the answer step picked both
    out = SEL.compose(SEL.Selection("Real Madrid and Liverpool", (0, 1)), [final, women], q)
    assert out.sentences == (final,)
