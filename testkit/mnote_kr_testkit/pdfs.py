"""A tiny PDF writer for tests and benchmarks: Helvetica text at known positions.

Every string drawn is recorded with its box, so a test knows where a passage truly
is. Boxes are returned in the locator's frame (PDF points, top-left origin of the
page as displayed, i.e. after ``/Rotate`` and relative to the ``/CropBox``), as PDFium
displays a page of the same geometry (``display_transform``): the oracle is the renderer's
own page transform, not a formula copied from the locator's.

The font is the base-14 Helvetica with explicit ``/Widths`` (so the layout is exact)
and two ligature glyphs: byte 0x01 draws ``/fi`` and 0x02 ``/fl``, mapped to U+FB01
and U+FB02 by a ``/ToUnicode`` CMap, as a typesetter's ligature would be. Pass the
characters "ﬁ"/"ﬂ" in ``text`` to draw them. Four letters outside the Basic Multilingual Plane,
mathematical ones as an equation editor writes them (``𝑄 𝐻 𝑥 𝔽``), draw as the plain letter's glyph
(bytes 0x03..0x06) mapped to the letter's code point, a UTF-16 surrogate pair in the CMap.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Helvetica AFM advance widths (1/1000 em) for ASCII 32..126.
_HELV = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,  # ' '../
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,  # 0..?
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,  # @..O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,  # P.._
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,  # `..o
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,  # p..~
]
ASCENT = 0.718
DESCENT = 0.207
_LIGATURES = {"\ufb01": 1, "\ufb02": 2}
#: A letter outside the BMP -> (its byte, the Helvetica letter drawn for it).
_ASTRAL = {"\U0001d444": (3, "Q"), "\U0001d43b": (4, "H"), "\U0001d465": (5, "x"), "\U0001d53d": (6, "F")}


def char_width(ch: str) -> float:
    """Advance width of one character in 1/1000 em."""
    if ch in _LIGATURES:
        return 500.0
    if ch in _ASTRAL:
        return char_width(_ASTRAL[ch][1])
    code = ord(ch)
    if 32 <= code <= 126:
        return float(_HELV[code - 32])
    raise ValueError(f"mnote_kr_testkit.pdfs draws ASCII, the fi/fl ligatures and {''.join(_ASTRAL)} only, not {ch!r}")


def text_width(text: str, size: float) -> float:
    """Width of ``text`` in points at font ``size``."""
    return sum(char_width(c) for c in text) * size / 1000.0


@dataclass
class Drawn:
    """A string drawn on a page; ``box`` is in the locator frame (top-left, displayed)."""

    page: int
    text: str
    box: tuple[float, float, float, float]
    user_box: tuple[float, float, float, float]  # PDF user space (bottom-left, unrotated)


@dataclass
class _Page:
    width: float
    height: float
    rotate: int = 0
    cropbox: tuple[float, float, float, float] | None = None
    ops: list[str] = field(default_factory=list)


#: ``(a, b, c, d, e, f)``: a point ``(x, y)`` of user space shows at ``(a*x + c*y + e, b*x + d*y + f)``.
Transform = tuple[float, float, float, float, float, float]
_DEVICE_SCALE = 1000  # device pixels per point when asking PDFium: positions to a thousandth of a point


def display_transform(page: Any) -> Transform:
    """PDFium's map from user space to ``page`` as displayed (top-left origin, ``/CropBox`` and
    ``/Rotate`` applied; ``page`` a ``pypdfium2.PdfPage``), read with ``FPDF_PageToDevice`` at three
    points: what a renderer shows, independent of the locator's own page transform."""
    import pypdfium2.raw as pdfium_c

    w, h = page.get_size()
    dx, dy = ctypes.c_int(), ctypes.c_int()

    def shown(x: float, y: float) -> tuple[float, float]:
        pdfium_c.FPDF_PageToDevice(page.raw, 0, 0, round(w * _DEVICE_SCALE), round(h * _DEVICE_SCALE), 0,
                                   x, y, ctypes.byref(dx), ctypes.byref(dy))
        return dx.value / _DEVICE_SCALE, dy.value / _DEVICE_SCALE

    (e, f), (x1, y1), (x2, y2) = shown(0, 0), shown(1000, 0), shown(0, 1000)
    return ((x1 - e) / 1000, (y1 - f) / 1000, (x2 - e) / 1000, (y2 - f) / 1000, e, f)


