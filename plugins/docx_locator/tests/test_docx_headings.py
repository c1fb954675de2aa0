"""The headings a DOCX paragraph sits under: never a table cell, and typed section titles where no
style says (a newcomer saw a contract's clause headed by its cover table's cells, "Год: 2016 > Код раздела")."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_docs import NS, DocxBuilder, package

from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator.cache import load_docx
from mnote_kr_docx_locator.headings import typed_title


@pytest.fixture(autouse=True)
def _fresh_cache():
    docx_cache.clear_cache()
    yield
    docx_cache.clear_cache()


def test_long_contract_clause_is_headed_by_its_typed_section_title_not_the_cover_tables_cells() -> None:
    doc = load_docx(CORPUS / "docx" / "poi__bug65649.docx")
    paras = doc.paragraphs
    advance = next(p for p in paras if p.text.strip() == "Авансирование не предусмотрено.")
    assert advance.heading_path == ("3. ЦЕНА КОНТРАКТА И ПОРЯДОК ОПЛАТЫ",)
    # the cover table styles its labels as headings: no cell heads anything, nor is one a heading
    cells = [p for p in paras if p.in_table]
    assert not any(p.heading_level for p in cells)
    assert paras[5].text.startswith("39") and paras[5].heading_path == ()
    assert not any("Год: 2016" in h or h == "СФППТС" for p in paras for h in p.heading_path)
    # an appendix's own line closes the technical task's sections: its cost tables sit under it
    assert paras[1356].heading_path == ("Приложение № 2.1.",)


def test_typed_numbered_titles_head_their_paragraphs_under_the_styled_heading(tmp_path: Path) -> None:
    bold = '<w:p><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">2. Terms of payment</w:t></w:r></w:p>'
    b = DocxBuilder(para_ids=False)
    b.heading("Contract", 1)
    b.para("1. SUBJECT OF THE CONTRACT")
    b.para("1.1. The contractor builds the shed.")
    b.parts.append(bold)
    b.count += 1
    b.para("2.1. The client pays in 30 days.")
    b.para("2.2. Payment terms")  # neither capitals nor bold: a clause, not a title
    b.para("No advance is paid.")
    b.heading("Annexes", 1)
    b.para("The annexes follow.")
    doc = load_docx(_write(tmp_path, b))
    paths = [p.heading_path for p in doc.paragraphs]
    assert paths[2] == ("Contract", "1. SUBJECT OF THE CONTRACT")
    assert paths[4] == paths[6] == ("Contract", "2. Terms of payment")
    assert paths[8] == ("Annexes",)  # a styled heading closes the typed titles
    assert [p.heading_level for p in doc.paragraphs][1:7] == [0] * 6


def test_a_heading_styled_table_cell_heads_nothing(tmp_path: Path) -> None:
    cell = '<w:tc><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Year: 2016</w:t></w:r></w:p></w:tc>'
    body = (f'<w:tbl><w:tr>{cell}</w:tr></w:tbl>'
            '<w:p><w:r><w:t>No advance is paid.</w:t></w:r></w:p>')
    xml = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>{body}</w:body>'
           '</w:document>')
    path = tmp_path / "cover.docx"
    path.write_bytes(package(xml.encode()))
    doc = load_docx(path)
    assert [(p.heading_level, p.heading_path) for p in doc.paragraphs] == [(0, ()), (0, ())]


@pytest.mark.parametrize(("text", "bold", "want"), [
    ("3.\tЦЕНА КОНТРАКТА И ПОРЯДОК ОПЛАТЫ", False, (1, "3. ЦЕНА КОНТРАКТА И ПОРЯДОК ОПЛАТЫ")),
    ("4.2. OBLIGATIONS", False, (2, "4.2. OBLIGATIONS")),
    ("2. Terms of payment", True, (1, "2. Terms of payment")),
    ("Appendix B", False, (0, "Appendix B")),
    ("3.1.\tЦена Контракта составляет 39 921 700,00 руб.", True, None),  # a bold sentence
    ("2. Terms of payment", False, None),
    ("ЦЕНА КОНТРАКТА", False, None),  # no number
    ("1. " + "WORD " * 30, False, None),  # too long for a title
    ("12. 345", False, None),
])
def test_typed_title_reads_only_short_numbered_capital_or_bold_lines(text, bold, want) -> None:
    assert typed_title(text, bold=bold) == want


def _write(tmp_path: Path, b: DocxBuilder) -> Path:
    path = tmp_path / "doc.docx"
    path.write_bytes(b.build())
    return path


def test_a_chapter_typed_in_normal_style_closes_the_headings_styled_in_an_earlier_copy() -> None:
    # The DOJ handbook holds its text four times; only the first two copies style their chapter and section titles
    # as headings. The later ones type "CHAPTER 7 – REPORTS, AUDITS, COMPLIANCE" and "A.<tab>MONTHLY REPORTS" in
    # Normal style, and the second copy's last Heading 1 and 2 (and a typed "7. FACILITIES AND EQUIPMENT" of the
    # third copy's chapter 6) were the path over its monthly-report paragraph (newcomer nc24d, its ¶6015).
    path = CORPUS / "docx" / "unstructured__handbook-872p.docx"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    paras = load_docx(path).paragraphs
    last_styled = max(p.index for p in paras if p.heading_level)
    monthly = [p for p in paras if p.index > last_styled
               and p.text.startswith("The standing trustee must submit to the United States Trustee a monthly report")]
    assert len(monthly) == 2  # the third copy and the fourth, no styled heading after them
    for p in monthly:
        # the titles the file types above it: its chapter's line, then its section's
        assert p.heading_path == ("CHAPTER 7 – REPORTS, AUDITS, COMPLIANCE", "A. MONTHLY REPORTS"), p.heading_path
    # a styled copy's own paths stay as its styles say
    styled = next(p for p in paras if p.index < last_styled and p.text.startswith(monthly[0].text[:60]))
    assert styled.heading_path[0].startswith("CHAPTER 7") and "MONTHLY REPORTS" in styled.heading_path[-1]
    # the cover's bold "Chapter 13" (of the Bankruptcy Code) alone heads nothing
    cover = next(p for p in paras if p.text.strip() == "Standing Trustees")
    assert cover.heading_path == ()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_a_typed_title_takes_the_level_of_the_styled_headings_it_begins_as(tmp_path: Path) -> None:
    b = DocxBuilder(para_ids=False)
    b.heading("CHAPTER 1 – SCOPE", 1)
    b.heading("A.\tPURPOSE", 2)
    b.para("The rules apply to every trustee.")
    b.heading("B.\tTERMS", 2)
    b.para("CHAPTER 2 – REPORTS")  # typed, as the styled chapters begin: closes CHAPTER 1 and B.
    b.para("Reports are due monthly.")
    b.para("A.\tMONTHLY REPORTS")  # typed, as the styled sections begin: a section of CHAPTER 2
    b.para("A monthly report is filed within 30 days.")
    b.para("A.\tThe trustee files it.")  # a sentence, not a title: heads nothing
    b.heading("CHAPTER 3 – AUDITS", 1)
    b.para("Audits are yearly.")
    doc = load_docx(_write(tmp_path, b))
    by_text = {p.text: p.heading_path for p in doc.paragraphs}
    assert by_text["The rules apply to every trustee."] == ("CHAPTER 1 – SCOPE", "A.\tPURPOSE")
    assert by_text["Reports are due monthly."] == ("CHAPTER 2 – REPORTS",)
    assert by_text["A monthly report is filed within 30 days."] == ("CHAPTER 2 – REPORTS", "A. MONTHLY REPORTS")
    assert by_text["A.\tThe trustee files it."] == ("CHAPTER 2 – REPORTS", "A. MONTHLY REPORTS")
    assert by_text["Audits are yearly."] == ("CHAPTER 3 – AUDITS",)
    assert not any(p.heading_level for p in doc.paragraphs if p.text.startswith(("CHAPTER 2", "A.\tMONTHLY")))


def test_contents_lines_with_their_page_run_on_are_contents_not_titles() -> None:
    """The DOJ handbook types its tables of contents with each entry's page run on ("A. PURPOSE1-1", a wrapped
    entry's "NUMBER3-9"; after such a line "4. ELIGIBILITY FOR CHAPTER 133-4", chapter 13's page 3-4): contents
    lines, never titles heading the lines after them (round 25: "B. MEETING OF CREDITORS3-7" headed 54
    paragraphs, 135 such titles in all). The body's own titles still head their sections."""
    import re

    path = CORPUS / "docx" / "unstructured__handbook-872p.docx"
    paras = load_docx(path).paragraphs
    runs_on = re.compile(r"\d{1,3}-\d{1,3}$")
    assert not [h for p in paras for h in p.heading_path if runs_on.search(h)]
    entries = {p.text.strip(): p for p in paras[:120]}
    for text in ("A. PURPOSE1-1", "NUMBER3-9", "4. ELIGIBILITY FOR CHAPTER 133-4", "10. LANGUAGE INTERPRETERS3-13"):
        assert entries[text].in_toc, text
    purpose = next(p for p in paras if p.text.startswith("The United States Trustee appoints and supervises standing"))
    assert purpose.heading_path == ("CHAPTER 1 – INTRODUCTION", "A.\tPURPOSE"), purpose.heading_path


