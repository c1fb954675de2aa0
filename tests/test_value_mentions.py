"""Dates and numbers compared as values (``mnote_kr.citations.text.values``): a question's "2024年1月7日" is
the workbook cell's ``2024-01-07 00:00:00`` (as openpyxl's datetime reads), "12,155" its 12155."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mnote_kr.citations.text.values import same_value, value_mentions, without_dates

CELL = "2024-01-07 00:00:00"  # str() of the datetime a workbook's date cell holds


def _date(text: str) -> tuple[str, frozenset[tuple[int | None, int, int | None]]]:
    (found,) = [m for m in value_mentions(text) if m.dates]
    return found.text, found.dates


@pytest.mark.parametrize("said", [
    "2024年1月7日", "２０２４年１月７日", "2024年01月07日", "2024 年 1 月 7 号", "2024년 1월 7일",
    "2024-01-07", "2024/1/7", "2024.1.7",
    "Jan 7 2024", "Jan. 7, 2024", "January 7th, 2024", "7 January 2024", "the 7th of January 2024", "7 Jan 2024",
    "Sunday, January 7, 2024", "1/7/2024", "7/1/2024",
])
def test_a_date_written_any_way_is_the_cells_date_and_not_the_next_day(said: str) -> None:
    (asked,) = [m for m in value_mentions(f"Widget C 的收入 revenue on {said}?") if m.dates]
    (cell,) = value_mentions(CELL)
    (next_day,) = value_mentions("2024-01-08 00:00:00")
    assert same_value(asked, cell) and not same_value(asked, next_day)


def test_a_cells_date_and_time_is_one_date_and_no_numbers() -> None:
    (cell,) = value_mentions(CELL)
    assert (cell.text, cell.dates, cell.number) == (CELL, frozenset({(2024, 1, 7)}), None)


def test_day_and_month_before_the_year_are_read_both_ways_unless_one_is_over_twelve() -> None:
    assert _date("on 1/7/2024") == ("1/7/2024", frozenset({(2024, 1, 7), (2024, 7, 1)}))
    assert _date("on 13/1/2024")[1] == _date("on 1/13/2024")[1] == frozenset({(2024, 1, 13)})
    assert _date("on 7.7.2024")[1] == frozenset({(2024, 7, 7)})
    assert not [m for m in value_mentions("on 2/30/2024") if m.dates]  # no such day: three numbers
    (july,) = value_mentions("2024-07-01 00:00:00")
    assert same_value(value_mentions("1/7/2024")[0], july)


def test_a_day_without_a_year_is_that_day_of_any_year_and_a_month_any_of_its_days() -> None:
    jan7_2023, jan7_2024, jan8, jan31, feb1 = (value_mentions(t)[0] for t in (
        "2023-01-07 00:00:00", CELL, "2024-01-08", "2024-01-31", "2024-02-01"))
    for said in ("1月7日", "Jan 7", "7 January", "on Jan 7th"):
        asked = [m for m in value_mentions(said) if m.dates][0]
        assert same_value(asked, jan7_2023) and same_value(asked, jan7_2024) and not same_value(asked, jan8), said
    for said in ("January 2024", "2024年1月", "jan. 2024"):
        asked = [m for m in value_mentions(said) if m.dates][0]
        assert same_value(asked, jan7_2024) and same_value(asked, jan31) and not same_value(asked, feb1), said


def test_may_the_verb_and_a_year_alone_are_no_dates() -> None:
    assert [m.number for m in value_mentions("may 5 people come")] == [5]
    assert _date("May 5, 2024")[1] == frozenset({(2024, 5, 5)})
    (year,) = value_mentions("revenue in 2024")
    assert (year.dates, year.number) == (frozenset(), 2024)


def test_numbers_compare_as_values_whatever_their_separators_and_never_as_dates() -> None:
    def one(text: str):  # type: ignore[no-untyped-def]
        (found,) = value_mentions(text)
        return found

    assert same_value(one("12,155 checks"), one("12155")) and same_value(one("3.0 kg"), one("3"))
    assert same_value(one("1,077.8 mm"), one("1077.8")) and same_value(one("$248,200"), one("248200"))
    assert not same_value(one("-2.34%"), one("2.34")) and not same_value(one("12,155"), one("12"))
    assert not same_value(one("7"), one(CELL)) and not same_value(one(CELL), one("7"))
    assert [m.number for m in value_mentions("Widget-3, v2 and 4")] == [3, 4]  # a name's letter, not a number


def test_without_dates_blanks_them_and_keeps_every_other_character_in_place() -> None:
    said = "Widget C 在2024年1月7日的收入 on Jan 7 2024, 12,155?"
    out = without_dates(said)
    assert len(out) == len(said) and out.split() == ["Widget", "C", "在", "的收入", "on", ",", "12,155?"]


def test_a_version_section_or_address_of_three_dotted_parts_or_more_is_no_number_nor_date() -> None:
    # "1.2.3" was read as the number 1.2 (and "10.0.0.1" as 10.0): a question about version 1.2.3 then
    # matched a cell holding 1.2.
    for said in ("version 1.2.3", "see section 4.1.2.", "host 10.0.0.1 is down", "build 2.30.2024",
                 "release 2024.1.7.3", "v1.2.3-beta"):
        assert value_mentions(said) == (), said
    assert [m.number for m in value_mentions("version 1.2. Then 3.5 and 1.2.3 or 7")] == [
        Decimal("1.2"), Decimal("3.5"), 7]
    assert _date("on 13.1.2024")[1] == frozenset({(2024, 1, 13)})  # a date form of its own still is one
    assert _date("on 2024.1.7.")[1] == frozenset({(2024, 1, 7)})  # a full stop ends a sentence, not a run
    assert [m.number for m in value_mentions("1.2, 3.4")] == [Decimal("1.2"), Decimal("3.4")]
