"""Where an OCR citation lands inside the recognised text, and what it quotes: the cited line
(first) of a multi-line picture, never the image wrapper's markup; and a question asked in other
words placed on the line that answers it by meaning, as paragraphs and PDF blocks are."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from mnote_kr_testkit.pdfs import union
from mnote_kr_testkit.scans import GeneratedScan, iou, render

from mnote_kr.core.config import load_config
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import Plugins, load_plugins

NOTICE = ["Harbour notice to all tenants", "Berth fees rise to ninety euros per day",
          "from the first of March for every vessel", "moored at the outer pier or the marina",
          "Questions go to the harbour master"]


@pytest.fixture
def plugins() -> Plugins:
    return load_plugins(load_config(None))


def _squeeze(text: str) -> str:
    return "".join(ch.casefold() for ch in text if ch.isalnum())


def test_an_image_citation_quotes_its_line_first_not_the_wrapper(plugins: Plugins, tmp_path: Path) -> None:
    """A five-line notice recognised as one paragraph: a query of its second line is quoted from that
    line, then the two after it (the generator's text), never the wrapper's heading, and boxed on the
    lines it quotes (the box once held the second line alone); the chunk the provider gives is left as
    it is (context)."""
    from mnote_kr_lightrag.client import links

    notice: GeneratedScan = render(NOTICE, dpi=150, pt=14, page_inches=(6.0, 2.6), margin_inches=0.3,
                                   line_spacing=1.35)
    path = notice.save(tmp_path / "notice.png")
    recognised = plugins.extract_text(str(path)) or ""
    chunk = links.wrapper_text(path, "notice.png", path.stat().st_size, recognised)  # what LightRAG indexes
    assert "## Text in the image" in chunk
    loc = plugins.locate(LocateRequest(file=str(path), evidence=chunk, passage=chunk, query="ninety euros per day"))
    quoted_box = list(union([notice.lines[k].box for k in (1, 2, 3)]))
    assert loc.locator_precision == "bbox" and iou(loc.bbox or [], quoted_box) >= 0.5, loc
    assert loc.quote is not None and "\n" not in loc.quote  # one text (nc26a: a "\n" inside the displayQuote)
    assert _squeeze(loc.quote) == _squeeze(" ".join(NOTICE[1:4])), loc.quote
    assert "Text in the image" not in loc.quote and "#" not in loc.quote


#: A recorded recognition of a harbour notice board (text, box in pixels, confidence): one line a
#: paragraph, as RapidOCR reads a board of short notices.
RECORDED = [("Harbour office notice board", [40, 30, 400, 60], 0.98),
            ("Cranes stay parked whenever gusts pass forty knots", [40, 80, 560, 110], 0.97),
            ("Visitors report to the harbour office on arrival", [40, 130, 560, 160], 0.98),
            ("Fishing boats unload at the north quay before dawn", [40, 180, 560, 210], 0.96)]


def test_a_question_in_other_words_lands_on_the_answering_line_by_meaning(
        plugins: Plugins, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's recorded lines are queued at ingest's preparation and embedded; a question that
    shares no word with the answer ("lifting gear", "wind" for "cranes", "gusts") is placed on the
    crane line by meaning, with its cosine, as an approximate place (its words do not anchor it; a
    question holding the line's words is exact); with the meaning weight at 0 it is not."""
    from mnote_kr_ocr import scan
    from mnote_kr_ocr.scan import Line, Page, Scan

    from mnote_kr.citations.rank import meaning

    path = render(["board"], dpi=72, page_inches=(8.0, 4.0)).save(tmp_path / "board.png")
    page = Page(number=1, width=576.0, height=288.0, unit="px", source="ocr",
                lines=[Line(text=t, box=[float(v) for v in b], score=s) for t, b, s in RECORDED],
                paragraphs=[[0], [1], [2], [3]])
    record = Scan(pages=[page])
    scan._store().put(scan._key(hashlib.sha256(path.read_bytes()).hexdigest()), record.to_json())
    scan._memo.clear()
    monkeypatch.setattr(meaning, "_queue", [])  # only this file's lines (other tests' ingests queue theirs)
    assert plugins.prepare_locate(str(path)) is False  # the record answers: nothing recognised
    said: list[str] = []
    assert meaning.embed_queued(said.append) == 1 and said[-1].startswith("embedding places: 4/4 paragraphs in "), said
    text = record.markdown()
    question = "When must the lifting gear stop because of the wind?"
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query=question))
    assert loc.bbox == [float(v) for v in RECORDED[1][1]], loc
    assert loc.meaning_score is not None and "meaning" in (loc.reason or "")
    assert loc.quote == RECORDED[1][0]
    # chosen by meaning, none of the question's words on the line: a guess, said approximate (a newcomer's
    # "病人的血压是多少？" was boxed on the breathing-rate line as an "exact box")
    assert loc.locator_degraded and "approximate" in (loc.reason or ""), loc
    worded = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text,
                                          query="When do the cranes stay parked?"))
    assert worded.bbox == [float(v) for v in RECORDED[1][1]] and not worded.locator_degraded, worded
    monkeypatch.setattr(meaning, "MEANING_WEIGHT", 0.0)
    words_only = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query=question))
    assert words_only.bbox != [float(v) for v in RECORDED[1][1]], words_only


