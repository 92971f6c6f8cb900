from vericite.engine.text.splitter import split_sentences, split_statements


def test_one_statement_per_sentence():
    text = "Rush is a Canadian rock band [1]. Neil Peart was its drummer [2]. He was inducted in 1983 [2]."
    assert split_statements(text) == [
        "Rush is a Canadian rock band [1].", "Neil Peart was its drummer [2].", "He was inducted in 1983 [2]."]


def test_citation_after_period_moves_back():
    out = split_statements("Rush is a band. [1] Peart was its drummer. [2][3]")
    assert len(out) == 2
    assert out[0].endswith("[1]") and out[0].startswith("Rush")
    assert out[1].endswith("[2][3]")


def test_abbreviations_and_bullets():
    out = split_statements("- Dr. Smith lives in the U.S. today [1].\n\n* He works at St. Mary's [2].")
    assert out == ["Dr. Smith lives in the U.S. today [1].", "He works at St. Mary's [2]."]


def test_russian():
    out = split_statements("Яндекс Маркет запущен в 2000 году [1]. На Маркете представлена электроника [2].", "ru")
    assert len(out) == 2


def test_empty():
    assert split_statements("") == []
    assert split_statements("\n \n") == []


def test_unknown_language_is_a_clear_error():
    import pytest

    from vericite.engine.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown language 'xx'"):
        split_statements("A sentence.", "xx")


def test_marks_that_start_a_reported_claim_belong_to_it():
    text = ("Yes, both Alvin Lee and Chad Gray were lead vocalists. [1] states that Alvin Lee sang for Ten Years "
            "After. [3] also mentions that Chad Gray sang for Mudvayne. Rush formed in 1968. [2] It toured.")
    assert split_statements(text) == [
        "Yes, both Alvin Lee and Chad Gray were lead vocalists.",   # no mark of its own: dropped as uncited later
        "Alvin Lee sang for Ten Years After [1].",
        "Chad Gray sang for Mudvayne [3].",
        "Rush formed in 1968. [2]",                                 # a mark before a new sentence still closes this one
        "It toured.",
    ]


def test_marks_reporting_a_claim_inside_an_open_quotation_still_start_it():
    """pysbd does not split after an unclosed quotation mark: '... Nailbomb. [4] states that "Max ...'
    was one statement, shown with its "states that" in an answer."""
    text = ('"Max Cavalera was in a side project called Nailbomb. [4] states that "Max Cavalera co-founded Soulfly [4].\n'
            '"SEZs aim at job creation." [2] also mentions that Kadaperi is a region in Tambaram.')
    assert split_statements(text) == [
        '"Max Cavalera was in a side project called Nailbomb.',     # no mark of its own
        "Max Cavalera co-founded Soulfly [4].",                     # its own mark, not twice; the open quote gone
        '"SEZs aim at job creation."',                              # a closing quotation mark stays
        "Kadaperi is a region in Tambaram [2].",
    ]
    assert split_statements('Rush is a band. [2] states that "') == ["Rush is a band. [2]"]  # nothing reported


def test_marks_joined_with_and_to_the_sentence_before_start_the_next_reported_claim():
    """'... by Maurice Maeterlinck, and [2]. states that ...' was shown as '... by Maurice Maeterlinck, and [1].'"""
    text = ("[1] states that the libretto is adapted from the play by Maurice Maeterlinck, and [2]. states that "
            "Maeterlinck wrote the play in 1899. Rush toured, and [3] more.")
    assert split_statements(text) == [
        "The libretto is adapted from the play by Maurice Maeterlinck [1].",
        "Maeterlinck wrote the play in 1899 [2].",
        "Rush toured, and [3] more.",                       # no reporting verb after the marks: unchanged
    ]
    assert split_statements("[1] states that Lumet was a director, while [3]. mentions that Ward was a writer.") == [
        "Lumet was a director [1].", "Ward was a writer [3]."]
    # a conjunction left hanging at a statement's end goes
    assert split_statements("Ranger Rick is a nature magazine, while [2]. Tennis is a sports magazine [1].") == [
        "Ranger Rick is a nature magazine [2].", "Tennis is a sports magazine [1]."]


