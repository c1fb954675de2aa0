"""The viewer marks whole sentences of a place, not the cluster of the query's words its ``highlight`` spans.

nc21b (round 21): ``/view/<id>?place=3`` for "What colour of ink must the visa application form be filled in
with?" marked "ink only.  Form can be filled" in ``poi__form_footnotes.docx``'s instructions, a span starting
and ending mid-sentence (the locator's highlight, 49..78, the densest cluster of the query's words).
"""

from __future__ import annotations

import html
import re

from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import Highlight, Locator
from mnote_kr.viewer import webpages
from mnote_kr_docx_locator import document_model

FORM = CORPUS / "docx" / "poi__form_footnotes.docx"


def _marks(index: int, start: int, end: int) -> list[str]:
    before = FORM.read_bytes()
    model = document_model(str(FORM))
    loc = Locator(locator_precision="paragraph", locator_degraded=True, paragraph_index=index,
                  highlight=Highlight(start=start, end=end))
    page = webpages.paragraphs_html(model, index, loc)
    assert FORM.read_bytes() == before
    return [html.unescape(m) for m in re.findall(r'<mark class="hl"[^>]*>(.*?)</mark>', page, re.S)]


def test_a_word_cluster_across_two_sentences_marks_both_whole() -> None:
    # paragraph 210, the newcomer's place 3, with the locator's own highlight
    assert _marks(210, 49, 78) == ["Type or write in block letters, on blue or black ink only.  "
                                   "Form can be filled out on line."]


def test_a_cluster_inside_one_sentence_marks_that_sentence_only() -> None:
    model = document_model(str(FORM))
    text = model.paragraphs[212].text
    start = text.index("does not apply")
    assert _marks(212, start, start + len("does not apply")) == ["If a question does not apply, please type N/A."]


def _marks_in(doc: str, index: int, words: str) -> list[str]:
    path = CORPUS / "docx" / doc
    before = path.read_bytes()
    model = document_model(str(path))
    start = model.paragraphs[index].text.index(words)
    loc = Locator(locator_precision="paragraph", locator_degraded=True, paragraph_index=index,
                  highlight=Highlight(start=start, end=start + len(words)))
    page = webpages.paragraphs_html(model, index, loc)
    assert path.read_bytes() == before
    return [html.unescape(m) for m in re.findall(r'<mark class="hl"[^>]*>(.*?)</mark>', page, re.S)]


def test_an_abbreviations_full_stop_does_not_end_the_sentence() -> None:
    # "(i.e. sequential ...)": the sentence runs on past "i.e."
    marked = _marks_in("poi__stress014.docx", 31, "sequential superscript numbers")
    assert len(marked) == 1 and marked[0].startswith("References and notes in the text"), marked
    assert marked[0].endswith("no brackets)."), marked
    # "static vs. dynamic conversation"
    marked = _marks_in("markitdown__test_with_comment.docx", 9, "dynamic conversation")
    assert len(marked) == 1 and marked[0].startswith("In practice, applications"), marked
    assert marked[0].endswith("static vs. dynamic conversation."), marked
    # "etc." before a capital does end one: "... line spacing, etc. Just check the Style column ..."
    assert _marks_in("poi__stress014.docx", 19, "Style column") == [
        "Just check the Style column in MS-word program above (Home > Styles ), clicking on respective style "
        "formats the text of selection."]
