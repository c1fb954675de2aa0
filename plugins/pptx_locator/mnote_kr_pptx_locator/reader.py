"""A presentation read as the locator keeps it: paragraphs in slide order, each knowing its shape.

Order: slides 1..n; on a slide, its shapes in the slide's z-order (groups entered, tables read row by row, each
value under its header: ``tables``, charts as their cached data a line per category: ``charts``), then its speaker
notes, then its review comments a line each (``comments``: ``Comment (author): words``). A slide's title is the
``heading_path`` of every paragraph on it (``title`` marks the title placeholder's own). Shape boxes are in EMU,
top-left origin of the slide; a shape inside a group is mapped through the group's transform. The zip is checked
against the host's budget, and the slides the deck lists are counted in its XML, before python-pptx opens it
(``check_deck``, what the ``check_budget`` hook asks before the deck is sent to the index).

``markdown`` (the ``extract_text`` hook's text) says where each paragraph that is not a slide's own top-level text
lives, for whoever reads it (LightRAG's model, a person): each speaker-notes paragraph starts ``Notes: ``, and the
first paragraph of a table, of a chart and of a group's text starts ``Table: ``, ``Chart: `` and ``Group: ``. These
are words, not structure: a slide's own text box may start the same, so a provider tells what a deck holds from the
deck itself.
"""

from __future__ import annotations

import os
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any

from mnote_kr.plugin_api import (
    DocumentError,
    FileCache,
    OverBudgetError,
    TextDocument,
    TextParagraph,
    check_zip,
    count_tags,
)

from .charts import chart_lines, chart_rid
from .comments import MAX_COMMENTS, SHAPE_NAME, authors, line, slide_comments
from .tables import table_rows

MAX_PARAGRAPHS = 200_000
MAX_SLIDES = 5_000
#: Chart lines read from one deck; charts past it are left out (never the deck over ``MAX_PARAGRAPHS``).
MAX_CHART_LINES = 50_000
CACHE_SIZE = 32
_SPLIT = "split the presentation; it is cited as a whole file"
#: Where a deck lists its slides (``p:sldIdLst``), the part python-pptx's ``prs.slides`` reads.
PRESENTATION = "ppt/presentation.xml"
_SLIDE_ID = re.compile(rb"<(?:\w+:)?sldId[\s/>]")

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in EMU
#: How ``markdown`` starts a speaker-notes paragraph (``extract_text``'s convention for notes).
NOTES_PREFIX = "Notes: "
#: How ``markdown`` starts the first paragraph of a table, a chart, and a group's text, by ``kind``.
SHAPE_PREFIXES = {"table": "Table: ", "chart": "Chart: "}
GROUP_PREFIX = "Group: "


@dataclass(slots=True)
class SlideParagraph(TextParagraph):
    """One paragraph of a shape (a table row, for a table) with where it sits."""

    slide: int = 0  # 1-based
    shape_id: int | None = None
    shape_name: str = ""
    shape_paragraph: int = 0  # 0-based, inside the shape (a table: the row)
    box: Box | None = None
    notes: bool = False
    #: what the paragraph is: a shape's text paragraph ("text"), a table's row ("table"), a chart's line ("chart"),
    #: a review comment's line ("comment": no shape; ``shape_paragraph`` counts the slide's comments)
    kind: str = "text"
    #: the id of the outermost group shape holding the shape, or None (a slide's top-level shape)
    group: int | None = None
    #: in the slide's title placeholder. Not a ``heading_level``: the matcher never lands a quote on a
    #: heading, and a title is a citable shape; the title heads its slide's ``heading_path`` instead.
    title: bool = False
    #: a comment's author, and whether it is a reply (``comments``)
    author: str = ""
    reply: bool = False


@dataclass(slots=True)
class PptxDocument(TextDocument[SlideParagraph]):
    """A parsed presentation plus the slide size in EMU."""

    width: int = 0
    height: int = 0
    titles: dict[int, str] = field(default_factory=dict)
    #: the words on either side of each line break (``a:br``) inside a paragraph: ("revenue", "Up")
    breaks: list[tuple[str, str]] = field(default_factory=list)

    def markdown(self) -> str:
        out: list[str] = []
        slide = 0
        prev: SlideParagraph | None = None
        for para in self.paragraphs:
            if para.slide != slide:
                slide, prev = para.slide, None
                out.append(f"# {self.titles.get(slide) or f'Slide {slide}'}")
            if para.title:
                continue
            text = " ".join(para.text.split())
            if text:
                out.append(_prefix(para, prev) + text)
                prev = para
        return "\n\n".join(out)


