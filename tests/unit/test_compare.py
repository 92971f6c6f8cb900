"""Questions about two named things: the two things, dates and numbers read, which one they say."""
from vericite.engine import records as R
from vericite.engine import selection as SEL
from vericite.engine.records import Statement
from vericite.engine.text.compare import (
    both,
    both_say,
    by_dates,
    by_numbers,
    by_order,
    by_sides,
    by_words,
    choices,
    common,
    compared,
    elsewhere,
    first_date,
    frequency,
    in_common,
    named,
    nationality,
    number,
    one_lacks,
    ordered,
    population,
    same,
    two_things,
)

ERIKA = "Erika Jayne was born on July 10, 1971."
MARCO = "Marco Da Silva was born on 10 April 1992."


def test_the_two_things_compared():
    assert choices("Who was born first, Erika Jayne or Marco Da Silva?") == ["Erika Jayne", "Marco Da Silva"]
    assert choices("Who drummed for Rush?") == []
    assert choices("Which band, Letters to Cleo or Screaming Trees, had more members?") == ["Letters to Cleo", "Screaming Trees"]
    assert choices("Is Muskegon County Airport or John Wayne Airport further west?") == [
        "Muskegon County Airport", "John Wayne Airport"]
    assert choices("Is Paris the capital of France?") == []
    assert choices('Which Bulldog includes "Standard" and "Classic," the French Bulldog or the American Bulldog?') == [
        "French Bulldog", "American Bulldog"]
    assert choices("who is younger Keith Bostic or Jerry Glanville ?") == ["Keith Bostic", "Jerry Glanville"]
    assert choices("Which band did Neil Peart join in 1974 or later?") == []  # no name after "or"
    # after the kind asked, with no comma, the question going on after the second name
    assert choices("Which documentary Hacking Democracy or The Memory of Justice was produced first ?") == [
        "Hacking Democracy", "The Memory of Justice"]
    assert choices("Which director hosted the Independent Spirit Awards in 2002 or 2003?") == []
    assert choices("In between The Bears and I and Oceans which was released on July 31, 1974?") == [
        "The Bears and I", "Oceans"]
    assert choices("In between Berghuis v. Thompkins and Mississippi University for Women v. Hogan which one was a "
                   "case decided 5-4?") == ["Berghuis v. Thompkins", "Mississippi University for Women v. Hogan"]


def test_the_two_things_a_yes_no_question_asks_the_same_of():
    assert both("Are Freakonomics and In the Realm of the Hackers both American documentaries?") == [
        "Freakonomics", "In the Realm of the Hackers"]
    assert both("Were both Alvin Lee and Chad Gray lead vocalists for bands?") == ["Alvin Lee", "Chad Gray"]
    assert both("Are both Dictyosperma, and Huernia described as a genus?") == ["Dictyosperma", "Huernia"]
    assert both("Are Cryptanthus and Gagea, both a genus?") == ["Cryptanthus", "Gagea"]  # a comma before "both"
    assert both("Are the flowering plants Ecballium and Elatostema in the same family?") == ["Ecballium", "Elatostema"]
    assert both("Are Aladdin and Song of the South produced by the same company?") == ["Aladdin", "Song of the South"]
    assert both("Are dogs and cats both mammals?") == []  # no names
    assert both("Is the Virgilia found in Africa?") == []


def test_dates_read_as_year_month_day():
    assert first_date(ERIKA) == (1971, 7, 10)
    assert first_date(MARCO) == (1992, 4, 10)
    assert first_date("Founded in March 1985 by Juan Atkins.") == (1985, 3, 0)
    assert first_date("The label was founded in 1985, then sold in 1990.") == (1985, 0, 0)
    assert first_date("It has 703 rooms.") is None


def test_the_dates_say_which_one():
    q = "Who was born first, Erika Jayne or Marco Da Silva?"
    assert by_dates(q, [MARCO, ERIKA]) == "Erika Jayne"
    assert by_dates("Who is younger, Erika Jayne or Marco Da Silva?", [ERIKA, MARCO]) == "Marco Da Silva"
    assert by_dates("Who was born later, Erika Jayne or Marco Da Silva?", [ERIKA, MARCO]) == "Marco Da Silva"


def test_no_answer_from_dates_that_do_not_say_it():
    q = "Who was born first, Erika Jayne or Marco Da Silva?"
    assert by_dates(q, [ERIKA]) is None  # one thing undated
    assert by_dates(q, [ERIKA, "Marco Da Silva was born in Paris."]) is None
    assert by_dates(q, [ERIKA, "Marco Da Silva released his first album in 1960."]) is None  # another event's date
    assert by_dates(q, [ERIKA, "Marco Da Silva was born in 1971."]) is None  # same year, no month: not ordered
    assert by_dates(q, ["Erika Jayne and Marco Da Silva met in 2001.", MARCO]) is None  # names both: whose date?
    assert by_dates("Who was born first and who later, Erika Jayne or Marco Da Silva?", [ERIKA, MARCO]) is None
    assert by_dates("Which is taller, Erika Jayne or Marco Da Silva?", [ERIKA, MARCO]) is None  # not by time
    assert by_dates("Who was born first?", [ERIKA, MARCO]) is None  # compares nothing named


def test_the_dates_shown_outrank_stage_1s_reading():
    q = "Which band was formed first, Rush or Toto?"
    sel = SEL.Selection("Toto", ())
    shown = ["Rush was formed in 1968.", "Toto was formed in 1977."]
    assert SEL.conclusion(sel, q, "Toto was formed first.", shown=shown) == "Rush"
    assert SEL.conclusion(sel, q, "Toto was formed first.") == "Toto"  # no dates shown: stage 1's reading


def test_a_biographys_life_span_dates_a_birth():
    q = "Which film director is younger, Robert Z. Leonard or Sinclair Hill?"
    leonard = "Robert Zigler Leonard (October 7, 1889 – August 27, 1968) was an American film director."
    assert by_dates(q, [leonard, "Sinclair Hill (1894–1945) was a British film director."]) == "Sinclair Hill"
    assert by_dates(q, [leonard, "Sinclair Hill directed films between 1920 and 1939."]) is None  # not his birth
    # how long one lived is not when one was born
    assert by_dates("Who lived to an older age, Robert Z. Leonard or Sinclair Hill?",
                    [leonard, "Sinclair Hill (1894–1945) was a British film director."]) is None


def test_the_numbers_say_which_one():
    q = "Which mountain is higher, Nanda Devi or Broad Peak?"
    devi, broad = "Nanda Devi rises to 7,816 m.", "Broad Peak is the 12th highest mountain in the world at 8051 m."
    assert number(q, devi) == 7816 and number(q, "It stands 26,414 ft tall.") == 26414 * 0.3048
    assert by_numbers(q, [devi, broad]) == "Broad Peak"
    assert by_numbers("Which mountain is lower, Nanda Devi or Broad Peak?", [devi, broad]) == "Nanda Devi"
    assert by_numbers("Which peak is taller, Nanda Devi or Broad Peak?", [devi, "Broad Peak: 26,414 ft."]) == "Broad Peak"
    species = "Which genus contains more species, Crowea or Dracula?"
    crowea, dracula = "There are three species and many cultivars of Crowea.", "The orchid genus Dracula consists of 118 species."
    assert number(species, crowea) == 3 and number(species, dracula) == 118
    assert by_numbers(species, [crowea, dracula]) == "Dracula" == compared(species, [dracula, crowea])
    assert by_numbers("Which genus has the fewest species, Crowea or Dracula?", [crowea, dracula]) == "Crowea"


