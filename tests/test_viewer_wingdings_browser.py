"""A form's Wingdings boxes in the web viewer: drawn as the boxes the quotes show (☑ ☒ ◻), not as blank boxes.

Word and PDF text layers write Wingdings' boxes as private-use code points (U+F0FE ☑, U+F0FD ☒, U+F0A8 ◻,
U+F078 ⌧); no font a browser has draws them, so the viewer's paragraph view showed each as the same empty
missing-glyph box while the quote above it read "Married ☑ Yes ◻ No" (round 28 fixed the quotes only). The
viewer shows a Markdown note of a form in a real headless Chromium; each box's pixels are cut from a screenshot
(a DOM ``Range`` per character): every mark its own shape, none a private-use character.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.browser import browser, chromium_path, ink_masks  # noqa: F401  (fixtures)

from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web, webpages
from tests.surfaces import note_host

FORM = ("# zqvt intake form\n\nMarried \uf0fe Yes \uf0a8 No\n\nStatus \uf0fd rejected \uf0fe approved\n\n"
        "\uf078 approved by the board\n")
SHOWN = ["Married \u2611 Yes \u25fb No", "Status \u2612 rejected \u2611 approved", "\u2612 approved by the board"]

MARK_BOXES = """() => {
  const out = [];
  for (const p of document.querySelectorAll('article.doc .para')) {
    const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i++) {
        if (node.data.charCodeAt(i) < 0x2000) continue;  // the marks, not the words
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getBoundingClientRect();
        out.push([node.data[i], r.left + scrollX, r.top + scrollY, r.right + scrollX, r.bottom + scrollY]);
      }
    }
  }
  return out;
}"""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ApiServer, str]]:
    host, note = note_host(tmp_path, "forms/intake.md", FORM)
    before = note.read_bytes()
    cid = host.search("zqvt intake form", top_k=5).results[0].citation_id
    with ApiServer(host, write_token_file=False) as server:
        yield server, cid
    assert note.read_bytes() == before


def test_a_forms_wingdings_boxes_are_drawn_as_the_boxes_the_quotes_show(browser, served) -> None:  # noqa: F811
    server, cid = served
    context = browser.new_context(viewport={"width": 1000, "height": 800}, device_scale_factor=1)
    try:
        tab = context.new_page()
        response = tab.goto(web.entry_url(server, webpages.view_url(cid)))
        assert response is not None and response.status == 200
        texts = tab.evaluate("() => [...document.querySelectorAll('article.doc .para')].map(p => p.innerText)")
        masks = ink_masks(tab.screenshot(full_page=True), tab.evaluate(MARK_BOXES))
    finally:
        context.close()
    assert texts[1:] == SHOWN, texts  # the quotes' characters, one for one
    assert not any(0xE000 <= ord(ch) <= 0xF8FF for t in texts for ch in t)
    assert set(masks) == {"\u2611", "\u2612", "\u25fb"}, set(masks)
    assert all(sum(m) for m in masks.values())  # ink: drawn
    assert len(set(masks.values())) == 3  # each its own shape: glyphs, not one missing-glyph box
