"""Stage 3's rule chain (engine/draft.py) on fakes, and the one orchestration: the service's stream
is built from the same run as ``VeriCite.answer`` (hooks), multihop included."""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from vericite.engine import draft as D
from vericite.engine import records as R
from vericite.engine.pipeline import Hooks, Settings, VeriCite
from vericite.engine.prompts import PromptSet
from vericite.engine.records import Document, Statement
from vericite.engine.service.runner import Runner

from tests.fakes import ScriptedLLM, WordChecker
from tests.unit.test_pipeline_rules import DOCS, Q


def sentence(text: str, cites=(1,), verdict=R.SUPPORTED, stage=R.REFINE, raw=None) -> Statement:
    return Statement(stage, text, tuple(cites), verdict, 1.0 if verdict == R.SUPPORTED else 0.0,
                     raw or D.with_citations(Statement(stage, text, tuple(cites), verdict)))


def fake_facts(bad_words=(), verified=(), statements=(), **settings) -> D.Facts:
    """Facts whose final check splits after each full stop and fails a sentence holding any of ``bad_words``."""

    def check(text: str):
        parts = [p for p in re.split(r"(?<=\.)\s+", text) if p]
        out = tuple(Statement(R.REFINE, p, (1,), R.UNSUPPORTED if any(w in p for w in bad_words) else R.SUPPORTED,
                              0.5, p) for p in parts)
        return D.Block(text, out, tuple(s.raw for s in out)), [f"checked {len(out)}"]

    return D.Facts(question="Who drummed for Rush?", lang="en", documents=DOCS, verified=list(verified),
                   statements=list(statements), settings=Settings(**settings), check=check,
                   scores=lambda pairs: np.array([0.5] * len(pairs), dtype=np.float32))


def test_a_whole_block_reads_as_written_until_a_rule_removes_a_sentence():
    f = fake_facts(bad_words=("Moon",), add_nothing=False, backbone=False, backbone_facts=0)
    d = D.final_check(D.Draft.of("Peart drummed for Rush [1]. Moon drummed for Rush [3].\nRush is Canadian [2]."), f)
    assert d.text().count("\n") == 1 and [s.verdict for s in d.sentences].count(R.UNSUPPORTED) == 1
    assert d.checked == tuple(d.sentences) and d.notes == ("checked 3",)
    kept = D.strict(d, f)
    assert kept.text() == "Peart drummed for Rush [1]. Rush is Canadian [2]."  # joined once a sentence went
    assert [w.code for w in kept.warnings] == [D.FINAL_REMOVED]
    assert len(kept.checked) == 3  # the record keeps the failing sentence with its verdict
    reported = D.strict(d, replace(f, settings=Settings(drop_unsupported=False)))
    assert reported.text() == d.text() and [w.code for w in reported.warnings] == [D.FINAL_FAILED]


def test_a_checked_form_replaces_the_written_sentence_in_place():
    raw = "Berea College [1]."
    checked = Statement(R.REFINE, "Berea College is the answer.", (1,), R.SUPPORTED, 0.9, "Berea College is the answer [1].",
                        rewritten=True)
    block = D.Block("Intro [2].\n" + raw, (sentence("Intro.", (2,)), checked), ("Intro [2].", raw))
    assert block.render() == "Intro [2].\nBerea College is the answer [1]."


def test_strict_falls_back_to_the_verified_sentences_and_drops_those_that_fail_again():
    verified = [sentence("Peart was the drummer of Rush.", stage=R.EVIDENCE),
                sentence("Moon was the drummer of Rush.", (3,), stage=R.EVIDENCE)]
    f = fake_facts(bad_words=("Moon", "Copeland"), verified=verified)
    d = D.strict(D.final_check(D.Draft.of("Copeland drummed for Rush [1]."), f), f)
    assert d.text() == "Peart was the drummer of Rush [1]."
    assert [w.code for w in d.warnings] == [D.FINAL_NONE_PASSED]
    assert any("no final sentence passed" in n for n in d.notes) and any("failed as final" in n for n in d.notes)
    # nothing at all passes: empty, and the reason is a field, not a search of warning texts
    f = fake_facts(bad_words=("Peart", "Moon", "Copeland"), verified=verified)
    d = D.strict(D.final_check(D.Draft.of("Copeland drummed for Rush [1]."), f), f)
    assert d.text() == "" and "no final sentence passed" in d.empty_reason()


def test_add_nothing_fails_a_sentence_with_new_words():
    verified = [sentence("Neil Peart was the drummer of Rush.", stage=R.EVIDENCE)]
    f = fake_facts(verified=verified)
    d = D.add_nothing(D.final_check(D.Draft.of("Neil Peart was the drummer of Rush [1]. "
                                                "Peart also invented the drum machine in Toronto [1]."), f), f)
    assert [s.verdict for s in d.sentences] == [R.SUPPORTED, R.UNSUPPORTED]
    assert [s.verdict for s in d.checked] == [R.SUPPORTED, R.UNSUPPORTED]  # the record shows the verdict too
    assert any(n.startswith("add nothing:") for n in d.notes)
    off = replace(f, settings=Settings(add_nothing=False))
    assert D.add_nothing(D.final_check(D.Draft.of("Peart invented the drum machine [1]."), off), off).sentences[0].verdict \
        == R.SUPPORTED


def test_put_backs_go_before_and_after_and_are_recorded():
    statement = sentence("Alex Lifeson played guitar in Rush.", stage=R.ANSWER, verdict=R.KEPT)
    f = fake_facts(statements=[statement], backbone_facts=0)
    d = D.final_check(D.Draft.of("Neil Peart drummed [1]."), f)
    d = D.put_back_statements(d, f)
    assert d.text() == "Alex Lifeson played guitar in Rush [1]. Neil Peart drummed [1]."
    assert [s.raw for s in d.checked] == ["Alex Lifeson played guitar in Rush [1].", "Neil Peart drummed [1]."]
    assert any(n.startswith("backbone: put back 1 verified stage-1") for n in d.notes)
    assert D.put_back_statements(d, f) == d  # carried now: nothing more to put back
    off = replace(f, settings=Settings(backbone=False))
    assert D.put_back_statements(D.Draft.of("x."), off) == D.Draft.of("x.")


def test_lenient_marks_show_in_the_answer_not_in_the_record():
    f = fake_facts(strictness="lenient", grade_bands=(1.0, 0.7, 0.3))
    s = replace(sentence("Rush is a band.", (1, 2), raw="Rush is a band [1, 2]."), grade=2)
    d = D.Draft((D.Block("Rush is a band [1, 2].", (s,), (s.raw,)),), (s,))
    marked = D.lenient_marks(d, f)  # each document alone scores 0.5: grade 3, partial
    assert marked.text() == "Rush is a band [1*, 2*]." and marked.sentences[0].partial == (1, 2)
    assert marked.checked[0].raw == "Rush is a band [1, 2]."
    assert D.lenient_marks(d, replace(f, settings=Settings())) == d  # strict: unchanged


