"""A heading or a mind-map label chosen for a question gives way to the text under it that answers.

The newcomer trial's questions (round 19): "智能船舶附加标志中 Ri 表示什么？" was cited on the heading
"1.4 智能船舶附加标志", exact, with the line answering it ("Ri--远程控制功能标志") behind; "Q 小于 0 表示什么" on the
mind map's label "热化学方程式", not its node "放热反应，Q<0"; "TraceMonkey 论文第2页关于加速比说了什么" exact on a
block holding "1 of the query's 1 content terms" (its Chinese words counted for nothing). The provider's chunk is
the page as pypdf reads it, the evidence the host's window of it; truth is what PDFium reads inside the box.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pypdf
import pypdfium2 as pdfium
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfwords import page_text, word_boxes

import mnote_kr_pdf_bbox
from mnote_kr.citations.cleaning import clean_citation_text
from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest

SHIP = CORPUS / "pdf" / "mineru__2list_1table.pdf"
MINDMAP = CORPUS / "pdf" / "mineru__introduction.pdf"
TRACEMONKEY = CORPUS / "pdf" / "pdfjs__tracemonkey.pdf"
HPO = CORPUS / "pdf" / "docling__2305.03393v1-pg9.pdf"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    meaning._memo.clear()
    mnote_kr_pdf_bbox.clear_cache()


def _search(file: Path, page: int, query: str):  # noqa: ANN202
    """Locate ``query`` as a search does: the page's text as LightRAG's reader gives it, the host's window of it."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    chunk = pypdf.PdfReader(str(file)).pages[page - 1].extract_text()
    evidence = clean_citation_text(chunk, query).locator_evidence_text
    return mnote_kr_pdf_bbox.locate(LocateRequest(file=str(file), evidence=evidence, query=query, passage=chunk))


def _text_in(file: Path, page: int, box: list[float]) -> str:
    doc = pdfium.PdfDocument(str(file))
    try:
        pg = doc[page - 1]
        h = pg.get_height()
        return "".join(pg.get_textpage().get_text_bounded(left=box[0], bottom=h - box[3], right=box[2],
                                                          top=h - box[1]).split())
    finally:
        doc.close()


def test_a_question_about_a_headings_topic_is_boxed_on_the_line_under_it_that_answers() -> None:
    loc = _search(SHIP, 1, "智能船舶附加标志中 Ri 表示什么？")
    assert loc.locator_precision == "bbox" and loc.page == 1
    inside = _text_in(SHIP, 1, loc.bbox)
    assert "Ri--远程控制功能标志" in inside and "1.4智能船舶附加标志" not in inside, inside
    assert not loc.locator_degraded and "the heading '1.4 智能船舶附加标志'" in loc.reason
    # the heading comes behind, never exact: it lacks "Ri" and "表示"
    heading = [r for r in loc.runners_up if (r.place_text or "").strip() == "1.4 智能船舶附加标志"]
    assert heading and all(r.locator_degraded for r in heading)
    # a phrase that is the heading's own words stays on the heading, exact
    phrase = _search(SHIP, 1, "智能船舶附加标志")
    assert _text_in(SHIP, 1, phrase.bbox) == "1.4智能船舶附加标志" and not phrase.locator_degraded


def test_an_english_section_heading_gives_way_to_its_paragraph() -> None:
    loc = _search(HPO, 1, "Which data set was used for hyper parameter optimization?")
    inside = _text_in(HPO, 1, loc.bbox)
    assert "WehavechosenthePubTabNetdatasettoperformHPO" in inside and "5.1HyperParameter" not in inside
    assert not loc.locator_degraded