def test_no_answer_from_numbers_that_do_not_say_it():
    q = "Which mountain is higher, Nanda Devi or Broad Peak?"
    broad = "Broad Peak is at 8051 m."
    assert by_numbers(q, [broad, "Nanda Devi is the second highest mountain in India."]) is None  # no height
    assert by_numbers(q, [broad, "Nanda Devi National Park covers 630 km2."]) is None  # not a height
    assert by_numbers(q, [broad, "Nanda Devi is 8051 m high."]) is None  # equal
    assert by_numbers(q, [broad, "Nanda Devi and Broad Peak were climbed by 12 m teams."]) is None  # names both
    species = "Which genus contains more species, Crowea or Dracula?"
    assert by_numbers(species, ["Crowea was named in 1798.", "Dracula consists of 118 species."]) is None
    # a rank among them is no count of what it has ("one of the top five rarest dog breeds")
    breeds = "Which refers to more breeds, Stabyhoun or Griffon Bruxellois?"
    griffon = "The Griffon Bruxellois may refer to three different breeds, the Griffon Bruxellois, the Griffon Belge."
    assert by_numbers(breeds, ["The Stabyhoun is one of the top five rarest dog breeds in the world.", griffon]) is None
    assert by_numbers(breeds, ["The Stabyhoun is one of the five rarest dog breeds.", griffon]) is None
    assert by_numbers(breeds, ["The Stabyhoun refers to five dog breeds.", griffon]) == "Stabyhoun"
    assert by_numbers("Which genus is older, Crowea or Dracula?", ["Crowea has 3 species.", "Dracula has 118 species."]) is None
    # another thing whose name starts with it: "Catan Dice Game" is not Catan
    game = "Which board game was published most recently, Pirate's Cove or Catan?"
    cove = "Pirate's Cove is a board game originally published in Germany in 2002."
    assert by_dates(game, [cove, "Catan Dice Game is a board game published in 2007 by Catan GmbH."]) is None
    assert by_dates(game, [cove, "Catan is a board game first published in 1995."]) == "Pirate's Cove"
    # a name is named by all its words: "North Muskegon" does not name Muskegon County Airport
    assert compared("Which airport is higher, Muskegon County Airport or John Wayne Airport?",
                    ["The park is at 190 m west of North Muskegon.", "John Wayne Airport is at 17 m."]) is None


def test_a_comparison_by_kind_is_said_by_the_sentence_that_says_the_kind():
    q = "Which is a comedy film, The Million Dollar Duck or Don Quixote?"
    duck = "The Million Dollar Duck is a 1971 American comedy film."
    quixote = "Don Quixote is a Spanish novel by Miguel de Cervantes."
    assert by_words(q, [quixote, duck]) == "The Million Dollar Duck"
    assert by_words(q, [quixote, "The Million Dollar Duck is a 1971 American film."]) is None  # neither says "comedy"
    assert by_words(q, [duck, "Don Quixote is a comedy film of 1933."]) is None  # both do
    assert by_words("Which is older, The Million Dollar Duck or Don Quixote?", [duck, quixote]) is None  # by time
    assert by_words(q, [duck]) is None  # one side unsaid
    # neither says all; one says two more of the question's words and numbers
    q = 'Who is the director of Hollywood film "7th Heaven" (1927), Jerry Belson or Frank Borzage?'
    belson = "Jerry Belson was a writer, director, and producer of Hollywood films."
    borzage = 'Frank Borzage was an American film director, most remembered for directing "7th Heaven" (1927).'
    assert by_words(q, [belson, borzage]) == "Frank Borzage"
    assert by_words(q, [belson, "Frank Borzage was an American film director."]) is None  # 3 against 2


def _fact(text: str, doc: int) -> Statement:
    return Statement(R.EVIDENCE, text, (doc,), R.KEPT, 0.9, text)


def test_a_question_about_two_things_is_answered_with_one_sentence_about_each():
    q = "Which genus contains more species, Crowea or Dracula?"
    name = _fact("Dracula means little dragon.", 2)
    count = _fact("The orchid genus Dracula consists of 118 species.", 2)
    shrubs = _fact("Crowea is a genus of evergreen shrubs.", 1)
    quotes = [Statement(R.REFINE, t, (1,), R.KEPT, None, t) for t in ("Crowea Aubl.", "There are three species of Crowea.")]
    # the model picked one side's facts: each side gets its sentence giving the number compared, a
    # document's when no verified one gives it (a split-off name alone is no sentence)
    picked = SEL.compose(SEL.Selection("Dracula", (0, 1)), [name, count, shrubs], q, quotes=quotes,
                         texts=["Crowea Aubl. There are three species of Crowea.", "..."], titles=["Crowea", "Dracula"])
    assert [s.text for s in picked.sentences] == ["There are three species of Crowea.", count.text]
    assert SEL.conclusion(SEL.Selection("Crowea", ()), q, "Crowea has more.", shown=[s.text for s in picked.sentences]) == "Dracula"
    # without numbers: the sentence sharing most of the question's other words ("genus")
    plain = SEL.compose(SEL.Selection("Dracula", (0,)), [name, shrubs], q)
    assert [s.text for s in plain.sentences] == [shrubs.text, name.text]
    # a yes/no question about both: one sentence each, opened with stage 1's "Yes" (its first sentence)
    yn = "Are Crowea and Dracula both genus of plants?"  # HotpotQA's grammar
    picked = SEL.compose(SEL.Selection("Dracula means little dragon.", (0,)), [name, count, shrubs], yn)
    assert [s.text for s in picked.sentences] == [shrubs.text, count.text]
    sel = SEL.Selection("Dracula means little dragon.", (0,))
    assert SEL.conclusion(sel, yn, "Dracula is an orchid genus.", first="Yes, both are genera.") == "Yes"
    assert SEL.conclusion(sel, yn, "Dracula is an orchid genus.") == ""


def test_both_are_said_when_a_sentence_about_each_says_what_the_question_asks():
    q = "Are Marilyn Manson and Joe Lynn Turner both American singer, songwriters?"
    manson = "Brian Hugh Warner (known professionally as Marilyn Manson) is an American singer, songwriter and actor."
    turner = "Joe Lynn Turner is an American singer, guitarist, songwriter, and producer."
    assert both_say(q, [manson, turner])
    assert not both_say(q, [manson])  # one unsaid
    assert not both_say(q, [manson, "Joe Lynn Turner is an English singer and songwriter."])  # not "American"
    assert not both_say(q, [manson, "Joe Lynn Turner is not an American singer or songwriter."])  # negated
    # a sentence naming it beside another thing is not about it
    assert not both_say(q, [manson, "Ozzy Osbourne toured with Joe Lynn Turner, an American singer and songwriter."])
    assert not both_say(q, ["Marilyn Manson and Joe Lynn Turner are American singers and songwriters.", turner])
    same = "Are Marilyn Manson and Joe Lynn Turner from the same country?"
    assert not both_say(same, ["Marilyn Manson is from the country of America.", "Joe Lynn Turner is from the country of Italy."])
    # what the sentences shown say outranks the model's word
    assert SEL.conclusion(SEL.Selection("No, they are not.", ()), q, shown=[manson, turner]) == "Yes"
    assert SEL.conclusion(SEL.Selection("No, they are not.", ()), q, shown=[manson]) == "No"


def test_how_long_something_lasted_is_compared_in_years():
    q = "Which satellite was operational for longer, International Ultraviolet Explorer or EXOSAT?"
    iue = "The International Ultraviolet Explorer (IUE) was operational for almost 18 years."
    exosat = "EXOSAT was an X-ray telescope operational from May 1983 until April 1986."
    assert number(q, iue) == 18 and number(q, exosat) == 2.92
    assert compared(q, [exosat, iue]) == "International Ultraviolet Explorer"
    assert compared(q.replace("longer", "a shorter time"), [exosat, iue]) == "EXOSAT"
    life = "Which playwright lived a longer life, Edward Albee or J. M. Barrie?"
    albee = "Edward Franklin Albee III (March 12, 1928 – September 16, 2016) was an American playwright."
    barrie = "Sir James Matthew Barrie (9 May 1860 – 19 June 1937) was a Scottish novelist."
    assert compared(life, [albee, barrie]) == "Edward Albee"
    assert compared(life, [albee, "J. M. Barrie was born in 1860."]) is None  # no span: one date alone
    assert number("Which river is longer, A or B?", "A flows 300 km.") is None  # a length: not compared


