"""What the index's note says of a PDF indexed from its recognised text: all its pages recognised by OCR, or
how many of them (a newcomer's 3-page scan was said to have "some pages recognised by OCR")."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from mnote_kr_testkit.scans import GeneratedScan, mixed_pdf, render

from mnote_kr.context import ProviderContext
from mnote_kr.core.config import load_config
from mnote_kr.models import SourceFile
from mnote_kr.plugins import Plugins, load_plugins

LINES = ["Invoice number 4471 for the harbour crane", "Delivered to Pier Seven on Monday"]


@pytest.fixture
def plugins() -> Plugins:
    return load_plugins(load_config(None))


@pytest.fixture(scope="module")
def page() -> GeneratedScan:
    return render(LINES, dpi=150, pt=14, page_inches=(6.0, 2.0), margin_inches=0.4, line_spacing=2.0)


def _note(plugins: Plugins, path: Path, tmp_path: Path) -> str:
    from mnote_kr_lightrag.client.recognized import own_text

    ctx = ProviderContext(provider="lightrag", workspace_root=tmp_path, config={}, data_dir=tmp_path,
                          state_dir=tmp_path, cache_dir=tmp_path, secret=lambda name: None,
                          recognize_text=plugins.recognize_text, recognized_pages=plugins.recognized_pages)
    data = path.read_bytes()
    source = SourceFile(path=str(path), rel_path=path.name, source_id="s", sha256=hashlib.sha256(data).hexdigest(),
                        size=len(data), mtime_ns=path.stat().st_mtime_ns)
    found = own_text(ctx, source)
    assert found is not None
    return found.note


def test_a_pdf_whose_every_page_was_recognised_says_all_of_them(plugins: Plugins, page: GeneratedScan,
                                                                 tmp_path: Path) -> None:
    scans = mixed_pdf(tmp_path / "scans.pdf", [page, page])
    before = hashlib.sha256(scans.read_bytes()).digest()
    note = _note(plugins, scans, tmp_path)
    assert "all 2 pages recognised by OCR" in note and "some pages" not in note, note
    assert "none has a readable text layer" in note and "no readable" not in note, note  # no double negative
    assert plugins.recognized_pages(str(scans)) == (2, 2)
    assert hashlib.sha256(scans.read_bytes()).digest() == before


def test_a_pdf_with_text_pages_says_how_many_were_recognised(plugins: Plugins, page: GeneratedScan,
                                                             tmp_path: Path) -> None:
    mixed = mixed_pdf(tmp_path / "report.pdf", [["Annual report of the port", "Chapter one: the quays."], page,
                                                 ["Chapter three lists the cranes and their owners."]])
    note = _note(plugins, mixed, tmp_path)
    assert "1 of its 3 pages recognised by OCR" in note and "all " not in note, note
    assert "it has no readable text layer" in note, note
    assert plugins.recognized_pages(str(mixed)) == (1, 3)
    assert plugins.recognized_pages(str(tmp_path / "never-read.pdf")) is None