#: ``docling__ocr_test.pdf`` page 1 as RapidOCR recognised it (text, box in points, confidence): one
#: paragraph of three lines, recorded from ``scan`` on the corpus file.
OCR_TEST = [("Docling bundles PDF document conversion to", [72.74, 75.55, 505.36, 96.77], 0.998),
            ("JSON and Markdown in an easy self contained", [71.05, 102.71, 505.79, 123.93], 0.984),
            ("package", [71.05, 130.3, 152.67, 154.06], 0.998)]


@pytest.mark.parametrize(("query", "lines"), [("Docling JSON Markdown", [0, 1, 2]), ("JSON and Markdown", [1, 2]),
                                               ("PDF document conversion", [0, 1, 2])])
def test_a_scanned_pdf_citation_boxes_the_lines_it_quotes(plugins: Plugins, tmp_path: Path, query: str,
                                                          lines: list[int]) -> None:
    """The OCR'd corpus PDF (its recorded recognition, one sentence over three lines): a query matching
    lines 1-2 is quoted from line 1 ("Docling bundles ...": the answer starts there), one matching line 2
    from line 2, each with the lines that finish its sentence ("... conversion to / JSON ..." goes on,
    "package" opens in lowercase); and the box is the union of exactly the lines quoted, ``rects`` that box
    alone. Before, the quote began at the matched line with most query words, with the two after it,
    and the box covered the matched lines: lines 2-3 quoted and lines 1-2 boxed, or line 2 alone boxed."""
    import shutil

    from mnote_kr_ocr import scan
    from mnote_kr_ocr.scan import Line, Page, Scan
    from mnote_kr_testkit.data import CORPUS

    source = CORPUS / "pdf" / "docling__ocr_test.pdf"
    path = tmp_path / source.name
    shutil.copy2(source, path)
    page = Page(number=1, width=595.44, height=842.04, unit="pt", source="ocr",
                lines=[Line(text=t, box=b, score=s) for t, b, s in OCR_TEST], paragraphs=[[0, 1, 2]])
    scan._store().put(scan._key(hashlib.sha256(path.read_bytes()).hexdigest()), Scan(pages=[page]).to_json())
    scan._memo.clear()
    text = Scan(pages=[page]).markdown()
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query=query))
    assert loc.locator_plugin == "ocr" and loc.locator_precision == "bbox" and loc.page == 1, loc
    assert loc.quote == " ".join(OCR_TEST[k][0] for k in lines), loc.quote  # one text, a space at each break
    assert loc.bbox == list(union([OCR_TEST[k][1] for k in lines])), loc.bbox
    # the paragraph's lines the quote leaves out are not boxed either (nc18a Q16: 7 more rects over neighbouring
    # lines, drawn lighter in the viewer): the rectangles mark only what the quote shows
    assert [(r.page, r.bbox) for r in loc.rects] == [(1, loc.bbox)], loc.rects
    assert path.read_bytes() == source.read_bytes()


def test_a_sentence_running_over_two_lines_is_ranked_by_all_its_words(
        plugins: Plugins, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """nc16c O5: on page 6 of the OCR'd Chinese book (its recorded recognition) the question "商品中包含的劳动的
    二重性是谁首先明确指出的？" was boxed on the heading "2.商品所体现的劳动的二重性" (35% of its words, nearest by
    meaning), as an approximate place, though the sentence three lines lower holds 80% of them: "…商品中包含的劳动
    / 的这种二重性，是首先由我明确指出的。" runs over two lines, each holding 40%. A line is ranked by its words
    with the line that finishes its sentence (the lines it is quoted with): the sentence's lines are boxed."""
    import json

    from mnote_kr_ocr import scan
    from mnote_kr_ocr.scan import Line, Page, Scan
    from mnote_kr_testkit.data import DATA

    from mnote_kr.citations.rank import meaning

    raw = json.loads((Path(__file__).parent / "data" / "small_ocr_p6.json").read_text("utf-8"))
    record = Scan(pages=[Page(number=1, width=raw["width"], height=raw["height"], unit="px", source="ocr",
                              lines=[Line(text=r[0], box=r[1:5], score=r[5]) for r in raw["lines"]],
                              paragraphs=raw["paragraphs"])])
    path = render(["small ocr page 6"], dpi=72, page_inches=(4.0, 2.0)).save(tmp_path / "page6.png")
    scan._store().put(scan._key(hashlib.sha256(path.read_bytes()).hexdigest()), record.to_json())
    scan._memo.clear()
    monkeypatch.setattr(meaning, "_queue", [])
    plugins.prepare_locate(str(path))
    meaning.embed_queued(lambda line: None)
    chunk = json.loads((DATA / "lightrag" / "nc16c_chunks.json").read_text("utf-8"))["mineru__small_ocr.pdf"]["008"]
    loc = plugins.locate(LocateRequest(file=str(path), evidence=chunk, passage=chunk,
                                       query="商品中包含的劳动的二重性是谁首先明确指出的？"))
    page = record.pages[0]
    assert loc.quote is not None and "商品中包含的劳动的这种二重性，是首先由我明确指出的。" in loc.quote, loc
    # quoted from the sentence's first line on; the footnote recognised in the same paragraph after it ("（11）卡尔·
    # 马克思…") does not go on with the unfinished "这一点是政治经济学" (it opens with a note's mark): not quoted
    assert loc.quote == page.lines[22].text + page.lines[23].text, loc.quote
    assert loc.bbox == list(union([page.lines[22].box, page.lines[23].box])), loc
    assert not loc.locator_degraded, loc.reason