def test_deaths_releases_and_single_species_are_compared():
    q = "Who died first, George Archainbaud or Ralph Murphy?"
    spans = ["George Archainbaud (May 7, 1890 – February 20, 1959) was a French-born American film director.",
             "Ralph Murphy (May 1, 1895 – February 10, 1967) was an American film director."]
    assert compared(q, spans) == "George Archainbaud"  # the end of the life span, not the birth
    assert compared("Who died first, A Smith or B Jones?", ["A Smith (1890 – 1970) was a director.",
                                                           "B Jones (1895 – 1960) was a director."]) == "B Jones"
    placed = ["Juan Onetti (July 1, 1909, Montevideo – May 30, 1994, Madrid) was an Uruguayan novelist.",
              "Bryce Courtenay (14 August 1933 – 22 November 2012) was a novelist."]  # a place after each date
    assert compared("Who died first, Bryce Courtenay or Juan Onetti?", placed) == "Juan Onetti"
    assert compared("Who was born first, Bryce Courtenay or Juan Onetti?", placed) == "Juan Onetti"
    q = "Which came out first, Dinosaur or Frozen?"
    films = ["Dinosaur is a 2000 American CGI animated adventure film.", "Frozen is a 2013 American animated film."]
    assert compared(q, films) == "Dinosaur" and compared(q.replace("first", "later"), films) == "Frozen"
    assert compared("Which was founded first, Dinosaur or Frozen?", films) is None  # a film's year is no founding
    q = "Is the Marsilea or the Brabejum the genus of more individual species of plants?"
    assert compared(q, ["The Marsilea genus contains approximately 65 species of aquatic ferns.",
                        "The Brabejum is the genus of a single species of large evergreen tree."]) == "Marsilea"
    q = "Which genus has more species, Xanthoceras or Ehretia?"
    assert compared(q, ["Xanthoceras sorbifolium is the only species in the genus Xanthoceras.",
                        "Ehretia contains about 50 species."]) == "Ehretia"
    assert compared(q, ["Xanthoceras has only 3 species.", "Ehretia contains about 2 species."]) == "Xanthoceras"


def test_the_same_province_or_nationality_is_read_off_the_sentence_about_each():
    q = "Are both Dafeng District and Dazhou located in the same province?"
    assert same(q, ["Dafeng District is located in the Jiangsu province.", "Dazhou is in Sichuan province."]) == "No"
    assert same(q, ["Dafeng District is in the province of Jiangsu.", "Dazhou is in Jiangsu province."]) == "Yes"
    assert same(q, ["Dafeng District is in Jiangsu.", "Dazhou is in Sichuan province."]) == ""  # one side gives none
    q = "Were Scott Derrickson and Ed Wood of the same nationality?"
    assert same(q, ["Scott Derrickson is an American director.", "Ed Wood was an American filmmaker."]) == "Yes"
    assert same("Are Rush and Toto both bands?", ["Rush is a Canadian band.", "Toto is an American band."]) == ""


def test_a_dash_sets_the_two_off_and_an_events_other_words_date_it():
    q = "Which of these battles occurred earlier--the Battle of Peleliu or the Battle of Belleau Wood?"
    assert choices(q) == ["Battle of Peleliu", "Battle of Belleau Wood"]
    assert choices("Which came first — Dinosaur or Frozen?") == ["Dinosaur", "Frozen"]
    battles = ["The Battle of Peleliu was fought from September to November 1944, on the island of Peleliu.",
               "The Battle of Belleau Wood (1–26 June 1918) occurred during the German Spring Offensive."]
    assert compared(q, battles) == "Battle of Belleau Wood"  # "fought" dates what "occurred" asks
    q = "Which case was decided first, Selle v. Gibb or Reynolds v. Sims?"
    cases = ["Selle v. Gibb (7th Cir. 1984) was a landmark ruling on striking similarities.",
             "Reynolds v. Sims (1964) was a United States Supreme Court case."]
    assert compared(q, cases) == "Reynolds v. Sims"
    # a sentence naming no word of the event dates nothing
    assert compared(q, [cases[0], "Reynolds v. Sims (1964) was about districts."]) is None
    # a year in brackets that another time is measured from dates nothing ("since 1995": not when the band formed)
    q = "Which band The Innocence Mission or Starflyer 59 was formed first ?"
    bands = ["The Innocence Mission (stylized as the innocence mission on all releases since 1995) is an American "
             "folk rock band.", "Starflyer 59 is an alternative rock band that was founded in 1993 by Jason Martin."]
    assert compared(q, bands) is None
    # a decade dates the event when no year does, and a sentence about the thing dates it before one naming it
    # beside another subject
    formed = "The Innocence Mission was formed in Lancaster, Pennsylvania in the early 1980s."
    album = ("Hello I Feel the Same was released on October 16, 2015, by a label founded by a band with whom the "
             "Innocence Mission formed a friendship.")
    assert compared(q, [album, formed, bands[1]]) == "The Innocence Mission"
    assert compared(q, [formed, bands[1].replace("1993", "1984")]) is None  # 1984 is in the 1980s: not ordered
    assert compared(q, ["The Innocence Mission (band, 1985) is an American folk rock band.", bands[1]]) == "The Innocence Mission"


def test_what_two_things_have_in_common_is_the_word_the_sentences_about_each_share():
    q = "What type of media does Bitter Jester and Sicko have in common?"
    assert common(q) == ["Bitter Jester", "Sicko"]
    assert common('"A Summer in the Cage" and "American Hardcore" are both what kind of film?') == [
        "A Summer in the Cage", "American Hardcore"]
    assert common("What genre are both Rush and Toto?") == ["Rush", "Toto"]
    assert common("What occupation do Chris Menges and Aram Avakian share?") == ["Chris Menges", "Aram Avakian"]
    # one kind of thing asked of both names ("the professions of A and B", "What nationality were ... A and B")
    assert common("What are the professions of Tom Johnston and Daryl Palumbo?") == ["Tom Johnston", "Daryl Palumbo"]
    assert common("What nationality were social anthropologists Alfred Gell and Edmund Leach?") == [
        "Alfred Gell", "Edmund Leach"]
    assert common("What is the name of Tom Johnston and Daryl Palumbo?") == []  # a name asked: not a kind
    assert in_common("What occupation do Chris Menges and Aram Avakian share?", [
        "Chris Menges is an English cinematographer and film director.",
        "Aram Avakian was an American film editor and director."]) == "director"
    # a sentence naming one among other things is not about it ("a film directed by Chris Menges")
    assert in_common("What occupation do Chris Menges and Aram Avakian share?", [
        "CrissCross is a film directed by Chris Menges, based on his novel.",
        "Cops and Robbers is a film directed by Aram Avakian, expanded into a novel."]) == ""
    assert common("What do dogs and cats have in common?") == [] and common("Who are both A and B?") == []
    jester = "Bitter Jester is a documentary starring Maija DiGiorgio and Kenny Simmons."
    sicko = "Sicko is a 2007 American documentary film by Michael Moore."
    assert in_common(q, [jester, sicko]) == "documentary"
    assert in_common(q, [jester]) == ""  # one side has no sentence
    assert in_common(q, [jester, "Sicko is a 2007 American film by Michael Moore."]) == ""  # nothing shared
    # several shared: the one before the kind asked for
    q = "What kind of film are both A Smith and B Jones?"
    assert in_common(q, ["A Smith is a short documentary film starring him.",
                         "B Jones is a short documentary film starring her."]) == "documentary"
    assert in_common("Which film, A Smith or B Jones, is older?", [jester, sicko]) == ""


