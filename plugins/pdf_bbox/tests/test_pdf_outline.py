"""A PDF citation's section, read from the PDF's outline (bookmarks): ``outline`` and the locator's
``place_headings``."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfs import PdfBuilder, cid_font_pdf, with_outline

from mnote_kr.plugin_api import LocateRequest
from mnote_kr_pdf_bbox import model
from mnote_kr_pdf_bbox.locator import locate_pdf
from mnote_kr_pdf_bbox.outline import clean_title, section
from mnote_kr_pdf_bbox.pdftext import line_text, read_document

LATEX = CORPUS / "pdf" / "pypdf__pdflatex-outline.pdf"

PARA_A = "Icing sensors on the nacelle report the rime thickness every ten minutes."
PARA_B = "Blade heating kept the power loss below five percent on every turbine in the park."
PARA_C = "The heaters drew their power from the grid while the turbines stood still in calm frost."
PARA_D = "Maintenance crews climbed the towers twice each winter to check the heating mats."


def _turbines() -> bytes:
    """Two pages: "Chapter One" with "Section 1.1" on page 1, running on into page 2, then "Chapter Two"."""
    p = PdfBuilder()
    one, two = p.add_page(), p.add_page()
    p.text(one, 72, 720, "Chapter One", size=16)
    p.text(one, 72, 690, PARA_A, size=10)
    p.text(one, 72, 600, "Section 1.1", size=13)
    p.text(one, 72, 575, PARA_B, size=10)
    p.text(two, 72, 720, PARA_C, size=10)
    p.text(two, 72, 500, "Chapter Two", size=16)
    p.text(two, 72, 470, PARA_D, size=10)
    return p.build()


NESTED = [("Chapter One", 0, 740.0, [("Section 1.1", 0, 618.0, [])]),
          ("Chapter\x00 Two\n", 1, 520.0, []),
          ("Appendix", None, 700.0, [])]  # a destination on a page the document does not have


@pytest.fixture(autouse=True)
def _fresh() -> None:
    model.clear_cache()


def _block_starting(doc, page: int, text: str) -> int:  # noqa: ANN001 - a DocumentText
    pg = doc.pages[page]
    found = [bi for bi, blk in enumerate(pg.blocks) if line_text(pg, blk[0]).strip().startswith(text)]
    assert found, f"no block starts with {text!r} on page {page + 1}"
    return found[0]


def test_pdflatex_outline_gives_each_block_the_section_it_is_printed_under() -> None:
    # Read from the PDF (pdftotext): page 1 is the table of contents; page 2 prints "1 Foo", "2 Bar",
    # "3 Baz" and "4 Foo", each with a paragraph; "4 Foo"'s paragraph runs on to the top of page 3,
    # which then prints "5 Bar", "6 Baz", "7 Foo"; page 4 continues "7 Foo", then "8 Bar" and "9 Baz".
    # The outline's entries are the titles without numbers, one level.
    before = hashlib.sha256(LATEX.read_bytes()).hexdigest()
    doc = read_document(LATEX)
    expected = {1: [("1 Foo", "Foo"), ("2 Bar", "Bar"), ("3 Baz", "Baz"), ("4 Foo", "Foo")],
                2: [("5 Bar", "Bar"), ("6 Baz", "Baz"), ("7 Foo", "Foo")],
                3: [("8 Bar", "Bar"), ("9 Baz", "Baz")]}
    for page, headings in expected.items():
        for heading, title in headings:
            bi = _block_starting(doc, page, heading)
            assert section(doc, page, bi) == [title]  # the heading itself
            assert section(doc, page, bi + 1) == [title]  # the paragraph printed under it
    assert section(doc, 2, 0) == ["Foo"]  # page 3's first lines end "4 Foo"'s paragraph
    assert section(doc, 3, 0) == ["Foo"]  # and page 4's end "7 Foo"'s
    assert section(doc, 0, _block_starting(doc, 0, "1 Foo")) == []  # the contents page: before every entry
    assert hashlib.sha256(LATEX.read_bytes()).hexdigest() == before


def _locate(path: Path, evidence: str):  # noqa: ANN202 - a Locator
    return locate_pdf(LocateRequest(file=str(path), evidence=evidence, query=evidence))


def test_nested_outline_gives_nested_paths_and_skips_a_broken_destination(tmp_path: Path) -> None:
    pdf = tmp_path / "turbines.pdf"
    pdf.write_bytes(with_outline(_turbines(), NESTED))
    assert _locate(pdf, PARA_A).place_headings == ["Chapter One"]
    assert _locate(pdf, PARA_B).place_headings == ["Chapter One", "Section 1.1"]
    # the top of page 2 is still section 1.1: the next entry starts lower on that page
    assert _locate(pdf, PARA_C).place_headings == ["Chapter One", "Section 1.1"]
    assert _locate(pdf, PARA_D).place_headings == ["Chapter Two"]  # its title cleaned of NUL and newline
    titles = [entry[0] for entry in read_document(pdf).extras["outline"]]
    assert ("Appendix",) not in titles and len(titles) == 3


def test_pdf_without_outline_leaves_the_section_to_the_provider(tmp_path: Path) -> None:
    # Headings are not guessed from font sizes: without an outline the locator does not say.
    pdf = tmp_path / "plain.pdf"
    pdf.write_bytes(_turbines())
    loc = _locate(pdf, PARA_B)
    assert loc.locator_precision == "bbox" and loc.place_headings is None


def test_outline_entries_without_a_top_count_from_the_page_top(tmp_path: Path) -> None:
    pdf = tmp_path / "fit.pdf"
    pdf.write_bytes(with_outline(_turbines(), [("First", 0, None, []), ("Second", 1, None, [])]))
    assert _locate(pdf, PARA_B).place_headings == ["First"]
    assert _locate(pdf, PARA_C).place_headings == ["Second"]


def test_page_only_entry_is_placed_at_the_heading_that_prints_its_title(tmp_path: Path) -> None:
    # A whole-page destination on page 2 whose title page 2 prints lower down: the page's first
    # paragraph still belongs to the section before.
    pdf = tmp_path / "fit2.pdf"
    pdf.write_bytes(with_outline(_turbines(), [("Chapter One", 0, None, []), ("Chapter Two", 1, None, [])]))
    assert _locate(pdf, PARA_C).place_headings == ["Chapter One"]
    assert _locate(pdf, PARA_D).place_headings == ["Chapter Two"]


def test_section_is_the_nearest_entry_above_whatever_the_outline_order(tmp_path: Path) -> None:
    # "Figures" is listed last but points above "Section 1.1" on page 1: it does not capture the
    # paragraphs printed under Section 1.1, nor page 2's top, which runs on from Section 1.1.
    pdf = tmp_path / "figures.pdf"
    pdf.write_bytes(with_outline(_turbines(), [("Chapter One", 0, 740.0, [("Section 1.1", 0, 618.0, [])]),
                                               ("Chapter Two", 1, 520.0, []), ("Figures", 0, 700.0, [])]))
    assert _locate(pdf, PARA_A).place_headings == ["Figures"]  # printed below where "Figures" points
    assert _locate(pdf, PARA_B).place_headings == ["Chapter One", "Section 1.1"]
    assert _locate(pdf, PARA_C).place_headings == ["Chapter One", "Section 1.1"]
    assert _locate(pdf, PARA_D).place_headings == ["Chapter Two"]


def test_entries_at_one_place_are_ordered_by_the_outline(tmp_path: Path) -> None:
    # A chapter and its first section pointing at the same line: the section, listed after, wins;
    # an entry pointing lower on the page, listed before them, starts where it points.
    pdf = tmp_path / "same.pdf"
    pdf.write_bytes(with_outline(_turbines(), [("Later", 0, 618.0, []),
                                               ("Part", 0, 700.0, [("Opening", 0, 700.0, [])])]))
    assert _locate(pdf, PARA_A).place_headings == ["Part", "Opening"]
    assert _locate(pdf, PARA_B).place_headings == ["Later"]
    assert _locate(pdf, PARA_C).place_headings == ["Later"]


def _two_cjk_pages(font: str, first: list[tuple[float, float, str]], second: list[tuple[float, float, str]]) -> bytes:
    import pypdf

    writer = pypdf.PdfWriter()
    for lines in (first, second):
        writer.append(pypdf.PdfReader(io.BytesIO(cid_font_pdf(lines, font=font, subtype="CIDFontType0")[0])))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


CJK = {
    "zh": ("STSong-Light", "概述", "引言", "风机叶片结冰会降低发电效率。", "引言中提到的加热系统在冬季持续运行。",
           "维护人员每年检查两次加热垫。", "叶片加热使功率损失保持在百分之五以下。"),
    "ko": ("HYSMyeongJo-Medium", "개요", "서론", "날개에 얼음이 끼면 발전 효율이 떨어진다.",
           "서론에서 말한 가열 장치는 겨울 내내 돌았다.", "정비 인력은 해마다 두 번 가열 매트를 점검했다.",
           "날개 가열로 출력 손실을 오 퍼센트 아래로 지켰다."),
}


@pytest.mark.parametrize("lang", sorted(CJK))
def test_two_character_page_only_entry_is_placed_at_its_printed_heading(tmp_path: Path, lang: str) -> None:
    # Page 2's first paragraph ends the section before and starts with the title in running text;
    # the heading "1 <title>" is printed lower down.
    font, first, title, para_a, tail, tail2, para_b = CJK[lang]
    page1 = [(72, 780, first), (72, 750, para_a)]
    outline = [(first, 0, 800.0, []), (title, 1, None, [])]
    page2 = [(72, 780, tail), (72, 762, tail2), (72, 700, f"1 {title}"), (72, 670, para_b)]
    pdf = tmp_path / "heading.pdf"
    pdf.write_bytes(with_outline(_two_cjk_pages(font, page1, page2), outline))
    doc = read_document(pdf)
    assert section(doc, 1, _block_starting(doc, 1, tail[:4])) == [first]
    assert section(doc, 1, _block_starting(doc, 1, "1 ")) == [title]
    assert section(doc, 1, _block_starting(doc, 1, para_b[:4])) == [title]
    # The title printed only in running text, or as two blocks of its own (which is the heading is not
    # known): the entry stays at the page's top.
    for lines in ([(72, 780, tail), (72, 700, para_b)], [*page2, (72, 600, title)]):
        other = tmp_path / "other.pdf"
        other.write_bytes(with_outline(_two_cjk_pages(font, page1, lines), outline))
        doc = read_document(other)
        assert section(doc, 1, 0) == [title] and section(doc, 1, 1) == [title]


def test_outline_is_kept_with_the_stored_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "1")  # the on-disk cache on, whatever the caller's environment says
    pdf = tmp_path / "turbines.pdf"
    pdf.write_bytes(with_outline(_turbines(), NESTED))
    assert model.warm_document(pdf)
    model.clear_cache()  # memory only: the next read comes from disk
    monkeypatch.setattr(model, "read_document", lambda *a: pytest.fail("read the PDF again"))
    assert section(model.load_document(pdf), 1, 1) == ["Chapter Two"]


def test_clean_title_drops_control_characters_and_collapses_spaces() -> None:
    assert clean_title("  Results\x00 and\r\n\tDiscussion\x07 ") == "Results and Discussion"
    assert len(clean_title("x" * 5000)) == 300


def test_a_short_title_whose_letters_look_like_numbering_is_still_its_heading() -> None:
    from mnote_kr_pdf_bbox.outline import _heading

    # "一般" starts with a numeral, "iv" and "it" with roman-numeral letters: the block is the title itself
    assert _heading("一般", "一般") and _heading("iv", "iv") and _heading("it", "it")
    assert _heading("一般", "第一章一般") and _heading("引言", "1引言")
    assert not _heading("引言", "引言中提到") and not _heading("一般", "般")
