"""A place lacking the query's modifier of a word it holds is approximate (``locate.modifiers``).

nc20a Q13: "How much compensation does an underground uranium miner get ...?" cited, exact, the amendments
paragraph naming "above-ground uranium miners" with the same dollar figure, while an earlier paragraph held
"underground uranium miners". Built here on a synthetic DOCX of two such paragraphs.
"""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

LINES = [
    ("Mining Pay Act", 0),
    ("Allowances", 1),
    ("The Act set a hazard allowance for three groups: underground coal miners, who receive $3,000; quarry "
     "blasters, who receive $2,000; and mine inspectors, who receive $1,000.", None),
    ("Amendments", 1),
    ("In 2019 amendments to the Mining Pay Act added new groups (surface coal miners, coal truck drivers and "
     "washery workers) who receive $3,000 as a hazard allowance, and they widened the eligible regions.", None),
    ("The amendments also shortened the time a claim takes to be decided.", None),
]


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _locate(tmp_path: Path, query: str, lines: list[tuple[str, int | None]] = LINES, chunk: slice = slice(4, None)):
    d = docx.Document()
    for text, level in lines:
        d.add_heading(text, level) if level is not None else d.add_paragraph(text)
    path = tmp_path / "allowances.docx"
    d.save(str(path))
    before = path.read_bytes()
    evidence = "\n".join(text for text, _ in lines[chunk])  # the provider's chunk (the amendments only)
    loc = load_plugins(None).locate(LocateRequest(file=str(path), evidence=evidence, passage=evidence, query=query))
    assert path.read_bytes() == before
    return loc


def test_a_place_naming_other_miners_is_approximate_and_the_asked_ones_are_behind_it(tmp_path: Path) -> None:
    loc = _locate(tmp_path, "What hazard allowance does an underground coal miner get under the Mining Pay Act?")
    assert loc.paragraph_index == 4, (loc.paragraph_index, loc.reason)
    assert loc.locator_degraded is True, loc.reason
    assert "underground" in (loc.reason or "")
    assert [r.paragraph_index for r in loc.runners_up][:1] == [2]
    # asked about the miners the cited paragraph names, the same place stays exact
    same = _locate(tmp_path, "What hazard allowance does a surface coal miner get under the Mining Pay Act?")
    assert (same.paragraph_index, same.locator_degraded) == (4, False), same.reason


LEAVE = [
    ("Staff Handbook", 0),
    ("Leave", 1),
    ("Annual leave must be booked two weeks in advance through the staff portal and approved by a manager.", None),
    ("New employees are entitled to 20 days of paid leave per year, rising to 25 days after five years of "
     "service.", None),
    ("Unused days may be carried over into the first quarter of the next year.", None),
]


def test_a_place_answering_more_of_the_question_stays_exact_beside_one_holding_its_modifier(tmp_path: Path) -> None:
    """The cited paragraph lacks "annual" of "annual leave", which another paragraph writes together; but that
    paragraph holds less of the question (no "new employees", no "days"): the answer stays exact."""
    loc = _locate(tmp_path, "How many days of annual leave do new employees get?", LEAVE, slice(3, 4))
    assert (loc.paragraph_index, loc.locator_degraded) == (3, False), loc.reason