def test_no_when_a_sentence_places_one_of_them_elsewhere():
    q = "Are both Elko Regional Airport and Gerald R. Ford International Airport located in Michigan?"
    elko = "Elko Regional Airport is a mile west of downtown Elko, in Elko County, Nevada."
    ford = "Gerald R. Ford International Airport is located in Cascade Township, Michigan."
    assert both(q) == ["Elko Regional Airport", "Gerald R. Ford International Airport"]
    assert elsewhere(q, [elko, ford]) == "No"
    assert elsewhere(q, [ford]) == ""  # the other one's place is not given
    assert elsewhere(q, ["Elko Regional Airport was opened by a Texas businessman.", ford]) == ""  # no place
    q = "Were the bands Skin Yard and Ostava from the U.S.?"
    assert both(q) == ["Skin Yard", "Ostava"]
    skin = "Skin Yard was an American grunge band from Seattle, Washington."
    assert elsewhere(q, [skin, "Ostava is a Bulgarian alternative rock band."]) == "No"
    assert elsewhere(q, [skin, "Ostava is a Bulgarian-American rock band."]) == ""
    assert elsewhere(q, [skin, "Ostava is an alternative rock band from Bulgaria."]) == "No"
    assert elsewhere("Are both Paris and Lyon located in France?", ["Paris is in Nevada.", "Lyon is in Texas."]) == ""
    q = "Are both Rutgers University and Carnegie Mellon University located in America?"
    assert elsewhere(q, ["Rutgers University is in New Jersey.", "Carnegie Mellon University in Qatar is one of "
                         "the branch campuses of Carnegie Mellon University, located in Doha, Qatar."]) == ""


def test_words_that_only_frame_what_is_asked_need_not_be_said():
    q = "Are both Dictyosperma, and Huernia described as a genus?"
    genera = ["Dictyosperma is a monotypic genus of flowering plant in the palm family.",
              "Huernia is a genus of stem succulents from Eastern and Southern Africa."]
    assert both_say(q, genera)
    assert not both_say(q, [genera[0], "Huernia is a plant from Eastern and Southern Africa."])


def test_how_often_something_comes_out_is_compared_in_issues_a_year():
    assert [frequency(t) for t in ("a bimonthly American magazine", "published twice monthly", "six issues a year",
                                   "a weekly magazine", "It is a bi-monthly magazine.", "a magazine")] == [
        6.0, 24.0, 6.0, 52.0, 6.0, None]
    q = "Which magazine is published more often, Shonen Jump or Rolling Stone?"
    said = ["Shonen Jump was a monthly manga anthology.", "Rolling Stone is an American biweekly magazine."]
    assert compared(q, said) == "Rolling Stone"
    assert compared(q.replace("more often", "less frequently"), said) == "Shonen Jump"
    assert compared(q, [said[0], "Rolling Stone is an American magazine."]) is None  # one side says none
    # "Weekly" in a name says nothing of how often
    assert compared(q, ["His best known work appeared in Weekly Shonen Jump.", said[1]]) is None


def test_a_comparison_stated_from_a_document_naming_one_of_the_two():
    from vericite.engine.text.compare import restates_comparison

    q = "Which battle occurred first, the Battle of Manila or the Battle of Guam?"
    assert restates_comparison("The Second Battle of Guam occurred first.", q, "The Second Battle of Guam was in 1944.")
    # a fact with "first" but not the event compared; a document naming both; another question: no
    assert not restates_comparison("The Battle of Manila was the first major battle of the campaign.", q,
                                   "The Battle of Manila was the first major battle of the campaign.")
    assert not restates_comparison("The Battle of Manila occurred first.", q,
                                   "The Battle of Manila came before the Battle of Guam.")
    assert not restates_comparison("Rush occurred first.", "Who drummed for Rush?", "Rush is a band.")
    # where two things lie compares them too
    q = "Which lake is located further south, Dal Lake or Waterton Lake?"
    assert restates_comparison("Waterton Lake is located further south.", q, "Its river rises South of Goat Haunt, near "
                               "Waterton Lake.")
    assert not restates_comparison("Dal Lake is located further south.", q, "Dal Lake lies further south than Waterton Lake.")


def test_a_works_age_is_its_year():
    q = "Which musical fantasy film is older, Bedknobs and Broomsticks or The Muppet Christmas Carol?"
    films = ["Bedknobs and Broomsticks is a 1971 British-American musical fantasy film.",
             "The Muppet Christmas Carol is a 1992 American-British musical fantasy comedy-drama film."]
    assert compared(q, films) == "Bedknobs and Broomsticks"
    # a sentence giving neither a birth nor a work's year dates nothing ("a writer since 1971")
    assert compared("Who is older, A Smith or B Jones?", ["A Smith has been a writer since 1971.",
                                                          "B Jones (born 1950) is a writer."]) is None


def test_more_ways_of_asking_what_two_things_share():
    assert common("Eric Ambler and Carol Shields are both best Known for what profession?") == ["Eric Ambler", "Carol Shields"]
    assert common('What type of film are both "500 Years Later" and "Manson"?') == ["500 Years Later", "Manson"]
    assert common("What genre of music was played by both Tappi Tikarrass and INXS?") == ["Tappi Tikarrass", "INXS"]
    assert common("Woman's Era and Naj are what kind of magazines?") == ["Woman's Era", "Naj"]
    q = "What professions did S. Sylvan Simon and Danny Cannon have in common?"
    simon = "S. Sylvan Simon was an American stage/film director and producer."
    cannon = "John Danny Cannon is a British film and television writer, director and producer."  # his full name
    assert in_common(q, [simon, cannon]) == "director and producer"
    assert in_common(q.replace("professions", "profession"), [simon, cannon]) == "director and producer"  # both shared


def test_what_two_things_share_is_a_word_only_for_a_kind_or_a_profession():
    q = "Eric Ambler and Carol Shields are both best Known for what profession?"
    assert in_common(q, ["Eric Ambler is a British author of thrillers and spy novels.",
                         "Carol Shields is known for her 1993 novel The Stone Diaries."]) == ""  # "novels": no profession
    assert in_common(q, ["Eric Ambler is a British author of thrillers.", "Carol Shields is a Canadian author."]) == "author"
    q = "José Saramago and Ivo Andric were recipients of what award in Literature?"
    assert in_common(q, ["José Saramago was a Portuguese writer and recipient of the Nobel Prize.",
                         "Ivo Andric was a Yugoslav novelist and writer."]) == ""  # an award is a name, not "writer"


def test_what_two_things_share_is_read_off_the_sentences_saying_what_each_is():
    q = "What genre of music was played by both Tappi Tikarrass and INXS?"
    said = ["The music features several musicians including the band Tappi Tikarrass.",  # not what it is
            'Tappi Tikarrass is "an Icelandic punk band which added elements of funk, rock and jazz to their music.',
            "INXS was an Australian rock band."]
    assert in_common(q, said) == "rock"  # not "band": what both are, not the kind they share
    assert in_common(q, [said[0], said[2]]) == ""


def test_the_same_country_or_director_and_a_type_of_publication():
    q = "Are David O. Russell and Tony Gatlif from the same country?"
    assert same(q, ["David O. Russell is an American filmmaker.", "Tony Gatlif is a French film director."]) == "No"
    q = "Are the documentaries Out of Place and The Mosuo Sisters by the same director?"
    out = "Out of Place is a 2005 documentary directed by Maryam Zaree."
    assert same(q, [out, "The Mosuo Sisters is a 2012 documentary directed by Marlo Poras."]) == "No"
    assert same(q, [out, "The Mosuo Sisters is a 2012 documentary directed by Maryam Zaree."]) == "Yes"
    q = "What type of publication does St. Anthony Messenger and Revolver have in common?"
    assert in_common(q, ["St. Anthony Messenger is a Catholic monthly magazine.",
                         "Revolver is an American magazine published by Project M Group."]) == "magazine"


