"""CJK text drawn in CID fonts the PDF does not embed, which PDFium reads no text from.

The generated PDFs draw one glyph per text-showing operator in a TrueType-based CID font that is
not embedded, through a legacy-encoding CMap (GBK, Big5, Shift-JIS, UHC): the way CAJ exports
and OCR text layers write them, and the kind of text layer ``chatchat__1.pdf`` and
``pdfplumber__pr-136-example.pdf`` have. Expected boxes come from the layout the generator wrote;
the corpus checks take their evidence from pypdf's reading of each page, not from the locator.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pypdf
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfs import cid_font_pdf, iou

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate

TEXTS = {
    "STSong-Light": ["航空发动机状态监视系统", "北京飞机维修工程公司联合发展了用计算机进行",
                     "发动机状态监视和故障诊断的系统。", "对三种机型的四十台发动机进行监视。"],
    "MSung-Light": ["航空發動機狀態監視系統", "北京飛機維修工程公司聯合發展了用計算機進行",
                    "發動機狀態監視和故障診斷的系統。", "對三種機型的四十台發動機進行監視。"],
    "HeiseiMin-W3": ["航空エンジン状態監視システム", "北京の航空機整備会社が計算機による監視と",
                     "故障診断の仕組みを開発した。", "三機種四十台のエンジンを監視した。"],
    "HYSMyeongJo-Medium": ["항공엔진상태감시시스템", "북경항공기정비회사가컴퓨터로엔진상태감시와",
                           "고장진단시스템을개발했다", "세기종마흔대의엔진을감시했다"],
}


def _plain_pdfium_text(path: Path) -> str:
    """The page's text as a fresh PDFium reads it: in a child process, because rendering in this
    one may have installed the shipped CJK font as PDFium's substitute, after which it reads more."""
    code = ("import sys, pypdfium2 as p; d = p.PdfDocument(sys.argv[1]); "
            "sys.stdout.write(d[0].get_textpage().get_text_range().strip())")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return out.stdout


@pytest.mark.parametrize("font", sorted(TEXTS))
def test_a_paragraph_in_a_non_embedded_cid_font_is_boxed(tmp_path: Path, font: str) -> None:
    title, first, second, other = TEXTS[font]
    pdf, boxes = cid_font_pdf([(72, 760, title), (72, 700, first), (72, 685, second), (72, 620, other)], font=font)
    path = tmp_path / f"{font}.pdf"
    path.write_bytes(pdf)
    before = hashlib.sha256(pdf).hexdigest()
    assert _plain_pdfium_text(path) == ""  # PDFium alone reads nothing here
    loc = locate(LocateRequest(file=str(path), evidence=first + second, query=""))
    want = (boxes[1][0], boxes[1][1], max(boxes[1][2], boxes[2][2]), boxes[2][3])
    assert loc.locator_precision == "bbox" and not loc.locator_degraded and loc.page == 1, loc
    assert loc.bbox is not None and iou(loc.bbox, want) >= 0.5, (loc.bbox, want)
    other_loc = locate(LocateRequest(file=str(path), evidence=other, query=""))
    assert other_loc.bbox is not None and iou(other_loc.bbox, boxes[3]) >= 0.5
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def _sentences(path: Path) -> list[tuple[int, str]]:
    """(page, a run of 12+ CJK characters as pypdf reads it) for every page: the evidence a reader
    like LightRAG's gives."""
    found = []
    for number, page in enumerate(pypdf.PdfReader(str(path)).pages, 1):
        runs = re.findall(r"[\u4e00-\u9fff，、。；：]{12,}", page.extract_text().replace("\n", ""))
        found.extend((number, run[:40]) for run in runs[:: max(1, len(runs) // 4)][:4])
    return found


@pytest.mark.parametrize("name", ["chatchat__1.pdf", "pdfplumber__pr-136-example.pdf"])
def test_the_chinese_corpus_pdfs_are_located_at_bbox(name: str) -> None:
    path = CORPUS / "pdf" / name
    cases = _sentences(path)
    assert len(cases) >= 8
    boxed = 0
    for page, evidence in cases:
        loc = locate(LocateRequest(file=str(path), evidence=evidence, query=""))
        boxed += loc.locator_precision == "bbox" and loc.page == page and loc.bbox is not None
    assert boxed >= 0.9 * len(cases), f"{boxed} of {len(cases)} at bbox on the right page"
