"""A workbook's cell comments (notes, and threads with their replies) in the text the XLSX plugin reads, a
line each naming its sheet and cell, and cited on the commented cell in their own words. Checked against
docling's ground truth for the workbook (its comment sections), not this plugin's reader."""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus"
COMMENTED = CORPUS / "xlsx" / "docling__xlsx_comments.xlsx"
TITLED = CORPUS / "xlsx" / "docling__xlsx_05_table_with_title.xlsx"
#: The line the workbook's own text holds for the thread on F7, as LightRAG returned it in its chunk.
F7_LINE = "Comment on Sheet1!F7 (Jane Smith (JS)): Minimum number of saltwater ducks"


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def docling_comments(path: Path) -> list[tuple[str, str, str, str]]:
    """(sheet, cell, author, words) of each comment docling's ground truth gives the workbook (its
    ``comment-<sheet>-<cell>`` sections; on a thread, docling keeps one of its comments)."""
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{path.name}.json").read_text(encoding="utf-8"))
    out = []
    for group in truth["groups"]:
        if group["label"] != "comment_section":
            continue
        _, sheet, cell = group["name"].split("-")
        for child in group["children"]:
            text = truth["texts"][int(child["$ref"].rsplit("/", 1)[1])]["text"]
            said = re.fullmatch(r"\[author: (.+?)(?:, time: [^\]]+)?\]: (.+)", text)
            assert said, text
            out.append((sheet, cell, said.group(1), said.group(2)))
    return out


def test_the_workbooks_text_holds_each_comment_as_a_line_naming_its_sheet_and_cell(plugins) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(COMMENTED.read_bytes()).digest()
    text = plugins.extract_text(str(COMMENTED))
    lines = text.split("\n\n")
    truth = docling_comments(COMMENTED)
    assert len(truth) == 4
    for sheet, cell, author, words in truth:  # a reply says so after its author
        assert any(re.fullmatch(rf"Comment on {sheet}!{cell} \({re.escape(author)}(, reply)?\): {re.escape(words)}",
                                line) for line in lines), (cell, author, words)
    # the thread on F7 in full, from the thread itself: not the note Excel writes for older readers
    assert F7_LINE in lines
    assert "Comment on Sheet1!F7 (Marcus Sterling (MS), reply): I never thought it would be so low" in lines
    assert "Threaded comment" not in text and "tc={" not in text
    assert "\n\n2019 | 120 | 80 | 200\n\nComment on Sheet1!F7 (Jane Smith (JS))" in text  # right after its cell's row
    assert hashlib.sha256(COMMENTED.read_bytes()).digest() == before


def test_a_workbook_without_comments_reads_as_before(plugins) -> None:  # type: ignore[no-untyped-def]
    with zipfile.ZipFile(TITLED) as zf:
        assert not [n for n in zf.namelist() if "comment" in n.lower()]
    text = plugins.extract_text(str(TITLED))
    assert "Comment on" not in text
    assert text.split("\n\n") == ["# Duck Observations", "Number of freshwater ducks per year",
                                  "Year | Freshwater Ducks", *(f"{y} | {n}" for y, n in zip(
                                      range(2019, 2025), (120, 135, 150, 170, 160, 180), strict=True))]


def test_a_comment_line_is_cited_on_its_cell_in_the_comments_words(plugins) -> None:  # type: ignore[no-untyped-def]
    """The evidence is the wrapper's chunk LightRAG returned (the whole small workbook) or the one line."""
    before = hashlib.sha256(COMMENTED.read_bytes()).digest()
    chunk = plugins.extract_text(str(COMMENTED))
    for evidence in (F7_LINE, chunk):
        loc = plugins.locate(LocateRequest(file=str(COMMENTED), evidence=evidence, passage=chunk,
                                           query="Minimum number of saltwater ducks"))
        assert (loc.locator_precision, loc.locator_degraded, loc.sheet, loc.range) == ("cell", False, "Sheet1", "F7")
        assert loc.quote == "Minimum number of saltwater ducks"
        assert "comment on Sheet1!F7 (Jane Smith (JS))" in loc.locator_reason
        assert loc.place_text == F7_LINE and "Comment" in loc.place_text
        assert loc.headers == ["Saltwater Ducks"] and loc.header_row == 6
        first = loc.runners_up[0]  # the commented cell's own value first behind its comment
        assert (first.sheet, first.range, first.quote) == ("Sheet1", "F7", "Year: 2019; Saltwater Ducks: 80")
    reply = plugins.locate(LocateRequest(file=str(COMMENTED), evidence=chunk, passage=chunk,
                                         query="who thought it would be so low?"))
    assert (reply.range, reply.quote) == ("F7", "I never thought it would be so low")
    assert "a reply in the comment on Sheet1!F7 (Marcus Sterling (MS))" in reply.locator_reason
    assert hashlib.sha256(COMMENTED.read_bytes()).digest() == before