def test_a_label_holding_none_of_the_questions_words_gives_way_to_its_node_nearest_by_meaning(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the trial engine placed "Q 小于 0 表示什么" on the label "热化学方程式" (block 19): nearest by meaning here,
    # its node's text (block 35, "…放热反应，𝑄<0") next, the page's other blocks far behind. Without the "Q" (a
    # content term since, that the node holds) the words choose the map's title (it holds "表示"), which gives
    # way to the label, which gives way to its node
    near = {19: 0.90, 35: 0.85}
    monkeypatch.setattr(meaning, "cosines", lambda key, query, idx: {i: near.get(i, 0.40) for i in idx})
    monkeypatch.setattr(meaning, "nearest", lambda key, query, k: {})
    loc = _search(MINDMAP, 1, "小于 0 表示什么")
    inside = _text_in(MINDMAP, 1, loc.bbox)
    assert "放热反应" in inside and inside != "热化学方程式", inside
    # it holds none of the question's words ("<" is no "小于"): a place by meaning, approximate
    assert loc.locator_degraded and "nearest the query by meaning" in loc.reason
    # with the "Q" the node's own word counts for it: it is chosen, approximate still (小于, a word the PDF
    # lacks, is asked too since ``cjkwords``: 1 of the query's 3 terms)
    asked = _search(MINDMAP, 1, "Q 小于 0 表示什么")
    assert "放热反应，\U0001d444<0" in _text_in(MINDMAP, 1, asked.bbox), asked.reason
    assert asked.locator_degraded and "1 of the query's 3" in asked.reason, asked.reason


def test_a_title_lacking_the_questions_words_is_never_exact() -> None:
    # by words alone the mind map's title "化学学科常用符号公式 及其表示" holds "表示" and nothing else asked
    # (no text under it holds "小于" either): approximate. 小于 is a word the PDF lacks, asked all the same
    # (``cjkwords``): the title holds under MIN_SHARE of the query, so no block answers by words, the passage is
    # cited. ("Q" is a term since the round's ``symbol_letters``: the query leaves it out.)
    loc = _search(MINDMAP, 1, "小于 0 表示什么")
    assert loc.locator_degraded and "semantic match" in loc.reason, loc.reason


def test_chinese_words_of_a_mixed_query_count_and_a_named_page_number_does_not() -> None:
    loc = _search(TRACEMONKEY, 2, "TraceMonkey 论文第2页关于加速比说了什么")
    assert loc.page == 2 and "the query names page 2" in loc.reason
    # "论文" and "加速比" are asked too: the block holding "TraceMonkey" alone is no exact place
    assert "of the query's 1 " not in loc.reason and "of the query's 3 " in loc.reason, loc.reason
    assert loc.locator_degraded
    # "2" names the page: never a term ("tracemonkey", "paper", "speedup")
    english = _search(TRACEMONKEY, 2, "TraceMonkey paper page 2 speedup")
    assert "of the query's 3 " in english.reason, english.reason


def test_a_title_over_a_table_gives_way_to_the_cell_the_question_names_not_the_line_drawn_after_it() -> None:
    """The tables set's tb_en03 (round 19): LightRAG's last chunk of the NICS page (the totals, then the title
    and the notes, as the content stream draws them) was cited exact on "November - 2015", the line after the
    title, above the Pennsylvania row the question names."""
    nics = CORPUS / "pdf" / "pdfplumber__nics-background-checks-2015-11.pdf"
    query = "Pennsylvania handgun checks in November 2015"
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    text = pypdf.PdfReader(str(nics)).pages[0].extract_text()
    chunk = text[text.index("\nTotals ") - 40:]  # the chunk holds no state's row but the last one's end
    assert "Pennsylvania" not in chunk
    evidence = clean_citation_text(chunk, query).locator_evidence_text
    loc = mnote_kr_pdf_bbox.locate(LocateRequest(file=str(nics), evidence=evidence, query=query, passage=chunk))
    row = next(ln for ln in page_text(nics, 1).splitlines() if ln.startswith("Pennsylvania "))
    handgun = row.split()[2]  # Permit, then Handgun
    (state,) = word_boxes(nics, 1, "Pennsylvania")
    assert loc.page == 1 and not loc.locator_degraded
    assert loc.bbox[1] <= (state[1] + state[3]) / 2 <= loc.bbox[3]  # Pennsylvania's row
    assert _text_in(nics, 1, loc.bbox) == handgun


def _text_shown_in(file: Path, page: int, box: list[float]) -> str:
    """What PDFium draws inside ``box`` (top-left points of the page as displayed: ``/Rotate`` applied), each
    character by its centre."""
    from mnote_kr_testkit.pdfs import display_transform, displayed_box

    doc = pdfium.PdfDocument(str(file))
    try:
        pg = doc[page - 1]
        t = display_transform(pg)
        tp = pg.get_textpage()
        out = []
        for i in range(tp.count_chars()):
            x0, y0, x1, y1 = displayed_box(t, tp.get_charbox(i))
            if box[0] <= (x0 + x1) / 2 <= box[2] and box[1] <= (y0 + y1) / 2 <= box[3]:
                out.append(tp.get_text_range(i, 1))
        return "".join(out)
    finally:
        doc.close()


def test_a_superlative_question_over_a_tables_title_is_boxed_on_the_row_holding_the_extreme_total() -> None:
    """nc22a Q8 (round 22): over the rotated NICS page the title's chunk was cited exact on "November - 2015", the
    line the content stream draws after the title: it holds the question's date, not which state had the most. The
    table's Totals column ranks the states (the question names the table's topic, checks, and no kind of them)."""
    nics = CORPUS / "pdf" / "pdfplumber__nics-background-checks-2015-11-rotated.pdf"
    query = "Which state had the most firearm background checks in November 2015?"
    before = nics.read_bytes()
    # the truth, read from the page's text: each state's row ends with its total; the Totals row is no state
    rows = [ln.split() for ln in page_text(nics, 1).splitlines()]
    totals = {" ".join(w for w in r if not w[0].isdigit()): int(r[-1].replace(",", "")) for r in rows
              if len(r) > 20 and r[-1][0].isdigit() and not r[0].startswith("Totals")}
    best = max(totals.values())
    (state,) = [s for s, v in totals.items() if v == best]
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    text = pypdf.PdfReader(str(nics)).pages[0].extract_text()
    chunk = text[text.index("\nTotals ") - 40:]  # the totals, the title, "November - 2015", the notes
    assert state not in chunk
    evidence = clean_citation_text(chunk, query).locator_evidence_text
    loc = mnote_kr_pdf_bbox.locate(LocateRequest(file=str(nics), evidence=evidence, query=query, passage=chunk))
    inside = _text_shown_in(nics, 1, loc.bbox)
    assert state.replace(" ", "") in inside and f"{best:,}" in inside and "November" not in inside, (inside, loc.reason)
    assert loc.page == 1 and not loc.locator_degraded, loc.reason
    assert nics.read_bytes() == before


def test_a_label_holding_only_a_superlative_questions_setting_is_no_exact_place() -> None:
    """The same question when the table's rows cannot be ranked: the blocks under the title ("November - 2015", the
    notes) hold the question's setting and no figure of their own, so none is claimed exact for "which ... most"."""
    nics = CORPUS / "pdf" / "pdfplumber__nics-background-checks-2015-11-rotated.pdf"
    query = "Which state had the most firearm background checks in November 2015?"
    from mnote_kr_pdf_bbox import tableread

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    text = pypdf.PdfReader(str(nics)).pages[0].extract_text()
    chunk = text[text.index("\nTotals ") - 40:]
    evidence = clean_citation_text(chunk, query).locator_evidence_text
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tableread, "MIN_RANKED", 10_000, raising=False)  # as if the table were not read: no row to rank
        loc = mnote_kr_pdf_bbox.locate(LocateRequest(file=str(nics), evidence=evidence, query=query, passage=chunk))
    assert loc.locator_degraded, loc.reason
    assert "holds only its setting" in loc.reason, loc.reason
    assert not any(s in _text_shown_in(nics, 1, loc.bbox) for s in ("Kentucky", "Texas", "Alabama"))
