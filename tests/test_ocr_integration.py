"""Scans and images through the real LightRAG server and a real Chromium.

A folder holds a photographed receipt (PNG), an image-only scanned letter (PDF: LightRAG's own
parser finds no text in it), a report whose second page is a scan between two text pages, a
damaged image and, under an excluded folder, a photo. After one ingest the receipt, the letter and
the report's scanned page are found by a phrase they only show as pixels and cited with the box of
that line (image pixels; PDF points on the page), the report's text pages still by their text
layer, ``open`` gives a shell the file and the box, the damaged image is indexed by its name with
one error line, the excluded photo is never read, and the viewer draws the box over the picture.
The text and its boxes are the generator's.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.browser import browser, chromium_path, page_view_geometry  # noqa: F401  (fixtures)
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.scans import GeneratedScan, iou, mixed_pdf, render

from mnote_kr.app.host import Host
from mnote_kr.citations.render.openplan import open_plan
from mnote_kr.core.config import load_config
from mnote_kr.models import Citation
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web
from mnote_kr.viewer.webpages import view_url

pytestmark = pytest.mark.integration

WORDS = ["amber", "falcon", "granite", "harbour", "juniper", "lantern", "meadow", "orchid", "quarry", "saffron",
         "timber", "violet", "willow", "copper", "marble", "thistle"]


class Scans:
    def __init__(self, host: Host, server: ApiServer, receipt: GeneratedScan, letter: GeneratedScan,
                 minutes: GeneratedScan, phrases: dict[str, str], progress: list[str],
                 digests: dict[Path, str]) -> None:
        self.host, self.server, self.receipt, self.letter, self.minutes = host, server, receipt, letter, minutes
        self.phrases, self.progress, self.digests = phrases, progress, digests


def _squeeze(text: str) -> str:
    return "".join(ch.casefold() for ch in text if ch.isalnum())


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def scans(lightrag_engine, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scans]:  # noqa: F811
    engine = lightrag_engine
    rng = random.Random(uuid.uuid4().int)  # unique text per run: the session engine keeps other runs' documents
    a, b, c, d, e, f, g, h = rng.sample(WORDS, 8)
    phrases = {"receipt": f"{a} {b} crane hire", "letter": f"{c} {d} ferry timetable",
               "minutes": f"{e} {f} dredging contract", "report": f"{g} {h} lighthouse keepers"}
    receipt = render(["Harbour services receipt", f"Payment for {phrases['receipt']} received",
                      "Thank you for your custom"], dpi=150, pt=14, page_inches=(6.0, 2.2), margin_inches=0.4,
                     line_spacing=2.0)
    letter = render(["Dear resident,", f"The {phrases['letter']} changes in May.",
                     "Please keep this letter for reference."], dpi=150, pt=14, page_inches=(6.0, 2.2),
                    margin_inches=0.4, line_spacing=2.0, rotate_deg=1.5)
    minutes = render(["Minutes of the harbour board", f"The {phrases['minutes']} was signed today.",
                      "Recorded by the clerk."], dpi=150, pt=14, page_inches=(6.0, 2.2), margin_inches=0.4,
                     line_spacing=2.0)
    progress: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MNOTE_KR_LIGHTRAG_API_KEY", engine.api_key)
        ws = tmp_path_factory.mktemp("ocr-ws")
        folder = ws / "scans"
        (folder / "photos").mkdir(parents=True)
        receipt.save(folder / "receipt.png")
        letter.save(folder / "letter.pdf")
        mixed_pdf(folder / "report.pdf", [["Annual report of the harbour board", "Chapter one: the quays."], minutes,
                                          [f"Chapter three thanks the {phrases['report']} for their service."]])
        (folder / "broken.png").write_bytes((folder / "receipt.png").read_bytes()[:300])
        render([f"Holiday snapshot {a} {c}"], dpi=100, page_inches=(3.0, 1.0)).save(folder / "photos" / "beach.jpg")
        digests = {p: _sha(p) for p in folder.rglob("*") if p.is_file()}
        config = load_config(ws)
        config["providers"] = {"lightrag": {"url": engine.url, "input_dir": engine.input_dir}}
        host = Host(ws, config=config, progress=progress.append)
        host.roots_add(folder, exclude=["photos/*"])
        report = host.ingest(["scans"], wait=True, wait_s=300)
        statuses = {i.source_path: i.status for i in report.items}
        assert statuses.get("scans/receipt.png") == "processed", (report, progress)
        assert statuses.get("scans/letter.pdf") == "processed", (report, progress)
        assert statuses.get("scans/report.pdf") == "processed", (report, progress)
        assert statuses.get("scans/photos/beach.jpg") == "excluded", report
        with ApiServer(host, write_token_file=False) as server:
            yield Scans(host, server, receipt, letter, minutes, phrases, progress, digests)
        assert {p: _sha(p) for p in digests} == digests  # never a byte of a source changed


@pytest.fixture(autouse=True)
def _api_key(lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    # conftest gives every test a clean environment; searches need the engine's key.
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)


def _cited(host: Host, query: str, rel: str) -> Citation:
    results = host.search(query, top_k=10).results
    mine = [c for c in results if c.source_root_relative_path == rel]
    assert mine, [(c.source_root_relative_path, c.display_quote[:60]) for c in results]
    return mine[0]


def test_image_found_by_what_it_shows_and_cited_with_the_line_box(scans: Scans) -> None:
    c = _cited(scans.host, scans.phrases["receipt"], "scans/receipt.png")
    assert c.citation_id.startswith("[IMG-")
    loc = c.locator
    assert loc.locator_precision == "bbox" and not loc.locator_degraded, loc
    assert loc.page == 1 and loc.bbox_unit == "px" and loc.bbox is not None
    assert iou(loc.bbox, scans.receipt.lines[1].box) >= 0.5, (loc.bbox, scans.receipt.lines[1].box)
    shown = c.display_quote.split("\n")  # the cited line first, never the wrapper's heading
    assert _squeeze(shown[0]) == _squeeze(scans.receipt.lines[1].text) and len(shown) <= 3, c.display_quote
    assert "Text in the image" not in c.display_quote and "#" not in c.display_quote
    assert "Text in the image" in (c.raw_quote or ""), c.raw_quote  # the chunk stays the context
    plan = msgspec.json.decode(msgspec.json.encode(open_plan(scans.host, c.citation_id)))
    assert plan["resourceKind"] == "image" and plan["resourcePath"].endswith("scans/receipt.png")
    assert plan["locator"]["bbox"] == loc.bbox and plan["locator"]["bboxUnit"] == "px"


def test_image_only_pdf_found_and_cited_in_points_on_its_page(scans: Scans) -> None:
    c = _cited(scans.host, scans.phrases["letter"], "scans/letter.pdf")
    loc = c.locator
    assert loc.locator_precision == "bbox" and loc.page == 1 and loc.bbox_unit == "pt", loc
    truth = scans.letter.boxes_in_points()[1]
    assert loc.bbox is not None and iou(loc.bbox, truth) >= 0.5, (loc.bbox, truth)
    assert c.citation_markdown.startswith("[letter.pdf · p.1]")


def test_scanned_page_inside_a_text_pdf_found_and_cited_on_that_page(scans: Scans) -> None:
    """The report's page 2 is a picture between two text pages: what it shows is found and cited
    with its line's box in points on page 2 (the pixels PDFium draws there are that line's ink);
    a phrase of page 3 is still placed by the PDF's text layer; the report was recognised once."""
    c = _cited(scans.host, scans.phrases["minutes"], "scans/report.pdf")
    loc = c.locator
    assert loc.locator_precision == "bbox" and loc.page == 2 and loc.bbox_unit == "pt", loc
    assert loc.locator_plugin == "ocr" and not loc.locator_degraded, loc
    truth = scans.minutes.boxes_in_points()[1]
    assert loc.bbox is not None and iou(loc.bbox, truth) >= 0.5, (loc.bbox, truth)
    report = next(p for p in scans.digests if p.name == "report.pdf")
    assert _ink(report, 2, loc.bbox) > 0.04  # the box holds drawn text
    assert c.citation_markdown.startswith("[report.pdf · p.2]")
    text_page = _cited(scans.host, scans.phrases["report"], "scans/report.pdf").locator
    assert text_page.locator_precision == "bbox" and text_page.page == 3, text_page
    assert text_page.locator_plugin == "pdf_bbox", text_page
    entry = scans.host.registry().entries["scans/report.pdf"]
    assert entry.kind == "text_fallback" and "recognised by OCR" in (entry.last_error or ""), entry
    # one page recognised, the scanned one: its progress counts to 1/1 (the text pages are not recognised)
    recognised = [ln for ln in scans.progress if ln.startswith("OCR report.pdf: ")]
    assert recognised and all(" 0/1 pages" in ln or " 1/1 pages" in ln for ln in recognised), scans.progress
    assert sum(" 1/1 pages recognised" in ln for ln in recognised) == 1, scans.progress


