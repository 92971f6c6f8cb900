"""Document trimming by BM25 sentence relevance (engine/text/relevance.py) and its use in the pipeline."""
import pytest

from vericite.engine.text.relevance import bm25_scores, few_scores, relevant_sentences, trim_document

PASSAGE = ("Neil Peart was a Canadian musician and writer. He grew up in Port Dalhousie, Ontario. "
           "He worked as a farm-equipment dealer for a while. Peart was the drummer of the rock band Rush. "
           "He was inducted into the Modern Drummer Hall of Fame in 1983. Peart died in 2020 in Santa Monica, California.")


def n_words(text: str) -> int:
    return len(text.split())


def test_bm25_scores_rank_the_matching_text_first():
    s = bm25_scores("drummer hall of fame", ["He grew up in Ontario.", "Inducted into the drummer hall of fame.", ""])
    assert s.shape == (3,) and s.dtype.name == "float64"
    assert s.argmax() == 1 and s[2] == min(s)


def test_trim_keeps_first_and_most_relevant_sentences_in_order():
    out, cut = trim_document("Which drummer was inducted into the Hall of Fame?", PASSAGE, 22, n_words)
    assert cut and n_words(out) <= 22
    assert out.startswith("Neil Peart was a Canadian musician")            # the lead sentence always stays
    assert "Modern Drummer Hall of Fame in 1983" in out                     # the best BM25 match
    assert "farm-equipment" not in out
    sents = [s.strip() + "." for s in out.split(".") if s.strip()]
    assert sorted(sents, key=PASSAGE.index) == sents                        # original order


def test_trim_leaves_short_or_single_sentence_text_alone():
    assert trim_document("q", "Short text.", 50, n_words) == ("Short text.", False)
    long_one = "word " * 100
    assert trim_document("q", long_one, 10, n_words) == (long_one, False)   # nothing to choose from
    with pytest.raises(ValueError):
        trim_document("q", PASSAGE, 0, n_words)


def test_pipeline_shows_trimmed_documents_but_checks_full_ones():
    """doc_tokens trims what the LLM sees; the NLI premise is still the whole document."""
    from vericite.engine import records as R
    from vericite.engine.pipeline import Settings, VeriCite
    from vericite.engine.prompts import PromptSet
    from vericite.engine.records import Document

    from tests.fakes import ScriptedLLM, WordChecker

    checker = WordChecker()

    docs = [Document("Neil Peart", PASSAGE), Document("Rush", "Rush is a Canadian rock band formed in 1968.")]
    llm = ScriptedLLM({"answer": "Peart was the drummer of the rock band Rush [1].", "gate": "No",
                       "refine": "Peart was the drummer of Rush [1]."})
    pipe = VeriCite(llm, checker, prompts=PromptSet.load("compact-en"),
                    settings=Settings(doc_tokens=22, prompt_format="completion", citation_grammar=True))
    res = pipe.answer("Which drummer was inducted into the Hall of Fame?", docs)
    prompt = next(m for p, m, _ in llm.calls if p == "answer")
    assert isinstance(prompt, str)                                          # completion: one plain prompt
    assert "Hall of Fame in 1983" in prompt and "farm-equipment" not in prompt and "drummer of the rock band" not in prompt
    # the statement cites a sentence the LLM never saw, yet NLI checks it against the full document
    assert res.stages[0].statements[0].verdict == R.KEPT
    assert res.settings["doc_tokens"] == 22 and res.settings["prompt_format"] == "completion"
    # stage 3 may cite only documents that verified statements cite
    grammar = next(g for p, _, g in llm.calls if p == "refine")
    assert '"1"' in grammar and '"2"' not in grammar


def test_relevant_sentences_rank_across_texts_and_skip_short_or_unrelated_ones():
    texts = ["Rush is a band. Rush was formed in Toronto in 1968 by three friends.",
             "The Who. Keith Moon drummed for The Who in London.",
             "Toronto is a city."]
    got = relevant_sentences("When was Rush formed in Toronto?", texts, 3)
    assert got[0] == (0, "Rush was formed in Toronto in 1968 by three friends.")
    assert all(len(s.split()) >= 4 for _, s in got)              # "The Who." is too short
    assert (1, "Keith Moon drummed for The Who in London.") not in got  # no word of the question
    assert relevant_sentences("When was Rush formed?", texts, 0) == [] and relevant_sentences("x", [], 2) == []


def test_few_scores_stay_positive_for_two_candidates_where_okapi_inverts_them():
    q = "In which county is the English king Harold Godwinson buried?"
    said = "The English king Harold Godwinson is buried in Waltham Abbey."
    longer = ("The Battle of Stamford Bridge took place in England in 1066, between an English army under King Harold "
              "Godwinson and a Norwegian force led by King Harald Hardrada and the English king's brother Tostig Godwinson.")
    assert bm25_scores(q, [said, longer]).argmax() == 1  # Okapi: every shared word's IDF is negative
    s = few_scores(q, [said, longer])
    assert s.shape == (2,) and s.dtype.name == "float64" and (s > 0).all()
    assert s.argmax() == 0 and few_scores(q, [longer, said]).argmax() == 1
