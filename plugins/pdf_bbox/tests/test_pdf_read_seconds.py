"""The PDF reader's time limit counts the reading's own CPU seconds, not the wall clock's.

Round 28 (inview28): at load 27 on two cores tracemonkey, a 14-page paper read in a few CPU seconds, passed the reader's
20 s of wall time and was cited at the file level. A reading kept waiting by a busy machine is not a costly file; a
reading that computes without end still is. Here a page reader that waits (a stand-in for a machine too busy to run it:
the wait is the reader's, the test waits on nothing) and one that burns CPU are put in PDFium's place, and the real
reader's budget is checked against each. The wall clock the budget module sees is a stand-in that each page moves
on, so no test sleeps.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pypdf
import pytest
from mnote_kr_testkit.pdfs import PdfBuilder, cid_font_pdf

from mnote_kr.errors import DocumentError
from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import budget, cidtext, clear_cache, locate, pdftext


def _pages_pdf(path: Path, pages: int) -> Path:
    b = PdfBuilder()
    for n in range(pages):
        b.text(b.add_page(), 72, 600, f"Batch {4200 + n} was weighed, dried and weighed again.", 11)
    path.write_bytes(b.build())
    return path


def _counting(monkeypatch: pytest.MonkeyPatch, work: Any) -> list[int]:
    """PDFium's page reader with ``work`` done before each page; the page numbers it read."""
    real, read = pdftext._read_page, []

    def page_reader(page: Any, number: int, unreadable: list[int] | None = None) -> Any:
        work()
        read.append(number)
        return real(page, number, unreadable)

    monkeypatch.setattr(pdftext, "_read_page", page_reader)
    return read


def _burn(seconds: float) -> None:
    """Compute for ``seconds`` of this thread's CPU time."""
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        sum(i * i for i in range(2000))


def _wall_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The budget module's wall clock made a stand-in (its CPU clock stays real): ``[now]``, moved on by the test."""
    wall = [0.0]
    monkeypatch.setattr(budget, "time", SimpleNamespace(thread_time=time.thread_time, monotonic=lambda: wall[0]))
    return wall


