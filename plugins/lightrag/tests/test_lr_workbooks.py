"""A workbook holding cell comments (notes, threads) goes to LightRAG as the text mnote-kr reads in it,
since LightRAG 1.5.7's XLSX parser never reads a comment; a workbook without comments stays a plain
link. Against replayed 1.5.7 payloads, with the real XLSX plugin reading the workbooks, and with
LightRAG's own XLSX extractor showing what it leaves out."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import replayed_provider
from mnote_kr_testkit.replay import source_file as source

import mnote_kr_lightrag as plugin
from mnote_kr.plugins import load_plugins
from mnote_kr_lightrag.client import links, querying, settings, workbooks

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "xlsx"
COMMENTED = CORPUS / "docling__xlsx_comments.xlsx"
TITLED = CORPUS / "docling__xlsx_05_table_with_title.xlsx"
INFLATED = CORPUS / "docling__xlsx_04_inflated.xlsx"
F7 = "Comment on Sheet1!F7 (Jane Smith (JS)): Minimum number of saltwater ducks"


def lightrag_reads(path: Path) -> str:
    """The text LightRAG 1.5.7's own XLSX parser takes from the workbook (its legacy engine's extractor)."""
    from lightrag.parser.legacy.extractors import _extract_xlsx

    return _extract_xlsx(path.read_bytes())




@pytest.fixture
def env(tmp_path: Path) -> dict[str, Any]:
    settings.clear_cache()
    env = replayed_provider(tmp_path, SAMPLES)
    reader = load_plugins()  # the bundled XLSX plugin reads the workbook, as the host offers it
    env["ctx"] = dataclasses.replace(env["ctx"], extract_text=reader.extract_text)
    replay = env["replay"]
    replay.json("POST", "/documents/paginated", {
        "documents": [], "pagination": {"page": 1, "page_size": 200, "total_count": 0, "total_pages": 1,
                                        "has_next": False, "has_prev": False}, "status_counts": {"all": 0}})
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.sample("POST", "/documents/scan", "10_scan_started.json")
    return env


def placed(ws: Path, book: Path, rel: str) -> Path:
    path = ws / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(book, path)
    return path


def test_a_workbook_with_comments_is_sent_as_its_text_with_each_comment_on_its_cell(env: dict[str, Any]) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = placed(ws, COMMENTED, "birds/ducks.xlsx")
    before = path.read_bytes()
    missed = lightrag_reads(path)
    assert "Saltwater Ducks" in missed and "Minimum number" not in missed and "Why Python" not in missed
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "birds/ducks.xlsx")], force=False)
    assert update.status == "submitted" and update.kind == "text_fallback", update
    name = update.light_rag_file_path or ""
    assert name.endswith(".xlsx.md") and update.wrapper_path == str(inputs / name)
    wrapper = inputs / name
    assert wrapper.is_file() and not wrapper.is_symlink() and links.is_our_wrapper(wrapper)
    text = wrapper.read_text(encoding="utf-8")
    assert text.startswith(f"{links.WORKBOOK_WRAPPER_MARK} birds/ducks.xlsx\n\n# Sheet1\n")
    assert f"\n\n2019 | 120 | 80 | 200\n\n{F7}\n\n" in text  # the cells as before, the comment beside its row
    assert "Comment on Sheet1!A1 (John Reviewer): Why Python specifically?" in text
    assert update.last_error == ("indexed from the text mnote-kr reads in it, since LightRAG's parser leaves out "
                                 "cell comments (4 cell(s) on 1 sheet(s)); citations still point into the file")
    assert not [p for p in inputs.iterdir() if p.is_symlink()]  # no link of the workbook besides
    assert path.read_bytes() == before


SALES = CORPUS / "docling__xlsx_02_sample_sales_data.xlsm"


def test_a_macro_enabled_workbook_is_sent_as_its_text_under_a_name_lightrag_takes(env: dict[str, Any]) -> None:
    """LightRAG 1.5.7 takes no .xlsm (its supported types, samples/05): the workbook's text goes in its place
    as ``.xlsm.md``, comments or not, and the entry keeps the user's .xlsm path."""
    ws, inputs = env["ws"], env["inputs"]
    path = placed(ws, SALES, "sales/q1.xlsm")
    before = path.read_bytes()
    assert workbooks.commented(str(path)) is None  # no comments: only its type sends it as text
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "sales/q1.xlsm")], force=False)
    assert (update.source_root_relative_path, update.status, update.kind) == (
        "sales/q1.xlsm", "submitted", "text_fallback"), update
    name = update.light_rag_file_path or ""
    assert name.endswith(".xlsm.md") and update.wrapper_path == str(inputs / name)
    wrapper = inputs / name
    assert wrapper.is_file() and not wrapper.is_symlink() and links.is_our_wrapper(wrapper)
    text = wrapper.read_text(encoding="utf-8")
    assert text.startswith(f"{links.MACRO_WORKBOOK_WRAPPER_MARK} sales/q1.xlsm\n\n# SalesData\n\n"
                           "Product | Date | Quantity | Revenue\n\n")
    assert "\n\nWidget C | 2024-01-07 00:00:00 | 12 | 15000\n\n" in text
    assert update.last_error == ("indexed from the text mnote-kr reads in it, since LightRAG does not take '.xlsm' "
                                 "files (its macros are never run or read); citations still point into the file")
    assert [p.name for p in inputs.iterdir() if p.is_file()] == [name]  # no link of the workbook itself
    assert path.read_bytes() == before
    refs = querying.references_from_data({"chunks": [{"file_path": name, "chunk_id": "doc-1-chunk-000",
                                                      "content": text}]})
    assert refs[0].content is not None and refs[0].content.startswith("# SalesData")  # the mark is ours, never quoted


