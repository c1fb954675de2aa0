"""An English question over a Chinese PDF whose cover holds one English line: the file's blocks nearest the
question by meaning (outside the cited passage, ``answer._wide``) have the English line's pull taken out
(``plugin_api.nearest_places_across``, the rule DOCX, PPTX and XLSX places follow: ``locate.otherscript``).

The cover's English subtitle stood nearest the question by its language alone (the embedding model finds text in
the question's language nearer than any translation) and, with the file's highest cosine, the host showed it first.
Built on a synthetic Chinese guideline drawn with reportlab; the blocks are embedded as ingest embeds them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mnote_kr_testkit.hard_pdfs import Sheet

import mnote_kr_pdf_bbox
from mnote_kr.citations.locate import otherscript
from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest

COVER = ["NB/T 20XX—2023", "核电厂安全审查指南 第3部分：设备实际状态",
         "Guideline of safety review for nuclear power plants—Part 3: Actual condition of equipment",
         "国家能源局 发布"]
BODY = ["1 范围", "本部分规定了核电厂定期安全审查中设备实际状态评价的要求和方法。",
        "2 审查对象",
        "电气设备包括发电机、主变压器、厂用变压器、开关柜、电缆和蓄电池。",
        "机械设备包括泵、阀门、热交换器和管道。",
        "仪表和控制设备包括传感器、变送器和保护系统机柜。",
        "3 评价方法", "评价应结合现场检查、试验结果和运行记录，确认设备能够执行其安全功能。"]
ENGLISH = COVER[2]
QUERY = "What kinds of electrical equipment are in scope when reviewing plant components?"


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    meaning._memo.clear()
    meaning._queue.clear()
    mnote_kr_pdf_bbox.clear_cache()


def _guide(tmp_path: Path) -> Path:
    """The guide: its cover on page 1 (one English line among Chinese ones), its body on page 2, a block a line;
    prepared and embedded as ingest does."""
    path = tmp_path / "guide.pdf"
    sheet = Sheet(path)
    cjk = sheet.font("STSong-Light")
    for k, text in enumerate(COVER):
        sheet.line(60, 80 + 120 * k, text, 11, "Helvetica" if text.isascii() else cjk)
    sheet.next_page()
    for k, text in enumerate(BODY):
        sheet.line(60, 80 + 60 * k, text, 11, cjk)
    sheet.save()
    mnote_kr_pdf_bbox.prepare_locate(str(path))
    meaning.embed_queued(lambda _: None)
    return path


def _outside(path: Path) -> list[tuple[str, float | None]]:
    """The chosen block and the file's blocks given behind it from outside the cited passage (the body's
    equipment lists), each with its cosine."""
    mnote_kr_pdf_bbox.clear_cache()
    loc = mnote_kr_pdf_bbox.locate(LocateRequest(file=str(path), evidence="\n".join(BODY[3:6]),
                                                 passage="\n".join(BODY[2:6]), query=QUERY))
    assert loc is not None and loc.page == 2 and loc.meaning_score is not None
    return [(loc.place_text, loc.meaning_score), *((r.place_text, r.meaning_score) for r in loc.runners_up
                                                   if "outside the cited passage" in r.locator_reason)]


def test_the_english_cover_line_of_a_chinese_pdf_is_not_a_place_nearest_an_english_question(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _guide(tmp_path)
    before = path.read_bytes()
    monkeypatch.setattr(otherscript, "ACROSS_LANGUAGES", False)
    old = _outside(path)
    # the fault, as the rule's switch off shows it: the English line behind, with the file's highest cosine
    assert max(old, key=lambda p: p[1] or 0.0)[0] == ENGLISH, old
    monkeypatch.setattr(otherscript, "ACROSS_LANGUAGES", True)
    new = _outside(path)
    assert ENGLISH not in [text for text, _ in new], new
    # the file's places behind are still given (the body's Chinese blocks, ordered by meaning)
    assert len(new) == 1 + mnote_kr_pdf_bbox.answer.FILE_WIDE and all(not t.isascii() for t, _ in new[1:]), new
    assert path.read_bytes() == before