def test_marks_providing_context_by_stating_a_claim_start_it():
    text = ('"The new king relies on Logue in 1939. [1] provides additional context by stating that "The men become '
            'friends as they work together [1].')
    assert split_statements(text) == ['"The new king relies on Logue in 1939.', "The men become friends as they work "
                                                                               "together [1]."]


def test_a_sentence_reporting_what_the_passage_says_becomes_the_claim():
    """Stage-2 facts of the 1.5B model open "The passage states that ..." (1 answer in 10 showed
    one); the opener is about the prompt, and a quotation mark it opens and never closes goes."""
    text = ('The passage states that "From the late 18th century onwards, Orlam clans crossed the Orange River [2].\n'
            "The passage also states that originally constructed as the AOL Time Warner Center, it opened in 2004 [4]. "
            'According to the text, "Rush" is a band [1]. The passage states that [3]. '
            "According to the information provided in the passages, Lee sang [2]. Based on the passages, Rush won [4]. "
            "The passage mentions a river [5].")
    assert split_statements(text) == [
        "From the late 18th century onwards, Orlam clans crossed the Orange River [2].",
        "Originally constructed as the AOL Time Warner Center, it opened in 2004 [4].",
        '"Rush" is a band [1].',                    # a quotation closed in the claim stays
        "The passage states that [3].",             # nothing after the opener: the sentence as written
        "Lee sang [2].",
        "Rush won [4].",
        "The passage mentions a river [5].",        # not an opener before a claim
    ]
    assert split_statements("В тексте говорится, что Яндекс Маркет основан в 2000 году [1].", "ru") == [
        "Яндекс Маркет основан в 2000 году [1]."]


def test_threads_splitting_at_once_get_their_own_sentences():
    """pysbd keeps the text on its Segmenter: one shared by two threads (the checker's batcher
    splitting premises while the pipeline splits claims) mixed their sentences."""
    import threading

    from vericite.engine.text.splitter import split_sentences

    texts = [" ".join(f"Sentence {k} of text {t} is here." for k in range(6)) for t in range(2)]
    expected = [split_sentences(t) for t in texts]
    wrong = []

    def work(t: int) -> None:
        for _ in range(400):
            if split_sentences(texts[t]) != expected[t]:
                wrong.append(t)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not wrong


def test_a_long_line_is_cut_into_bounded_pieces_at_sentence_ends():
    """pysbd's time grows with the square of a line's length: a long line is cut first, at sentence ends."""
    from vericite.engine.text.splitter import MAX_LINE, _bounded, split_sentences

    sentences = [f"Sentence {k} says the band Rush had a drummer." for k in range(1000)]
    line = " ".join(sentences)
    pieces = _bounded(line)
    assert len(pieces) > 1 and all(len(p) <= MAX_LINE for p in pieces) and "".join(pieces) == line
    assert all(p.rstrip().endswith(".") for p in pieces[:-1])  # cut after a full stop
    assert split_sentences(line) == sentences
    words = _bounded("word " * 3000)  # no sentence end: cut at spaces
    assert all(len(p) <= MAX_LINE and not p.startswith(" ") for p in words) and "".join(words) == "word " * 3000


def test_a_piece_of_a_sentence_is_a_fragment():
    from vericite.engine.text.splitter import fragment
    assert fragment("six times in the 1960s, three times in the 1980s [1].")
    assert fragment("The Celtics 17, the Lakers 16; together, the [1]")
    assert fragment("он родился в Москве.")
    assert not fragment("iPhone was released in 2007 [1].")  # a word with a capital opens a sentence
    assert not fragment('He said "no." [2]')
    assert not fragment("(Plugs have prongs; connectors do not.)")
    assert not fragment("Он родился в Москве…")
    assert not fragment("[3]")


def test_according_to_document_is_prompt_talk():
    assert split_statements("According to Document, the final was held in Kiev [4].") == ["The final was held in Kiev [4]."]
    assert split_statements("Based on the documents, Lee sang [1].") == ["Lee sang [1]."]
    assert split_statements("According to Document [4], the final was held in Kiev.") == ["The final was held in Kiev [4]."]
    assert split_statements("According to Document [4], the final was held in Kiev [4].") == [
        "The final was held in Kiev [4]."]