def test_a_title_ending_in_a_range_is_still_a_title(tmp_path: Path) -> None:
    """A typed title ending in a spaced range ("2. ARTICLES 1-3") outside any contents heads what follows; a figure's
    name run on to a letter in a sentence ("see Figure B2-14 for the layout.") is no contents line."""
    b = DocxBuilder(para_ids=False)
    b.para("2. ARTICLES 1-3")
    b.para("The articles bind every member.")
    b.para("See the plan in annex B2-14")
    doc = load_docx(_write(tmp_path, b))
    by_text = {p.text: p for p in doc.paragraphs}
    assert by_text["The articles bind every member."].heading_path == ("2. ARTICLES 1-3",)
    assert not by_text["2. ARTICLES 1-3"].in_toc and not by_text["See the plan in annex B2-14"].in_toc


def test_a_body_sentence_ending_in_a_range_run_on_is_no_contents_line(tmp_path: Path) -> None:
    """Review r27 finding 2: Chinese writes "工艺流程详见图3-4" with no space, and an order line ends "as part
    ABC12-34"; both were read as contents lines typed with their page run on, and the paragraph after the first
    ("…清洗周期为3-6") as one after such a line, so none of them could be cited."""
    from mnote_kr.models import LocateRequest
    from mnote_kr_docx_locator import locate

    b = DocxBuilder(para_ids=False)
    b.heading("3 工艺设计")
    b.para("本项目采用两级反渗透工艺，工艺流程详见图3-4")
    b.para("反渗透膜的回收率按75%设计，清洗周期为3-6")
    b.para("Order the replacement gasket for the pump housing as part ABC12-34")
    b.para("The pump runs at 1450 rpm.")
    path = _write(tmp_path, b)
    paras = load_docx(path).paragraphs
    assert [p.in_toc for p in paras[1:4]] == [False, False, False], [(p.text, p.in_toc) for p in paras]
    text = "\n".join(p.text for p in paras)
    loc = locate(LocateRequest(file=str(path), evidence=text, query="反渗透膜的回收率是多少", passage=text))
    assert loc is not None
    assert (loc.locator_precision, loc.paragraph_index, loc.locator_degraded) == ("paragraph", 2, False), loc.reason
