"""Chart data read from the chart part's cached values: on docling's chart deck (whose 3-D bar chart
python-pptx's chart API refuses), checked against the chart XML opened here with the standard library
and against docling's ground truth, not against the reader; and on hand-written chart XML for the
cases the deck lacks (no cache, a scatter, percentages, a huge series)."""

from __future__ import annotations

import hashlib
import json
import posixpath
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus"
DECK = CORPUS / "pptx" / "docling__pptx_chart.pptx"
NS = {"c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
      "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
      "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
      "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
      "rel": "http://schemas.openxmlformats.org/package/2006/relationships"}
SPACE = ('<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" '
         'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><c:chart><c:plotArea>{}'
         '</c:plotArea></c:chart></c:chartSpace>')


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def xml_points(slide: int) -> dict[str, dict[str, str]]:
    """``{category: {series: value}}`` of the chart on ``slide``, read straight from the zip: the slide's
    chart relationship, then each ``c:ser``'s cached ``c:tx``, ``c:cat`` and ``c:val`` points."""
    with zipfile.ZipFile(DECK) as z:
        rels = ET.fromstring(z.read(f"ppt/slides/_rels/slide{slide}.xml.rels"))
        (target,) = [r.get("Target") for r in rels.findall("rel:Relationship", NS)
                     if r.get("Type", "").endswith("/chart")]
        space = ET.fromstring(z.read(posixpath.normpath(posixpath.join("ppt/slides", target))))
    out: dict[str, dict[str, str]] = {}
    for ser in space.iter(f"{{{NS['c']}}}ser"):
        name = ser.find("c:tx//c:pt/c:v", NS).text  # type: ignore[union-attr]
        cats = [v.text for v in ser.findall("c:cat//c:pt/c:v", NS)]
        vals = [v.text for v in ser.findall("c:val//c:pt/c:v", NS)]
        for cat, val in zip(cats, vals, strict=True):
            out.setdefault(cat or "", {})[name or ""] = val or ""
    return out


def chart_text(slide: int) -> list[str]:
    from mnote_kr_pptx_locator.reader import load_pptx

    return [p.text for p in load_pptx(DECK).paragraphs if p.slide == slide and p.kind == "chart"]


def test_python_pptx_chart_api_refuses_the_3d_chart_the_reader_reads() -> None:
    from pptx import Presentation

    frame = [s for s in Presentation(str(DECK)).slides[1].shapes if s.has_chart][0]
    with pytest.raises(ValueError, match="unsupported plot type .*bar3DChart"):
        frame.chart.plots[0]  # noqa: B018
    assert chart_text(2) == ["2026", "Q1: 10", "Q2: 20", "Q3: 30"]  # one series "2026": its name heads it


def test_each_category_line_holds_every_series_value_the_chart_xml_caches() -> None:
    before = hashlib.sha256(DECK.read_bytes()).digest()
    for slide in (1, 2):
        points, lines = xml_points(slide), chart_text(slide)
        assert len(lines) == len(points) + 1  # a head, then a line per category
        for cat, values in points.items():
            (line,) = [x for x in lines if x.startswith(f"{cat}: ")]
            for series, value in values.items():
                assert (f"{series} {value}" if len(values) > 1 else f"{cat}: {value}") in line, (slide, line)
    assert xml_points(1)["2021"] == {"Freshwater Ducks": "150", "Saltwater Ducks": "110"}  # read by eye from the XML
    assert chart_text(1)[0] == "Wild Duck Observations by Year"
    assert hashlib.sha256(DECK.read_bytes()).digest() == before


