"""A PDF whose text blocks lost their vectors (as this round's layout change re-segments an indexed PDF's
blocks: the places key a search asks for is not stored) is placed by words, remembered, and placed by
meaning again after ``sync``, with the real e5 model and the PDF locator; nothing is sent to the provider
and the file's bytes are unchanged.

The passage is the corpus PDF's pages 3-4 as Docling's ground truth reads them (as
``plugins/pdf_bbox/tests/test_pdf_meaning.py``), returned by the fake provider as one chunk.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit import pdf_cases as C
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import fake_host

import mnote_kr_pdf_bbox
from mnote_kr.citations import pipeline
from mnote_kr.citations.rank import meaning, wordsonly
from mnote_kr.sync.reconcile import reconcile_and_apply
from tests.surfaces import OnePassage

PDF = CORPUS / "pdf" / "docling__multi_page.pdf"
REL = "docs/multi_page.pdf"
QUESTION = "What made it possible to fix errors without starting over?"  # answered by "1. Undo/Redo ..."


def _passage() -> str:
    gt = json.loads((CORPUS / "groundtruth" / "docling" / "docling__multi_page.json").read_text("utf-8"))
    texts = [text for _, text, _, _ in C._gt_items(gt)]
    lo = next(i for i, t in enumerate(texts) if t.startswith("Specialized Word Processing Tools"))
    hi = next(i for i, t in enumerate(texts) if t.startswith("Education"))
    return "\n".join(texts[lo:hi + 1])


@pytest.fixture(autouse=True)
def _fresh() -> None:
    meaning._memo.clear()
    meaning._queue.clear()
    pipeline.clear_memos()
    mnote_kr_pdf_bbox.clear_cache()
    wordsonly._noted.clear()


def test_a_pdf_whose_blocks_lost_their_vectors_is_placed_by_meaning_again_after_sync(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    shutil.copyfile(PDF, ws / REL)
    before = hashlib.sha256((ws / REL).read_bytes()).hexdigest()
    lines: list[str] = []
    host, provider = fake_host(ws, OnePassage(delete_status="delete_completed"))
    host.progress = lines.append
    host.roots_add("docs")
    host.ingest(["docs"], wait=True)  # its preparation step embeds the PDF's text blocks
    assert any(line.startswith("embedding places: ") for line in lines)
    provider.texts = {name: _passage() for name in provider.texts}

    def placed() -> tuple[int | None, list[float] | None, float | None]:
        (c, *_) = host.search(QUESTION, top_k=5).results
        assert c.source_root_relative_path == REL and c.locator.locator_precision == "bbox"
        return c.locator.page, c.locator.bbox, c.locator.meaning_score

    page, bbox, score = placed()
    assert score is not None  # placed by meaning

    # the vectors of the blocks it reads now are not stored (a new layout: another places key), new process
    for entry in meaning._keyed_store().folder.glob("k-*"):
        entry.unlink()
    meaning._memo.clear()
    pipeline.clear_memos()
    mnote_kr_pdf_bbox.clear_cache()
    assert placed()[2] is None  # placed by words alone
    assert [f.source_path for f in wordsonly.load(host).files] == [REL]
    assert host.status()["meaning"]["wordsOnly"]["count"] == 1

    calls = len(provider.calls)
    lines.clear()
    summary = reconcile_and_apply(host)
    assert summary["wordsOnly"] == {"count": 1, "paths": [REL]}
    assert lines[-1].startswith("embedding places: ") and " in " in lines[-1]  # the usual progress line
    assert "ingest" not in provider.calls[calls:]
    assert host.status()["meaning"]["wordsOnly"]["count"] == 0

    pipeline.clear_memos()
    again = placed()
    assert again[2] is not None and again[:2] == (page, bbox) and again[2] == pytest.approx(score, abs=1e-3)
    assert hashlib.sha256((ws / REL).read_bytes()).hexdigest() == before
