"""Evidence to a ``slide`` locator, or an honest ``file`` one."""

from __future__ import annotations

from mnote_kr.plugin_api import Highlight, LocateRequest, Locator, locator_from_match, match_evidence

from .reader import PptxDocument, SlideParagraph, load_pptx

PLUGIN_NAME = "pptx_locator"


def slide_locator(doc: PptxDocument, para: SlideParagraph, *, highlight: Highlight | None, score: float | None,
                  reason: str, block_id: str | None) -> Locator:
    """The ``slide`` locator of one matched paragraph."""
    fraction = None
    if para.box is not None and doc.width and doc.height:
        x0, y0, x1, y1 = para.box
        fraction = [round(x0 / doc.width, 4), round(y0 / doc.height, 4),
                    round(x1 / doc.width, 4), round(y1 / doc.height, 4)]
    where = f"slide {para.slide}" + (" notes" if para.notes else f", shape {para.shape_id} ({para.shape_name})")
    why = f"{reason}: {where}"
    return Locator(
        locator_precision="slide", locator_degraded=False, slide=para.slide, shape_id=para.shape_id,
        shape_name=para.shape_name, paragraph_index=para.shape_paragraph, speaker_notes=para.notes,
        bbox=[float(v) for v in para.box] if para.box is not None else None, bbox_unit="emu",
        bbox_fraction=fraction, highlight=highlight, score=score, block_id=block_id,
        locator_plugin=PLUGIN_NAME, reason=why, locator_reason=why,
    )


def locate_pptx(request: LocateRequest) -> Locator:
    """Locate ``request.evidence`` in the presentation ``request.file``. Raises ``DocumentError``."""
    doc = load_pptx(request.file)
    block = request.block
    block_id = request.block_id or (block.blockid if block is not None else None)
    match = match_evidence(doc, request.evidence, request.query,
                           block_heading=block.heading if block is not None else None,
                           block_content=block.content if block is not None else None)
    if match.paragraph is None:
        return locator_from_match(match, plugin=PLUGIN_NAME, block_id=block_id)  # ``file``, degraded
    highlight = Highlight(start=match.highlight[0], end=match.highlight[1]) if match.highlight else None
    para = doc.paragraphs[match.paragraph.index]
    return slide_locator(doc, para, highlight=highlight, score=match.score, reason=match.reason, block_id=block_id)