def test_members_are_counted_off_a_list_and_roles_off_what_each_is():
    q = "Which band has more members, The Futureheads or Marcy Playground?"
    heads = 'The Futureheads are an English post-punk band consisting of Ross Millard, Barry Hyde, David "Jaff" Craig and Dave Hyde.'
    marcy = "Marcy Playground is an American alternative rock band consisting of three members: John Wozniak, Dylan Keefe."
    assert number(q, heads) == 4 and number(q, marcy) == 3 and compared(q, [heads, marcy]) == "The Futureheads"
    # "one of the band members" counts nothing; a list of one is no count
    assert number(q, heads.replace("Millard", "Millard (vocals, guitar)").replace("Dave Hyde", "Dave Hyde (drums)")) == 4
    assert number(q, "Mark Eitzel of Marcy Playground was one of the band members.") is None
    assert number(q, "Marcy Playground is a band consisting of John Wozniak.") is None
    assert number(q, "Marcy Playground is a band consisting of John Wozniak, the songwriter.") is None
    q = "Between Frederick King Keller and Ian Schneider, which filmmaker had more diverse job experiences?"
    keller = "Frederick King Keller is an American director, producer, and screenwriter for film and television."
    ian = "Ian Schneider is an independent American film director and screenwriter."
    assert number(q, keller) == 3 and number(q, ian) == 2 and compared(q, [ian, keller]) == "Frederick King Keller"
    assert number(q, "Ian Schneider is an independent American filmmaker from Ohio.") == 1
    assert number(q, "Ian Schneider directed Rush.") is None


def test_the_number_of_things_compared_or_the_same():
    q = "In which genus number of species are more, Lavatera or Oplismenus?"
    lav, opl = "Lavatera is a genus of about 25 species of plants.", "The genus Oplismenus has over 100 described species."
    assert compared(q, [lav, opl]) == "Oplismenus"
    q = "Do the operas Vanessa and Carmen contain that same number of acts?"
    assert both(q) == ["Vanessa", "Carmen"]
    assert same(q, ["Vanessa is an American opera in three acts.", "Carmen is an opera in 3 acts by Bizet."]) == "Yes"
    assert same(q, ["Vanessa is an American opera in three acts.", "Carmen is an opera in four acts by Bizet."]) == "No"
    assert same(q, ["Vanessa is an American opera in three acts.", "Carmen is an opera by Bizet."]) == ""
    q = "Are the librettos of Carmen and Vanessa in the same language?"
    assert same(q, ["Carmen has a French libretto.", "The libretto of Vanessa is in English."]) == "No"


def test_both_a_and_b_had_what_role():
    q = "Both Ralph Bakshi and Béla Gaál had what roll in film making?"
    assert common(q) == ["Ralph Bakshi", "Béla Gaál"]
    assert in_common(q, ["Ralph Bakshi was an American director of animated and live-action films.",
                         "Béla Gaál was a Hungarian film director."]) == "director"


def test_both_before_a_year_a_band_in_one_word_newer_and_two_joined_by_and():
    q = "Were Sound Team and Dead by Sunrise both formed before 2010?"
    team, dead = "Sound Team was formed in 2000.", "Dead by Sunrise was an American rock band formed in 2005."
    assert by_sides(q, [team, dead]) == "Yes" and by_sides(q, [team, dead.replace("2005", "2011")]) == "No"
    assert by_sides(q, [team]) == ""  # one side undated
    assert by_sides(q.replace("before", "after"), [team, dead]) == "No"
    q = "Which band has more constant members, Lilys or Ratatat?"
    assert compared(q, ["Lilys has only one constant member, Kurt Heasley.",
                        "Ratatat is a Brooklyn-based electronic rock duo consisting of Mike Stroud and producer Evan Mast."]) == "Ratatat"
    q = "Which film is newer, The Apple Dumpling Gang or Heavyweights?"
    assert compared(q, ["The Apple Dumpling Gang is a 1975 American comedy-western film.",
                        "Heavyweights is a 1995 American comedy-drama film."]) == "Heavyweights"
    assert choices("Which genus has more species, Bactris and Epigaea?") == ["Bactris", "Epigaea"]
    assert choices("Which band formed first, and when?") == []
    assert choices("Which city is older, the capital of France and its suburbs?") == []  # not two names


def test_two_named_after_out_of_and_one_asked_to_come_before_the_other():
    q = "Who was born first out of Nick Grinde and Karel Reisz?"
    assert choices(q) == ["Nick Grinde", "Karel Reisz"]
    grinde = "Nick Grinde (January 11, 1893 - July 19, 1979) was an American film director."
    reisz = "Karel Reisz (21 July 1926 - 25 November 2002) was a British filmmaker."
    assert compared(q, [reisz, grinde]) == "Nick Grinde"
    assert choices("Who was born first among the Beatles and the Stones, and when?") == []  # not two names at its end
    # a yes/no question asking whether one came before the other: the two dates say "Yes" or "No"
    q = "Was the film Splash released before the film Tangled?"
    assert ordered(q) == ("Splash", "Tangled", "released", True) and two_things(q) == ["Splash", "Tangled"]
    splash, tangled = "Splash is a 1984 American fantasy film.", "Tangled is a 2010 American animated film."
    assert by_sides(q, [splash, tangled]) == "Yes" and by_order(q, [tangled, splash]) == "Yes"
    assert by_sides(q.replace("before", "after"), [splash, tangled]) == "No"
    assert by_sides(q, [splash, tangled.replace("2010", "1980")]) == "No"
    assert by_sides(q, [splash]) == ""  # one side undated
    assert by_sides(q, [splash, "Tangled was a hit in 2010."]) == ""  # not the event asked ("released")
    assert ordered('Was the film "Home on the Range" released before the comic book "Ruse"?')[:2] == (
        "Home on the Range", "Ruse")
    assert ordered("Was the song released before 1990?") == ()  # a year, not a thing
    assert ordered("Was the film Splash released before Tangled came out?") == ()  # the question goes on past it
    # more than a kind before the name: the thing is not the name ("the first animated film by Walt Disney")
    assert ordered("Was Splash released before the first animated film by Walt Disney?") == ()
    assert ordered("Did Smith die after Jones?") == ("Smith", "Jones", "die", False)
    assert ordered("Were Sound Team and Dead by Sunrise both formed before 2010?") == ()  # by_year's
    # the conclusion the answer opens with: the dates outrank the model's word
    assert SEL.conclusion(SEL.Selection("No", ()), q, shown=[splash, tangled]) == "Yes"


def test_a_role_word_without_a_suffix_a_shared_profession_and_names_in_quotes():
    q = "What occupation is shared by both Marge Piercy and Richard Aldington?"
    assert in_common(q, ["Marge Piercy is an American poet, novelist, and social activist.",
                         "Richard Aldington was an English writer and poet."]) == "poet"
    q = "Jaroslav Seifert and John McGahern were both part of what shared profession?"
    assert in_common(q, ["Jaroslav Seifert was a Czechoslovak writer, poet, and journalist.",
                         "John McGahern was an Irish writer."]) == "writer"
    assert both('Are both "Cooking Light" and "Vibe" magazines?') == ["Cooking Light", "Vibe"]


