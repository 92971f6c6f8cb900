"""The relation guard (engine/text/relations.py ``unstated``, engine/claims.py ``without_unstated_relations``):
a claim stating the relation the question names, from documents that never state it, is dropped before its check."""
from __future__ import annotations

from vericite.engine import records as R
from vericite.engine.claims import without_unstated_relations
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Document
from vericite.engine.text.content import stems
from vericite.engine.text.relations import asked, states, swapped_act, unstated
from vericite.engine.verifier import answer_claims, fact_claims

from tests.fakes import ScriptedLLM, WordChecker, words


class NamesChecker(WordChecker):
    """Entailed when the premise has every capitalised word and number of the hypothesis: a checker that reads
    the names, the way an NLI model passes a relation between two things a document names."""

    @staticmethod
    def score(premise: str, hypothesis: str) -> float:
        wanted = {w.lower() for w in hypothesis.split() if w[:1].isupper() or w[:1].isdigit()}
        return 1.0 if {w.strip('.,"') for w in wanted} <= words(premise) else 0.0

ARLEDGE = ("John Arledge (March 12, 1906 – May 15, 1947) was an American film and stage actor. He played dozens of "
           "supporting roles in the Hollywood movies of the 1930s–1940s, including \"The Grapes of Wrath\".")
GRAPES = "The Grapes of Wrath is a 1940 drama film directed by John Ford."
Q = "Who directed the 1940 film in which John Arledge appeared?"


def test_a_relation_the_document_never_states_is_unstated():
    assert unstated("John Arledge directed the 1940 film The Grapes of Wrath.", Q, ARLEDGE) == "direct"
    # the document that states it, in the question's word or another of the relation's ("director")
    assert unstated("John Ford directed The Grapes of Wrath.", Q, GRAPES) == ""
    assert unstated("John Ford directed it.", Q, "John Ford was the film's director.") == ""
    # an infobox's "Songwriter(s)" states who wrote it
    turn = "Turn Me On Single by Norah Jones Label Blue Note Songwriter (s) John D. Loudermilk Producer (s) Lee Alexander"
    assert unstated("John D. Loudermilk wrote Turn Me On.", "Who wrote Turn Me On?", turn) == ""
    assert unstated("Lee Alexander wrote Turn Me On.", "Who wrote Turn Me On?", "Turn Me On Producer Lee Alexander") != ""
    # a claim not stating the relation is not this guard's business
    assert unstated("John Arledge appeared in The Grapes of Wrath.", Q, ARLEDGE) == ""


def test_born_is_stated_by_a_life_span_and_not_by_a_school():
    q = "In what county is the city where Harris W. Fawell was born?"
    school = "Fawell is a graduate of West Chicago High School. He attended North Central College of Naperville."
    assert unstated("Fawell was born in West Chicago High School.", q, school) == "born"
    assert unstated("Fawell was born in 1929.", q, "Harris W. Fawell (March 25, 1929 – ) is a politician.") == ""


def test_the_maker_of_a_work_is_stated_by_by_and_a_name_the_question_lacks():
    q = "Who was married to the creator of Ruby Loftus Screwing a Breech Ring?"
    painting = "Ruby Loftus Screwing a Breech Ring is a 1943 painting by the British painter Laura Knight."
    assert unstated("Laura Knight created Ruby Loftus Screwing a Breech Ring.", q, painting) == ""
    # "by" a name the question gives says nothing of the claim's relation
    q2 = "What did the actress whom Mercer and Mancini wrote the song Moon River for win?"
    song = "Moon River is a song composed by Henry Mancini with lyrics by Johnny Mercer, performed by Audrey Hepburn."
    assert unstated("Audrey Hepburn wrote the song Moon River for Mancini.", q2, song) == "wrote"
    # a painting "by" its painter states who made it; a song "performed by" a singer does not
    assert unstated("Audrey Hepburn wrote Moon River.", q2, "Moon River, a song written by Audrey Hepburn.") == ""


