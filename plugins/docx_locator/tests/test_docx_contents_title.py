"""A table of contents' title heads the contents, not the body after them (nc28a F6).

tika__018367.docx (the DOJ FY2009 budget) styles only its contents' title as a heading ("Table of Contents", Heading
1) and types its sections ("Overview", "Program Description") in body styles: every paragraph of the body was
shown under "heading: Table of Contents". The rule (``contents``): a heading titling contents lines heads them
only; after its last contents line the title leaves the heading path.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins
from mnote_kr_docx_locator.contents import close_contents
from mnote_kr_docx_locator.document import Paragraph
from mnote_kr_docx_locator.reader import parse_docx_bytes

DOJ = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "docx" / "tika__018367.docx"
ADEQUATE = ("The RECA Program was evaluated with the Office of Management and Budget’s Program Assessment Rating "
            "Tool (PART) during FY 2006. The Program received a rating of “Adequate.”")


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _paragraphs():  # noqa: ANN202 - the parsed paragraphs
    return parse_docx_bytes(DOJ.read_bytes(), str(DOJ)).paragraphs


def test_the_body_after_the_contents_is_not_under_the_contents_title() -> None:
    paras = _paragraphs()
    title = next(p for p in paras if p.heading_level)
    assert title.text == "Table of Contents" and title.heading_path == ("Table of Contents",)
    # the contents lines keep their title; the last one is "Information on Overseas Staffing\tN/A"
    toc = [p for p in paras if p.in_toc]
    assert toc and all(p.heading_path == ("Table of Contents",) for p in toc)
    after = [p for p in paras if p.index > toc[-1].index and p.text.strip()]
    assert after and all("Table of Contents" not in p.heading_path for p in after), \
        [(p.index, p.heading_path) for p in after if p.heading_path][:3]
    assert next(p for p in paras if p.text.startswith("The RECA Program was evaluated")).heading_path == ()


def test_the_located_place_shows_no_contents_title_as_its_heading() -> None:
    before = hashlib.sha256(DOJ.read_bytes()).digest()
    loc = load_plugins(None).locate(LocateRequest(
        file=str(DOJ), evidence=ADEQUATE, passage=ADEQUATE,
        query="Which grade did the budget office give the compensation program in its assessment?"))
    assert loc is not None and loc.paragraph_index == 144, (loc.paragraph_index if loc else None)
    assert "Table of Contents" not in (loc.place_headings or []), loc.place_headings
    assert hashlib.sha256(DOJ.read_bytes()).digest() == before


def _doc(*rows: tuple[str, int, bool]) -> list[Paragraph]:
    """Paragraphs as the walk leaves them: (text, heading level, contents line), each under the last heading."""
    out: list[Paragraph] = []
    path: tuple[str, ...] = ()
    for i, (text, level, toc) in enumerate(rows):
        if level:
            path = (*path[:level - 1], text)
        out.append(Paragraph(index=i, text=text, heading_path=path, heading_level=level, in_toc=toc))
    return out


def test_a_section_whose_words_only_look_like_contents_keeps_its_heading() -> None:
    """A heading over body text is no contents title, though a line with a tab and a page-like number
    ("Total\t5", a contents line by its shape) stands far down in it; a "Contents" heading with no contents line
    under it titles nothing either: both keep their sections."""
    body = [(f"Body sentence number {k} of the section, said at some length.", 0, False) for k in range(6)]
    paras = _doc(("Introduction", 1, False), *body, ("Total\t5", 0, True), *body)
    close_contents(paras)
    assert all(p.heading_path == ("Introduction",) for p in paras)
    paras = _doc(("Contents", 1, False), *body)
    close_contents(paras)
    assert all(p.heading_path == ("Contents",) for p in paras)


def test_the_title_leaves_the_path_of_a_subsection_after_the_contents() -> None:
    paras = _doc(("目录", 1, False), ("1 范围\t1", 0, True), ("2 术语\t3", 0, True),
                 ("1 范围", 2, False), ("本标准规定了定期安全审查的要求。", 0, False))
    close_contents(paras)
    assert [p.heading_path for p in paras] == [("目录",), ("目录",), ("目录",), ("1 范围",), ("1 范围",)]


def _made(*blocks: tuple[str, str]) -> bytes:
    """A DOCX made with python-docx: (style, text) paragraphs, "Heading 1" a heading."""
    import io

    import docx

    made = docx.Document()
    for style, text in blocks:
        if style.startswith("Heading"):
            made.add_heading(text, level=int(style.split()[-1]))
        else:
            made.add_paragraph(text)
    buf = io.BytesIO()
    made.save(buf)
    return buf.getvalue()


def test_a_heading_over_lines_of_a_label_a_tab_and_a_number_keeps_its_body() -> None:
    """review r29 finding 2: "Weight<tab>5" has the shape of a typed contents line; under a heading without a contents
    name, such lines made it a contents title and its body lost the heading. Only Word's TOC styles or field make an
    unnamed heading a contents title."""
    data = _made(("Heading 1", "Specifications"), ("Normal", "Weight\t5"), ("Normal", "Height\t12"),
                 ("Normal", "The device is rated for outdoor use in rain and snow."),
                 ("Normal", "Its housing is sealed to IP67."), ("Heading 1", "Warranty"),
                 ("Normal", "Two years from purchase."))
    paras = parse_docx_bytes(data, "/tmp/specs.docx").paragraphs
    body = [p for p in paras if p.text.startswith(("The device", "Its housing"))]
    assert len(body) == 2 and all(p.heading_path == ("Specifications",) for p in body), \
        [(p.text, p.heading_path) for p in body]
    assert next(p for p in paras if p.text == "Two years from purchase.").heading_path == ("Warranty",)
    # a heading naming its contents still titles typed contents lines only
    data = _made(("Heading 1", "Contents"), ("Normal", "Scope\t1"), ("Normal", "Terms\t3"),
                 ("Normal", "This standard sets the review's requirements."))
    paras = parse_docx_bytes(data, "/tmp/std.docx").paragraphs
    assert next(p for p in paras if p.text.startswith("This standard")).heading_path == ()


def test_an_unnamed_heading_titles_word_contents_but_a_chapter_keeps_its_own_contents() -> None:
    """Word's TOC lines (``word_toc``) under an unnamed heading make it a contents title; a chapter heading whose
    Word mini-TOC lists the subsections styled after it heads them still."""
    paras = _doc(("Overview of this report", 1, False), ("Budget\t2", 0, True), ("Staff\t4", 0, True),
                 ("The budget grew by a tenth.", 0, False))
    close_contents(paras, word_toc={1, 2})
    assert paras[3].heading_path == ()
    paras = _doc(("Overview of this report", 1, False), ("Budget\t2", 0, True), ("Staff\t4", 0, True),
                 ("The budget grew by a tenth.", 0, False))
    close_contents(paras)  # typed lines only: no contents title
    assert paras[3].heading_path == ("Overview of this report",)
    paras = _doc(("Chapter 2 Pumps", 1, False), ("2.1 Seals\t7", 0, True), ("2.2 Bearings\t9", 0, True),
                 ("2.1 Seals", 2, False), ("Seals are replaced yearly.", 0, False))
    close_contents(paras, word_toc={1, 2})
    assert paras[4].heading_path == ("Chapter 2 Pumps", "2.1 Seals")
