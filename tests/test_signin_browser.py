"""What a real browser keeps after a sign-in: a persistent Chromium profile's History and disk cache.

Chromium stores the first URL of a redirect chain in ``Default/History`` even when the server
answers it with a ``303``; so whatever the printed URL carries stays on disk. The test opens the
URLs mnote-kr prints (``open --show``'s, through the running server's ``POST /api/web/sign-in``,
and ``serve``'s), views a PDF page, closes the browser, then reads the profile: no token in the
History database, every code in it refused now, and no page image in the disk cache.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
from mnote_kr_testkit.browser import LAUNCH_ARGS, chromium_path  # noqa: F401  (fixture)

from mnote_kr.viewer import web, webpages
from tests.test_viewer_web import site  # noqa: F401  (fixture)


def _history_urls(profile: Path) -> list[str]:
    db = sqlite3.connect(f"file:{profile / 'Default' / 'History'}?mode=ro", uri=True)
    try:
        return [row[0] for row in db.execute("SELECT url FROM urls")]
    finally:
        db.close()


def _cache_bytes(profile: Path) -> bytes:
    files = [p for p in profile.rglob("*") if p.is_file() and "Cache" in str(p.relative_to(profile))]
    return b"".join(p.read_bytes() for p in files)


def test_a_persistent_profile_keeps_no_token_no_live_code_and_no_page_image(site, chromium_path,  # noqa: F811
                                                                            tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    server, _, cites, _ = site
    pdf = cites[".pdf"].citation_id
    shown = httpx.post(server.url + "/api/web/sign-in", json={"path": webpages.view_url(pdf)}, timeout=30,
                       headers={"Authorization": f"Bearer {server.token}"}).json()["url"]  # as open --show gets it
    printed = [shown, web.entry_url(server)]  # and serve's "Web UI:" line
    profile = tmp_path / "profile"
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(str(profile), executable_path=chromium_path,
                                                        args=LAUNCH_ARGS, headless=True)
        try:
            tab = context.new_page()
            images = []
            tab.on("response", lambda r: images.append(r) if "/page/1.png?" in r.url else None)
            for url in printed:
                response = tab.goto(url)
                assert response is not None and response.status == 200 and "code=" not in tab.url
            tab.goto(server.url + webpages.view_url(pdf))
            tab.wait_for_function("() => { const i = document.querySelector('img.page-image');"
                                  " return i && i.complete && i.naturalWidth > 0; }")
            assert images and all(r.headers["cache-control"] == "no-store" for r in images)
        finally:
            context.close()  # writes History to disk
    urls = _history_urls(profile)
    assert any(webpages.view_url(pdf) in u for u in urls), urls  # the visits are recorded at all
    assert not [u for u in urls if server.token in u]
    codes = [u for u in urls if "code=" in u]
    assert codes, urls  # what the printed URLs leave behind: spent codes
    for url in codes:
        r = httpx.get(url, timeout=30)
        assert r.status_code == 401 and "set-cookie" not in r.headers, url
    cached = _cache_bytes(profile)
    assert server.token.encode() not in cached
    assert b"/page/1.png" not in cached  # a private page image never reaches the disk cache
