"""The web UI's two forms, submitted by clicking in a real headless Chromium.

``POST /signin`` (the 401 page's token form) and ``POST /view/{id}/open`` ("Open in the system
viewer") must carry this server's own ``Origin``. What a browser puts in that header follows the
page's ``Referrer-Policy``: under ``no-referrer`` Chromium sends ``Origin: null`` even for a form
posting to its own origin, so a test posting through httpx with a hand-written ``Origin`` cannot
see it. These tests click the buttons as a person does, and check that a form on another origin
(a page on this machine at another port: same site, so the ``SameSite=Strict`` cookie goes along)
is still refused and launches nothing, whatever referrer policy that page sets.

The server is ``test_viewer_web``'s site (the host's real citation pipeline, fake provider).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from mnote_kr_testkit.browser import browser, chromium_path  # noqa: F401  (fixtures)

from mnote_kr.viewer import web, webpages
from tests.test_viewer_web import site  # noqa: F401  (fixture)


@pytest.fixture
def foreign() -> Iterator[tuple[str, dict[str, str]]]:
    """Another origin on this machine: serves ``pages[path]`` as HTML (``?nr`` adds ``no-referrer``)."""
    pages: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            path, _, query = self.path.partition("?")
            body = pages.get(path, "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            if query == "nr":
                self.send_header("Referrer-Policy", "no-referrer")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", pages
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


def test_the_sign_in_form_signs_in_when_clicked(site, browser) -> None:  # noqa: F811
    server, _, cites, _ = site
    path = webpages.view_url(cites[".docx"].citation_id)
    context = browser.new_context()
    try:
        tab = context.new_page()
        first = tab.goto(server.url + path)
        assert first is not None and first.status == 401
        tab.fill("input[name=token]", server.token)
        with tab.expect_navigation() as nav:
            tab.click("form.sign-in button[type=submit]")
        assert nav.value is not None and nav.value.status == 200, tab.content()[:400]
        assert tab.url == server.url + path
        assert tab.locator("form.open-system button").count() == 1  # the viewer, signed in
        assert "Pyrolytic" in tab.inner_text("body")
    finally:
        context.close()


def test_the_open_button_opens_the_file_when_clicked(site, browser) -> None:  # noqa: F811
    server, host, cites, _ = site
    launched: list[list[str]] = []
    web.state(server).launch = launched.append
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(web.viewer_url(server, cites[".docx"].citation_id))
        with tab.expect_navigation() as nav:
            tab.click("form.open-system button")
        assert nav.value is not None and nav.value.status == 200, tab.content()[:400]
        assert "opened=" in tab.url and "Forbidden" not in tab.inner_text("body")
        assert tab.locator("p.opened").count() == 1
    finally:
        context.close()
    if "opened=1" in tab.url:  # an opener (xdg-open or another) exists on this machine
        assert launched and launched[0][-1] == str(host.root / "papers" / "report.docx")


@pytest.mark.parametrize("policy", ["", "?nr"], ids=["default-policy", "no-referrer"])
def test_a_form_on_another_origin_is_refused_and_opens_nothing(site, browser, foreign, policy) -> None:  # noqa: F811
    server, _, cites, _ = site
    launched: list[list[str]] = []
    web.state(server).launch = launched.append
    origin, pages = foreign
    target = escape(server.url + webpages.view_url(cites[".docx"].citation_id) + "/open")
    pages["/"] = f'<form method="post" action="{target}"><button type="submit">Win a prize</button></form>'
    pages["/signin"] = (f'<form method="post" action="{escape(server.url)}/signin">'
                        f'<input type="hidden" name="token" value="{escape(server.token)}">'
                        '<input type="hidden" name="next" value="/"><button type="submit">Go</button></form>')
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(web.entry_url(server))  # signed in: the SameSite=Strict cookie goes to a same-site post
        for page in ("/", "/signin"):
            tab.goto(origin + page + policy)
            with tab.expect_navigation() as nav:
                tab.click("button")
            assert nav.value is not None and nav.value.status == 403, page
            assert "other sites are refused" in tab.inner_text("body"), page
            assert "set-cookie" not in nav.value.headers, page
    finally:
        context.close()
    assert launched == []
