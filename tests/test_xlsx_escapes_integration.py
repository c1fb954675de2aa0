"""A linked workbook's line break inside a cell through the real lightrag-server: LightRAG 1.5.7's XLSX
extractor indexes docling's data sheet cell G16 as "2 x 136V AC UPS\\n1 x 137V AC normal" (a backslash and
an n), which mnote-kr read as the word "n1" and quoted with the backslash. Its chunks are read with the cell's
own line break: the quote reads "UPS 1 x 137V AC normal" and the cell is cited. The workbook is unchanged."""

from __future__ import annotations

import hashlib
import shutil
import uuid
from pathlib import Path

import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config

pytestmark = pytest.mark.integration

BOOK = Path(__file__).resolve().parent / "data" / "corpus" / "xlsx" / "docling__xlsx_07_gap_tolerance_.xlsx"


def test_a_linked_workbooks_cell_line_break_is_quoted_as_a_break(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    rel = f"sheets-{uuid.uuid4().hex[:8]}/{BOOK.name}"  # the session engine keeps other tests' documents
    ws = tmp_path / "kb"
    (ws / rel).parent.mkdir(parents=True)
    shutil.copyfile(BOOK, ws / rel)
    digest = hashlib.sha256((ws / rel).read_bytes()).hexdigest()
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir}}
    host = Host(ws, config=config)

    report = host.ingest([rel], wait=True, wait_s=240)
    assert [(i.source_path, i.status) for i in report.items] == [(rel, "processed")], report.items
    entry = host.registry().entries[rel]
    assert entry.kind == "document" and (entry.light_rag_file_path or "").endswith(".xlsx")  # linked

    results = host.search("control voltage supply UPS normal", top_k=10, scope=[rel]).results
    assert results, "nothing found"
    first = results[0]
    assert "2 x 136V AC UPS\n1 x 137V AC normal" in first.raw_quote  # LightRAG's '\\n', undone
    assert "UPS 1 x 137V AC normal" in first.display_quote and "\\" not in first.display_quote
    assert (first.locator_precision, first.locator.sheet, first.locator.range) == ("cell", "Page 1", "G16")
    assert hashlib.sha256((ws / rel).read_bytes()).hexdigest() == digest
