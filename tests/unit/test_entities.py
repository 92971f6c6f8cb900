"""The entity guard (engine/text/entities.py): the rule alone, then in the Verifier and the pipeline on fakes."""
from __future__ import annotations

from vericite.engine import records as R
from vericite.engine.verifier import Verifier, answer_claims
from vericite.engine.text.entities import (found, names, names_itself, namesake, pronoun_of_another, self_related,
                                          swapped_subject, unsupported_names)
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.records import Document, StageTrace
from vericite.engine.text.relations import reversed_kin
from vericite.engine.timeline import Timeline

from tests.fakes import ScriptedLLM, WordChecker


def test_names_skip_openers_prompt_words_and_numerals():
    assert names("According to Document 4, the Police were formed in London by Stewart Copeland.") == \
        ["Police", "London", "Stewart", "Copeland"]
    assert names("Hagar's son met Henry III and J.Fox at the U.S._declaration.") == ["Hagar", "Henry", "Fox", "U.S"]
    assert names("Ответ: Варшава была столицей.") == ["Варшава"]
    assert names("Yes, InStyle is a US-based magazine.") == ["InStyle", "US"]


def test_found_tolerates_case_inflection_and_stemmer_quirks():
    assert found("Варшаве", "Варшава - столица Польши.")
    assert found("Генрихом", "император Генрих 3 пожаловал дворянство")  # the stemmer cuts "Генрих" to "генр"
    assert found("Canadians", "a Canadian rock band")
    assert found("rush", "Rush is a band")
    assert not found("Counterparts", "Stewart Copeland was the drummer of the Police.")



def test_a_capitalised_english_name_is_not_found_in_a_common_word_of_its_stem():
    # "Young" (Neil Young) in "younger siblings" made a sentence of the document "Adolescence" a second hop
    assert not found("Young", "Older siblings can give guidance to younger siblings.")
    assert not found("Bush", "The bushes grew along the river.")
    assert found("Young", "Youngs was the family's name.")  # a capitalised form still counts
    assert found("Young", "Neil young")  # the name as written, case aside
    assert found("Московский", "студенты московского университета")  # a Russian name's adjective is lower-case
    assert not found("Collectibles", "the Savannah College of Art and Design")  # same five letters, another word
    # a Latin stem begins another only as an ending does: "Generalissimo" is not "Major General", "Texan" is Texas
    assert not found("Generalissimo", "troops of Major General Tomitaro Horii")
    # a surname made of a first name is another name: "Johnson" is not "John Wilkes Booth", nor "Peter" "Peterson"
    assert not found("Johnson", "a conspirator, with John Wilkes Booth, in the assassination")
    assert not found("Peter", "Oscar Peterson played")
    assert found("Johnson", "Andrew Johnson's term") and found("Johnsons", "the Johnson family")
    assert found("Texan", "a town in West Texas") and found("Japanese", "a band from Japan")

def test_a_name_of_several_words_is_found_word_by_word_not_by_its_first_word():
    assert not found("Muskegon County Airport", "North Muskegon is a city in Michigan.")
    assert found("Muskegon County Airport", "It serves the Muskegon County Airport.")
    assert found("Muskegon County Airport", "The airport of Muskegon County (Airport code MKG).")
    assert found("Генрих Третий", "Третий сын, Генрихом названный")


def test_unsupported_names_include_the_questions_own():
    doc = "Stewart Copeland is an American musician, best known as the drummer of the rock band the Police."
    claim = "The Canadian rock band that released Counterparts is the Police."
    assert unsupported_names(doc, claim) == ["Canadian", "Counterparts"]
    assert unsupported_names(doc, "Stewart Copeland was the drummer of the Police.") == []


def _resolve(verifier, items):
    batch = verifier.submit(items, (R.KEPT, R.DROPPED_NLI), StageTrace("t"), Timeline())
    trace = StageTrace("t")
    return verifier.resolve(batch, trace, Timeline()), trace


class Lenient(WordChecker):
    """A checker that entails everything (the failure the guard stands in for)."""

    def scores(self, pairs):
        self.pairs += list(pairs)
        import numpy as np
        return np.ones(len(pairs), dtype=np.float32)


