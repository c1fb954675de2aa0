"""Page layout rules: running headers and page numbers, and paragraph blocks.

Every PDF here is drawn by the test at known positions, so the truth is where the test
put the text, never the locator's own geometry.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mnote_kr_testkit.pdfs import Drawn, PdfBuilder, iou, union

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate
from mnote_kr_pdf_bbox.layout import is_page_number
from mnote_kr_pdf_bbox.pdftext import line_text, read_document

WORDS = ("river basin rainfall runoff gauge station channel storage reservoir outflow spillway sediment "
         "turbine penstock tailrace headwater catchment aquifer recharge baseflow evaporation canopy").split()


def _body(n: int, k: int) -> str:
    """A distinct body line for page ``n``, line ``k``."""
    w = [WORDS[(n * 7 + k * 3 + j) % len(WORDS)] for j in range(8)]
    return f"Page {n} line {k}: the " + " ".join(w) + " are measured here."


def _header_doc(tmp_path: Path) -> tuple[Path, dict[int, Drawn]]:
    """20 pages; a chapter header runs at the top of pages 17-19 only (too few pages for a
    share-of-the-document rule); page 2 has a lone roman page number at its top."""
    b = PdfBuilder()
    headers: dict[int, Drawn] = {}
    for n in range(1, 21):
        p = b.add_page()
        if n == 2:
            headers[n] = b.text(p, 300, 760, "iv", 9)
        if 17 <= n <= 19:
            headers[n] = b.text(p, 72, 760, "Appendix B: Copying Terms", 9)
        for k in range(30):
            b.text(p, 72, 700 - 14 * k, _body(n, k), 10)
        b.text(p, 300, 40, str(n), 9)
    f = tmp_path / "headers.pdf"
    f.write_bytes(b.build())
    return f, headers


def test_page_numbers_alone_are_recognised() -> None:
    for t in ("7", "- 7 -", "iv", "xvii", "Page 3 of 12", "7 / 12", "(ii)"):
        assert is_page_number(t), t
    for t in ("1.2", "Chapter 4", "civil", "ill", "Section 1", ""):
        assert not is_page_number(t), t


def test_running_header_on_three_pages_and_a_lone_roman_page_number_are_furniture(tmp_path: Path) -> None:
    f, headers = _header_doc(tmp_path)
    doc = read_document(f)
    for n, d in headers.items():
        pg = doc.pages[n - 1]
        marked = {line_text(pg, li).strip() for li in pg.furniture}
        assert d.text in marked, (n, marked)
    # the body's first line right under the header is not furniture
    pg = doc.pages[16]
    assert not any(line_text(pg, li).startswith("Page 17 line 0") for li in pg.furniture)


def test_running_header_is_left_out_of_a_page_crossing_passage(tmp_path: Path) -> None:
    f, headers = _header_doc(tmp_path)
    # a chunk as a text extractor gives it: the end of page 17, page 18's header, the start of page 18
    evidence = "\n".join([_body(17, 28), _body(17, 29), "18", "Appendix B: Copying Terms", _body(18, 0), _body(18, 1)])
    loc = locate(LocateRequest(file=str(f), evidence=evidence, query="copying terms appendix"))
    assert loc.locator_precision == "bbox"
    for r in loc.rects:
        assert iou(r.bbox, list(headers[r.page].box if r.page in headers else (0, 0, 0, 0))) < 0.1, r
        assert r.bbox[1] > 30, r  # nothing in the top band
    # the header is never the primary box: the passage is cited as a semantic match
    assert loc.bbox is not None and loc.bbox[1] > 60


def test_page_numbers_of_a_table_row_at_the_page_bottom_stay_text(tmp_path: Path) -> None:
    b = PdfBuilder()
    p = b.add_page()
    for k in range(10):
        b.text(p, 72, 700 - 14 * k, _body(1, k), 10)
    row = [b.text(p, x, 30, v, 9) for x, v in ((72, "3"), (200, "4"), (330, "5"))]  # a table's last row
    f = tmp_path / "table.pdf"
    f.write_bytes(b.build())
    doc = read_document(f)
    assert not doc.pages[0].furniture, [line_text(doc.pages[0], li) for li in doc.pages[0].furniture]
    assert union([d.box for d in row])[1] > 700


# --------------------------------------------------------------------------- paragraph blocks

FILLER = ("the archive member is read and written with its own header before any data block of the "
          "volume so that a later run can find where each file starts and ends on the tape or disk").split()


def _fill(start: str, width: float, size: float = 10) -> str:
    """``start`` plus filler words up to ``width`` points (short words close the gap)."""
    from mnote_kr_testkit.pdfs import text_width

    words = start.split()
    k = 0
    while True:
        fits = [w for w in FILLER[k:] + ["a", "of", "to", "is"] if text_width(" ".join([*words, w]), size) <= width]
        if not fits:
            return " ".join(words)
        words.append(fits[0])
        k = (FILLER.index(fits[0]) + 1) % len(FILLER) if fits[0] in FILLER else k


def _loc(f: Path, evidence: str, query: str):  # noqa: ANN202
    return locate(LocateRequest(file=str(f), evidence=evidence, query=query))


def test_one_line_options_apart_by_a_larger_gap_are_blocks_of_their_own(tmp_path: Path) -> None:
    b = PdfBuilder()
    p = b.add_page()
    y = 740.0
    for k in range(2):  # two wrapped paragraphs set the usual line pitch (13 pt)
        for j in range(4):
            b.text(p, 72, y, _fill(f"Paragraph {k} line {j}:", 460), 10)
            y -= 13
        y -= 8
    options = ["--keep-old-files Don't replace existing files when extracting.",
               "--keep-newer-files Don't replace files that are newer than their archive copies.",
               "--no-overwrite-dir Preserve metadata of existing directories.",
               "--overwrite-dir Overwrite metadata of existing directories when extracting.",
               "--recursive-unlink Recursively remove all files in the directory prior to extracting it.",
               "--remove-files Remove files from disk after adding them to the archive.",
               "--skip-old-files Don't replace existing files when extracting, silently skip over them.",
               "--unlink-first Remove each file prior to extracting over it."]
    drawn = []
    for t in options:  # one line each, 8 pt further apart than the lines of a paragraph
        drawn.append(b.text(p, 72, y, t, 10))
        y -= 21
    f = tmp_path / "options.pdf"
    f.write_bytes(b.build())
    loc = _loc(f, "\n".join(options), "preserve directories metadata")
    assert loc.locator_precision == "bbox" and not loc.locator_degraded
    assert iou(loc.bbox, list(drawn[2].box)) >= 0.5, loc.bbox  # the one option, not the list
    cx, cy = (drawn[3].box[0] + drawn[3].box[2]) / 2, (drawn[3].box[1] + drawn[3].box[3]) / 2
    # the other options are not boxed: the quote shows the one option (nc18a: scattered highlights)
    assert not any(r.bbox[0] <= cx <= r.bbox[2] and r.bbox[1] <= cy <= r.bbox[3] for r in loc.rects)
    loc = _loc(f, "\n".join(options), "remove disk files")
    assert iou(loc.bbox, list(drawn[5].box)) >= 0.5, loc.bbox


def test_items_of_a_tight_definition_list_are_separate_blocks(tmp_path: Path) -> None:
    b = PdfBuilder()
    p = b.add_page()
    y = 740.0
    drawn: list[list[Drawn]] = []
    heads = ["root:", "name:", "ivalue:", "len:"]
    texts = []
    for head in heads:  # two full lines per item, no extra space between the items
        lines = [_fill(f"{head} the {head[:-1]} field", 460), _fill("and then", 460)]
        texts.append(" ".join(lines))
        drawn.append([b.text(p, 90, y - 13 * j, t, 10) for j, t in enumerate(lines)])
        y -= 26
    f = tmp_path / "deflist.pdf"
    f.write_bytes(b.build())
    widths = [d.box[2] for item in drawn for d in item]
    assert max(widths) - min(widths) < 12  # precondition: every line is full, none ends early
    loc = _loc(f, "\n".join(texts), "ivalue field")
    want = union([d.box for d in drawn[2]])
    assert iou(loc.bbox, list(want)) >= 0.5, (loc.bbox, want)


def test_a_wrapped_signature_with_a_hanging_indent_is_one_block(tmp_path: Path) -> None:
    b = PdfBuilder()
    p = b.add_page()
    sig = [b.text(p, 72, 700, "int read_value (node root, const char * name,", 12),
           b.text(p, 120, 686, "void * ivalue, int * len)", 12)]
    body = [b.text(p, 96, 672, "root: pointer to a structure.", 10),
            b.text(p, 96, 658, "name: the name of the element inside a structure that you want to read.", 10),
            b.text(p, 96, 644, "ivalue: vector that will contain the element content.", 10)]
    f = tmp_path / "signature.pdf"
    f.write_bytes(b.build())
    evidence = "\n".join(d.text for d in sig + body)
    loc = _loc(f, evidence, "read_value node root ivalue len")
    assert iou(loc.bbox, list(union([d.box for d in sig]))) >= 0.5, loc.bbox  # both lines of the signature
    loc = _loc(f, evidence, "pointer structure")
    assert iou(loc.bbox, list(body[0].box)) >= 0.5, loc.bbox  # the item under it is its own block


def test_a_word_hyphenated_across_a_line_break_is_one_query_term(tmp_path: Path) -> None:
    b = PdfBuilder()
    p = b.add_page()
    first = [b.text(p, 72, 700, "Copyright holders may add terms to a covered work in", 10),
             b.text(p, 72, 687, "their own names, as long as they stay within section 7.", 10)]
    second = [b.text(p, 72, 660, "Additional terms, permissive or non-", 10),
              b.text(p, 72, 647, "permissive, may be stated in the form of a separately written license.", 10)]
    f = tmp_path / "hyphen.pdf"
    f.write_bytes(b.build())
    evidence = "\n".join(d.text for d in first + second)
    loc = _loc(f, evidence, "explain nonpermissive terms")
    assert not loc.locator_degraded and "semantic" not in (loc.locator_reason or ""), loc.locator_reason
    assert iou(loc.bbox, list(union([d.box for d in second]))) >= 0.5, loc.bbox


def test_a_hyphen_at_a_line_end_that_is_the_words_own_stays_in_the_blocks_text(tmp_path: Path) -> None:
    from mnote_kr_pdf_bbox.blocks import block_text
    from mnote_kr_pdf_bbox.pdftext import read_document

    b = PdfBuilder()
    p = b.add_page()
    b.text(p, 72, 700, "Operators must use an FAA-", 10)
    b.text(p, 72, 687, "approved program and a com-", 10)
    b.text(p, 72, 674, "mon schedule of 19-", 10)
    b.text(p, 72, 661, "year intervals at a price of 10 -", 10)
    b.text(p, 72, 648, "20 dollars for a state-of-the-", 10)
    b.text(p, 72, 635, "art check.", 10)
    f = tmp_path / "own.pdf"
    f.write_bytes(b.build())
    page = read_document(f).pages[0]
    text = block_text(page, list(range(len(page.stream)))).text
    assert "faa-approved" in text and "common schedule" in text and "19-year" in text, text
    assert "10 - 20 dollars" in text and "state-of-the-art check" in text, text  # a dash between numbers


def test_a_chinese_paragraph_whose_last_line_ends_early_is_a_block_of_its_own(tmp_path: Path) -> None:
    # Two Chinese paragraphs set flush left with no gap (as mineru__introduction.pdf prints them):
    # only the first one's short last line ends it. CJK text breaks after any character, so one
    # character would have fitted there.
    from mnote_kr_testkit.hard_pdfs import Sheet

    s = Sheet(tmp_path / "zh.pdf")
    font = s.font("STSong-Light")
    first = ["是表示有机化合物立体结构的一种方法它是沿碳键的键轴的投影以交叉",
             "的三根键表示位于前方的碳原子及其键以被一个圆挡住的三根键表示位",
             "于后方的碳原子及其键。"]
    second = ["若该碳键为重叠式构象六根键中前后两两重合则通常把后方的键稍微偏",
              "转一个角度以表示出来这样读者就能看清楚后方碳原子上的三根键的位",
              "置与方向。"]
    boxes = [s.line(72, 100 + 15 * k, line, 12, font) for k, line in enumerate(first + second)]
    s.save()
    evidence = "".join(first + second)
    loc = _loc(tmp_path / "zh.pdf", evidence, "重叠式构象")
    want = union(boxes[3:])
    assert iou(loc.bbox, list(want)) >= 0.8, (loc.bbox, want)  # the second paragraph, not both


def test_a_column_of_references_in_small_print_beside_body_text_is_not_a_table(tmp_path: Path) -> None:
    # A two-column page: the left column body text at 10 pt, the right one a list of references at
    # 8 pt, each a label and a hanging text, on the body's baselines (as pdfplumber's
    # issue-982-example.pdf, page 5). Side by side they look like table rows of three pieces.
    b = PdfBuilder()
    p = b.add_page(595, 842)
    body = ["I think we might readjust our understanding of creativity just",
            "like we adjusted our understanding of algorithmically hard",
            "problems after Deep Blue won against the reigning world",
            "chess champion Garry Kasparov in 1997."]
    drawn = [b.text(p, 41, 780 - 12 * k, line, 10) for k, line in enumerate(body)]
    refs = [("[Mit97]", ["T. M. Mitchell, Machine learning, ser. McGraw Hill series in",
                         "computer science. McGraw-Hill, 1997."]),
            ("[MOT15]", ["A. Mordvintsev, C. Olah, and M. Tyka, Inceptionism: Going",
                         "deeper into neural networks, googleresearch blog, 2015."])]
    y = 780.0
    for label, lines in refs:
        b.text(p, 320, y, label, 8)
        for line in lines:
            b.text(p, 362, y, line, 8)
            y -= 12
    f = tmp_path / "refs.pdf"
    f.write_bytes(b.build())
    loc = _loc(f, "\n".join(body), "Deep Blue chess champion")
    want = union([d.box for d in drawn])
    assert loc.bbox is not None and loc.bbox[2] < 315, loc.bbox  # nothing of the right column
    assert iou(loc.bbox, list(want)) >= 0.8, (loc.bbox, want)  # the whole paragraph


@pytest.mark.parametrize("short_beside", [False, True])
def test_three_columns_of_running_text_on_one_baseline_grid_are_not_table_rows(tmp_path: Path,
                                                                               short_beside: bool) -> None:
    # A page set in three columns (as the Federal Register prints): lines of the three columns
    # share baselines, so each height holds three pieces of text, which a table row also is.
    # ``short_beside`` (a newcomer's finding on the Federal Register): a heading of short lines in
    # the first column and a paragraph's short last lines in the third stand beside the middle
    # column's running text, so only one piece of the height is long, as in a table row; the middle
    # column's paragraph was boxed across the page with them.
    b = PdfBuilder()
    p = b.add_page(612, 792)
    xs = (45.0, 222.0, 399.0)
    short = {0: ["Federal Aviation Office", "Docket No. 39"], 2: ["your comments.", "Except in CBI"]}
    middle: list[Drawn] = []
    for col, x in enumerate(xs):
        y = 740.0
        for par in range(3):
            for k in range(5):
                if short_beside and par == 1 and k in (2, 3) and col != 1:
                    b.text(p, x, y, short[col][k - 2], 9)
                else:
                    d = b.text(p, x, y, _fill(f"Column {col} part {par} line {k} of", 160, 9), 9)
                    if col == 1 and par == 1:
                        middle.append(d)
                y -= 10
            y -= 10
    f = tmp_path / "columns.pdf"
    f.write_bytes(b.build())
    loc = _loc(f, "\n".join(d.text for d in middle), "Column 1 part 1")
    want = union([d.box for d in middle])
    assert loc.bbox is not None and xs[1] - 1 <= loc.bbox[0] and loc.bbox[2] < xs[2], loc.bbox  # one column
    assert iou(loc.bbox, list(want)) >= 0.8, (loc.bbox, want)  # the whole paragraph of it


def _jittery_letter(tmp_path: Path) -> tuple[Path, list[list[Drawn]]]:
    """Three paragraphs set as an OCR text layer sets them: one 14 pt line pitch, each line's font size
    fitted to its glyphs (10 or 11 pt in turn); a first-line indent and 8 pt more start a paragraph."""
    b = PdfBuilder()
    p = b.add_page()
    y = 740.0
    paras: list[list[Drawn]] = []
    sizes = [10, 10, 11, 10, 10, 11]
    for k in range(3):
        lines = []
        for j, size in enumerate(sizes):
            start = f"Letter paragraph {k} line {j}:" + (" the tape catalogue keeps every volume label" if
                                                          (k, j) == (1, 2) else "")
            x = 90 if j == 0 else 72
            width = 240 if j == len(sizes) - 1 else 460 - (x - 72)
            lines.append(b.text(p, x, y, _fill(start, width, size), size))
            y -= 14
        paras.append(lines)
        y -= 8
    f = tmp_path / "letter.pdf"
    f.write_bytes(b.build())
    return f, paras


def test_lines_of_one_paragraph_whose_font_sizes_jitter_stay_one_block(tmp_path: Path) -> None:
    # An OCR layer's per-line sizes (14.6 and 16.06 pt in a scanned letter) broke every paragraph at each
    # change of size: a paragraph's label was then no block of the file (issue 33, fifteenth round).
    f, paras = _jittery_letter(tmp_path)
    doc = read_document(f)
    assert len(doc.pages[0].blocks) == 3, [[line_text(doc.pages[0], li) for li in blk] for blk in doc.pages[0].blocks]
    text = "\n".join(d.text for para in paras for d in para)
    loc = _loc(f, text, "tape catalogue volume label")
    want = union([d.box for d in paras[1]])
    assert iou(loc.bbox, list(want)) >= 0.8, (loc.bbox, want)


def test_a_full_line_a_third_larger_in_the_usual_spacing_still_starts_a_block(tmp_path: Path) -> None:
    # Only a small change of size is overruled by a paragraph's spacing: a line 30% larger (a heading set
    # full width, no space around it) still starts a block, and so does the text under it.
    b = PdfBuilder()
    p = b.add_page()
    y = 740.0
    for k in range(2):  # two paragraphs set the usual 13 pt pitch
        for j in range(4):
            b.text(p, 72, y, _fill(f"Paragraph {k} line {j}:", 460), 10)
            y -= 13
        y -= 8
    head = b.text(p, 72, y, _fill("Retention of archive volumes", 460, 13), 13)
    y -= 13
    body = [b.text(p, 72, y - 13 * j, _fill(f"Body line {j}: volumes are kept", 460), 10) for j in range(3)]
    f = tmp_path / "heading.pdf"
    f.write_bytes(b.build())
    page = read_document(f).pages[0]
    blocks = [[line_text(page, li) for li in blk] for blk in page.blocks]
    assert [head.text] in blocks, blocks
    assert [d.text for d in body] in blocks, blocks