def test_a_rule_plugs_into_the_chain():
    def shout(d: D.Draft, f: D.Facts) -> D.Draft:
        return replace(d, blocks=tuple(b.revise({id(s): replace(s, raw=s.raw.upper()) for s in b.sentences})
                                       for b in d.blocks)).note("shouted")

    f = fake_facts(backbone=False, backbone_facts=0)
    d = D.apply(D.Draft.of("Rush is a band [1]."), f, (*D.RULES, shout))
    assert d.text() == "RUSH IS A BAND [1]." and d.notes[-1] == "shouted"
    assert D.RULES[0] is D.final_check and D.RULES[11] is D.strict


def test_empty_reasons_are_fields():
    assert D.Draft.of("").warn(D.EMPTY_TOKEN_CAP, "cap").empty_reason() == "cap"
    assert D.Draft.of("Rush [1].").empty_reason() == ""
    assert D.Draft.of("").empty_reason() == "the refinement produced no sentence"
    llm = ScriptedLLM({"answer": "Keith Moon drummed for Rush [3].", "gate": "No", "refine": ""})
    res = VeriCite(llm, WordChecker(), settings=Settings(claim_words=0, fallback_quotes=0)).answer(Q, DOCS)
    assert res.answer == "" and res.empty_reason == "no statement survived the NLI checks; the answer is empty"


# -- one orchestration: the stream is the answer's own run ---------------------------------------------
MULTIHOP = {
    "answer": "Rush released the song Counterparts in 1993 [2]. Keith Moon was the drummer of Rush [3].",
    "gate:1": "Yes", "gate:2": "Yes", "gate:3": "No",
    "extract:1": "Neil Peart was the drummer of Rush.",
    "extract:2": "Counterparts is a song by Rush.",
    "extract:1+2": "Counterparts is a song by the rock band Rush of Neil Peart.",
    "refine": "Rush released Counterparts in 1993 [2]. Neil Peart was the drummer of Rush [1].",
}


class Recorder(Hooks):
    def __init__(self):
        self.calls = []

    def stage1(self, q, answer):
        self.calls.append(("stage1", len(answer.checks)))

    def stage2(self, q, evidence):
        self.calls.append(("stage2", [e.documents for e in evidence.documents]))

    def done(self, result):
        self.calls.append(("done", result.answer))


@pytest.mark.parametrize("parallel_docs", [1, 3])
def test_the_stream_and_answer_give_the_same_answer_and_per_document_facts(parallel_docs):
    settings = Settings(claim_words=0, multihop=True, parallel_docs=parallel_docs)
    pipe = VeriCite(ScriptedLLM(MULTIHOP), WordChecker(), prompts=PromptSet.load("paper-en"), settings=settings)
    hooks = Recorder()
    direct = pipe.answer(Q, DOCS, hooks=hooks)
    assert [c[0] for c in hooks.calls] == ["stage1", "stage2", "done"]
    assert hooks.calls[1][1] == [(1,), (2,), (3,), (1, 2)] and hooks.calls[2][1] == direct.answer

    events = []
    streamed = Runner(pipe).run(Q, DOCS, settings, emit=lambda name, data: events.append((name, data)))
    assert [n for n, _ in events] == ["stage1", "document", "document", "document", "pair", "final", "answer"]
    assert streamed.answer == direct.answer == events[-1][1]["answer"]
    facts = {d["number"]: [f["text"] for f in d["facts"]] for n, d in events if n == "document"}
    # each document shows its own extraction's facts; the joint facts are the pair's, not document 1's
    assert facts == {1: ["Neil Peart was the drummer of Rush."], 2: ["Counterparts is a song by Rush."], 3: []}
    pair = next(d for n, d in events if n == "pair")
    assert pair["documents"] == [1, 2] and [f["text"] for f in pair["facts"]] == [
        "Counterparts is a song by the rock band Rush of Neil Peart."]
    trace = [(s.text, s.citations, s.verdict) for s in direct.stages[1].statements]
    shown = [(f["text"], tuple(f["citations"]), f["verdict"]) for n, d in events if n in ("document", "pair")
             for f in d["facts"]]
    assert shown == trace  # the stream's facts and verdicts are the trace's, in the same order


def test_with_settings_gives_a_new_pipeline_and_leaves_the_loaded_one():
    pipe = VeriCite(ScriptedLLM(MULTIHOP), WordChecker(), settings=Settings(claim_words=0))
    other = pipe.with_settings(schedule="sequential", strictness="lenient", grade_bands=(1.0, 0.7, 0.3))
    assert other.settings.schedule == "sequential" and pipe.settings.schedule == "overlap"
    assert other.verifier().lenient and not pipe.verifier().lenient
    assert other.llm is pipe.llm and other.checker is pipe.checker
    with pytest.raises(AttributeError):
        pipe.settings = Settings()  # read-only: derive, don't mutate


def test_marks_after_the_stop_move_before_it():
    f = fake_facts()
    raws = ["Rush is the band. [4]", "Done! [1, 2*]", "x. [1] [2]", 'He said "yes." [1]', "Already right [3]."]
    sents = tuple(Statement(R.REFINE, "t", (1,), R.SUPPORTED, 1.0, r) for r in raws)
    d = D.marks_before_stop(D.Draft((D.Block(" ".join(raws), sents, tuple(raws)),), sents), f)
    assert [s.raw for s in d.sentences] == ["Rush is the band [4].", "Done [1, 2*]!", "x [1, 2].", 'He said "yes." [1]',
                                            "Already right [3]."]
    assert d.text() == 'Rush is the band [4]. Done [1, 2*]! x [1, 2]. He said "yes." [1] Already right [3].'
    assert d.checked == sents  # the record keeps the sentences as written
    assert D.RULES.index(D.marks_before_stop) > D.RULES.index(D.lenient_marks)


def test_the_fallback_keeps_the_verified_sentences_that_answer_the_question():
    verified = [sentence("Keith Moon was an English drummer.", (3,), stage=R.EVIDENCE),
                sentence("Neil Peart drummed for the rock band Rush.", (1,), stage=R.EVIDENCE),
                sentence("Counterparts is a song by Rush.", (2,), stage=R.EVIDENCE),
                sentence("Toronto is a city.", (2,), stage=R.EVIDENCE)]
    # (document_words off: the fake documents do not hold these sentences, whose words would be shown as theirs)
    f = fake_facts(bad_words=("Copeland",), verified=verified, fallback_sentences=2, document_words=False)
    d = D.strict(D.final_check(D.Draft.of("Copeland drummed for Rush [1]."), f), f)
    # the question is "Who drummed for Rush?": one sentence shares both its content stems ("drum", "rush")
    assert d.text() == "Neil Peart drummed for the rock band Rush [1]."
    assert "most relevant to the question" in d.warnings[-1].text
    assert D.relevant("Who drummed for Rush?", verified, 0) == verified  # 0 = every verified sentence
    assert D.relevant("Where is Lisbon?", verified, 2) == [verified[0]]  # none shares two stems: the best one


