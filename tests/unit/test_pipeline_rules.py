"""Each stage's keep/drop rules, with a scripted LLM and a deterministic fake checker.

The LLM returns fixed replies per call purpose and the checker entails a hypothesis exactly when
all its words occur in the premise (tests/fakes.py), so the rules are tested exactly: which
statements are dropped, why, and what reaches stage 3. The same rules on the real checker:
tests/integration/test_real_checker.py.
"""
from __future__ import annotations

import json

import pytest

from vericite.engine import records as R
from vericite.engine.text.citations import parse_citations
from vericite.engine.errors import ConfigError, InputError
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Document

from tests.fakes import ScriptedLLM, WordChecker

DOCS = [
    Document("Neil Peart", "Neil Peart was a Canadian musician. He was the drummer of the rock band Rush. "
                           "Peart was inducted into the Modern Drummer Hall of Fame in 1983."),
    Document("Counterparts (song)", "Counterparts is a song by the Canadian rock band Rush, released in 1993."),
    Document("Keith Moon", "Keith Moon was an English drummer of the rock band The Who."),
]
Q = "Which Canadian band released Counterparts and had a Hall of Fame drummer?"


@pytest.fixture
def checker():
    """The fake checker (overrides conftest's real one in this module)."""
    return WordChecker()


def run(checker, replies, **settings):
    """The pipeline on DOCS/Q; the rule tests below write short sentences, so claims are checked
    as written (claim_words=0) unless a test sets it (question-aware claims have their own tests)."""
    settings.setdefault("claim_words", 0)
    llm = ScriptedLLM(replies)
    pipe = VeriCite(llm, checker, prompts=PromptSet.load("paper-en"), settings=Settings(**settings))
    return llm, pipe.answer(Q, DOCS)


def by_verdict(stage):
    out = {}
    for s in stage.statements:
        out.setdefault(s.verdict, []).append(s.text)
    return out


def test_stage1_drop_rules(checker):
    llm, res = run(checker, {
        "answer": ("Rush released the song Counterparts in 1993 [2]. "
                   "Neil Peart was inducted into the Modern Drummer Hall of Fame in 1983 [1][2]. "
                   "Rush is a Canadian rock band. "
                   "Rush has sold 40 million records [7]. "
                   "Keith Moon was the drummer of Rush [3]. "
                   "Rush [1]."),
        "gate": "No",
        "refine": "Rush released Counterparts in 1993 [2]. Peart entered the Hall of Fame in 1983 [1][2].",
    }, min_statement_words=3)
    s1 = by_verdict(res.stages[0])
    assert len(s1[R.KEPT]) == 2
    assert s1[R.DROPPED_NO_CITATION] == ["Rush is a Canadian rock band."]
    assert s1[R.DROPPED_OUT_OF_RANGE] == ["Rush has sold 40 million records."]
    assert s1[R.DROPPED_NLI] == ["Keith Moon was the drummer of Rush."]
    assert s1[R.DROPPED_FRAGMENT] == ["Rush."]
    # the two-document sentence: scored jointly and against each document alone; document 2 does
    # not carry it (document 1 alone entails it), so citation 2 is removed (ALCE's precision rule)
    kept = [s for s in res.stages[0].statements if s.verdict == R.KEPT]
    assert kept[1].citations == (1,) and kept[1].removed == (2,) and kept[1].score >= 0.5
    assert res.stages[0].nli_pairs == 5  # 1 + (joint + 2 alone) + 1
    assert "Peart was inducted into the Modern Drummer Hall of Fame in 1983 [1]" in llm.calls[-1][1][-1]["content"]
    # without cite_each: checked against both texts joined, both citations kept
    _, joint = run(checker, dict(llm.replies), min_statement_words=3, cite_each=False)
    kept = [s for s in joint.stages[0].statements if s.verdict == R.KEPT]
    assert kept[1].citations == (1, 2) and kept[1].removed == () and joint.stages[0].nli_pairs == 3


def test_stage2_gate_and_fact_check(checker):
    llm, res = run(checker, {
        "answer": "",
        "gate:1": "Yes", "gate:2": "No", "gate:3": "Yes",
        "extract:1": "Neil Peart was the drummer of Rush. Peart was inducted into the Hall of Fame in 1983. Rush.",
        "extract:3": "Keith Moon played drums for Rush. Keith Moon was an English drummer.",
        "refine": "Peart drummed for Rush [1].",
    }, min_statement_words=3)
    purposes = [p for p, _, _ in llm.calls]
    assert "extract:2" not in purposes and "extract:1" in purposes and "extract:3" in purposes
    s2 = res.stages[1]
    assert any("not useful" in n for n in s2.notes)
    kept = [(s.text, s.citations) for s in s2.statements if s.verdict == R.KEPT]
    dropped = [s.text for s in s2.statements if s.verdict == R.DROPPED_NLI]
    assert ("Neil Peart was the drummer of Rush.", (1,)) in kept
    assert "Keith Moon played drums for Rush." in dropped
    assert all(c == (3,) for t, c in kept if "Moon" in t)
    # a bare fragment is not a statement: dropped before the NLI check
    frag = [s for s in s2.statements if s.verdict == R.DROPPED_FRAGMENT]
    assert [(s.text, s.score) for s in frag] == [("Rush.", None)]
    # the gate used the Yes/No grammar
    assert all(g == 'root ::= "Yes" | "No"' for p, _, g in llm.calls if p.startswith("gate"))


def test_a_fact_repeated_in_one_extraction_is_checked_once(checker):
    """A greedy small model loops ("X. X. X."): the repeats are one fact, one NLI pair."""
    _, res = run(checker, {
        "answer": "", "gate:1": "Yes", "gate:2": "No", "gate:3": "No",
        "extract:1": ("Neil Peart was the drummer of Rush.\nNeil Peart was the drummer of Rush.\n"
                      "neil peart  was the drummer of Rush. Peart was inducted into the Hall of Fame in 1983."),
        "refine": "Peart drummed for Rush [1].",
    })
    s2 = res.stages[1]
    assert [s.text for s in s2.statements] == ["Neil Peart was the drummer of Rush.",
                                               "Peart was inducted into the Hall of Fame in 1983."]
    assert s2.nli_pairs == 2


