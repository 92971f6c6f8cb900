"""A long document sentence shown as its leading clauses (engine/text/clauses.py)."""
from vericite.engine.text.clauses import asks_number, leading_clauses
from vericite.engine.text.content import answer_words, stems

OZ = ("Oz the Great and Powerful is a 2013 American fantasy adventure film directed by Sam Raimi and produced by "
      "Joe Roth, from a screenplay written by David Lindsay-Abaire and Mitchell Kapner.")


def cut(sentence: str, question: str, keep: str = "", longer: int = 20) -> str:
    return leading_clauses(sentence, answer_words(question, "") | answer_words(keep, ""), asks_number(question), longer)


def test_a_long_sentence_ends_before_the_first_clause_that_adds_to_it():
    q = "Who produced Oz the Great and Powerful?"
    assert cut(OZ, q) == ("Oz the Great and Powerful is a 2013 American fantasy adventure film directed by Sam Raimi "
                          "and produced by Joe Roth.")
    assert cut(OZ, q, longer=40) == OZ  # not longer than asked: as written
    rolling = ("Rolling Stone was founded in San Francisco in 1967 by Jann Wenner, who is still the magazine's "
               "publisher, and the music critic Ralph J. Gleason.")
    assert cut(rolling, "Who founded Rolling Stone?") == "Rolling Stone was founded in San Francisco in 1967 by Jann Wenner."
    # a clause holding a word of the question or the answer stays
    assert cut(OZ, "Who wrote the screenplay of Oz the Great and Powerful?") == OZ
    assert cut(rolling, "Who founded Rolling Stone?", keep="Ralph J. Gleason") == rolling


def test_asides_without_numbers_go_and_numbers_stay_for_a_question_about_one():
    tenerife = ("Tenerife (; ] ) is the largest and most populated island of the seven Canary Islands, an "
                "archipelago off the coast of Africa that belongs to Spain and is visited by tourists.")
    assert cut(tenerife, "Which island is in the Canary Islands?") == (
        "Tenerife is the largest and most populated island of the seven Canary Islands.")
    short = "Tenerife ( ; ] ) is the largest island of the seven Canary Islands."
    assert cut(short, "Which island?") == "Tenerife is the largest island of the seven Canary Islands."  # at any length
    born = ("Am Rong (1929 – May 1975) was a Cambodian soldier and filmmaker, who acted as a spokesman on military "
            "matters for the Khmer Republic during the Cambodian Civil War from 1970.")
    # a year in the cut clause stays when the clauses kept give none; they give the life span here
    assert cut(born, "Who was born first, Am Rong or Ava DuVernay?") == (
        "Am Rong (1929 – May 1975) was a Cambodian soldier and filmmaker.")
    unborn = born.replace(" (1929 – May 1975)", "")
    assert cut(unborn, "Who was born first, Am Rong or Ava DuVernay?") == unborn
    assert cut(born, "What was Am Rong's job?") == "Am Rong (1929 – May 1975) was a Cambodian soldier and filmmaker."


def test_what_a_subject_is_best_known_for_is_a_clause_that_adds():
    kath = ("Terry Alan Kath (January 31, 1946 – January 23, 1978) was an American musician and songwriter, best known "
            "as the original guitarist, one of the lead singers and founding members of the rock band Chicago.")
    q = "Who was born first David Draiman or Terry Kath?"
    assert cut(kath, q) == "Terry Alan Kath (January 31, 1946 – January 23, 1978) was an American musician and songwriter."
    assert cut(kath, "Which rock band was Terry Kath a founding member of?") == kath  # what it asks stays
    plummer = ("Charlie Plummer is an American film and television actor, perhaps best known for playing the lead roles "
               "of Timmy Sanders and Jack in the series \"Granite Flats\".")
    assert cut(plummer, "Lean on Pete stars the actor best known for playing what role in Granite Flats?") == plummer
    assert cut(plummer, "Is Charlie Plummer an actor?") == "Charlie Plummer is an American film and television actor."
    # a dropped pronunciation's leftover opening an aside goes at any length
    pekar = "Harvey Lawrence Pekar ( ; October 8, 1939 – July 12, 2010) was an American comic book writer."
    assert cut(pekar, q) == "Harvey Lawrence Pekar (October 8, 1939 – July 12, 2010) was an American comic book writer."
    assert cut("Sir John Everett Millais (,; 8 June 1829 – 13 August 1896) was an English painter.", q) == (
        "Sir John Everett Millais (8 June 1829 – 13 August 1896) was an English painter.")