def test_a_question_about_a_cell_lands_where_it_did_without_the_comments(plugins, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The comment lines in the passage leave every cell question of the workbook where the same workbook
    without its comments cites it (its values, not a comment holding some of the question's words)."""
    from openpyxl import load_workbook

    wb = load_workbook(COMMENTED)
    for cell in (c for row in wb.active.iter_rows() for c in row):
        cell.comment = None
    bare = tmp_path / "bare.xlsx"
    wb.save(bare)
    assert "Comment on" not in plugins.extract_text(str(bare))
    questions = ["Python is great", "machine learning libraries", "How many saltwater ducks in 2019?",
                 *(f"{what} in {year}" for year in range(2019, 2025)
                   for what in ("freshwater ducks", "saltwater ducks", "ducks"))]
    texts = {book: plugins.extract_text(str(book)) for book in (COMMENTED, bare)}
    for question in questions:
        at = [plugins.locate(LocateRequest(file=str(book), evidence=text, passage=text, query=question))
              for book, text in texts.items()]
        assert [(loc.range, loc.quote) for loc in at][0] == [(loc.range, loc.quote) for loc in at][1], question
    loc = plugins.locate(LocateRequest(file=str(COMMENTED), evidence=texts[COMMENTED], passage=texts[COMMENTED],
                                       query="saltwater ducks in 2022"))
    assert (loc.sheet, loc.range, loc.quote) == ("Sheet1", "F10", "Year: 2022; Saltwater Ducks: 110")


def test_a_note_on_an_empty_cell_of_another_sheet_is_cited_there(plugins, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A note written by openpyxl (no thread), its text starting with its author's name as Excel writes it."""
    from openpyxl import Workbook
    from openpyxl.comments import Comment

    wb = Workbook()
    ws = wb.active
    ws.title = "Trips"
    ws.append(["Item", "Budget"])
    ws.append(["Ferry tickets", 420])
    log = wb.create_sheet("Log book")
    log["C9"].comment = Comment("Ann Lee:\nAsk the harbourmaster  about\nthe silt survey", "Ann Lee")
    path = tmp_path / "trip.xlsx"
    wb.save(path)
    before = path.read_bytes()
    text = plugins.extract_text(str(path))
    assert text.endswith("# Log book\n\nComment on Log book!C9 (Ann Lee): Ask the harbourmaster about the silt survey")
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text,
                                       query="what about the silt survey?"))
    assert (loc.locator_precision, loc.sheet, loc.range, loc.quote) == (
        "cell", "Log book", "C9", "Ask the harbourmaster about the silt survey")
    assert loc.headers == [] and loc.row_label is None
    model = plugins.document_model(str(path))  # the viewer draws the sheet holding only a comment
    assert [(s.name, len(s.cells)) for s in model.sheets] == [("Trips", 4), ("Log book", 0)]
    assert path.read_bytes() == before


def test_a_thread_whose_part_is_missing_keeps_the_notes_text(plugins, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "no_threads.xlsx"
    with zipfile.ZipFile(COMMENTED) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if "threadedComment" not in info.filename:
                dst.writestr(info, src.read(info))
    line = next(x for x in plugins.extract_text(str(path)).split("\n\n") if x.startswith("Comment on Sheet1!F7"))
    assert line.startswith("Comment on Sheet1!F7: [Threaded comment]") and "Minimum number of saltwater ducks" in line


def test_the_viewer_draws_the_cells_not_their_comments(plugins) -> None:  # type: ignore[no-untyped-def]
    model = plugins.document_model(str(COMMENTED))
    [sheet] = model.sheets
    cells = {(c.row, c.column): c.text for c in sheet.cells}
    assert cells[(7, 6)] == "80" and len(cells) == 30


def test_a_question_in_a_comments_words_is_quoted_in_them_when_the_row_label_is_named_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"who checked the south count twice": only B3's comment holds "checked" and "twice". ``named_row``
    ranks a row's label words before all other words, and a comment has no label, so the South row (label
    "South") outranks the comment holding four of the query's words: the citation quotes the value "4"
    and never the comment the question is about."""
    import openpyxl
    from openpyxl.comments import Comment

    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Ducks"
    for row in (["Pond", "Count", "Warden"], ["North", 3, "Ann"], ["South", 4, "Bob"], ["East", 7, "Cy"]):
        ws.append(row)
    ws["B3"].comment = Comment("South pond count checked twice by the warden", "Ann")
    path = tmp_path / "ducks.xlsx"
    wb.save(path)
    before = hashlib.sha256(path.read_bytes()).digest()
    plugins = load_plugins(None)
    text = plugins.extract_text(str(path))
    query = "who checked the south count twice"
    bundle = plugins.clean_text(text, query, None)
    loc = plugins.locate(LocateRequest(file=str(path), evidence=bundle.locator_evidence_text, query=query,
                                       passage=text))
    assert (loc.sheet, loc.range) == ("Ducks", "B3")
    assert loc.quote == "South pond count checked twice by the warden", (loc.quote, loc.locator_reason)
    assert hashlib.sha256(path.read_bytes()).digest() == before