def test_an_unreadable_macro_enabled_workbook_fails_with_its_reason_and_is_not_linked(env: dict[str, Any]) -> None:
    ws, inputs = env["ws"], env["inputs"]
    (ws / "broken.xlsm").write_bytes(b"not a zip at all")
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "broken.xlsm")], force=False)
    assert update.status == "failed" and not [p for p in inputs.iterdir() if p.is_file()], update
    assert (update.last_error or "").startswith("LightRAG does not take '.xlsm' files, and mnote-kr cannot read "
                                                "this workbook: "), update.last_error
    ctx = dataclasses.replace(env["ctx"], extract_text=lambda p: None)  # no plugin reads workbooks
    placed(ws, SALES, "q1.xlsm")
    [update] = plugin.ingest(ctx=ctx, sources=[source(ws, "q1.xlsm")], force=False)
    assert update.status == "failed" and "mnote-kr read no text in this workbook" in (update.last_error or "")


def test_a_macro_enabled_workbook_is_a_type_lightrag_indexes_whatever_the_server_lists(env: dict[str, Any]) -> None:
    from mnote_kr_lightrag.client import filetypes

    filetypes._SERVER_SUFFIXES.clear()
    assert plugin.unindexable(ctx=env["ctx"], paths=["a/q1.xlsm", "a/Q2.XLSM", "a/x.bin"]).keys() == {"a/x.bin"}


def test_a_workbook_without_comments_stays_a_plain_link_and_is_not_read(env: dict[str, Any]) -> None:
    ws, inputs = env["ws"], env["inputs"]
    path = placed(ws, TITLED, "birds/titled.xlsx")
    calls: list[str] = []
    ctx = dataclasses.replace(env["ctx"], extract_text=lambda p: calls.append(p) or "# x\n\nComment on x!A1: y")
    [update] = plugin.ingest(ctx=ctx, sources=[source(ws, "birds/titled.xlsx")], force=False)
    assert update.status == "submitted" and update.kind == "document" and update.last_error is None
    link = inputs / (update.light_rag_file_path or "")
    assert link.name.endswith(".xlsx") and link.is_symlink() and os.readlink(link) == str(path) and not calls