@pytest.fixture(autouse=True)
def _uncached(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    clear_cache()


def test_a_reading_kept_waiting_past_the_limit_in_wall_time_reads_every_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = _pages_pdf(tmp_path / "waited.pdf", 6)
    monkeypatch.setattr(budget, "MAX_SECONDS", 0.3)
    wall = _wall_clock(monkeypatch)
    read = _counting(monkeypatch, lambda: wall.__setitem__(0, wall[0] + 0.1))  # 0.6 s of wall time, no CPU
    doc = pdftext.read_document(f)
    assert wall[0] > budget.MAX_SECONDS and read == [1, 2, 3, 4, 5, 6] and len(doc.pages) == 6
    # the wall clock alone would have stopped it (the limit as it was before round 29)
    monkeypatch.setattr(budget, "CPU_SECONDS", False)
    clear_cache()
    wall[0], read[:] = 0.0, []
    with pytest.raises(DocumentError):
        pdftext.read_document(f)
    assert len(read) < 6, read
    monkeypatch.setattr(budget, "CPU_SECONDS", True)
    clear_cache()
    loc = locate(LocateRequest(file=str(f), evidence="Batch 4205 was weighed, dried and weighed again.", query="4205"))
    assert loc.locator_precision == "bbox" and loc.page == 6, loc.reason


def test_a_reading_that_burns_cpu_past_the_limit_is_stopped_at_the_page_it_passed_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = _pages_pdf(tmp_path / "costly.pdf", 10)
    monkeypatch.setattr(budget, "MAX_SECONDS", 0.3)
    read = _counting(monkeypatch, lambda: _burn(0.12))
    with pytest.raises(DocumentError) as exc:
        pdftext.read_document(f)
    assert len(read) < 10 and read == list(range(1, len(read) + 1)), read  # stopped, not read to the end
    message = exc.value.message
    assert message.startswith("PDF over the reader's budget") and "0.3 s of CPU" in message, message
    assert f"at page {len(read)}" in message and str(f) in message
    clear_cache()
    from mnote_kr.citations.pipeline import _locate
    from mnote_kr.plugins import load_plugins

    request = LocateRequest(file=str(f), evidence="Batch 4205 was weighed, dried and weighed again.", query="4205")
    loc = _locate(load_plugins(), request, f.stat(), None)  # a search cites such a file at the file level
    assert loc.locator_precision == "file" and "over the reader's budget" in (loc.reason or ""), loc


def test_pages_read_again_by_pdfminer_stop_once_the_reading_spent_its_seconds(tmp_path: Path) -> None:
    """The pages PDFium cannot read (CJK text in a font the PDF does not embed) share the same stopwatch."""
    one = tmp_path / "one.pdf"
    one.write_bytes(cid_font_pdf([(72, 760, "航空发动机状态监视系统")])[0])
    writer = pypdf.PdfWriter()
    for _ in range(3):
        writer.append(str(one))
    f = tmp_path / "cid.pdf"
    with f.open("wb") as fh:
        writer.write(fh)

    class Spent(budget.Stopwatch):
        def over(self, limit: float | None = None) -> bool:
            return True

    class Fresh(budget.Stopwatch):
        def over(self, limit: float | None = None) -> bool:
            return False

    assert list(cidtext.read_pages(f, [1, 2, 3], Fresh())) == [1, 2, 3]
    # a spent budget still keeps the page it was reading when it ran out, and reads no further
    assert list(cidtext.read_pages(f, [1, 2, 3], Spent())) == [1]


def test_the_stopwatch_counts_this_threads_cpu_not_time_spent_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    wall = _wall_clock(monkeypatch)
    watch = budget.Stopwatch()
    wall[0] += 0.2  # 0.2 s go by on the wall clock, spent waiting: no CPU
    assert watch.spent() < 0.1 and not watch.over(0.15)
    monkeypatch.setattr(budget, "CPU_SECONDS", False)
    by_wall = budget.Stopwatch()
    wall[0] += 0.2
    assert by_wall.over(0.15)  # a wall-clock stopwatch counts the same wait
    _burn(0.2)
    assert watch.over(0.15) and watch.unit == f"{budget.MAX_SECONDS:g} s of CPU"


def test_a_reading_stalled_past_the_wall_backstop_stops_and_lets_the_viewer_have_pdfium(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """review30 finding 5: a reading blocked in I/O (a stalled network mount, a cloud placeholder, a machine swapping)
    spends no CPU, so the CPU limit never stopped it, and it held PDFium's lock all the while: every other locate and
    every viewer page of 'serve' waited behind it. A generous wall-clock backstop (``WALL_TIMES`` the CPU limit)
    stops it at the page it passed it. Here each page's read really waits (on an event nobody sets, as on a mount
    that answers late) and a viewer thread waits for PDFium; the test waits on the viewer getting it."""
    from mnote_kr_pdf_bbox.pdfium import PDFIUM_LOCK

    f = _pages_pdf(tmp_path / "stalled.pdf", 20)
    monkeypatch.setattr(budget, "MAX_SECONDS", 2.0)  # CPU seconds: not reached by a reading that waits
    monkeypatch.setattr(budget, "WALL_TIMES", 0.1)  # the wall backstop: 0.2 s here (100 s by default)
    stalled, viewer_has_pdfium = threading.Event(), threading.Event()
    pages_then: list[int] = []

    def viewer() -> None:
        with PDFIUM_LOCK:
            pages_then.append(len(read))
            viewer_has_pdfium.set()

    beside = threading.Thread(target=viewer, daemon=True)

    def stalled_read() -> None:
        if not beside.is_alive() and not pages_then:
            beside.start()  # a viewer page asks for PDFium while the reading holds it
        stalled.wait(0.08)  # the page's bytes come late: wall time passes, no CPU is spent

    read = _counting(monkeypatch, stalled_read)
    with pytest.raises(DocumentError) as exc:
        pdftext.read_document(f)
    assert viewer_has_pdfium.wait(timeout=30)
    assert 1 <= len(read) < 20 and pages_then == [len(read)], (read, pages_then)  # stopped; the viewer came after
    message = exc.value.message
    assert "0.2 s of wall time" in message and f"at page {len(read)}" in message, message
    # a reading that waits less than the backstop reads every page
    monkeypatch.setattr(budget, "WALL_TIMES", 100.0)
    read[:] = []
    assert len(pdftext.read_document(f).pages) == 20 and len(read) == 20
