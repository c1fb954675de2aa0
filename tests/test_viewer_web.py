"""The web UI over real HTTP, without a browser: sign-in, headers, what is served to whom, staleness.

The host's real citation pipeline runs (``FakeProvider`` hands it the documents' own text,
so the real PDF, DOCX and Markdown locators place the citations); the browser tests in
``test_viewer_browser.py`` run the same pages in Chromium against the real LightRAG.
"""

from __future__ import annotations

import contextlib
import html
import os
import re
import struct
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.errors import NotFoundError
from mnote_kr.models import Citation
from mnote_kr.server.app import ApiServer
from mnote_kr.sync.reconcile import reconcile_and_apply
from mnote_kr.viewer import web, webpages
from tests.cli_helpers import turbine_pdf
from tests.viewer_fixtures import report_docx

TOKEN = "vw7q"
QUERY = "blade heating power loss"


def _text_of_pdf() -> str:
    return ("Wind turbine icing study vw7q\nSmall wind turbines lose output when ice builds up.\n"
            "Blade heating kept the power loss below five percent on every turbine.\n")


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[ApiServer, Host, dict[str, Citation], dict[str, int]]]:
    ws = tmp_path / "ws"
    (ws / "papers").mkdir(parents=True)
    (ws / "papers" / "icing.pdf").write_bytes(turbine_pdf(TOKEN))
    docx, idx = report_docx(TOKEN)
    (ws / "papers" / "report.docx").write_bytes(docx)
    notes = "# Notes\n\nNothing about rotors here.\n\n## Heating\n\n- blade heating power loss was small\n"
    (ws / "papers" / "notes.md").write_text(notes, encoding="utf-8")
    host, provider = fake_host(ws)
    host.roots_add(ws / "papers")
    host.ingest([ws / "papers"])
    # The fake provider read the binary files as text: give it their real text, as LightRAG would.
    provider.texts[FakeProvider.name_for("papers/icing.pdf")] = _text_of_pdf()
    provider.texts[FakeProvider.name_for("papers/report.docx")] = (
        "Results\nPyrolytic coating on the blades cut the heating power by a third in freezing fog.")
    results = host.search(QUERY, top_k=10).results
    by_file = {Path(c.source_root_relative_path).suffix: c for c in results}
    assert set(by_file) == {".pdf", ".docx", ".md"}, [c.source_root_relative_path for c in results]
    # The DOCX locator verified its paragraph in the file: the claim stands without a LightRAG sidecar
    # (the fake provider writes none; ``claims.honest``), as LightRAG's block would confirm it.
    assert by_file[".docx"].locator.locator_precision == "paragraph" and not by_file[".docx"].locator_degraded
    by_file["searched .docx"] = by_file[".docx"]
    with ApiServer(host, write_token_file=False) as server:
        yield server, host, by_file, idx


