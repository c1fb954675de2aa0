"""Review of round 17's title rule (``locate.titles``): a short body line is no title.

``title_like`` took any line of 60 characters or fewer without a digit or a colon for a title, so an answer
sentence written without a full stop (a list item, a slide-like note) that holds all but one of the question's
words gave way to any other quoted paragraph holding that one word and a digit: "Which vitamin deficiency
causes rickets in young children?" cited "Young children under 5 need 400 IU of vitamin D daily." as exact,
not "Vitamin D deficiency causes rickets in children". A title opens its document or sheet (or is a heading).
"""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

LINES = ["Vitamin D deficiency causes rickets in children", "Young children under 5 need 400 IU of vitamin D daily.",
         "Sun exposure helps the skin make it."]


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _doc(tmp_path: Path, heading: bool) -> Path:
    d = docx.Document()
    if heading:
        d.add_heading("Nutrition notes", 1)
    for line in LINES:
        d.add_paragraph(line)
    path = tmp_path / "notes.docx"
    d.save(str(path))
    return path


def test_an_answer_line_under_a_heading_is_no_title_to_give_way(tmp_path: Path) -> None:
    path = _doc(tmp_path, heading=True)
    evidence = "\n".join(LINES)
    loc = load_plugins(None).locate(LocateRequest(file=str(path), evidence=evidence, passage=evidence,
                                                  query="Which vitamin deficiency causes rickets in young children?"))
    assert loc.paragraph_index == 1, (loc.paragraph_index, loc.reason)
    assert "over a title" not in (loc.reason or "")