def test_the_fallback_leaves_out_sentences_restating_the_question_and_repeats():
    """Three documents' "Some remotes work in any direction" (the question restated, verified against
    each) made an answer of one sentence said three times; the fallback shows what says more."""
    q = "Why do some remotes work in any direction?"
    verified = [sentence("Some remotes work in any direction.", (2,), stage=R.EVIDENCE),
                sentence("Some remotes work in any direction.", (4,), stage=R.EVIDENCE),
                sentence("Bluetooth remotes use radio waves, which pass through walls.", (1,), stage=R.EVIDENCE),
                sentence("Infrared remotes need a line of sight to the TV.", (3,), stage=R.EVIDENCE)]
    assert D.relevant(q, verified, 3) == verified[2:]
    assert D.relevant(q, verified, 0) == verified[2:]
    assert D.relevant(q, verified[:2], 3) == verified[:1]  # nothing else: the restatement, once
    # a yes/no question is answered by its restatement
    yes = [sentence("Both remotes work in any direction.", (1,)), sentence("Remotes are sold widely.", (2,))]
    assert D.relevant("Do both remotes work in any direction?", yes, 2) == yes


def test_quotes_name_the_span_that_carries_each_citation():
    docs = [Document("Neil Peart", "Neil Peart was a Canadian musician. He was the drummer of the rock band Rush. "
                                   "Peart was inducted into the Modern Drummer Hall of Fame in 1983.")]
    checker = WordChecker()
    f = replace(fake_facts(), documents=docs, scores=checker.scores)
    s = Statement(R.REFINE, "Peart was inducted into the Hall of Fame in 1983.", (1,), R.SUPPORTED, 1.0,
                  "Peart was inducted into the Hall of Fame in 1983 [1].")
    failed = Statement(R.REFINE, "Rush is from Toronto.", (1,), R.UNSUPPORTED, 0.0, "Rush is from Toronto [1].")
    d = D.quotes(D.Draft((D.Block("x", (s, failed), (s.raw, failed.raw)),), (s, failed)), f)
    (q,) = d.sentences[0].quotes
    assert (q.document, q.text, q.score) == (1, "Peart was inducted into the Modern Drummer Hall of Fame in 1983.", 1.0)
    assert docs[0].text[q.start:q.end] == q.text
    assert d.sentences[1].quotes == ()  # only supported sentences get quotes
    assert D.quotes(d, replace(f, settings=Settings(quotes=False))) == d


def test_a_resolved_sentence_that_fails_is_shown_as_its_document_wrote_it_when_that_passes():
    docs = [Document("Children's Mercy Park", "Children's Mercy Park is a stadium in Kansas City. The stadium is the "
                                              "club's third home venue; it opened in 2011. His record was broken.")]
    # a checker reading windows: only what a window says verbatim passes
    verbatim = lambda pairs: np.array([float(h.rstrip(".") in p) for p, h in pairs], dtype=np.float32)  # noqa: E731
    f = replace(fake_facts(), documents=docs, scores=verbatim)
    resolved = Statement(R.REFINE, "Children's Mercy Park is the club's third home venue.", (1,), R.UNSUPPORTED, 0.01,
                         "Children's Mercy Park is the club's third home venue [1].")
    owner = Statement(R.REFINE, "Children's Mercy Park's record was broken.", (1,), R.UNSUPPORTED, 0.0,
                      "Children's Mercy Park's record was broken [1].")
    other = Statement(R.REFINE, "Children's Mercy Park is in Toronto.", (1,), R.UNSUPPORTED, 0.0,
                      "Children's Mercy Park is in Toronto [1].")
    raws = (resolved.raw, owner.raw, other.raw)
    d = D.as_written(D.Draft((D.Block(" ".join(raws), (resolved, owner, other), raws),), (resolved, owner, other)), f)
    assert [s.text for s in d.sentences] == ["The stadium is the club's third home venue.", "His record was broken.",
                                             other.text]
    assert [s.verdict for s in d.sentences] == [R.SUPPORTED, R.SUPPORTED, R.UNSUPPORTED]
    assert d.text() == "The stadium is the club's third home venue [1]. His record was broken [1]. " + other.raw
    # when the document's own sentence fails too, nothing changes
    assert D.as_written(d, replace(f, scores=lambda pairs: np.zeros(len(pairs), dtype=np.float32))) == d
    # after a sentence citing another document the pronoun would point at that one's subject: it stays failed
    guest = Statement(R.REFINE, "Christopher Guest is an actor.", (2,), R.SUPPORTED, 0.9, "Christopher Guest is an actor [2].")
    raws = (guest.raw, resolved.raw)
    d = D.as_written(D.Draft((D.Block(" ".join(raws), (guest, resolved), raws),), (guest, resolved)), f)
    assert [s.verdict for s in d.sentences] == [R.SUPPORTED, R.UNSUPPORTED]
    # "This mixtape" as "The stadium": the document's own sentence
    tape = [Document("Best Day Ever (mixtape)", "Best Day Ever is the fifth mixtape by American rapper Mac Miller. "
                                                "This mixtape was released online March 11, 2011.")]
    released = Statement(R.REFINE, "Best Day Ever was released online March 11, 2011.", (1,), R.UNSUPPORTED, 0.29,
                         "Best Day Ever was released online March 11, 2011 [1].")
    d = D.as_written(D.Draft((D.Block(released.raw, (released,), (released.raw,)),), (released,)),
                     replace(f, documents=tape))
    assert d.text() == "This mixtape was released online March 11, 2011 [1]." and d.sentences[0].verdict == R.SUPPORTED


def test_a_long_passing_sentence_is_shown_as_its_leading_clauses_when_those_pass():
    long = ("Neil Peart is a Canadian musician and author born in Hamilton, who played in several local bands "
            "before he joined the group in 1974 and wrote most of its lyrics.")
    f = fake_facts()
    d = D.trimmed(D.final_check(D.Draft.of(D.with_citations(sentence(long))), f), f)
    assert d.text() == "Neil Peart is a Canadian musician and author born in Hamilton [1]."
    assert d.checked[0].raw == d.text() and any(n.startswith("trimmed: ") for n in d.notes)
    # the leading clauses fail their check: the sentence stays whole
    f = fake_facts(bad_words=("Hamilton [1].",))
    assert D.trimmed(D.final_check(D.Draft.of(D.with_citations(sentence(long))), f), f).text() == \
        D.with_citations(sentence(long))
    # the cut clause holds the answer's word ("lyrics"), or the setting is off: as written
    f = fake_facts()
    d = D.final_check(D.Draft.of(D.with_citations(sentence(long)), answer="the lyrics"), f)
    assert D.trimmed(d, f).text() == D.with_citations(sentence(long))
    # a citation inside the sentence (two documents' sentences run together): as written
    inner = "Neil Peart is a Canadian musician and author born in Hamilton, [2] who played in several local bands " \
            "before he joined the group in 1974 and wrote most of its lyrics [1]."
    st = sentence(inner.replace("[2] ", "").replace(" [1].", "."), (2, 1), raw=inner)
    d = D.Draft((D.Block(inner, (st,), (inner,)),), (st,))
    assert D.trimmed(d, f) == d
    plain = D.with_citations(st)  # the same sentence, its citations at its end: trimmed
    d = D.Draft((D.Block(plain, (replace(st, raw=plain),), (plain,)),), (replace(st, raw=plain),))
    assert D.trimmed(d, f).text() == "Neil Peart is a Canadian musician and author born in Hamilton [2][1]."
    off = replace(f, settings=Settings(trim_words=0))
    d = D.final_check(D.Draft.of(D.with_citations(sentence(long))), off)
    assert D.trimmed(d, off) == d