def test_areas_compared_in_square_kilometres_and_the_country_both_are_in():
    q = "Which is larger, Garajonay National Park or Guadarrama National Park?"
    gara = "Garajonay National Park occupies 40 km (15 sq mi) on the island."
    guad = "Guadarrama National Park covers nearly 34,000 hectares."
    assert number(q, guad) == 340 and round(number(q, gara), 1) == 38.8
    assert compared(q, [gara, guad]) == "Guadarrama National Park"
    assert compared(q.replace("larger", "smaller"), [gara, guad]) == "Garajonay National Park"
    q = "Liaocheng and Shayang County are both located in which country?"
    liao = "Liaocheng is a prefecture-level city in western Shandong province, China."
    sha = "Shayang is a county of west-central Hubei province, People's Republic of China."
    assert in_common(q, [liao, sha]) == "China"
    assert in_common(q, [liao, sha.replace("China", "Vietnam")]) == ""  # none shared
    assert in_common(q, [liao]) == ""
    assert common("What was the career that Sidney Lumet and Albert Ward share in common?") == ["Sidney Lumet", "Albert Ward"]


def test_the_sentence_shown_for_each_is_about_it():
    q = "Are both Cooking Light and Vibe magazines?"
    cooking = _fact("Cooking Light is an American monthly food magazine.", 1)
    carter = _fact("Kelley L. Carter has written pieces for Vibe and Heart & Soul magazines.", 2)
    vibe = Statement(R.REFINE, "Vibe is an American music magazine.", (3,), R.KEPT, None, "Vibe is an American music magazine.")
    picked = SEL.compose(SEL.Selection("Yes", (0, 1)), [cooking, carter], q, quotes=[vibe],
                         texts=["...", "...", "Vibe is an American music magazine."], titles=["Cooking Light", "Kelley L. Carter", "Vibe"])
    assert [s.text for s in picked.sentences] == [cooking.text, vibe.text]  # not the one naming Vibe beside another
    assert both_say(q, [cooking.text, vibe.text]) and not both_say(q, [cooking.text, carter.text])


def test_the_kind_asked_does_not_date_the_event():
    q = "Which band formed earlier, Edward Sharpe and the Magnetic Zeros or Louis XIV?"
    sharpe = "Edward Sharpe and the Magnetic Zeros is an American folk rock band formed in Los Angeles in 2007."
    broke = "Louis XIV broke up in 2009, but in 2013 Jason Hill said the band was working on new material."
    assert compared(q, [sharpe, broke]) is None  # a break-up is no forming
    assert compared(q, [sharpe, "Louis XIV is an American rock band from San Diego, formed in 2003."]) == "Louis XIV"
    q = "Which documentary was created first, The Agronomist or American Scary?"
    assert compared(q, ["The Agronomist is a 2003 American documentary.", "American Scary was created in 2006."]) == \
        "The Agronomist"


def test_yes_when_the_sentences_place_both_in_the_country_or_state_asked():
    q = "Are both Rutgers University and Carnegie Mellon University located in America?"
    rutgers = "Rutgers University is located in America."
    cmu = "Carnegie Mellon University is a private research university in Pittsburgh, Pennsylvania."
    assert by_sides(q, [rutgers, cmu]) == "Yes" and by_sides(q, [rutgers]) == ""
    q = "Are Local H and For Against both from the United States?"
    local = "Local H is an American rock band."
    assert by_sides(q, [local, "For Against is a post-punk band from Lincoln, Nebraska."]) == "Yes"
    assert by_sides(q, [local, "For Against is a Bulgarian-American band."]) == ""  # neither said
    assert by_sides(q, [local, "For Against is a band from Bulgaria."]) == "No"


def test_names_sharing_a_place_after_their_commas_a_kind_before_between_and_populations_compared():
    q = "Which town has a greater population as of the 2010 census, Minden, Nevada or Gardnerville, Nevada?"
    assert choices(q) == ["Minden", "Gardnerville"]
    assert choices("Between the documentaries The Staten Island Catapult and Frida, en trotjänarinna which came "
                   "first?") == ["The Staten Island Catapult", "Frida, en trotjänarinna"]
    minden, gardnerville = ("Minden had a population of 3,001 at the time.",
                            "The population of Gardnerville was 5,656 at the 2010 census.")
    assert compared(q, [minden, gardnerville]) == "Gardnerville"
    assert compared(q.replace("greater", "smaller"), [minden, gardnerville]) == "Minden"
    # a year is no population, nor is a density; millions count
    assert population("The population as of 2010 was 3,001.") == 3001.0
    assert population("The population density was 3,771.9 people per square mile.") is None
    assert population("Shanghai is home to 24 million people.") == 24_000_000.0
    assert compared(q, [minden, "Gardnerville is a census-designated place founded in 1879."]) is None


def test_two_days_of_one_year_make_a_span():
    q = "Which battle lasted longer, Battle of Hürtgen Forest or Battle of Pusan Perimeter?"
    hurtgen = "The Battle of Hürtgen Forest was fought from 19 September to 16 December 1944 in the Hürtgen Forest."
    pusan = "The Battle of Pusan Perimeter lasted from August 4 to September 18, 1950."
    assert compared(q, [hurtgen, pusan]) == "Battle of Hürtgen Forest"
    assert compared(q.replace("longer", "shorter"), [hurtgen, pusan]) == "Battle of Pusan Perimeter"
    assert compared(q, [hurtgen, "The Battle of Pusan Perimeter began on August 4, 1950."]) is None


def test_a_longer_name_holding_a_persons_name_does_not_name_the_person():
    assert not named("W. Somerset Maugham", "The Somerset Maugham Award is awarded to the best writer under 35.")
    assert named("W. Somerset Maugham", "William Somerset Maugham CH (25 January 1874 – 1965) was a playwright.")
    assert named("W. Somerset Maugham", "The prize was instituted in 1947 by William Somerset Maugham.")


def test_the_kind_after_the_wh_word_is_what_both_are_not_what_tells_them_apart():
    q = "Which company is based in Kentucky, Vocelli Pizza or Fazoli's?"
    vocelli = "Vocelli Pizza is based in Pittsburgh, Pennsylvania."
    fazolis = "Fazoli's is an Italian-American fast casual restaurant chain based out of Lexington, Kentucky."
    assert by_words(q, [vocelli, fazolis]) == "Fazoli's"
    assert by_words(q, [vocelli, "Fazoli's is a restaurant chain based in Ohio."]) is None


def test_floors_counted_in_stories_said_in_words_and_a_comma_before_or():
    q = "Which building will have more floors, 15 Penn Plaza, or 247 Cherry?"
    assert choices(q) == ["15 Penn Plaza", "247 Cherry"]
    assert choices("Which is the Oil Capital of China, Chaoyang District, Shantou, or Daqing?") == []  # three
    cherry = "247 Cherry is a seventy seven story residential building under development in Manhattan."
    penn = "15 Penn Plaza, also known as the Vornado Tower, is a proposed 68-story tower in Midtown Manhattan."
    assert number(q, cherry) == 77 and number(q, penn) == 68
    assert number(q, "The tower has forty-two floors.") == 42 and number(q, "It has twenty floors.") == 20
    assert by_numbers(q, [penn, cherry]) == "247 Cherry"
    assert number(q, "15 Penn Plaza would have 2,050,000 square feet (190,451 m²) of floor space.") is None
    assert number("Which genus contains more species, Crowea or Dracula?", cherry) is None  # stories are no species


