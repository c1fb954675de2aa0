"""The OCR plugin through the host's plugin manager: text and boxes of generated scans whose
lines and boxes Pillow drew (labels from the generator, never from the plugin), the budgets,
hostile and broken images, and the files left untouched."""

from __future__ import annotations

import hashlib
import shutil
import time
from pathlib import Path

import pytest
from mnote_kr_testkit.scans import GeneratedScan, bomb_png, iou, render

from mnote_kr.core.config import load_config
from mnote_kr.errors import DocumentError
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import Plugins, load_plugins

LINES = ["Invoice number 4471 for the harbour crane", "扫描件里的文字也能搜索到", "Delivered to Pier Seven on Monday"]
SMALL = (6.0, 2.0)  # inches: a receipt-sized page keeps recognition quick


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _squeeze(text: str) -> str:
    return "".join(ch.casefold() for ch in text if ch.isalnum())


@pytest.fixture
def plugins() -> Plugins:
    return load_plugins(load_config(None))


@pytest.fixture(scope="module")
def page() -> GeneratedScan:
    return render(LINES, dpi=150, pt=14, page_inches=SMALL, margin_inches=0.4, line_spacing=2.0)


def _count_recognitions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from mnote_kr_ocr import scan

    calls: list[int] = []
    real = scan.recognise_array

    def counted(rgb):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(rgb)

    monkeypatch.setattr(scan, "recognise_array", counted)
    return calls


def test_image_text_and_line_boxes_in_pixels(plugins: Plugins, page: GeneratedScan, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The recognised text holds every line; a phrase query lands on its line's box in image pixels
    (page 1, IoU >= 0.5 with the box Pillow drew); a copy under another name is not recognised again."""
    calls = _count_recognitions(monkeypatch)
    path = page.save(tmp_path / "receipt.png")
    before = _sha(path)
    text = plugins.extract_text(str(path))
    assert text is not None
    for line in LINES:
        assert _squeeze(line) in _squeeze(text), (line, text)
    assert len(calls) == 1
    for query, n in (("harbour crane", 0), ("文字也能搜索", 1), ("Pier Seven", 2)):
        loc = plugins.locate(LocateRequest(file=str(path), evidence=text, query=query))
        assert loc.locator_precision == "bbox" and not loc.locator_degraded, loc
        assert loc.page == 1 and loc.bbox_unit == "px" and loc.locator_plugin == "ocr"
        assert loc.bbox is not None and iou(loc.bbox, page.lines[n].box) >= 0.5, (query, loc.bbox, page.lines[n].box)
    copy = tmp_path / "elsewhere" / "same-receipt.png"
    copy.parent.mkdir()
    shutil.copy2(path, copy)
    from mnote_kr_ocr import scan

    scan._memo.clear()  # only the record on disk may answer now
    assert plugins.extract_text(str(copy)) == text
    assert len(calls) == 1, "the same content was recognised twice"
    assert _sha(path) == before


def test_scanned_pdf_page_is_text_and_boxes_in_points(plugins: Plugins, page: GeneratedScan, tmp_path: Path) -> None:
    """An image-only PDF: the PDF's own reader has no text, the OCR plugin's is given with a page
    marker; once recognised, a citation lands on the line's box in PDF points on that page."""
    path = page.save(tmp_path / "scan.pdf")
    before = _sha(path)
    assert plugins.locator_plugin(".pdf") == "pdf_bbox"
    text = plugins.extract_text(str(path))
    assert text is not None and text.startswith("## Page 1")
    assert _squeeze(LINES[0]) in _squeeze(text)
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, query="harbour crane"))
    assert loc.locator_precision == "bbox" and loc.bbox_unit == "pt" and loc.page == 1, loc
    truth = page.boxes_in_points()[0]
    assert loc.bbox is not None and iou(loc.bbox, truth) >= 0.5, (loc.bbox, truth)
    # no section: the text wrapper's "## Page N" lines are not the scan's headings (a newcomer saw
    # "heading: Page 3" on a citation boxed on page 1)
    assert loc.place_headings == []
    assert _sha(path) == before


