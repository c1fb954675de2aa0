"""One page's text layer as the locator keeps it: the page geometry (crop box, rotation and the
maps between user space, the unrotated text frame and the displayed page) and the lines,
blocks and table rows read from it. ``pdftext`` fills it; ``lines`` and ``layout`` read it."""

from __future__ import annotations

from collections.abc import MutableSequence
from dataclasses import dataclass, field

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class PageGeometry:
    """Crop box (user space) and rotation of one page; maps user space to the locator frame."""

    crop: Box
    rotation: int

    @property
    def size(self) -> tuple[float, float]:
        """Width and height of the page as displayed (after rotation)."""
        w = self.crop[2] - self.crop[0]
        h = self.crop[3] - self.crop[1]
        return (h, w) if self.rotation % 180 == 90 else (w, h)

    def point(self, x: float, y: float) -> tuple[float, float]:
        """Map a user-space point (bottom-left origin, unrotated) to the locator frame."""
        cx0, _, _, cy1 = self.crop
        w = self.crop[2] - cx0
        h = cy1 - self.crop[1]
        u, v = x - cx0, cy1 - y
        r = self.rotation % 360
        if r == 90:
            return h - v, u
        if r == 180:
            return w - u, h - v
        if r == 270:
            return v, w - u
        return u, v

    def box(self, b: Box) -> Box:
        """Map a user-space box ``(x0, y0, x1, y1)`` to the locator frame."""
        a = self.point(b[0], b[1])
        c = self.point(b[2], b[3])
        return (min(a[0], c[0]), min(a[1], c[1]), max(a[0], c[0]), max(a[1], c[1]))

    def text_frame(self, b: Box) -> Box:
        """Map a user-space box to the *unrotated* top-left frame, where text lines run
        left to right; reading order and line merging work there."""
        cx0, cy1 = self.crop[0], self.crop[3]
        return (b[0] - cx0, cy1 - b[3], b[2] - cx0, cy1 - b[1])

    def display(self, b: Box) -> Box:
        """Map a text-frame box (see ``text_frame``) to the locator frame."""
        cx0, cy1 = self.crop[0], self.crop[3]
        return self.box((b[0] + cx0, cy1 - b[3], b[2] + cx0, cy1 - b[1]))

    def clip(self, b: Box) -> Box | None:
        """Clip a locator-frame box to the displayed page; None when nothing is left."""
        w, h = self.size
        x0, y0 = max(0.0, min(b[0], b[2])), max(0.0, min(b[1], b[3]))
        x1, y1 = min(w, max(b[0], b[2])), min(h, max(b[1], b[3]))
        if x1 - x0 < 0.5 or y1 - y0 < 0.5:
            return None
        return (x0, y0, x1, y1)


@dataclass
class PageText:
    """The text layer of one page."""

    number: int  # 1-based
    geometry: PageGeometry
    text: str = ""
    line_of: MutableSequence[int] = field(default_factory=list)  # char index -> line index (-1: none)
    lines: list[Box] = field(default_factory=list)  # text frame (unrotated, top-left)
    order: list[list[int]] = field(default_factory=list)  # char indices per line, XY-cut order
    stream: list[list[int]] = field(default_factory=list)  # char indices per line, content order
    rtl: bool = False  # most of the page's letters are right-to-left (Arabic, Hebrew, Persian)
    furniture: set[int] = field(default_factory=set)  # running header/footer/page-number lines
    base: list[float] = field(default_factory=list)  # per line: baseline y (text frame)
    size: list[float] = field(default_factory=list)  # per line: font size (points)
    blocks: list[list[int]] = field(default_factory=list)  # paragraph blocks: line indices, reading order
    block_of: MutableSequence[int] = field(default_factory=list)  # line index -> block index (-1: furniture)
    table_rows: set[int] = field(default_factory=set)  # block indices that are a table's rows (``tables``)
    turned: dict[int, Box] = field(default_factory=dict)  # line index -> reading box of a turned line (``lines``)
    continues: dict[int, int] = field(default_factory=dict)  # block -> the block its paragraph goes on in
    #: block index of a table row -> the row read under its table's headers (``tableread``): per part of
    #: the row, its label's text and lines, then each cell's header, text and lines
    row_cells: dict[int, list[tuple[str, list[int], list[tuple[str, str, list[int]]]]]] = field(default_factory=dict)
    #: block index of a read table row -> its table's first row (block index): rows of one table share it
    row_table: dict[int, int] = field(default_factory=dict)
    #: each character's left and right x in its line's reading frame, two per character: kept only
    #: while the page's layout is read (``tableread`` splits header lines into words), then dropped
    char_spans: MutableSequence[float] | None = None

    def reading(self, lines: list[int] | set[int]) -> list[int]:
        """``lines`` in reading order: lines of one block in the block's own order when it reads down the page
        (a line cut in two where a glyph the layer lacks stands, "偏差向量 | Y变化。" on chatchat p.3, has its
        second piece numbered after the next line's first: line numbers interleave the two lines, nc18a Q11);
        else in line-number order (a table block read column by column, lines of several blocks)."""
        taken = set(lines)
        bi = self.block_of[min(taken)] if taken else -1
        if 0 <= bi < len(self.blocks) and all(self.block_of[li] == bi for li in taken):
            order = [li for li in self.blocks[bi] if li in taken]
            down = all(self.lines[b][1] >= self.lines[a][1] - 0.5 * (self.lines[a][3] - self.lines[a][1])
                       for a, b in zip(order, order[1:], strict=False))
            if down and len(order) == len(taken):
                return order
        return sorted(taken)

    @property
    def has_text(self) -> bool:
        """True when the page has a text layer with at least one visible character."""
        return bool(self.lines)