def test_a_sentence_cut_at_its_end_keeps_its_whole_clauses():
    from vericite.engine.text.splitter import whole_part
    cut = "The two teams have won the most titles, the Celtics 17, the Lakers 16; together, the [1]"
    assert whole_part(cut) == "The two teams have won the most titles, the Celtics 17, the Lakers 16."
    assert whole_part("The Lakers won in 2010 [1].") == "The Lakers won in 2010 [1]."  # whole: as written
    assert whole_part("six times in the 1960s; three in the 1980s.") is None  # cut at its start
    assert whole_part("Too short; cut off here") is None
    assert whole_part("A cut with no semicolon and no stop") is None
    # an infobox's cells run together are no sentence to quote, however they end
    cells = ("Democratic Republic of Timor - Leste Flag Coat of arms Motto: Unidade, Acção, Progresso Capital and largest "
             "city Dili Official languages Tetum Portuguese Government Unitary semi-presidential constitutional "
             "republic President Francisco Guterres Prime Minister Mari Alkatiri ") * 3 + "Internet TLD."
    assert whole_part(cells) is None


def test_two_pieces_spliced_into_one_statement():
    from vericite.engine.text.splitter import spliced
    assert spliced('Bactris has "most species are small trees, but others are shrubs with stems. has simple leaves')
    assert not spliced("Affiliated Managers Group Inc. is an American company.")  # an abbreviation
    assert not spliced("It sells books, maps, etc. and other goods.")
    assert not spliced("Rush is a band. It toured.")
    from vericite.engine import records as R
    from vericite.engine.records import Document
    from vericite.engine.verifier import answer_claims
    out = answer_claims(R.ANSWER, 'Bactris has "small trees with stems. has simple leaves" [1]. Rush toured [1].',
                        [Document("Bactris", "Bactris has small trees with stems. It has simple leaves.")], "en", final=False)
    assert [getattr(x, "verdict", "claim") for x in out] == [R.DROPPED_FRAGMENT, "claim"]


def test_a_statement_cut_off_mid_sentence_is_a_fragment():
    from vericite.engine import records as R
    from vericite.engine.records import Document
    from vericite.engine.text.splitter import cut_end
    from vericite.engine.verifier import answer_claims, fact_claims
    assert cut_end("The Sazerac is most traditionally a combination of")
    assert cut_end("A Don is a village in south-eastern Laos near the [1]")
    assert cut_end("Сазерак — это сочетание коньяка и")
    assert not cut_end("The Sazerac is most traditionally a combination of.")  # closed: the model's, not a cut
    assert not cut_end("The Sazerac is a cocktail named for a cognac")
    assert not cut_end("")
    doc = Document("Sazerac", "The Sazerac is a New Orleans cocktail. The drink is most traditionally a combination of")
    facts = fact_claims(R.EVIDENCE, "The Sazerac is a New Orleans cocktail.\nThe Sazerac is most traditionally a "
                        "combination of", 1, doc, "en")
    assert [getattr(x, "verdict", "claim") for x in facts] == ["claim", R.DROPPED_FRAGMENT]
    first = answer_claims(R.ANSWER, "The Sazerac is a cocktail [1]. It is a combination of [1]", [doc], "en", final=False)
    assert [getattr(x, "verdict", "claim") for x in first] == ["claim", R.DROPPED_FRAGMENT]


