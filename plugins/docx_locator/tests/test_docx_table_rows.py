"""A DOCX table cell is cited as its row: quoted by its headers, placed on the cell the query names.

On WeKnora's vertical-merge fixture (a table whose method column is merged down four rows) with the
passage LightRAG's engine gave for it, and on generated tables (a value spanning two columns, a label
merged down, a table without a header). The expected rows are written from the documents' own cells.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.docx_replay import MERGE, METHOD
from mnote_kr_testkit.docx_replay import MERGE_PASSAGE as PASSAGE

from mnote_kr.models import LocateRequest
from mnote_kr_docx_locator import locate_docx
from mnote_kr_docx_locator.cache import clear_cache, load_docx
from mnote_kr_docx_locator.rows import CELL_CHARS, row_of


@pytest.fixture(autouse=True)
def _fresh() -> None:
    clear_cache()


def _index(path: Path, text: str, after: int = 0) -> int:
    return next(p.index for p in load_docx(path).paragraphs if p.index >= after and p.text == text)


def _locate(path: Path, query: str, evidence: str = PASSAGE) -> object:
    return locate_docx(LocateRequest(file=str(path), evidence=evidence, query=query, passage=evidence))


def test_a_question_naming_a_column_is_cited_on_the_rows_cell_under_it_and_quoted_as_the_row() -> None:
    before = hashlib.sha256(MERGE.read_bytes()).hexdigest()
    row = _index(MERGE, "遗传性乳腺癌")
    for query, answer in (("遗传性乳腺癌的相关基因是什么？", "BRCA1"), ("遗传性乳腺癌检测周期多长？", "15个工作日")):
        loc = _locate(MERGE, query)
        assert loc.locator_precision == "paragraph"  # type: ignore[attr-defined]
        assert loc.paragraph_index == _index(MERGE, answer, after=row), query  # type: ignore[attr-defined]
        assert loc.highlight is not None and (loc.highlight.start, loc.highlight.end) == (0, len(answer))  # type: ignore[attr-defined]
        # the method cell opens with its header's words: not headed again ("检测方法: 检测方法：…", nc26a Q9)
        assert loc.quote == f"Q0101: 检测项目: 遗传性乳腺癌; 相关基因: BRCA1; 周期: 15个工作日; {METHOD}", query  # type: ignore[attr-defined]
        assert loc.row_label == "Q0101"  # type: ignore[attr-defined]
    assert hashlib.sha256(MERGE.read_bytes()).hexdigest() == before  # the user's file untouched


def test_a_cell_merged_down_reads_as_its_value_in_every_row_it_spans() -> None:
    loc = _locate(MERGE, "林奇综合征", "林奇综合征")
    assert loc.paragraph_index == _index(MERGE, "林奇综合征")  # type: ignore[attr-defined]
    assert loc.quote == f"Q0103: 检测项目: 林奇综合征; 相关基因: MLH1; 周期: 15个工作日; {METHOD}"  # type: ignore[attr-defined]


def test_the_named_column_of_a_merged_cell_leaves_the_place_in_the_row_asked_about() -> None:
    # the method cell of row Q0102 only continues the merge (its own paragraph is empty): the place
    # stays on the row's matched cell, not on the merge's first cell in the row above
    loc = _locate(MERGE, "遗传性卵巢癌的检测方法", "遗传性卵巢癌")
    assert loc.paragraph_index == _index(MERGE, "遗传性卵巢癌")  # type: ignore[attr-defined]
    assert loc.quote.startswith("Q0102: 检测项目: 遗传性卵巢癌;") and loc.quote.endswith(METHOD)  # type: ignore[attr-defined]


def test_spans_and_merges_keep_each_value_under_its_own_header(tmp_path: Path) -> None:
    b = DocxBuilder()
    b.para("Ferry timetable for the winter season at the harbour.")
    cells = b.table([["Route", "Mon", "Tue", "Wed"],
                     ["Saltmarsh crossing", "12", "13", "14"],
                     ["", "8", "", "9"],
                     ["Ashgrove quay", "closed", "7"]],
                    {(1, 0): '<w:vMerge w:val="restart"/>', (2, 0): "<w:vMerge/>", (3, 1): '<w:gridSpan w:val="2"/>'})
    path = tmp_path / "ferries.docx"
    path.write_bytes(b.build())
    loc = _locate(path, "Ashgrove quay on Wed", "Ashgrove quay")
    assert loc.paragraph_index == cells[3][2]  # type: ignore[attr-defined]  # the Wed cell, after the span
    assert loc.quote == "Ashgrove quay: Mon–Tue: closed; Wed: 7"  # type: ignore[attr-defined]
    assert loc.headers == ["Wed"]  # type: ignore[attr-defined]
    doc = load_docx(path)
    assert row_of(doc, cells[2][3]).reading() == "Saltmarsh crossing: Mon: 8; Wed: 9"  # type: ignore[union-attr]
    assert row_of(doc, cells[0][1]).reading() == "Route | Mon | Tue | Wed"  # type: ignore[union-attr]


def test_a_table_without_a_header_row_reads_plain_and_text_outside_tables_is_untouched(tmp_path: Path) -> None:
    b = DocxBuilder()
    intro = b.para("The northern pier was rebuilt in granite after the storm of 1881.")
    cells = b.table([["Northern breakwater", "120", "95"], ["Southern breakwater", "80", "70"]])
    path = tmp_path / "piers.docx"
    path.write_bytes(b.build())
    loc = _locate(path, "Southern breakwater", "Southern breakwater")
    assert loc.paragraph_index == cells[1][0] and loc.quote == "Southern breakwater | 80 | 70"  # type: ignore[attr-defined]
    loc = _locate(path, "granite pier", "The northern pier was rebuilt in granite after the storm of 1881.")
    assert loc.paragraph_index == intro and loc.quote is None and loc.row_label is None  # type: ignore[attr-defined]


CV_LEFT = ("Curriculum vitae of Marta Lindqvist, marine biologist.",
           "Born in Uppsala, she studied benthic ecology at Stockholm University from 2004 to 2010.",
           "Her doctoral thesis mapped the eelgrass meadows of the Baltic coast over six summers.",
           "She led the seabed survey of the Gulf of Bothnia for the Swedish Maritime Administration.")
CV_RIGHT = ("Skills: underwater photogrammetry, sediment coring, R and Python for spatial statistics.",
            "Languages: Swedish, English, Finnish, and a working knowledge of Estonian.",
            "Publications: fourteen peer-reviewed articles on coastal vegetation and its recovery.",
            "Referees: available on request from the Department of Ecology in Stockholm.")


def test_a_layout_table_keeps_the_cells_own_quote(tmp_path: Path) -> None:
    # a CV's two-column table: one row, each cell many long paragraphs; the citation is its paragraph,
    # not the whole table read as a row
    b = DocxBuilder()
    cells = b.table([[CV_LEFT, CV_RIGHT]])
    path = tmp_path / "cv.docx"
    path.write_bytes(b.build())
    thesis = cells[0][0] + 2
    loc = _locate(path, "eelgrass meadows thesis", CV_LEFT[2])
    assert loc.paragraph_index == thesis  # type: ignore[attr-defined]
    assert loc.quote is None and loc.row_label is None and not loc.headers  # type: ignore[attr-defined]
    assert row_of(load_docx(path), thesis) is None  # not a data table: no row is read


def test_a_table_of_many_paragraph_cells_is_laid_out_not_data(tmp_path: Path) -> None:
    b = DocxBuilder()
    cells = b.table([["Period", "Work"], ["2004–2010", CV_LEFT], ["2010–2016", CV_RIGHT]])
    path = tmp_path / "periods.docx"
    path.write_bytes(b.build())
    loc = _locate(path, "seabed survey of the Gulf of Bothnia", CV_LEFT[3])
    assert loc.paragraph_index == cells[1][1] + 3 and loc.quote is None  # type: ignore[attr-defined]


def test_a_long_data_row_is_read_about_a_paragraph_long_with_the_named_cell(tmp_path: Path) -> None:
    heads = ["Station"] + [f"Depth {n} m" for n in range(5, 125, 5)]
    values = [f"{n * 7 % 90 + 1000:,} cells per litre" for n in range(1, 25)]
    b = DocxBuilder()
    cells = b.table([heads, ["Kvarken north", *values], ["Kvarken south", *values[::-1]]])
    path = tmp_path / "plankton.docx"
    path.write_bytes(b.build())
    loc = _locate(path, "Kvarken north at Depth 115 m", "Kvarken north")
    assert loc.paragraph_index == cells[1][23]  # type: ignore[attr-defined]  # the Depth 115 m cell
    assert loc.quote.startswith("Kvarken north: Depth 5 m: ")  # type: ignore[attr-defined]
    assert f"Depth 115 m: {values[22]}" in loc.quote  # type: ignore[attr-defined]
    assert len(loc.quote) <= 360  # type: ignore[attr-defined]  # about a paragraph, not 24 columns' worth


def test_the_header_the_question_names_first_wins_over_a_longer_one(tmp_path: Path) -> None:
    b = DocxBuilder()
    cells = b.table([["Sensor", "Type", "Value"], ["Probe A", "salinity", "7.2"], ["Probe B", "oxygen", "9.1"]])
    path = tmp_path / "probes.docx"
    path.write_bytes(b.build())
    loc = _locate(path, "What type of value does Probe A give?", "Probe A")
    assert loc.paragraph_index == cells[1][1] and loc.headers == ["Type"]  # type: ignore[attr-defined]
    b = DocxBuilder()
    cells = b.table([["Item", "Price", "Unit price"], ["Mooring rope", "40", "2"], ["Anchor chain", "90", "9"]])
    path = tmp_path / "prices.docx"
    path.write_bytes(b.build())
    loc = _locate(path, "the unit price of Mooring rope", "Mooring rope")  # "Price" is named inside "Unit price"
    assert loc.paragraph_index == cells[1][2] and loc.headers == ["Unit price"]  # type: ignore[attr-defined]


def test_a_locate_reads_each_table_once_with_its_runners_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import msgspec

    from mnote_kr.models import Locator
    from mnote_kr_docx_locator import rows

    b = DocxBuilder()
    cells = b.table([["Harbour", "Berths"], ["Lerwick", "40"], ["Kirkwall", "31"], ["Stromness", "12"]])
    path = tmp_path / "berths.docx"
    path.write_bytes(b.build())
    doc = load_docx(path)
    read: list[int] = []
    real = rows._table_span
    monkeypatch.setattr(rows, "_table_span", lambda *a: read.append(1) or real(*a))
    place = Locator(locator_precision="paragraph", paragraph_index=cells[1][0])
    loc = rows.as_rows(doc, msgspec.structs.replace(place, runners_up=[
        msgspec.structs.replace(place, paragraph_index=cells[r][0]) for r in (2, 3)]), "berths")
    assert [r.row_label for r in loc.runners_up] == ["Kirkwall", "Stromness"]
    assert len(read) == 1


def test_one_long_requirement_leaves_a_data_table_read_by_rows(tmp_path: Path) -> None:
    # a requirements table: one requirement runs past CELL_CHARS, the table is still data
    long = ("Users must be able to reset their password through a link sent to their registered e-mail "
            "address, the link expiring after thirty minutes and working once, with every reset written "
            "to the security audit log.")
    assert len(long) > CELL_CHARS
    owners = ("Platform team", "Identity team", "Billing team")
    table = [["ID", "Requirement", "Priority", "Owner"]] + [
        [f"REQ-{n:02d}", long if n == 13 else f"Requirement number {n} of the portal",
         ("High", "Medium", "Low")[n % 3], owners[n % 3]] for n in range(1, 21)]
    b = DocxBuilder()
    cells = b.table(table)
    path = tmp_path / "requirements.docx"
    path.write_bytes(b.build())
    loc = _locate(path, "priority of REQ-13", "REQ-13")
    assert loc.paragraph_index == cells[13][2]  # type: ignore[attr-defined]  # the Priority cell
    assert loc.headers == ["Priority"] and loc.row_label == "REQ-13"  # type: ignore[attr-defined]
    assert loc.quote.startswith("REQ-13: ")  # type: ignore[attr-defined]
    assert loc.quote.endswith("Priority: Medium; Owner: Identity team")  # type: ignore[attr-defined]


def test_a_phrase_one_cell_of_the_row_holds_as_written_places_the_row_on_that_cell() -> None:
    # nc16a S4: 'search "遗传性乳腺癌"' read the row right but opened it at the method cell (paragraph 12,
    # characters 0-61), the passage's longest cell, not the cell holding the words asked about
    cell = _index(MERGE, "遗传性乳腺癌")
    loc = _locate(MERGE, "遗传性乳腺癌")
    assert loc.paragraph_index == cell  # type: ignore[attr-defined]
    assert loc.highlight is not None and (loc.highlight.start, loc.highlight.end) == (0, 6)  # type: ignore[attr-defined]
    assert loc.quote.startswith("Q0101: 检测项目: 遗传性乳腺癌;") and loc.row_label == "Q0101"  # type: ignore[attr-defined]


# The passage LightRAG's engine gave for docling's word sample (its table as JSON rows), the newcomer trial's.
SAMPLE = CORPUS / "docx" / "docling__word_sample.docx"
SAMPLE_PASSAGE = (
    "## Let’s eat\nAfter we had a good day of swimming in the lake, it’s important to eat something nice\n"
    "I like to eat leaves\nHere are some interesting things a respectful duck could eat:\n"
    '<table id="tb-1" format="json">[["", "Food", "Calories per portion"], ["Leaves", "Ash, Elm, Maple", "50"], '
    '["Berries", "Blueberry, Strawberry, Cranberry", "150"], ["Grain", "Corn, Buckwheat, Barley", "200"]]</table>\n'
    "And let’s add another list in the end:\n1. Leaves\n2. Berries\n3. Grain")


def test_a_question_naming_a_row_and_a_column_is_cited_on_the_row_not_the_header() -> None:
    # The header holds the column's words for every row; the row holding the query's other words
    # (its key, "berries") is the place, on the cell under the header the query names.
    before = hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    loc = _locate(SAMPLE, "How many calories per portion do berries have?", SAMPLE_PASSAGE)
    row = _index(SAMPLE, "Berries")
    assert loc.paragraph_index == _index(SAMPLE, "150", after=row)  # type: ignore[attr-defined]
    assert loc.row_label == "Berries" and loc.headers == ["Calories per portion"]  # type: ignore[attr-defined]
    assert "150" in loc.quote and "Berries" in loc.quote  # type: ignore[attr-defined]
    assert hashlib.sha256(SAMPLE.read_bytes()).hexdigest() == before


def test_a_question_only_about_the_columns_still_cites_the_header(tmp_path: Path) -> None:
    b = DocxBuilder()
    cells = b.table([["Harbour", "Berths", "Depth at low tide"], ["Lerwick north pier", "40", "9"],
                     ["Lerwick south pier", "31", "7"], ["Kirkwall", "22", "6"]])
    path = tmp_path / "harbours.docx"
    path.write_bytes(b.build())
    evidence = "Harbour Berths Depth at low tide"
    loc = _locate(path, "Which harbour columns give berths and depth at low tide?", evidence)
    assert loc.paragraph_index in cells[0]  # type: ignore[attr-defined]
    # two rows hold the query's other word alike: neither is the one asked about, the header stays
    loc = _locate(path, "depth at low tide at Lerwick", evidence)
    assert loc.paragraph_index in cells[0]  # type: ignore[attr-defined]
    loc = _locate(path, "depth at low tide at Kirkwall", evidence)
    assert loc.paragraph_index == cells[3][2] and loc.row_label == "Kirkwall"  # type: ignore[attr-defined]