def test_a_role_the_question_names_keeps_the_clause_with_its_verb():
    surf = ("Out of Place is a surfing documentary directed by Scott Ditzenberger and Darrin McDonald that follows the "
            "lives of several lake surfers in Cleveland.")
    f = replace(fake_facts(), question="Are Out of Place and The Mosuo Sisters by the same director?")
    d = D.final_check(D.Draft.of(D.with_citations(sentence(surf))), f)
    assert D.trimmed(d, f).text() == D.with_citations(sentence(surf))  # "directed by ..." is what it asks
    f = replace(fake_facts(), question="Are Out of Place and The Mosuo Sisters both documentaries?")
    d = D.final_check(D.Draft.of(D.with_citations(sentence(surf))), f)
    assert D.trimmed(d, f).text() == "Out of Place is a surfing documentary [1]."


def test_after_an_opening_yes_a_sentences_own_yes_goes():
    f = fake_facts()
    d = D.one_answer(D.final_check(D.Draft.of("Yes [1, 2]. Yes, Peart drummed for Rush [1]."), f), f)
    assert d.text() == "Yes [1, 2]. Peart drummed for Rush [1]." and any(n.startswith("one answer:") for n in d.notes)
    # the opening failed (strict removed it): the sentence's own "Yes" is the answer and stays
    f = fake_facts(bad_words=("Yes [1, 2].",))
    d = D.strict(D.final_check(D.Draft.of("Yes [1, 2]. Yes, Peart drummed for Rush [1]."), f), f)
    assert D.one_answer(d, f).text() == "Yes, Peart drummed for Rush [1]."
    # "Are A and B both ...?": a sentence about one of them cannot say "Yes" for both, opening or not
    f = replace(fake_facts(), question="Are Uber Goober and American Jobs both documentaries about gaming?")
    d = D.final_check(D.Draft.of("Yes, Uber Goober is a documentary about gaming [1]. American Jobs is a film [3]."), f)
    out = D.one_answer(d, f)
    assert out.text() == "Uber Goober is a documentary about gaming [1]. American Jobs is a film [3]."
    d = D.final_check(D.Draft.of("Yes, both Uber Goober and American Jobs are documentaries [1, 3]."), f)
    assert D.one_answer(d, f).text() == "Yes, both Uber Goober and American Jobs are documentaries [1, 3]."


def test_a_comparisons_short_answer_the_dates_contradict_fails():
    q = "What took place first, The Korean War or The Western Allied invasion of Germany?"
    f = replace(fake_facts(), question=q)
    opening = replace(sentence("The Korean War took place first.", (1, 2)), rewritten=True)
    korea = sentence("The Korean War began on 25 June 1950.", (1,))
    germany = sentence("The Western Allied invasion of Germany took place in March 1945.", (2,))
    d = D.Draft((D.Block("x", (opening, korea, germany), ("a", "b", "c")),), (opening, korea, germany))
    out = D.compared_by_measure(d, f)
    assert [s.verdict for s in out.sentences] == [R.UNSUPPORTED, R.SUPPORTED, R.SUPPORTED]
    assert any("fails: the answer's sentences date or number both" in n for n in out.notes)
    # the dates say it: it stands
    right = replace(sentence("The Western Allied invasion of Germany took place first.", (1, 2)), rewritten=True)
    d = D.Draft((D.Block("x", (right, korea, germany), ("a", "b", "c")),), (right, korea, germany))
    assert D.compared_by_measure(d, f) == d


def test_a_comparisons_short_answer_its_documents_do_not_compare_fails():
    q = "Which lake is located further south, Dal Lake or Waterton Lake?"
    docs = [Document("Goat Haunt", "Goat Haunt is a ranger station. The headwaters for the Waterton River are located "
                                   "South of Goat Haunt, near Waterton Lake."),
            Document("Dal Lake", "Dal Lake is a lake in Srinagar. Dal Lake is also a source of fishing.")]
    f = replace(fake_facts(), question=q, documents=docs)
    opening = replace(sentence("Waterton Lake is located further south.", (1,)), rewritten=True)
    fish = sentence("Dal Lake is also a source of fishing.", (2,))
    d = D.Draft((D.Block("x", (opening, fish), ("a", "b")),), (opening, fish))
    out = D.compared_alone(d, f)
    assert [s.verdict for s in out.sentences] == [R.UNSUPPORTED, R.SUPPORTED]
    assert any("do not compare 'Dal Lake' and 'Waterton Lake'" in n for n in out.notes)
    # a document comparing the two says it: it stands
    both = [docs[0], Document("Lakes", "Waterton Lake is located further south than Dal Lake.")]
    cited = replace(opening, citations=(2,))
    d = D.Draft((D.Block("x", (cited, fish), ("a", "b")),), (cited, fish))
    assert D.compared_alone(d, replace(f, documents=both)) == d
    # the fallback writes the short answer as the question's claim (not rewritten): read the same
    claim = sentence("Waterton Lake is located further south.", (1,))
    d = D.Draft((D.Block("x", (claim, fish), ("a", "b")),), (claim, fish))
    assert [s.verdict for s in D.compared_alone(d, f).sentences] == [R.UNSUPPORTED, R.SUPPORTED]
    # a document's own sentence is no short answer; nor is a question that compares nothing
    own = sentence("Waterton Lake lies further south than the station.", (1,))
    d = D.Draft((D.Block("x", (own, fish), ("a", "b")),), (own, fish))
    assert D.compared_alone(d, f) == d
    d = D.Draft((D.Block("x", (opening, fish), ("a", "b")),), (opening, fish))
    assert D.compared_alone(d, replace(f, question="Where is Waterton Lake?")) == d
    assert D.RULES.index(D.compared_alone) == D.RULES.index(D.compared_by_measure) + 1