def test_only_the_question_s_own_relation_words_count():
    # "US-based" is part of a compound, "direction" and "directly" share only the stem of "directed"
    assert unstated("InStyle is a US-based magazine.", "Are Vintage Life and InStyle both US-based magazines?",
                    "InStyle is a monthly fashion magazine published in the US.") == ""
    assert unstated("Some remotes are pointed directly at the TV.", "Why do some remotes function in any direction, "
                    "yet others only pointed directly at the TV?", "Infrared remotes need a line of sight.") == ""
    # "How do remotes work?" asks how they function, not where someone worked
    assert unstated("Remotes work by sending infrared light.", "How do TV remotes work?", "A remote sends light.") == ""
    # other languages have no table
    assert unstated("Иван родился в Москве.", "Где родился Иван?", "Иван жил в Москве.", lang="ru") == ""


def test_claims_stating_an_unstated_relation_are_dropped_before_their_check():
    docs = [Document("John Arledge", ARLEDGE), Document("The Grapes of Wrath (film)", GRAPES)]
    items = answer_claims(R.ANSWER, "John Arledge directed the 1940 film The Grapes of Wrath [1]. "
                          "John Ford directed The Grapes of Wrath [2].", docs, "en", final=False)
    items += fact_claims(R.EVIDENCE, "John Arledge directed The Grapes of Wrath.", 1, docs[0], "en")
    notes: list[str] = []
    out = without_unstated_relations(items, Q, "en", notes)
    assert [getattr(x, "verdict", "claim") for x in out] == [R.DROPPED_RELATION, "claim", R.DROPPED_RELATION]
    assert len(notes) == 2 and "'direct'" in notes[0] and "[1]" in notes[0]


LOUDER = ("Louder Than Bombs is a 2015 internationally co-produced drama film directed by Joachim Trier, and co-written "
          "with Eskil Vogt.  The film stars Jesse Eisenberg, Gabriel Byrne, Isabelle Huppert, David Strathairn, and Amy Ryan.")
KRULL = ("Krull is a 1983 film directed by Peter Yates and produced by Ron Silverman with a screenplay by Stanford "
         "Sherman.")


