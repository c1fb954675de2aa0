"""Hostile and long PDFs: bounded memory and time, one clear error, or an honest answer."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from mnote_kr_testkit.pdfs import PdfBuilder, flate_bomb_pdf, iou, many_pages_pdf

from mnote_kr.errors import DocumentError
from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import budget, locate

# Runs the CLI in a child and reports the child's peak memory (ru_maxrss is in KiB on Linux).
_MEASURE = """
import resource, subprocess, sys, time
t = time.monotonic()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(repr((p.returncode, p.stdout, p.stderr, time.monotonic() - t,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)))
"""


def _locate_in_child(file: Path, home: Path) -> tuple[int, str, str, float, float]:
    cmd = [sys.executable, "-c", _MEASURE, sys.executable, "-m", "mnote_kr", "locate", str(file),
           "--evidence", "The same line on every page.", "--query", "line", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "MNOTE_KR_HOME": str(home)})
    assert out.returncode == 0, out.stderr
    return eval(out.stdout)  # noqa: S307 - our own repr() of a tuple


@pytest.mark.parametrize(
    ("name", "make", "limit"),
    [("bomb.pdf", flate_bomb_pdf, "decompressed stream data"), ("pages.pdf", many_pages_pdf, "10000 pages")],
)
def test_hostile_pdf_ends_fast_in_bounded_memory_with_one_clear_error(tmp_path, name, make, limit) -> None:  # noqa: ANN001
    f = tmp_path / name
    f.write_bytes(make())
    before = f.read_bytes()
    rc, stdout, stderr, seconds, peak_mb = _locate_in_child(f, tmp_path / "home")
    assert seconds < 10, seconds
    assert peak_mb < 500, peak_mb
    assert rc == 1 and stdout == ""
    lines = stderr.strip().splitlines()
    assert lines[0].startswith("Error: PDF over the reader's budget") and limit in lines[0] and str(f) in lines[0]
    assert f.read_bytes() == before  # never touch a user's file


def test_flate_bomb_is_stopped_before_pdfium_and_the_error_names_the_limit(tmp_path) -> None:  # noqa: ANN001
    f = tmp_path / "bomb.pdf"
    f.write_bytes(flate_bomb_pdf(64))  # small enough to inflate here: 64 MiB
    assert budget.check_streams(f) == 64 << 20
    with pytest.raises(DocumentError) as exc:
        budget.check_streams(f, limit=16 << 20)
    assert "limit 16 MiB" in exc.value.message and str(f) in exc.value.message


def test_search_goes_on_when_one_cited_pdf_is_over_budget(tmp_path) -> None:  # noqa: ANN001
    from mnote_kr.citations.pipeline import _locate
    from mnote_kr.plugins import load_plugins

    bomb = tmp_path / "bomb.pdf"
    bomb.write_bytes(flate_bomb_pdf())
    good = tmp_path / "good.pdf"
    b = PdfBuilder()
    line = b.text(b.add_page(), 72, 700, "Blade heating kept the power loss below five percent.", 11)
    good.write_bytes(b.build())
    plugins = load_plugins()
    evidence = "Blade heating kept the power loss below five percent."
    locs = [_locate(plugins, LocateRequest(file=str(p), evidence=evidence, query="blade heating"), p.stat(), None)
            for p in (bomb, good)]
    assert locs[0].locator_precision == "file" and "over the reader's budget" in (locs[0].reason or "")
    assert locs[1].locator_precision == "bbox" and locs[1].page == 1 and locs[1].bbox is not None
    assert iou(locs[1].bbox, line.box) >= 0.5


def test_unique_sentence_in_a_long_repetitive_pdf_is_found(tmp_path) -> None:  # noqa: ANN001
    b = PdfBuilder()
    shared = ["The sampling protocol was applied to every batch in the same way as before.",
              "Each batch was weighed, dried and weighed again under the same conditions.",
              "The operators recorded the results in the laboratory notebook for review."]
    target = None
    for n in range(60):
        p = b.add_page()
        y = 600.0  # below the header band: the shared lines are body text, not furniture
        for t in shared:
            b.text(p, 72, y, t, 11)
            y -= 14
        d = b.text(p, 72, y, f"The measured value for batch {4200 + n} was within the tolerance band.", 11)
        if n == 37:
            target = d
        y -= 14
        for t in shared:
            b.text(p, 72, y, t, 11)
            y -= 14
    f = tmp_path / "repetitive.pdf"
    f.write_bytes(b.build())
    evidence = "\n".join([*shared, "The measured value for batch 4237 was within the tolerance band.", *shared])
    t = time.perf_counter()
    loc = locate(LocateRequest(file=str(f), evidence=evidence, query="batch 4237"))
    assert time.perf_counter() - t < 10
    assert loc.locator_precision == "bbox" and loc.page == 38
    assert target is not None and loc.bbox[1] <= target.box[1] + 1 and loc.bbox[3] >= target.box[3] - 1
    assert loc.bbox[3] - loc.bbox[1] < 120  # the paragraph on that page, not the whole document
