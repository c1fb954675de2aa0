"""Boxes from a parser's sidecar block: its ``bbox`` positions in the locator's frame.

Sidecar ``bbox`` positions (MinerU, Docling) carry the 1-based page in ``anchor`` and
``[x0, y0, x1, y1]`` in ``range``, in the coordinate system the meta line's
``bbox_attributes`` declares (a position's own ``origin`` overrides it):

- with ``max`` (MinerU: ``{"origin": "LEFTTOP", "max": 1000}``) the numbers are
  fractions of the page *as rendered*, i.e. the displayed page after ``/Rotate``
  and within the ``/CropBox``; they scale to its real size in points;
- without ``max`` they are PDF points. ``LEFTTOP`` points are taken in the displayed
  page's top-left frame (our output frame); ``LEFTBOTTOM`` points are PDF user space,
  the native bottom-left frame of the unrotated page, and go through the crop box and
  rotation.

When the meta has no ``bbox_attributes`` we assume MinerU's ``{"origin": "LEFTTOP",
"max": 1000}`` only for ``parse_engine == "mineru"``, Docling's ``{"origin":
"LEFTBOTTOM"}`` for ``"docling"``, and ``LEFTTOP`` points otherwise.
"""

from __future__ import annotations

import math
from typing import Any

from mnote_kr.plugin_api import LocateRequest, Locator, Rect, SidecarMeta, SidecarPosition

from . import PLUGIN
from .model import furniture_near
from .pdftext import Box, DocumentText, PageGeometry

_DEFAULT_ATTRS: dict[str | None, dict[str, Any]] = {
    "mineru": {"origin": "LEFTTOP", "max": 1000},
    "docling": {"origin": "LEFTBOTTOM"},
}


def bbox_attributes(meta: SidecarMeta | None) -> dict[str, Any]:
    """The sidecar's declared coordinate system, or the documented default for its engine."""
    if meta is not None and isinstance(meta.bbox_attributes, dict):
        return meta.bbox_attributes
    engine = (meta.parse_engine or "").lower() if meta is not None else ""
    return _DEFAULT_ATTRS.get(engine, {"origin": "LEFTTOP"})


def _page_number(anchor: Any, n_pages: int) -> int | None:
    try:
        page = int(str(anchor).strip())
    except (TypeError, ValueError):
        return None  # a page label such as "iv" is not a page number
    return page if 1 <= page <= n_pages else None


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


def convert_range(rng: list[Any], geom: PageGeometry, attrs: dict[str, Any], origin: str | None) -> Box | None:
    """Convert one sidecar ``range`` to the locator frame; None when it is unusable."""
    if not isinstance(rng, list) or len(rng) != 4:
        return None
    maybe = [_number(v) for v in rng]
    vals = [v for v in maybe if v is not None]
    if len(vals) != 4:
        return None
    x0, y0, x1, y1 = vals
    org = str(origin or attrs.get("origin") or "LEFTTOP").upper()
    bottom = org in {"LEFTBOTTOM", "BOTTOMLEFT"}
    top = org in {"LEFTTOP", "TOPLEFT"}
    if not (bottom or top):
        return None
    scale = _number(attrs.get("max"))
    if scale is not None and scale > 0:
        if min(vals) < -0.01 * scale or max(vals) > 1.01 * scale:
            return None
        w, h = geom.size
        bx = (x0 / scale * w, y0 / scale * h, x1 / scale * w, y1 / scale * h)
        if bottom:
            bx = (bx[0], h - bx[1], bx[2], h - bx[3])
        box = (min(bx[0], bx[2]), min(bx[1], bx[3]), max(bx[0], bx[2]), max(bx[1], bx[3]))
    elif bottom:
        box = geom.box((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
    else:
        box = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
    return geom.clip(box)


def rounded(b: Box) -> list[float]:
    """A box as a locator carries it: points to two decimals."""
    return [round(v, 2) for v in b]


def from_sidecar(
    req: LocateRequest, doc: DocumentText
) -> tuple[Locator | None, list[int]]:
    """Boxes from the sidecar block; also returns the pages it names without a box."""
    block = req.block
    if block is None:
        return None, []
    attrs = bbox_attributes(req.sidecar_meta)
    rects: list[Rect] = []
    pages_only: list[int] = []
    for pos in block.positions:
        if not isinstance(pos, SidecarPosition) or pos.type != "bbox":
            continue
        page = _page_number(pos.anchor, len(doc.pages))
        if page is None:
            continue
        box = None
        if pos.range is not None:
            box = convert_range(pos.range, doc.pages[page - 1].geometry, attrs, getattr(pos, "origin", None))
        if box is None:
            if page not in pages_only:
                pages_only.append(page)
            continue
        rects.append(Rect(page=page, bbox=rounded(box)))
    if not rects:
        return None, pages_only
    return (
        Locator(
            locator_precision="bbox",
            locator_degraded=False,
            page=rects[0].page,
            bbox=rects[0].bbox,
            rects=rects,
            block_id=req.block_id or block.blockid,
            score=1.0,
            locator_plugin=PLUGIN,
            reason=(why := f"sidecar bbox ({len(rects)} rect{'s' if len(rects) > 1 else ''})"),
            locator_reason=why,
            quote_omit=furniture_near(doc, min(r.page for r in rects) - 1, max(r.page for r in rects) - 1),
        ),
        pages_only,
    )
