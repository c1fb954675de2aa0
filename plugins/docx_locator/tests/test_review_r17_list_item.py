"""Review of round 17's which-question rule (``listitem.asked_item``): the label must be the asked noun.

The rule moved a lead-in to the list item whose label the query holds anywhere. "Which documents must
applicants bring with the form?" over "Applicants must bring the following documents:" and its items
"Passport: ...", "Photo: ...", "Form: the signed application form" cited the "Form" item, exact: the question
asks for the documents (the whole list), "the form" is its setting. The label must stand right after the
which-word ("哪些电气设备", "which passport rules").
"""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

LINES = ["Applicants must bring the following documents:", "Passport: valid for six months after the stay",
         "Photo: two recent colour photos", "Form: the signed application form", "", "Fees are paid at the desk."]


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _locate(tmp_path: Path, query: str):  # type: ignore[no-untyped-def]
    d = docx.Document()
    d.add_heading("Visa application", 1)
    for line in LINES:
        d.add_paragraph(line)
    path = tmp_path / "visa.docx"
    d.save(str(path))
    evidence = "\n".join(line for line in LINES if line)
    return load_plugins(None).locate(LocateRequest(file=str(path), evidence=evidence, passage=evidence, query=query))


def test_a_label_the_question_holds_as_its_setting_does_not_take_the_place(tmp_path: Path) -> None:
    loc = _locate(tmp_path, "Which documents must applicants bring with the form?")
    assert loc.paragraph_index == 1, (loc.paragraph_index, loc.reason)  # the lead-in, quoted with its list


def test_a_label_right_after_the_which_word_still_takes_the_place(tmp_path: Path) -> None:
    loc = _locate(tmp_path, "Which passport rules must applicants follow?")
    assert loc.paragraph_index == 2 and "list item" in loc.reason, (loc.paragraph_index, loc.reason)
