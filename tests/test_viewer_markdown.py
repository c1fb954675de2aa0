"""The viewer shows a Markdown note as it reads: a heading without its ``#`` marks, a list item with its
own marker once, and the cited paragraph the one the JSON's ``paragraphIndex`` names.

nc24b (round 24): a numbered line showed two numbers (``1. 2. System administrators…``: the page
counted its own list number in front of the line's own) and headings showed a literal ``#``. The note
below has the newcomer's shapes: an ATX heading, numbered items written ``1.<tab>`` and ``2.<spaces><tab>``
(handbook notes), a bulleted item, a setext heading and a heading closed by ``##``.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from mnote_kr.models import Highlight, LocateRequest, Locator
from mnote_kr.plugins import load_plugins
from mnote_kr.viewer import webpages

NOTE = (
    "# Note 084 - Computer rules\n"
    "\n"
    "The trustee keeps the case records on a computer system.\n"
    "\n"
    "1.\tScreen each case promptly for conflicts of interest.\n"
    "\n"
    "2.     \tSystem administrators must change every password at least every 90 days.\n"
    "\n"
    "- Backups are kept off site.\n"
    "\n"
    "Passwords\n"
    "=========\n"
    "\n"
    "## Access ##\n"
    "\n"
    "Only staff may use the case system.\n"
)


@pytest.fixture
def note(tmp_path: Path) -> Path:
    path = tmp_path / "note-084.md"
    path.write_text(NOTE, encoding="utf-8")
    return path


def _divs(page: str) -> dict[int, str]:
    """Each paragraph's text as the page shows it (tags dropped), by ``data-paragraph-index``."""
    found = re.findall(r'<div class="para[^"]*"[^>]*data-paragraph-index="(\d+)"[^>]*>(.*?)</div>', page, re.S)
    return {int(i): html.unescape(re.sub(r"<[^>]+>", "", body)) for i, body in found}


def test_markdown_headings_and_list_markers_are_shown_once_without_markup(note: Path) -> None:
    before = note.read_bytes()
    model = load_plugins().document_model(str(note))
    assert model is not None
    shown = _divs(webpages.paragraphs_html(model, None, Locator(locator_precision="file")))
    assert shown == {
        0: "Note 084 - Computer rules",
        1: "The trustee keeps the case records on a computer system.",
        2: "1.Screen each case promptly for conflicts of interest.",
        3: "2.System administrators must change every password at least every 90 days.",
        4: "•Backups are kept off site.",
        5: "Passwords",
        6: "Access",
        7: "Only staff may use the case system.",
    }
    assert note.read_bytes() == before


def test_the_cited_list_item_is_the_locators_paragraph_with_its_sentence_marked(note: Path) -> None:
    plugins = load_plugins()
    loc = plugins.locate(LocateRequest(file=str(note), query="password change days",
                                       evidence="System administrators must change every password"))
    assert loc.paragraph_index == 3 and loc.highlight is not None
    model = plugins.document_model(str(note))
    assert model is not None
    page = webpages.paragraphs_html(model, loc.paragraph_index, loc)
    cited = re.findall(r'<div class="para[^"]*\bcited\b[^"]*"[^>]*data-paragraph-index="(\d+)"', page)
    assert cited == ["3"]
    marks = [html.unescape(m) for m in re.findall(r'<mark class="hl"[^>]*>(.*?)</mark>', page, re.S)]
    assert marks == ["System administrators must change every password at least every 90 days."]
    # shell.js moves a highlight by the model text's offsets: the page says where its shown text starts
    start = re.search(r'data-paragraph-index="3"[^>]*data-text-start="(\d+)"', page)
    assert start is not None and model.paragraphs[3].text[int(start.group(1)):].startswith("System administrators")


def test_a_highlight_reaching_into_a_headings_marks_marks_only_its_words() -> None:
    model_text = "## Access ##"
    loc = Locator(locator_precision="paragraph", paragraph_index=0, highlight=Highlight(start=0, end=9))
    assert webpages._marked(model_text, loc, span=(3, 9)) == '<mark class="hl" id="hl">Access</mark>'