def test_budgets_pages_time_and_pixels_each_say_one_line(plugins: Plugins, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages per file and seconds per file stop recognition with one line each; a page over the
    pixel budget is downscaled (said once) and its boxes still come back in the original's pixels."""
    from PIL import Image

    pages = [render([f"Page {n} holds the word {w}"], dpi=100, page_inches=(4.0, 1.0), margin_inches=0.2)
             for n, w in ((1, "amber"), (2, "cobalt"), (3, "saffron"))]
    pdf = tmp_path / "three.pdf"
    pages[0].image.convert("RGB").save(pdf, "PDF", resolution=100.0, save_all=True,
                                       append_images=[p.image.convert("RGB") for p in pages[1:]])
    lines: list[str] = []
    monkeypatch.setenv("MNOTE_KR_OCR_MAX_PAGES", "1")
    text = plugins.extract_text(str(pdf), lines.append) or ""
    assert "amber" in text and "cobalt" not in text and "saffron" not in text
    limit = [ln for ln in lines if "limit: OCR pages per file 1" in ln]
    assert len(limit) == 1 and "3 pages without a text layer" in limit[0], lines
    assert any("1/1 pages recognised" in ln for ln in lines), lines

    monkeypatch.setenv("MNOTE_KR_OCR_MAX_PAGES", "10")
    monkeypatch.setenv("MNOTE_KR_OCR_MAX_SECONDS", "0.000001")
    lines.clear()
    text = plugins.extract_text(str(pdf), lines.append) or ""
    assert "amber" not in text
    assert [ln for ln in lines if "limit: OCR time per file" in ln] == [
        "three.pdf: recognition stopped after 0 of 3 pages (limit: OCR time per file 1e-06 s, "
        "[ocr] max_seconds)"]

    monkeypatch.delenv("MNOTE_KR_OCR_MAX_SECONDS")
    big = render(["A wide page read at a quarter of its pixels"], dpi=200, page_inches=(6.0, 1.0), margin_inches=0.3)
    path = big.save(tmp_path / "big.png")
    with Image.open(path) as im:
        width, height = im.size
    monkeypatch.setenv("MNOTE_KR_OCR_MAX_PIXELS", str(width * height // 4))
    lines.clear()
    text = plugins.extract_text(str(path), lines.append) or ""
    assert _squeeze("quarter of its pixels") in _squeeze(text)
    assert [ln for ln in lines if "downscaled" in ln] == [
        f"big.png: {width:,} x {height:,} pixels recognised downscaled to at most {width * height // 4:,} pixels "
        "(limit: OCR pixels per page, [ocr] max_pixels)"]
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, query="quarter of its pixels"))
    assert loc.bbox is not None and iou(loc.bbox, big.lines[0].box) >= 0.5, (loc.bbox, big.lines[0].box)
    from mnote_kr_ocr import scan

    engine = scan._rapid()
    for ort in (engine.text_det.infer, engine.text_cls.infer, engine.text_rec.session):  # threads bounded (2)
        options = ort.session.get_session_options()
        assert (options.intra_op_num_threads, options.inter_op_num_threads) == (2, 1)


def test_bomb_image_refused_from_its_header(plugins: Plugins, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 30,000 x 30,000 PNG of a few KB is refused before any pixel is decoded, in one line."""
    from PIL import Image

    path = bomb_png(tmp_path / "bomb.png")
    assert path.stat().st_size < 8192
    before = _sha(path)

    def no_decoding(self):  # type: ignore[no-untyped-def]
        raise AssertionError("pixels were decoded")

    monkeypatch.setattr(Image.Image, "load", no_decoding)
    started = time.perf_counter()
    reason = plugins.check_budget(str(path), 10**6)
    elapsed = time.perf_counter() - started
    assert reason == "bomb.png: the image is 30,000 x 30,000 pixels (900.0 megapixels; " \
                     "limit: OCR image size 100.0 megapixels)", reason
    print(f"bomb refused in {elapsed * 1000:.1f} ms")
    with pytest.raises(DocumentError, match="30,000 x 30,000"):
        plugins.extract_text(str(path))
    assert _sha(path) == before


def test_corrupt_and_textless_images_give_no_box(plugins: Plugins, tmp_path: Path) -> None:
    """A damaged image is one clear error (not over a budget: its name is still indexed) and never
    a box; an image with no text (noise only) gives no text and no invented citation."""
    good = render(["Nothing to see here"], dpi=100, page_inches=(3.0, 1.0), margin_inches=0.2).save(tmp_path / "x.png")
    broken = tmp_path / "broken.png"
    broken.write_bytes(good.read_bytes()[:200])  # header and a torn first chunk
    before = _sha(broken)
    assert plugins.check_budget(str(broken), 10**6) is None
    with pytest.raises(DocumentError) as err:
        plugins.extract_text(str(broken))
    assert "\n" not in err.value.message and err.value.message.startswith("cannot read the image broken.png")
    loc = plugins.locate(LocateRequest(file=str(broken), evidence="Nothing to see here", query="see here"))
    assert loc.locator_precision == "file" and loc.locator_degraded and loc.bbox is None
    assert "cannot read the image broken.png" in (loc.reason or "")
    assert _sha(broken) == before

    noise = render([], dpi=100, page_inches=(3.0, 2.0), noise=0.02, seed=7).save(tmp_path / "noise.png")
    assert plugins.extract_text(str(noise)) == ""
    loc = plugins.locate(LocateRequest(file=str(noise), evidence="the harbour crane", query="harbour crane"))
    assert loc.locator_precision == "file" and loc.locator_degraded and loc.bbox is None, loc


def test_low_confidence_line_is_a_degraded_place(plugins: Plugins, page: GeneratedScan, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A line recognised below the confidence floor is cited with its reason, never as a sure box."""
    path = page.save(tmp_path / "receipt.png")
    text = plugins.extract_text(str(path)) or ""
    monkeypatch.setenv("MNOTE_KR_OCR_MIN_CONFIDENCE", "1.01")  # every real score is below it
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, query="harbour crane"))
    assert loc.locator_degraded
    assert "recognised with low confidence" in (loc.reason or "")