def displayed_box(t: Transform, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """The user-space box ``(x0, y0, x1, y1)`` as displayed under ``t`` (the box of its four corners)."""
    a, b, c, d, e, f = t
    xs, ys = zip(*((a * x + c * y + e, b * x + d * y + f) for x in (box[0], box[2]) for y in (box[1], box[3])),
                 strict=True)
    return (min(xs), min(ys), max(xs), max(ys))


@functools.lru_cache(maxsize=64)
def _page_as_shown(width: float, height: float, rotate: int,
                   cropbox: tuple[float, float, float, float] | None) -> tuple[Transform, tuple[float, float]]:
    """The display transform and displayed size PDFium gives a page of this geometry (an empty page,
    written by ``PdfBuilder`` as every page is)."""
    import pypdfium2 as pdfium

    probe = PdfBuilder()
    probe.add_page(width, height, rotate=rotate, cropbox=cropbox)
    doc = pdfium.PdfDocument(probe.build())
    try:
        page = doc[0]
        return display_transform(page), page.get_size()
    finally:
        doc.close()


def ink_box(pdf: Path | bytes, page: int, scale: int = 4) -> tuple[float, float, float, float]:
    """The extent of the dark pixels of ``page`` (1-based) as PDFium renders it (crop and rotation
    applied), in displayed points from the top-left corner."""
    import numpy as np
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf if isinstance(pdf, bytes) else str(pdf))
    try:
        pixels = doc[page - 1].render(scale=scale, grayscale=True).to_numpy()
    finally:
        doc.close()
    ys, xs = np.nonzero(pixels.reshape(pixels.shape[0], pixels.shape[1], -1)[:, :, 0] < 128)
    assert xs.size, f"page {page} renders blank"
    return (xs.min() / scale, ys.min() / scale, (xs.max() + 1) / scale, (ys.max() + 1) / scale)


def _escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in _LIGATURES:
            out.append(f"\\{_LIGATURES[ch]:03o}")
        elif ch in _ASTRAL:
            out.append(f"\\{_ASTRAL[ch][0]:03o}")
        elif ch in "()\\":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


