"""An English question over a Chinese DOCX whose cover holds one English line (``locate.otherscript``).

nc20a Q6/Q7/Q10: the cover's English subtitle of a Chinese standard was cited first for English questions and
pushed the Chinese paragraph that answers out of the first three places: the line held a few of the question's
common words (weighty only because no other paragraph is English) and, in the question's own language, the
highest cosine. Built here on a synthetic Chinese guideline with an English cover line; the places are embedded
as ingest embeds them.
"""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from mnote_kr.citations.locate import otherscript, saidacross
from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

LINES = [("NB/T 20XX—2023", None), ("核电厂安全审查指南 第3部分：设备实际状态", None),
         ("Guideline of safety review for nuclear power plants—Part 3: Actual condition of equipment", None),
         ("国家能源局 发布", None),
         ("1 范围", 1), ("本部分规定了核电厂定期安全审查中设备实际状态评价的要求和方法。", None),
         ("2 审查对象", 1),
         ("电气设备包括发电机、主变压器、厂用变压器、开关柜、电缆和蓄电池。", None),
         ("机械设备包括泵、阀门、热交换器和管道。", None),
         ("仪表和控制设备包括传感器、变送器和保护系统机柜。", None),
         ("3 评价方法", 1), ("评价应结合现场检查、试验结果和运行记录，确认设备能够执行其安全功能。", None)]
COVER, ANSWER = 2, 7


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    meaning._memo.clear()


def _guide(tmp_path: Path) -> Path:
    """The Chinese guide with its English cover line (``LINES``), written and its places embedded."""
    from mnote_kr_docx_locator.cache import load_docx

    d = docx.Document()
    for text, level in LINES:
        d.add_heading(text, level) if level else d.add_paragraph(text)
    path = tmp_path / "guide.docx"
    d.save(str(path))
    assert meaning.embed_places([p.text for p in load_docx(str(path)).paragraphs]) is True
    return path


def _places(path: Path, query: str) -> list[int]:
    """The place and the places behind it, best first."""
    evidence = "\n".join(text for text, _ in LINES[:4])  # the chunk's evidence: the cover
    loc = load_plugins(None).locate(LocateRequest(file=str(path), evidence=evidence,
                                                  passage="\n".join(text for text, _ in LINES), query=query))
    return [loc.paragraph_index, *(r.paragraph_index for r in loc.runners_up)]


def test_the_english_cover_line_gives_way_to_the_chinese_places_close_in_meaning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _guide(tmp_path)
    before = path.read_bytes()
    query = "Which electrical equipment does the guideline cover?"
    monkeypatch.setattr(otherscript, "ACROSS_LANGUAGES", False)
    monkeypatch.setattr(saidacross, "SAID_ACROSS", False)  # the question's words said in Chinese: round 26's rule
    old = _places(path, query)
    monkeypatch.setattr(otherscript, "ACROSS_LANGUAGES", True)
    new = _places(path, query)
    assert old[0] == COVER and ANSWER not in old[:3], old  # the fault, as the rule's switch off shows it
    # the English line gives way to the Chinese body's places, ordered by meaning (e5-small tells Chinese places
    # apart weakly for an English question: which of them leads is its call, not this rule's)
    assert COVER not in new[:3] and len(new) >= 3, new
    # the paragraph saying "electrical equipment" in Chinese (电气设备) leads once those words count (``saidacross``)
    monkeypatch.setattr(saidacross, "SAID_ACROSS", True)
    assert _places(path, query)[0] == ANSWER
    assert path.read_bytes() == before


def test_the_english_cover_line_outside_the_passage_is_not_the_files_nearest_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """nc20c R3: the passage lacks the cover; the cover came back as a place of the file's nearest by meaning
    (outside the cited passage) with the file's highest cosine, and the host put it first (``folding``: an
    approximate first place gives way to the file's nearest). Its cosine is lowered by the same pull."""
    path = _guide(tmp_path)
    before = path.read_bytes()
    query = "What kinds of electrical equipment are in scope when reviewing plant components?"

    def nearest_first() -> int:
        """The place the host shows first: the nearest by meaning of the file's places (the passage's
        own is approximate: an English question over Chinese text holds none of its words)."""
        loc = load_plugins(None).locate(LocateRequest(
            file=str(path), evidence=LINES[8][0], passage="\n".join(text for text, _ in LINES[6:10]), query=query))
        assert loc.locator_degraded
        places = [(loc.meaning_score, loc.paragraph_index),
                  *((r.meaning_score, r.paragraph_index) for r in loc.runners_up)]
        assert any("outside the cited passage" in (r.reason or "") for r in loc.runners_up)
        return max((p for p in places if p[0] is not None), key=lambda p: p[0])[1]

    monkeypatch.setattr(otherscript, "ACROSS_LANGUAGES", False)
    assert nearest_first() == COVER  # the fault, as the rule's switch off shows it
    monkeypatch.setattr(otherscript, "ACROSS_LANGUAGES", True)
    assert nearest_first() != COVER
    assert path.read_bytes() == before