def test_a_name_given_another_act_by_its_documents_is_a_swapped_act():
    q = "Who produced the 2015 film starring Jesse Eisenberg, Gabriel Byrne, Isabelle Huppert, David Strathairn, and Amy Ryan?"
    claim = ("The 2015 film starring Jesse Eisenberg, Gabriel Byrne, Isabelle Huppert, David Strathairn, and Amy Ryan was "
             "produced by Joachim Trier.")
    assert unstated(claim, q, LOUDER) == ""  # "co-produced": the word is there, for no one
    assert swapped_act(claim, q, LOUDER) == "produced"
    # the documents give the name this act too: in the run before "by", or within three words of the name
    assert swapped_act(claim, q, LOUDER.replace("directed by", "produced and directed by")) == ""
    assert swapped_act(claim, q, LOUDER + " Joachim Trier produced it with Thomas Robsahm.") == ""
    assert swapped_act(claim, q, LOUDER + " Its producer, Joachim Trier, said so.") == ""
    assert swapped_act(claim, q, "Louder Than Bombs is a film by Joachim Trier.") == ""  # no act given: not told
    assert swapped_act(claim, q.replace("produced", "directed"), LOUDER) == ""  # not the question's act
    assert swapped_act(claim, q, LOUDER, "ru") == ""
    # the act after the name; a name ending its sentence ("Joachim Trier. The film stars ...")
    active = "Joachim Trier produced the 2015 film starring Jesse Eisenberg and Amy Ryan."
    assert swapped_act(active, q, LOUDER) == "produced"
    assert swapped_act(active, q, LOUDER.replace(", and co-written with Eskil Vogt.", ".")) == "produced"
    # a name in a list after "by" has that act ("written by Art Garfunkel and Paul Simon")
    song = "The song, performed by Paul Simon on the radio, was written by Art Garfunkel and Paul Simon."
    assert swapped_act("Paul Simon wrote the song.", "Who wrote the song?", song) == ""
    assert swapped_act("Paul Simon wrote the song.", "Who wrote the song?", song.replace(" and Paul Simon", "")) == "wrote"
    # the table's words are one act: "wrote" asked, "written by" claimed
    assert swapped_act("Krull was written by Ron Silverman.", "Who wrote Krull?", KRULL) == "written"
    assert swapped_act("Krull was produced by Ron Silverman.", "Who produced Krull?", KRULL) == ""
    assert swapped_act("Krull was directed by Ron Silverman.", "Who directed Krull?", KRULL) == "directed"
    # a cast's words are one act ("starred", "portrayed by"), and not a work's making ("directed by")
    herd = "The film is about two buffalo hunters (portrayed by Randolph Scott and Harry Carey)."
    assert swapped_act("Harry Carey starred in the film.", "Which actor starred in the film?", herd) == ""
    assert swapped_act("Harry Carey starred in the film.", "Which actor starred in the film?",
                       "The film was directed by Harry Carey.") == "starred"
    # a name's other deeds are no act the guard weighs: their words are many ("selected by" for "picked")
    curry = "NBA draft 2009 / Round: 1 / Pick: 7th overall Selected by the Golden State Warriors"
    assert swapped_act("The Golden State Warriors picked Stephen Curry.", "What team picked Stephen Curry?", curry) == ""
    buzzati = "The Seven Messengers is a collection of short stories written by Dino Buzzati."
    assert swapped_act("Dino Buzzati passed away in 1972.", "Who passed away first, Graves or Buzzati?", buzzati) == ""
    # before the check, with the notes saying why
    docs = [Document("Louder Than Bombs (film)", LOUDER)]
    items = answer_claims(R.ANSWER, claim.rstrip(".") + " [1].", docs, "en", final=False)
    notes: list[str] = []
    out = without_unstated_relations(items, q, "en", notes)
    assert [getattr(x, "verdict", "claim") for x in out] == [R.DROPPED_RELATION]
    assert "'produced' by a name document(s) [1] give only another act" in notes[0]


def test_the_pipeline_drops_the_unstated_relation_and_answers_from_the_document_that_states_it():
    """Stage 2 wrote the question's verb into the actor's document ("John Arledge directed ..."); a checker reading
    the names passes it. With the guard it is dropped and the answer comes from the director's document."""
    docs = [Document("John Arledge", ARLEDGE), Document("The Grapes of Wrath (film)", GRAPES)]
    replies = {"answer": "John Arledge directed The Grapes of Wrath [1].", "gate": "Yes",
               "extract:1": "John Arledge directed The Grapes of Wrath.",
               "extract:2": "The Grapes of Wrath is a 1940 drama film directed by John Ford."}
    on = VeriCite(ScriptedLLM(replies), NamesChecker(), prompts=PromptSet.load("paper-en"),
                  settings=Settings(claim_words=0, refine="merge"))
    res = on.answer(Q, docs)
    dropped = [s.text for st in res.stages[:2] for s in st.statements if s.verdict == R.DROPPED_RELATION]
    assert dropped == ["John Arledge directed The Grapes of Wrath."] * 2
    assert "Arledge directed" not in res.answer and "John Ford" in res.answer
    off = VeriCite(ScriptedLLM(replies), NamesChecker(), prompts=PromptSet.load("paper-en"),
                   settings=Settings(claim_words=0, refine="merge", relation_guard=False))
    without = off.answer(Q, docs)
    assert not [s for st in without.stages for s in st.statements if s.verdict == R.DROPPED_RELATION]
    kept = [s.text for st in without.stages[:2] for s in st.statements if s.verdict == R.KEPT]
    assert "John Arledge directed The Grapes of Wrath." in kept  # what the guard is for