DOCS = [Document("Stewart Copeland", "He was the drummer of the rock band the Police."),
        Document("Counterparts (song)", "Counterparts is a song by the Canadian rock band Rush.")]


def test_the_verifier_zeroes_pairs_whose_documents_lack_a_name_and_titles_count():
    items = answer_claims(R.ANSWER, "Stewart Copeland was the drummer of the Police [1]. "
                                    "Counterparts was released by the Police [1].", DOCS, "en", final=False)
    out, trace = _resolve(Verifier(Lenient(), threshold=0.5, schedule="sequential", entity_guard=True), items)
    assert [s.verdict for s in out] == [R.KEPT, R.DROPPED_NLI]  # "Stewart Copeland" is the title of document 1
    assert out[1].score == 0.4999 and any("Counterparts" in n for n in trace.notes)  # capped below the threshold
    off, _ = _resolve(Verifier(Lenient(), threshold=0.5, schedule="sequential"), items)
    assert [s.verdict for s in off] == [R.KEPT, R.KEPT]


def test_with_recite_a_claim_moves_to_the_document_that_names_it():
    items = answer_claims(R.ANSWER, "Counterparts is a song by the Canadian rock band Rush [1].", DOCS, "en",
                          final=False, recite=True)
    out, _ = _resolve(Verifier(Lenient(), threshold=0.5, schedule="sequential", entity_guard=True), items)
    assert (out[0].verdict, out[0].citations, out[0].recited) == (R.KEPT, (2,), (2,))


def test_the_pipeline_drops_a_final_sentence_that_forces_a_name_onto_its_document():
    replies = {"answer": "Stewart Copeland was the drummer of the Police [1].", "gate": "No",
               "refine": "The Canadian rock band that released Counterparts is the Police [1]."}
    res = VeriCite(ScriptedLLM(replies), Lenient(), settings=Settings(claim_words=0)).answer(
        "Which Canadian band released Counterparts?", DOCS)
    assert "Counterparts is the Police" not in res.answer
    assert res.stages[2].statements[0].verdict == R.UNSUPPORTED
    # the guard off (and document_words, which shows its document's own sentence instead), it passes
    off = VeriCite(ScriptedLLM(replies), Lenient(), settings=Settings(claim_words=0, entity_guard=False,
                                                                      document_words=False)).answer(
        "Which Canadian band released Counterparts?", DOCS)
    assert "Counterparts is the Police" in off.answer


GAAL = ('Béla Gaál (2 January 1893 – 18 February 1945) was a Hungarian film director.  His 1930 film "Csak egy '
        'kislány" was the first sound film to be made in Hungary.')