def _ink(pdf: Path, page: int, box: list[float]) -> float:
    """Share of dark pixels PDFium draws inside ``box`` (points, top-left origin) on ``page``."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        scale = 2.0
        im = doc[page - 1].render(scale=scale).to_pil().convert("L")
    finally:
        doc.close()
    crop = im.crop(tuple(round(v * scale) for v in box))
    dark = sum(crop.histogram()[:128])
    return dark / max(1, crop.width * crop.height)


def test_damaged_image_is_indexed_by_name_with_one_error_line(scans: Scans) -> None:
    said = [line for line in scans.progress if "broken.png" in line and line.startswith("Error: OCR")]
    assert len(said) == 1 and "cannot read the image broken.png" in said[0], scans.progress
    entry = scans.host.registry().entries["scans/broken.png"]
    assert entry.status == "processed"
    assert not any("beach.jpg" in line for line in scans.progress), "the excluded photo was read"
    ocr = scans.host.status()["readers"]["ocr"]
    assert (ocr["recognised"], ocr["waiting"]) == (3, 0), ocr  # the receipt, the letter and the report
    assert [f["sourcePath"] for f in ocr["failed"]] == ["scans/broken.png"], ocr


def test_viewer_draws_the_box_over_the_image(browser, scans: Scans) -> None:  # noqa: F811
    c = _cited(scans.host, scans.phrases["receipt"], "scans/receipt.png")
    context = browser.new_context(viewport={"width": 1200, "height": 900}, device_scale_factor=1)
    page: Any = context.new_page()
    try:
        assert page.goto(web.entry_url(scans.server)).status == 200
        page.goto(scans.server.url + view_url(c.citation_id))
        geo = page_view_geometry(page)
    finally:
        context.close()
    assert (geo["w"], geo["h"]) == (float(scans.receipt.image.width), float(scans.receipt.image.height))
    assert geo["natural"] == scans.receipt.image.width
    drawn = geo["box"]
    assert c.locator.bbox is not None
    assert all(abs(x - y) <= 2.0 for x, y in zip(drawn, c.locator.bbox, strict=True)), (drawn, c.locator.bbox)
    assert iou(drawn, scans.receipt.lines[1].box) >= 0.5
