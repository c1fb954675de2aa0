"""Open a PDF with pypdfium2, read its text layer once, and cache it per document.

Per page we keep the characters, their lines (boxes in the locator frame: PDF points,
top-left origin of the page as displayed, after ``/Rotate`` and relative to the
``/CropBox``) and the page geometry. Per document we keep one *compact* text: every
letter and digit, NFKC-normalised and case-folded, with whitespace, punctuation and
hyphens dropped, plus where each compact character came from. Matching runs on the
compact text, so hyphenated line breaks, ligatures, line breaks, spacing and CJK
without spaces all compare equal.

pypdfium2 (Apache-2.0 / BSD-3-Clause; PDFium itself BSD-3-Clause) was chosen over
pypdf (BSD-3-Clause): it gives per-character boxes, page rotation and crop box
directly, and is an order of magnitude faster (``benchmarks/pdf_locate.py`` measures
both). PDFium is not thread-safe, so every call into it holds ``PDFIUM_LOCK``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mnote_kr.plugin_api import DocumentError, textnorm

from . import budget, cidtext, outline, tableread, tables
from .layout import continuations, find_furniture, line_spacing, split_at_markers, split_blocks
from .lines import Quad, assemble, reading_box
from .page import Box as Box  # re-exported: the locator's modules take the box type from here
from .page import PageGeometry as PageGeometry
from .page import PageText as PageText
from .pdfium import PDFIUM_LOCK, page_chars
from .pdfium import modules as _pdfium

if TYPE_CHECKING:
    import pypdfium2 as pdfium

CACHE_SIZE = 4
KGRAM = 5
KGRAM_CAP = 48  # k-grams occurring more often than this carry no position information


class KgramIndex:
    """Positions of every k-gram of a compact text, in three flat parts that pickle compactly
    (where a ``dict`` of lists, one list per k-gram, took a tenth of a second per document to
    unpickle), and unpickled only when a lookup needs them.

    ``keys`` are the distinct k-grams in first-occurrence order; ``keys[n]`` occurs at
    ``positions[offsets[n]:offsets[n + 1]]`` (ascending; at most ``KGRAM_CAP + 1`` of them:
    a k-gram with more carries no position information).
    """

    __slots__ = ("_parts", "_packed", "_slots")

    def __init__(self, keys: list[str], offsets: array, positions: array) -> None:
        self._parts: tuple[list[str], array, array] | None = (keys, offsets, positions)
        self._packed: bytes | None = None
        self._slots: dict[str, int] | None = None

    @classmethod
    def build(cls, s: str) -> KgramIndex:
        """Index the k-grams of ``s``."""
        idx: dict[str, list[int]] = {}
        for i in range(len(s) - KGRAM + 1):
            g = s[i : i + KGRAM]
            lst = idx.get(g)
            if lst is None:
                idx[g] = [i]
            elif len(lst) <= KGRAM_CAP:
                lst.append(i)
        offsets = array("i", [0])
        positions = array("i")
        for lst in idx.values():
            positions.extend(lst)
            offsets.append(len(positions))
        return cls(list(idx), offsets, positions)

    def __getstate__(self) -> bytes:
        # Pickled as one byte string, unpickled at first use: a locate whose alignment is
        # stored (``align.find_stored``) never pays for the index.
        import pickle

        if self._packed is None:
            self._packed = pickle.dumps(self._unpacked(), protocol=pickle.HIGHEST_PROTOCOL)
        return self._packed

    def __setstate__(self, state: bytes) -> None:
        self._packed = state
        self._parts = None
        self._slots = None

    def _unpacked(self) -> tuple[list[str], array, array]:
        parts = self._parts
        if parts is None:
            import pickle

            # _packed is set whenever _parts is not (pickled state); part of a MAC-verified entry
            parts = self._parts = pickle.loads(self._packed or b"")  # noqa: S301
        return parts

    @property
    def keys(self) -> list[str]:
        """The distinct k-grams, in first-occurrence order."""
        return self._unpacked()[0]

    @property
    def offsets(self) -> array:
        """``positions[offsets[n]:offsets[n + 1]]`` are where ``keys[n]`` occurs."""
        return self._unpacked()[1]

    @property
    def positions(self) -> array:
        """Every k-gram's positions, k-gram after k-gram."""
        return self._unpacked()[2]

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def slots(self) -> dict[str, int]:
        """k-gram -> its number in ``keys`` (made on first use, in C: a few milliseconds)."""
        if self._slots is None:
            self._slots = dict(zip(self.keys, range(len(self.keys)), strict=True))
        return self._slots

    def count(self, slot: int) -> int:
        """How many positions k-gram number ``slot`` has (``KGRAM_CAP + 1`` means more)."""
        return self.offsets[slot + 1] - self.offsets[slot]

    def at(self, slot: int) -> array:
        """The positions of k-gram number ``slot``, ascending."""
        return self.positions[self.offsets[slot] : self.offsets[slot + 1]]

    def get(self, gram: str) -> array | None:
        """The positions of ``gram`` (ascending), or None when it does not occur."""
        slot = self.slots.get(gram)
        return None if slot is None else self.at(slot)