@contextlib.contextmanager
def _signed_in(server: ApiServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        r = client.get(web.entry_url(server))
        assert r.status_code == 303 and r.headers["location"] == "/"
        yield client


def test_web_without_token_shows_no_page_and_no_document(site):
    server, _, cites, _ = site
    pdf, docx = cites[".pdf"], cites[".docx"]
    with httpx.Client(base_url=server.url, timeout=30) as anon:
        for path in ("/", f"/?q={QUERY}", webpages.view_url(docx.citation_id), webpages.view_url(pdf.citation_id),
                     webpages.view_url(pdf.citation_id) + "/page/1.png?scale=1.5"):
            r = anon.get(path)
            assert r.status_code == 401, path
            assert r.headers["content-type"].startswith("text/html")
            assert "Pyrolytic" not in r.text and "Blade heating" not in r.text and "card" not in r.text
        wrong = anon.get("/", params={"code": "x" * 24})
        assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
        # The API's bearer token in a cookie of the right name does not sign a browser in.
        anon.cookies.set(web.state(server).cookie_name, server.token)
        assert anon.get("/").status_code == 401


def test_code_url_sets_httponly_strict_cookie_once_then_pages_carry_strict_csp(site):
    server, _, cites, _ = site
    with httpx.Client(base_url=server.url, timeout=30) as client:
        r = client.get(web.entry_url(server, webpages.view_url(cites[".docx"].citation_id, page=2)))
        assert r.status_code == 303
        assert r.headers["location"] == webpages.view_url(cites[".docx"].citation_id) + "?page=2"  # code dropped
        cookie = r.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        value = cookie.split(";", 1)[0].split("=", 1)[1]
        assert value and value != server.token and server.token not in cookie
        page = client.get(r.headers["location"])
        assert page.status_code == 200
        csp = page.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert page.headers["referrer-policy"] == "same-origin"  # no-referrer makes Chromium's own posts Origin: null
        # Nothing the page needs comes from elsewhere, and no inline script or style exists.
        assert not re.search(r'(?:src|href)="(?:https?:)?//', page.text)
        assert "<style" not in page.text and " style=" not in page.text and "<script>" not in page.text
        # The cookie is not the API's bearer token.
        api = client.get("/api/knowledge-rag/status", headers={"Authorization": f"Bearer {value}"})
        assert api.status_code == 401


def test_search_page_renders_cards_with_precision_badges_and_marked_query(site):
    server, _, cites, _ = site
    with _signed_in(server) as client:
        r = client.get("/", params={"q": QUERY, "scope": "papers"})
    assert r.status_code == 200
    cards = re.findall(r'<li class="card" data-citation-id="([^"]+)" data-precision="(\w+)">', r.text)
    searched = {cites[k].citation_id for k in (".pdf", "searched .docx", ".md")}
    assert {cid for cid, _ in cards} == searched
    precisions = dict(cards)
    assert precisions[cites[".pdf"].citation_id] == "bbox" and "box · p.1" in r.text
    # without a sidecar (the fake provider writes none) the DOCX locator's verified paragraph stands
    assert precisions[cites["searched .docx"].citation_id] == "paragraph" and "file only" not in r.text
    assert re.search(r'<mark class="q">[Bb]lade</mark>', r.text) and '<mark class="q">heating</mark>' in r.text


def test_search_page_scope_outside_workspace_is_an_error_line_not_a_crash(site):
    server, *_ = site
    with _signed_in(server) as client:
        r = client.get("/", params={"q": QUERY, "scope": "../etc"})
    assert r.status_code == 403 and 'class="error"' in r.text and "card" not in r.text.split("</form>", 1)[1]


def test_pdf_viewer_draws_bbox_in_points_and_serves_page_png_of_page_size(site):
    server, _, cites, _ = site
    pdf = cites[".pdf"]
    assert pdf.locator_precision == "bbox"
    with _signed_in(server) as client:
        html = client.get(webpages.view_url(pdf.citation_id)).text
        m = re.search(r'<rect class="hl-primary" id="hl" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" '
                      r'height="([\d.]+)"/>', html)
        assert m, html
        x, y, w, h = map(float, m.groups())
        assert [round(v, 1) for v in (x, y, x + w, y + h)] == [round(v, 1) for v in pdf.locator.bbox]
        assert 'viewBox="0 0 612 792"' in html and "page 1 of 1" in html
        src = re.search(r'<img class="page-image" src="([^"]+)"', html).group(1).replace("&amp;", "&")
        png = client.get(src)
        assert png.status_code == 200 and png.headers["content-type"] == "image/png"
        width, height = struct.unpack(">II", png.content[16:24])
        assert (width, height) == (918, 1188)  # 612 x 792 pt at 1.5 px/pt
        hits = web.state(server).renders.hits
        assert client.get(src).content == png.content and web.state(server).renders.hits == hits + 1
        for bad in ("/page/2.png?scale=1.5", "/page/1.png?scale=7", "/page/0.png?scale=1.5", "/page/x.png"):
            assert client.get(webpages.view_url(pdf.citation_id) + bad).status_code == 404, bad


def test_docx_viewer_renders_model_with_cited_paragraph_tables_lists_and_textbox(site):
    server, _, cites, idx = site
    docx = cites[".docx"]
    assert docx.locator.paragraph_index == idx["target"]
    with _signed_in(server) as client:
        html = client.get(webpages.view_url(docx.citation_id)).text
    cited = re.findall(r'<div class="([^"]*\bcited\b[^"]*)" id="p-(\d+)" data-paragraph-index="(\d+)"', html)
    assert [int(c[2]) for c in cited] == [idx["target"]]
    assert '<mark class="hl" id="hl">' in html
    indices = [int(i) for i in re.findall(r'data-paragraph-index="(\d+)"', html)]
    assert indices == sorted(indices) and indices[0] == 0 and len(indices) == len(set(indices))
    assert f'data-paragraph-index="{idx["cell_t2_loss"]}">38 percent</div></td></tr></tbody></table>' in html
    assert '<span class="marker">1.</span>Heat the leading edge' in html
    assert '<span class="marker">2.</span>Measure the output' in html
    assert '<span class="marker">•</span>Thermocouples' in html
    assert '<div class="textbox" role="note">Sidebar: ice sensors failed twice.</div>' in html
    assert 'role="heading" aria-level="1"' in html


def test_unknown_citations_and_other_paths_are_404(site):
    server, *_ = site
    with _signed_in(server) as client:
        for path in ("/view/zzzz", "/view/zzzz/page/1.png", "/view/..%2F..%2Fetc%2Fpasswd", "/etc/passwd",
                     "/view", "/static/../app.py", "/static/nothing.js"):
            r = client.get(path)
            assert r.status_code == 404, path


def test_the_id_as_the_cli_prints_it_with_brackets_opens_the_same_page(site):
    """``/view/[y2y3]`` (the ID as 'mnote-kr search' prints it, typed or pasted; a browser sends its brackets
    percent-encoded or as they are) answered 404 (nc27a): it goes to the page of ``/view/y2y3``, its query kept,
    and the page's image and place routes take it too; a bracketed word that is no ID is still no page."""
    server, _, cites, _ = site
    pdf = cites[".pdf"]
    bare = webpages.bare_id(pdf.citation_id)
    with _signed_in(server) as client:
        for path in (f"/view/%5B{bare}%5D", f"/view/[{bare}]", f"/view/%5b{bare}%5d"):
            r = client.get(path + "?page=1", follow_redirects=False)
            assert r.status_code == 303 and r.headers["location"] == webpages.view_url(bare, page=1), path
            page = client.get(path, follow_redirects=True)
            assert page.status_code == 200 and 'id="hl"' in page.text, path
        png = client.get(f"/view/%5B{bare}%5D/page/1.png?scale=1.5")
        assert png.status_code == 200 and png.headers["content-type"] == "image/png"
        assert client.get(f"/view/%5B{bare}%5D/place.json?from={bare}").status_code == 200
        for path in ("/view/%5Bzzzz%5D", "/view/%5B%5D", "/view/%5B..%2Fapp.py%5D", "/view/[zz zz]"):
            assert client.get(path, follow_redirects=True).status_code == 404, path


def test_stale_source_says_so_and_serves_nothing_of_it(site):
    server, host, cites, _ = site
    pdf = cites[".pdf"]
    host.mark_stale(["papers/icing.pdf"], reason="deleted")
    with _signed_in(server) as client:
        r = client.get(webpages.view_url(pdf.citation_id))
        assert r.status_code == 410 and 'class="banner stale"' in r.text and "deleted" in r.text
        assert "page-image" not in r.text
        assert client.get(webpages.view_url(pdf.citation_id) + "/page/1.png?scale=1.5").status_code == 404


#: The registry's own words for a file's state, which are not a person's.
_RAW_STATUS = re.compile(r"\b(delete_completed|delete_submitted|not_indexed|pending_action|stale_reason)\b")


def test_a_source_deleted_from_disk_is_said_in_words_as_open_says_it(site):
    """Seen by a newcomer: "The source is delete_completed: source missing on disk..." (a registry status)."""
    server, host, cites, _ = site
    pdf = cites[".pdf"]
    (host.root / "papers" / "icing.pdf").unlink()
    reconcile_and_apply(host)  # what 'sync' does: the entry is stale and its index deleted
    assert host.registry().entries["papers/icing.pdf"].status in ("delete_submitted", "delete_completed")
    with pytest.raises(NotFoundError) as opened:
        host.open(pdf.citation_id)
    assert "deleted from disk" in opened.value.message and not _RAW_STATUS.search(opened.value.message)
    with _signed_in(server) as client:
        r = client.get(webpages.view_url(pdf.citation_id))
    banner = re.search(r'<p class="banner stale" role="alert">([^<]*)</p>', r.text)
    assert r.status_code == 410 and banner, r.text
    words = html.unescape(banner.group(1))
    assert "was deleted from disk since this citation was issued" in words, words
    assert not _RAW_STATUS.search(r.text) and " is stale" not in words, words
    # the viewer and 'open' give the same reason
    assert opened.value.message.split(": ", 1)[1] in words


def test_the_search_page_names_a_files_state_in_words(site):
    server, host, *_ = site
    (host.root / "papers" / "draft.md").write_text("# Draft\n\nblade heating, not ingested\n", encoding="utf-8")
    with _signed_in(server) as client:
        r = client.get("/", params={"q": "what does draft.md say", "scope": "papers"})
    lines = [html.unescape(t) for t in re.findall(r'<p class="not-indexed">(.*?)</p>', r.text)]
    assert any(line.startswith("papers/draft.md") for line in lines), r.text
    assert not any(_RAW_STATUS.search(line) for line in lines), lines


def test_changed_source_is_not_shown_with_an_old_highlight(site):
    server, host, cites, _ = site
    path = host.root / "papers" / "notes.md"
    st = path.stat()
    data = path.read_bytes()
    path.write_bytes(data[:-2] + b"!" * 2)  # other bytes of the same size (a touch alone is the same version)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    with _signed_in(server) as client:
        r = client.get(webpages.view_url(cites[".md"].citation_id))
    assert r.status_code == 410 and "changed since it was indexed" in r.text
    path.write_bytes(data)  # the indexed bytes back, with a new time: a touched file is shown
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 9_000_000_000))
    with _signed_in(server) as client:
        r = client.get(webpages.view_url(cites[".md"].citation_id))
    assert r.status_code == 200, r.text


