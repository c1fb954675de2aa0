"""The slides, pages and sheets a query names (``named_places``), in English and Chinese, and the numbers
that name none ("2 slides of cake", "page count", "version 2")."""

from __future__ import annotations

import pytest

from mnote_kr.citations.text.namedplaces import NamedPlace, named_places, without_places


def _read(query: str) -> list[tuple[str, tuple[int, ...]]]:
    return [(p.kind, p.numbers) for p in named_places(query)]


@pytest.mark.parametrize(("query", "places"), [
    ("what do the notes on slide 2 say", [("slide", (2,))]),
    ("What do the notes on the second slide say?", [("slide", (2,))]),
    ("compare slides 2-3", [("slide", (2, 3))]),
    ("slides 2, 3 and 5", [("slide", (2, 3, 5))]),
    ("the chart on slide #4", [("slide", (4,))]),
    ("slide two", [("slide", (2,))]),
    ("the last slide", [("slide", (-1,))]),
    ("what is on page 3 of the report", [("page", (3,))]),
    ("page 12", [("page", (12,))]),
    ("see p. 12", [("page", (12,))]),
    ("pp. 4-5", [("page", (4, 5))]),
    ("pages 4–5", [("page", (4, 5))]),
    ("pages 4 to 6", [("page", (4, 5, 6))]),
    ("the 2nd page", [("page", (2,))]),
    ("the first three pages", [("page", (1, 2, 3))]),
    ("Seite 7 des Berichts", [("page", (7,))]),
    ("第2页", [("page", (2,))]),
    ("报告第十二页的内容", [("page", (12,))]),
    ("第4至5页", [("page", (4, 5))]),
    ("第2、3页", [("page", (2, 3))]),
    ("最后一页写了什么", [("page", (-1,))]),
    ("第二张幻灯片的备注", [("slide", (2,))]),
    ("第三张幻灯片的备注写了什么", [("slide", (3,))]),
    ("what does section 7 Foo say on p. 3", [("page", (3,))]),
    ("幻灯片3讲了什么", [("slide", (3,))]),
    ("第3个工作表", [("sheet", (3,))]),
    ("the second sheet", [("sheet", (2,))]),
    ("slide 2 and page 5", [("slide", (2,)), ("page", (5,))]),
])
def test_a_named_slide_page_or_sheet_is_read_with_its_numbers(query: str, places: list[tuple[str, tuple[int, ...]]],
                                                              ) -> None:
    assert _read(query) == places


@pytest.mark.parametrize("query", [
    "2 slides of cake", "a 10-page report", "page count", "how many pages does it have", "version 2",
    "the slide deck from 2023", "landing page design", "over 300 pages", "p < 0.05", "page 1,000 words",
    "slide 2.5 of the spec", "spreadsheet totals", "2 sheets of paper", "sheet metal thickness",
    "共20页", "第2版", "页码在哪里", "第二章", "两张幻灯片", "final notes on the third line",
])
def test_a_number_or_word_that_names_no_place_is_not_read_as_one(query: str) -> None:
    assert named_places(query) == []


@pytest.mark.parametrize(("query", "sheets", "named"), [
    ("sheet 'Sales'", ["Costs", "Sales"], ["Sales"]),
    ("the total on the Sales sheet", ["Costs", "Sales"], ["Sales"]),
    ("the total on the Q1 Sales sheet", ["Sales", "Q1 Sales"], ["Q1 Sales", "Sales"]),
    ("工作表 Sales 的总额", ["Costs", "Sales"], ["Sales"]),
    ("销售工作表的总额", ["成本", "销售"], ["销售"]),
    ("the “Costs” tab", ["Costs", "Sales"], ["Costs"]),
    ("the sheet named costs", ["Costs", "Sales"], ["Costs"]),
    ("the total on the wholesales sheet", ["Costs", "Sales"], []),  # not inside a longer word
    ("the total on the Sales sheet", ["Costs"], []),
])
def test_a_sheets_name_is_found_among_the_files_sheets(query: str, sheets: list[str], named: list[str]) -> None:
    found = [p for p in named_places(query) if p.kind == "sheet"]
    assert len(found) == 1 and found[0].named(sheets) == named