def _prefix(para: SlideParagraph, prev: SlideParagraph | None) -> str:
    """The mark ``markdown`` starts ``para`` with, given the paragraph written before it on its slide."""
    if para.notes:
        return NOTES_PREFIX
    if para.kind in SHAPE_PREFIXES:
        new_shape = prev is None or (prev.shape_id, prev.shape_name, prev.kind) != (para.shape_id, para.shape_name,
                                                                                       para.kind)
        return SHAPE_PREFIXES[para.kind] if new_shape else ""
    if para.group is not None and (prev is None or prev.group != para.group or prev.kind != "text"):
        return GROUP_PREFIX
    return ""


class _Builder:
    def __init__(self, path: str) -> None:
        self.path = path
        self.paragraphs: list[SlideParagraph] = []
        self.titles: dict[int, str] = {}
        self.chart_lines = 0
        self.comments = 0

    def add(self, text: str, **where: Any) -> None:
        if not text.strip():
            return
        if len(self.paragraphs) >= MAX_PARAGRAPHS:
            raise OverBudgetError(f"PPTX over budget: more than {MAX_PARAGRAPHS} paragraphs in {self.path}",
                                  path=self.path, limit=f"paragraphs {MAX_PARAGRAPHS:,}", hint=_SPLIT)
        self.paragraphs.append(SlideParagraph(index=len(self.paragraphs), text=text, **where))

    def shape(self, shape: Any, slide: int, heading: tuple[str, ...], box: Box | None, title_id: int | None,
              group: int | None) -> None:
        sid = shape.shape_id
        where = {"slide": slide, "shape_id": sid, "shape_name": shape.name, "box": box, "group": group}
        if getattr(shape, "has_table", False) and shape.has_table:
            for r, row in enumerate(table_rows(shape.table)):
                self.add(row, heading_path=heading, shape_paragraph=r, kind="table", **where)
            return
        rid = chart_rid(shape._element)
        if rid is not None:
            try:  # the chart part's XML as python-pptx loaded it; its chart API is not used (``charts``)
                space = shape.part.related_part(rid)._element
            except (KeyError, AttributeError, ValueError):  # dangling, external (ValueError), or no XML part
                return
            lines = chart_lines(space)
            if self.chart_lines + len(lines) > MAX_CHART_LINES:
                return
            self.chart_lines += len(lines)
            for n, line in enumerate(lines):
                self.add(line, heading_path=heading, shape_paragraph=n, kind="chart", **where)
            return
        if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            for p, para in enumerate(shape.text_frame.paragraphs):
                # ``para.text``, not its runs: a line break (``a:br``) is no run; python-pptx gives it as "\v"
                self.add(para.text.replace("\v", "\n"), heading_path=heading, shape_paragraph=p,
                         title=sid == title_id, **where)


def _box(shape: Any) -> Box | None:
    try:
        x, y, w, h = shape.left, shape.top, shape.width, shape.height
    except (AttributeError, ValueError, TypeError):
        return None
    if x is None or y is None or w is None or h is None:
        return None
    return (int(x), int(y), int(x) + int(w), int(y) + int(h))


def _group_transform(group: Any, outer: Box | None) -> Any:
    """A function mapping a child's box (group coordinates) to slide coordinates."""
    xfrm = group._element.grpSpPr.find("{http://schemas.openxmlformats.org/drawingml/2006/main}xfrm")
    ns = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
    ch_off = xfrm.find(ns + "chOff") if xfrm is not None else None
    ch_ext = xfrm.find(ns + "chExt") if xfrm is not None else None
    if outer is None or ch_off is None or ch_ext is None:
        return lambda b: b
    cx, cy = int(ch_off.get("x", 0)), int(ch_off.get("y", 0))
    cw, chh = max(int(ch_ext.get("cx", 1)), 1), max(int(ch_ext.get("cy", 1)), 1)
    sx, sy = (outer[2] - outer[0]) / cw, (outer[3] - outer[1]) / chh

    def to_slide(b: Box | None) -> Box | None:
        if b is None:
            return None
        return (round(outer[0] + (b[0] - cx) * sx), round(outer[1] + (b[1] - cy) * sy),
                round(outer[0] + (b[2] - cx) * sx), round(outer[1] + (b[3] - cy) * sy))

    return to_slide


def _walk(builder: _Builder, shapes: Any, slide: int, heading: tuple[str, ...], title_id: int | None,
          to_slide: Any, depth: int = 0, group: int | None = None) -> None:
    for shape in shapes:
        box = to_slide(_box(shape))
        # by the element, not ``shape_type``: python-pptx raises on a shape kind it does not know
        if shape._element.tag.endswith("}grpSp") and depth < 20:
            _walk(builder, shape.shapes, slide, heading, title_id, _group_transform(shape, box), depth + 1,
                  shape.shape_id if group is None else group)
            continue
        builder.shape(shape, slide, heading, box, title_id, group)


