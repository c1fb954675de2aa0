"""Generated scans with known text and line boxes: the labels of the OCR tests and benchmark.

Lines of text are drawn with Pillow in Noto Sans CJK (the ``manimgx-fonts-cjk`` wheel, OFL: Latin
and Chinese glyphs) on a white page at a given dpi; the label of each line is the box Pillow
reports for the drawn text, turned with the page when the page is rotated (the label is then
the bounds of the turned box). Noise is salt-and-pepper on a given share of pixels. An
image-only PDF is the page image saved as a PDF at its dpi (labels in points).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from mnote_kr_testkit.pdfs import iou

if TYPE_CHECKING:
    from PIL import Image, ImageFont

__all__ = ["A4_INCHES", "GeneratedScan", "ScanLine", "bomb_png", "font", "font_path", "iou", "mixed_pdf", "render"]

A4_INCHES = (8.27, 11.69)


@dataclass
class ScanLine:
    text: str
    box: list[float]  # x0, y0, x1, y1 in pixels of the page image (top-left origin)


@dataclass
class GeneratedScan:
    image: Image.Image
    dpi: int
    lines: list[ScanLine] = field(default_factory=list)

    def boxes_in_points(self) -> list[list[float]]:
        k = 72.0 / self.dpi
        return [[v * k for v in ln.box] for ln in self.lines]

    def save(self, path: Path) -> Path:
        """As an image (by suffix) or, for ``.pdf``, an image-only PDF at the scan's dpi."""
        if path.suffix.lower() == ".pdf":
            self.image.convert("RGB").save(path, "PDF", resolution=float(self.dpi))
        else:
            self.image.save(path)
        return path


def font_path() -> Path:
    import manimgx_fonts_cjk

    return Path(manimgx_fonts_cjk.__file__).parent / "NotoSansCJK-VF.otf.ttc"


@lru_cache(maxsize=16)
def font(size_px: int) -> ImageFont.FreeTypeFont:
    """Noto Sans CJK SC Regular at ``size_px`` pixels."""
    from PIL import ImageFont

    f = ImageFont.truetype(str(font_path()), size_px, index=2)  # index 2: Noto Sans CJK SC
    f.set_variation_by_name("Regular")
    return f


def render(lines: list[str], *, dpi: int = 300, pt: float = 12.0, page_inches: tuple[float, float] = A4_INCHES,
           margin_inches: float = 1.0, line_spacing: float = 1.8, paragraph_every: int = 0,
           rotate_deg: float = 0.0, noise: float = 0.0, seed: int = 0) -> GeneratedScan:
    """A page with ``lines`` drawn top to bottom at ``pt`` points (a blank line after every
    ``paragraph_every`` lines when > 0), rotated by ``rotate_deg`` (counter-clockwise), with
    ``noise`` (share of pixels flipped to black or white)."""
    from PIL import Image, ImageDraw

    width, height = round(page_inches[0] * dpi), round(page_inches[1] * dpi)
    size_px = max(6, round(pt * dpi / 72.0))
    f = font(size_px)
    im = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(im)
    x = y = margin_inches * dpi
    out: list[ScanLine] = []
    for n, text in enumerate(lines):
        if paragraph_every and n and n % paragraph_every == 0:
            y += size_px * line_spacing
        x0, y0, x1, y1 = draw.textbbox((x, y), text, font=f)
        draw.text((x, y), text, font=f, fill=0)
        out.append(ScanLine(text=text, box=[float(x0), float(y0), float(x1), float(y1)]))
        y += size_px * line_spacing
    if rotate_deg:
        im = im.rotate(rotate_deg, resample=Image.Resampling.BICUBIC, fillcolor=255)
        cx, cy = width / 2.0, height / 2.0
        a = math.radians(rotate_deg)
        cos, sin = math.cos(a), math.sin(a)
        for ln in out:
            corners = [(ln.box[0], ln.box[1]), (ln.box[2], ln.box[1]), (ln.box[2], ln.box[3]), (ln.box[0], ln.box[3])]
            # PIL turns counter-clockwise on screen (y down): x' = c + (x-c)cos + (y-c)sin, y' = c - (x-c)sin + (y-c)cos
            turned = [(cx + (px - cx) * cos + (py - cy) * sin, cy - (px - cx) * sin + (py - cy) * cos)
                      for px, py in corners]
            ln.box = [min(p[0] for p in turned), min(p[1] for p in turned),
                      max(p[0] for p in turned), max(p[1] for p in turned)]
    if noise:
        rng = random.Random(seed)
        px = im.load()
        for _ in range(int(width * height * noise)):
            px[rng.randrange(width), rng.randrange(height)] = rng.choice((0, 255))  # type: ignore[index]
    return GeneratedScan(image=im, dpi=dpi, lines=out)


def mixed_pdf(path: Path, pages: list[list[str] | GeneratedScan]) -> Path:
    """A PDF whose pages are either text (a list of lines drawn by reportlab in Helvetica 12 pt on
    a US Letter page: a real text layer) or a scan (the image placed to fill a page of its own
    size at its dpi: no text layer, and its lines' ``boxes_in_points`` are boxes on that page)."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    for page in pages:
        if isinstance(page, GeneratedScan):
            w, h = page.image.width * 72.0 / page.dpi, page.image.height * 72.0 / page.dpi
            c.setPageSize((w, h))
            c.drawImage(ImageReader(page.image.convert("RGB")), 0, 0, width=w, height=h)
        else:
            c.setPageSize((612.0, 792.0))
            c.setFont("Helvetica", 12)
            for n, line in enumerate(page):
                c.drawString(72.0, 720.0 - 18.0 * n, line)
        c.showPage()
    c.save()
    return path


def bomb_png(path: Path, width: int = 30_000, height: int = 30_000, data_bytes: int = 4096) -> Path:
    """A PNG whose header declares ``width`` x ``height`` one-bit grey pixels, all white, in a few
    KB: the image data is the first ``data_bytes`` of the zlib stream of those rows (a decoder
    allocates the whole image from the header before it finds the stream cut short; 0 keeps the
    whole stream, about 110 KB at 30,000 x 30,000, deflate's limit of about 1:1000)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    comp = zlib.compressobj(9)
    row = b"\x00" + b"\xff" * ((width + 7) // 8)
    body = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    if data_bytes:
        body = body[:data_bytes]
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", body) + chunk(b"IEND", b""))
    return path
