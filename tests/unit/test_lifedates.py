"""A birth or death date read off a biography's life span (engine/text/lifedates.py) and passed by the verifier."""
from __future__ import annotations

import numpy as np

from vericite.engine import records as R
from vericite.engine.records import Document, StageTrace
from vericite.engine.text.lifedates import life_date_stated
from vericite.engine.timeline import Timeline
from vericite.engine.verifier import Verifier, answer_claims
from tests.fakes import WordChecker

ROGERS = ("Ginger Rogers (born Virginia Katherine McMath; July 16, 1911 – April 25, 1995) was an American actress, "
          "dancer, and singer.")
REISZ = "Karel Reisz (21 July 1926 – 25 November 2002) was a British filmmaker."


def test_a_birth_or_death_date_is_read_off_the_life_span_after_the_name():
    assert life_date_stated(ROGERS, "Ginger Rogers was born in 1911.")
    assert life_date_stated(ROGERS, "Ginger Rogers was born in July 1911.")
    assert life_date_stated(REISZ, "Karel Reisz was born on July 21, 1926.")
    assert life_date_stated(REISZ, "Karel Reisz died on 25 November 2002.")
    assert life_date_stated("Chester Charles Bennington (March 20, 1976 – July 20, 2017) was a singer.",
                            "Chester Bennington was born on March 20, 1976.")  # a middle name left out
    assert life_date_stated("John Smith (born 5 May 1950) is a singer.", "John Smith was born in 1950.")


def test_another_date_another_person_or_more_than_a_date_is_not_read():
    assert not life_date_stated(REISZ, "Karel Reisz was born on July 22, 1926.")  # the day differs
    assert not life_date_stated(REISZ, "Karel Reisz was born in 2002.")  # the death's year
    assert not life_date_stated(ROGERS, "Ginger Rogers was born in June 1911.")
    # a place beside the date is more than the span says
    assert not life_date_stated(ROGERS, "Ginger Rogers was born in Independence, Missouri, in 1911.")
    # a pseudonym's dates are the person's, not the pen name's
    assert not life_date_stated("Josephine Tey was a pseudonym used by Elizabeth MacKintosh (25 July 1896 – 13 "
                                "February 1952).", "Josephine Tey was born on July 25, 1896.")
    assert not life_date_stated("His brother Tom Smith (1940–2001) was a painter.", "John Smith was born in 1940.")
    # a bracket without a dash dates no death; a hyphen inside a name is no dash
    assert not life_date_stated("John Smith (born to Jewish parents, 12 May 1950) is a singer.", "John Smith died in 1950.")
    assert not life_date_stated("John Smith (born Jean-Paul Smith; 1 May 1950) is a singer.", "John Smith died in 1950.")
    assert not life_date_stated(REISZ, "Karel Reisz was a filmmaker born in 1926.")  # not the claim's form


class Doubtful(WordChecker):
    """Scores every pair 0.55: below the threshold, as the checker scored 8 of 14 such claims."""

    def scores(self, pairs):
        return np.full(len(pairs), 0.55, dtype=np.float32)


def _resolve(verifier, items):
    batch = verifier.submit(items, (R.KEPT, R.DROPPED_NLI), StageTrace("t"), Timeline())
    trace = StageTrace("t")
    return verifier.resolve(batch, trace, Timeline()), trace


def test_the_verifier_passes_a_date_the_cited_life_span_gives_only_with_the_setting():
    docs = [Document("Ginger Rogers", ROGERS), Document("Karel Reisz", REISZ)]
    items = answer_claims(R.ANSWER, "Ginger Rogers was born in 1911 [1]. Ginger Rogers was born in 1911 [2]. "
                                    "Karel Reisz was born in 1927 [2].", docs, "en", final=False)
    on = Verifier(Doubtful(), threshold=0.7, schedule="sequential", grade_bands=(0.9, 0.7, 0.3), life_dates=True)
    out, trace = _resolve(on, items)
    assert [s.verdict for s in out] == [R.KEPT, R.DROPPED_NLI, R.DROPPED_NLI]  # its own document only, its own date
    assert out[0].grade == 2 and out[0].score == 0.55 and any("life span" in n for n in trace.notes)
    off, _ = _resolve(Verifier(Doubtful(), threshold=0.7, schedule="sequential"), items)
    assert [s.verdict for s in off] == [R.DROPPED_NLI] * 3