def test_the_models_own_conclusion_is_cut_from_a_generated_statement():
    from vericite.engine import records as R
    from vericite.engine.records import Document
    from vericite.engine.text.splitter import without_inference
    from vericite.engine.verifier import answer_claims, fact_claims
    said = ("Human Events became a digital-only publication in 2013, which implies that it still relies on paper "
            "printing to produce its content")
    assert without_inference(said + ".") == "Human Events became a digital-only publication in 2013."
    assert without_inference("The video ends, implying that Ted never went back to Robin.") == "The video ends."
    assert without_inference("This means that the law passed.") == "This means that the law passed."  # nothing left
    assert without_inference("Rush toured Canada in 1974.") == "Rush toured Canada in 1974."
    doc = Document("Human Events", "Human Events became a digital-only publication in 2013.")
    # stage 1 and stage 2 check (and show) the statement without the conclusion; the final check reads a draft as is
    first = answer_claims(R.ANSWER, said + " [1].", [doc], "en", final=False)
    assert [x.text for x in first] == ["Human Events became a digital-only publication in 2013."]
    assert [x.text for x in fact_claims(R.EVIDENCE, said + ".", 1, doc, "en")] == [first[0].text]
    assert answer_claims(R.REFINE, said + " [1].", [doc], "en", final=True)[0].text == said + "."


def test_a_volume_in_a_title_and_a_company_of_brothers_end_no_sentence():
    from vericite.engine.text.splitter import split_sentences
    assert split_sentences("Guardians of the Galaxy Vol. 2 is a 2017 American superhero film. It was directed by "
                           "James Gunn.") == ["Guardians of the Galaxy Vol. 2 is a 2017 American superhero film.",
                                              "It was directed by James Gunn."]
    assert split_statements("Guardians of the Galaxy Vol. 2 is a 2017 film [5]. Ego is a character [1].") == [
        "Guardians of the Galaxy Vol. 2 is a 2017 film [5].", "Ego is a character [1]."]
    assert split_sentences("Warner Bros. Records Parent company Warner Music Group. It was founded in 1958.") == [
        "Warner Bros. Records Parent company Warner Music Group.", "It was founded in 1958."]
    # a linking adverb before a reported claim's marks, and the small model's "!" after them, are prompt talk
    assert split_statements("Kazanjian is a producer [3]. Additionally, [4][2]! states that Harry Kizirian was a "
                            "Marine. [2]") == ["Kazanjian is a producer [3].", "Harry Kizirian was a Marine [4][2]. [2]"]
    assert split_statements("Also, [2] mentions that Milan is in Italy. Additionally, Rome is old [3].") == [
        "Milan is in Italy [2].", "Additionally, Rome is old [3]."]
    # "Hon." before a name ends nothing (pysbd splits there)
    assert split_statements("The opposition leader in Uganda is Hon. Winnie Kiiza [3]. He spoke [2].") == [
        "The opposition leader in Uganda is Hon. Winnie Kiiza [3].", "He spoke [2]."]
    assert split_sentences('Cross was soon released from Warner Bros. "Swept Away" was heard on TV.') == [
        "Cross was soon released from Warner Bros.", '"Swept Away" was heard on TV.']
    # a place's "Ste." and a company's "Pvt. Ltd." end nothing (the answer showed "... Sault Ste [3]. Marie Greyhounds"
    # and opened with "Ltd., a professionally managed ...")
    assert split_sentences("The teams were London Knights, Sault Ste. Marie Greyhounds and Windsor Spitfires. Next.") == [
        "The teams were London Knights, Sault Ste. Marie Greyhounds and Windsor Spitfires.", "Next."]
    assert split_sentences("It is run by Raj Music Pvt. Ltd., a multi media company. It sells.") == [
        "It is run by Raj Music Pvt. Ltd., a multi media company.", "It sells."]