def test_stage3_gets_only_verified_statements_and_final_check_reports(checker):
    llm, res = run(checker, {
        "answer": "Rush released the song Counterparts in 1993 [2]. Keith Moon was the drummer of Rush [3].",
        "gate": "No",
        "refine": ("Rush released Counterparts in 1993 [2][2]. Keith Moon drummed for Rush [3]. "
                   "Rush is from Canada."),
    }, drop_unsupported=False)
    refine_prompt = next(m for p, m, _ in llm.calls if p == "refine")[-1]["content"]
    assert "Counterparts in 1993 [2]." in refine_prompt
    assert "Keith Moon" not in refine_prompt.split("Answer statements:")[1]
    assert "[2, 2]" not in res.answer and "1993 [2]." in res.answer  # merged and deduplicated
    verdicts = [s.verdict for s in res.final]
    assert verdicts[0] == R.SUPPORTED
    assert verdicts[1] == R.UNSUPPORTED  # reported, not removed
    assert verdicts[2] == R.NO_CITATION
    assert "Keith Moon drummed for Rush [3]." in res.answer
    assert any("failed the final check" in w for w in res.warnings)


def test_nothing_verified_gives_empty_answer_without_refine_call(checker):
    llm, res = run(checker, {"answer": "Rush is great.", "gate": "No"}, fallback_quotes=0)
    assert res.answer == "" and res.final == []
    assert "refine" not in [p for p, _, _ in llm.calls]
    assert any("empty" in w for w in res.warnings)


def test_nothing_verified_quotes_the_most_relevant_document_sentences(checker):
    """fallback_quotes (default 2): no LLM merge; the question's two best BM25 sentences, verbatim,
    each cited with its own document, in document order, checked as final sentences."""
    llm, res = run(checker, {"answer": "Rush is great.", "gate": "No"})
    assert "refine" not in [p for p, _, _ in llm.calls]
    assert res.answer == ("Peart was inducted into the Modern Drummer Hall of Fame in 1983 [1]. "
                          "Counterparts is a song by the Canadian rock band Rush, released in 1993 [2].")
    assert [(s.citations, s.verdict) for s in res.final] == [((1,), R.SUPPORTED), ((2,), R.SUPPORTED)]
    assert all(s.text in DOCS[s.citations[0] - 1].text for s in res.final)
    assert any("quotes the documents' most relevant sentences" in w for w in res.warnings)
    _, one = run(checker, {"answer": "Rush is great.", "gate": "No"}, fallback_quotes=1)
    assert one.answer == "Counterparts is a song by the Canadian rock band Rush, released in 1993 [2]."


def test_a_snippets_cut_sentence_is_never_quoted(checker):
    """Retrieved snippets start and end mid-sentence ("six times in the 1960s, ...", "...; together,
    the"): a reader cannot take such a piece alone, so the fallback quotes the best whole sentences."""
    docs = [Document("Lakers", "six times the Lakers won finals in the 1960s. Los Angeles is a city in California. "
                               "The Lakers won the finals in 2010. The Lakers and the Celtics won the finals most; "
                               "together, the"),
            Document("Arena", "The arena opened in 1999 downtown. It hosts concerts.")]
    pipe = VeriCite(ScriptedLLM({"answer": "Great.", "gate": "No"}), checker, prompts=PromptSet.load("paper-en"),
                    settings=Settings(claim_words=0, fallback_quotes=1))
    res = pipe.answer("How many times have the Lakers won the finals?", docs)
    assert res.answer == "The Lakers won the finals in 2010 [1]."
    # a sentence cut at its end is quoted as its whole clauses
    docs[0] = Document("Lakers", "six times the Lakers won finals in the 1960s. Los Angeles is a city in California. "
                                 "The Lakers won the finals 16 times, the Celtics 17 times; together, the")
    res = pipe.answer("How many times have the Lakers won the finals?", docs)
    assert res.answer == "The Lakers won the finals 16 times, the Celtics 17 times [1]."
    # another document says all of that part and more: its sentence alone is quoted
    docs[1] = Document("NBA", "The Lakers won the finals 16 times, the Celtics 17 times; together, they won 33 finals.")
    res = VeriCite(ScriptedLLM({"answer": "Great.", "gate": "No"}), checker, prompts=PromptSet.load("paper-en"),
                   settings=Settings(claim_words=0, fallback_quotes=2)).answer(
        "How many times have the Lakers won the finals?", docs)
    assert res.answer == "The Lakers won the finals 16 times, the Celtics 17 times; together, they won 33 finals [2]."


def test_nothing_verified_quotes_the_document_sentence_that_says_stage_1s_answer_first(checker):
    """Stage 1 named the answer in a sentence no single document carries; nothing else passed. The
    question's best BM25 sentences are the cyclist's biography; the document sentence saying most of
    stage 1's answer ("2000 Summer") leads instead."""
    docs = [Document("Sara Symington", "Sara Symington is an English former professional cyclist. "
                                       "She won a medal at a World Cup race."),
            Document("2000 Summer Olympics", "The 2000 Summer Olympic Games were held in Sydney."),
            Document("Jennifer Parilla", "Jennifer Parilla competed at the 2004 Olympic Games held in Athens.")]
    q = "Professional cyclist Sara Symington competed in which Olympic Games held in Sydney?"
    replies = {"answer": "Sara Symington competed in the 2000 Summer Olympics held in Sydney [1].", "gate": "No"}
    pipe = VeriCite(ScriptedLLM(replies), checker, prompts=PromptSet.load("paper-en"),
                    settings=Settings(claim_words=0, fallback_quotes=2))
    res = pipe.answer(q, docs)
    assert res.answer == "The 2000 Summer Olympic Games were held in Sydney [2]."
    assert any("led by the sentence closest to stage 1's opening" in n for n in res.stages[-1].notes)
    # no stage-1 answer beyond the question: the question's best sentences, as before
    res = VeriCite(ScriptedLLM({"answer": "Sara Symington competed in Olympic Games [1].", "gate": "No"}), checker,
                   prompts=PromptSet.load("paper-en"), settings=Settings(claim_words=0, fallback_quotes=2)).answer(q, docs)
    assert res.answer.startswith("Sara Symington is an English former professional cyclist [1].")
    # stage 1 answers another relation: the sentence saying it shares no word with the question
    docs[2] = Document("Jennifer Parilla", "Jennifer Parilla has 4301 trophies.")
    res = VeriCite(ScriptedLLM({"answer": "Sara Symington competed in Olympic Games and has 4301 trophies [1].",
                                "gate": "No"}), checker,
                   prompts=PromptSet.load("paper-en"), settings=Settings(claim_words=0, fallback_quotes=2)).answer(q, docs)
    assert "4301" not in res.answer and res.answer.startswith("Sara Symington is an English")