def test_a_cast_along_with_others_ends_before_them():
    romans = ("Romans stars Kunchacko Boban, Biju Menon, and Niveda Thomas in the lead roles, along with Lalu Alex, T. G. "
              "Ravi, Nelson Sooranad, Kalabhavan Shaju, Kochu Preman, and Vijayaraghavan in supporting roles.")
    assert cut(romans, "Romans stars which Tamil and Telugu actress?") == (
        "Romans stars Kunchacko Boban, Biju Menon, and Niveda Thomas in the lead roles.")
    assert cut(romans, "Did Lalu Alex star in Romans?") == romans


def test_an_indefinite_predicate_ends_before_what_restricts_its_noun():
    q = "Which tennis player is younger, John Newcombe or Kveta Peschke?"
    newcombe = ("John David Newcombe (born 23 May 1944) is a former tennis player from Australia who is one of the few "
                "men to have attained a world No. 1 ranking in both singles and doubles.")
    assert cut(newcombe, q) == "John David Newcombe (born 23 May 1944) is a former tennis player from Australia."
    film = ("Charley and the Angel is a 1973 Disney family comedy film set in an unidentified small city in the 1930s "
            "Midwestern United States and starring Fred MacMurray.")
    assert cut(film, "Which film was released first, Charley and the Angel or The Boatniks?") == (
        "Charley and the Angel is a 1973 Disney family comedy film.")
    both = ("The Godfather Part II is a 1974 American crime film produced and directed by Francis Ford Coppola from a "
            "screenplay co-written with Mario Puzo, starring Al Pacino.")
    assert cut(both, "Who does the producer of Mistress play?") == both  # never after "produced and"
    only = "Neil Peart is the only drummer who played on every album the band Rush released from 1975 until 2015."
    assert cut(only, "Who drummed?") == only  # "the only drummer who ...": the clause is what it says
    assert cut(film, "Which film starring Fred MacMurray was set in the Midwest?") == film  # the question's words


def test_no_cut_inside_brackets_a_list_or_a_clause_left_open():
    hall = ("Daryl Franklin Hohl, known professionally as Daryl Hall, is an American rock, R&B, and soul singer; "
            "keyboardist, guitarist, songwriter and producer.")
    assert cut(hall, "Who is Daryl Hall?") == hall
    sims = ("Reynolds v. Sims was a United States Supreme Court case that ruled that unlike in the election of the "
            "United States Senate, in the election of any chamber of a state legislature the districts must be equal.")
    assert cut(sims, "What did Reynolds v. Sims rule?") == sims


def test_a_list_is_never_cut():
    trees = ("Screaming Trees was an American rock band formed in Ellensburg, Washington in 1985 by vocalist Mark "
             "Lanegan, guitarist Gary Lee Conner, bass player Van Conner and drummer Mark Pickerel.")
    assert cut(trees, "Which band had more members, Screaming Trees or Letters to Cleo?") == trees
    assert cut(trees, "Where was Screaming Trees formed?") == trees
    manila = ("The Battle of Manila was fought by American and Filipino forces against Japanese troops in Manila, "
              "the capital city of the Philippines and its largest port.")
    assert cut(manila, "Who fought in the Battle of Manila?") == (
        "The Battle of Manila was fought by American and Filipino forces against Japanese troops in Manila.")


def test_a_name_in_brackets_and_a_sentence_opening_with_although_stay():
    lenny = ("Thirty years later, Lenny (Adam Sandler) has become an ambitious Hollywood talent agent with his wife, "
             "fashion designer Roxanne (Salma Hayek), and his three children.")
    assert cut(lenny, "Who plays the wife of Lenny in Grown Ups?") == lenny
    laura = ("Although not as commercially successful as its predecessor (it was only certified Gold by the RIAA), "
             "the third single, Think of Laura, reached number 9 on the Hot 100 in 1984 and was his last hit.")
    assert cut(laura, "Which single of Christopher Cross reached the Top 10?") == laura
    war = ("The Second Anglo–Afghan War (Pashto: د افغان-انګرېز دويمه جګړه) was a military conflict fought between the "
           "British Raj and the Emirate of Afghanistan, when the latter was ruled by Sher Ali Khan.")
    assert cut(war, "Who fought the Second Anglo-Afghan War?").startswith("The Second Anglo–Afghan War was a military")


