"""Viewer: time to first render of a PDF citation, cold and warm, against the page render alone.

"First render" is what a browser needs before it can paint the cited page: the viewer's
HTML (``GET /view/{id}``, signed in by cookie) and the page image it names (``GET
/view/{id}/page/N.png``), over real HTTP on loopback. The baseline, measured in the same
run on the same page at the same scale, is the page render alone: pypdfium2 opening the
PDF and rendering that page to a bitmap (no PNG, no HTTP, no HTML).

* cold: the server's page-image cache and the PDF plugin's page-size cache emptied before
  each round (same process: the interpreter and PDFium are loaded);
* fresh process: a new Python process starts the server and fetches the page once
  (imports, plugin loading, first PDFium use included), against a fresh-process baseline;
* warm: the same request again (the page image comes from the cache).

The citation comes from the host's real pipeline (the in-process ``FakeProvider`` hands it a
sentence of the PDF's own text layer; the real PDF locator places it). A round whose page
lacks the highlight box or whose image is not a PNG counts as a miss. Loopback only.

In a real headless Chromium (Debian's ``chromium``, driven by Playwright), against the search
request alone as the baseline (``POST /api/knowledge-rag/search`` for the citations' query, the
same server, same run):

* first paint of a located PDF page: navigating to the viewer of the page-3 citation until the
  frame after ``load`` (the page image is in) is painted, the server's render cache emptied;
* first paint of a DOCX paragraph: the same for a paragraph citation in the middle of a 1,175-
  paragraph DOCX (``khoj__bangalore.docx``), scrolled to and marked;
* ``postMessage`` relocation: in an open viewer, from the shell's ``mnote-kr.locate`` message to
  the frame painted after the viewer's ``located`` answer; a DOCX paragraph far down the same
  document, and a PDF citation on another page (page 5, render cache emptied).

Each browser round is a fresh browser context (no cached page image). Times are the page's own
``performance.now()``. A round whose viewer shows no highlight or answers ``failed`` is a miss.

    .venv/bin/python benchmarks/viewer.py [--rounds 15] [--page 3] [--scale 1.5] [--paint-rounds 10]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pypdfium2 as pdfium

REPO = Path(__file__).resolve().parents[1]
PDF = REPO / "tests" / "data" / "corpus" / "pdf" / "pdfjs__tracemonkey.pdf"
DOCX = REPO / "tests" / "data" / "corpus" / "docx" / "khoj__bangalore.docx"
OTHER_PAGE = 5  # the PDF relocation's page


def setup(ws: Path, page: int) -> tuple[Any, str, str]:
    """Workspace with the PDF and a DOCX; returns the host, a citation ID on ``page`` issued by
    the real pipeline, and the query that found it."""
    from mnote_kr_testkit.fakes import FakeProvider, fake_host

    (ws / "papers").mkdir(parents=True)
    shutil.copyfile(PDF, ws / "papers" / "paper.pdf")
    shutil.copyfile(DOCX, ws / "papers" / "city.docx")
    doc = pdfium.PdfDocument(str(ws / "papers" / "paper.pdf"))
    text = doc[page - 1].get_textpage().get_text_range()
    doc.close()
    sentences = [s.strip().replace("\r", " ").replace("\n", " ") for s in re.split(r"(?<=[.!?])\s", text)]
    evidence = max((s for s in sentences if 60 <= len(s) <= 300), key=len)
    host, provider = fake_host(ws)
    host.roots_add(ws / "papers")
    host.ingest([ws / "papers"])
    provider.texts[FakeProvider.name_for("papers/paper.pdf")] = evidence
    words = [w for w in re.findall(r"[A-Za-z]{6,}", evidence)][:3]
    result = host.search(" ".join(words), top_k=5).results
    cite = next(c for c in result if c.locator.page == page)
    assert cite.locator_precision == "bbox", cite.locator
    return host, cite.citation_id, " ".join(words)


def placed(host: Any, base_id: str, rel: str, evidence: str, new_id: str) -> Any:
    """Citation ``base_id`` copied to ``rel`` at the place the real locator finds for ``evidence``
    (the viewer is what is measured; the in-process provider has no DOCX sidecar)."""
    import msgspec

    from mnote_kr.citations.caches.citecache import remember
    from mnote_kr.citations.render.openplan import find_citation
    from mnote_kr.models import LocateRequest

    base = find_citation(host, base_id)
    assert base is not None, base_id
    loc = host.locate(LocateRequest(file=str(host.root / rel), query=" ".join(evidence.split()[:4]),
                                    evidence=evidence))
    copy = msgspec.structs.replace(base, citation_id=new_id, source_root_relative_path=rel,
                                   source_path=str(host.root / rel), locator=loc, alternatives=[],
                                   locator_precision=loc.locator_precision, locator_degraded=loc.locator_degraded)
    copy = remember(host, [copy])[0]  # as issued: renamed if its ID were held for another place
    return copy


def paint_citations(host: Any, pdf_id: str) -> dict[str, Any]:
    """The citations the browser rounds open: two DOCX paragraphs far apart, a PDF box on another page."""
    model = host.plugins.document_model(str(host.root / "papers" / "city.docx"))
    texts = [p for p in model.paragraphs if 60 <= len(p.text) <= 300 and p.cell is None]
    middle, late = texts[len(texts) // 2], texts[-2]
    doc = pdfium.PdfDocument(str(host.root / "papers" / "paper.pdf"))
    text = doc[OTHER_PAGE - 1].get_textpage().get_text_range()
    doc.close()
    sentences = [s.strip().replace("\r", " ").replace("\n", " ") for s in re.split(r"(?<=[.!?])\s", text)]
    other = max((s for s in sentences if 60 <= len(s) <= 300), key=len)
    got = {"docx": placed(host, pdf_id, "papers/city.docx", middle.text, "[bdx1]"),
           "docx_late": placed(host, pdf_id, "papers/city.docx", late.text, "[bdx2]"),
           "pdf_other": placed(host, pdf_id, "papers/paper.pdf", other, "[bpd5]")}
    assert got["docx"].locator.paragraph_index == middle.index, got["docx"].locator
    assert got["docx_late"].locator.paragraph_index == late.index, got["docx_late"].locator
    assert got["pdf_other"].locator.page == OTHER_PAGE, got["pdf_other"].locator
    return got


# The frame painted after ``load`` (images in, the viewer scrolled to its place), in the page's own clock.
PAINT_PROBE = ("window.__painted = null; addEventListener('load', function () { requestAnimationFrame("
               "function () { requestAnimationFrame(function () { window.__painted = performance.now(); }); }); });")
RELOCATE = """cid => new Promise(resolve => {
  const t0 = performance.now();
  addEventListener('message', function on(e) {
    if (e.origin !== location.origin || !e.data || e.data.source !== 'mnote-kr-viewer' || e.data.requestId !== 'b')
      return;
    removeEventListener('message', on);
    requestAnimationFrame(() => requestAnimationFrame(() => resolve({ms: performance.now() - t0, type: e.data.type,
                                                                      page: e.data.page})));
  });
  postMessage({type: 'mnote-kr.locate', citationId: cid, requestId: 'b'}, location.origin);
})"""


def browser_rounds(server: Any, cids: dict[str, Any], pdf_id: str, query: str, rounds: int,
                   clear: Any) -> tuple[dict[str, list[float]], int]:
    """Seconds per round of each browser measurement and of the search request; and the misses."""
    from mnote_kr_testkit.browser import LAUNCH_ARGS, ensure_chromium
    from playwright.sync_api import sync_playwright

    from mnote_kr.viewer import web
    from mnote_kr.viewer.webpages import view_url

    times: dict[str, list[float]] = {k: [] for k in ("search", "pdf", "docx", "move_docx", "move_pdf")}
    misses = 0
    headers = {"Authorization": f"Bearer {server.token}"}
    with sync_playwright() as pw, httpx.Client(base_url=server.url, timeout=60) as api:
        browser = pw.chromium.launch(executable_path=ensure_chromium(), args=LAUNCH_ARGS, headless=True)
        for n in range(rounds + 1):  # round 0 warms code paths and is dropped
            got: dict[str, float] = {}
            t0 = time.perf_counter()
            r = api.post("/api/knowledge-rag/search", json={"query": query, "topK": 5}, headers=headers)
            got["search"] = time.perf_counter() - t0
            misses += r.status_code != 200 or not r.json()["results"]
            context = browser.new_context(viewport={"width": 1200, "height": 900})
            context.add_init_script(PAINT_PROBE)
            tab = context.new_page()
            tab.goto(web.entry_url(server))
            for key, cid, check in (("pdf", pdf_id, "!!document.getElementById('hl') && "
                                                    "document.querySelector('img.page-image').naturalWidth > 0"),
                                    ("docx", cids["docx"].citation_id, "!!document.querySelector('.para.cited #hl')")):
                clear()
                tab.goto(server.url + view_url(cid))
                tab.wait_for_function("() => window.__painted !== null")
                got[key] = tab.evaluate("() => window.__painted") / 1000
                misses += not tab.evaluate(f"() => {check}")
            answer = tab.evaluate(RELOCATE, cids["docx_late"].citation_id)
            got["move_docx"] = answer["ms"] / 1000
            late = cids["docx_late"].locator.paragraph_index
            misses += answer["type"] != "located" or not tab.evaluate(
                f"() => !!document.querySelector('.para.cited[data-paragraph-index=\"{late}\"] #hl')")
            clear()
            tab.goto(server.url + view_url(pdf_id))
            tab.wait_for_function("() => window.__painted !== null")
            answer = tab.evaluate(RELOCATE, cids["pdf_other"].citation_id)
            got["move_pdf"] = answer["ms"] / 1000
            misses += answer["type"] != "located" or answer["page"] != OTHER_PAGE
            context.close()
            if n:
                for key, value in got.items():
                    times[key].append(value)
        browser.close()
    return times, misses


def first_render(client: httpx.Client, cid: str) -> tuple[float, bool]:
    """Seconds for the viewer's HTML plus its page image; and whether it was a hit (box + PNG)."""
    from mnote_kr.viewer.webpages import view_url

    t0 = time.perf_counter()
    html = client.get(view_url(cid))
    m = re.search(r'<img class="page-image" src="([^"]+)"', html.text)
    ok = html.status_code == 200 and m is not None and 'class="hl-primary"' in html.text
    if m is None:
        return time.perf_counter() - t0, False
    png = client.get(m.group(1).replace("&amp;", "&"))
    elapsed = time.perf_counter() - t0
    return elapsed, ok and png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"