def test_config_switch_turns_ocr_off(page: GeneratedScan, tmp_path: Path) -> None:
    """``disabled_plugins = ["ocr"]``: images have no reader and no place, scanned PDFs no text."""
    path = page.save(tmp_path / "receipt.png")
    pdf = page.save(tmp_path / "scan.pdf")
    on = load_plugins(load_config(None))
    assert on.locator_plugin(".png") == "ocr"
    home_config = Path(load_config.__globals__["paths"].config_dir()) / "config.toml"
    home_config.parent.mkdir(parents=True, exist_ok=True)
    home_config.write_text('disabled_plugins = ["ocr"]\n', encoding="utf-8")
    off = load_plugins(load_config(None))
    assert off.locator_plugin(".png") is None
    assert off.extract_text(str(path)) is None and off.extract_text(str(pdf)) is None
    loc = off.locate(LocateRequest(file=str(path), evidence=LINES[0], query="harbour crane"))
    assert loc.locator_precision == "file"


def test_viewer_model_and_page_image(plugins: Plugins, page: GeneratedScan, tmp_path: Path) -> None:
    """An image is one page sized in its pixels (the frame of its boxes), drawn as PNG."""
    from io import BytesIO

    from PIL import Image

    path = page.save(tmp_path / "receipt.png")
    model = plugins.document_model(str(path))
    assert model is not None and model.kind == "pages"
    assert [(p.width, p.height) for p in model.pages] == [(float(page.image.width), float(page.image.height))]
    png = plugins.render_page(str(path), 1, 1.0)
    assert png is not None
    with Image.open(BytesIO(png)) as shown:
        assert shown.size == page.image.size
    with pytest.raises(DocumentError, match="out of range"):
        plugins.render_page(str(path), 2, 1.0)


def test_wrapper_holds_the_recognised_text(tmp_path: Path) -> None:
    """The image wrapper LightRAG indexes carries the recognised text after its mark, and stays
    recognised as the connector's own file however long the text."""
    from mnote_kr_lightrag.client import links

    source = tmp_path / "photo.png"
    source.write_bytes(b"not read here")
    name = "photo.w5c0e1b7a.1f3a09c2-77ab01de.png.md"
    long_text = "\n\n".join(f"line {n} of a long scanned page" for n in range(4000))
    written = links.write_wrapper(tmp_path, name, source, "photo.png", 13, long_text)
    data = written.read_text(encoding="utf-8")
    assert "## Text in the image" in data and "line 3999 of a long scanned page" in data
    assert written.stat().st_size > 64 * 1024
    assert links.is_our_wrapper(written)