def test_nothing_verified_and_the_quotes_stop_at_the_first_hop_the_second_leads(checker):
    """Nothing passed; the fallback's best sentence names the painter the question describes and
    stops: her document's sentence stating the relation asked ("married") leads, the first hop follows."""
    docs = [Document("Ruby Loftus Screwing a Breech Ring",
                     "Ruby Loftus Screwing a Breech Ring is a 1943 painting by Laura Knight."),
            Document("Laura Knight", "She married Harold Knight in 1903. Laura Knight painted ballet dancers.")]
    q = "Who was married to the creator of Ruby Loftus Screwing a Breech Ring?"
    pipe = VeriCite(ScriptedLLM({"answer": "Ruby Loftus was painted.", "gate": "No"}), checker,
                    prompts=PromptSet.load("paper-en"), settings=Settings(claim_words=0, fallback_quotes=1))
    res = pipe.answer(q, docs)
    assert res.answer == ("Laura Knight married Harold Knight in 1903 [2]. Ruby Loftus Screwing a Breech Ring is a "
                          "1943 painting by Laura Knight [1].")
    assert any("stops at the first hop" in n for n in res.stages[-1].notes)


def test_nothing_verified_and_the_question_asks_about_two_things_the_quotes_give_one_sentence_each(checker):
    """Nothing passed; the fallback's most relevant sentences are both about one of the two
    mountains compared: one sentence about each is shown, the one giving the height first, opened by
    the one their heights make the answer (checked as written here: claim_words=0)."""
    docs = [Document("Nanda Devi", "Nanda Devi is the second highest mountain in India. Nanda Devi is the highest "
                                   "mountain of the Garhwal Himalayas. It stands at 7,816 m."),
            Document("Broad Peak", "Broad Peak is a mountain in the Karakoram at 8051 m.")]
    q = "Which mountain is higher, Nanda Devi or Broad Peak?"
    pipe = VeriCite(ScriptedLLM({"answer": "Nanda Devi is higher.", "gate": "No"}), checker,
                    prompts=PromptSet.load("paper-en"), settings=Settings(claim_words=0, fallback_quotes=2))
    res = pipe.answer(q, docs)
    assert res.answer == ("Broad Peak [1, 2]. Nanda Devi stands at 7,816 m [1]. "
                          "Broad Peak is a mountain in the Karakoram at 8051 m [2].")
    assert any("one sentence about each" in n for n in res.stages[-1].notes)
    assert any("open with 'Broad Peak'" in n for n in res.stages[-1].notes)


def test_nothing_verified_and_the_question_asks_what_two_share_the_quotes_open_with_it(checker):
    """The fallback quotes open with the short answer the answer step's would: the word both say."""
    docs = [Document("Daiquiri", "Daiquiri is a family of cocktails whose main ingredients are rum and lime juice."),
            Document("Polar Bear (cocktail)", "A Polar Bear is a mint chocolate cocktail that tastes of peppermint.")]
    q = "The Polar Bear and Daiquiri are both examples of what?"
    pipe = VeriCite(ScriptedLLM({"answer": "Both are drinks.", "gate": "No"}), checker,
                    prompts=PromptSet.load("paper-en"), settings=Settings(claim_words=0, fallback_quotes=2))
    res = pipe.answer(q, docs)
    assert res.answer.startswith("Cocktail [1, 2]. ")
    assert any("open with 'Cocktail'" in n for n in res.stages[-1].notes)


def test_a_quoted_sentence_opening_with_a_pronoun_names_its_documents_subject(checker):
    """A fallback quote "He was the drummer of the rock band Rush" said nothing about who: its
    pronoun is resolved to the document's title, and the sentence checked as resolved."""
    pipe = VeriCite(ScriptedLLM({"answer": "Rush is great.", "gate": "No"}), checker, prompts=PromptSet.load("paper-en"),
                    settings=Settings(claim_words=0, fallback_quotes=2))
    res = pipe.answer("Which musician was the drummer of Rush?", DOCS)
    assert res.answer == "Neil Peart was a Canadian musician [1]. Neil Peart was the drummer of the rock band Rush [1]."
    assert [s.verdict for s in res.final] == [R.SUPPORTED, R.SUPPORTED]


def test_documents_truncated_to_fit_context_with_warning(checker):
    llm = ScriptedLLM({"answer": "", "gate": "No"})
    llm.n_ctx = 700
    big = [Document("Big", "word " * 5000)] + DOCS
    res = VeriCite(llm, checker, prompts=PromptSet.load("paper-en")).answer(Q, big)
    assert any("truncated" in w for w in res.warnings)
    user = next(m for p, m, _ in llm.calls if p == "answer")[-1]["content"]
    assert len(user.split()) < 700


def test_bad_input(checker):
    llm = ScriptedLLM({})
    v = VeriCite(llm, checker, prompts=PromptSet.load("paper-en"))
    with pytest.raises(InputError):
        v.answer("  ", DOCS)
    with pytest.raises(InputError):
        v.answer(Q, [])