def test_a_claim_copying_a_predicate_onto_another_subject_is_swapped():
    assert swapped_subject(GAAL, "Béla Gaál was the first sound film to be made in Hungary.") == \
        'His 1930 film "Csak egy kislány"'
    assert swapped_subject(GAAL, "Béla Gaál was a Hungarian film director.") == ""  # said of him
    assert swapped_subject(GAAL, "Béla Gaál's 1930 film was the first sound film to be made in Hungary.") == ""
    memoir = "Memoir of Halldór Laxness was published in 2003.  It is the memoir of novelist and Nobel Laureate Laxness."
    claim = "Halldór Laxness was the memoir of novelist and Nobel Laureate Laxness."
    assert swapped_subject(memoir, claim, ["Memoir of Halldór Laxness"]) == "It"  # "It" is the memoir, not him
    assert swapped_subject(memoir, claim, ["Halldór Laxness"]) == ""
    tales = 'Tales Of Budapest (Hungarian: "Pesti mese" ) is a 1937 Hungarian comedy film directed by Béla Gaál.'
    fill = "Béla Gaál is a 1937 Hungarian comedy film directed by Béla Gaál."
    assert swapped_subject(tales, fill, ["Tales of Budapest"]) == "Tales Of Budapest"  # the document's own subject
    assert swapped_subject(tales, fill, ["Hungarian cinema"]) == ""  # a name not the document's: cannot tell
    assert swapped_subject(tales, "Tales of Budapest is a 1937 Hungarian comedy film.", ["Tales of Budapest"]) == ""
    # a shared surname is no alias: the wife's sentence said of her husband
    lil = ('Lillian "Lil" Hardin Armstrong (née Hardin; February 3, 1898 – August 27, 1971) was a jazz pianist, '
           'composer, arranger, singer, and bandleader. She was the second wife of Louis Armstrong.')
    said = "was a jazz pianist, composer, arranger, singer, and bandleader."
    assert swapped_subject(lil, f"Louis Armstrong {said}", ["Lil Hardin Armstrong"]) == 'Lillian "Lil" Hardin Armstrong'
    assert swapped_subject(lil, f"Lil Armstrong {said}", ["Lil Hardin Armstrong"]) == ""
    assert swapped_subject(lil, f"Armstrong {said}", ["Lil Hardin Armstrong"]) == ""
    gough = "Damon Gough (born 1969), known as Badly Drawn Boy, is an English indie singer-songwriter."
    assert swapped_subject(gough, "Badly Drawn Boy is an English indie singer-songwriter.", ["Damon Gough"]) == ""
    later = "It is listed on the London Stock Exchange and is a constituent of the FTSE 250 Index."
    assert swapped_subject(later, "Greene King is a constituent of the FTSE 250 Index.", ["Greene King plc"]) == ""
    place = "It is situated near the Yadkin River and the Old Beatty Ford Road."
    assert swapped_subject(place.replace(" and", ","), "Gold Hill is situated near the Yadkin River.",
                           ["Gold Hill, North Carolina"]) == ""
    # a described subject ("The film, which starred Tom Hanks") or a pronoun: cannot tell, not swapped
    film = "The film, which starred Tom Hanks, was released in the summer of 1994. He was a singer in a rock band."
    assert swapped_subject(film, "Forrest Gump was released in the summer of 1994.") == ""
    assert swapped_subject(film, "Tom Hanks was a singer in a rock band.") == ""
    iero = "Frank Iero (born 1981) is an American musician.  He has a solo punk rock project titled the Patience."
    assert swapped_subject(iero, "Frank Iero is a solo punk rock project titled the Patience.") == "He has"
    felice = "Cynthia Felice (born October 12, 1942, in Chicago) is a writer.  She and Connie Willis wrote novels."
    assert swapped_subject(felice, "Connie Willis was born on October 12, 1942, in Chicago.", ["Cynthia Felice"]) == \
        "Cynthia Felice"  # a life's date in brackets
    assert swapped_subject(felice, "Cynthia Felice was born on October 12, 1942, in Chicago.", ["Cynthia Felice"]) == ""
    husband = "Auður Laxness was an Icelandic writer.  Her husband was Icelandic Nobel Literature laureate Halldór Laxness."
    assert swapped_subject(husband, "Halldór Laxness was an Icelandic Nobel Literature laureate.", ["Auður Laxness"]) == ""
    gatlif = "Tony Gatlif (born Michel Dahmani on 10 September 1948 in Algiers) is a French film director."
    assert swapped_subject(gatlif, "Michel Dahmani is born as Michel Dahmani on 10 September 1948.", ["Tony Gatlif"]) == ""
    films = "She made films on Nobel Laureate Czesław Miłosz and Argentinian tango superstar Carlos Gardel."
    assert swapped_subject(films, "Czesław Miłosz is an Argentinian tango superstar.") == "Carlos Gardel"
    assert swapped_subject(films, "Carlos Gardel is an Argentinian tango superstar.") == ""
    # the name closing the predicate's own "of ..." phrase is not what the predicate describes: the sentence's
    # subject is; without a phrase of its own the name after the predicate is said the other way round
    ashman = ("Anastasia M. Ashman (born 1964) is an American author and cultural producer, a digital strategist and "
              "cofounder of global personal branding startup GlobalNiche.net.")
    claim = "GlobalNiche.net is a digital strategist and cofounder of global personal branding startup."
    assert swapped_subject(ashman, claim) == "Anastasia M. Ashman"
    assert swapped_subject(ashman, "Anastasia M. Ashman is a digital strategist and cofounder of global personal "
                                   "branding startup GlobalNiche.net.") == ""
    assert swapped_subject("Her husband was Icelandic Nobel Literature laureate Halldór Laxness.",
                           "Halldór Laxness was Icelandic Nobel Literature laureate.") == ""
    disney = "Bedknobs and Broomsticks is a musical film produced by Walt Disney Productions."
    assert swapped_subject(disney, "Bedknobs and Broomsticks is produced by Walt Disney.") == ""  # one name going on
    border = "Tennessee is bordered by Kentucky and Virginia to the north, North Carolina to the east."
    assert swapped_subject(border, "Tennessee is bordered by Kentucky and Virginia to the north.") == ""  # a list
    # said of the claim's subject in another sentence: not swapped
    two = "Tom Smith is an American film actor from Ohio. His brother Bob Smith is an American film actor from Ohio."
    assert swapped_subject(two, "Bob Smith is an American film actor from Ohio.") == ""
    assert swapped_subject(two, "Ann Lee is an American film actor from Ohio.", ["Tom Smith"]) == "Tom Smith"


