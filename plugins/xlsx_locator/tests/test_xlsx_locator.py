"""The XLSX locator on docling's test workbooks: sheet, row and the one cell checked against docling's
table ground truth (not this plugin's reader), formulas by value, hidden rows last, budgets."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

from mnote_kr.errors import DocumentError
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus"
DUCKS = CORPUS / "xlsx" / "docling__xlsx_03_chartsheet.xlsx"


def docling_cell(name: str, table: int, row: int, col: int) -> tuple[int, str, str]:
    """(sheet number, A1 cell, text) of docling's table cell at (row, col) of table ``table``."""
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{name}.json").read_text(encoding="utf-8"))
    t = truth["tables"][table]
    prov = t["prov"][0]
    (cell,) = [c for c in t["data"]["table_cells"]
               if c["start_row_offset_idx"] == row and c["start_col_offset_idx"] == col]
    a1 = f"{chr(65 + int(prov['bbox']['l']) + col)}{int(prov['bbox']['t']) + row + 1}"
    return prov["page_no"], a1, cell["text"]


def docling_find(name: str, text: str) -> tuple[int, int, int]:
    """(table, row, column) of the docling table cell reading ``text``."""
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{name}.json").read_text(encoding="utf-8"))
    for number, t in enumerate(truth["tables"]):
        for c in t["data"]["table_cells"]:
            if c["text"] == text:
                return number, c["start_row_offset_idx"], c["start_col_offset_idx"]
    raise AssertionError(text)


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def test_xlsx_is_claimed_by_the_xlsx_locator_entry_point(plugins) -> None:  # type: ignore[no-untyped-def]
    info = {i.name: i for i in plugins.describe()}["xlsx_locator"]
    assert (info.origin, info.distribution) == ("entry point", "mnote-kr-xlsx-locator")
    assert plugins.locator_plugin(".xlsx") == plugins.locator_plugin(".xlsm") == "xlsx_locator"


def test_a_figure_is_cited_as_its_cell_with_header_and_row_label(plugins) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(DUCKS.read_bytes()).digest()
    sheet, cell, text = docling_cell(DUCKS.name, 0, 4, 2)  # 2022, Saltwater Ducks
    loc = plugins.locate(LocateRequest(file=str(DUCKS), evidence="2021\t150\t100\t250\n2022\t170\t110\t280",
                                       query="saltwater ducks in 2022"))
    assert (loc.locator_precision, loc.locator_degraded, loc.sheet, loc.range) == (
        "cell", False, "Duck Observations", cell)
    assert sheet == 1 and (loc.headers, loc.row_label, loc.header_row) == (["Saltwater Ducks"], "2022", 1)
    assert loc.locator_reason.endswith(f"Year: 2022; Saltwater Ducks: {text}")
    assert loc.quote == f"Year: 2022; Saltwater Ducks: {text}"  # the cell, not the provider's whole sheet
    assert hashlib.sha256(DUCKS.read_bytes()).digest() == before


def test_a_row_without_one_named_value_is_cited_as_the_row(plugins) -> None:  # type: ignore[no-untyped-def]
    _, first, _ = docling_cell(DUCKS.name, 0, 3, 0)
    _, last, _ = docling_cell(DUCKS.name, 0, 3, 3)
    loc = plugins.locate(LocateRequest(file=str(DUCKS), evidence="2021\t150\t100\t250", query="2021"))
    assert (loc.sheet, loc.range) == ("Duck Observations", f"{first}:{last}")