def test_trace_json_has_every_statement_and_timings(checker):
    _, res = run(checker, {"answer": "Rush released the song Counterparts in 1993 [2].", "gate": "No",
                  "refine": "Rush released Counterparts in 1993 [2]."})
    j = json.loads(json.dumps(res.to_json()))  # JSON-serialisable as is
    assert j["all_sentences_supported"] is True
    st = j["stages"][0]
    assert st["name"] == "answer" and st["statements"][0]["stage"] == "answer" and st["statements"][0]["citations"] == [2]
    assert {"wall_ms", "nli_ms", "nli_pairs", "prompt_tokens", "completion_tokens", "llm_calls"} <= set(st)
    assert j["settings"]["prompts"] == f"paper-en@{PromptSet.load('paper-en').version}"


def test_scored_gate_uses_the_calibrated_threshold(checker):
    llm, res = run(checker, {
        "answer": "", "gate:1": 0.9, "gate:2": 0.55, "gate:3": 0.2,
        "extract:1": "Neil Peart was the drummer of Rush.", "extract:2": "Counterparts is a song by Rush.",
        "refine": "Peart drummed for Rush [1].",
    }, gate="scored", gate_threshold=0.6)
    purposes = [p for p, _, _ in llm.calls]
    assert "extract:1" in purposes and "extract:2" not in purposes and "extract:3" not in purposes
    gates = [c for c in res.stages[1].llm_calls if c.purpose.startswith("gate")]
    assert [(c.text, c.score) for c in gates] == [("Yes", 0.9), ("No", 0.55), ("No", 0.2)]
    assert res.settings["gate"] == "scored" and res.settings["gate_threshold"] == 0.6


def test_relative_gate_compares_the_documents_before_any_extraction(checker):
    replies = {"answer": "", "gate:1": 0.95, "gate:2": 0.9, "gate:3": 0.5,
               "extract:1": "Neil Peart was the drummer of Rush.", "extract:2": "Counterparts is a song by Rush.",
               "refine": "Peart drummed for Rush [1]."}
    llm, res = run(checker, dict(replies), gate="relative", gate_threshold=0.8)
    purposes = [p for p, _, _ in llm.calls]
    assert purposes[:4] == ["answer", "gate:1", "gate:2", "gate:3"]  # every gate first
    assert "extract:1" in purposes and "extract:2" in purposes and "extract:3" not in purposes  # 0.5 / 0.95 < 0.8
    gates = [c for c in res.stages[1].llm_calls if c.purpose.startswith("gate")]
    assert [(c.text, c.score) for c in gates] == [("Yes", 0.95), ("Yes", 0.9), ("No", 0.5)]
    # the same scores with a low absolute P(Yes): the best document still passes
    low = dict(replies, **{"gate:1": 0.2, "gate:2": 0.1, "gate:3": 0.19})
    _, res = run(checker, low, gate="relative", gate_threshold=0.8)
    assert [c.text for c in res.stages[1].llm_calls if c.purpose.startswith("gate")] == ["Yes", "No", "Yes"]


def test_text_output_shows_answer_sources_and_warnings(checker, capsys):
    from vericite.engine.cli import _print_answer

    _, res = run(checker, {"answer": "Rush released the song Counterparts in 1993 [2].", "gate": "No",
                           "refine": "Rush released Counterparts in 1993 [2]. Keith Moon drummed for Rush [3]."})
    _print_answer(res)
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == res.answer == "Rush released Counterparts in 1993 [2]."  # strict: failure removed
    assert "warning: removed 1 of 2 final sentences" in err
    _, res = run(checker, {"answer": "Rush released the song Counterparts in 1993 [2].", "gate": "No",
                           "refine": "Rush released Counterparts in 1993 [2]. Keith Moon drummed for Rush [3]."},
                 drop_unsupported=False)
    _print_answer(res)
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == res.answer
    assert "[2] Counterparts (song)" in out and "[3] Keith Moon" in out
    assert "warning: final sentence unsupported" in err and "Keith Moon drummed for Rush [3]." in err
    assert "warning: 1 of 2 final sentences failed the final check" in err


def test_grades_from_the_checker_bands(checker):
    """With grade_bands, every checked sentence carries the brief's grade; verbatim copies get 1."""
    _, res = run(checker, {
        "answer": ("Counterparts is a song by the Canadian rock band Rush, released in 1993 [2]. "
                   "Rush released Counterparts [2]. Keith Moon was the drummer of Rush [3]."),
        "gate": "No", "refine": "Rush released Counterparts [2]."}, grade_bands=(1.0, 0.5, 0.2))
    s1 = res.stages[0].statements
    assert [s.grade for s in s1][0] == 1                       # verbatim sentence of document 2
    for s in s1:
        assert s.grade in (1, 2, 3, 4)
        assert (s.grade <= 2) == (s.verdict == R.KEPT)          # b2 = the keep threshold (0.5)
    _, plain = run(checker, {"answer": "Rush released Counterparts [2].", "gate": "No"})
    assert all(s.grade is None for s in plain.stages[0].statements)


def test_strict_final_check_removes_failures_and_falls_back_to_verified_sentences(checker):
    _, res = run(checker, {"answer": "Rush released the song Counterparts in 1993 [2].", "gate": "No",
                           "refine": "Rush released Counterparts in 1993 [2]. Keith Moon drummed for Rush [3]. Rush rocks."})
    assert res.answer == "Rush released Counterparts in 1993 [2]."
    assert [s.verdict for s in res.final] == [R.SUPPORTED]
    assert [s.verdict for s in res.stages[2].statements] == [R.SUPPORTED, R.UNSUPPORTED, R.NO_CITATION]
    assert any("strict: removed 2 of 3" in n for n in res.stages[2].notes)
    # nothing passes: the answer is the verified sentences themselves, checked as final sentences
    _, res = run(checker, {"answer": "Rush released the song Counterparts in 1993 [2].", "gate": "No",
                           "refine": "Keith Moon drummed for Rush [3]."})
    assert res.answer == "Rush released the song Counterparts in 1993 [2]."
    assert [s.verdict for s in res.final] == [R.SUPPORTED] and res.to_json()["all_sentences_supported"]
    assert any("verified sentences themselves" in w for w in res.warnings)