@dataclass
class TextView:
    """The compact text of a document in one line order, with its source map."""

    compact: str
    compact_page: array  # compact position -> page index (0-based)
    compact_char: array  # compact position -> char index within that page
    _index: KgramIndex | None = None

    @property
    def index(self) -> KgramIndex:
        """Positions of every k-gram of the compact text (built on first use)."""
        if self._index is None:
            self._index = KgramIndex.build(self.compact)
        return self._index


@dataclass
class DocumentText:
    """A document's pages plus two compact views of its text.

    ``stream`` follows the content stream (right for most PDFs and for tables);
    ``reading`` follows an XY-cut of the lines (right when columns were drawn row by
    row). Evidence is aligned against both and the better match wins.
    """

    path: str
    pages: Sequence[PageText]  # a list, or read from disk page by page (``model.StoredPages``)
    stream: TextView
    reading: TextView
    extras: dict[str, object] = field(default_factory=dict)  # derived data kept with the document

    @property
    def views(self) -> tuple[TextView, ...]:
        """Both views, content-stream order first."""
        return (self.stream, self.reading)

    @property
    def has_text(self) -> bool:
        """True when any page has a text layer."""
        return any(p.has_text for p in self.pages)


ALEF_FOLD = str.maketrans({"\u0623": "\u0627", "\u0625": "\u0627", "\u0622": "\u0627", "\u0671": "\u0627"})
# PDF text layers give the lam-alef ligature (لا, لإ) in visual order (ا then ل), the
# writer's text in logical order: inside a run of lams and alefs only the counts compare.
_LAM_ALEF = re.compile("[\u0627\u0644]{2,}")


def fold_char(ch: str) -> str:
    """The compact form of one character: its letters and digits, NFKC, case-folded.

    Arabic alef with hamza or madda folds to the bare alef, tatweel is dropped. A Latin,
    Greek or Cyrillic letter loses its accents (``ä`` is ``a``): a text layer may give the
    letter and its mark as two glyphs, the mark alone or not at all (``Chefarztr umen``), and
    the evidence composed or decomposed, and all of them must align. The confusables the host's matcher folds
    together read as it reads them (``textnorm.unconfused_char``): a page's "△H" (white triangle) or "∆H" is the
    evidence's "ΔH", not "H".
    """
    if ch.isascii():
        return ch.lower() if ch.isalnum() else ""
    norm = unicodedata.normalize("NFKC", textnorm.unconfused_char(ch)).casefold().translate(ALEF_FOLD)
    if "\u00c0" <= norm[:1] <= "\u04ff":
        norm = "".join(c for c in unicodedata.normalize("NFD", norm) if not unicodedata.combining(c))
    return "".join(c for c in norm if c.isalnum() and c != "\u0640")


def canonical(compact: str) -> str:
    """Put every run of Arabic lam/alef letters in one order; length and offsets are kept."""
    if "\u0644" not in compact:
        return compact
    return _LAM_ALEF.sub(lambda m: "".join(sorted(m.group())), compact)


#: ``fold_char`` of each character seen (it depends on the character alone): a page or an
#: evidence repeats a few dozen characters thousands of times, and each fresh ``search``
#: process folds every cited passage's evidence. Bounded by the distinct characters met.
_FOLDED: dict[str, str] = {}