def test_open_in_system_viewer_needs_own_origin_and_launches_the_plan(site):
    server, host, cites, _ = site
    launched: list[list[str]] = []
    web.state(server).launch = launched.append
    url = webpages.view_url(cites[".docx"].citation_id) + "/open"
    with _signed_in(server) as client:
        evil = client.post(url, headers={"Origin": "http://evil.example"})
        assert evil.status_code == 403 and launched == []
        ok = client.post(url, headers={"Origin": server.url})
    assert ok.status_code == 303 and "opened=" in ok.headers["location"]
    if launched:  # xdg-open (or another opener) exists on this machine
        assert launched[0][-1] == str(host.root / "papers" / "report.docx")


def test_a_post_without_origin_is_refused_and_launches_nothing(site):
    server, _host, cites, _ = site
    launched: list[list[str]] = []
    web.state(server).launch = launched.append
    with _signed_in(server) as client:
        r = client.post(webpages.view_url(cites[".docx"].citation_id) + "/open")
    assert r.status_code == 403 and "own page" in r.text and launched == []


def test_favicon_is_no_content_rather_than_not_found(site):
    server, *_ = site
    r = httpx.get(server.url + "/favicon.ico")
    assert r.status_code == 204 and r.content == b""


def test_the_system_opener_is_reaped_when_it_exits(tmp_path):
    pid_file = tmp_path / "pid"
    web._launch([sys.executable, "-c", f"import os; open({str(pid_file)!r}, 'w').write(str(os.getpid()))"])
    wait_until(lambda: pid_file.exists() and pid_file.read_text(), timeout_s=60, what="the opener never ran")
    stat = Path(f"/proc/{pid_file.read_text()}/stat")
    # a zombie keeps its /proc entry until reaped
    wait_until(lambda: not stat.exists(), timeout_s=60, what=lambda: f"not reaped: {stat.read_text()}")