def test_a_document_giving_another_year_for_a_verified_claim_is_a_conflict(checker, capsys):
    from vericite.engine.cli import _print_answer

    docs = DOCS + [Document("Counterparts tour", "Counterparts was released by Rush in 1994, the band said."),
                   Document("Rush", "Rush formed in 1968 in Toronto.")]
    llm = ScriptedLLM({"answer": "Rush released Counterparts in 1993 [2].", "gate": "No",
                       "refine": "Rush released Counterparts in 1993 [2]."})
    res = VeriCite(llm, checker, prompts=PromptSet.load("paper-en"), settings=Settings(claim_words=0)).answer(Q, docs)
    assert [(c.document, c.value, c.other_document, c.other_value, c.kind) for c in res.conflicts] == \
        [(2, "1993", 4, "1994", "year")]  # document 5's 1968 is about something else: no conflict
    assert res.to_json()["conflicts"][0]["other_sentence"] == "Counterparts was released by Rush in 1994, the band said."
    _print_answer(res)
    assert "conflict: document [4] gives 1994 where document [2] gives 1993" in capsys.readouterr().out
    llm2 = ScriptedLLM(llm.replies)
    off = VeriCite(llm2, checker, prompts=PromptSet.load("paper-en"),
                   settings=Settings(conflicts=False, claim_words=0)).answer(Q, docs)
    assert off.conflicts == []


def test_a_conflicting_sentence_late_in_a_long_document_is_still_a_candidate(checker):
    from vericite.engine.conflicts import MAX_CANDIDATES, find_conflicts
    from vericite.engine.records import Statement

    years = " ".join(f"The band toured Europe in {1970 + k}." for k in range(MAX_CANDIDATES + 2))
    docs = [Document("Counterparts", "Rush released Counterparts in 1993."),
            Document("Rush", years + " Rush released Counterparts in 1994.")]
    fact = Statement("evidence", "Rush released Counterparts in 1993.", (1,), "kept", 1.0)
    found = find_conflicts([fact], docs, checker.scores, 0.5)
    assert [(c.document, c.value, c.other_document, c.other_value) for c in found] == [(1, "1993", 2, "1994")]


def test_lenient_keeps_partial_support_and_marks_its_citations(checker):
    replies = {"answer": "Keith Moon was the drummer of Rush [3].", "gate": "No",
               "refine": "Rush released the song Counterparts [2][1]. Keith Moon was the drummer of Rush [3]."}
    bands = (1.0, 0.5, 0.03)  # the fake checker scores a partly supported claim 0.03-0.1: grade 3
    _, strict = run(checker, dict(replies), grade_bands=bands, fallback_quotes=0)
    assert [s.verdict for s in strict.stages[0].statements] == [R.DROPPED_NLI] and strict.answer == ""
    _, lenient = run(checker, dict(replies), grade_bands=bands, strictness="lenient", cite_each=False)
    assert [(s.verdict, s.grade) for s in lenient.stages[0].statements] == [(R.KEPT, 3)]
    assert lenient.answer == "Rush released the song Counterparts [1*, 2]. Keith Moon was the drummer of Rush [3*]."
    assert [s.partial for s in lenient.final] == [(1,), (3,)]
    # with cite_each, document 1 does not carry the first sentence (document 2 alone does): removed, not starred
    _, pruned = run(checker, dict(replies), grade_bands=bands, strictness="lenient")
    assert pruned.answer == "Rush released the song Counterparts [2]. Keith Moon was the drummer of Rush [3*]."
    assert [(s.citations, s.removed) for s in pruned.final] == [((2,), (1,)), ((3,), ())]
    assert parse_citations("Counterparts [1*, 2].") == (1, 2)


def test_lenient_needs_grade_bands(checker):
    with pytest.raises(ConfigError, match="lenient.*grade_bands"):
        run(checker, {}, strictness="lenient")


# -- issue 13: question-aware claims, per-document citations, stage 1 as the backbone ---------------
FIELDER = [Document("Neil Peart", "Neil Peart was the drummer of the rock band Rush."),
           Document("Keith Moon", "Keith Moon played drums for The Who. Moon admired Rush.")]
Q_DRUMMER = "Who was the drummer of Rush?"


def answer_with(checker, replies, docs=FIELDER, question=Q_DRUMMER, **settings):
    llm = ScriptedLLM(replies)
    res = VeriCite(llm, checker, prompts=PromptSet.load("paper-en"), settings=Settings(**settings)).answer(question, docs)
    return llm, res


def test_a_fragment_is_checked_as_a_full_claim_with_the_question(checker):
    # "Keith Moon [2]" as written is entailed by document 2 (it names him); as the claim the
    # rewrite makes of it, "Keith Moon was the drummer of Rush", document 2 does not entail it
    replies = {"answer": "Keith Moon [2]. Neil Peart [1].", "gate": "No",
               "claim": "Keith Moon was the drummer of Rush.", "refine": "Neil Peart [1]."}
    llm, res = answer_with(checker, replies, claim_words=5)
    rewrites = [c for c in llm.calls if c[0].startswith("claim:")]
    assert [c[0] for c in rewrites][:2] == ["claim:answer", "claim:answer"]
    assert "Question: Who was the drummer of Rush?" in rewrites[0][1][-1]["content"]
    assert "Short answer: Keith Moon" in rewrites[0][1][-1]["content"]
    s1 = res.stages[0].statements
    assert s1[0].rewritten and s1[0].raw == "Keith Moon [2]."
    assert s1[0].text == "Keith Moon was the drummer of Rush." and s1[0].verdict == R.DROPPED_NLI
    # the same reply for "Neil Peart" names someone neither the fragment nor the question does: refused
    assert (s1[1].rewritten, s1[1].verdict, s1[1].text) == (False, R.DROPPED_FRAGMENT, "Neil Peart.")
    assert any(n.startswith("claim rewrite refused: 'Keith Moon was the drummer of Rush.' adds ['keith', 'moon']")
               for n in res.stages[0].notes)
    # the same fragment checked as written passes: the rule is what drops it
    _, plain = answer_with(checker, replies, claim_words=0)
    assert plain.stages[0].statements[0].verdict == R.KEPT


