"""A real headless Chromium for the web UI's tests: Debian's ``chromium`` driven by Playwright.

Playwright's own browser download cannot work here (no network beyond the package
registries), so tests launch the system browser by ``executable_path``. When it is
missing, :func:`ensure_chromium` installs it with ``apt-get`` if we are root (as CI
and the developers' machines are), and otherwise fails loudly with the command to run:
the browser tests never skip.

Use the fixtures from a test module::

    from mnote_kr_testkit.browser import browser, chromium_path  # noqa: F401  (fixtures)

``read_png`` decodes a screenshot without an imaging library.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
INSTALL_HINT = "run 'apt-get update && apt-get install -y chromium' as root (Debian's package)"


def ensure_chromium(timeout_s: float = 1200) -> str:
    """Path of the system Chromium, installing Debian's package first when we are root."""
    found = shutil.which("chromium") or (CHROMIUM if os.path.exists(CHROMIUM) else None)
    if found:
        return found
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for argv in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "chromium"]):
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout_s, check=False)
            if done.returncode != 0:
                tail = (done.stderr or done.stdout)[-800:]
                raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {tail}")
        found = shutil.which("chromium") or (CHROMIUM if os.path.exists(CHROMIUM) else None)
        if found:
            return found
    raise RuntimeError(f"Chromium is not installed and cannot be installed here: {INSTALL_HINT}")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Session fixture: the system Chromium (installed on first use when root); fails, never skips."""
    try:
        return ensure_chromium()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"browser tests need Chromium: {exc}", pytrace=False)


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    """Module fixture: a Playwright ``Browser`` on the system Chromium (headless, offline flags).

    Module-scoped on purpose: Playwright's sync API keeps an event loop running in the main
    thread while it is open, and any later test that calls ``asyncio.run`` would then fail
    ("cannot be called from a running event loop"). Closing it with its module ends that loop.
    """
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # a missing test dependency is a failure, not a skip
        pytest.fail(f"browser tests need Playwright for Python (pip install playwright): {exc}", pytrace=False)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path, args=LAUNCH_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


def artefact_dir(tmp_path_factory: pytest.TempPathFactory, name: str = "screenshots") -> Path:
    """A folder under pytest's base temp dir for a run's artefacts (kept with the run, never committed)."""
    out = tmp_path_factory.getbasetemp() / name
    out.mkdir(parents=True, exist_ok=True)
    return out


def read_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", header[:10])
    if depth != 8 or color not in (2, 6) or header[12] != 0:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {color}, interlace {header[12]})")
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        prev = line
        rows.append(bytes(line) if bpp == 3 else bytes(v for j, v in enumerate(line) if j % 4 != 3))
    return width, height, rows


def ink_masks(png: bytes, boxes: list[Any], dark: int = 140) -> dict[str, bytes]:
    """Each character of ``boxes`` (``[char, x0, y0, x1, y1]`` in the page's pixels, as a DOM ``Range`` gives them)
    -> its box's ink in the screenshot ``png``: a byte a pixel, 1 where it is dark (every channel below ``dark``);
    a character's first box. Two glyphs of one character draw the same mask, a missing-glyph box the same for all."""
    width, _, rows = read_png(png)
    bpp = len(rows[0]) // width
    out: dict[str, bytes] = {}
    for ch, x0, y0, x1, y1 in boxes:
        mask = bytearray()
        for y in range(round(y0), round(y1)):
            mask.extend(1 if min(rows[y][x * bpp:x * bpp + 3]) < dark else 0 for x in range(round(x0), round(x1)))
        out.setdefault(ch, bytes(mask))
    return out


def page_view_geometry(page: Any) -> dict[str, Any]:
    """On a viewer page (``/view/{id}`` of a paged source), once its page image has loaded: the
    image's and the primary highlight's screen boxes (``img``, ``hl``), the page frame's size in
    the locator's unit (``w``, ``h``: points, or an image's pixels), the overlay's rectangle count
    (``rects``), the image's natural width (``natural``), and the highlight mapped back into the
    frame's unit (``box``: what a test compares with the locator's ``bbox``)."""
    page.wait_for_function("() => { const i = document.querySelector('img.page-image');"
                           " return i && i.complete && i.naturalWidth > 0; }")
    geo: dict[str, Any] = page.evaluate("""() => {
        const r = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
        const box = document.querySelector('.pdf-page');
        const img = document.querySelector('img.page-image');
        return {img: r(img), hl: r(document.getElementById('hl')),
                w: parseFloat(box.dataset.widthPt), h: parseFloat(box.dataset.heightPt),
                rects: document.querySelectorAll('svg.overlay rect').length, natural: img.naturalWidth};
    }""")
    ix0, iy0, ix1, iy1 = geo["img"]
    kx, ky = geo["w"] / (ix1 - ix0), geo["h"] / (iy1 - iy0)
    hx0, hy0, hx1, hy1 = geo["hl"]
    geo["box"] = [(hx0 - ix0) * kx, (hy0 - iy0) * ky, (hx1 - ix0) * kx, (hy1 - iy0) * ky]
    return geo