def test_a_sentence_repeating_the_opening_claim_is_left_out():
    f = fake_facts()
    opening = replace(sentence("The Bears and I was released in 1974.", (1, 2)), rewritten=True)
    again = sentence("The Bears and I was released in 1974.", (1,))
    other = sentence("Oceans is a 2009 film.", (2,))
    d = D.Draft((D.Block("x", (opening, again, other), ("a", "b", "c")),), (opening, again, other))
    out = D.one_answer(d, f)
    assert [s.text for s in out.sentences] == [opening.text, other.text]
    assert any("repeating the opening" in n for n in out.notes)
    assert D.one_answer(D.Draft((D.Block("x", (again, other), ("b", "c")),), (again, other)), f).sentences == [again, other]
    # the name written in full repeats it; a name the opening lacks at the end, or a negation, says more
    opening = replace(sentence("Brett Scallions is a member of the band Fuel.", (1,)), rewritten=True)
    for later, repeats in (("Brett Allen Scallions is a member of the band Fuel.", True),
                           ("Brett Scallions is a member of the band Fuel and Rush.", False),
                           ("Brett Scallions is not a member of the band Fuel.", False)):
        s = sentence(later, (1,))
        d = D.Draft((D.Block("x", (opening, s, other), ("a", "b", "c")),), (opening, s, other))
        assert (s not in D.one_answer(d, f).sentences) == repeats
    # an article the opening's claim left out
    opening = replace(sentence("Thomas Merton was ordained to priesthood.", (1,)), rewritten=True)
    s = sentence("Thomas Merton was ordained to the priesthood.", (1,))
    d = D.Draft((D.Block("x", (opening, s, other), ("a", "b", "c")),), (opening, s, other))
    assert s not in D.one_answer(d, f).sentences


def test_a_comparisons_short_answer_cites_the_documents_dating_both_sides():
    q = "Who was born first, Ulf Merbold or Miroslaw Hermaszewski?"
    f = replace(fake_facts(), question=q)
    opening = replace(sentence("Ulf Merbold was born first.", (2,)), rewritten=True)  # the checker kept [2] only
    ulf = sentence("Ulf Merbold was born on June 20, 1941.", (2,))
    mir = sentence("Miroslaw Hermaszewski was born on September 15, 1941.", (1,))
    d = D.Draft((D.Block("x", (opening, ulf, mir), ("a", "b", "c")),), (opening, ulf, mir))
    out = D.compared_by_measure(d, f)
    assert out.sentences[0].citations == (1, 2) and out.sentences[0].raw == "Ulf Merbold was born first [1, 2]."
    assert any("cites the documents dating both sides" in n for n in out.notes)
    # a bare name checked as written (long enough not to be rewritten) likewise
    bare = sentence("Ulf Merbold.", (2,), raw="Ulf Merbold [2].")
    d = D.Draft((D.Block("x", (bare, ulf, mir), ("a", "b", "c")),), (bare, ulf, mir))
    assert D.compared_by_measure(d, f).sentences[0].raw == "Ulf Merbold [1, 2]."
    # it cites them already: unchanged
    both = replace(opening, citations=(1, 2))
    d = D.Draft((D.Block("x", (both, ulf, mir), ("a", "b", "c")),), (both, ulf, mir))
    assert D.compared_by_measure(d, f) == d


def test_a_failed_short_answer_the_dates_make_right_passes_shown_as_its_claim():
    q = "Which 1970's film was released first, Charley and the Angel or The Boatniks?"
    f = replace(fake_facts(), question=q)
    charley = sentence("Charley and the Angel is a 1973 Disney film.", (4,))
    boat = sentence("The Boatniks is a 1970 American comedy film.", (1,))

    def opening(claim: str) -> Statement:
        return replace(sentence(claim, (1, 4), verdict=R.UNSUPPORTED, raw="The Boatniks [1, 4]."), rewritten=True)

    d = D.Draft((D.Block("x", (opening("The Boatniks was released first."), charley, boat), ("a", "b", "c")),),
                (opening("The Boatniks was released first."), charley, boat))
    out = D.compared_by_measure(d, f)
    assert out.sentences[0].verdict == R.SUPPORTED and out.sentences[0].raw == "The Boatniks was released first [1, 4]."
    # the rewrite copied the other choice after a comma: the short answer is shown as written
    odd = opening("The Boatniks was released first, Charley and the Angel.")
    d = D.Draft((D.Block("x", (odd, charley, boat), ("a", "b", "c")),), (odd, charley, boat))
    out = D.compared_by_measure(d, f)
    assert out.sentences[0].verdict == R.SUPPORTED and out.sentences[0].raw == "The Boatniks [1, 4]."
    wrong = opening("Charley and the Angel was released after The Boatniks.")  # a rewrite naming the other first
    d = D.Draft((D.Block("x", (wrong, charley, boat), ("a", "b", "c")),), (wrong, charley, boat))
    assert D.compared_by_measure(d, f).sentences[0].raw == "The Boatniks [1, 4]."
    again = opening("The Boatniks was released first, The Boatniks.")  # or repeated it
    d = D.Draft((D.Block("x", (again, charley, boat), ("a", "b", "c")),), (again, charley, boat))
    assert D.compared_by_measure(d, f).sentences[0].raw == "The Boatniks [1, 4]."


def test_a_buried_answers_claim_said_again_in_another_order_is_left_out():
    f = replace(fake_facts(), question="Who created the main character of The Godfather?")
    opening = replace(sentence("Mario Puzo created the main character of The Godfather.", (1,)), rewritten=True)
    again = sentence("The main character of The Godfather was created by Mario Puzo.", (1,))
    more = sentence("The main character of The Godfather was created by Mario Puzo in 1969.", (1,))
    d = D.Draft((D.Block("x", (opening, again, more), ("a", "b", "c")),), (opening, again, more), buried="Mario Puzo")
    assert [s.text for s in D.one_answer(d, f).sentences] == [opening.text, more.text]
    # only after a buried answer: a comparison's or yes/no opening keeps it
    assert D.one_answer(replace(d, buried=""), f).sentences == [opening, again, more]


def test_a_buried_answers_claim_leaving_out_the_question_fails():
    f = replace(fake_facts(), question="Where was the performer of Count 'Em 88 born?")
    hop = replace(sentence("Ahmad Jamal was the performer of Count 'Em 88.", (1, 2)), rewritten=True)
    later = sentence("Count 'Em 88 is an album by Ahmad Jamal.", (1,))
    d = D.Draft((D.Block("x", (hop, later), ("a", "b")),), (hop, later), buried="Ahmad Jamal")
    out = D.asked_in_full(d, f)
    assert [s.verdict for s in out.sentences] == [R.UNSUPPORTED, R.SUPPORTED]
    assert any("asked in full: " in n and "'born'" in n for n in out.notes)
    # the claim saying the answer and all the question says stands; without a buried answer the rule is off
    right = replace(sentence("The performer of Count 'Em 88 was born in Pittsburgh.", (1, 2)), rewritten=True)
    d = D.Draft((D.Block("x", (right, later), ("a", "b")),), (right, later), buried="Pittsburgh")
    assert D.asked_in_full(d, f) == d
    assert D.asked_in_full(replace(d, buried="Ahmad Jamal"), f).sentences[0].verdict == R.UNSUPPORTED
    assert D.asked_in_full(D.Draft((D.Block("x", (hop, later), ("a", "b")),), (hop, later)), f).sentences[0] == hop
    # a claim saying the question's act of a name its documents give another act fails
    q = "Who produced the 2015 film starring Jesse Eisenberg and Amy Ryan?"
    docs = (Document("Louder Than Bombs", "Louder Than Bombs is a 2015 internationally co-produced drama film directed "
                     "by Joachim Trier. The film stars Jesse Eisenberg and Amy Ryan."),)
    g = replace(fake_facts(), question=q, documents=docs)
    swap = replace(sentence("Joachim Trier produced the 2015 film starring Jesse Eisenberg and Amy Ryan.", (1,)),
                   rewritten=True)
    d = D.Draft((D.Block("x", (swap,), ("a",)),), (swap,), buried="Joachim Trier")
    out = D.asked_in_full(d, g)
    assert out.sentences[0].verdict == R.UNSUPPORTED and any("'produced' of a name" in n for n in out.notes)
    g = replace(g, documents=(Document("Louder Than Bombs", docs[0].text.replace("directed", "produced and directed")),))
    assert D.asked_in_full(d, g) == d