def test_the_verifier_fails_a_claim_copying_a_predicate_onto_another_subject():
    docs = [Document("Béla Gaál", GAAL)]
    items = answer_claims(R.ANSWER, "Béla Gaál was the first sound film to be made in Hungary [1]. "
                                    "Béla Gaál was a Hungarian film director [1].", docs, "en", final=False)
    out, trace = _resolve(Verifier(Lenient(), threshold=0.5, schedule="sequential", entity_guard=True), items)
    assert [s.verdict for s in out] == [R.DROPPED_NLI, R.KEPT]
    assert any("say it of 'His 1930 film" in n for n in trace.notes)


def test_a_claim_relating_its_subject_to_itself_fails_and_a_work_named_after_its_maker_passes():
    assert self_related("Daniel Webster was the second wife of Daniel Webster.") == "Daniel Webster"
    assert self_related("Charles Greville was the father of statesman Charles Greville.") == "Charles Greville"
    assert self_related("Caroline LeRoy Webster was the second wife of Daniel Webster.") == ""
    assert self_related("Smith was the son of John Smith.") == ""  # part of a longer name
    assert self_related("Walt Disney was the founder of the Walt Disney Company.") == ""
    assert self_related("OK Go is the debut studio album by American rock band OK Go.") == ""  # a self-titled work
    assert self_related("Naples is a principal city of the Naples - Marco Island Metropolitan Area.") == ""
    doc = [Document("Caroline LeRoy", "Caroline LeRoy Webster (1797 – 1882) was the second wife of 19th Century "
                                      "statesman Daniel Webster.")]
    items = answer_claims(R.ANSWER, "Daniel Webster was the second wife of Daniel Webster [1]. Caroline LeRoy Webster "
                                    "was the second wife of Daniel Webster [1].", doc, "en", final=False)
    out, trace = _resolve(Verifier(Lenient(), threshold=0.5, schedule="sequential", entity_guard=True), items)
    assert [s.verdict for s in out] == [R.DROPPED_NLI, R.KEPT]
    assert any("relates 'Daniel Webster' to itself" in n for n in trace.notes)


def test_a_claim_naming_its_subject_again_as_the_other_side_fails_unless_its_document_says_it():
    assert names_itself("Yanzhou District is under Yanzhou District.") == "Yanzhou District"
    assert names_itself("Red Dead Redemption 2 played up the features of Red Dead Redemption 2, which are "
                        "single-player and online multiplayer components.") == "Red Dead Redemption 2"
    assert names_itself("Ernst Mach became an assistant to professor Ernst Mach.") == "Ernst Mach"
    assert names_itself("Muncy Creek is a major tributary of Muncy Creek.") == "Muncy Creek"
    assert names_itself("Yanzhou District is under the administration of Jining.") == ""
    assert names_itself("Walt Disney founded the Walt Disney Company.") == ""  # part of a longer name
    assert names_itself("Virginia has 34 Virginia state parks.") == ""  # before a noun: another thing
    assert names_itself("Sicyon is named after the ancient city Sicyon.") == ""  # a namesake
    assert names_itself('Pipes of Peace was included on an album titled "Pipes of Peace".') == ""  # a title
    assert names_itself("Queen released the album Queen in 1973.") == ""  # a self-titled work
    assert names_itself("Gayla Peevey recorded it under her maiden name, Gayla Peevey.") == ""  # another clause
    assert names_itself("The United States sent an ultimatum, but the United States had assumed control.") == ""
    assert names_itself("Libyan authorities seek Libyan funds.") == ""  # a nationality
    assert names_itself("Tor over a VPN hides the use of Tor.") == ""  # the name is not the verb's subject
    docs = [Document("Yanzhou District", "Yanzhou District is a district under the administration of Jining."),
            Document("Muncy", "Muncy Creek joins Muncy Creek, a namesake, in the story.")]
    items = answer_claims(R.ANSWER, "Yanzhou District is under Yanzhou District [1]. Muncy Creek joins Muncy "
                                    "Creek [2].", docs, "en", final=False)
    out, trace = _resolve(Verifier(Lenient(), threshold=0.5, schedule="sequential", entity_guard=True), items)
    assert [s.verdict for s in out] == [R.DROPPED_NLI, R.KEPT]  # the second is what its document says, as written
    assert any("relates 'Yanzhou District' to itself" in n for n in trace.notes)


