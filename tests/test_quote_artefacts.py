"""Quotes without the artefacts of a PDF's text layer (nc18a problem 6), read as LightRAG 1.5.7's legacy
PDF parser reads the corpus files (pypdf, page by page).

* A reference's number after its noun's stray full stop ("presented in Table. 2. It is clearly evident",
  docling's paper) ends that sentence; it is no list marker of the next, whose quote began "2. It is".
* A symbol font's bullet at a line's start (Wingdings' ``l``, U+F06C, before each point of a Chinese
  research report) shows as the bullet it draws, not as a private-use box.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mnote_kr.citations.cleaning import clean_citation_text, display_text
from mnote_kr.citations.cleaning.quote import answer_quote, sentences

CORPUS = Path(__file__).resolve().parent / "data" / "corpus" / "pdf"
OTSL = CORPUS / "docling__2305.03393v1-pg9.pdf"
REPORT = CORPUS / "mineru__test_rearch_report.pdf"
CHELSEA = CORPUS / "pdfplumber__chelsea_pdta.pdf"  # Wingdings' ✓ ➢ ▪ (U+F0FC, U+F0D8, U+F0A7) open its points


def lightrag_reads(path: Path, pages: int | None = None) -> str:
    from pypdf import PdfReader

    return "".join(page.extract_text() + "\n" for page in PdfReader(path).pages[:pages])


def _quote(text: str, query: str) -> str:
    return answer_quote(clean_citation_text(text, query).display_quote, query)


@pytest.mark.parametrize(("query", "opening"), [
    ("OTSL outperforms HTML across the board", "It is clearly evident that the model trained on OTSL"),
    ("evident OTSL same TED score as HTML", "It is evident that with OTSL, our model achieves the same TED"),
])
def test_a_tables_number_after_a_stray_full_stop_ends_its_sentence(query: str, opening: str) -> None:
    text = lightrag_reads(OTSL)
    assert "presented in Table. 2. It is clearly evident" in text and "in Table. 1. It is" in text
    assert _quote(text, query).startswith(opening)


def test_a_reference_number_stays_with_its_noun_and_list_markers_still_go_forward() -> None:
    text = "Results are in Table. 2. It is clear. See Section. 3. Steps: 1. Open it. 2. Close the table. 3. Go."
    said = [text[a:b] for a, b in sentences(text)]
    assert said == ["Results are in Table. 2.", "It is clear.", "See Section. 3.", "Steps:",
                    "1. Open it.", "2. Close the table.", "3. Go."]
    # a capital's sentence end before a number that opens the next sentence stays an end
    assert [text[a:b] for text in ["We sat at the Table. 20 guests came."] for a, b in sentences(text)] == [
        "We sat at the Table.", "20 guests came."]


def test_a_wingdings_bullet_at_a_line_start_shows_as_a_bullet() -> None:
    text = lightrag_reads(REPORT, 1)
    assert "\n\uf06c 事件：" in text
    query = "金刚线项目一期总投资额是多少？"
    shown = clean_citation_text(text, query).display_quote
    assert "\uf06c" not in shown and "• 事件：公司拟与壶关县人民政府签署" in shown
    assert display_text("\uf06c 事件：预计一期总投资额约 6.66 亿元") == "• 事件：预计一期总投资额约 6.66 亿元"
    plan = lightrag_reads(CHELSEA)
    assert all(f"\n{ch} " in plan for ch in "\uf0fc\uf0d8\uf0a7")
    assert not re.search("[\ue000-\uf8ff]", display_text(plan))


@pytest.mark.parametrize(("text", "shown"), [
    ("where \uf06c is the wavelength", "where \u03bb is the wavelength"),  # mid-line: the Symbol font's λ
    ("\uf06c= c / f", "\u03bb= c / f"),  # a line's start, no space after: a variable, not a bullet
    # no symbol font's: never a box, marked with the geta mark (review r28 finding 5: it was dropped)
    ("\ue000 private use of a font's own", "\u3013 private use of a font's own"),
])
def test_other_private_use_characters_show_as_the_symbol_fonts_or_marked(text: str, shown: str) -> None:
    assert display_text(text) == shown


def test_a_lone_bullet_at_a_quotes_end_is_dropped_and_one_opening_an_item_stays() -> None:
    """nc25c: WeKnora's points each ended with the next point's bullet, set on their last line by the text
    layer ("…因此跳过了此步骤。 ●"); a quote ends on its own words. A bullet opening a line, or a bullet
    character inside the words, is the text's."""
    quote = display_text("操作: 这意味着系统配置了重排序步骤，但没有指定具体的重排序模型，因此跳过了此步骤。 ●")
    assert quote.endswith("因此跳过了此步骤。"), quote
    assert display_text("The steps are done. •").endswith("The steps are done.")
    listed = display_text("● first point of the plan\n● second point of the plan")
    assert listed.startswith("●") and listed.count("●") == 2, listed
    assert display_text("rated ● of 5 stars by reviewers").count("●") == 1