def test_a_sentence_an_earlier_one_says_is_said_once():
    f = fake_facts()
    final = ("The 2018 Champions League Final was held at the NSC Olimpiyskiy Stadium in Kiev on 26 May 2018 [4]. "
             "The NSC Olimpiyskiy Stadium in Kiev was the venue for the Champions League Final 2018 [2]. "
             "The NSC Olimpiyskiy Stadium in Kiev was the venue for the Champions League Final 2019 [2]. "
             "Liverpool played Real Madrid in the final [4].")
    d = D.said_once(D.final_check(D.Draft.of(final), f), f)
    # the venue sentence has one new stem ("venu") and no new number: left out; a new year or new words stay
    assert [s.text[:20] for s in d.sentences] == ["The 2018 Champions L", "The NSC Olimpiyskiy ", "Liverpool played Rea"]
    assert "2019" in d.text() and "2018 [2]" not in d.text()
    assert any(n.startswith("said once: left out 1 sentence(s)") for n in d.notes)
    # exact repeats: the later one goes, the first stays (equal records are told apart by identity)
    twice = D.final_check(D.Draft.of("Neil Peart drummed for the band Rush [1]. Neil Peart drummed for the band Rush [1]."), f)
    assert D.said_once(twice, f).text() == "Neil Peart drummed for the band Rush [1]."
    # a short sentence (fewer than four stems) and a failing earlier one never make a later one go
    short = D.final_check(D.Draft.of("Peart drummed [1]. Peart drummed well [1]."), f)
    assert D.said_once(short, f).sentences == short.sentences
    failing = fake_facts(bad_words=("Moon",))
    d = D.final_check(D.Draft.of("Keith Moon drummed for the band Rush [3]. Keith drummed for the band Rush [1]."), failing)
    assert len(D.said_once(d, failing).sentences) == 2
    # a short answer checked as the question's claim shows "Yes", not the claim: the sentences after it stay
    yes = Statement(R.REFINE, "Neil Peart and Alex Lifeson both played for the band Rush.", (1, 2), R.SUPPORTED, 0.9,
                    "Yes [1, 2].", rewritten=True)
    d = D.Draft((D.Block("x", (yes, sentence("Neil Peart played for the band Rush."))),), ())
    assert len(D.said_once(d, f).sentences) == 2


def test_a_name_of_the_question_the_answer_never_mentions_is_a_warning_not_a_change():
    q = ('Which Canadian rock band released a song called "Counterparts" and had a drummer who was inducted into the '
         "Modern Drummer Hall of Fame?")
    f = replace(fake_facts(), question=q)
    rush = "Neil Ellwood Peart is the drummer and primary lyricist for the rock band Rush [5]."
    d = D.final_check(D.Draft.of(rush), f)
    out = D.uncovered(d, f)
    assert out.text() == d.text() and [w.code for w in out.warnings] == [D.UNCOVERED]
    # the nationality and the opening "Which" are no names; the Hall of Fame is missing too
    assert '"Counterparts", "Modern Drummer Hall of Fame"' in out.warnings[0].text and "Canadian" not in out.warnings[0].text
    # half the words of a name are enough ("the Hall of Fame", not "the drummer"); a failing sentence shows nothing
    hall = rush + " He was inducted into the Hall of Fame in 1983 [5]."
    assert '"Counterparts"' in D.uncovered(D.final_check(D.Draft.of(hall), f), f).warnings[0].text
    assert "Modern" not in D.uncovered(D.final_check(D.Draft.of(hall), f), f).warnings[0].text
    failing = replace(f, check=fake_facts(bad_words=("Counterparts",)).check)
    told = D.final_check(D.Draft.of(rush + ' Rush released "Counterparts" in 1993 [7].'), failing)
    assert D.uncovered(told, failing).warnings
    said = D.final_check(D.Draft.of(rush + ' Rush released "Counterparts" in 1993 [7].'), f)
    assert [w.text for w in D.uncovered(said, f).warnings] == [
        'the question names "Modern Drummer Hall of Fame", which no sentence of the answer mentions: nothing shown ties '
        "the answer to it"]
    # an opening "Did" or "How" is no name; an empty answer warns of nothing here
    did = replace(f, question="Did Rush release Counterparts?")
    assert not D.uncovered(D.final_check(D.Draft.of('Rush released "Counterparts" [7].'), did), did).warnings
    assert not D.uncovered(D.final_check(D.Draft.of(""), f), f).warnings
    ru = replace(f, question="Городом какого типа была Варшава?", lang="ru")
    assert not D.uncovered(D.final_check(D.Draft.of("Это был большой город [1]."), ru), ru).warnings
    assert D.uncovered in D.RULES


def test_read_back_fails_own_words_sentences_the_reader_doubts_and_leaves_copied_ones_alone():
    asked = []

    def reader(citations, text):
        asked.append((citations, text))
        return 0.2 if "Moon" in text else 0.9

    def check(text: str):  # every sentence passes, with the citations it carries
        parts = [p for p in re.split(r"(?<=\.)\s+", text) if p]
        out = tuple(Statement(R.REFINE, re.sub(r" \[[\d, ]+\]", "", p), tuple(int(c) for c in re.findall(r"\d+", p)),
                              R.SUPPORTED, 0.9, p) for p in parts)
        return D.Block(text, out, parts), []

    f = replace(fake_facts(), check=check, read_back=reader, settings=Settings(read_back=0.7))
    text = ("Neil Peart was a Canadian musician [1]. Keith Moon played for Rush on Counterparts [1, 3]. "
            "Peart drummed for the band Rush [1]. No [2].")
    d = D.read_back(D.final_check(D.Draft.of(text), f), f)
    # copied word for word (document 1's first sentence) and the two-word short answer are not read back
    assert asked == [((1, 3), "Keith Moon played for Rush on Counterparts."), ((1,), "Peart drummed for the band Rush.")]
    assert [s.verdict for s in d.sentences] == [R.SUPPORTED, R.UNSUPPORTED, R.SUPPORTED, R.SUPPORTED]
    assert [n.split(" (P(Yes)")[0] for n in d.notes if n.startswith("read back: ")] == [
        "read back: 'Keith Moon played for Rush on Counterparts [1, 3].' fails",
        "read back: 'Peart drummed for the band Rush [1].' passes"]
    assert D.strict(d, f).text() == "Neil Peart was a Canadian musician [1]. Peart drummed for the band Rush [1]. No [2]."
    # off: no reader, or the setting 0
    for off in (replace(f, read_back=None), replace(f, settings=Settings(read_back=0.0))):
        assert D.read_back(d, off) is d
    # a comparison's opening short answer is the comparison rules' to judge
    asked.clear()
    cmp = replace(f, question="Who drummed first, Neil Peart or Keith Moon?")
    D.read_back(D.final_check(D.Draft.of("Keith Moon drummed first for his band [1, 3]. Keith Moon played for Rush "
                                         "on Counterparts [3]."), cmp), cmp)
    assert [t for _, t in asked] == ["Keith Moon played for Rush on Counterparts."]
    assert D.copied("He was the drummer of the rock band Rush [1].", DOCS[:1])
    assert not D.copied("Peart was the drummer of Rush [1].", DOCS[:1])