class PdfBuilder:
    """Build a small PDF page by page; ``text`` records where each string lands."""

    def __init__(self) -> None:
        self.pages: list[_Page] = []
        self.drawn: list[Drawn] = []

    def add_page(
        self,
        width: float = 612,
        height: float = 792,
        *,
        rotate: int = 0,
        cropbox: tuple[float, float, float, float] | None = None,
    ) -> int:
        """Add a page and return its 1-based number."""
        self.pages.append(_Page(width, height, rotate, cropbox))
        return len(self.pages)

    def display_size(self, page: int) -> tuple[float, float]:
        """Width and height of the page as displayed (PDFium's)."""
        p = self.pages[page - 1]
        return _page_as_shown(p.width, p.height, p.rotate, p.cropbox)[1]

    def text(self, page: int, x: float, baseline: float, text: str, size: float = 10) -> Drawn:
        """Draw ``text`` with its baseline at user-space ``(x, baseline)``."""
        p = self.pages[page - 1]
        p.ops.append(f"BT /F1 {size:g} Tf {x:.3f} {baseline:.3f} Td ({_escape(text)}) Tj ET")
        ub = (x, baseline - DESCENT * size, x + text_width(text, size), baseline + ASCENT * size)
        d = Drawn(page, text, displayed_box(_page_as_shown(p.width, p.height, p.rotate, p.cropbox)[0], ub), ub)
        self.drawn.append(d)
        return d

    def image_block(self, page: int, box: tuple[float, float, float, float]) -> None:
        """Paint a grey rectangle standing in for a scanned image (no text layer)."""
        x0, y0, x1, y1 = box
        self.pages[page - 1].ops.append(f"0.6 g {x0} {y0} {x1 - x0} {y1 - y0} re f 0 g")

    def build(self) -> bytes:
        """Serialise the document to PDF bytes."""
        objs: list[bytes] = []

        def add(body: bytes) -> int:
            objs.append(body)
            return len(objs)

        cmap = (
            b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
            b"/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
            b"1 begincodespacerange <00> <FF> endcodespacerange\n"
            b"3 beginbfrange <01> <01> <FB01> <02> <02> <FB02> <20> <7E> <0020> endbfrange\n"
            + f"{len(_ASTRAL)} beginbfchar ".encode()
            + b" ".join(b"<%02X> <%s>" % (code, ch.encode("utf-16-be").hex().upper().encode())
                        for ch, (code, _) in _ASTRAL.items())
            + b" endbfchar\n"
            b"endcmap CMapName currentdict /CMap defineresource pop end end\n"
        )
        tu = add(b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream")
        widths = " ".join(["500", "500"] + [f"{char_width(g):g}" for _, g in _ASTRAL.values()]
                          + ["0"] * (29 - len(_ASTRAL)) + [str(w) for w in _HELV])
        font = add(
            (
                "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 1 /LastChar 126 "
                f"/Widths [{widths}] /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding "
                f"/Differences [1 /fi /fl {' '.join('/' + g for _, g in _ASTRAL.values())}] >> /ToUnicode {tu} 0 R >>"
            ).encode()
        )
        pages_num = len(objs) + 1 + 2 * len(self.pages)
        kids = []
        for p in self.pages:
            content = "\n".join(p.ops).encode("latin-1")
            c = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
            extra = f" /Rotate {p.rotate}" if p.rotate else ""
            if p.cropbox:
                extra += " /CropBox [{} {} {} {}]".format(*p.cropbox)
            kids.append(
                add(
                    (
                        f"<< /Type /Page /Parent {pages_num} 0 R /MediaBox [0 0 {p.width:g} {p.height:g}]"
                        f"{extra} /Resources << /Font << /F1 {font} 0 R >> >> /Contents {c} 0 R >>"
                    ).encode()
                )
            )
        kid_refs = " ".join(f"{k} 0 R" for k in kids)
        assert add(f"<< /Type /Pages /Kids [{kid_refs}] /Count {len(kids)} >>".encode()) == pages_num
        catalog = add(f"<< /Type /Catalog /Pages {pages_num} 0 R >>".encode())
        return _raw_pdf(objs, catalog)


def union(boxes: Sequence[Sequence[float]]) -> tuple[float, float, float, float]:
    """Smallest box holding every box (each ``(x0, y0, x1, y1)``, a tuple or a list)."""
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def iou(a: list[float] | tuple[float, ...], b: list[float] | tuple[float, ...]) -> float:
    """Intersection over union of two ``[x0, y0, x1, y1]`` boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    area = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / area if area > 0 else 0.0


# --------------------------------------------------------------------------- hostile files


def _raw_pdf(objs: list[bytes], root: int) -> bytes:
    """Objects ``1..n`` with their cross-reference table and trailer, ``root`` the catalog."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, root, xref)
    return bytes(out)


def zero_bomb(mib: int) -> bytes:
    """A zlib stream that inflates to ``mib`` MiB of zero bytes, built in milliseconds.

    One MiB of zeros is deflated once with a full flush (a byte-aligned block that does
    not depend on what came before) and repeated; the Adler-32 of ``n`` zeros is
    ``(n mod 65521) << 16 | 1``, so the stream is valid to its last byte.
    """
    import zlib

    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = c.compress(b"\0" * (1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(b"\0" * (1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    assert again == chunk  # a full flush makes every block alike
    tail = c.flush()
    n = mib << 20
    adler = ((n % 65521) << 16) | 1
    return b"\x78\xda" + chunk * mib + tail + adler.to_bytes(4, "big")


def flate_bomb_pdf(mib: int = 4096) -> bytes:
    """A one-page PDF whose content stream inflates to ``mib`` MiB (default 4 GiB)."""
    data = zero_bomb(mib)
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream",
    ]
    return _raw_pdf(objs, 1)


def many_pages_pdf(pages: int = 10_000) -> bytes:
    """A PDF of ``pages`` pages sharing one small content stream and one font."""
    content = b"BT /F1 10 Tf 72 720 Td (The same line on every page.) Tj ET"
    kids = " ".join(f"{5 + i} 0 R" for i in range(pages)).encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
    ]
    page = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>")
    objs += [page] * pages
    return _raw_pdf(objs, 1)


# --------------------------------------------------------------------------- CJK in a font not embedded

#: Per non-embedded CID font: its Adobe character collection, the standard CMap of a legacy
#: encoding (codes that are not Unicode: a reader needs the CMap's table to read them) and the
#: Python codec that writes those codes.
CID_FONTS = {
    "STSong-Light": ("GB1", "GBK-EUC-H", "gbk"),
    "MSung-Light": ("CNS1", "ETen-B5-H", "big5"),
    "HeiseiMin-W3": ("Japan1", "90ms-RKSJ-H", "shift_jis"),
    "HYSMyeongJo-Medium": ("Korea1", "KSCms-UHC-H", "cp949"),
}


def cid_font_pdf(lines: list[tuple[float, float, str]], *, font: str = "STSong-Light", size: float = 12,
                 page: tuple[float, float] = (595, 842), subtype: str = "CIDFontType2",
                 ) -> tuple[bytes, list[tuple[float, float, float, float]]]:
    """A one-page PDF drawing each ``(x, baseline, text)`` of full-width characters in the CID
    font ``font``, which it does not embed, through a legacy-encoding CMap (as many Chinese and
    Japanese producers write them: ``/GBK-EUC-H`` and the like), every glyph one em wide
    (``/DW 1000``), one glyph per text-showing operator: PDFium reads no text from such a
    single-glyph run in a TrueType-based CID font (``CIDFontType2``, what CAJ exports and OCR
    text layers write) when the font is not embedded.

    Returns the PDF and each line's box as a reader sees it (display frame, points, top-left
    origin), from the layout written here: one em per character, ascent 0.88 em, descent 0.12 em.
    """
    ordering, cmap, codec = CID_FONTS[font]
    ops: list[str] = []
    boxes: list[tuple[float, float, float, float]] = []
    for x, baseline, text in lines:
        # one glyph per text-showing operator, each placed by its own matrix (as CAJ exports and
        # OCR text layers write them): PDFium reads no text from such a single-glyph object
        ops.extend(f"BT /F1 {size:g} Tf 1 0 0 1 {x + k * size:.3f} {baseline:.3f} Tm "
                   f"<{ch.encode(codec).hex().upper()}> Tj ET" for k, ch in enumerate(text))
        boxes.append((x, page[1] - baseline - 0.88 * size, x + len(text) * size, page[1] - baseline + 0.12 * size))
    content = "\n".join(ops).encode("ascii")
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 5 0 R >> >> "
        b"/Contents 4 0 R >>" % (int(page[0]), int(page[1])),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        f"<< /Type /Font /Subtype /Type0 /BaseFont /{font} /Encoding /{cmap} /DescendantFonts [6 0 R] >>".encode(),
        f"<< /Type /Font /Subtype /{subtype} /BaseFont /{font} /CIDSystemInfo << /Registry (Adobe) "
        f"/Ordering ({ordering}) /Supplement 4 >> /FontDescriptor 7 0 R /DW 1000 >>".encode(),
        f"<< /Type /FontDescriptor /FontName /{font} /Flags 6 /FontBBox [-25 -254 1000 880] /ItalicAngle 0 "
        "/Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>".encode(),
    ]
    return _raw_pdf(objs, 1), boxes


#: An outline entry for ``with_outline``: title, 0-based page (None: a page the document does not
#: have), top in user space (None: the whole page) and the entries nested under it.
OutlineItem = tuple[str, "int | None", "float | None", "list[OutlineItem]"]


def with_outline(pdf: bytes, items: list[OutlineItem]) -> bytes:
    """``pdf`` with an outline (bookmarks) written by pypdf's ``add_outline_item`` (GoTo actions): ``/XYZ``
    destinations at the given tops (``/Fit`` without one). An item whose page is None points at a page object that is
    not in the page tree, a broken destination as a damaged or cut-down PDF has."""
    import io

    import pypdf
    from pypdf.generic import ArrayObject, DictionaryObject, Fit, NameObject

    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(pdf)))
    stray = writer._add_object(DictionaryObject({NameObject("/Type"): NameObject("/Page")}))

    def add(entries: list[OutlineItem], parent: object) -> None:
        for title, page, top, kids in entries:
            fit = Fit.xyz(left=0, top=top, zoom=0) if top is not None else Fit.fit()
            ref = writer.add_outline_item(title=title, page_number=0 if page is None else page, parent=parent,
                                          fit=fit)
            if page is None:  # pypdf writes a GoTo action: its destination's page is the stray one
                action = ref.get_object()["/A"]
                action[NameObject("/D")] = ArrayObject([stray, *list(action["/D"])[1:]])
            add(kids, ref)

    add(items, None)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