def test_chart_lines_sit_on_the_chart_frame_where_docling_draws_the_chart(plugins) -> None:  # type: ignore[no-untyped-def]
    truth = json.loads((CORPUS / "groundtruth" / "docling" / f"{DECK.name}.json").read_text(encoding="utf-8"))
    pic = truth["pictures"][0]
    b = pic["prov"][0]["bbox"]
    cells = pic["meta"]["tabular_chart"]["chart_data"]["table_cells"]
    header = {c["start_col_offset_idx"]: c["text"] for c in cells if c["start_row_offset_idx"] == 0}
    row = {c["start_col_offset_idx"]: c["text"] for c in cells if c["start_row_offset_idx"] == 3}  # docling's 2021 row
    evidence = "Chart: Wild Duck Observations by Year\n\n" + "\n\n".join(chart_text(1)[1:])
    loc = plugins.locate(LocateRequest(file=str(DECK), evidence=evidence,
                                       query=f"How many {header[2].lower()} were observed in {row[0]}?"))
    assert (loc.locator_precision, loc.slide, loc.shape_id, loc.shape_name, loc.speaker_notes) == (
        "slide", pic["prov"][0]["page_no"], 3, "Chart 2", False)
    assert loc.bbox == [b["l"], min(b["t"], b["b"]), b["r"], max(b["t"], b["b"])]
    # the asked point's line first, the chart's title after it (``chartquote.point_quote``)
    assert loc.quote is not None and loc.quote.startswith(f"{row[0]}: {header[1]} {row[1]}, {header[2]} {row[2]}")
    assert loc.quote.endswith("(Wild Duck Observations by Year)"), loc.quote


def test_extracted_text_marks_each_chart_once(plugins) -> None:  # type: ignore[no-untyped-def]
    text = plugins.extract_text(str(DECK))
    assert "# Quarterly Duck Survey\n\nChart: Wild Duck Observations by Year\n\n2019: Freshwater Ducks 120" in text
    assert "# Quarterly revenue\n\nChart: 2026\n\nQ1: 10\n\nQ2: 20" in text
    assert text.count("Chart: ") == 2


def lines(plot: str) -> list[str]:
    from mnote_kr_pptx_locator.charts import chart_lines

    return chart_lines(etree.fromstring(SPACE.format(plot)))


def test_a_series_without_cached_values_is_skipped() -> None:
    bare = '<c:ser><c:tx><c:v>Ghost</c:v></c:tx><c:val><c:numRef><c:f>Sheet1!$B$2:$B$3</c:f></c:numRef></c:val></c:ser>'
    kept = ('<c:ser><c:tx><c:v>Kept</c:v></c:tx><c:val><c:numLit><c:ptCount val="1"/><c:pt idx="0"><c:v>7</c:v>'
            '</c:pt></c:numLit></c:val></c:ser>')
    assert lines(f"<c:lineChart>{bare}</c:lineChart>") == []
    assert lines(f"<c:lineChart>{bare}{kept}</c:lineChart>") == ["Kept", "1: 7"]  # no category: the point's number


def test_a_scatter_reads_x_and_y_and_percentages_read_as_percent() -> None:
    ser = ('<c:ser><c:tx><c:v>Tide</c:v></c:tx><c:xVal><c:numLit><c:pt idx="0"><c:v>6.5</c:v></c:pt></c:numLit>'
           '</c:xVal><c:yVal><c:numLit><c:formatCode>0%</c:formatCode><c:pt idx="0"><c:v>0.25</c:v></c:pt>'
           '</c:numLit></c:yVal></c:ser>')
    assert lines(f"<c:scatterChart>{ser}</c:scatterChart>") == ["Tide", "6.5: 25%"]


def test_a_huge_series_is_read_to_the_budget() -> None:
    from mnote_kr_pptx_locator.charts import MAX_POINTS

    pts = "".join(f'<c:pt idx="{i}"><c:v>{i}</c:v></c:pt>' for i in range(MAX_POINTS + 500))
    got = lines(f"<c:areaChart><c:ser><c:val><c:numCache>{pts}</c:numCache></c:val></c:ser></c:areaChart>")
    assert got[0] == "Series 1" and len(got) == MAX_POINTS + 1 and got[-1] == f"{MAX_POINTS}: {MAX_POINTS - 1}"