DVORAK = ("He studied mathematics and physics at the Charles University in Prague, and after graduating he became an "
          "assistant to professor Ernst Mach. After obtaining his doctorate in Prague in 1873/1874 he came to Zagreb "
          "and founded the Physics Cabinet at the Faculty of Philosophy in 1875.")


def test_a_claim_giving_another_name_to_the_he_of_a_document_about_someone_else_is_swapped():
    claim = "Ernst Mach came to Zagreb and founded the Physics Cabinet at the Faculty of Philosophy in 1875."
    assert pronoun_of_another(DVORAK, claim, ["Vinko Dvořák"]) == "he"
    assert pronoun_of_another(DVORAK, claim.replace("Ernst Mach", "Vinko Dvořák"), ["Vinko Dvořák"]) == ""  # its subject
    assert pronoun_of_another(DVORAK, claim, ["Vinko Dvořák", "Ernst Mach"]) == ""  # two documents: cannot tell
    assert pronoun_of_another(DVORAK, "Ernst Mach came to Zagreb.", ["Vinko Dvořák"]) == ""  # too few words copied
    album = "It is the last album to feature guitarist Martin Henriksson, as he left the band in early 2016 for good."
    assert pronoun_of_another(album, "Martin Henriksson left the band in early 2016 for good.", ["Construct"]) == ""
    doc = [Document("Vinko Dvořák", DVORAK)]
    items = answer_claims(R.ANSWER, claim[:-1] + " [1].", doc, "en", final=False)
    out, trace = _resolve(Verifier(Lenient(), threshold=0.5, schedule="sequential", entity_guard=True), items)
    assert [s.verdict for s in out] == [R.DROPPED_NLI] and any("say it of 'he'" in n for n in trace.notes)


class Doubtful(WordChecker):
    """Scores every pair 0.3: below any threshold."""

    def scores(self, pairs):
        import numpy as np
        return np.full(len(pairs), 0.3, dtype=np.float32)


def test_a_whole_sentence_of_its_document_passes_whatever_the_checker_scores():
    from vericite.engine.nli.grading import is_own_sentence
    doc = Document("Eldon, Missouri", "Eldon is a city in Miller County, Missouri, United States. The population was "
                   "4,567 at the 2010 census. It is false that Eldon is the capital.")
    items = answer_claims(R.REFINE, "Eldon is a city in Miller County, Missouri, United States [1]. Eldon is the capital "
                          "[1]. The population was 4,567 at the 2010 census [1].", [doc], "en", final=True)
    out, _ = _resolve(Verifier(Doubtful(), threshold=0.5, schedule="sequential", grade_bands=(0.9, 0.5, 0.2)), items)
    assert [s.verdict for s in out] == [R.KEPT, R.DROPPED_NLI, R.KEPT]  # a piece of a sentence is no sentence
    assert [s.grade for s in out] == [1, 3, 1]
    assert not is_own_sentence(doc.text, "Miller County, Missouri, United States")