def test_a_fragment_that_cannot_be_made_a_claim_is_dropped_and_final_fragments_are_rewritten(checker):
    replies = {"answer": "Neil Peart [1].", "gate": "No", "claim": "Peart.", "refine": "Neil Peart [1]."}
    _, res = answer_with(checker, replies, claim_words=5)
    assert [s.verdict for s in res.stages[0].statements] == [R.DROPPED_FRAGMENT]  # the rewrite is still a fragment
    assert res.answer == ""
    # a refined fragment becomes its checked claim in the answer text
    replies = {"answer": "Neil Peart was the drummer of Rush [1].", "gate": "No",
               "claim": "Neil Peart was the drummer of Rush.", "refine": "Neil Peart [1]."}
    _, res = answer_with(checker, replies, claim_words=5)
    assert res.answer == "Neil Peart was the drummer of Rush [1]."
    assert [(s.verdict, s.rewritten, s.raw) for s in res.final] == \
        [(R.SUPPORTED, True, "Neil Peart was the drummer of Rush [1].")]


def test_without_a_claim_step_fragments_are_dropped_with_a_warning(checker, tmp_path):
    from vericite.engine.prompts import PROMPTS_DIR
    raw = json.loads((PROMPTS_DIR / "paper-en.json").read_text())
    del raw["claim"]
    path = tmp_path / "no-claim.json"
    path.write_text(json.dumps(raw))
    llm = ScriptedLLM({"answer": "Neil Peart [1]. Neil Peart was the drummer of Rush [1].", "gate": "No",
                       "refine": "Neil Peart was the drummer of Rush [1]."})
    res = VeriCite(llm, checker, prompts=PromptSet.load(str(path)), settings=Settings(claim_words=5)).answer(Q_DRUMMER, FIELDER)
    assert [s.verdict for s in res.stages[0].statements] == [R.DROPPED_FRAGMENT, R.KEPT]
    assert any("no claim step" in w for w in res.warnings)
    assert not any(c[0].startswith("claim") for c in llm.calls)


def test_three_citations_keep_only_those_that_carry_the_sentence(checker):
    docs = [Document("a", "Rush is a band from Toronto."), Document("b", "Rush recorded Counterparts and toured."),
            Document("c", "The Who is a band from London.")]
    replies = {"answer": "Rush is a band from Toronto and recorded Counterparts [1][2][3].", "gate": "No",
               "refine": "Rush is a band from Toronto and recorded Counterparts [1, 2, 3]."}
    _, res = answer_with(checker, replies, docs=docs, question="What is Rush?", claim_words=0, backbone=False)
    s = res.stages[0].statements[0]
    # no document alone entails it; without document 3 the other two still do: 3 removed, 1 and 2 kept (multi-hop)
    assert (s.verdict, s.citations, s.removed) == (R.KEPT, (1, 2), (3,))
    assert res.stages[0].nli_pairs == 1 + 3 + 3  # joint, each alone, all but each
    assert res.answer == "Rush is a band from Toronto and recorded Counterparts [1, 2]."
    assert res.final[0].removed == (3,)


def test_backbone_puts_back_the_verified_answer_the_refinement_dropped(checker):
    replies = {"answer": "Neil Peart was the drummer of Rush [1].", "gate": "Yes",
               "extract:1": "Neil Peart was the drummer of the rock band Rush.",
               "extract:2": "Keith Moon played drums for The Who.",
               "refine": "Keith Moon played drums for The Who [2]."}
    _, res = answer_with(checker, replies, claim_words=0)
    assert res.answer == "Neil Peart was the drummer of Rush [1]. Keith Moon played drums for The Who [2]."
    assert [s.verdict for s in res.final] == [R.SUPPORTED, R.SUPPORTED]
    assert any(n.startswith("backbone: put back 1") for n in res.stages[2].notes)
    _, off = answer_with(checker, replies, claim_words=0, backbone=False, backbone_facts=0)
    assert off.answer == "Keith Moon played drums for The Who [2]."
    # without stage 1's statement the verified fact that answers comes back, after the refined text
    _, facts = answer_with(checker, replies, claim_words=0, backbone=False)
    assert facts.answer == "Keith Moon played drums for The Who [2]. Neil Peart was the drummer of the rock band Rush [1]."
    # a refinement that keeps the answer's words keeps its own wording: nothing added
    kept = dict(replies, refine="Neil Peart was the drummer of the rock band Rush [1].")
    _, res = answer_with(checker, kept, claim_words=0)
    assert res.answer == "Neil Peart was the drummer of the rock band Rush [1]."
    assert not any(n.startswith("backbone") for n in res.stages[2].notes)


def test_answer_words_and_carried():
    from vericite.engine.text.content import answer_words, carried
    # stems (Snowball), digits; the question's words, function words and prompt words left out
    assert answer_words("According to the passage, the film was directed by Brad Silberling in 2004.",
                        "Who directed the film?") == {"brad", "silberl", "2004"}
    assert carried("The film was directed by Brad Silberling.", "Silberling directed it [5].", "Who directed the film?")
    assert not carried("The film was directed by Brad Silberling.", "Norihiro Koizumi [3].", "Who directed the film?")
    assert carried("The film was directed.", "", "Who directed the film?")  # nothing beyond the question


