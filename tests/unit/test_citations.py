import pytest

from vericite.engine.text.citations import (format_citations, invalid_citations, leading_citations, merge_adjacent,
                                       parse_citations, strip_citations)


def test_parse_single_multiple_and_grouped():
    assert parse_citations("Rush is a band [1].") == (1,)
    assert parse_citations("Rush is a band [1][3].") == (1, 3)
    assert parse_citations("Rush is a band [3, 1] and more [1].") == (3, 1)
    assert parse_citations("Rush is a band [ 2 ,4 ].") == (2, 4)


def test_parse_none_and_non_numeric_brackets():
    assert parse_citations("Rush is a band.") == ()
    assert parse_citations("An array a[i] is not a citation [x].") == ()


def test_out_of_range():
    assert invalid_citations((1, 5), 5) == ()
    assert invalid_citations((0, 2, 6), 5) == (0, 6)


def test_merge_adjacent():
    assert merge_adjacent("Rush [1][2].") == "Rush [1, 2]."
    assert merge_adjacent("Rush [2][1] [2].") == "Rush [1, 2]."
    assert merge_adjacent("A [1]. B [3][2, 4].") == "A [1]. B [2, 3, 4]."
    assert merge_adjacent("No citations here.") == "No citations here."


def test_strip_and_format():
    assert strip_citations("Rush was formed in 1968 [1][2].") == "Rush was formed in 1968."
    assert strip_citations("Rush [1, 2] is Canadian.") == "Rush is Canadian."
    assert format_citations((1, 2)) == "[1, 2]"
    assert format_citations(()) == ""


def test_leading_citations():
    assert leading_citations("[1] [2] It is.") == ("[1] [2]", "It is.")
    assert leading_citations("It is [1].") == ("", "It is [1].")


@pytest.mark.parametrize("written, cited", [
    ("Rush is Canadian [1, 2-3].", (1, 2, 3)),
    ("Rush is Canadian [1;2].", (1, 2)),
    ("Rush is Canadian [1—3].", (1, 2, 3)),
    ("Rush is Canadian [^1].", (1,)),
    ("Rush is Canadian [[1]].", (1,)),
])
def test_other_list_forms_are_read_and_leave_nothing_in_the_claim(written, cited):
    assert parse_citations(written) == cited
    assert strip_citations(written) == "Rush is Canadian."
    assert merge_adjacent(written) == f"Rush is Canadian {format_citations(cited)}."


@pytest.mark.parametrize("text", ["Rush formed in (1) Toronto.", "Rush [3-1] is odd.", "It sold [2004] copies.",
                                  "Rush is Canadian¹."])
def test_parentheses_superscripts_reversed_ranges_and_years_are_text(text):
    assert parse_citations(text) == () and strip_citations(text) == text
