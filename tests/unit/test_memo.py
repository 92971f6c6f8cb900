"""The analyst's memo (engine/memo.py) on fakes: every footnote resolves to a source with a quote,
conflicts get their section, Russian answers get Russian headings."""
from __future__ import annotations

import json
import re

from vericite.engine.memo import memo
from vericite.engine.pipeline import Settings, VeriCite
from vericite.engine.records import Document

from tests.conftest import REPO
from tests.fakes import ScriptedLLM, WordChecker
from tests.unit.test_pipeline_rules import DOCS, Q


def structure(md: str) -> tuple[set[str], dict[str, str]]:
    used = set(re.findall(r"\[\^(\d+)\](?!:)", md))
    defined = dict(re.findall(r"^\[\^(\d+)\]: (.*)$", md, re.M))
    return used, defined


def test_every_footnote_resolves_to_its_source_with_the_quote_that_carries_it():
    replies = {"answer": "Rush released the song Counterparts in 1993 [2]. Keith Moon was the drummer of Rush [3].",
               "gate": "No", "refine": "Rush released the song Counterparts in 1993 [2]."}
    res = VeriCite(ScriptedLLM(replies), WordChecker(), settings=Settings(claim_words=0)).answer(Q, DOCS)
    md = memo(res)
    used, defined = structure(md)
    assert used == set(defined) == {"2"}
    assert '"Counterparts is a song by the Canadian rock band Rush, released in 1993."' in defined["2"]
    assert md.startswith(f"# {Q}\n") and "## Sources" in md and "## Conflicts" not in md
    # the dropped statement is listed under what was left out, with its verdict
    assert "## Left out" in md and "Keith Moon was the drummer of Rush. ([3]: dropped:not_entailed" in md


def test_the_briefs_russian_example_gives_a_russian_memo_with_its_conflict():
    ru = json.loads((REPO / "examples" / "demo_yandex_market.json").read_text(encoding="utf-8"))
    docs = [Document(d["title"], d["text"]) for d in ru["docs"]]
    replies = {"answer": "Яндекс Маркет запущен в 2000 году [1].", "gate": "No",
               "refine": "Яндекс Маркет запущен в 2000 году [1]."}

    class Entails2001(WordChecker):  # the interview states the launch with 2001
        def scores(self, pairs):
            out = super().scores(pairs)
            for k, (p, h) in enumerate(pairs):
                if "2001" in h and "2001" in p and "запущен" in h:
                    out[k] = 0.9
            return out

    pipe = VeriCite(ScriptedLLM(replies), Entails2001(), settings=Settings(claim_words=0, checker_languages=("ru",)))
    res = pipe.answer(ru["question"], docs)
    md = memo(res)
    used, defined = structure(md)
    assert used == set(defined) == {"1"} and "«Яндекс Маркет запущен в 2000 году как сервис" in defined["1"]
    assert "## Источники" in md and "## Противоречия между документами" in md
    assert "документ 3 указывает 2001, а документ 1 — 2000" in md


def test_overlapping_quotes_of_one_document_are_shown_once_in_reading_order():
    from dataclasses import replace

    from vericite.engine.records import Quote

    replies = {"answer": "Rush released the song Counterparts in 1993 [2].", "gate": "No",
               "refine": "Rush released the song Counterparts in 1993 [2]."}
    res = VeriCite(ScriptedLLM(replies), WordChecker(), settings=Settings(claim_words=0)).answer(Q, DOCS)
    text = DOCS[1].text
    cut = text.index(",")
    late, early, wider = (Quote(2, cut + 2, len(text), text[cut + 2:], 0.9), Quote(2, 0, cut, text[:cut], 0.9),
                          Quote(2, 0, cut + 1, text[:cut + 1], 0.9))
    s = res.final[0]
    res = replace(res, final=[replace(s, quotes=(late,)), replace(s, quotes=(early,)), replace(s, quotes=(wider,))])
    _, defined = structure(memo(res))
    assert defined["2"] == f'**[2] {DOCS[1].title}**: "{text[:cut + 1]}" … "{text[cut + 2:]}"'


def test_the_answers_warnings_are_notes_under_it():
    # the answer names Rush through the drummer alone: the question's "Counterparts" is covered by no sentence, and
    # the analyst reads that under the answer, not in a log
    q = 'Which band released the song "Counterparts" and had Neil Peart as its drummer?'
    said = "Neil Peart was the drummer of Rush [1]."
    replies = {"answer": said, "gate": "No", "refine": said}
    res = VeriCite(ScriptedLLM(replies), WordChecker(), settings=Settings(claim_words=0)).answer(q, DOCS)
    md = memo(res)
    assert res.warnings and all(f"> **Note:** {w}" in md for w in res.warnings)
    assert '"Counterparts"' in md.split("## Sources")[0]
    assert md.index("> **Note:**") < md.index("## Sources")