def test_formula_cells_are_read_by_their_value(plugins) -> None:  # type: ignore[no-untyped-def]
    book = CORPUS / "xlsx" / "docling__xlsx_07_gap_tolerance_.xlsx"
    with zipfile.ZipFile(book) as zf:  # the file's own XML: A12 holds the formula (A11+1), cached value 2
        assert '<c r="A12"' in zf.read("xl/worksheets/sheet1.xml").decode() and b"<f>(A11+1)</f><v>2</v>" in zf.read(
            "xl/worksheets/sheet1.xml")
    # Column A counts 1, (A11+1), (A12+1), ...: the evidence holds the values, as LightRAG indexes them.
    loc = plugins.locate(LocateRequest(file=str(book), evidence="1\n2\n3\n4\n5\n6", query="2"))
    assert (loc.locator_precision, loc.sheet, loc.range) == ("cell", "Page 1", "A12")


def test_hidden_sheet_is_cited_only_when_nothing_visible_matches(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Shown"
    ws.append(["Item", "Budget"])
    ws.append(["Ferry tickets", 420])
    ws.append(["Hotel nights", 900])
    secret = wb.create_sheet("Stash")
    secret.append(["Item", "Budget"])
    secret.append(["Ferry tickets", 420])
    secret.append(["Glacier permits", 75])
    secret.sheet_state = "hidden"
    path = tmp_path / "trip.xlsx"
    wb.save(path)
    shown = plugins.locate(LocateRequest(file=str(path), evidence="Ferry tickets\t420", query="ferry tickets"))
    assert (shown.sheet, shown.range) == ("Shown", "A2:B2")
    hidden = plugins.locate(LocateRequest(file=str(path), evidence="Glacier permits\t75", query="glacier permits"))
    assert (hidden.sheet, hidden.range) == ("Stash", "A3:B3") and "(hidden)" in hidden.locator_reason


def test_no_match_is_an_honest_file_locator(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = plugins.locate(LocateRequest(file=str(DUCKS), evidence="penguin migration routes", query="penguins"))
    assert (loc.locator_precision, loc.locator_degraded, loc.sheet, loc.range) == ("file", True, None, None)


def test_a_million_row_sheet_is_refused_in_one_line(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    """A real million-row sheet, written without a <dimension> so only streaming can tell its size."""
    path = tmp_path / "huge.xlsx"
    rows = "".join(f"<row><c><v>{i}</v></c></row>" for i in range(1_000_000))  # 30 MB: inside the zip budget
    parts = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+'
        'xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override '
        'PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'spreadsheetml.worksheet+xml"/></Types>',
        "_rels/.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
        'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
        '2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet '
        'name="Big" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
        'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
        '2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/'
        f'spreadsheetml/2006/main"><sheetData>{rows}</sheetData></worksheet>',
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in parts.items():
            zf.writestr(name, text)
    with pytest.raises(DocumentError, match=r"XLSX over budget: xl/worksheets/sheet1.xml .* more than 100000 rows") \
            as err:
        plugins.locate(LocateRequest(file=str(path), evidence="999999", query="999999"))
    assert "\n" not in str(err.value)


def test_a_small_sheet_formatted_far_down_is_read_not_refused(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    """Its ``<dimension>`` says 200,000 rows (one cell formatted at Z200000); 41 rows hold a value. It is
    cited, and read without walking the 200,000 x 26 grid the dimension spans."""
    from mnote_kr_testkit.workbooks import formatted_far_down
    from openpyxl import load_workbook

    from mnote_kr_xlsx_locator import reader

    path = formatted_far_down(tmp_path / "tides.xlsx", 40)
    with zipfile.ZipFile(path) as zf:
        assert b'<dimension ref="A1:Z200000"/>' in zf.read("xl/worksheets/sheet1.xml")
    before = hashlib.sha256(path.read_bytes()).digest()
    loc = plugins.locate(LocateRequest(file=str(path), evidence="reading 17\t3", query="metres at reading 17"))
    assert (loc.locator_precision, loc.sheet, loc.range, loc.row_label) == ("cell", "Tide gauge", "B19", "reading 17")
    assert len(reader.load_xlsx(path).paragraphs) == 41
    ws = load_workbook(path, data_only=True).active
    reader._sheet_rows(ws, False, 0)
    assert len(ws._cells) == 83  # the sheet's own cells: its 82 values and the formatted one, no grid
    assert hashlib.sha256(path.read_bytes()).digest() == before


def test_a_sheet_of_styled_empty_cells_is_refused_before_it_loads(tmp_path: Path, plugins, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Three rows hold a value and thousands below hold a fill and nothing else: the rows holding a value are
    few, but openpyxl would build every styled cell (1.8 million took six minutes). The cap is lowered so
    the workbook stays small; refused in one line, the file unchanged."""
    from mnote_kr_testkit.workbooks import formatted_far_down

    from mnote_kr_xlsx_locator import reader

    path = formatted_far_down(tmp_path / "filled.xlsx", 2, last_row=4003, styled_rows=4000)
    with zipfile.ZipFile(path) as zf:
        xml = zf.read("xl/worksheets/sheet1.xml")
    own = xml.count(b"<c ")
    assert own > 24_000
    before = hashlib.sha256(path.read_bytes()).digest()
    monkeypatch.setattr(reader, "MAX_XML_CELLS", own - 1)
    with pytest.raises(DocumentError, match=rf"XLSX over budget: xl/worksheets/sheet1.xml .* {own - 1} cells") \
            as err:
        plugins.locate(LocateRequest(file=str(path), evidence="reading 1\t1", query="reading 1"))
    assert "\n" not in str(err.value)
    monkeypatch.setattr(reader, "MAX_XML_CELLS", own)
    loc = plugins.locate(LocateRequest(file=str(path), evidence="reading 1\t1", query="metres at reading 1"))
    assert (loc.sheet, loc.range) == ("Tide gauge", "B3")
    assert hashlib.sha256(path.read_bytes()).digest() == before


def test_cells_are_counted_across_the_chunks_the_xml_is_read_in() -> None:
    from mnote_kr_xlsx_locator import reader

    cell = b'<c r="A1" s="1"/>'
    for shift in range(len(cell)):  # a tag cut by the 1 MiB chunk at each of its bytes
        xml = b"<sheetData><row>" + b" " * ((1 << 20) - 16 - shift) + cell * 3 + b"</row></sheetData>"
        assert reader._sheet_cells(io.BytesIO(xml), 10**6) == 3


def test_a_titled_table_keeps_its_header_and_the_query_picks_the_row_and_cell(plugins) -> None:  # type: ignore[no-untyped-def]
    """A title cell sits on the row above the header (docling's 'section label' workbook); the evidence holds
    both data rows, the question names one row's label and one header."""
    book = CORPUS / "xlsx" / "docling__xlsx_09_section_label_header.xlsx"
    sheet, cell, text = docling_cell(book.name, 0, 2, 4)  # row "2", column "Author"
    evidence = ("1\tFiction\tMystery\tThe Hound of the Baskervilles\tArthur Conan Doyle\tGeorge Newnes\t1902\n"
                "2\tNon-fiction\tScience\tA Brief History of Time\tStephen Hawking\tBantam Books\t1988")
    loc = plugins.locate(LocateRequest(file=str(book), evidence=evidence, query="Who is the Author for 2?"))
    assert (loc.sheet, loc.range, loc.headers, loc.row_label) == ("Library Catalog", cell, ["Author"], "2")
    assert sheet == 1 and loc.locator_reason.endswith(f"#: 2; Author: {text}")


def test_side_by_side_tables_are_separate_regions(plugins) -> None:  # type: ignore[no-untyped-def]
    """Sheet2 of docling's first workbook holds tables next to each other; a row of the right one is cited
    within that table's columns, as docling's ground truth places it."""
    book = CORPUS / "xlsx" / "docling__xlsx_01.xlsx"
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{book.name}.json").read_text(encoding="utf-8"))
    right = [t for t in truth["tables"] if t["prov"][0]["page_no"] == 2 and t["prov"][0]["bbox"]["l"] > 0][0]
    b = right["prov"][0]["bbox"]
    rows: dict[int, list[str]] = {}
    for c in right["data"]["table_cells"]:
        rows.setdefault(c["start_row_offset_idx"], []).append(c["text"])
    last = max(rows)
    loc = plugins.locate(LocateRequest(file=str(book), evidence="\t".join(rows[last]), query=""))
    lo, hi = chr(65 + int(b["l"])), chr(65 + int(b["r"]) - 1)
    assert (loc.sheet, loc.range) == ("Sheet2", f"{lo}{int(b['t']) + last + 1}:{hi}{int(b['t']) + last + 1}")


def test_years_as_headers_and_a_formatted_figure_read_as_people_do(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "P&L"
    ws.append(["Line item", 2022, 2023])  # years as numbers, as sheets usually hold them
    ws.append(["Revenue", 3900, 4100])
    ws.append(["Operating costs", 2100, 2300])
    for row in ws.iter_rows(min_row=2):
        for c in row[1:]:
            c.number_format = "#,##0"
    path = tmp_path / "pl.xlsx"
    wb.save(path)
    loc = plugins.locate(LocateRequest(file=str(path), evidence="Line item\t2022\t2023\nRevenue\t3900\t4100\n"
                                       "Operating costs\t2100\t2300", query="Revenue in 2023"))
    assert (loc.sheet, loc.range, loc.header_row, loc.headers, loc.row_label) == ("P&L", "C2", 1, ["2023"], "Revenue")
    assert loc.locator_reason.endswith("Revenue, 2023: 4,100")


def test_whole_sheet_rows_of_a_gapped_table_land_on_the_named_row(plugins) -> None:  # type: ignore[no-untyped-def]
    """LightRAG's chunk holds whole sheet rows, tab-separated with their empty cells; docling's gap-tolerance
    sheet splits each row into several regions. The row the query names is cited from its label (docling:
    'Rated system frequency' is in column C of row 12) to its value G12 (``test_xlsx_data_sheet``)."""
    from openpyxl import load_workbook

    book = CORPUS / "xlsx" / "docling__xlsx_07_gap_tolerance_.xlsx"
    ws = load_workbook(book, data_only=True).active
    evidence = "\n".join("\t".join("" if v is None else str(v) for v in row)
                         for row in ws.iter_rows(min_row=10, max_row=16, values_only=True))
    _, cell, text = docling_cell(book.name, *docling_find(book.name, "Rated system frequency"))
    loc = plugins.locate(LocateRequest(file=str(book), evidence=evidence, query="rated system frequency"))
    assert text == "Rated system frequency" and (loc.sheet, loc.range) == ("Page 1", f"{cell}:G12")


def _books(tmp_path: Path) -> Path:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Books"
    ws.append(["Title", "Author", "Publisher", "Year"])
    ws.append(["The Hound of the Baskervilles", "Arthur Conan Doyle", "George Newnes", 1902])
    ws.append(["A Brief History of Time", "Stephen Hawking", "Bantam Books", 1988])
    ws.append(["Dune", "Frank Herbert", "Chilton Books", 1965])
    path = tmp_path / "books.xlsx"
    wb.save(path)
    return path


def test_the_cell_under_the_header_the_question_names_is_cited_in_the_books_row(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    """The question's words name the row (its title) and, inflected, the column ("published": Publisher):
    the citation is the answer's cell, not the title's."""
    path = _books(tmp_path)
    before = hashlib.sha256(path.read_bytes()).digest()
    evidence = "Title\tAuthor\tPublisher\tYear\nA Brief History of Time\tStephen Hawking\tBantam Books\t1988"
    loc = plugins.locate(LocateRequest(file=str(path), evidence=evidence,
                                       query="Who published A Brief History of Time?"))
    assert (loc.sheet, loc.range, loc.headers, loc.row_label) == (
        "Books", "C3", ["Publisher"], "A Brief History of Time")
    assert loc.quote == "A Brief History of Time, Publisher: Bantam Books"
    assert hashlib.sha256(path.read_bytes()).digest() == before


def test_a_question_naming_no_header_keeps_the_cell_its_words_hold(tmp_path: Path, plugins) -> None:  # type: ignore[no-untyped-def]
    path = _books(tmp_path)
    evidence = "A Brief History of Time\tStephen Hawking\tBantam Books\t1988"
    loc = plugins.locate(LocateRequest(file=str(path), evidence=evidence, query="Bantam Books and Stephen Hawking"))
    assert (loc.sheet, loc.range) == ("Books", "A3:D3")  # two values named: the row, as today
    one = plugins.locate(LocateRequest(file=str(path), evidence=evidence, query="Stephen Hawking's brief history"))
    assert (one.range, one.headers) == ("B3", ["Author"])


def test_docling_catalog_question_about_the_publisher_cites_the_publisher_cell(plugins) -> None:  # type: ignore[no-untyped-def]
    """The newcomer's question over docling's catalog: cited before as the title's cell (D4)."""
    book = CORPUS / "xlsx" / "docling__xlsx_09_section_label_header.xlsx"
    _, title, _ = docling_cell(book.name, 0, 2, 3)
    _, cell, text = docling_cell(book.name, 0, 2, 5)  # row "2", column "Publisher"
    evidence = ("1\tFiction\tMystery\tThe Hound of the Baskervilles\tArthur Conan Doyle\tGeorge Newnes\t1902\n"
                "2\tNon-fiction\tScience\tA Brief History of Time\tStephen Hawking\tBantam Books\t1988")
    loc = plugins.locate(LocateRequest(file=str(book), evidence=evidence,
                                       query="Who published A Brief History of Time"))
    assert text == "Bantam Books" and cell != title
    assert (loc.range, loc.headers, loc.row_label, loc.quote) == (cell, ["Publisher"], "2", f"#: 2; Publisher: {text}")


def test_a_question_only_the_header_row_holds_is_not_cited_as_exact(plugins) -> None:  # type: ignore[no-untyped-def]
    """The provider's passage is the whole sheet; the header's labels hold the question's words. A row
    holding its other words is cited; none holding them (the sheet does not answer), the header row is
    cited as approximate, never as the evidence of an answer."""
    sales = CORPUS / "xlsx" / "docling__xlsx_02_sample_sales_data.xlsm"
    books = [DUCKS, sales]
    before = [hashlib.sha256(b.read_bytes()).digest() for b in books]
    sheet = plugins.extract_text(str(DUCKS))
    _, head, _ = docling_cell(DUCKS.name, 0, 0, 2)  # Saltwater Ducks
    _, cell, text = docling_cell(DUCKS.name, *docling_find(DUCKS.name, "95"))
    found = plugins.locate(LocateRequest(file=str(DUCKS), evidence=sheet, query="which year had 95 saltwater",
                                         passage=sheet))
    assert (found.locator_degraded, found.range, found.quote) == (False, cell, f"Year: 2020; Saltwater Ducks: {text}")
    none = plugins.locate(LocateRequest(file=str(DUCKS), evidence=sheet, passage=sheet,
                                        query="How many saltwater ducks were seen in 2030?"))
    assert (none.locator_precision, none.locator_degraded, none.range) == ("cell", True, head)
    assert "only the table's header holds the query's words" in none.locator_reason
    sheet = plugins.extract_text(str(sales))
    loc = plugins.locate(LocateRequest(file=str(sales), evidence=sheet, query="What was the revenue of Widget Z?",
                                       passage=sheet))
    assert (loc.locator_degraded, loc.range) == (True, "D1")  # the Revenue header: no Widget Z row
    assert [hashlib.sha256(b.read_bytes()).digest() for b in books] == before