# -- issue 14: Russian questions get the Russian prompt set -----------------------------------------
def test_a_russian_question_is_asked_with_the_russian_prompt_set(checker):
    ru = json.loads((__import__("pathlib").Path(__file__).parents[2] / "examples" / "demo_yandex_market.json")
                    .read_text(encoding="utf-8"))
    docs = [Document(d["title"], d["text"]) for d in ru["docs"]]
    llm = ScriptedLLM({"answer": "Яндекс Маркет запущен в 2000 году как сервис сравнения цен [1].", "gate": "No",
                       "refine": "Яндекс Маркет запущен в 2000 году как сервис сравнения цен [1]."})
    res = VeriCite(llm, checker, prompts=PromptSet.load("paper-en-kv")).answer(ru["question"], docs)
    assert res.settings["lang"] == "ru" and res.settings["prompts"].startswith("paper-ru-kv@")
    first = llm.calls[0][1][-1]["content"]
    assert "Документ [1](Заголовок: История Яндекса)" in first and "Вопрос: Когда запустили" in first
    assert all("Instruction" not in m["content"] for _, msgs, _ in llm.calls for m in msgs)
    assert res.answer == "Яндекс Маркет запущен в 2000 году как сервис сравнения цен [1]."
    # the same set for an English question stays English; --lang en keeps it English for Russian text too
    llm_en = ScriptedLLM({"answer": "", "gate": "No"})
    VeriCite(llm_en, checker, prompts=PromptSet.load("paper-en-kv")).answer(Q, DOCS)
    assert "Document [1](Title: Neil Peart)" in llm_en.calls[0][1][-1]["content"]
    llm_fixed = ScriptedLLM({"answer": "", "gate": "No"})
    fixed = VeriCite(llm_fixed, checker, prompts=PromptSet.load("paper-en-kv"), settings=Settings(lang="en"))
    assert fixed.answer(ru["question"], docs).settings["prompts"].startswith("paper-en-kv@")


def test_every_built_in_prompt_set_loads_and_its_language_targets_exist():
    from vericite.engine.prompts import PROMPTS_DIR

    for path in PROMPTS_DIR.glob("*.json"):
        ps = PromptSet.load(path.stem)
        assert "claim" in ps.steps and ps.lang
        for lang, target in ps.languages:
            assert PromptSet.load(target).lang == lang


def test_kv_prompt_sets_share_a_documents_prefix_between_its_gate_and_its_extraction():
    """paper-en-kv and facts-en-kv: the extraction's prompt starts with the whole gate prompt up to the
    end of the instructions' shared first sentence (the KV cache reuses it)."""
    for name in ("paper-en-kv", "facts-en-kv"):
        ps = PromptSet.load(name)
        gate = ps.messages("gate", question=Q, docs="Document [1](Title: Rush): Rush is a band.")[-1]["content"]
        ext = ps.messages("extract", question=Q, docs="Document [1](Title: Rush): Rush is a band.")[-1]["content"]
        shared = gate[:gate.index("answer the question.") + len("answer the question.")]
        assert ext.startswith(shared) and "Document [1]" in shared, name
    assert "facts this passage states" in ps.steps["extract"].instruction


def test_multihop_reads_linked_documents_together_and_cites_both(checker):
    docs = [Document("Counterparts", "Counterparts is an album by Rush, produced by Peter Collins."),
            Document("Peter Collins", "Peter Collins is an English record producer born in 1950."),
            Document("Keith Moon", "Keith Moon played drums for The Who.")]
    q = "When was the producer of Counterparts born?"
    replies = {"answer": "", "gate": "Yes", "extract:1": "Counterparts is an album by Rush.",
               "extract:2": "Peter Collins is an English record producer.", "extract:3": "Keith Moon played drums.",
               "extract:1+2": "Counterparts is an album by Rush produced by Peter Collins born in 1950.",
               "refine": "Counterparts is an album by Rush produced by Peter Collins born in 1950 [1][2]."}
    llm, res = answer_with(checker, replies, docs=docs, question=q, claim_words=0, multihop=True)
    assert [p for p, _, _ in llm.calls if p.startswith("extract")] == ["extract:1", "extract:2", "extract:3",
                                                                        "extract:1+2"]
    joint = [s for s in res.stages[1].statements if len(s.citations) > 1]
    # neither document alone entails the two-hop fact; together they do: both citations kept
    assert [(s.verdict, s.citations, s.removed) for s in joint] == [(R.KEPT, (1, 2), ())]
    assert res.answer == "Counterparts is an album by Rush produced by Peter Collins born in 1950 [1, 2]."
    llm_off, _ = answer_with(checker, replies, docs=docs, question=q, claim_words=0)
    assert "extract:1+2" not in [p for p, _, _ in llm_off.calls]


def test_linked_pairs_share_a_name_the_question_lacks():
    from vericite.engine.pipeline import linked_pairs

    docs = [(1, "Counterparts was produced by Peter Collins."), (2, "Peter Collins was born in 1950."),
            (3, "Counterparts is an album."), (4, "Keith Moon drummed.")]
    # 1 and 3 share only "Counterparts", which the question names: not a bridge
    assert linked_pairs("When was the producer of Counterparts born?", docs) == [(1, 2)]
    assert linked_pairs("Who produced it?", docs, limit=1) == [(1, 2)]


def test_recite_moves_a_wrong_citation_and_adds_the_second_hop(checker):
    docs = [Document("Sherwood", "Lyman Sherwood was born in Hoosick."),
            Document("Keith Moon", "Keith Moon played drums for The Who."),
            Document("Hoosick", "Hoosick is a town in Rensselaer County.")]
    q = "In what county was Lyman Sherwood born?"
    replies = {"answer": "Keith Moon played drums for The Who [1]. "
                         "Lyman Sherwood was born in Hoosick in Rensselaer County [1].",
               "gate": "No",
               "refine": "Keith Moon played drums for The Who [2]. "
                         "Lyman Sherwood was born in Hoosick in Rensselaer County [1][3]."}
    _, res = answer_with(checker, replies, docs=docs, question=q, claim_words=0, recite=True)
    s1 = res.stages[0].statements
    # document 2 alone carries the first (the LLM wrote [1]); documents 1 and 3 together carry the second
    assert [(s.verdict, s.citations, s.removed, s.recited) for s in s1] == \
        [(R.KEPT, (2,), (1,), (2,)), (R.KEPT, (1, 3), (), (3,))]
    assert res.answer == "Keith Moon played drums for The Who [2]. Lyman Sherwood was born in Hoosick in Rensselaer County [1, 3]."
    _, off = answer_with(checker, replies, docs=docs, question=q, claim_words=0)
    assert [s.verdict for s in off.stages[0].statements] == [R.DROPPED_NLI, R.DROPPED_NLI]


