"""Browser sign-in by one-time code (``signin.py``): single use, seconds-lived, never the token in a URL.

Over real HTTP against the server of ``test_viewer_web``'s site (the host's real citation pipeline,
fake provider); ``test_signin_browser.py`` checks the same in a persistent Chromium profile.
"""

from __future__ import annotations

import httpx

from mnote_kr.viewer import signin, web, webpages
from tests.test_viewer_web import site  # noqa: F401  (fixture)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_code_opens_once_and_not_after_its_time() -> None:
    clock = Clock()
    book = signin.CodeBook(ttl_s=30, clock=clock)
    first, second = book.mint(), book.mint()
    assert first != second and len(first) >= 24
    assert book.redeem(first) and not book.redeem(first)  # single use
    clock.now += 30.0
    assert not book.redeem(second)  # expired, unused
    assert not book.redeem("") and not book.redeem("x" * 24)


def test_open_codes_are_bounded_oldest_forgotten_first() -> None:
    book = signin.CodeBook(max_open=3)
    codes = [book.mint() for _ in range(4)]
    assert not book.redeem(codes[0]) and all(book.redeem(c) for c in codes[1:])


def test_sign_in_targets_stay_on_this_server() -> None:
    for bad in ("//evil.example/", "https://evil.example/", "/\\evil.example", "/api/knowledge-rag/status", ""):
        assert signin.local_path(bad) == "/"
    assert signin.with_code("http://127.0.0.1:9", "/view/ab?page=2", "C") == "http://127.0.0.1:9/view/ab?page=2&code=C"


def test_printed_urls_carry_a_code_that_signs_in_once(site) -> None:  # noqa: F811
    server, _, cites, _ = site
    url = web.viewer_url(server, cites[".docx"].citation_id)
    assert server.token not in url and "code=" in url
    with httpx.Client(timeout=30) as browser:
        r = browser.get(url)
        assert r.status_code == 303 and r.headers["location"] == webpages.view_url(cites[".docx"].citation_id)
        assert "HttpOnly" in r.headers["set-cookie"] and server.token not in r.headers["set-cookie"]
        assert browser.get(server.url + r.headers["location"]).status_code == 200
    with httpx.Client(timeout=30) as other:  # the same URL, from history or a process list
        again = other.get(url)
        assert again.status_code == 401 and "set-cookie" not in again.headers
        assert "used or expired" in again.text and "Pyrolytic" not in again.text


def test_a_head_request_leaves_the_code_for_the_browser(site) -> None:  # noqa: F811
    """A link preview or a shell probing the printed URL with HEAD must not spend the person's code."""
    server, _, cites, _ = site
    url = web.viewer_url(server, cites[".docx"].citation_id)
    with httpx.Client(timeout=30) as probe:
        peek = probe.head(url)
        assert peek.status_code == 303 and "set-cookie" not in peek.headers
        assert peek.headers["location"] == webpages.view_url(cites[".docx"].citation_id)
    with httpx.Client(timeout=30) as browser:
        r = browser.get(url)
        assert r.status_code == 303 and "HttpOnly" in r.headers["set-cookie"]
        assert browser.head(url).status_code == 401  # spent by the GET, as before


def test_a_code_past_its_time_is_refused(site) -> None:  # noqa: F811
    server, *_ = site
    clock = Clock()
    web.state(server).codes = signin.CodeBook(ttl_s=20, clock=clock)
    url = web.entry_url(server)
    clock.now += 20.5
    r = httpx.get(url, timeout=30)
    assert r.status_code == 401 and "set-cookie" not in r.headers


def test_the_token_in_a_url_signs_nothing_in(site) -> None:  # noqa: F811
    server, *_ = site
    r = httpx.get(server.url + "/", params={"token": server.token}, timeout=30)
    assert r.status_code == 401 and "set-cookie" not in r.headers and server.token not in r.text


def test_the_api_mints_a_sign_in_url_for_a_bearer_token_holder_only(site) -> None:  # noqa: F811
    server, _, cites, _ = site
    path = webpages.view_url(cites[".pdf"].citation_id)
    anon = httpx.post(server.url + "/api/web/sign-in", json={"path": path}, timeout=30)
    assert anon.status_code == 401
    got = httpx.post(server.url + "/api/web/sign-in", json={"path": path}, timeout=30,
                     headers={"Authorization": f"Bearer {server.token}"})
    assert got.status_code == 200 and got.headers["cache-control"] == "no-store"
    body = got.json()
    assert body["url"].startswith(server.url + path + "?code=") and 0 < body["expiresInS"] <= 120
    assert server.token not in body["url"]
    r = httpx.get(body["url"], timeout=30)
    assert r.status_code == 303 and r.headers["location"] == path
    outside = httpx.post(server.url + "/api/web/sign-in", json={"path": "//evil.example/x"}, timeout=30,
                         headers={"Authorization": f"Bearer {server.token}"}).json()["url"]
    assert outside.startswith(server.url + "/?code=")


def test_the_sign_in_page_takes_the_token_as_a_posted_form(site) -> None:  # noqa: F811
    server, _, cites, _ = site
    path = webpages.view_url(cites[".docx"].citation_id)
    with httpx.Client(base_url=server.url, timeout=30) as browser:
        page = browser.get(path)
        assert page.status_code == 401 and 'method="post" action="/signin"' in page.text
        assert f'name="next" value="{path}"' in page.text
        own = {"Origin": server.url}
        wrong = browser.post("/signin", data={"token": server.token[:-1] + "x", "next": path}, headers=own)
        assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
        assert browser.post("/signin", data={"token": server.token, "next": path}).status_code == 403  # no Origin
        r = browser.post("/signin", data={"token": server.token, "next": path}, headers=own)
        assert r.status_code == 303 and r.headers["location"] == path
        assert browser.get(path).status_code == 200


def test_page_images_are_never_stored_by_the_browser(site) -> None:  # noqa: F811
    server, _, cites, _ = site
    with httpx.Client(base_url=server.url, timeout=30) as client:
        client.get(web.entry_url(server))
        png = client.get(webpages.view_url(cites[".pdf"].citation_id) + "/page/1.png?scale=1.5")
        assert png.status_code == 200 and png.headers["cache-control"] == "no-store"