def test_a_pronunciation_template_s_leftover_goes_at_any_length():
    """HotpotQA's Wikipedia text keeps "{'1': ", '2': ", ...}" where a pronunciation template was; copied into an answer
    it reads as debris (the readers flagged it)."""
    debris = "Pierre Charles Bouvier {'1': \", '2': \", '3': \", '4': \"} (born 9 May 1979) is a Canadian singer."
    assert leading_clauses(debris, frozenset(), False, 20) == "Pierre Charles Bouvier (born 9 May 1979) is a Canadian singer."
    # braces holding words are not a leftover
    kept = "The set {A, B} is a pair named in the paper."
    assert leading_clauses(kept, frozenset(), False, 20) == kept


def test_a_number_the_question_gives_does_not_stand_for_the_one_it_asks():
    q = ('What year did Mark Wahlberg star in the crime drama film directed by Martin Scorsese and written by William '
         'Monahan, a remake of the 2002 Hong Kong film "Infernal Affairs"?')
    s = ("Mark Wahlberg starred in the crime drama film directed by Martin Scorsese and written by William Monahan, a "
         'remake of the 2002 Hong Kong film "Infernal Affairs", in 2006.')
    given = frozenset({"2002"})
    assert leading_clauses(s, answer_words(q, ""), asks_number(q), 20, given) == s
    assert leading_clauses(s, answer_words(q, ""), asks_number(q), 20) != s  # the question's 2002 stood for it


def test_a_closing_list_of_examples_keeps_the_items_holding_the_words_kept():
    from vericite.engine.text.clauses import examples_kept

    s = ("Cave-In-Rock was originally a stronghold for outlaws, including river pirates Samuel Mason and James Ford, "
         "tavern owner Isaiah L. Potts, serial killers/bandits the Harpe brothers, counterfeiters Philip Alston, John "
         "Duff, and the Sturdivant Gang.")
    keep = stems("Cave-In-Rock was a stronghold for serial killer/bandit brothers who operated in which century?")
    assert examples_kept(s, keep) == ("Cave-In-Rock was originally a stronghold for outlaws, including serial "
                                      "killers/bandits the Harpe brothers.")
    artists = "Danja has produced songs for artists such as Monica, Usher, Ciara, J. Cole and Madonna."
    assert examples_kept(artists, stems("Danja J. Cole")) == "Danja has produced songs for artists such as J. Cole."
    assert examples_kept(artists, stems("Danja Usher Madonna")) == \
        "Danja has produced songs for artists such as Usher and Madonna."
    # no item holds a kept word; too few items; a list that is all there is (no "including"): unchanged
    assert examples_kept(artists, stems("Danja North Carolina")) == artists
    assert examples_kept("It has members such as Monica, Usher and Ciara.", stems("Usher")) == \
        "It has members such as Monica, Usher and Ciara."
    assert examples_kept("Its members were Monica, Usher, Ciara and Madonna.", stems("Usher")) == \
        "Its members were Monica, Usher, Ciara and Madonna."
    # quoted titles (their commas part nothing) and a clause after the list: unchanged
    duke = ('She has written books for poker players, including "Decide to Play Great Poker" and "The Middle Zone", '
            'and she published her autobiography, "How I Raised, Folded, Bluffed, Flirted, Cursed, and Won Millions".')
    assert examples_kept(duke, stems("autobiography Annie Duke")) == duke
    assert examples_kept(duke.replace('"', ""), stems("autobiography Annie Duke")) == duke.replace('"', "")


def test_a_contrast_after_a_comma_is_a_clause_that_adds():
    lakers = ("The Lakers have won 16 NBA championships in Los Angeles and Minneapolis, while the Boston Celtics have "
              "won 17 championships in their history.")
    assert cut(lakers, "How many championships have the Lakers won?") == (
        "The Lakers have won 16 NBA championships in Los Angeles and Minneapolis.")
    # the contrast holds a word of the question: it stays
    assert cut(lakers, "How many championships have the Boston Celtics won?") == lakers
    chitalu = ("The association presented the evidence to FIFA in March 2013 at a meeting in Zurich, but a spokesperson "
               "responded that FIFA does not keep track of domestic competitions.")
    assert cut(chitalu, "When was the evidence presented to FIFA?") == (
        "The association presented the evidence to FIFA in March 2013 at a meeting in Zurich.")


def test_what_follows_a_semicolon_is_a_clause_that_adds():
    teams = ("The two teams have won the two highest numbers of championships, the Celtics 17, the Lakers 16; together, "
             "the 33 championships account for almost half of the 67 championships in NBA history.")
    assert cut(teams, "How many times have the lakers won the finals?") == (
        "The two teams have won the two highest numbers of championships, the Celtics 17, the Lakers 16.")
    # the clause after the semicolon holds a word of the question: it stays
    assert cut(teams, "How much of NBA history do the two teams' championships account for?") == teams
