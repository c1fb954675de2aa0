"""Review comments: a comment's text stands right after the words it comments on (at its reference mark,
as a note's does), so its words locate to the commented paragraph and the quote says they are a comment
(the corpus's comments, an author, a heading's and a deleted reference left alone, a broken comments part)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.docx_notes import comment_para, note_para, ref, with_notes

from mnote_kr.models import LocateRequest, SidecarBlock
from mnote_kr.plugins import load_plugins
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import extract_text, locate
from mnote_kr_docx_locator.cache import load_docx

COMMENTED = CORPUS / "docx" / "markitdown__test_with_comment.docx"
TIKA = CORPUS / "docx" / "tika__testWORD_2006ml.docx"
#: The table cell "23" that the corpus file's second comment is on.
CELL = 35


@pytest.fixture(autouse=True)
def _fresh_cache():
    docx_cache.clear_cache()
    yield
    docx_cache.clear_cache()


def test_corpus_comments_read_right_after_the_words_they_comment_on() -> None:
    paras = load_docx(COMMENTED).paragraphs
    abstract = next(p.text for p in paras if p.text.startswith("AutoGen is an open-source framework"))
    assert ("build LLM applications [Comment (Unknown Author): This is a test comment. 12df-321a] via multiple "
            "agents") in abstract
    assert (paras[CELL].in_table, paras[CELL].text) == (
        True, "23 [Comment (Unknown Author): Yet another comment in the doc. 55yiyi-asd09]")
    assert sum("[Comment" in p.text for p in paras) == 2
    # Word's range there ends before the full stop: the comment stands where the range ends
    assert "Really basic 2 [Comment (Allison, Timothy B.): This is a comment]." in [p.text for p in load_docx(
        TIKA).paragraphs]


def test_a_comments_words_locate_to_the_commented_paragraph() -> None:
    words = "Yet another comment in the doc"
    loc = locate(LocateRequest(file=str(COMMENTED), evidence=words, query=words))
    assert (loc.locator_precision, loc.paragraph_index, loc.locator_degraded) == ("paragraph", CELL, False)
    text = load_docx(COMMENTED).paragraphs[CELL].text
    assert loc.highlight is not None and words in text[loc.highlight.start:loc.highlight.end]


def test_the_newcomers_chunk_places_a_comment_on_a_table_cell_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """nc18c problem 7: in an 18-file folder LightRAG cut the file so that the comment's chunk ends with the whole
    table; search's evidence window (the host's cleaning, as search runs it) reads the table row by row ("18 19 20
    21 22 23 [Comment ...]"), each cell its own paragraph here: too little of that order was found around cell
    "23" paragraph by paragraph, and the search said "whole file (no exact place found)"."""
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    case = json.loads((Path(__file__).parent / "data" / "nc18c_comment_chunk.json").read_text("utf-8"))
    block = msgspec.convert(case["block"], SidecarBlock)
    plugins = load_plugins(None)
    bundle = plugins.clean_text(case["chunk"], case["query"], block.content)
    assert "18 19 20 21 22 23 [Comment (Unknown Author): Yet another" in bundle.locator_evidence_text
    loc = plugins.locate(LocateRequest(file=str(COMMENTED), evidence=bundle.locator_evidence_text, query=case["query"],
                                       passage=case["chunk"], block=block, block_id=block.blockid))
    assert (loc.locator_precision, loc.paragraph_index, loc.locator_degraded) == ("paragraph", CELL, False), loc.reason


def test_a_comment_stands_after_its_range_with_its_author_and_beside_notes(tmp_path: Path) -> None:
    b = DocxBuilder()
    head = comment_para(b, "", "Findings", "1", heading=1)
    body = comment_para(b, "The yield ", "rose by a third", "2", " in the second year.")
    noted = note_para(b, "Noted", ref("footnote", "1"))
    nobody = comment_para(b, "Anonymous ", "remark", "3")
    path = tmp_path / "c.docx"
    path.write_bytes(with_notes(b.build(), footnotes={"1": "A note."}, comments={
        "1": ("Ann", "On the heading."), "2": ("Jane Smith", "Check the figure\nagainst table 2."),
        "3": ("", "Who wrote this?")}))
    doc = load_docx(path)
    texts = [p.text for p in doc.paragraphs]
    # a heading keeps its own words (as LightRAG reads it: its reference is left unread)
    assert (texts[head], doc.paragraphs[head].heading_level) == ("Findings", 1)
    assert texts[body] == ("The yield rose by a third [Comment (Jane Smith): Check the figure against table 2.] in "
                           "the second year.")
    assert texts[noted] == "Noted [Footnote 1: A note.]"
    assert texts[nobody] == "Anonymous remark [Comment: Who wrote this?]"
    assert doc.paragraphs[body].heading_path == ("Findings",)
    # the text sent when LightRAG fails on the file has them too
    assert "[Comment (Jane Smith): Check the figure against table 2.]" in (extract_text(str(path)) or "")


def test_a_broken_comments_part_costs_the_comments_only(tmp_path: Path) -> None:
    b = DocxBuilder()
    comment_para(b, "Kept ", "words", "1")
    path = tmp_path / "broken.docx"
    path.write_bytes(with_notes(b.build(), raw={"word/comments.xml": b"<w:comments><w:comment"},
                                comments={"1": ("A", "x")}))
    assert [p.text for p in load_docx(path).paragraphs] == ["Kept words"]


def test_a_comment_inside_the_answering_sentence_takes_none_of_its_quote() -> None:
    """A newcomer's "AutoGen open-source framework agents converse with each other" quoted the abstract up to
    "…build LLM applications [Comment (Unknown Author): …]": the comment's two "sentences" used up the quote's
    three, cutting off "via multiple agents that can converse with each other", the words that answer. The
    paragraph's own words are quoted whole; a comment that does not fit after them is left out."""
    from mnote_kr.citations.cleaning.quote import QUOTE_CHARS, answer_quote

    abstract = next(p.text for p in load_docx(COMMENTED).paragraphs
                    if p.text.startswith("AutoGen is an open-source framework"))
    quote = answer_quote(abstract, "AutoGen open-source framework agents converse with each other")
    assert quote.startswith("AutoGen is an open-source framework that allows developers to build LLM applications "
                            "via multiple agents that can converse with each other to accomplish tasks."), quote
    assert len(quote) <= QUOTE_CHARS
    # a comment that fits after the quoted words follows them, marked as a comment
    short = answer_quote(abstract, "AutoGen open-source framework agents converse with each other", limit=240)
    assert short == ("AutoGen is an open-source framework that allows developers to build LLM applications via "
                     "multiple agents that can converse with each other to accomplish tasks. [Comment (Unknown "
                     "Author): This is a test comment. 12df-321a]"), short
    # a question about the comment is quoted from the comment, as before
    assert answer_quote(abstract, "a test comment 12df-321a").startswith(
        "[Comment (Unknown Author): This is a test comment. 12df-321a]")