def test_web_paths_keep_the_host_header_check(site):
    server, *_ = site
    r = httpx.get(web.entry_url(server), headers={"Host": "evil.example"})
    assert r.status_code == 403 and "set-cookie" not in r.headers


def test_mark_query_escapes_html_and_marks_terms_case_insensitively():
    out = webpages.mark_query("<b>Blade</b> heating & the BLADE", "blade heating")
    assert out == ('&lt;b&gt;<mark class="q">Blade</mark>&lt;/b&gt; <mark class="q">heating</mark> &amp; the '
                   '<mark class="q">BLADE</mark>')
    assert webpages.mark_query("吡咯烷 是一种环状仲胺", "吡咯烷") == '<mark class="q">吡咯烷</mark> 是一种环状仲胺'


def test_multi_page_pdf_opens_at_the_cited_page_and_navigates(tmp_path: Path) -> None:
    from mnote_kr_testkit.data import CORPUS

    ws = tmp_path / "ws"
    (ws / "papers").mkdir(parents=True)
    (ws / "papers" / "paper.pdf").write_bytes((CORPUS / "pdf" / "pdfjs__tracemonkey.pdf").read_bytes())
    host, provider = fake_host(ws)
    host.roots_add(ws / "papers")
    host.ingest([ws / "papers"])
    # The longest sentence of page 3's own text layer, as LightRAG's chunk would hold it.
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(ws / "papers" / "paper.pdf"))
    text = doc[2].get_textpage().get_text_range()
    doc.close()
    sentences = [" ".join(s.split()) for s in re.split(r"(?<=[.!?])\s", text)]
    evidence = max((s for s in sentences if 60 <= len(s) <= 300), key=len)
    provider.texts[FakeProvider.name_for("papers/paper.pdf")] = evidence
    cite = host.search(" ".join(re.findall(r"[A-Za-z]{6,}", evidence)[:3]), top_k=5).results[0]
    assert cite.locator_precision == "bbox" and cite.locator.page == 3, cite.locator
    cited = 3
    with ApiServer(host, write_token_file=False) as server, _signed_in(server) as client:
        first = client.get(webpages.view_url(cite.citation_id)).text
        assert f"page {cited} of 14" in first and 'id="hl"' in first
        other = cited + 1 if cited < 14 else cited - 1
        assert f'href="{html.escape(webpages.view_url_of(cite, page=other))}"' in first  # next/previous link
        elsewhere = client.get(webpages.view_url_of(cite, page=other)).text
        assert f"page {other} of 14" in elsewhere and 'id="hl"' not in elsewhere
        assert f'>p.{cited}</a>' in elsewhere  # the way back to the cited page
        assert client.get(webpages.view_url(cite.citation_id, page=15)).status_code == 404


def test_precision_badge_names_the_slide_and_the_cells() -> None:
    from mnote_kr.models import Locator
    from mnote_kr.viewer.webpages import precision_badge

    slide = precision_badge(Locator(locator_precision="slide", locator_degraded=False, slide=3, shape_id=4))
    assert ">slide 3<" in slide and "file only" not in slide
    notes = precision_badge(Locator(locator_precision="slide", locator_degraded=False, slide=2, speaker_notes=True))
    assert ">slide 2 notes<" in notes
    cell = precision_badge(Locator(locator_precision="cell", locator_degraded=False, sheet="P<L>", range="C12"))
    assert ">P&lt;L&gt;!C12<" in cell