def test_a_workbook_declaring_far_more_rows_than_it_holds_is_sent_as_its_text(env: dict[str, Any]) -> None:
    """nc17b P17: docling's inflated workbook (four tiny sheets, Sheet1's recorded extent to row 1,048,496) sat 60+ s
    in LightRAG's parsing step: its extractor walks every declared row (half a minute and a megabyte of empty
    lines here). mnote-kr reads its cells in well under a second and sends that text, saying why."""
    ws = env["ws"]
    path = placed(ws, INFLATED, "data/inflated.xlsx")
    before = path.read_bytes()
    assert workbooks.inflated(str(path)) == 1_048_496
    assert workbooks.inflated(str(TITLED)) is None and workbooks.inflated(str(COMMENTED)) is None
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "data/inflated.xlsx")], force=False)
    assert update.status == "submitted" and update.kind == "text_fallback", update
    assert update.reading == "workbook:2"  # a linked one recorded "lightrag:1" before is read again (readings)
    text = (env["inputs"] / (update.light_rag_file_path or "")).read_text(encoding="utf-8")
    assert "# Sheet1" in text and "6 | 0 | -6" in text and len(text) < 5000
    assert update.last_error == ("indexed from the text mnote-kr reads in it, since the workbook declares 1,048,496 "
                                 "rows that LightRAG's parser would walk one by one; citations still point into "
                                 "the file")
    assert path.read_bytes() == before


def test_a_cells_text_reading_comment_on_is_no_comment(env: dict[str, Any], tmp_path: Path) -> None:
    """Whether a workbook holds comments is its structure (comments parts), not how a cell's text starts."""
    from openpyxl import Workbook

    ws, inputs = env["ws"], env["inputs"]
    wb = Workbook()
    wb.active.append(["Comment on Sheet1!A1 (Ann): not a comment"])
    wb.save(ws / "plain.xlsx")
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "plain.xlsx")], force=False)
    assert update.kind == "document" and (inputs / (update.light_rag_file_path or "")).is_symlink()


@pytest.mark.parametrize("data", [b"not a zip at all", b"PK\x03\x04broken"], ids=["no-zip", "damaged"])
def test_an_unreadable_workbook_is_linked_for_lightrag_to_say_what_it_makes_of_it(
        env: dict[str, Any], data: bytes) -> None:
    ws, inputs = env["ws"], env["inputs"]
    (ws / "broken.xlsx").write_bytes(data)
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "broken.xlsx")], force=False)
    assert update.kind == "document" and (inputs / (update.light_rag_file_path or "")).is_symlink()


def test_a_workbook_wrappers_first_line_never_reaches_a_reference() -> None:
    first = f"{links.WORKBOOK_WRAPPER_MARK} birds/ducks.xlsx\n\n# Sheet1\n\n{F7}\n"
    refs = querying.references_from_data({"chunks": [
        {"file_path": "ducks.w1.abc-def.xlsx.md", "chunk_id": "doc-1-chunk-000", "content": first}]})
    assert refs[0].content == f"# Sheet1\n\n{F7}\n"


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.xls[xm]")), ids=lambda p: p.stem)
def test_the_comments_the_structure_counts_are_those_the_locator_plugin_reads(path: Path) -> None:
    """On every corpus workbook, the commented cells ``workbooks.commented`` counts from the zip's parts are
    those where the XLSX plugin (openpyxl) reads a comment."""
    from mnote_kr_xlsx_locator.reader import load_xlsx

    before = path.read_bytes()
    cells = {(p.sheet, p.row, p.cells[0][0]) for p in load_xlsx(path).paragraphs if p.comment}
    assert workbooks.commented(str(path)) == ((len(cells), len({s for s, _, _ in cells})) if cells else None)
    assert path.read_bytes() == before