def test_status_counts_waiting_and_failed_files(plugins: Plugins, page: GeneratedScan, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """``status`` learns from the records alone: images and PDFs recognised (with their pages, and
    the scanned pages the pages limit left out), never recognised (waiting: an image, a scanned
    PDF not yet sent), damaged (failed, with the reason); a PDF whose pages all have text, other
    files and deleted entries are not counted."""
    from mnote_kr_testkit.scans import mixed_pdf

    from mnote_kr.models import SourceEntry

    monkeypatch.setenv("MNOTE_KR_OCR_MAX_PAGES", "1")  # the records are kept per budget: one for all
    seen = page.save(tmp_path / "seen.png")
    plugins.extract_text(str(seen))
    unseen = render(["Never read"], dpi=100, page_inches=(2.0, 1.0)).save(tmp_path / "unseen.png")
    broken = tmp_path / "broken.png"
    broken.write_bytes(seen.read_bytes()[:200])
    with pytest.raises(DocumentError):
        plugins.extract_text(str(broken))
    scanned = page.save(tmp_path / "scan.pdf")
    plugins.recognize_text(str(scanned))
    small = [render([f"Scanned page {w}"], dpi=100, page_inches=(3.0, 1.0), margin_inches=0.2) for w in ("one", "two")]
    mixed = mixed_pdf(tmp_path / "mixed.pdf", [["A page with its text layer."], small[0], small[1]])
    assert "Scanned page one" in (plugins.recognize_text(str(mixed)) or "")
    text_only = mixed_pdf(tmp_path / "text.pdf", [["Every page of this one has its text layer."]])
    assert plugins.recognize_text(str(text_only)) is None
    unsent = render(["Not sent yet"], dpi=100, page_inches=(2.0, 1.0)).save(tmp_path / "unsent.pdf")
    torn = tmp_path / "torn.pdf"
    torn.write_bytes(scanned.read_bytes()[:300])
    with pytest.raises(DocumentError):
        plugins.recognize_text(str(torn))

    def entry(path: Path, status: str = "processed") -> SourceEntry:
        return SourceEntry(source_id=path.name, source_path=str(path), source_root_relative_path=path.name,
                           source_hash="sha256:" + _sha(path), status=status)  # type: ignore[arg-type]

    notes = tmp_path / "notes.md"
    notes.write_text("hello", encoding="utf-8")
    gone = render(["Gone"], dpi=100, page_inches=(2.0, 1.0)).save(tmp_path / "gone.png")
    files = (seen, unseen, broken, notes, scanned, mixed, text_only, unsent, torn)
    entries = {p.name: entry(p) for p in files} | {"gone.png": entry(gone, "delete_completed")}
    entries["unsent.pdf"] = entry(unsent, "pending")
    ocr = plugins.reader_status(entries)["ocr"]
    assert (ocr["recognised"], ocr["pages"], ocr["leftOut"], ocr["waiting"]) == (3, 3, 1, 2), ocr
    assert [f["sourcePath"] for f in ocr["failed"]] == ["broken.png", "torn.pdf"], ocr
    assert ocr["failed"][0]["reason"].startswith("cannot read the image broken.png")
    assert ocr["failed"][1]["reason"].startswith("cannot open the PDF torn.pdf")
    # a file the index itself failed (an encrypted PDF) is listed under Failed once, not again by OCR
    again = plugins.reader_status(entries | {"torn.pdf": entry(torn, "failed")})["ocr"]
    assert [f["sourcePath"] for f in again["failed"]] == ["broken.png"], again
    from mnote_kr.citations.render.statustext import render_status

    shown = render_status({"workspace": str(tmp_path), "registry": {"entries": 10}, "provider": {},
                           "readers": plugins.reader_status(entries)}).splitlines()
    assert ("OCR:       3 file(s) recognised (3 page(s)), 2 waiting for recognition, 2 failed; 1 scanned page(s) "
            "left out by the pages limit ([ocr] max_pages) ('mnote-kr ingest --force FILE' recognises one now)"
            ) in shown, shown
    assert f"           failed: broken.png: {ocr['failed'][0]['reason']}" in shown


def test_corpus_scan_phrases_land_on_their_lines(plugins: Plugins, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The MEDRPT scan (image-only, 408 x 528 pt): recognition may glue a few words (it glued most,
    ``Metformin500mg``, before ``spaces``), yet a query's words still land on the line that shows
    them, boxed with the lines that finish their sentence (the box is the lines quoted). The lines'
    places were read off the page rendered by PDFium (a person's reading, not this plugin's):
    "persistent headaches" on the first line under CHIEF COMPLAINT (y 298-308 pt), its sentence ending
    on the second ("... 6 weeks, rated 6-7/10 in severity.", y 307-314 pt), where the next one starts and runs
    on to the third ("Associated symptoms include occasional dizziness, / mild nausea, and sensitivity to
    light.", y 315-322 pt): the quote ends there, one text; "Metformin ... twice daily" on the second line under
    MEDICAL HISTORY (y 370-380 pt), below the Lisinopril line (y 361-370 pt), a list item the next item does not
    go on with."""
    from mnote_kr_testkit.data import CORPUS

    monkeypatch.setenv("MNOTE_KR_OCR_MAX_PAGES", "1")
    source = CORPUS / "pdf" / "markitdown__MEDRPT-2024-PAT-3847_medical_report_scan.pdf"
    path = tmp_path / source.name
    shutil.copy2(source, path)
    text = plugins.extract_text(str(path)) or ""
    for query, (top, bottom), ending in (("persistent headaches", (296, 323), "sensitivity to light."),
                                         ("Metformin twice daily", (368, 382), "twice daily")):
        loc = plugins.locate(LocateRequest(file=str(path), evidence=text[:1500], query=query))
        assert loc.locator_precision == "bbox" and loc.page == 1 and loc.bbox is not None, (query, loc)
        assert top <= loc.bbox[1] and loc.bbox[3] <= bottom, (query, loc.bbox)
        quote = loc.quote or ""
        assert "\n" not in quote and quote.endswith(ending), (query, quote)
        assert _squeeze(query.split()[0]) in _squeeze(quote[:80]), (query, quote)
    assert _sha(path) == _sha(source)


def test_scanned_page_among_text_pages_is_recognised_and_placed(plugins: Plugins, page: GeneratedScan,
                                                               tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A PDF with a scanned page between two text pages: only that page is recognised (once per
    content), the indexed text holds every page under its marker, a phrase of the scan lands on
    its line's box in points on page 2, a phrase of page 3 is left to the PDF's own locator (its
    text layer's box), even when the passage holds both; a PDF with text on every page has none."""
    from mnote_kr_testkit.scans import mixed_pdf

    calls = _count_recognitions(monkeypatch)
    path = mixed_pdf(tmp_path / "report.pdf", [["Annual report of the port", "Chapter one: the quays."], page,
                                                ["Chapter three lists the cranes and their owners."]])
    before = _sha(path)
    text = plugins.recognize_text(str(path))
    assert text is not None and len(calls) == 1
    at = [text.index(f"## Page {n}") for n in (1, 2, 3)]
    assert at == sorted(at)
    assert _squeeze(LINES[2]) in _squeeze(text[at[1]:at[2]]) and "cranes and their owners" in text[at[2]:]
    for query, want_page, plugin in (("Pier Seven on Monday", 2, "ocr"), ("cranes and their owners", 3, "pdf_bbox"),
                                     ("the quays", 1, "pdf_bbox")):
        loc = plugins.locate(LocateRequest(file=str(path), evidence=text, query=query, passage=text))
        assert loc.locator_precision == "bbox" and loc.page == want_page, (query, loc)
        assert loc.locator_plugin == plugin and loc.bbox_unit == "pt", (query, loc)
        if plugin == "ocr":
            truth = page.boxes_in_points()[2]
            assert loc.bbox is not None and iou(loc.bbox, truth) >= 0.5, (loc.bbox, truth)
    from mnote_kr_ocr import scan

    scan._memo.clear()
    assert plugins.recognize_text(str(path)) == text and len(calls) == 1  # the record answers
    plain = mixed_pdf(tmp_path / "plain.pdf", [["Only text here, on every page of it."], ["And here too, page two."]])
    assert plugins.recognize_text(str(plain)) is None and len(calls) == 1
    assert _sha(path) == before


def test_ocr_table_sets_the_budgets_and_turns_ocr_off(page: GeneratedScan, tmp_path: Path) -> None:
    """``[ocr]`` in the workspace's config: its budgets apply (pages per file), ``enabled = false``
    turns OCR off like ``disabled_plugins``, and a bad key or value is one error line naming it."""
    from mnote_kr.errors import ConfigError

    ws = tmp_path / "ws"
    (ws / ".mnote").mkdir(parents=True)
    config = ws / ".mnote" / "config.toml"
    pages = [render([f"Page {n} holds the word {w}"], dpi=100, page_inches=(4.0, 1.0), margin_inches=0.2)
             for n, w in ((1, "amber"), (2, "cobalt"))]
    pdf = tmp_path / "two.pdf"
    pages[0].image.convert("RGB").save(pdf, "PDF", resolution=100.0, save_all=True,
                                       append_images=[pages[1].image.convert("RGB")])
    config.write_text("[ocr]\nmax_pages = 1\nthreads = 1\nmax_seconds = 120.5\n", encoding="utf-8")
    said: list[str] = []
    text = load_plugins(load_config(ws)).extract_text(str(pdf), said.append) or ""
    assert "amber" in text and "cobalt" not in text
    assert any("(limit: OCR pages per file 1, [ocr] max_pages)" in line for line in said), said

    image = page.save(tmp_path / "receipt.png")
    config.write_text("[ocr]\nenabled = false\n", encoding="utf-8")
    off = load_plugins(load_config(ws))
    assert off.locator_plugin(".png") is None and "ocr" in off.infos and off.infos["ocr"].blocked
    assert off.extract_text(str(image)) is None and off.recognize_text(str(pdf)) is None

    for body, message in (
            ("max_pages = 0", "[ocr] max_pages must be a whole number above 0, not 0"),
            ("max_pixels = 2.5", "[ocr] max_pixels must be a whole number above 0, not 2.5"),
            ('threads = "two"', "[ocr] threads must be a whole number above 0, not 'two'"),
            ("max_seconds = -1", "[ocr] max_seconds must be a number above 0, not -1"),
            ("max_page = 3", "[ocr] has no key 'max_page'"),
            ('enabled = "no"', "[ocr] enabled must be true or false, not 'no'")):
        config.write_text(f"[ocr]\n{body}\n", encoding="utf-8")
        with pytest.raises(ConfigError) as err:
            load_plugins(load_config(ws))
        assert err.value.message == message and err.value.hint, (body, err.value.message)


def test_a_text_pages_evidence_is_not_placed_on_a_scanned_page_by_meaning(plugins: Plugins, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The corpus's mixed PDF: pages 1-3 scanned, 4-6 text, every page saying "This is a multi page
    document. Page N." (the PDF locator boxes a text page's line, and finds no place for a scanned
    page's line that reads as a text page's but for its number). With the scanned lines embedded, a
    passage that spans all six pages but whose evidence is page 5's is never placed on a scanned page;
    page 2's evidence is, on its line."""
    from mnote_kr_testkit.data import CORPUS

    from mnote_kr.citations.rank import meaning

    source = CORPUS / "pdf" / "paperless__multi-page-mixed.pdf"
    path = tmp_path / source.name
    shutil.copy2(source, path)
    monkeypatch.setattr(meaning, "_queue", [])
    text = plugins.recognize_text(str(path)) or ""  # as the provider does when it sends the PDF
    assert "## Page 6" in text and meaning.embed_queued(lambda line: None) == 1
    for n in (5, 2):
        evidence = f"Page {n}\nThis is a multi page document. Page {n}."
        loc = plugins.locate(LocateRequest(file=str(path), evidence=evidence, passage=text,
                                           query=f"Page {n} multi page document"))
        if n == 5:
            assert loc.locator_plugin != "ocr" and loc.page in (None, 5), loc
        else:
            assert loc.locator_plugin == "ocr" and loc.page == 2 and loc.bbox is not None, loc
            assert 40 <= loc.bbox[0] <= 70 and 45 <= loc.bbox[1] <= 65, loc.bbox  # the one line, near the top left
    assert _sha(path) == _sha(source)
