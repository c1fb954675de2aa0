"""Chinese, Japanese and Korean in the viewer on a machine with no CJK font: the shipped webfont.

Chromium runs with a fontconfig that rejects every system font covering Chinese, Japanese or
Korean (``FONTCONFIG_FILE``; with no font at all Chromium loads no webfont either), so nothing
of the system can draw CJK. The viewer shows a Markdown note in the
three languages; each character's box is measured in the page (a DOM ``Range`` per character)
and cut from a screenshot. With the font route the characters are drawn as glyphs: ink in every
box, and different characters different shapes. The same page with ``/static/fonts/`` blocked
(what a server without the route gives) draws them all as the same missing-glyph box.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.browser import LAUNCH_ARGS, chromium_path, ink_masks  # noqa: F401  (fixture)

from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import fonts, web, webpages
from tests.surfaces import note_host

LINES = ["航空发动机状态监视系统", "航空エンジン状態監視", "항공엔진상태감시시스템"]
NOTE = "# zqvt turbine notes\n\n" + "\n\n".join(LINES) + "\n"

CHAR_BOXES = """() => {
  const out = [];
  for (const p of document.querySelectorAll('.para:not(.cited)')) {  // a highlight's background is no ink
    const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        if (node.data.charCodeAt(i) < 0x1100) continue;
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getBoundingClientRect();
        // in the page's coordinates, as the full-page screenshot: the viewer scrolls to the cited place
        out.push([node.data[i], r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY]);
      }
    }
  }
  return out;
}"""


def _serve(tmp_path: Path, query: str) -> Iterator[tuple[ApiServer, str]]:
    host, _ = note_host(tmp_path, "notes/cjk.md", NOTE)
    cid = host.search(query, top_k=5).results[0].citation_id
    with ApiServer(host, write_token_file=False) as server:
        yield server, cid


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ApiServer, str]]:
    """The page of a citation of the Chinese line: its quote, above the document, holds Han text first."""
    yield from _serve(tmp_path, LINES[0])


@pytest.fixture
def served_heading(tmp_path: Path) -> Iterator[tuple[ApiServer, str]]:
    """The page of a citation of the Latin heading: the document's Chinese line is the page's first Han text."""
    yield from _serve(tmp_path, "zqvt turbine notes")


def _no_cjk_fonts_env(tmp_path: Path) -> dict[str, str]:
    """A fontconfig of the system's fonts less every font that covers Chinese, Japanese or Korean."""
    rejects = "".join(f"<pattern><patelt name=\"lang\"><string>{lang}</string></patelt></pattern>"
                      for lang in ("zh", "ja", "ko"))
    conf = tmp_path / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<fontconfig><include ignore_missing="yes">/etc/fonts/fonts.conf</include>'
                    f"<selectfont><rejectfont>{rejects}</rejectfont></selectfont></fontconfig>\n", encoding="utf-8")
    env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
    if shutil.which("fc-list"):  # the premise, where it can be seen: no CJK font is left
        for lang in ("zh", "ja", "ko"):
            listed = subprocess.run(["fc-list", f":lang={lang}"], env=env, capture_output=True, text=True, check=True)
            assert listed.stdout.strip() == "", listed.stdout
    return env


def _glyphs(browser: Any, server: ApiServer, cid: str, *, block_font: bool) -> dict[str, bytes]:
    """Each CJK character of the page -> its box's dark/light mask in a screenshot."""
    context = browser.new_context(viewport={"width": 1000, "height": 800}, device_scale_factor=1)
    fetched: list[str] = []
    try:
        if block_font:
            context.route("**/static/fonts/**", lambda route: route.abort())
        tab = context.new_page()
        tab.on("requestfinished", lambda r: fetched.append(r.url) if "/static/fonts/" in r.url else None)
        response = tab.goto(web.entry_url(server, webpages.view_url(cid)))
        assert response is not None and response.status == 200
        tab.evaluate("() => document.fonts.ready")
        boxes = tab.evaluate(CHAR_BOXES)
        masks = ink_masks(tab.screenshot(full_page=True), boxes)
    finally:
        context.close()
    assert bool(fetched) != block_font, fetched  # the font comes from this server's route, or not at all
    return masks


def test_cjk_text_is_drawn_from_the_shipped_font_on_a_machine_without_cjk_fonts(chromium_path, served,  # noqa: F811
                                                                                tmp_path: Path) -> None:
    _drawn_as_glyphs(chromium_path, served, tmp_path, cited_line=True)


def test_the_first_han_text_of_a_page_is_drawn_too(chromium_path, served_heading, tmp_path: Path) -> None:  # noqa: F811
    _drawn_as_glyphs(chromium_path, served_heading, tmp_path, cited_line=False)


def _drawn_as_glyphs(browser_path: str, served: tuple[ApiServer, str], tmp_path: Path, *, cited_line: bool) -> None:
    """Each CJK character of the document's paragraphs not cited (``cited_line``: the first line is) is
    drawn from the shipped font: ink, and every character its own shape; with the font route blocked,
    missing-glyph boxes."""
    from playwright.sync_api import sync_playwright

    server, cid = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path, args=LAUNCH_ARGS, headless=True,
                                     env=_no_cjk_fonts_env(tmp_path))
        try:
            drawn = _glyphs(browser, server, cid, block_font=False)
            tofu = _glyphs(browser, server, cid, block_font=True)
        finally:
            browser.close()
    chars = set("".join(LINES[1:])) if cited_line else set("".join(LINES))
    assert set(drawn) == chars and set(tofu) == chars
    inked = {ch: sum(m) / max(1, len(m)) for ch, m in drawn.items()}
    assert all(0.05 < share < 0.7 for share in inked.values()), inked
    assert len(set(drawn.values())) == len(chars)  # every character its own shape: glyphs
    assert len(set(tofu.values())) <= 3  # without the route: one missing-glyph box (per size) for all


def test_the_font_route_serves_the_shipped_opentype_file_without_signing_in(served) -> None:
    import httpx

    server, _ = served
    r = httpx.get(server.url + fonts.ROUTE, timeout=30)
    path = fonts.webfont()
    assert path is not None and r.status_code == 200 and r.headers["content-type"] == "font/otf"
    assert r.content[:4] == b"OTTO" and len(r.content) == path.stat().st_size
    css = httpx.get(server.url + "/static/viewer.css", timeout=30).text
    assert f"url({fonts.ROUTE})" in css and '"mnote CJK"' in css.split("body {", 1)[1].split("}", 1)[0]
