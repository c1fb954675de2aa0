"""The presentation as the viewer draws it (``document_model``): per slide, its shapes with text at
their places (boxes as fractions of the slide) and its speaker notes; its review comments as one shape
without id or box (the viewer shows it beside the slide), a line per comment.

Built from the same parsed document ``locate`` reads, so a locator's ``slide``, ``shapeId`` and
``paragraphIndex`` (and its ``highlight`` offsets) land on what is drawn.
"""

from __future__ import annotations

import os

from mnote_kr.plugin_api import DocumentModel, ModelParagraph, ModelShape, ModelSlide

from .reader import PptxDocument, SlideParagraph, load_pptx


def _fraction(doc: PptxDocument, para: SlideParagraph) -> list[float] | None:
    if para.box is None or not doc.width or not doc.height:
        return None
    x0, y0, x1, y1 = para.box
    return [round(x0 / doc.width, 4), round(y0 / doc.height, 4), round(x1 / doc.width, 4), round(y1 / doc.height, 4)]


def slides_model(doc: PptxDocument, plugin: str) -> DocumentModel:
    """``doc`` as ``kind="slides"``: every slide (those without text too), shapes in the reader's order."""
    shapes: dict[int, list[ModelShape]] = {n: [] for n in range(1, len(doc.titles) + 1)}
    notes: dict[int, list[ModelParagraph]] = {}
    current: tuple[int, int | None, str] | None = None
    for para in doc.paragraphs:
        own = ModelParagraph(index=para.shape_paragraph, text=para.text)
        if para.notes:
            notes.setdefault(para.slide, []).append(own)
            current = None
            continue
        # a comment has no shape: the slide's comments are one shape without id or box (a shape's id is a number)
        key = (para.slide, None if para.kind == "comment" else para.shape_id, para.shape_name)
        on_slide = shapes.setdefault(para.slide, [])
        if key != current:  # a shape's paragraphs are consecutive in the reader's order
            on_slide.append(ModelShape(id=key[1], name=para.shape_name, box=_fraction(doc, para),
                                       title=para.title, paragraphs=[own]))
            current = key
        else:
            on_slide[-1].paragraphs.append(own)
    return DocumentModel(kind="slides", plugin=plugin, slides=[
        ModelSlide(number=n, width=doc.width, height=doc.height, shapes=shapes[n], notes=notes.get(n, []))
        for n in sorted(shapes)])


def document_model_pptx(path: str | os.PathLike[str], plugin: str) -> DocumentModel:
    """The viewer's model of the presentation at ``path``. Raises ``DocumentError``."""
    return slides_model(load_pptx(path), plugin)