def _too_many_slides(real: str, slides: str) -> OverBudgetError:
    return OverBudgetError(f"PPTX over budget: {slides} slides in {real} (limit {MAX_SLIDES})", path=real,
                           limit=f"slides {MAX_SLIDES:,}", hint=_SPLIT)


def check_deck(real: str) -> None:
    """The deck's budgets before python-pptx opens it: the zip check (its directory), then its slides, the
    ``p:sldId`` entries of ``PRESENTATION`` counted while streaming it. Raises ``OverBudgetError`` over a
    budget, ``DocumentError`` when it is no readable zip or the part is damaged; a deck keeping its
    presentation part elsewhere has its slides counted when it is read."""
    check_zip(real, "PPTX")
    try:
        with zipfile.ZipFile(real) as zf, zf.open(PRESENTATION) as fh:
            slides = count_tags(fh, _SLIDE_ID, MAX_SLIDES)
    except KeyError:
        return
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, ValueError, NotImplementedError) as exc:
        raise DocumentError(f"Cannot read PPTX {real}: {type(exc).__name__}: {exc}",
                            hint="check the file opens in PowerPoint or LibreOffice") from exc
    if slides > MAX_SLIDES:
        raise _too_many_slides(real, f"more than {MAX_SLIDES}")


def parse_file(real: str, st: os.stat_result) -> PptxDocument:
    """Read the presentation at ``real``. Raises ``DocumentError`` (broken, encrypted, over budget)."""
    try:
        check_deck(real)
        from pptx import Presentation

        prs = Presentation(real)
        builder = _Builder(real)
        slides = list(prs.slides)
        if len(slides) > MAX_SLIDES:
            raise _too_many_slides(real, str(len(slides)))
        names = authors(prs.part)
        for number, slide in enumerate(slides, start=1):
            title_shape = slide.shapes.title
            title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
            builder.titles[number] = title
            heading = (title,) if title else ()
            _walk(builder, slide.shapes, number, heading, title_shape.shape_id if title_shape else None,
                  lambda b: b)
            if slide.has_notes_slide:
                notes = slide.notes_slide
                frame = notes.notes_text_frame
                holder = notes.notes_placeholder
                for p, para in enumerate(frame.paragraphs if frame is not None else []):
                    builder.add(para.text.replace("\v", "\n"), heading_path=heading, slide=number, notes=True,
                                shape_id=holder.shape_id if holder is not None else None,
                                shape_name=holder.name if holder is not None else "Notes", shape_paragraph=p)
            said = slide_comments(slide.part, names, MAX_COMMENTS - builder.comments)
            builder.comments += len(said)
            for n, comment in enumerate(said):
                builder.add(line(comment), heading_path=heading, slide=number, kind="comment", shape_name=SHAPE_NAME,
                            shape_paragraph=n, author=comment.author, reply=comment.reply)
        width, height = int(prs.slide_width or 0), int(prs.slide_height or 0)
    except DocumentError:
        raise
    except Exception as exc:  # python-pptx raises many kinds on a broken part
        raise DocumentError(f"Cannot read PPTX {real}: {type(exc).__name__}: {exc}",
                            hint="check the file opens in PowerPoint or LibreOffice") from exc
    return PptxDocument(builder.paragraphs, width=width, height=height, titles=builder.titles,
                        breaks=_breaks(builder.paragraphs))


def _breaks(paragraphs: list[SlideParagraph]) -> list[tuple[str, str]]:
    """The last word before and the first word after each line break inside a paragraph (distinct)."""
    out: dict[tuple[str, str], None] = {}
    for para in paragraphs:
        lines = para.text.split("\n")
        for before, after in zip(lines, lines[1:], strict=False):
            left, right = before.split()[-1:], after.split()[:1]
            if left and right:
                out[(left[0], right[0])] = None
    return list(out)


_cache: FileCache[PptxDocument] = FileCache(parse_file, what="PPTX", max_items=CACHE_SIZE,
                                            weight=lambda d: len(d.paragraphs), max_weight=MAX_PARAGRAPHS * 2)


def load_pptx(path: str | os.PathLike[str]) -> PptxDocument:
    """The parsed presentation, cached by real path + size + mtime. Raises ``DocumentError``."""
    return _cache.get(path)


def warm_pptx(path: str | os.PathLike[str]) -> bool:
    """Parse ``path`` into the cache now; True when it was parsed now."""
    return _cache.warm(path)