def test_the_pipeline_reads_back_own_words_sentences_with_the_prompt_sets_step():
    prompts = PromptSet.load("facts-en-kv")
    assert "read_back" in prompts.steps and "{S}" in prompts.steps["read_back"].template
    msgs = prompts.messages("read_back", question=Q, docs=prompts.doc(1, "Neil Peart", DOCS[0].text),
                            statements="Peart drummed for Rush.")
    assert "Claim: Peart drummed for Rush." in msgs[-1]["content"] and "Neil Peart was a Canadian" in msgs[-1]["content"]


def test_the_pipeline_asks_the_llm_to_read_back_an_own_words_final_sentence():
    replies = {"answer": "Neil Peart was a Canadian musician [1].", "gate": "No",
               "refine": "Peart was the drummer of the rock band Rush [1].", "read_back": "0.2"}
    settings = Settings(claim_words=0, refine="merge", fallback_sentences=1, add_nothing=False)
    for read_back, shown in ((0.0, "Neil Peart was a Canadian musician [1]. Peart was the drummer of the rock band Rush [1]."),
                             (0.7, "Neil Peart was a Canadian musician [1].")):
        llm = ScriptedLLM(replies)
        res = VeriCite(llm, WordChecker(), prompts=PromptSet.load("facts-en-kv"),
                       settings=replace(settings, read_back=read_back)).answer(Q, DOCS)
        assert res.answer == shown
        assert [c[0] for c in llm.calls].count("read_back") == (1 if read_back else 0)
    refine = next(s for s in res.stages if s.name == R.REFINE)
    assert [c.score for c in refine.llm_calls if c.purpose == "read_back"] == [0.2]
    assert any(n.startswith("read back: ") for n in refine.notes)


def test_read_back_fits_a_long_cited_document_to_the_context_and_keeps_its_number():
    long_doc = Document("Rush (band)", "Rush was a Canadian rock band. " + "They toured widely. " * 3000)
    docs = [DOCS[0], long_doc]
    replies = {"answer": "Rush was a Canadian rock band [2].", "gate": "No",
               "refine": "Rush was a rock band [2].", "read_back": "0.9"}
    llm = ScriptedLLM(replies)
    settings = Settings(claim_words=0, refine="merge", add_nothing=False, read_back=0.7)
    res = VeriCite(llm, WordChecker(), prompts=PromptSet.load("facts-en-kv"), settings=settings).answer(Q, docs)
    prompt = next(m for p, m, _ in llm.calls if p == "read_back")[-1]["content"]
    assert "Document [2](Title: Rush (band))" in prompt and "Document [1]" not in prompt
    assert len(prompt.split()) < llm.n_ctx < len(long_doc.text.split())
    assert "document [2] truncated to fit the LLM context" in res.warnings


def test_a_fill_of_the_question_wording_is_shown_as_the_document_sentence_that_carries_it():
    docs = [Document("The Sound of Silence", "The Sound of Silence is a song by the American music duo Simon & "
                                             "Garfunkel. He wrote it in 1964 after the assassination. The song was "
                                             "written by Paul Simon.")]

    def scores(pairs):  # the checker: a premise carries the hypothesis when it names the duo
        return np.array([0.9 if "duo" in p and "Garfunkel" in h else 0.1 for p, h in pairs], dtype=np.float32)

    f = replace(fake_facts(), question="Who is the original artist of the sound of silence?", documents=docs, scores=scores)
    fill = sentence("The original artist of The Sound of Silence is Simon & Garfunkel.")
    simon = sentence("The writer of The Sound of Silence is Paul Simon.")  # no sentence alone carries it
    said = sentence("The Sound of Silence is a song by the American music duo Simon & Garfunkel.")  # the document's words
    raws = (fill.raw, simon.raw, said.raw)
    d = D.document_words(D.Draft((D.Block(" ".join(raws), (fill, simon, said), raws),), (fill, simon, said)), f)
    # the fill's quote is the third sentence's text: shown once, the fill goes; Paul Simon, with one word the document
    # lacks ("writer"), stays as checked
    assert [(s.text, s.verdict) for s in d.sentences] == [(simon.text, R.SUPPORTED), (said.text, R.SUPPORTED)]
    assert any("shown already" in n for n in d.notes) and any("stays as checked" in n for n in d.notes)
    # with two ("original", "artist") it fails
    artist = sentence("The original artist of The Sound of Silence is Paul Simon.")
    d = D.document_words(D.Draft((D.Block(artist.raw, (artist,), (artist.raw,)),), (artist,)), f)
    assert [s.verdict for s in d.sentences] == [R.UNSUPPORTED] and any("it fails" in n for n in d.notes)
    # a word the document lacks, not the question's ("Chile" where the document says "Chilean"): shown as its sentence
    wood = [Document("Andrés Wood", "Andrés Wood is a Chilean film director. He directed Machuca.")]
    fw = replace(f, question="Where is the director of Machuca from?", documents=wood,
                 scores=lambda pairs: np.array([0.9 if "Chilean" in p else 0.1 for p, _ in pairs], dtype=np.float32))
    chile = sentence("Andrés Wood was born in Chile.")
    d = D.document_words(D.Draft((D.Block(chile.raw, (chile,), (chile.raw,)),), (chile,)), fw)
    assert d.text() == "Andrés Wood is a Chilean film director [1]."
    d = D.document_words(D.Draft((D.Block(fill.raw, (fill,), (fill.raw,)),), (fill,)), f)
    quote = "The Sound of Silence is a song by the American music duo Simon & Garfunkel."
    assert d.text() == quote[:-1] + " [1]." and d.sentences[0].verdict == R.SUPPORTED
    assert d.quoted == (quote,) and d.sentences[0].score == pytest.approx(0.9)
    # no word the document lacks, a sentence citing two documents, a comparison's opening and the setting off:
    # unchanged
    song = sentence("The Sound of Silence is a song by Simon & Garfunkel.")
    two = sentence(fill.text, cites=(1, 2))
    for s, ff in ((song, f), (two, f), (fill, replace(f, settings=Settings(document_words=False))),
                  (fill, replace(f, question="Who is older, Simon & Garfunkel or the original artist of X?"))):
        d0 = D.Draft((D.Block(s.raw, (s,), (s.raw,)),), (s,))
        assert D.document_words(d0, ff) == d0
    # a sentence opening with a pronoun that points back is never the quote ("He wrote it ..."): nothing carries the
    # fill, which fails (two words its document lacks)
    f2 = replace(f, scores=lambda pairs: np.array([0.9 if p.startswith("He ") else 0.1 for p, _ in pairs]))
    d0 = D.Draft((D.Block(fill.raw, (fill,), (fill.raw,)),), (fill,))
    assert D.document_words(d0, f2).text() == fill.raw and D.document_words(d0, f2).sentences[0].verdict == R.UNSUPPORTED
    # stage 3's quotable sentences, the pronoun resolved to the title, are what may be shown
    resolved = Statement(R.REFINE, "The Sound of Silence was written in 1964 by the duo Simon & Garfunkel.", (1,),
                         R.KEPT, None)
    d = D.document_words(d0, replace(f2, quotable=[resolved], scores=scores))
    assert d.text() == "The Sound of Silence was written in 1964 by the duo Simon & Garfunkel [1]."


