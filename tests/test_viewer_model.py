"""The viewer's hooks (``document_model``, ``render_page``) and the system-viewer command."""

from __future__ import annotations

import struct
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.browser import read_png
from mnote_kr_testkit.data import CORPUS

from mnote_kr.errors import DocumentError
from mnote_kr.models import LocateRequest, Locator, OpenActionParams, OpenPlan
from mnote_kr.plugins import load_plugins
from mnote_kr.viewer.sysopen import open_command
from tests.cli_helpers import turbine_pdf
from tests.viewer_fixtures import report_docx


@pytest.fixture
def plugins():
    return load_plugins()


def test_docx_model_has_locator_indices_text_tables_lists_and_textboxes(tmp_path: Path, plugins) -> None:
    data, idx = report_docx("m1")
    path = tmp_path / "r.docx"
    path.write_bytes(data)
    model = plugins.document_model(str(path))
    assert model is not None and model.kind == "paragraphs" and model.plugin == "docx_locator"
    paras = model.paragraphs
    assert [p.index for p in paras] == list(range(len(paras)))
    target = paras[idx["target"]]
    loc = plugins.locate(LocateRequest(file=str(path), evidence="Pyrolytic coating on the blades cut the heating",
                                       query="pyrolytic coating"))
    assert loc.paragraph_index == idx["target"] and loc.highlight is not None
    assert "pyrolytic" in target.text[loc.highlight.start:loc.highlight.end].lower()
    assert paras[idx["title"]].heading_level == 1
    assert (paras[idx["bullet"]].list_level, paras[idx["bullet"]].list_ordered) == (0, False)
    assert paras[idx["bullet"] + 1].list_level == 1
    assert (paras[idx["number1"]].list_level, paras[idx["number1"]].list_ordered) == (0, True)
    assert paras[idx["cell_t2_loss"]].cell == [0, 2, 1] and paras[idx["cell_t2_loss"]].text == "38 percent"
    assert paras[idx["textbox"]].textboxes == ["Sidebar: ice sensors failed twice."]
    assert "Sidebar" not in paras[idx["textbox"]].text  # the locator's text is unchanged


def test_docx_model_of_a_real_textbox_document_keeps_box_text_on_its_anchor(plugins) -> None:
    model = plugins.document_model(str(CORPUS / "docx" / "docling__textbox.docx"))
    assert model is not None
    boxed = [p for p in model.paragraphs if p.textboxes]
    assert boxed, "docling__textbox.docx has text boxes"
    assert all(box.strip() for p in boxed for box in p.textboxes)


def test_markdown_model_matches_text_locator_paragraphs(tmp_path: Path, plugins) -> None:
    md = tmp_path / "n.md"
    md.write_text("# Title\n\nIntro line.\n\n- first item\n\n  - nested item\n\n1. numbered\n\n```\ncode # x\n```\n",
                  encoding="utf-8")
    model = plugins.document_model(str(md))
    assert model is not None and model.plugin == "text_locator"
    kinds = [(p.text.splitlines()[0], p.heading_level, p.list_level, p.list_ordered, p.code) for p in model.paragraphs]
    assert kinds == [("# Title", 1, None, False, False), ("Intro line.", 0, None, False, False),
                     ("- first item", 0, 0, False, False), ("  - nested item", 0, 1, False, False),
                     ("1. numbered", 0, 0, True, False), ("```", 0, None, False, True)]


def test_pdf_model_and_render_page_use_the_locator_frame(tmp_path: Path, plugins) -> None:
    pdf = tmp_path / "t.pdf"
    pdf.write_bytes(turbine_pdf("r1"))
    model = plugins.document_model(str(pdf))
    assert model is not None and model.kind == "pages" and [(p.width, p.height) for p in model.pages] == [(612, 792)]
    png = plugins.render_page(str(pdf), 1, 1.0)
    assert png is not None
    width, height, rows = read_png(png)
    assert (width, height) == (612, 792)
    # Text is drawn at x=72pt from the left, baseline 720pt from the bottom: dark pixels there, white margin.
    loc = plugins.locate(LocateRequest(file=str(pdf), evidence="Blade heating kept the power loss below five percent",
                                       query="blade heating"))
    x0, y0, x1, y1 = loc.bbox
    inside = [rows[y][x * 3] for y in range(int(y0), int(y1)) for x in range(int(x0), int(x1))]
    assert min(inside) < 100
    assert min(rows[10][x * 3] for x in range(width)) == 255
    with pytest.raises(DocumentError, match="out of range"):
        plugins.render_page(str(pdf), 2, 1.0)


def test_render_page_honours_rotation_and_crop_box(plugins) -> None:
    rotated = CORPUS / "pdf" / "pdfplumber__nics-background-checks-2015-11-rotated.pdf"
    model = plugins.document_model(str(rotated))
    assert model is not None
    size = model.pages[0]
    png = plugins.render_page(str(rotated), 1, 1.0)
    assert png is not None
    width, height = struct.unpack(">II", png[16:24])
    assert abs(width - size.width) <= 1 and abs(height - size.height) <= 1
    # /Rotate 90 on a landscape media box (1008 x 612): displayed, and drawn, as portrait
    assert (size.width, size.height) == (612, 1008)


def _plan(kind: str, precision: str, page: int | None) -> OpenPlan:
    return OpenPlan(citation_id="[a1b2]", resource_path="/w/a.pdf", resource_root_relative_path="a.pdf",
                    resource_kind=kind, citation_url="mnote://x",
                    locator=Locator(locator_precision=precision, page=page,  # type: ignore[arg-type]
                                    bbox=[1, 2, 3, 4] if page else None),
                    open_action=OpenActionParams(provider="p", chunk_id=None, search_query="q", evidence_text=None,
                                                 display_quote=None))


def test_system_viewer_command_opens_pdf_at_page_when_a_viewer_can() -> None:
    have = {"okular": "/usr/bin/okular", "xdg-open": "/usr/bin/xdg-open"}
    assert open_command(_plan("pdf", "bbox", 3), which=have.get, platform="linux") == [
        "/usr/bin/okular", "-p", "3", "/w/a.pdf"]
    assert open_command(_plan("pdf", "file", None), which=have.get, platform="linux") == [
        "/usr/bin/xdg-open", "/w/a.pdf"]
    assert open_command(_plan("pdf", "bbox", 3), which={}.get, platform="darwin") == ["open", "/w/a.pdf"]
    assert open_command(_plan("office", "paragraph", None), which={}.get, platform="linux") is None
    # a file citation that knew its page (pageHint) opens there too, though nothing is boxed
    hinted = _plan("pdf", "file", None)
    hinted = msgspec.structs.replace(hinted, locator=Locator(locator_precision="file", page_hint=5))
    assert open_command(hinted, which=have.get, platform="linux") == ["/usr/bin/okular", "-p", "5", "/w/a.pdf"]


def test_page_sizes_agree_with_the_locator_frame_on_every_corpus_pdf(plugins) -> None:
    from mnote_kr_pdf_bbox.model import load_document
    from mnote_kr_pdf_bbox.pdftext import DocumentError as _  # noqa: F401  (same error type)

    checked = 0
    for pdf in sorted((CORPUS / "pdf").glob("*.pdf")):
        model = plugins.document_model(str(pdf))
        frames = [page.geometry.size for page in load_document(pdf).pages]
        assert model is not None and len(model.pages) == len(frames), pdf.name
        for size, (w, h) in zip(model.pages, frames, strict=True):
            assert abs(size.width - w) < 0.01 and abs(size.height - h) < 0.01, (pdf.name, size, (w, h))
        checked += 1
    assert checked >= 30