def test_citations_a_joint_claim_needs_are_never_all_removed(checker):
    # every pair of the three documents entails the sentence, no single one does: ALCE's rule judged
    # citation by citation would remove all three; one is removed, the two kept still carry it
    docs = [Document("a", "Rush is a band."), Document("b", "Rush is from Toronto."),
            Document("c", "A band from Toronto.")]
    replies = {"answer": "Rush is a band from Toronto [1][2][3].", "gate": "No",
               "refine": "Rush is a band from Toronto [2][3]."}
    _, res = answer_with(checker, replies, docs=docs, question="What is Rush?", claim_words=0, backbone=False)
    s = res.stages[0].statements[0]
    assert (s.verdict, s.citations, s.removed, s.score) == (R.KEPT, (2, 3), (1,), 1.0)


def test_a_question_in_a_language_the_checker_does_not_read_goes_to_the_route_that_reads_it():
    ru = json.loads((__import__("pathlib").Path(__file__).parents[2] / "examples" / "demo_yandex_market.json")
                    .read_text(encoding="utf-8"))
    docs = [Document(d["title"], d["text"]) for d in ru["docs"]]
    en_checker, ru_checker = WordChecker(), WordChecker()
    ru_checker.name = "ru-word-checker"
    replies = {"answer": "Яндекс Маркет запущен в 2000 году [1].", "gate": "No",
               "refine": "Яндекс Маркет запущен в 2000 году [1].", "en": "Neil Peart was the drummer of Rush [1]."}
    llm = ScriptedLLM(replies)
    routed = VeriCite(llm, ru_checker, settings=Settings(checker_languages=("ru", "en"), threshold=0.6))
    pipe = VeriCite(llm, en_checker, settings=Settings(checker_languages=("en",)), routes={"ru": routed})
    assert pipe.route(ru["question"], docs) is routed and pipe.route(Q, DOCS) is pipe
    # an English question over Russian documents: the checker that reads both, not the English-only one
    assert pipe.route("When was the price comparison service launched?", docs) is routed
    assert pipe.route("When was the price comparison service launched?", docs[:1] + DOCS) is routed
    en_only = VeriCite(llm, en_checker, settings=Settings(checker_languages=("en",), lang="en"), routes={"ru": routed})
    assert en_only.route("When was the price comparison service launched?", docs) is en_only  # lang given: as told
    de = [Document("Rush", "Rush ist eine kanadische Rockband aus Toronto, die 1968 gegründet wurde und bis 2015 spielte.")]
    assert pipe.route("Where is Rush from?", de) is pipe         # no route reads German: the default, with its warning
    res = pipe.answer(ru["question"], docs)
    assert res.settings["nli"] == "ru-word-checker" and res.settings["threshold"] == 0.6
    assert ru_checker.pairs and not en_checker.pairs
    assert not any("reads en only" in w for w in res.warnings)
    # each question is routed on its own
    ru_checker.pairs.clear()
    llm.replies["answer"] = "Neil Peart was the drummer of Rush [1]."
    out = [pipe.answer(Q, DOCS), pipe.answer(ru["question"], docs)]
    assert [r.settings["nli"] for r in out] == ["word-checker", "ru-word-checker"]
    assert en_checker.pairs and ru_checker.pairs
    # without a route the checker that cannot read the language still answers, with the warning
    alone = VeriCite(ScriptedLLM(replies), WordChecker(), settings=Settings(checker_languages=("en",)))
    assert any("reads en only" in w for w in alone.answer(ru["question"], docs).warnings)


def test_a_stage_1_template_fill_leads_nothing(checker):
    """Stage 1 put another document's name into the question ("... a port city of the Bay of Bengal"): the fill is
    dropped before its check, and it does not steer the answer to that document's sentence either."""
    docs = [Document("George McCall Theal", "George McCall Theal (11 April 1837, Saint John, New Brunswick - 1919) was "
                     "a South African historian."),
            Document("Port of Chittagong", "The Port of Chittagong is the busiest seaport on the coastline of the Bay "
                     "of Bengal."),
            Document("Saint John, New Brunswick", "Saint John is the port city of the Bay of Fundy in New Brunswick.")]
    q = "The birthplace of George McCall Theal is a port city of what bay?"
    pipe = VeriCite(ScriptedLLM({"answer": "The birthplace of George McCall Theal is a port city of the Bay of Bengal "
                                           "[1][2].", "gate": "No"}),
                    checker, prompts=PromptSet.load("paper-en"), settings=Settings(claim_words=0, fallback_quotes=2))
    res = pipe.answer(q, docs)
    assert by_verdict(res.stages[0])[R.DROPPED_TEMPLATE] == [
        "The birthplace of George McCall Theal is a port city of the Bay of Bengal."]
    assert "Chittagong" not in res.answer and res.answer


def test_a_documents_question_is_never_quoted(checker):
    """A web page asks questions ("What would be the amount of energy needed ...?"): a question states nothing, so
    neither the fallback nor the lead quotes one, though it shares the most words with the question."""
    docs = [Document("Lakers", "How many times have the Lakers won the finals in all? The Lakers won the finals 16 times."),
            Document("Arena", "The arena opened in 1999 downtown. It hosts concerts.")]
    pipe = VeriCite(ScriptedLLM({"answer": "Great.", "gate": "No"}), checker, prompts=PromptSet.load("paper-en"),
                    settings=Settings(claim_words=0, fallback_quotes=1))
    res = pipe.answer("How many times have the Lakers won the finals?", docs)
    assert res.answer == "The Lakers won the finals 16 times [1]."