def test_no_when_one_is_said_to_be_it_and_the_other_something_else():
    q = "Are both George Duran and Ara Babajian chefs?"
    duran = "George Duran is a Venezuelan born American chef and entertainer."
    babajian = "Ara Babajian is an American drummer."
    assert one_lacks(q, [duran, babajian]) == "No"
    assert one_lacks("Are Ranger Rick and Tennis both sports magazines?", [
        "Ranger Rick is a children's nature magazine published by the National Wildlife Federation.",
        "TENNIS is an American sports magazine owned by the Sinclair Broadcast Group."]) == "No"
    assert one_lacks(q, [duran]) == ""  # nothing says what the other is
    assert one_lacks(q, [duran, "Ara Babajian played drums in 2004."]) == ""  # not what he is
    assert one_lacks(q, [duran, "Ara Babajian is an American drummer and chef."]) == ""  # both are
    assert one_lacks("Are both Peter Balakian and James Der Derian teachers?", [
        "Peter Balakian is an Armenian American poet, writer, and academic.",
        "James Der Derian is the Director of the Centre for International Security Studies."]) == ""  # neither said
    # a place is elsewhere's to read ("Carnegie Mellon University in Qatar" is a part of it)
    assert one_lacks("Are both Rutgers University and Carnegie Mellon University located in America?", [
        "Rutgers University is located in America.",
        "Carnegie Mellon University in Qatar, is one of the branch campuses of Carnegie Mellon University, located in "
        "Doha, Qatar."]) == ""
    # a nationality the other's sentence leaves out is no "No": documents often do not say it
    assert one_lacks("Are both Wolfgang Becker and Paul Andrew Williams German film directors?", [
        "Wolfgang Becker is a German film director and writer.",
        "Paul Andrew Williams is a film writer and director."]) == ""
    # "specialized in" is no kind a sentence saying what one is leaves out: the model's own "Yes" stands
    q = "Are both Papa John's Pizza and Papa Gino's specialized in Pizza?"
    shown = ["Papa John's Pizza is an American restaurant franchise company.",
             "Papa Gino's specializes in American-style pizza."]
    assert SEL.conclusion(SEL.Selection("Yes", ()), q, shown=shown) == "Yes"
    assert one_lacks(q, shown) == ""
    # the model's "Yes" beside one said to be something else is wrong
    assert SEL.conclusion(SEL.Selection("Yes", ()), "Are both George Duran and Ara Babajian chefs?",
                          shown=["George Duran is a Venezuelan born American chef.",
                                 "Ara Babajian is an American drummer."]) == "No"


def test_no_when_one_of_two_asked_to_be_american_things_is_placed_elsewhere():
    q = "Are both Skye Sweetnam and Spin Doctors considered American musicians?"
    spin = "Spin Doctors is a rock band from USA, formed in New York City."
    assert by_sides(q, ["Skye Alexandra Sweetnam (born May 5, 1988) is a Canadian singer-songwriter.", spin]) == "No"
    assert by_sides(q, ["Skye Sweetnam is a Canadian-American singer.", spin]) == ""  # neither said
    # both American is no "Yes": an American band need not be musicians
    assert by_sides(q, ["Skye Sweetnam is an American songwriter.", spin]) == ""
    q = "Are the University of West Florida and FH Joanneum both American Universities ?"
    assert by_sides(q, ["The University of West Florida is a research university.",
                        "FH Joanneum is one of the largest Universities of Applied Sciences in Austria."]) == "No"
    # "American" inside a name asks no nationality
    assert elsewhere("Are both American Hardcore and Sicko documentaries?",
                     ["American Hardcore is a 2006 documentary film.", "Sicko is a documentary from Canada."]) == ""


def test_an_event_that_lasted_is_dated_by_its_span():
    q = "Did the Battle of Pusan Perimeter or the Battle of Peleliu happen first?"
    pusan = ("The Battle of Pusan Perimeter was a large-scale battle between United Nations and North Korean forces "
             "lasting from August 4 to September 18, 1950.")
    peleliu = "The Battle of Peleliu was fought between the U.S. and the Empire of Japan from September to November 1944."
    assert by_dates(q, [pusan, peleliu]) == "Battle of Peleliu"
    assert by_dates(q, ["The Battle of Pusan Perimeter was commemorated in 1950.", peleliu]) is None  # another event


def test_both_a_or_b_asks_the_same_of_both_not_which_of_them():
    """"Are both Lygodium or Maxillaria a genus of orchids?": the "or" stands for "and"; read as a choice the answer
    had opened with "Maxillaria", never saying no."""
    q = "Are both Lygodium or Maxillaria a genus of orchids?"
    assert choices(q) == [] and both(q) == ["Lygodium", "Maxillaria"]
    ferns = "Lygodium is a genus of about 40 species of ferns, native to tropical regions across the world."
    orchids = "Maxillaria is a large genus of orchids (family Orchidaceae)."
    assert SEL.conclusion(SEL.Selection("Maxillaria is a genus of orchids.", ()), q, "Yes, both are.",
                          shown=[ferns, orchids]) == "No"
    # "Is A or B ...?" is still a choice
    assert choices("Is Lygodium or Maxillaria a genus of orchids?") == ["Lygodium", "Maxillaria"]


def test_a_name_with_lower_case_particles_is_one_of_the_two_things():
    # "dos" split "Nelson Pereira dos Santos", and "Nelson", "Pereira" became words the question asks of both: the
    # answer said "No" beside two sentences calling both directors
    q = "Are Fabián Bielinsky and Nelson Pereira dos Santos both directors?"
    shown = ["Fabián Bielinsky was an Argentine film director born in Buenos Aires.",
             "Nelson Pereira dos Santos is a Brazilian film director."]
    assert both(q) == ["Fabián Bielinsky", "Nelson Pereira dos Santos"]
    assert by_sides(q, shown) == "" and both_say(q, shown)
    q = "Are Der Rosenkavalier and I Capuleti e i Montecchi both comic operas?"
    shown = ["Der Rosenkavalier is a comic opera in three acts by Richard Strauss.",
             'I Capuleti e i Montecchi ("The Capulets and the Montagues") is an Italian opera ("Tragedia lirica") in two '
             "acts by Vincenzo Bellini."]
    assert both(q) == ["Der Rosenkavalier", "I Capuleti e i Montecchi"] and by_sides(q, shown) == "No"


def test_both_a_and_b_with_any_verb_ask_what_they_share():
    assert common("Both Dusty Drake and Joe Diffie sing which genre of music?") == ["Dusty Drake", "Joe Diffie"]
    assert in_common("Both Dusty Drake and Joe Diffie sing which genre of music?",
                     ["Dusty Drake is an American country music singer.",
                      "Joe Diffie was an American country music singer."]) == "country"
    assert common("Dusty Drake and Joe Diffie sing which genre of music?") == []  # no opening "Both": unchanged


def test_the_same_country_read_off_where_a_sentence_places_each():
    q = "Are the bands Tiger Please and Black Rebel Motorcycle Club from the same country?"
    wales = "Tiger Please is an Indie / Alternative five-piece band from Cardiff, Wales."
    assert same(q, [wales, "Black Rebel Motorcycle Club is an American rock band from San Francisco, California."]) == "No"
    assert same(q, [wales, "Black Rebel Motorcycle Club is a band from Swansea, Wales."]) == "Yes"
    assert same(q, [wales, "Black Rebel Motorcycle Club is a rock band from San Francisco, California."]) == "No"
    assert same(q, [wales, "Black Rebel Motorcycle Club is a rock band."]) == ""  # one side placed nowhere
    # a nationality is read off the country a side is placed in when its sentence gives no nationality word
    nat = "Were Tiger Please and Black Rebel Motorcycle Club of the same nationality?"
    assert same(nat, [wales, "Black Rebel Motorcycle Club is an American rock band."]) == "No"
    assert same(nat, [wales, "Black Rebel Motorcycle Club is a rock band."]) == ""


def test_a_nationality_word_inside_a_name_is_no_nationality():
    q = "Do tennis players Kathy Jordan and Sergi Bruguera have the same nationality?"
    jordan = "Kathy Jordan is an American tennis player."
    final = "Sergi Bruguera defeated Jim Courier in the final to win the Men's Singles title at the 1993 French Open."
    assert same(q, [jordan, final]) == ""  # "the 1993 French Open" says nothing of where he is from
    assert same(q, [jordan, "Sergi Bruguera i Torner is a former tennis player from Catalonia, Spain."]) == "No"
    assert nationality("He played in the American Hockey League.") is None
    assert nationality("He is an American Olympic swimmer.") == "american"  # after "an", it is his


