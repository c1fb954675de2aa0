"""A shell's viewer in a real headless Chromium, against the real LightRAG server (docs/http-api.md,
"A shell's viewer"): the shell shows ``/view/ID`` as its webview's top-level page and moves it to
another citation by ``postMessage`` without reloading; the folder menu; the way back to the results.

The tests act as a shell does: an init script (a shell's preload) listens for the viewer's answers,
taking only those from the viewer's origin; ``page.evaluate`` runs the shell's ``postMessage`` in the
page. "Without reloading" is checked by a marker set on ``window`` and the document's
``performance.timeOrigin`` surviving the move. One workspace, a DOCX and a three-page PDF, is ingested
into the session's engine once per module.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.browser import browser, chromium_path  # noqa: F401  (fixtures)
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.pdfs import PdfBuilder

from mnote_kr.app.host import Host
from mnote_kr.citations.caches.citecache import remember
from mnote_kr.core.config import load_config
from mnote_kr.models import Citation, LocateRequest, Locator
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web
from mnote_kr.viewer.webpages import view_url
from tests.viewer_fixtures import report_docx

pytestmark = pytest.mark.integration

DOCX_QUERY = "Pyrolytic coating"
PDF_QUERY = "blade heating power loss"
PAGE3 = "Anemometer calibration drift reached two metres per second after the storm."
ANSWERS = "mnote-kr-viewer"
NOTE_QUERY = "System administrators password change"
NOTE_ITEM1 = "Screen each case promptly for conflicts of interest."
NOTE_ITEM2 = "System administrators must change every password at least every 90 days."
#: a note as the newcomer's (nc24b): an ATX heading, numbered items each a block of its own (``2.`` after prose
#: restarted the page's own count: ``1. 2. System administrators``), an item written ``2.<spaces><tab>``
RULES_NOTE = ("# Trustee computer rules {token}\n\nThe trustee keeps the case records on a computer system.\n\n"
              f"1.\t{NOTE_ITEM1}\n\n2.     \t{NOTE_ITEM2}\n\n## Access\n\nOnly staff may use the case system.\n")


def manual_pdf(token: str) -> bytes:
    """Three pages, each with its own subject; the cited sentence of the move is on page 3."""
    p = PdfBuilder()
    pages = [["Wind turbine icing study " + token, "Small wind turbines lose output when ice builds up.",
              "Blade heating kept the power loss below five percent on every turbine."],
             ["Gearbox maintenance " + token, "Gearbox oil temperature stayed within limits all winter."],
             ["Wind measurement " + token, PAGE3]]
    for lines in pages:
        page = p.add_page()
        for i, line in enumerate(lines):
            p.text(page, 72, 700 - 20 * i, line, size=11)
    return p.build()


class Site:
    def __init__(self, host: Host, server: ApiServer, docx: Citation, docx2: Citation, pdf: Citation,
                 pdf3: Citation, idx: dict[str, int], note_items: tuple[Citation, Citation]) -> None:
        self.host, self.server, self.idx = host, server, idx
        self.docx, self.docx2, self.pdf, self.pdf3 = docx, docx2, pdf, pdf3
        self.note_items = note_items  # the note's items "2." and "1." (papers/rules.md)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _engine_host(ws: Path, engine: Any) -> Host:
    """A host of ``ws`` on the session's engine."""
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": engine.url, "input_dir": engine.input_dir}}
    return Host(ws, config=config)


def _tab(browser: Any, server: ApiServer, init_script: str = "") -> tuple[Any, Any]:  # noqa: F811
    """(context, tab) signed in to ``server``; ``init_script`` runs in every page first (a shell's preload)."""
    context = browser.new_context(viewport={"width": 1200, "height": 900}, device_scale_factor=1)
    tab = context.new_page()
    if init_script:
        tab.add_init_script(init_script)
    response = tab.goto(web.entry_url(server))
    assert response is not None and response.status == 200
    return context, tab