def test_who_was_in_charge_is_asked_of_presidents_and_rulers():
    """MuSiQue's "Who was in charge of the country ...?" is stated as "President of Somalia", "King of ...":
    the second hop is found by those words, and a claim saying "in charge" from a document saying none is dropped."""
    q = "Who was in charge of the country Ceelmakoile is located in?"
    assert {"presid", "king", "minist"} <= asked(q, "en")
    assert states("On 10 September 2012, parliament elected Hassan Sheikh Mohamud as the new President of Somalia.",
                  asked(q, "en"), "en")
    assert unstated("Hassan Sheikh Mohamud was in charge of Somalia.", q,
                    "Hassan Sheikh Mohamud was elected President of Somalia.") == ""
    assert unstated("Abdi Farah Shirdon was in charge of Somalia.", q,
                    "Abdi Farah Shirdon is a Somali businessman.") == "charg"


def test_a_relation_of_one_described_by_a_name_is_asked_and_a_partner_is_a_spouse():
    # "president of India" is asked of a name the question gives; "the spouse of the Green performer" of the performer
    assert "spous" in asked("Who is the spouse of the Green performer?")
    assert "wife" in asked("Who plays the wife of Here Comes the Boom's screenwriter in Grown Ups?")
    assert "child" in asked("Who is the child of Chiang Hsiao-wen's father?")
    assert "presid" not in asked("When did the president of India visit the birthplace of Nelson Mandela?")
    assert "director" not in asked("Who is the spouse of the director of Jump for Glory?")  # "for" is no role
    assert states("Miquette Giraudy is a keyboard player, best known for her work with her partner Steve Hillage.",
                  asked("Who is the spouse of the Green performer?"))


def test_a_name_asked_is_asked_of_what_it_names_and_starring_is_a_relation_of_last_resort():
    q = "What is the name of the upcoming horror film adaptation starring Melanie Griffith's daughter?"
    assert asked(q) == stems("starring")  # not "name", which "was named Miss Golden Globe" states
    assert states('Suspiria is an adaptation of the 1977 film, and stars Dakota Johnson and Mia Goth.', asked(q), "en")
    assert not states("Dakota Johnson was named Miss Golden Globe in 2006.", asked(q), "en")
    assert asked("What is the name of the castle in the city where the performer of Fall was born?") == stems("castle")
    # another relation the question names is asked, the film's cast a hop; "star" as a noun asks nothing
    assert "star" not in asked("Who directed the 1941 film starring an actor who was also a stuntman?")
    assert asked("Which five star hotel is in Bucharest?") == frozenset()


def test_the_relation_of_a_name_the_question_gives_is_a_hop_when_it_asks_another():
    assert asked("When did Henrietta Ponsonby's father die?") == stems("died death")  # not "father": the first hop
    assert "father" in asked("Who is Henrietta Ponsonby's father?")  # nothing else asked: the father is
    assert states("John Spencer, 1st Earl Spencer (19 December 1734 – 31 October 1783) was a British peer.",
                  asked("When did Henrietta Ponsonby's father die?"), "en")
    assert not states("Her father, John Spencer, 1st Earl Spencer, was a great-grandson of the 1st Duke of Marlborough.",
                      asked("When did Henrietta Ponsonby's father die?"), "en")


def test_a_name_asked_of_a_work_is_stated_with_the_works_noun_not_with_title():
    q = "The runner-up in The Celebrity Apprentice 2 has written an autobiography titled what?"
    assert asked(q) == frozenset({"autobiographi"})
    assert states('Duke published her autobiography, "How I Raised, Folded, Bluffed", in 2005.', asked(q))
    assert not states("She used to be the leading money winner (a title now held by Vanessa Selbst).", asked(q))
    assert asked("The director of Jaws made a film named what?") == frozenset({"film"})
