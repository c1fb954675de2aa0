"""A PDF page whose text layer is mostly mojibake (``mineru__garbled_formula.pdf``: a Chinese maths page
drawn with a font without a usable Unicode map) is read by OCR as a page without a text layer: its
recognised text is what is indexed, ingest and ``status`` say so, a record kept before the check is
made again, and a citation lands on a recognised line's box, never on the garbage."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.core.config import load_config
from mnote_kr.models import LocateRequest, SourceEntry
from mnote_kr.plugins import Plugins, load_plugins

GARBLED = CORPUS / "pdf" / "mineru__garbled_formula.pdf"


@pytest.fixture
def plugins() -> Plugins:
    return load_plugins(load_config(None))


@pytest.fixture
def garbled(tmp_path: Path) -> Path:
    return Path(shutil.copy(GARBLED, tmp_path / GARBLED.name))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_unreadable_layer_is_recognised_said_and_listed(plugins: Plugins, garbled: Path) -> None:
    before = _sha(garbled)
    said: list[str] = []
    text = plugins.recognize_text(str(garbled), said.append) or ""
    assert "归纳法" in text and "\x9c" not in text and "Ø" not in text, text[:300]
    assert f"{garbled.name}: text layer unreadable on 1 page(s) (a font without a usable Unicode map): " \
           "read by OCR" in said, said
    # nc26a read "0/1 pages recognised (0 pages without a text layer, 1 with an unreadable one of 1)"
    assert f"OCR {garbled.name}: 0/1 pages recognised (its only page has an unreadable text layer)" in said, said
    from mnote_kr_ocr.scan import cached

    record = cached(str(garbled))
    assert record is not None and record.unreadable_pages() == [1] and record.layers_checked

    entry = SourceEntry(source_id="g", source_path=str(garbled), source_root_relative_path=garbled.name,
                        source_hash="sha256:" + before, status="processed")  # type: ignore[arg-type]
    ocr = plugins.reader_status({garbled.name: entry})["ocr"]
    assert ocr["unreadable"] == [{"sourcePath": garbled.name, "pages": [1], "reason":
                                  "text layer unreadable on 1 page(s) (a font without a usable Unicode map): "
                                  "read by OCR"}], ocr
    from mnote_kr.citations.render.statustext import render_status

    shown = render_status({"workspace": "w", "registry": {"entries": 1}, "provider": {},
                           "readers": {"ocr": ocr}}).splitlines()
    assert f"           {garbled.name}: {ocr['unreadable'][0]['reason']}" in shown, shown
    assert "1 file(s) with an unreadable text layer read by OCR" in ocr["summary"]

    # a citation of a recognised line lands on its box on page 1, from the OCR plugin (not the garbled layer)
    loc = plugins.locate(LocateRequest(file=str(garbled), evidence="综上, 由归纳法, 原题得证.",
                                       query="用什么方法证出来的"))
    assert loc.locator_precision == "bbox" and loc.locator_plugin == "ocr", loc
    line = next(ln for ln in record.pages[0].lines if "归纳法" in ln.text)
    assert loc.page == 1 and loc.bbox is not None, loc
    assert loc.bbox[1] <= line.box[1] + 1 and loc.bbox[3] >= line.box[3] - 1, (loc.bbox, line)  # holds that line
    assert _sha(garbled) == before


def test_record_kept_before_the_check_is_made_again(plugins: Plugins, garbled: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A record of the garbled PDF kept by an older version (no page recognised, no ``layerCheck``)
    would keep the garbage indexed even through ``ingest --force``: it is made again, once."""
    from mnote_kr_ocr import scan

    monkeypatch.setattr(scan, "_memo", {})  # as a new process: the record read from the store
    old = scan.Scan(pages=[scan.Page(number=1, width=595.0, height=842.0, unit="pt", source="text-layer")])
    data = old.to_json().replace(b', "layerCheck": true', b"")
    assert b"layerCheck" not in data
    scan._store().put(scan._key(scan.content_hash(str(garbled))), data)
    kept = scan.cached(str(garbled))
    assert kept is not None and not kept.layers_checked and not kept.recognised_pages()
    calls: list[int] = []
    line = scan.Line(text="综上, 由归纳法, 原题得证.", box=[100.0, 100.0, 300.0, 120.0], score=0.9)
    monkeypatch.setattr(scan, "recognise_array", lambda rgb: calls.append(1) or [line])
    assert "归纳法" in (plugins.recognize_text(str(garbled)) or "")  # recognised now
    assert calls == [1] and scan.cached(str(garbled)).unreadable_pages() == [1]
    plugins.recognize_text(str(garbled))
    assert calls == [1]  # the new record answers


@pytest.mark.parametrize(("missing", "garbled", "total", "said"), [
    (0, 1, 1, "its only page has an unreadable text layer"),
    (1, 0, 1, "its only page has no text layer"),
    (3, 0, 3, "none of its 3 pages has a text layer"),
    (0, 2, 2, "all 2 of its pages have an unreadable text layer"),
    (3, 0, 6, "of its 6 pages, 3 have no text layer"),
    (0, 1, 4, "of its 4 pages, 1 has an unreadable text layer"),
    (2, 1, 5, "of its 5 pages, 2 have no text layer and 1 has an unreadable one"),
])
def test_the_pages_to_recognise_are_counted_as_a_person_says_it(missing: int, garbled: int, total: int,
                                                                said: str) -> None:
    from mnote_kr_ocr.scan import pages_to_recognise

    assert pages_to_recognise(missing, garbled, total) == said