def _values(text: str) -> set[str]:
    """The non-empty cell values of LightRAG's text of a workbook (its sheet lines left out; a line break
    it escapes as ``\\n`` read as the space the XLSX plugin reads)."""
    return {" ".join(v.replace("\\n", " ").split()) for line in text.splitlines() if not line.startswith("=" * 20)
            for v in line.split("\t") if v.strip()}


#: docling's inflated workbook is left out: LightRAG's extractor walks its whole formatted extent (half a minute)
READ_BY_LIGHTRAG = sorted(p for p in CORPUS.glob("*.xlsx") if "inflated" not in p.name)


@pytest.mark.parametrize("path", READ_BY_LIGHTRAG, ids=lambda p: p.stem)
def test_every_value_lightrag_reads_in_a_corpus_workbook_is_in_the_text_sent_for_it(path: Path) -> None:
    text = load_plugins().extract_text(str(path))
    assert _values(lightrag_reads(path)) <= {" ".join(v.split()) for line in text.split("\n\n")
                                             for v in line.split(" | ")}


def test_hidden_sheets_and_rows_lightrag_reads_are_sent_with_their_comments(env: dict[str, Any]) -> None:
    """LightRAG reads hidden sheets and rows too: the text sent in its place holds them, a comment there too."""
    from openpyxl import Workbook
    from openpyxl.comments import Comment

    ws, inputs = env["ws"], env["inputs"]
    wb = Workbook()
    shown = wb.active
    shown.title = "Trips"
    for row in (["Item", "Budget"], ["Ferry tickets", 420], ["Hotel nights", 900]):
        shown.append(row)
    shown.row_dimensions[3].hidden = True
    shown["B2"].comment = Comment("Booked in March", "Ann Lee")
    stash = wb.create_sheet("Stash")
    stash.append(["Glacier permits", 75])
    stash["B1"].comment = Comment("Paid in cash", "Ann Lee")
    stash.sheet_state = "hidden"
    wb.save(ws / "trip.xlsx")
    before = (ws / "trip.xlsx").read_bytes()
    missed = lightrag_reads(ws / "trip.xlsx")
    assert "Hotel nights\t900" in missed and "Glacier permits\t75" in missed and "Paid" not in missed
    [update] = plugin.ingest(ctx=env["ctx"], sources=[source(ws, "trip.xlsx")], force=False)
    assert update.kind == "text_fallback", update
    text = (inputs / (update.light_rag_file_path or "")).read_text(encoding="utf-8")
    assert "\n\nHotel nights | 900\n\n" in text and "\n\n# Stash\n\nGlacier permits | 75\n\n" in text
    assert "Comment on Trips!B2 (Ann Lee): Booked in March" in text
    assert "Comment on Stash!B1 (Ann Lee): Paid in cash" in text
    assert update.last_error is not None and "cell comments (2 cell(s) on 2 sheet(s))" in update.last_error
    assert (ws / "trip.xlsx").read_bytes() == before


def test_a_commented_workbooks_text_keeps_a_formula_lightrag_reads(tmp_path: Path) -> None:
    """The text sent for a workbook with comments stands in for LightRAG's own reading
    (``workbooks``' docstring: each cell its cached value, else its formula). A workbook saved by a
    script (openpyxl, pandas) holds no cached values: LightRAG indexes ``=SUM(B2:B3)``, mnote-kr's text
    drops the cell, so once a comment is added the formula leaves the index."""
    import openpyxl
    from openpyxl.comments import Comment

    from mnote_kr_xlsx_locator import extract_text

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Ducks"
    ws.append(["Pond", "Count"])
    ws.append(["North", 3])
    ws.append(["South", 4])
    ws.append(["Total", "=SUM(B2:B3)"])
    ws["A2"].comment = Comment("Kumquat survey by the river", "Ann")
    path = tmp_path / "ducks.xlsx"
    wb.save(path)
    assert "=SUM(B2:B3)" in lightrag_reads(path)  # what LightRAG would have indexed
    text = extract_text(str(path))
    assert text is not None and "Kumquat survey" in text
    assert "=SUM(B2:B3)" in text, text