def test_excels_own_sheet_names_are_read_as_names_and_numbers() -> None:
    (place,) = named_places("the total on Sheet2")
    assert (place.kind, place.numbers, place.named(["Sheet1", "Sheet2"])) == ("sheet", (2,), ["Sheet2"])


def test_numbers_are_the_files_own_counted_from_the_end_when_negative() -> None:
    place = NamedPlace("page", (2, -1, 9, 2))
    assert place.numbered(5) == [2, 5]  # 9 is no page of a 5-page file; 2 once
    assert place.numbered(1) == [1]  # the last page of a 1-page file


def test_a_range_names_at_most_its_first_fifty() -> None:
    (place,) = named_places("pages 1-300")
    assert place.numbers == tuple(range(1, 51))


def test_the_query_without_its_places_keeps_the_words_that_choose_among_them() -> None:
    assert without_places("what do the notes on slide 2 say") == "what do the notes on say"
    assert without_places("what is on page 3 of the report") == "what is on"
    assert without_places("2 slides of cake") == "2 slides of cake"
    assert without_places("第二张幻灯片的备注") == "备注"


def test_plugins_read_named_places_through_the_plugin_api() -> None:
    from mnote_kr import plugin_api

    assert {"NamedPlace", "named_places", "without_places"} <= set(plugin_api.__all__)
    assert plugin_api.named_places is named_places and plugin_api.without_places is without_places


def test_a_huge_range_is_capped_before_it_is_counted_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.citations.text import namedplaces

    widest: list[int] = []

    def counted(*args: int) -> range:  # every range the parse walks, by its length
        r = range(*args)
        widest.append(len(r))
        if len(r) > namedplaces.MAX_RANGE:
            raise AssertionError(f"a range of {len(r)} numbers walked")
        return r

    monkeypatch.setattr(namedplaces, "range", counted, raising=False)
    (place,) = named_places("what is on slides 1-99999 and 3-99998")
    assert place.numbers == tuple(range(1, namedplaces.MAX_RANGE + 1)) and widest
    (place,) = named_places("pages 2, 5-99999")
    assert place.numbers == (2, *range(5, 5 + namedplaces.MAX_RANGE - 1))


def test_the_query_is_parsed_once_for_all_passages() -> None:
    from mnote_kr.citations.text import namedplaces

    query = "the notes on slide 7 of the deck"
    before = namedplaces._parse.cache_info()
    for _ in range(3):
        assert [p.numbers for p in named_places(query)] == [(7,)]
        assert without_places(query) == "the notes on"
    assert namedplaces._parse.cache_info().misses == before.misses + 1


@pytest.mark.parametrize("query", [
    "这份幻灯片一共有几页", "幻灯片一开始讲了什么", "工作表两个", "工作表一览", "幻灯片十张",  # counts, 一共, 一览
    "Press tab 3 times", "what does tab 2 show", "Mr. P. 12 Smith", "Ms. Lee, P.12",
])
def test_a_count_or_a_weak_word_beside_a_number_names_no_numbered_place(query: str) -> None:
    assert [p.numbers for p in named_places(query) if p.numbers] == []
    assert [p for p in named_places(query) if p.named(["2", "3", "12", "Sheet2", "Sheet3"])] == []


@pytest.mark.parametrize(("query", "places"), [
    ("第二张幻灯片", [("slide", (2,))]), ("第3页", [("page", (3,))]), ("第二页", [("page", (2,))]),
    ("幻灯片第二张的标题", [("slide", (2,))]), ("工作表2的总额", [("sheet", (2,))]),
    ("幻灯片3和4", [("slide", (3, 4))]),
    ("the second tab", [("sheet", (2,))]), ("see p. 12", [("page", (12,))]), ("(p. 7)", [("page", (7,))]),
])
def test_the_chinese_and_english_forms_that_name_a_place_still_do(query: str,
                                                                  places: list[tuple[str, tuple[int, ...]]]) -> None:
    assert _read(query) == places


def test_a_number_before_sheet_names_only_a_sheet_of_exactly_that_name() -> None:
    (place,) = named_places("2024 sheet totals")
    assert place.numbers == () and place.named(["Sheet1", "4", "24", "Sheet 2024"]) == []
    assert place.named(["Sheet1", "2024"]) == ["2024"]