def test_the_fallback_holds_no_fill_the_answer_failed_and_shows_its_own_fills_as_their_documents_sentences():
    docs = [Document("Umchabezi River", "The Umchabezi River is a tributary of the Mzingwane River. The main dam on "
                                        "the river is Makado Dam.")]
    fill = "The system containing Umchabezi River serves as the mouth of the Mzingwane River."
    again = "The Umchabezi River serves as the mouth of the Mzingwane River."
    verified = [sentence(fill, (1,), stage=R.ANSWER), sentence(again, (1,), stage=R.EVIDENCE),
                sentence("The Umchabezi River flows into the Mzingwane River.", (1,), stage=R.EVIDENCE)]

    def scores(pairs):  # the tributary sentence carries "flows into", nothing carries the "mouth" fills
        return np.array([0.9 if "tributary" in p and "flows" in h else 0.1 for p, h in pairs], dtype=np.float32)

    f = replace(fake_facts(verified=verified, fallback_sentences=3),
                question="What river does the system containing Umchabezi River serve as the mouth of?",
                documents=docs, scores=scores)
    d = D.document_words(D.final_check(D.Draft.of(fill[:-1] + " [1]."), f), f)
    assert [s.verdict for s in d.sentences] == [R.UNSUPPORTED]
    d = D.strict(d, f)
    # the fill the answer failed is left out; the other "mouth" fill fails; "flows into" is shown as the document's
    assert d.text() == "The Umchabezi River is a tributary of the Mzingwane River [1]."
    assert sum("it fails" in n for n in d.notes) == 2


def test_a_question_fails_the_final_check_and_stage_1_planning_aloud_is_no_opening():
    f = fake_facts()
    d = D.final_check(D.Draft.of("Peart drummed for Rush [1]. What would it take to stop a drummer [1]?"), f)
    assert [s.verdict for s in d.sentences] == [R.SUPPORTED, R.UNSUPPORTED]
    assert any("a question states nothing" in n for n in d.notes)
    assert D.strict(d, f).text() == "Peart drummed for Rush [1]."
    from types import SimpleNamespace

    from vericite.engine.pipeline.stage3 import _opening
    q = SimpleNamespace(text="How does splitting an atom cause an explosion?", lang="en")
    plan = "To answer this question, we need to analyze the information provided about the process."
    answer = "A chain reaction splits other atoms."
    assert _opening(q, [plan, answer]) == answer and _opening(q, [plan]) == ""
    assert _opening(q, ["I will analyze the process step by step.", answer]) == answer
    assert _opening(q, ["Irene Curie split the atom in 1938.", answer]) == "Irene Curie split the atom in 1938."


def test_a_trim_keeps_the_clause_naming_what_another_sentence_of_the_answer_names():
    # "... based on Shakespeare's Henry V" links the overture to the play the other sentence ties to the battle
    play = "Henry V tells the story of King Henry V of England, focusing on the Battle of Agincourt."
    work = ("In March 2015, the New Jersey Symphony Orchestra premiered Kubian's latest work, O for a Muse of Fire, "
            "a concert overture for full orchestra and vocal soloist, based on Shakespeare's Henry V.")
    f = replace(fake_facts(), question="Kubian's O for a Muse of Fire is based upon which battle?")
    both = D.with_citations(sentence(play, (2,))) + " " + D.with_citations(sentence(work))
    assert D.trimmed(D.final_check(D.Draft.of(both), f), f).text() == both
    # alone, nothing else names Henry V: the leading clauses stand for it
    alone = D.trimmed(D.final_check(D.Draft.of(D.with_citations(sentence(work))), f), f).text()
    assert alone == ("In March 2015, the New Jersey Symphony Orchestra premiered Kubian's latest work, O for a Muse "
                     "of Fire [1].")


def test_an_opening_claim_that_opens_a_later_sentence_word_for_word_gives_it_its_place():
    f = fake_facts()
    opening = sentence("Thomas Merton was ordained to priesthood.", (1,))
    maugham = sentence("W. Somerset Maugham was a British playwright.", (2,))
    merton = sentence("Thomas Merton was ordained to priesthood in 1949.", (1,))
    d = D.Draft((D.Block("x", (opening, maugham, merton), ("a", "b", "c")),), (opening, maugham, merton))
    out = D.one_answer(d, f)
    assert [s.text for s in out.sentences] == [merton.text, maugham.text]
    assert any("opens a later sentence" in n for n in out.notes)
    # a name written in full counts as the opening's name
    yashin = sentence('Lev Yashin was nicknamed the "Black Spider".', (1,))
    full = sentence('Lev Ivanovich Yashin was nicknamed the "Black Spider" or the "Black Panther".', (1,))
    d = D.Draft((D.Block("x", (yashin, maugham, full), ("a", "b", "c")),), (yashin, maugham, full))
    assert [s.text for s in D.one_answer(d, f).sentences] == [full.text, maugham.text]
    # the later one says it with other words first, or the opening is a short answer: both stay
    other = sentence("In 1949 Thomas Merton was ordained to priesthood.", (1,))
    d = D.Draft((D.Block("x", (opening, maugham, other), ("a", "b", "c")),), (opening, maugham, other))
    assert [s.text for s in D.one_answer(d, f).sentences] == [opening.text, maugham.text, other.text]
    short = sentence("Thomas Merton.", (1,))
    d = D.Draft((D.Block("x", (short, merton), ("a", "c")),), (short, merton))
    assert [s.text for s in D.one_answer(d, f).sentences] == [short.text, merton.text]
