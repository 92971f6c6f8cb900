"""The copy guard (engine/text/copies.py ``altered_copy``, engine/claims.py ``without_altered_copies``): a claim copying
a document sentence but for a dropped negation or a name swapped in from elsewhere in the document is checked as that
sentence (dropped before its check when it runs over 60 words)."""
from __future__ import annotations

from vericite.engine import records as R
from vericite.engine.claims import without_altered_copies
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Document
from vericite.engine.text.copies import altered_copy
from vericite.engine.verifier import Claim, fact_claims

from tests.fakes import ScriptedLLM, WordChecker


def altered(claim: str, premise: str, subject: str = "", lang: str = "en") -> str:
    """The copy guard's reason, "" for no altered copy."""
    return altered_copy(claim, premise, subject, lang)[0]


SLEEP = ("N3 stage. In this stage the body repairs itself. REM is probably the most important sleep stage for those who "
         "are interested in dreams, because this is when we experience dreams.")
WARP = ("Alcubierre proposed a new kind of technology. This technology would not actually propel the ship to speeds "
        "exceeding light; instead, it uses")  # a snippet cut short


def test_a_copy_leaving_out_its_negation_is_altered():
    claim = "The Alcubierre drive uses this technology to propel the ship to speeds exceeding light."
    assert "would not actually" in altered(claim, WARP)
    # the negation kept, or a sentence that has none: a copy as written
    assert altered("This technology would not propel the ship to speeds exceeding light.", WARP) == ""
    assert altered("The drive would propel the ship to speeds exceeding light.",
                   "The drive would propel the ship to speeds exceeding light, the paper says.") == ""
    # a negation far from what the claim copies (another clause of the sentence) is not left out of it
    far = "Einstein and others have told us that light is the galactic speed limit, and nothing is faster."
    assert altered("Einstein and others have told us that light is the galactic speed limit.", far) == ""


def test_a_copy_putting_another_name_of_the_document_in_place_of_the_sentences_is_altered():
    claim = ("N3 stage is the most important sleep stage for those interested in dreams, because this is when we "
             "experience dreams.")
    assert "'N3' in place of 'REM'" in altered(claim, SLEEP)
    # a name the document has nowhere is the entity guard's, not a swap
    assert altered(claim.replace("N3", "K9"), SLEEP) == ""
    # a pronoun resolved to the document's subject, or a name its title gives, is no swap
    bio = "Chester Bennington was a singer. He served as the frontman for Dead by Sunrise and Stone Temple Pilots."
    assert altered("Chester Bennington served as the frontman for Dead by Sunrise and Stone Temple Pilots.", bio) == ""
    team = "The Phoenix play in Chester. The Phoenix is a professional basketball team based in Ellesmere Port, England."
    assert altered("The Phoenix is a professional basketball team based in Chester, England.", team) != ""
    assert altered("The Phoenix is a professional basketball team based in Chester, England.", team,
                   subject="Chester Phoenix") == ""
    # another sentence naming the new name and saying the rest restates that one
    senate = ("The Connecticut State Senate is one of 14 state legislative upper houses whose members serve two-year "
              "terms. The state senate comprises 36 members.")
    assert altered("The Connecticut State Senate is composed of 36 members.", senate) == ""
    # the first word of a sentence is a name only in capitals: "Raw" is a word
    beef = "Sixteen cases were reported. Raw or undercooked beef products were identified as the probable source."
    assert altered("Sixteen undercooked beef products were identified as the probable source.", beef) == ""
    assert altered(claim, SLEEP, lang="ru") == ""


def test_a_copy_splicing_in_a_number_from_another_sentence_is_altered():
    congress = ("The 2014 elections gave the Republicans control of the Senate for the first time since the 109th "
                "Congress. This Congress began with the largest Republican majority since the 71st Congress of 1929.")
    claim = ("The 2014 elections gave the Republicans control of the Senate for the first time since the 109th "
             "Congress of 1929.")
    assert "adds '1929'" in altered(claim, congress)
    # a name added (the emperor's own: "the emperor" -> "the Yongle Emperor") is no splice; nor a number the sentence has
    emperor = "The Yongle Emperor met the Karmapa. According to Thinley, the emperor gave the Karmapa the place of honor."
    assert altered("According to Thinley, the Yongle Emperor gave the Karmapa the place of honor.", emperor) == ""
    assert altered("The 2014 elections gave the Republicans control of the Senate for the first time since the 109th "
                   "Congress, in 2014.", congress) == ""


REM = ("REM is probably the most important sleep stage for those who are interested in dreams, because this is when "
       "we experience dreams.")


def test_an_altered_copy_is_checked_as_the_documents_sentence_or_dropped_when_that_is_a_paragraph():
    n3 = "N3 stage is the most important sleep stage for those interested in dreams, because this is when we experience dreams."
    items = fact_claims(R.EVIDENCE, n3 + "\nIn this stage the body repairs itself.", 1, Document("Sleep stages", SLEEP),
                        "en")
    notes: list[str] = []
    out = without_altered_copies(items, "en", notes)
    assert [x.text for x in out] == [REM, "In this stage the body repairs itself."]
    assert all(isinstance(x, Claim) for x in out)  # both still to be checked
    assert len(notes) == 1 and "altered copy" in notes[0] and "checked as the document's sentence" in notes[0]
    # the sentence copied runs over MAX_COPY_WORDS words (a paragraph the splitter could not cut): dropped
    long = SLEEP.replace("because this is when", "because " + "and so on " * 20 + "this is when")
    claim = n3.replace("because this is when", "because " + "and so on " * 20 + "this is when")
    dropped = without_altered_copies(fact_claims(R.EVIDENCE, claim, 1, Document("Sleep stages", long), "en"), "en")
    assert [getattr(x, "verdict", "claim") for x in dropped] == [R.DROPPED_ALTERED]
    # a snippet's cut end is shown as its whole clauses, as an answer quotes a document
    warp = fact_claims(R.EVIDENCE, "The Alcubierre drive uses this technology to propel the ship to speeds exceeding "
                       "light.", 1, Document("Warp drive", WARP), "en")
    assert [x.text for x in without_altered_copies(warp, "en")] == [
        "This technology would not actually propel the ship to speeds exceeding light."]
    # the document's title names whom its sentences are about: no swap
    titled = fact_claims(R.EVIDENCE, n3, 1, Document("N3", SLEEP), "en")
    assert [x.text for x in without_altered_copies(titled, "en")] == [n3]


def test_the_pipeline_checks_the_documents_sentence_in_place_of_the_altered_copy():
    """Stage 2 copied document 1's sentence with "N3" in place of "REM"; a checker reading words passes it."""
    q = "Which sleep stage is the most important for those interested in dreams?"
    docs = [Document("Sleep stages", SLEEP)]
    replies = {"answer": "REM is probably the most important sleep stage for those who are interested in dreams [1].",
               "gate": "Yes",
               "extract:1": "N3 stage is the most important sleep stage for those interested in dreams, because this "
                            "is when we experience dreams."}

    def run(**kw: object) -> list[tuple[str, str]]:
        pipe = VeriCite(ScriptedLLM(replies), WordChecker(), prompts=PromptSet.load("paper-en"),
                        settings=Settings(claim_words=0, refine="merge", **kw))
        res = pipe.answer(q, docs)
        return [(s.verdict, s.text) for st in res.stages[1:2] for s in st.statements]

    assert run() == [(R.KEPT, REM)]
    assert run(copy_guard=False) == [(R.KEPT, replies["extract:1"])]  # what the guard is for: the checker passes it