def render_alone(path: Path, page: int, scale: float) -> float:
    """The baseline: open the PDF and render the page with pypdfium2 (bitmap only)."""
    t0 = time.perf_counter()
    doc = pdfium.PdfDocument(str(path))
    pg = doc[page - 1]
    bitmap = pg.render(scale=scale, rev_byteorder=True)
    bitmap.close()
    pg.close()
    doc.close()
    return time.perf_counter() - t0


def _signed_in(server) -> httpx.Client:  # noqa: ANN001 - ApiServer
    """A client holding the session cookie (use it as a context manager)."""
    client = httpx.Client(base_url=server.url, timeout=60)
    from mnote_kr.viewer import web

    with client.stream("GET", web.entry_url(server)) as r:
        assert r.status_code == 303, r.status_code
    return client


def child(ws: Path, cid: str, page: int, scale: float, baseline: bool) -> None:
    """One fresh-process measurement, printed as JSON."""
    if baseline:
        print(json.dumps({"seconds": render_alone(ws / "papers" / "paper.pdf", page, scale), "ok": True}))
        return
    t0 = time.perf_counter()
    from mnote_kr_testkit.fakes import fake_host

    from mnote_kr.server.app import ApiServer

    host, _ = fake_host(ws)
    with ApiServer(host, write_token_file=False) as server:
        client = _signed_in(server)
        elapsed, ok = first_render(client, cid)
        client.close()
    print(json.dumps({"seconds": elapsed, "ok": ok, "with_start": time.perf_counter() - t0}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--fresh", type=int, default=5, help="fresh-process rounds")
    ap.add_argument("--page", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.5)
    ap.add_argument("--paint-rounds", type=int, default=10, help="browser rounds (first paint, relocation)")
    ap.add_argument("--child", nargs=2, metavar=("WS", "CID"))
    ap.add_argument("--baseline", action="store_true")
    args = ap.parse_args()
    if args.child:
        child(Path(args.child[0]), args.child[1], args.page, args.scale, args.baseline)
        return 0


    import mnote_kr_pdf_bbox.render as pdf_render
    from mnote_kr.server.app import ApiServer
    from mnote_kr.viewer import web

    if args.scale not in web.SCALES or args.scale != web.DEFAULT_SCALE:
        print(f"the viewer renders at {web.DEFAULT_SCALE}; use --scale {web.DEFAULT_SCALE}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        host, cid, query = setup(ws, args.page)
        pdf = ws / "papers" / "paper.pdf"
        cold: list[float] = []
        warm: list[float] = []
        base: list[float] = []
        hook: list[float] = []  # where the cold time goes: the plugin's render + PNG encoding
        misses = 0
        with ApiServer(host, write_token_file=False) as server:
            client = _signed_in(server)
            state = web.state(server)
            first_render(client, cid)  # load code paths once; cold below means empty caches
            for _ in range(args.rounds):
                base.append(render_alone(pdf, args.page, args.scale))
                t0 = time.perf_counter()
                host.plugins.render_page(str(pdf), args.page, args.scale)
                hook.append(time.perf_counter() - t0)
                state.renders.clear()
                pdf_render._sizes.clear()
                t, ok = first_render(client, cid)
                cold.append(t)
                misses += not ok
                t, ok = first_render(client, cid)
                warm.append(t)
                misses += not ok
            client.close()

            def clear() -> None:
                state.renders.clear()
                pdf_render._sizes.clear()

            paint, paint_misses = browser_rounds(server, paint_citations(host, cid), cid, query, args.paint_rounds,
                                                 clear)
        fresh: list[float] = []
        fresh_base: list[float] = []
        for _ in range(args.fresh):
            for baseline, into in ((True, fresh_base), (False, fresh)):
                out = subprocess.run([sys.executable, __file__, "--child", str(ws), cid, "--page", str(args.page),
                                      "--scale", str(args.scale)] + (["--baseline"] if baseline else []),
                                     capture_output=True, text=True, timeout=120, check=True)
                got = json.loads(out.stdout.strip().splitlines()[-1])
                into.append(got["seconds"])
                misses += not got["ok"]

    def ms(xs: list[float]) -> str:
        return f"{statistics.median(xs) * 1000:8.1f} ms"

    b, fb = statistics.median(base), statistics.median(fresh_base)
    print(f"PDF citation {cid} on page {args.page} of {PDF.name}, scale {args.scale} "
          f"({args.rounds} rounds, {args.fresh} fresh processes; medians)")
    print(f"  baseline: pypdfium2 open + render page         {ms(base)}")
    print(f"  viewer cold (HTML + page PNG, caches empty)    {ms(cold)}   ratio {statistics.median(cold) / b:6.2f}x")
    print(f"    of which the render_page hook (render+PNG) {ms(hook)}   ratio {statistics.median(hook) / b:6.2f}x")
    print(f"  viewer warm (HTML + cached page PNG)           {ms(warm)}   ratio {statistics.median(warm) / b:6.2f}x")
    print(f"  baseline, fresh process                        {ms(fresh_base)}")
    print(f"  viewer, fresh process (first request)          {ms(fresh)}   ratio {statistics.median(fresh) / fb:6.2f}x")
    print(f"  misses (no box or no PNG): {misses} of {2 * args.rounds + args.fresh}")
    s = statistics.median(paint["search"])
    print(f"In Chromium ({args.paint_rounds} rounds, fresh browser context each; medians)")
    print(f"  baseline: search request alone (POST search)   {ms(paint['search'])}")
    for key, label in (("pdf", "first paint, located PDF page (cold render) "),
                       ("docx", "first paint, DOCX paragraph (1,175 paras)  "),
                       ("move_docx", "postMessage relocation, DOCX paragraph    "),
                       ("move_pdf", "postMessage relocation, PDF to page 5      ")):
        print(f"  {label}   {ms(paint[key])}   ratio {statistics.median(paint[key]) / s:6.2f}x")
    print(f"  misses (no highlight, or 'failed'): {paint_misses} of {5 * args.paint_rounds}")
    return 0 if misses == 0 and paint_misses == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
