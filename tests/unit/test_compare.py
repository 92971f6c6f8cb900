"""Comparison questions by time: the two things compared, dates read, which one the dates say."""
from vericite.engine import selection as SEL
from vericite.engine.text.compare import by_dates, choices, first_date

ERIKA = "Erika Jayne was born on July 10, 1971."
MARCO = "Marco Da Silva was born on 10 April 1992."


def test_the_two_things_compared():
    assert choices("Who was born first, Erika Jayne or Marco Da Silva?") == ["Erika Jayne", "Marco Da Silva"]
    assert choices("Who drummed for Rush?") == []


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