def test_the_place_after_a_copied_predicate_put_as_its_subject_is_swapped():
    doc = "Jeffersontown is a home rule-class city in Jefferson County, Kentucky, United States."
    titles = ["Jeffersontown, Kentucky"]
    # "Jefferson" is in "Jeffersontown" only as the start of another name
    assert swapped_subject(doc, "Jefferson County, Kentucky, United States is a home rule-class city.",
                           titles) == "Jeffersontown"
    assert swapped_subject(doc, "Jeffersontown is a home rule-class city.", titles) == ""
    # the subject named right after the predicate, no preposition between: the same said the other way round
    assert swapped_subject("Her husband was Icelandic Nobel Literature laureate Halldór Laxness.",
                           "Halldór Laxness was Icelandic Nobel Literature laureate.") == ""


ABREGO = ("Juan García Ábrego (born September 13, 1944) is a former Mexican drug lord who started out his criminal "
          "career under the tutelage of his uncle Juan Nepomuceno Guerra, who is reported to be the former head of a "
          "criminal dynasty.")


def test_a_kin_tie_its_document_states_the_other_way_round_fails():
    # "his uncle Guerra" in Ábrego's sentence: Guerra is Ábrego's uncle, not the other way round
    assert reversed_kin(ABREGO, "Juan García Ábrego is the uncle of Juan Nepomuceno Guerra.") == "uncle"
    assert reversed_kin(ABREGO, "Juan Nepomuceno Guerra is the uncle of Juan García Ábrego.") == ""
    assert reversed_kin("Colin Hanks, the son of Tom Hanks, acts.", "Tom Hanks is the son of Colin Hanks.") == "son"
    # names of one family are told apart by their first words; a tie stated both ways, or never, fails nothing
    assert reversed_kin("Tom Hanks is the father of Colin Hanks.", "Colin Hanks is the father of Tom Hanks.") == "father"
    assert reversed_kin("Tom Hanks is the father of Colin Hanks. Colin Hanks is the father of Tom Hanks.",
                        "Colin Hanks is the father of Tom Hanks.") == ""
    assert reversed_kin("Colin Hanks is an actor.", "Colin Hanks is the father of Tom Hanks.") == ""
    docs = [Document("Juan García Ábrego", ABREGO)]
    items = answer_claims(R.ANSWER, "Juan García Ábrego is the uncle of Juan Nepomuceno Guerra [1]. Juan Nepomuceno "
                                    "Guerra is the uncle of Juan García Ábrego [1].", docs, "en", final=False)
    out, trace = _resolve(Verifier(Lenient(), threshold=0.5, schedule="sequential", entity_guard=True), items)
    assert [s.verdict for s in out] == [R.DROPPED_NLI, R.KEPT]
    assert any("say the 'uncle' tie the other way round" in n for n in trace.notes)


def test_a_namesake_shares_given_names_with_a_person_the_question_names_but_not_the_surname():
    q = "What rank was higher than Karl Hermann Frank's rank until April 1942?"
    assert namesake("Karl Hermann Knoblauch (11 April 1820 - 30 June 1895) was a German physicist.", q) == \
        "Karl Hermann Knoblauch"
    assert namesake("Karl Hermann Frank was a Nazi official.", q) == ""  # the person asked of
    assert namesake("Karl Hermann Knoblauch met Frank in Prague.", q) == ""  # the surname is there: about him too
    # one given name is shared by too many: the answer may be one of them
    assert namesake("Hermann Knoblauch was one of the founding members of the society.", q) == ""
    assert namesake("George Mikan set the record.", "Which record did George Harry Yardley break?") == ""
    assert namesake("Karl Hermann Frank Group was founded.", "Who was Karl Hermann Smith?") == ""  # a thing's name
    assert namesake("The April Theses were published.", q) == ""
    assert namesake("New Jersey is a state.", "Where is New York City?") == ""  # places, not given names


def test_a_countrys_abbreviation_and_its_name_find_each_other():
    assert found("United", "It is the 8th largest commercial airline in the US, and is based in Honolulu.")
    assert found("United States", "the U.S. Army") and found("US", "daughter of U.S. President Woodrow Wilson")
    assert found("U.S.", "the United States Army") and found("Kingdom", "the largest shop in the UK.")
    # not the pronoun, nor an abbreviation inside a longer one
    assert not found("United", "He is with us.") and not found("States", "the USS Enterprise")
    assert not found("UK", "a British shop")
