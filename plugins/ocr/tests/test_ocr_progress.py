"""OCR of a scanned PDF says as it goes how far it is, in the lines ``ingest`` prints piped.

Seen by a newcomer: ``ingest`` of an 8-page scanned PDF printed nothing for 56-72 s while OCR ran. The
plugin said "OCR NAME: page 3 of 8 recognised", which the CLI's piped writer drops (it prints file
counts and a step's ``N/M word`` counts only). Now a line when OCR of a file starts, with its page
count, and a count per page the writer prints (each tenth, and a line every 4 s, the heartbeat).
Recognition is faked (no model, no waiting).
"""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_ocr import scan as scanning
from PIL import Image

from mnote_kr.cli.reports import progress_writer


def _scanned_pdf(path: Path, pages: int) -> Path:
    images = [Image.new("RGB", (300, 200), (255, 255, 255 - n)) for n in range(pages)]  # no text layer
    images[0].save(path, "PDF", resolution=72.0, save_all=True, append_images=images[1:])
    return path


def test_ocr_of_a_scanned_pdf_says_its_start_and_each_page_piped(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = _scanned_pdf(tmp_path / "letters.pdf", 8)
    recognised: list[Any] = []

    def fake_recognise(im: Image.Image, max_pixels: int) -> tuple[list[Any], float]:
        recognised.append(im.size)
        return [], 1.0

    monkeypatch.setattr(scanning, "recognise_image", fake_recognise)
    said: list[str] = []
    scanning.scan(str(pdf), said.append)
    assert len(recognised) == 8

    err = io.StringIO()  # piped, as the newcomer's log was
    monkeypatch.setattr("sys.stderr", err)
    write = progress_writer(clock=lambda: 0.0)
    for line in said:
        write(line)
    shown = err.getvalue().splitlines()
    assert shown, said
    assert shown[0].startswith("OCR letters.pdf: 0/8 pages recognised"), shown
    assert shown[0] == "OCR letters.pdf: 0/8 pages recognised (none of its 8 pages has a text layer)", shown
    counts = [line.split(": ")[1].split(" ")[0] for line in shown]
    assert counts == [f"{n}/8" for n in range(9)], shown


def test_ocr_of_an_image_says_its_start_before_recognising_and_beats_while_it_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer's piped ingest of one PNG printed nothing for 45 s: the only line came after recognition."""
    png = tmp_path / "scan.png"
    Image.new("RGB", (640, 480), (255, 255, 255)).save(png)
    said: list[str] = []
    beat = threading.Event()

    def say(line: str) -> None:
        said.append(line)
        if "s so far" in line:
            beat.set()

    before: list[str] = []

    def slow_recognise(im: Image.Image, max_pixels: int) -> tuple[list[Any], float]:
        before.extend(said)
        assert beat.wait(30), said  # recognition "runs" until a heartbeat line has been said
        return [], 1.0

    monkeypatch.setattr(scanning, "recognise_image", slow_recognise)
    monkeypatch.setattr(scanning, "HEARTBEAT_S", 0.01)
    scanning.scan(str(png), say)
    assert before and before[0].startswith("OCR scan.png: 0/1 pages recognised"), before
    assert "640 x 480 pixels" in before[0]
    assert said[-1].startswith("OCR scan.png: 1/1 pages recognised"), said
    beats = [line for line in said if "s so far" in line]
    assert beats and all(line.startswith("OCR scan.png: 0/1 pages recognised;") for line in beats), said
    n = len(said)
    assert not [t for t in threading.enumerate() if t.name == "ocr-heartbeat"]  # stopped with the page
    assert len(said) == n

    err = io.StringIO()  # piped: the start and the end are printed (a step's N/M count)
    monkeypatch.setattr("sys.stderr", err)
    write = progress_writer(clock=lambda: 0.0)
    for line in said:
        write(line)
    shown = err.getvalue().splitlines()
    assert shown[0].startswith("OCR scan.png: 0/1") and shown[-1].startswith("OCR scan.png: 1/1"), shown
