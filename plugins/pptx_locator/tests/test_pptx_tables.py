"""A slide's table read row by row as people read it: each value under its header (blank cells left out,
merged cells neither adding columns nor shifting values), a table without a header plain but aligned,
and a cited row quoted alone. On generated decks and on docling's sample deck, whose table (a grouped
header over merged cells, labels merged down) is checked against docling's own reading of it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.decks import add_table, harbour_deck

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus"
SAMPLE = CORPUS / "pptx" / "docling__powerpoint_sample.pptx"
SAILINGS = [["Route", "Mon", "Tue", "Wed"],
            ["Saltmarsh crossing", "12", "13", "14"],
            ["", "8", "", "9"],  # its label merged down from the row above; Tuesday blank
            ["Ashgrove quay", "closed", "", "7"]]  # "closed" merged across Monday and Tuesday
MERGES = ((1, 0, 2, 0), (3, 1, 3, 2))


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def table_deck(path: Path, rows: list[list[str]], merges: tuple[tuple[int, int, int, int], ...] = ()) -> Path:
    prs, slide = harbour_deck("Ashgrove", "Sailings")
    add_table(slide, rows, merges)
    prs.save(path)
    return path


def table_lines(plugins: Any, path: Path) -> list[str]:
    """The lines of the deck's own text (``extract_text``) after its table's first one, up to the next slide."""
    text = plugins.extract_text(str(path))
    lines = text.split("\n\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("Table: "))
    return [lines[at][len("Table: "):]] + [line for line in lines[at + 1:] if not line.startswith("# ")]


def test_each_value_stands_under_its_header_whatever_is_blank_or_merged(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    deck = table_deck(tmp_path / "sailings.pptx", SAILINGS, MERGES)
    assert table_lines(plugins, deck) == [
        "Route | Mon | Tue | Wed",
        "Saltmarsh crossing: Mon: 12; Tue: 13; Wed: 14",
        "Saltmarsh crossing: Mon: 8; Wed: 9",  # the merged label reads on; 9 stays Wednesday's
        "Ashgrove quay: Mon–Tue: closed; Wed: 7",  # one value over two columns, no empty column beside it
    ]


def test_a_table_without_a_header_row_stays_plain_with_its_columns_in_place(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    deck = table_deck(tmp_path / "plain.pptx", [["North", "120", "95"], ["", "80", "70"], ["South", "", "60"],
                                                ["East", "40", ""]])
    assert table_lines(plugins, deck) == ["North | 120 | 95", "| 80 | 70", "South | | 60", "East | 40"]


def test_a_cited_table_row_is_quoted_alone(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    deck = table_deck(tmp_path / "sailings.pptx", SAILINGS, MERGES)
    before = hashlib.sha256(deck.read_bytes()).digest()
    chunk = plugins.extract_text(str(deck))  # what LightRAG holds of the deck: its own text, every row
    bundle = plugins.clean_text(chunk, "Saltmarsh crossing sailings on Wednesday", None)
    loc = plugins.locate(LocateRequest(file=str(deck), evidence=bundle.locator_evidence_text,
                                       query="Saltmarsh crossing sailings on Wednesday", passage=chunk))
    assert (loc.locator_precision, loc.slide, loc.paragraph_index) == ("slide", 2, 1)
    assert loc.quote == "Saltmarsh crossing: Mon: 12; Tue: 13; Wed: 14"
    assert hashlib.sha256(deck.read_bytes()).digest() == before


def docling_table(name: str) -> tuple[list[list[str]], list[list[str]]]:
    """docling's grid of the deck's first table (a merged cell's text in every grid cell it covers), and
    each row's cells as docling lists them (a merged cell once, in the row it starts in), left to right."""
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{name}.json").read_text(encoding="utf-8"))
    data = truth["tables"][0]["data"]
    grid = [["" for _ in range(data["num_cols"])] for _ in range(data["num_rows"])]
    starts: list[list[tuple[int, str]]] = [[] for _ in range(data["num_rows"])]
    for cell in data["table_cells"]:
        starts[cell["start_row_offset_idx"]].append((cell["start_col_offset_idx"], cell["text"]))
        for r in range(cell["start_row_offset_idx"], cell["end_row_offset_idx"]):
            for c in range(cell["start_col_offset_idx"], cell["end_col_offset_idx"]):
                grid[r][c] = cell["text"]
    return grid, [[text for _, text in sorted(row)] for row in starts]


def test_the_sample_decks_rows_read_under_its_grouped_header_as_docling_lays_them_out(plugins) -> None:  # type: ignore[no-untyped-def]
    """Two header rows (Class1/Class2 over A, B, C), labels R3 and R4 merged down: each row's values under
    both header rows' texts of their column, in docling's layout."""
    grid, cells = docling_table(SAMPLE.name)
    heads = [" / ".join(dict.fromkeys(t for t in (grid[0][c], grid[1][c]) if t)) for c in range(len(grid[0]))]
    want = [" | ".join(t for t in cells[0] if t), " | ".join(t for t in cells[1] if t)]
    for row in grid[2:]:
        want.append(f"{row[0]}: " + "; ".join(f"{heads[c]}: {v}" for c, v in enumerate(row) if c and v))
    assert table_lines(plugins, SAMPLE)[:len(want)] == want
    r1 = want[2]
    loc = plugins.locate(LocateRequest(file=str(SAMPLE), evidence=r1, query="R1"))
    assert (loc.slide, loc.paragraph_index, loc.quote) == (1, 2, r1)


def test_a_number_labelling_a_row_reads_under_its_header_as_a_workbooks_does(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    """A row labelled by a number ("2021" under "Year", a berth's number under "Berth") read "2021: Arrivals: 150",
    the number naming nothing; a workbook's and a DOCX table's rows read it under its header (the honest builder,
    round 23). A name still labels its row."""
    deck = table_deck(tmp_path / "berths.pptx", [["Berth", "Arrivals", "Departures"], ["7", "150", "110"],
                                                 ["12", "", "95"], ["Quay", "40", "38"]])
    before = hashlib.sha256(deck.read_bytes()).digest()
    assert table_lines(plugins, deck) == [
        "Berth | Arrivals | Departures",
        "Berth: 7; Arrivals: 150; Departures: 110",
        "Berth: 12; Departures: 95",
        "Quay: Arrivals: 40; Departures: 38",
    ]
    assert hashlib.sha256(deck.read_bytes()).digest() == before
