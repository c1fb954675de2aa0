"""Sidecar bbox positions become PDF points, top-left origin, on rotated and cropped pages.

Where a box on a rotated, cropped page should land is read from PDFium's rendering of that page
(which applies the crop and rotation itself), not from a formula: the rendered ink of the text
drawn at the box must fill the returned box.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.data import SAMPLES as SAMPLES_DIR
from mnote_kr_testkit.pdfs import PdfBuilder, ink_box

from mnote_kr.models import LocateRequest, SidecarBlock, SidecarMeta, SidecarPosition
from mnote_kr_pdf_bbox import locate

REPO = Path(__file__).resolve().parents[3]
SAMPLE = SAMPLES_DIR / "sidecars" / "study.pdf.parsed__mineru_offline_ir_demo"
CROP = (36.0, 48.0, 580.0, 760.0)


@pytest.fixture
def rotated_pdf(tmp_path: Path) -> tuple[Path, PdfBuilder]:
    b = PdfBuilder()
    b.add_page()
    p2 = b.add_page(rotate=90, cropbox=CROP)
    b.text(p2, 100, 600, "A rotated line of text", 12)
    p3 = b.add_page(rotate=270, cropbox=CROP)
    b.text(p3, 100, 600, "A rotated line of text", 12)  # the same user-space place, turned the other way
    f = tmp_path / "rot.pdf"
    f.write_bytes(b.build())
    return f, b


def _req(f: Path, positions: list[SidecarPosition], meta: SidecarMeta | None) -> LocateRequest:
    block = SidecarBlock(blockid="b1", content="x", positions=positions)
    return LocateRequest(file=str(f), evidence="x", block=block, block_id="b1", sidecar_meta=meta)


def _close(a: list[float] | None, b: tuple[float, ...], tol: float = 0.02) -> bool:
    return a is not None and all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def _fits_ink(box: list[float] | None, ink: tuple[float, float, float, float], slack: float = 3.0) -> bool:
    """``box`` holds all the ink and reaches past it by at most ``slack`` points on every side
    (a text box spans the font's ascent and descent, the ink only the glyphs drawn)."""
    return (box is not None and box[0] <= ink[0] + 0.5 and box[1] <= ink[1] + 0.5 and box[2] >= ink[2] - 0.5
            and box[3] >= ink[3] - 0.5 and all(abs(b - i) <= slack for b, i in zip(box, ink, strict=True)))


def test_pdf_mineru_normalised_box_scales_to_displayed_rotated_cropped_page(rotated_pdf):
    f, b = rotated_pdf
    w, h = b.display_size(2)  # crop 544 x 712, rotated: 712 wide, 544 tall
    assert (w, h) == (712.0, 544.0)
    meta = SidecarMeta(parse_engine="mineru", bbox_attributes={"origin": "LEFTTOP", "max": 1000})
    loc = locate(_req(f, [SidecarPosition(type="bbox", anchor="2", range=[100, 200, 500, 300])], meta))
    assert loc.locator_precision == "bbox" and not loc.locator_degraded
    assert loc.page == 2
    assert _close(loc.bbox, (71.2, 108.8, 356.0, 163.2))
    assert loc.bbox_unit == "pt" and loc.bbox_origin == "top-left"


def test_pdf_leftbottom_points_go_through_crop_and_rotation(rotated_pdf):
    f, b = rotated_pdf
    drawn = b.drawn[0]
    meta = SidecarMeta(parse_engine="docling", bbox_attributes={"origin": "LEFTBOTTOM"})
    ub = drawn.user_box
    loc = locate(_req(f, [SidecarPosition(type="bbox", anchor="2", range=[ub[0], ub[3], ub[2], ub[1]])], meta))
    assert loc.page == 2
    assert _fits_ink(loc.bbox, ink_box(f, 2))
    # the same user-space box on the 270-degree page lands elsewhere: where PDFium draws that page's text
    loc270 = locate(_req(f, [SidecarPosition(type="bbox", anchor="3", range=list(ub))], meta))
    assert _fits_ink(loc270.bbox, ink_box(f, 3))
    assert not _fits_ink(loc270.bbox, ink_box(f, 2))


def test_pdf_position_origin_overrides_meta_origin(rotated_pdf):
    f, _ = rotated_pdf
    meta = SidecarMeta(parse_engine="docling", bbox_attributes={"origin": "LEFTBOTTOM"})
    pos = SidecarPosition(type="bbox", anchor="1", range=[10, 20, 110, 60], origin="LEFTTOP")
    assert locate(_req(f, [pos], meta)).bbox == [10, 20, 110, 60]
    pos_b = SidecarPosition(type="bbox", anchor="1", range=[10, 20, 110, 60])
    assert locate(_req(f, [pos_b], meta)).bbox == [10, 732, 110, 772]


def test_pdf_missing_bbox_attributes_assume_mineru_only_for_mineru(rotated_pdf):
    f, _ = rotated_pdf
    pos = [SidecarPosition(type="bbox", anchor="1", range=[0, 0, 500, 500])]
    assert locate(_req(f, pos, SidecarMeta(parse_engine="mineru"))).bbox == [0, 0, 306, 396]
    assert locate(_req(f, pos, SidecarMeta(parse_engine="native"))).bbox == [0, 0, 500, 500]


def test_pdf_block_over_two_pages_gives_every_rect_first_primary(rotated_pdf):
    f, _ = rotated_pdf
    meta = SidecarMeta(parse_engine="mineru", bbox_attributes={"origin": "LEFTTOP", "max": 1000})
    loc = locate(_req(f, [
        SidecarPosition(type="bbox", anchor="1", range=[100, 900, 900, 990]),
        SidecarPosition(type="bbox", anchor="2", range=[100, 10, 900, 100]),
    ], meta))
    assert [r.page for r in loc.rects] == [1, 2]
    assert loc.page == 1 and loc.bbox == loc.rects[0].bbox
    assert _close(loc.rects[1].bbox, (71.2, 5.44, 640.8, 54.4))


def test_pdf_unusable_positions_never_become_a_box(rotated_pdf):
    f, _ = rotated_pdf
    meta = SidecarMeta(parse_engine="mineru", bbox_attributes={"origin": "LEFTTOP", "max": 1000})
    bad = [
        SidecarPosition(type="bbox", anchor="iv", range=[1, 1, 2, 2]),  # page label, not a number
        SidecarPosition(type="bbox", anchor="9", range=[1, 1, 200, 200]),  # no such page
        SidecarPosition(type="bbox", anchor="1", range=[0, 0, 5000, 10]),  # beyond max
        SidecarPosition(type="bbox", anchor="1", range=["a", 0, 1, 1]),
        SidecarPosition(type="bbox", anchor="3"),  # page only
    ]
    loc = locate(_req(f, bad, meta))
    assert loc.bbox is None and loc.locator_precision == "file" and loc.locator_degraded
    assert loc.page is None and loc.page_hint is None  # pages 1 and 3 are both named: no certain page
    only = locate(_req(f, [SidecarPosition(type="bbox", anchor="3")], meta))
    assert only.bbox is None and only.locator_precision == "file"
    assert only.page is None and only.page_hint == 3 and "sidecar" in (only.reason or "")  # a hint, not a place


def test_pdf_real_mineru_sample_sidecar(tmp_path):
    rows = [json.loads(x) for x in (SAMPLE / "study.blocks.jsonl").read_text("utf-8").splitlines() if x.strip()]
    meta = msgspec.convert(rows[0], SidecarMeta)
    blocks = [msgspec.convert(r, SidecarBlock) for r in rows[1:]]
    b = PdfBuilder()
    b.add_page()
    b.add_page()
    f = tmp_path / "study.pdf"
    f.write_bytes(b.build())
    first = locate(LocateRequest(file=str(f), evidence=blocks[0].content, block=blocks[0],
                                 block_id=blocks[0].blockid, sidecar_meta=meta))
    assert first.page == 1 and len(first.rects) == 4
    assert _close(first.bbox, (112 * 0.612, 80 * 0.792, 880 * 0.612, 120 * 0.792))
    assert first.block_id == blocks[0].blockid and first.locator_plugin == "pdf_bbox"
    second = locate(LocateRequest(file=str(f), block=blocks[1], block_id=blocks[1].blockid, sidecar_meta=meta))
    assert second.page == 2 and _close(second.bbox, (61.2, 47.52, 244.8, 71.28))