def test_charts_past_the_decks_budget_are_left_out_not_the_deck(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    from mnote_kr_pptx_locator import reader

    monkeypatch.setattr(reader, "MAX_CHART_LINES", 6)  # chart 1 has 5 lines, chart 2 has 4
    copy = tmp_path / DECK.name
    copy.write_bytes(DECK.read_bytes())
    doc = reader.parse_file(str(copy), copy.stat())
    assert [p.slide for p in doc.paragraphs if p.kind == "chart"] == [1] * 5
    assert [p.text for p in doc.paragraphs if p.slide == 2] == ["Quarterly revenue"]


def test_a_chart_linked_as_external_is_passed_over_not_the_deck(tmp_path: Path) -> None:
    """A chart relationship marked ``TargetMode="External"`` makes python-pptx raise ValueError: the
    deck's other text is still read (the chart has no values here to read)."""
    from mnote_kr_pptx_locator import reader

    copy = tmp_path / "external.pptx"
    with zipfile.ZipFile(DECK) as src, zipfile.ZipFile(copy, "w") as out:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "ppt/slides/_rels/slide1.xml.rels":
                rels = etree.fromstring(data)
                for rel in rels:
                    if rel.get("Type", "").endswith("/chart"):
                        rel.set("TargetMode", "External")
                data = etree.tostring(rels, xml_declaration=True, encoding="UTF-8", standalone=True)
            out.writestr(item, data)
    doc = reader.parse_file(str(copy), copy.stat())
    assert not [p for p in doc.paragraphs if p.slide == 1 and p.kind == "chart"]
    assert [p.text for p in doc.paragraphs if p.kind == "chart" and p.slide == 2] == chart_text(2)
    assert chart_text(2)  # the other slide's chart is read as from the original deck


def _pts(*values: str) -> str:
    return "".join(f'<c:pt idx="{i}"><c:v>{v}</c:v></c:pt>' for i, v in enumerate(values))


def test_a_date_axis_reads_as_dates_not_day_numbers() -> None:
    """A time-series chart caches its categories as spreadsheet day numbers with a date format: 43466 is
    1 January 2019 (days since 30 December 1899; since 1 January 1904 with ``c:date1904``)."""
    ser = ('<c:ser><c:tx><c:v>Rain</c:v></c:tx><c:cat><c:numRef><c:numCache><c:formatCode>yyyy\\-mm\\-dd'
           f'</c:formatCode>{_pts("43466", "43497")}</c:numCache></c:numRef></c:cat>'
           f'<c:val><c:numLit>{_pts("1.5", "2")}</c:numLit></c:val></c:ser>')
    assert lines(f"<c:lineChart>{ser}</c:lineChart>") == ["Rain", "2019-01-01: 1.5", "2019-02-01: 2"]
    space = etree.fromstring(SPACE.format(f"<c:lineChart>{ser}</c:lineChart>").replace(
        "<c:chart>", '<c:date1904 val="1"/><c:chart>'))
    from mnote_kr_pptx_locator.charts import chart_lines

    assert chart_lines(space)[1] == "2023-01-02: 1.5"


def test_multi_level_categories_keep_their_outer_labels() -> None:
    """Quarters under years: each quarter's line says its year (``2019 Q1``), not four lines named Q1/Q2."""
    cat = ('<c:cat><c:multiLvlStrRef><c:multiLvlStrCache><c:ptCount val="4"/>'
           f'<c:lvl>{_pts("Q1", "Q2", "Q1", "Q2")}</c:lvl>'
           '<c:lvl><c:pt idx="0"><c:v>2019</c:v></c:pt><c:pt idx="2"><c:v>2020</c:v></c:pt></c:lvl>'
           '</c:multiLvlStrCache></c:multiLvlStrRef></c:cat>')
    ser = (f'<c:ser><c:tx><c:v>Sales</c:v></c:tx>{cat}<c:val><c:numLit>{_pts("1", "2", "3", "4")}</c:numLit>'
           '</c:val></c:ser>')
    assert lines(f"<c:barChart>{ser}</c:barChart>") == ["Sales", "2019 Q1: 1", "2019 Q2: 2", "2020 Q1: 3",
                                                        "2020 Q2: 4"]