def compact_with_map(text: str) -> tuple[str, list[int]]:
    """Compact ``text`` and return, for each compact character, its index in ``text``."""
    out: list[str] = []
    src: list[int] = []
    folded = _FOLDED
    for i, ch in enumerate(text):
        f = folded.get(ch)
        if f is None:
            f = folded[ch] = fold_char(ch)
        if f:
            out.append(f)
            if len(f) == 1:
                src.append(i)
            else:
                src.extend([i] * len(f))
    return canonical("".join(out)), src


# --------------------------------------------------------------------------- opening


def _open(path: Path) -> pdfium.PdfDocument:
    pdfium, _ = _pdfium()
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise DocumentError(f"PDF not found: {path}", path=path) from None
    except OSError as exc:
        raise DocumentError(f"Cannot read PDF {path}: {exc.strerror}", path=path) from exc
    if size == 0:
        raise DocumentError(f"Empty file, not a PDF: {path}", path=path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(1024)
    except OSError as exc:
        raise DocumentError(f"Cannot read PDF {path}: {exc.strerror}", path=path) from exc
    if b"%PDF-" not in head:
        raise DocumentError(f"Not a PDF (no %PDF- header): {path}", path=path)
    try:
        budget.check_streams(path)
    except OSError as exc:
        raise DocumentError(f"Cannot read PDF {path}: {exc.strerror}", path=path) from exc
    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower():
            raise DocumentError(
                f"Encrypted PDF needs a password: {path}",
                path=path,
                hint="remove the password to let mnote-kr locate citations in it",
            ) from exc
        why = msg.split("PDFium: ")[-1].rstrip(".)")
        raise DocumentError(f"Broken or truncated PDF (PDFium: {why}): {path}", path=path) from exc
    if len(doc) == 0:
        doc.close()
        raise DocumentError(f"Broken or truncated PDF (no readable pages): {path}", path=path)
    return doc


def _geometry(page: pdfium.PdfPage) -> PageGeometry:
    _, pdfium_c = _pdfium()
    import ctypes  # with pypdfium2: only to read a PDF
    # PDFium's bounding box is the crop box clipped to the media box, both looked up through
    # the page tree (``get_mediabox`` does not inherit: a MediaBox set on /Pages would read as
    # US Letter, and every box on an A4 page would land 50 pt off). It is what PDFium renders.
    rect = pdfium_c.FS_RECTF()
    if pdfium_c.FPDF_GetPageBoundingBox(page, ctypes.byref(rect)) and rect.right > rect.left and rect.top > rect.bottom:
        return PageGeometry(crop=(rect.left, rect.bottom, rect.right, rect.top), rotation=page.get_rotation() % 360)
    media = page.get_mediabox()
    crop = page.get_cropbox()
    # The spec clips the crop box to the media box.
    c = (max(crop[0], media[0]), max(crop[1], media[1]), min(crop[2], media[2]), min(crop[3], media[3]))
    if c[2] - c[0] <= 0 or c[3] - c[1] <= 0:
        c = (media[0], media[1], media[2], media[3])
    return PageGeometry(crop=c, rotation=page.get_rotation() % 360)


def _read_page(page: pdfium.PdfPage, number: int, unreadable: list[int] | None = None) -> PageText:
    """One page's text layer as PDFium reads it; its number goes to ``unreadable`` when some of
    its text is drawn in a font the PDF does not embed and PDFium could not read it (``cidtext``)."""
    _, pdfium_c = _pdfium()
    import ctypes  # with pypdfium2: only to read a PDF
    out = PageText(number=number, geometry=_geometry(page))
    tp = page.get_textpage()
    try:
        if unreadable is not None and cidtext.unreadable_text_objects(page, tp):
            unreadable.append(number)
        text, first = page_chars(tp, pdfium_c)
        if not text:
            return out
        rect = pdfium_c.FS_RECTF()
        ref = ctypes.byref(rect)
        get_box = pdfium_c.FPDFText_GetLooseCharBox
        get_size = pdfium_c.FPDFText_GetFontSize
        get_tight = pdfium_c.FPDFText_GetCharBox
        lb, rb, bb, tb = (ctypes.c_double() for _ in range(4))
        raw_tp = tp.raw

        def box_of(i: int) -> Quad | None:
            if not get_box(raw_tp, i, ref) or (rect.right - rect.left <= 0 and rect.top - rect.bottom <= 0):
                return None
            lft, rgt, bot, top = rect.left, rect.right, rect.bottom, rect.top
            if top - bot > 12 and top - bot > 1.6 * get_size(raw_tp, i) + 2:
                # a broken font's ascent/descent: the loose box would swallow the page
                get_tight(raw_tp, i, ctypes.byref(lb), ctypes.byref(rb), ctypes.byref(bb), ctypes.byref(tb))
                lft, rgt, bot, top = lb.value, rb.value, bb.value, tb.value
            return lft, bot, rgt, top

        x, y = ctypes.c_double(), ctypes.c_double()
        mat = pdfium_c.FS_MATRIX()

        def origin_y(i: int) -> float | None:
            return y.value if pdfium_c.FPDFText_GetCharOrigin(raw_tp, i, ctypes.byref(x), ctypes.byref(y)) else None

        def size_of(i: int) -> float:
            size: float = get_size(raw_tp, i)
            if pdfium_c.FPDFText_GetMatrix(raw_tp, i, ctypes.byref(mat)):
                # the size as drawn: a producer may set "1 Tf" and scale the text matrix
                size *= math.sqrt(abs(mat.a * mat.d - mat.b * mat.c)) or 1.0
            return size

        get_angle = pdfium_c.FPDFText_GetCharAngle

        def angle_of(i: int) -> float:
            return float(get_angle(raw_tp, i))

        text = _lam_alef_in_order(text, box_of if first is None else (lambda k: box_of(first[k])))
        if first is None:
            assemble(out, text, box_of, origin_y, size_of, angle_of)
        else:  # a character of two PDFium chars (a surrogate pair): both boxes, the first's the rest
            ends = [*first[1:], tp.count_chars()]

            def joined_box(k: int) -> Quad | None:
                quads = [q for q in map(box_of, range(first[k], ends[k])) if q is not None]
                if len(quads) < 2:
                    return quads[0] if quads else None
                return (min(q[0] for q in quads), min(q[1] for q in quads),
                        max(q[2] for q in quads), max(q[3] for q in quads))

            assemble(out, text, joined_box, lambda k: origin_y(first[k]), lambda k: size_of(first[k]),
                     lambda k: angle_of(first[k]))
        return out
    finally:
        tp.close()


_ALEF_LAM = re.compile("[\u0622\u0623\u0625\u0627]\u0644")


def _lam_alef_in_order(text: str, box_of: Callable[[int], Quad | None]) -> str:
    """``text`` with each lam-alef ligature's two letters in logical order: a producer's ToUnicode may give the one
    glyph's letters as drawn, alef first ("إلدارة" for "لإدارة", "المشكالت" for "المشكلات", nc27c N1). Only an alef
    and a lam sharing one box are a ligature: the article's alef and lam ("البرمجة") are two glyphs."""
    if "\u0644" not in text:
        return text
    chars = list(text)
    for m in _ALEF_LAM.finditer(text):
        i = m.start()
        a, b = box_of(i), box_of(i + 1)
        if a is not None and a == b:
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
    return "".join(chars)


def page_from_chars(page: PageText, chars: Sequence[tuple[str, Quad, float, float]]) -> PageText:
    """``page`` (its number and geometry) read again from characters another reader gave:
    (text, box in user space, baseline y, font size) each, in content order (``cidtext``)."""
    out = PageText(number=page.number, geometry=page.geometry)
    if chars:
        text = "".join(c[0] for c in chars)
        if len(text) != len(chars):  # one character each, or the indices would not line up
            return page
        assemble(out, text, lambda i: chars[i][1], lambda i: chars[i][2], lambda i: chars[i][3])
    return out


def read_document(path: str | Path) -> DocumentText:
    """Open ``path`` and read every page's text layer (uncached; ``model.load_document`` caches it).

    Raises ``DocumentError`` when the file is unreadable or over a budget of ``budget``.
    """
    p = Path(path)
    pdfium, _ = _pdfium()
    with PDFIUM_LOCK:
        doc = _open(p)
        try:
            n = len(doc)
            if n > budget.MAX_PAGES:
                raise budget.over_budget(p, f"{n} pages", f"{budget.MAX_PAGES} pages")
            watch = budget.Stopwatch()  # the reading's own CPU seconds: a loaded machine does not spend them
            chars = 0
            pages = []
            unreadable: list[int] = []
            for i in range(n):
                page = doc[i]
                try:
                    pages.append(_read_page(page, i + 1, unreadable))
                finally:
                    page.close()
                chars += len(pages[-1].text)
                if chars > budget.MAX_CHARS:
                    raise budget.over_budget(p, f"more than {budget.MAX_CHARS} characters of text",
                                             f"{budget.MAX_CHARS} characters")
                if watch.over():
                    raise budget.over_budget(p, f"reading took over {watch.unit} at page {i + 1}", watch.unit)
            entries = outline.read_outline(doc, _pdfium()[1], pages)  # while the document is open: one walk
        except pdfium.PdfiumError as exc:
            raise DocumentError(f"Broken PDF, page {len(pages) + 1} unreadable: {p}", path=p) from exc
        finally:
            doc.close()
    if unreadable:  # CJK text in fonts the PDF does not embed: read those pages with pdfminer.six
        for number, found in cidtext.read_pages(p, unreadable, watch).items():
            if cidtext.reads_more(found, pages[number - 1].text):
                pages[number - 1] = page_from_chars(pages[number - 1], found)
    _layout(pages)
    entries = outline.settle(entries, pages, line_text)
    return DocumentText(str(p), pages, _view(pages, "stream"), _view(pages, "order"),
                        extras={"outline": entries} if entries else {})


def line_text(page: PageText, li: int) -> str:
    """The characters of line ``li`` of ``page`` in content order."""
    return "".join(page.text[c] for c in page.stream[li])


def _layout(pages: list[PageText]) -> None:
    """Mark running headers/footers and split each page's lines into paragraph blocks."""
    texts = [[line_text(pg, li) for li in range(len(pg.lines))] for pg in pages]
    furniture = find_furniture([(pg.geometry.crop[3] - pg.geometry.crop[1], pg.lines, t)
                                for pg, t in zip(pages, texts, strict=True)], [pg.size for pg in pages])
    orders = []
    for pg, fur in zip(pages, furniture, strict=True):
        pg.furniture = fur
        order = [pg.line_of[chars[0]] for chars in pg.order]
        orders.append([li for li in order if li not in fur])
    boxes = [[reading_box(pg, li) for li in range(len(pg.lines))] for pg in pages]
    spacing = line_spacing([(o, b, pg.base, pg.size) for o, b, pg in zip(orders, boxes, pages, strict=True)])
    for pg, order, t, rb in zip(pages, orders, texts, boxes, strict=True):
        width = pg.geometry.crop[2] - pg.geometry.crop[0]
        blocks: list[list[int]] = []
        rows: list[list[int]] = []
        # upright lines, then turned ones, each in the frame where they read left to right
        for group in ([li for li in order if li not in pg.turned], [li for li in order if li in pg.turned]):
            if not group:
                continue
            found = tables.table_rows(group, rb, t, pg.base, pg.size)
            blocks += split_at_markers(tables.regroup(split_blocks(group, rb, t, width, pg.rtl, pg.base, pg.size,
                                                                   spacing), found, group), rb, t)
            rows += found
        pg.blocks = blocks
        pg.continues = continuations(blocks, rb, t, pg.size)
        first = {min(row) for row in rows}
        pg.table_rows = {bi for bi, blk in enumerate(pg.blocks) if min(blk) in first}
        tableread.read_tables(pg)
        pg.char_spans = None  # read; not kept with the model
        pg.block_of = [-1] * len(pg.lines)
        for bi, blk in enumerate(pg.blocks):
            for li in blk:
                pg.block_of[li] = bi


def _view(pages: list[PageText], attr: str) -> TextView:
    parts: list[str] = []
    cpage = array("i")
    cchar = array("i")
    for pi, pg in enumerate(pages):
        text = pg.text
        for chars in getattr(pg, attr):
            if pg.line_of[chars[0]] in pg.furniture:
                continue  # running headers and footers are never cited
            for ci in chars:
                f = fold_char(text[ci])
                if f:
                    parts.append(f)
                    cpage.extend([pi] * len(f))
                    cchar.extend([ci] * len(f))
    return TextView(canonical("".join(parts)), cpage, cchar)