def test_circa_before_a_number_ends_no_sentence():
    from vericite.engine.text.splitter import split_sentences
    # "c. 800" cut the Norsemen's sentence at "c." (the final answer showed "... between c [1]."); "c." ending one
    # still ends it
    assert split_sentences("Old Norse was spoken between c. 800 and 1300 AD. It is North Germanic.") == [
        "Old Norse was spoken between c. 800 and 1300 AD.", "It is North Germanic."]
    assert split_sentences("It was built ca. 1768 by Gardner. The house stands.") == [
        "It was built ca. 1768 by Gardner.", "The house stands."]
    assert split_sentences("He took vitamin c. It helped.") == ["He took vitamin c.", "It helped."]
    # a baptism's date in a life span ("bapt. 14 December 1640") likewise: the answer showed "(baptismal date)–16 April
    # 1689) was a British playwright ..."
    behn = ("Aphra Behn (; bapt. 14 December 1640 (baptismal date)–16 April 1689) was a British playwright, poet, "
            "translator and fiction writer from the Restoration era.")
    assert split_sentences(behn + " She wrote The City Heiress.") == [behn, "She wrote The City Heiress."]
    # and a doubtful date's "?" (the document's own text) ends none either; a question after a number still does
    behn = ("Aphra Behn ( ; 14 December 1640?  (baptismal date)–16 April 1689) was a British playwright, poet, "
            "translator and fiction writer from the Restoration era.")
    assert split_sentences(behn + " She wrote The City Heiress.") == [behn, "She wrote The City Heiress."]
    assert split_sentences("Born 1640? - unsure.") == ["Born 1640? - unsure."]
    assert split_sentences("Was it 1640? (Nobody knows.)") == ["Was it 1640?", "(Nobody knows.)"]


def test_a_closing_pointer_at_the_source_is_not_part_of_the_statement():
    """", which is listed in Document [5]" (marks removed: ", which is listed in Document"): the checker read the
    pointer as part of the claim and failed "The area code for Cincinnati is 513" against the list of area codes."""
    from vericite.engine.text.splitter import without_inference
    assert without_inference("The area code for Cincinnati is 513, which is listed in Document.") == \
        "The area code for Cincinnati is 513."
    assert without_inference("The arena was completed in 1998, as mentioned in the document.") == \
        "The arena was completed in 1998."
    assert without_inference("Dylan was born in 1941, according to the passage.") == "Dylan was born in 1941."
    # "listed in" a register is what the statement says, not a pointer at the source
    assert without_inference("The church is listed in the National Register of Historic Places.") == \
        "The church is listed in the National Register of Historic Places."


def test_numbers_in_brackets_are_no_numbered_list():
    # pysbd read "5)" and "6)" as list items: "Thursday (April" / "5) or Friday (April" / "6) [2]."
    said = "Most teams opened the 2012 season on Thursday (April 5) or Friday (April 6) [2]."
    assert split_sentences(f"{said} Then it rained.") == [said, "Then it rained."]
    films = 'Her roles include "Let It Ride" (1989) "Made in America" (1993) and "Bound" (1996).'
    assert split_sentences(films) == [films]
    # an abbreviation or a question mark inside the brackets keeps pysbd's own reading
    assert split_sentences("He lived (1900–1950). She (b. 1920) came.") == ["He lived (1900–1950).", "She (b. 1920) came."]
    assert split_sentences("Tao (365? –427) was a poet (317-420) here.") == ["Tao (365? –427) was a poet (317-420) here."]
    assert split_sentences("Steps: 1) mix. 2) bake.") == ["Steps:", "1) mix.", "2) bake."]  # a real list is untouched


def test_a_one_letter_regnal_number_ends_a_sentence_before_a_word_opening_one():
    text = ("It premiered a concert overture based on Shakespeare's Henry V.  The work is dedicated to the orchestra.  "
            "George C. Scott was an actor. Henry V. Smith is a name. Pope Pius X. He died.")
    assert split_sentences(text) == ["It premiered a concert overture based on Shakespeare's Henry V.",
                                     "The work is dedicated to the orchestra.", "George C. Scott was an actor.",
                                     "Henry V. Smith is a name.", "Pope Pius X.", "He died."]
    assert split_statements("It is based on Henry V [1]. The work is new [2].") == [
        "It is based on Henry V [1].", "The work is new [2]."]


def test_a_passages_quotation_closing_a_sentence_before_two_spaces_ends_it():
    text = 'The lyrics lament: "I keep saying, "Must you bury the tune?"  In his autobiography, Rodgers described it.'
    assert split_sentences(text) == ['The lyrics lament: "I keep saying, "Must you bury the tune?"',
                                     "In his autobiography, Rodgers described it."]
    assert split_sentences('He asked "why?" and left.') == ['He asked "why?" and left.']
    # an answer keeps it whole: its citation marks come after
    assert split_statements('He sang "Tune?"  It was new [1].') == ['He sang "Tune?"  It was new [1].']