def test_a_nationality_says_its_country():
    q = "Were both Eugene Dynkin and Vladimir Voevodsky mathematicians from Russia?"
    dynkin = "Eugene Borisovich Dynkin was a Russian mathematician."
    assert both_say(q, [dynkin, "Vladimir Alexandrovich Voevodsky was a Russian mathematician."])
    assert not both_say(q, [dynkin, "Vladimir Alexandrovich Voevodsky was a French mathematician."])


def test_a_higher_population_is_a_population_and_the_same_us_state_is_read_off_the_places():
    # "higher" asks a height elsewhere; beside "population" it asks the population
    q = "Which has a higher population, Qinzhou or Jingjiang?"
    qinzhou = "Qinzhou has an urban population of 433,000."
    jingjiang = "Jingjiang is a county-level city with an urban population of 684,360 at the 2010 census."
    assert compared(q, [qinzhou, jingjiang]) == "Jingjiang"
    assert compared(q.replace("higher", "lower"), [qinzhou, jingjiang]) == "Qinzhou"
    assert compared("Which mountain is higher, Nanda Devi or Broad Peak?",
                    ["Broad Peak is at 8051 m.", "Nanda Devi is 7,816 m high."]) == "Broad Peak"
    q = "Are both bands, Digital Summer and Underoath, from the same US state ?"
    phoenix = "Digital Summer is an American hard rock band from Phoenix, Arizona, formed in 2006."
    assert same(q, [phoenix, "Underoath is an American post-hardcore band from Tampa, Florida."]) == "No"
    assert same(q, [phoenix, "Underoath is a band from Mesa, Arizona."]) == "Yes"
    assert same(q, [phoenix, "Underoath is an American post-hardcore band."]) == ""  # no state said: no answer


def test_documents_naming_both_make_the_comparison_only_in_a_sentence_naming_the_one_claimed():
    from vericite.engine.text.compare import restates_comparison

    q = "Who has won the most Olympic medals for figure skating, Debi Thomas or Katarina Witt?"
    docs = ("Witt won two Olympic gold medals for East Germany. Her competitive record makes her one of the most "
            "successful figure skaters of all time. The Battle of the Carmens is a rivalry between East German "
            "Katarina Witt and American Debi Thomas.")
    assert restates_comparison("Debi Thomas has won the most Olympic medals for figure skating.", q, docs)
    assert not restates_comparison("Katarina Witt has won the most Olympic medals for figure skating.", q,
                                   docs + " Katarina Witt won the most Olympic medals of any figure skater.")


def test_a_type_of_profession_asked_is_answered_by_a_role_only():
    q = "What type of profession does Chris Jericho and Gary Barlow have in common?"
    jericho = ("Christopher Keith Irvine, better known as Chris Jericho, is a Canadian-American professional wrestler "
               "and musician, currently on a hiatus due to an expected tour with Fozzy.")
    barlow = "Gary Barlow is an English singer and musician who went on a solo tour in 2013."
    assert in_common(q, [jericho, barlow]) == "musician"
    # "tour" is no profession: with no role both say, nothing
    barlow = "Gary Barlow is an English singer who went on a solo tour in 2013."
    assert in_common(q, [jericho, barlow]) == ""
    # a type of film is still a kind of film: the word both say before it
    films = ["Sicko is a 2007 American documentary film by Michael Moore.",
             "Bitter Jester is a 2003 documentary film directed by Maija DiGiorgio."]
    assert in_common("Bitter Jester and Sicko are both what kind of film?", films) == "documentary"


def test_no_is_not_said_of_one_whose_sentence_names_a_member_of_the_kind_asked():
    from vericite.engine.text.compare import one_lacks
    q = "Are Roger Waters and Tom Johnston both musicians?"
    tom = "Tom Johnston is an American musician."
    assert one_lacks(q, ["Roger Waters is an English singer, songwriter, bassist, and composer.", tom]) == ""
    assert one_lacks(q, ["Roger Waters is an English actor.", tom]) == "No"
    # a longer thing named after one of them is not that one
    assert one_lacks(q, ["Roger Waters: The Wall is a British concert film by Roger Waters.", tom]) == ""
    assert one_lacks("Are both George Duran and Ara Babajian chefs?",
                     ["George Duran is a Venezuelan born American chef.", "Ara Babajian is an American drummer."]) == "No"


def test_a_capitalised_comparing_word_inside_a_question_is_a_names_word():
    from vericite.engine.text.compare import measured

    q = ("Which of the following is home to the 642nd Aviation Support Battalion: Greater Rochester International "
         "Airport or Valley International Airport?")
    assert not measured(q)  # "Greater" of a name compares nothing
    rochester = "Greater Rochester International Airport is home to the 642nd Aviation Support Battalion."
    valley = "Valley International Airport is owned by the City of Harlingen, in Cameron County, Texas."
    assert by_words(q, [valley, rochester]) == "Greater Rochester International Airport"
    assert measured("Which tower is greater in height, A or B?")


def test_a_doer_says_the_doing_and_the_kind_after_the_wh_word_tells_nothing_apart():
    q = "Which writer also enjoyed boxing, Amy Tan or Norman Lindsay?"
    tan = "Amy Tan is an American writer."
    lindsay = "Norman Lindsay was an Australian artist, writer, and an accomplished amateur boxer."
    # "writer" (the kind, which both are) is left aside; "boxer" says "boxing"; "enjoyed" said by neither
    assert by_words(q, [tan, lindsay]) is None
    assert by_words(q, [tan, lindsay.replace("accomplished amateur boxer", "boxer who enjoyed it")]) == "Norman Lindsay"
    assert by_words(q, [tan + " She enjoyed reading.", lindsay]) is None  # one word each: nothing tells them apart


def test_a_choice_by_what_one_did_is_claimed_in_the_questions_own_words():
    from vericite.engine.text.compare import chosen_claim

    assert chosen_claim("Which writer also enjoyed boxing, Amy Tan or Norman Lindsay?", "Norman Lindsay") == \
        "Norman Lindsay also enjoyed boxing."
    assert chosen_claim("Which genus is native to Asia, Sutera or Rhodotypos?", "Rhodotypos") == "Rhodotypos is native to Asia."
    assert chosen_claim('Who directed "7th Heaven" (1927), Jerry Belson or Frank Borzage?', "Frank Borzage") == \
        'Frank Borzage directed "7th Heaven" (1927).'
    assert chosen_claim("Which of the following is home to the 642nd Aviation Support Battalion: Greater Rochester "
                        "International Airport or Valley International Airport?", "Valley International Airport") == \
        "Valley International Airport is home to the 642nd Aviation Support Battalion."
    # not one of the two; a comparison by an order or a measure; a question whose words do not read as a predicate
    assert chosen_claim("Which genus is native to Asia, Sutera or Rhodotypos?", "Asia") == ""
    assert chosen_claim("Who was born first, Erika Jayne or Marco Da Silva?", "Erika Jayne") == ""
    assert chosen_claim("Which band did Tom play in, Muzzle or Screaming Trees?", "Muzzle") == ""
    assert chosen_claim("Which band, Muzzle or Screaming Trees, was formed in Seattle?", "Muzzle") == ""


def test_a_member_of_the_kind_asked_of_both_says_the_kind():
    q = "Are Roger Waters and Tom Johnston both musicians?"
    waters = "Roger Waters is an English singer, songwriter, bassist, and composer."
    johnston = "Tom Johnston is an American musician."
    assert both_say(q, [waters, johnston])
    assert not both_say(q, ["Roger Waters is an English activist.", johnston])
    assert by_sides(q, [waters, johnston]) == ""  # no "No" either
