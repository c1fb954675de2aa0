"""The weak flag on round 29's user findings (nc29b section 2, nc29a row 6), replayed on recorded searches.

``tests/data/ranking/weak_units.json``: searches over corpus files in a fresh home (this round's user check): every
place the weak rule read, its passage, quote, place text, ranking parts and cosine, and the library's counts of the
query's words. Right answers first stay unflagged; a first place stating no value of the quantity asked is flagged
(``render.weakunits``); a table cell's column header belongs to it (``weakmore.PLACE_WORDS``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mnote_kr.citations.caches import libwords
from mnote_kr.citations.render import weakmore, weakunits
from mnote_kr.citations.render.noresults import weak_reason
from mnote_kr.models import Citation
from tests.test_weak_variants import place

RECORDED = json.loads((Path(__file__).parent / "data" / "ranking" / "weak_units.json").read_text(encoding="utf-8"))
SEARCHES: dict[str, dict[str, Any]] = RECORDED["searches"]


def cards(places: list[dict[str, Any]]) -> list[Citation]:
    out = []
    for i, p in enumerate(places):
        c = place(f"c{i}", p["passage"], p["path"], **p["parts"])
        loc = msgspec.structs.replace(c.locator, meaning_score=p["meaning"], place_text=p.get("placeText"),
                                      headers=p.get("headers", []), row_label=p.get("rowLabel"), reason=p.get("reason"))
        out.append(msgspec.structs.replace(c, display_quote=p.get("display", p["passage"]), locator=loc))
    return out


def judged(key: str) -> str | None:
    s = SEARCHES[key]
    library = libwords.LibraryWords.counts(s["libraryFiles"], s["libraryDf"])
    return weak_reason(cards(s["places"]), s["q"], lambda: library)


def first_shown(key: str) -> str:
    p = SEARCHES[key]["places"][0]
    return str(p.get("display", p["passage"]) or p.get("placeText"))


def test_a_table_cell_under_the_header_the_question_names_is_not_weak() -> None:
    # "What is the total for Florida?" cited the cell "Florida, Totals: 103,532" of the NICS table: its chunk holds
    # the Florida row's figures, not the column's header
    assert SEARCHES["F1"]["places"][0]["path"] == "pdfplumber__nics-background-checks-2015-11.pdf"
    assert first_shown("F1") == "Florida, Totals: 103,532"
    assert "total" not in SEARCHES["F1"]["places"][0]["passage"].lower()
    assert judged("F1") is None


def test_without_the_place_words_the_florida_cell_is_said_weak_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(weakmore, "PLACE_WORDS", False)
    reason = judged("F1")
    assert reason is not None and "name Florida" in reason and "(total)" in reason


def test_a_voltage_question_cited_on_a_place_stating_no_number_is_weak() -> None:
    # nc29b: the right file, on "Характеристика электромагнитного расцепителя: C." (the answer, "от 9 В до 12 В",
    # stands elsewhere); main cleared it, its Russian place holding none of the English words
    assert first_shown("V1") == "Характеристика электромагнитного расцепителя: C."
    reason = judged("V1")
    assert reason is not None and reason.startswith("the query asks a voltage (a number in volts)")
    assert "states no number" in reason


def test_a_chinese_voltage_question_cited_on_a_battery_capacity_is_weak() -> None:
    # "蓄电池的电压是多少？" on "Номинальная емкость аккумуляторной батареи: не менее 18 Ач.": a charge, not a voltage
    reason = judged("V8")
    assert reason is not None and "states a charge (in ampere-hours), no voltage" in reason


@pytest.mark.parametrize("key", ["V1", "V8"])
def test_without_the_units_rule_the_wrong_places_are_not_weak(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(weakunits, "UNITS", False)
    assert judged(key) is None


@pytest.mark.parametrize(("key", "answer"), [
    ("V2", "12В"),                       # "What is the voltage of the 7 Ah storage battery?"
    ("V3", "250 В"),                     # "What is the maximum voltage switched by each relay's contacts?"
    ("V6", "130"),                       # a bare number under "kV" in a workbook: may answer, never said weak
    ("U2", "65"),                        # round 29's user questions, right answers first
    ("U3", "5년"),
    ("U5", "all-metal type"),
    ("H1", "Hire 3 additional SEs"),     # nc29a row 6: fixed on main (ux33); stays fixed
])
def test_right_answers_first_are_not_weak(key: str, answer: str) -> None:
    assert answer in first_shown(key)
    assert judged(key) is None


def test_a_price_question_cited_on_a_heading_holding_no_number_is_weak(monkeypatch: pytest.MonkeyPatch) -> None:
    # nc29b's "What is the total contract price including VAT?" on the heading "Расчет цены контракта" (the answer,
    # "39 921 700,00 руб.", stands in 3.1); main cleared it
    assert first_shown("U8") == "Расчет цены контракта"
    reason = judged("U8")
    assert reason is not None and reason.startswith("the query asks an amount, and the first place found states no")
    monkeypatch.setattr(weakunits, "NUMBERLESS", False)
    assert judged("U8") is None


def test_a_price_question_cited_on_a_bare_figure_or_a_figure_in_words_is_not_weak() -> None:
    query = "What is the total contract price including VAT?"
    assert weakunits.numberless_reason([place("a", "Цена контракта: 39 921 700,00", "kb/c.docx")], query) is None
    assert weakunits.numberless_reason([place("a", "The price is one million dollars", "kb/c.docx")], query) is None
    assert weakunits.numberless_reason([place("a", "Contract price calculation", "kb/c.docx")], query) is not None
    # a count, a date or a duration is as often said in words: not read
    assert weakunits.numberless_reason([place("a", "Contract price calculation", "kb/c.docx")],
                                       "How many bidders signed the contract?") is None


def test_an_off_topic_question_stays_weak() -> None:
    assert judged("U7") is not None


@pytest.mark.parametrize(("query", "kinds"), [
    ("What is the voltage range of the electromagnetic lock's power supply?", ["voltage"]),
    ("How many volts does the charger give?", ["voltage"]),
    ("电源电压是多少", ["voltage"]),
    ("What is the rated current of the breaker?", ["current"]),
    ("What is the lowest operating temperature?", ["temperature"]),
    ("who runs power distribution and who supplies drinking water in the city", []),
    ("Does the current version support PDF?", []),
    ("What is the total for Florida?", []),
])
def test_the_quantity_a_question_asks(query: str, kinds: list[str]) -> None:
    assert weakunits.asked(query) == kinds


@pytest.mark.parametrize(("text", "voltage", "others"), [
    ("Максимальный входной ток: 6,5 А", False, ["current"]),
    ("Напряжение питания в диапазоне от 9 В до 12 В", True, []),
    ("Питание 12V DC", True, []),
    ("рабочая температура от -40 до +50 °С", False, ["temperature"]),
    ("Rated system voltage: kV; 130 (131 Um, 132 AC, 133 BIL)", False, []),  # "132 AC" is no current
    ("Батарея аккумуляторная АКБ-7 12В/7 А/ч", True, ["charge"]),
])
def test_values_in_a_unit_read_across_scripts(text: str, voltage: bool, others: list[str]) -> None:
    assert weakunits.states("voltage", text) is voltage
    assert weakunits.other_units("voltage", text) == others


def test_a_place_naming_the_unit_in_words_or_holding_a_bare_number_is_not_weak() -> None:
    def first(text: str) -> Citation:
        return place("a", text, "kb/spec.docx", lexical=0.5)

    query = "What is the supply voltage of the controller?"
    assert weakunits.unit_reason([first("Supply: twelve volts")], query) is None
    assert weakunits.unit_reason([first("Supply voltage, V: 12")], query) is None
    assert weakunits.unit_reason([first("Maximum input current: 6.5 A")], query) is not None
    assert weakunits.unit_reason([first("The controller and its housing")], query) is not None


def test_a_fraction_in_words_is_a_number_and_a_card_showing_no_words_is_not_judged() -> None:
    # nc30a Q6: "Water use dropped by roughly a third" answers a how-much question; a card whose quote and place text
    # are empty (nothing of its place shown) tells the rule nothing, so it flags nothing
    query = "What percentage of water did the greenhouse save?"
    assert weakunits.numberless_reason([place("a", "Water use dropped by roughly a third.", "kb/g.md")], query) is None
    assert weakunits.numberless_reason([place("a", "Water use dropped over the first weeks.", "kb/g.md")],
                                       query) is not None
    blank = msgspec.structs.replace(place("a", "", "kb/g.docx"), display_quote="")
    assert weakunits.place_of(blank) == ""
    assert weakunits.numberless_reason([blank], query) is None
    assert weakunits.unit_reason([blank], "What is the voltage of the battery?") is None