def _moved(host: Host, original: Citation, file: Path, query: str, evidence: str) -> Citation:
    """``original`` under a new ID at the place the real locator finds for ``evidence`` in the same file."""
    loc = host.locate(LocateRequest(file=str(file), query=query, evidence=evidence))
    cid = f"[s{uuid.uuid4().hex[:3]}]"
    copy = msgspec.structs.replace(original, citation_id=cid, locator=loc, locator_precision=loc.locator_precision,
                                   locator_degraded=loc.locator_degraded, display_quote=evidence, alternatives=[])
    return remember(host, [copy])[0]  # as issued


@pytest.fixture(scope="module")
def site(lightrag_engine, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:  # noqa: F811
    engine = lightrag_engine
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MNOTE_KR_LIGHTRAG_API_KEY", engine.api_key)
        ws = tmp_path_factory.mktemp("shell-ws")
        token = uuid.uuid4().hex[:10]
        (ws / "papers").mkdir()
        pdf_path, docx_path = ws / "papers" / "manual.pdf", ws / "papers" / "report.docx"
        (ws / "papers" / "rules.md").write_text(RULES_NOTE.format(token=token), encoding="utf-8")
        pdf_path.write_bytes(manual_pdf(token))
        data, idx = report_docx(token)
        docx_path.write_bytes(data)
        digests = {p: _sha(p) for p in (ws / "papers").iterdir()}
        host = _engine_host(ws, engine)
        host.roots_add(ws / "papers")
        report = host.ingest(["papers"], wait=True, wait_s=240)
        assert {i.status for i in report.items} == {"processed"}, report
        pdf = [c for c in host.search(PDF_QUERY, top_k=10).results if c.source_root_relative_path.endswith(".pdf")]
        docx = [c for c in host.search(DOCX_QUERY, top_k=10).results if c.source_root_relative_path.endswith(".docx")]
        assert pdf and pdf[0].locator_precision == "bbox" and pdf[0].locator.page == 1, pdf
        assert docx and docx[0].locator_precision == "paragraph", docx
        pdf3 = _moved(host, pdf[0], pdf_path, "anemometer calibration drift", PAGE3)
        assert pdf3.locator_precision == "bbox" and pdf3.locator.page == 3, pdf3.locator
        docx2 = _moved(host, docx[0], docx_path, "measure the output", "Measure the output")
        assert docx2.locator.paragraph_index == idx["number2"] and docx2.locator.highlight is not None
        note = [c for c in host.search(NOTE_QUERY, top_k=10).results if c.source_root_relative_path.endswith(".md")]
        assert note, "the Markdown note is found"
        item2 = _moved(host, note[0], ws / "papers" / "rules.md", "password change", NOTE_ITEM2)
        item1 = _moved(host, note[0], ws / "papers" / "rules.md", "conflicts of interest", NOTE_ITEM1)
        assert (item2.locator.paragraph_index, item1.locator.paragraph_index) == (3, 2), (item2, item1)
        with ApiServer(host, write_token_file=False) as server:
            yield Site(host, server, docx[0], docx2, pdf[0], pdf3, idx, (item2, item1))
        assert {p: _sha(p) for p in digests} == digests  # the viewer never touched a source


@pytest.fixture
def shell(browser, site: Site) -> Iterator[Any]:  # noqa: F811
    """A tab signed in to the server, with a shell's listener: the viewer's answers from its origin only."""
    context, tab = _tab(browser, site.server,
                        "window.__answers = []; window.addEventListener('message', function (e) {"
                        f" if (e.origin !== {site.server.url!r} || !e.data || e.data.source !== {ANSWERS!r}) return;"
                        " window.__answers.push(e.data); });")
    try:
        yield tab
    finally:
        context.close()


def _open(tab: Any, site: Site, c: Citation) -> dict[str, Any]:
    """Load the viewer of ``c`` as the shell's top-level page; the ``ready`` answer."""
    tab.goto(site.server.url + view_url(c.citation_id))
    tab.wait_for_function("() => window.__answers.some(a => a.type === 'ready')")
    tab.evaluate("() => { window.__shellMarker = 'kept'; window.__answers = []; }")
    return {"origin": tab.evaluate("() => performance.timeOrigin")}


def _post(tab: Any, citation_id: str, request_id: str) -> dict[str, Any]:
    """The shell's move: post a citation ID to the page; the viewer's answer to that request."""
    tab.evaluate("([cid, rid]) => window.postMessage({type: 'mnote-kr.locate', citationId: cid, requestId: rid},"
                 " location.origin)", [citation_id, request_id])
    tab.wait_for_function("rid => window.__answers.some(a => a.requestId === rid)", arg=request_id)
    answers = tab.evaluate("rid => window.__answers.filter(a => a.requestId === rid)", request_id)
    assert len(answers) == 1, answers
    return answers[0]


def _same_document(tab: Any, opened: dict[str, Any]) -> None:
    assert tab.evaluate("() => window.__shellMarker") == "kept", "the page was reloaded"
    assert tab.evaluate("() => performance.timeOrigin") == opened["origin"]
    assert tab.evaluate("() => performance.getEntriesByType('navigation').length") == 1


def test_shell_moves_an_open_docx_to_another_citation_without_reloading(shell, site: Site) -> None:
    opened = _open(shell, site, site.docx)
    cited = "() => [...document.querySelectorAll('.para.cited')].map(e => +e.dataset.paragraphIndex)"
    assert shell.evaluate(cited) == [site.idx["target"]]

    answer = _post(shell, site.docx2.citation_id, "r1")
    assert answer["type"] == "located" and answer["citationId"] == site.docx2.citation_id
    assert answer["paragraphIndex"] == site.idx["number2"] and answer["locatorPrecision"] == "paragraph"
    _same_document(shell, opened)
    assert shell.evaluate(cited) == [site.idx["number2"]]  # the old paragraph is no longer marked
    assert shell.inner_text("mark#hl") == "Measure the output" and len(shell.query_selector_all("mark.hl")) == 1
    assert shell.inner_text(".viewer-head .cid") == site.docx2.citation_id
    assert shell.evaluate("() => location.pathname") == view_url(site.docx2.citation_id)
    top, bottom = shell.evaluate("() => { const b = document.querySelector('.para.cited').getBoundingClientRect();"
                                 " return [b.top, b.bottom]; }")
    assert 0 <= top and bottom <= 900, "the new paragraph is scrolled into view"

    back = _post(shell, site.docx.citation_id, "r2")  # and back again, still in the same document
    assert back["type"] == "located" and back["paragraphIndex"] == site.idx["target"]
    _same_document(shell, opened)
    assert shell.evaluate(cited) == [site.idx["target"]]
    assert DOCX_QUERY.lower() in shell.inner_text("mark#hl").lower()


def test_shell_moves_an_open_pdf_to_a_citation_on_another_page(shell, site: Site) -> None:
    opened = _open(shell, site, site.pdf)
    assert shell.inner_text(".page-no") == "page 1 of 3"

    answer = _post(shell, site.pdf3.citation_id, "p1")
    assert answer["type"] == "located" and answer["page"] == 3 and answer["locatorPrecision"] == "bbox"
    _same_document(shell, opened)
    assert shell.inner_text(".page-no") == "page 3 of 3"
    image = shell.evaluate("() => { const i = document.querySelector('img.page-image');"
                           " return [i.getAttribute('src'), i.complete, i.naturalWidth]; }")
    assert f"/view/{site.pdf3.citation_id.strip('[]')}/page/3.png" in image[0] and image[1] and image[2] > 0
    box = [float(shell.get_attribute("#hl", a) or "nan") for a in ("x", "y", "width", "height")]
    bbox = site.pdf3.locator.bbox
    assert bbox is not None
    assert box == pytest.approx([bbox[0], bbox[1], bbox[2] - bbox[0], bbox[3] - bbox[1]], abs=0.01)
    assert shell.evaluate("() => location.pathname") == view_url(site.pdf3.citation_id)


def test_a_request_overtaken_by_a_newer_one_is_answered_superseded(shell, site: Site) -> None:
    opened = _open(shell, site, site.docx)
    # Two messages in one task: the second arrives while the first one's fetch is still out.
    shell.evaluate("([a, b]) => {"
                   " postMessage({type: 'mnote-kr.locate', citationId: a, requestId: 's1'}, location.origin);"
                   " postMessage({type: 'mnote-kr.locate', citationId: b, requestId: 's2'}, location.origin); }",
                   [site.docx2.citation_id, site.docx.citation_id])
    shell.wait_for_function("() => ['s1', 's2'].every(r => window.__answers.some(a => a.requestId === r))")
    answers = {a["requestId"]: a for a in shell.evaluate("() => window.__answers")}
    assert answers["s1"]["type"] == "failed" and answers["s1"]["reason"] == "superseded"
    assert answers["s2"]["type"] == "located" and answers["s2"]["paragraphIndex"] == site.idx["target"]
    _same_document(shell, opened)
    assert shell.evaluate("() => location.pathname") == view_url(site.docx.citation_id)


def test_a_citation_whose_place_is_not_known_unmarks_the_document_and_says_so(shell, site: Site) -> None:
    unplaced = msgspec.structs.replace(site.docx, citation_id=f"[u{uuid.uuid4().hex[:3]}]", locator_precision="file",
                                       locator_degraded=True, locator=Locator(locator_precision="file",
                                                                              locator_degraded=True))
    unplaced = remember(site.host, [unplaced])[0]  # as issued
    opened = _open(shell, site, site.docx)
    answer = _post(shell, unplaced.citation_id, "f1")
    assert answer["type"] == "located" and answer["locatorPrecision"] == "file" and answer["paragraphIndex"] is None
    _same_document(shell, opened)
    assert shell.query_selector_all(".para.cited, mark.hl, #hl") == []
    assert "not known" in shell.inner_text(".viewer-head .banner.file-only")


def test_a_bad_or_foreign_citation_fails_and_changes_nothing(shell, site: Site) -> None:
    opened = _open(shell, site, site.docx)
    unknown = _post(shell, "[zzzz9]", "b1")
    assert unknown["type"] == "failed" and unknown["reason"] == "not_found" and unknown["requested"] == "[zzzz9]"
    malformed = _post(shell, "not an id", "b2")
    assert malformed["type"] == "failed" and malformed["reason"] == "bad_request"
    elsewhere = _post(shell, site.pdf.citation_id, "b3")  # another file: the shell loads it itself
    assert elsewhere["type"] == "failed" and elsewhere["reason"] == "other_document"
    assert elsewhere["viewerPath"] == view_url(site.pdf.citation_id, issue=site.pdf.issue or "")  # its search
    _same_document(shell, opened)
    assert shell.evaluate("() => [...document.querySelectorAll('.para.cited')].map(e => +e.dataset.paragraphIndex)"
                          ) == [site.idx["target"]]
    assert shell.evaluate("() => location.pathname") == view_url(site.docx.citation_id)


def test_only_the_pages_own_context_can_move_it(shell, site: Site) -> None:
    opened = _open(shell, site, site.docx)
    with shell.expect_popup() as popup_info:  # another window of the same origin holds a handle on the viewer
        shell.evaluate("() => { window.open('/static/viewer.css'); }")
    popup = popup_info.value
    popup.wait_for_load_state()
    popup.evaluate("cid => window.opener.postMessage({type: 'mnote-kr.locate', citationId: cid,"
                   " requestId: 'from-popup'}, location.origin)", site.docx2.citation_id)
    # Messages are handled in order: once the shell's own request is answered, the popup's was seen.
    answer = _post(shell, site.docx.citation_id, "own")
    assert answer["type"] == "located"
    assert [a["requestId"] for a in shell.evaluate("() => window.__answers")] == ["own"]
    _same_document(shell, opened)
    assert shell.evaluate("() => location.pathname") == view_url(site.docx.citation_id)


def test_the_way_back_from_the_viewer_to_the_results_keeps_the_query(shell, site: Site, lightrag_engine,  # noqa: F811
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)  # the server's searches need it
    shell.goto(f"{site.server.url}/?q={DOCX_QUERY.replace(' ', '+')}")
    shell.wait_for_selector("li.card")
    card = "li.card:has(.file:text-is('papers/report.docx')) a.cid"
    shell.click(card)
    shell.wait_for_url("**/view/**")
    shell.click("#back-to-results")  # the link
    shell.wait_for_url("**/?q=**")
    assert shell.input_value("#q") == DOCX_QUERY and shell.query_selector(card) is not None
    shell.click(card)
    shell.wait_for_url("**/view/**")
    shell.go_back()  # the browser's back
    shell.wait_for_url("**/?q=**")
    assert shell.input_value("#q") == DOCX_QUERY and shell.query_selector(card) is not None


def test_folder_menu_after_roots_add_dot_has_no_empty_preselected_option(browser, lightrag_engine,  # noqa: F811
                                                                        tmp_path: Path) -> None:
    ws = tmp_path / "whole"
    (ws / "notes").mkdir(parents=True)
    host = _engine_host(ws, lightrag_engine)
    host.roots_add(ws)  # 'mnote-kr roots add .'
    host.roots_add(ws / "notes")
    with ApiServer(host, write_token_file=False) as server:
        context, tab = _tab(browser, server)
        try:
            options = tab.eval_on_selector_all("select[name=scope] option",
                                               "os => os.map(o => [o.value, o.textContent, o.selected])")
            shown = tab.eval_on_selector("select[name=scope]", "s => s.options[s.selectedIndex].textContent")
        finally:
            context.close()
    assert options == [["", "all indexed folders", True], ["notes", "notes", False]]
    assert shown == "all indexed folders"


def test_a_markdown_note_reads_as_written_with_the_cited_item_marked(shell, site: Site) -> None:
    item2, item1 = site.note_items
    _open(shell, site, item2)
    cited = "() => [...document.querySelectorAll('.para.cited')].map(e => +e.dataset.paragraphIndex)"
    assert shell.evaluate(cited) == [item2.locator.paragraph_index]  # the JSON's paragraphIndex
    # the item's own number once, then its words: no "1. 2." and no "#" left in a heading
    assert shell.text_content(".para.cited") == "2." + NOTE_ITEM2
    assert shell.inner_text("mark#hl") == NOTE_ITEM2
    headings = shell.eval_on_selector_all("[role=heading]", "hs => hs.map(h => [h.getAttribute('aria-level'),"
                                                           " h.textContent])")
    assert [(level, text.split(" ")[0]) for level, text in headings] == [("1", "Trustee"), ("2", "Access")]

    answer = _post(shell, item1.citation_id, "m1")  # the shell moves the highlight to the other item
    assert answer["type"] == "located" and answer["paragraphIndex"] == item1.locator.paragraph_index
    assert shell.evaluate(cited) == [item1.locator.paragraph_index]
    h = item1.locator.highlight
    assert h is not None and h.start >= len("1.\t")
    # the place's offsets count in the file's text ("1.\t" included): the page marks those words, not 3 later
    assert shell.inner_text("mark#hl") == f"1.\t{NOTE_ITEM1}"[h.start:h.end]
    assert shell.text_content(".para.cited") == "1." + NOTE_ITEM1
