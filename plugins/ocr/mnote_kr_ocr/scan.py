"""Recognise a file once per content: images and the PDF pages without a usable text layer.

A PDF page without a usable text layer has fewer than ``MIN_LAYER_CHARS`` characters in it (a scan), or
a layer that is mostly mojibake (``unreadable_layer``: a font without a usable Unicode map); either is
recognised, and the second is marked ``unreadable`` so ``status`` and ingest can say so.

``scan(path)`` returns a :class:`Scan`: per page its size (image pixels, or PDF points in the
frame PDFium renders: crop box after ``/Rotate``) and its recognised lines (text, box in that
unit, confidence), grouped into paragraphs in reading order. Results are kept on disk by the
file's SHA-256 (``KeyedStore``), failures too, so a file is recognised once per content,
whatever its name or place, and every later ``locate`` or viewer request reads the record.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnote_kr.plugin_api import DocumentError, MnoteKrError, OverBudgetError, repeating, unreadable_layer

from . import budget
from .spaces import cjk

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

#: Bump when what a record means changes (the models are pinned with the wheel).
VERSION = "ocr-3"  # 2: fragments of one printed line joined (join_fragments); 3: word spaces (spaces.py)
#: A PDF page whose text layer has fewer characters than this is recognised.
MIN_LAYER_CHARS = 20

Progress = Callable[[str], None]
#: While one page is being recognised, its step's line is said again this often (a large page can take
#: a minute: a shell's progress and a piped log would otherwise show nothing moving; at most 5 s apart, nc18a).
HEARTBEAT_S = 4.0


def heartbeat(progress: Progress, line: Callable[[float], str], every: float | None = None) -> Any:
    """Say ``line(seconds so far)`` every ``every`` seconds (``HEARTBEAT_S``) until the block ends (the host's
    ``repeating``)."""
    started = time.monotonic()
    return repeating(lambda: progress(line(time.monotonic() - started)), HEARTBEAT_S if every is None else every)


def _quiet(message: str) -> None:
    return None


@dataclass
class Line:
    text: str
    box: list[float]  # x0, y0, x1, y1 in the page's unit, top-left origin
    score: float
    cells: int = 1  # a table row's cells joined into this line (``rows``), left to right


@dataclass
class Page:
    number: int  # 1-based
    width: float
    height: float
    unit: str  # px (an image) | pt (a PDF page)
    source: str  # ocr | text-layer | skipped
    lines: list[Line] = field(default_factory=list)
    paragraphs: list[list[int]] = field(default_factory=list)  # line indexes, reading order
    layer_text: str = ""
    unreadable: bool = False  # recognised since its text layer is mostly mojibake (``unreadable_layer``)


@dataclass
class Scan:
    pages: list[Page] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # budget lines: what was left out and why
    error: str | None = None  # the one line of a file that could not be recognised
    seconds: float = 0.0
    stopped: bool = False  # cut short by the time limit: not kept (a later try may finish)
    #: Made with unreadable layers detected (a record kept before never looked: ``scan`` checks it again)
    layers_checked: bool = True

    def recognised_pages(self) -> int:
        return sum(1 for p in self.pages if p.source == "ocr")

    def unreadable_pages(self) -> list[int]:
        """The pages recognised since their text layer is unreadable (1-based)."""
        return [p.number for p in self.pages if p.unreadable]

    def recognised_text(self) -> bool:
        """Whether recognition read any line (on an image, or on some scanned page of a PDF)."""
        return any(p.source == "ocr" and p.lines for p in self.pages)

    def to_json(self) -> bytes:
        return json.dumps({"pages": [{
            "number": p.number, "width": p.width, "height": p.height, "unit": p.unit, "source": p.source,
            "lines": [[ln.text, *ln.box, ln.score, *([ln.cells] if ln.cells > 1 else [])] for ln in p.lines],
            "paragraphs": p.paragraphs, "layerText": p.layer_text, "unreadableLayer": p.unreadable}
            for p in self.pages],
            "notes": self.notes, "error": self.error, "seconds": self.seconds, "layerCheck": True, "rows": True},
            ensure_ascii=False).encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes) -> Scan:
        raw = json.loads(data)
        pages = [Page(number=p["number"], width=p["width"], height=p["height"], unit=p["unit"], source=p["source"],
                      lines=[Line(text=r[0], box=[float(v) for v in r[1:5]], score=float(r[5]),
                                  cells=int(r[6]) if len(r) > 6 else 1) for r in p["lines"]],
                      paragraphs=p["paragraphs"], layer_text=p.get("layerText", ""),
                      unreadable=bool(p.get("unreadableLayer", False))) for p in raw["pages"]]
        if not raw.get("rows"):  # kept before table rows were joined: joined now (no recognition again)
            for page in pages:
                if page.source == "ocr":
                    page.lines, page.paragraphs = lay_out(page.lines)
        return cls(pages=pages, notes=list(raw["notes"]), error=raw["error"], seconds=float(raw["seconds"]),
                   layers_checked=bool(raw.get("layerCheck", False)))

    def markdown(self) -> str:
        """The recognised text in reading order: paragraphs as blocks, ``## Page N`` before each page
        of a PDF (an image has one page and no marker)."""
        paged = any(p.unit == "pt" for p in self.pages)
        out: list[str] = []
        for page in self.pages:
            blocks = [para_text(page, para) for para in page.paragraphs] if page.source == "ocr" else \
                [page.layer_text.strip()] if page.layer_text.strip() else []
            if paged and blocks:
                out.append(f"## Page {page.number}")
            out.extend(b for b in blocks if b)
        return "\n\n".join(out)


def para_text(page: Page, para: list[int]) -> str:
    return "\n".join(page.lines[i].text for i in para)


# --------------------------------------------------------------------------- the engine

_engine: Any = None
_engine_lock = threading.Lock()  # one recognition at a time per process: threads stay bounded


def _rapid() -> Any:
    global _engine
    if _engine is None:
        from rapidocr_onnxruntime import RapidOCR

        from . import spaces

        threads = budget.settings().threads
        engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)
        spaces.install(engine)
        _engine = engine
    return _engine


def recognise_array(rgb: np.ndarray) -> list[Line]:
    """RapidOCR on one RGB page: its lines (box = the detected quadrilateral's bounds)."""
    with _engine_lock:
        result, _elapsed = _rapid()(rgb)
    lines: list[Line] = []
    for quad, text, score in result or []:
        xs = [float(pt[0]) for pt in quad]
        ys = [float(pt[1]) for pt in quad]
        text = str(text).strip()
        if text:
            lines.append(Line(text=text, box=[min(xs), min(ys), max(xs), max(ys)], score=float(score)))
    return join_fragments(lines)


#: What the detector leaves at the start of a fragment that overlaps the one before it.
_OVERLAP_MARKS = "：:;；,，、·."


def join_fragments(lines: list[Line]) -> list[Line]:
    """The printed lines: RapidOCR's detector splits a line at wide word gaps into fragments
    (``The`` / ``lighthouse`` / ``：keeper`` / ``logs tides at dawn.``) whose tops differ by a few
    pixels, so sorting by top put them out of order and the paragraph step took each for a line.
    Two fragments are on one row when they share at least half of the lower one's height and lie
    within one line height of each other (a column gutter is wider), and rows chain; a row's
    fragments, left to right, become one line (text joined by a space, none between CJK
    characters; box the union; confidence the lowest). A mark the detector left at a fragment's
    start where it overlaps the fragment before (``：keeper``) is dropped."""
    parent = list(range(len(lines)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(lines):
        for j in range(i + 1, len(lines)):
            b = lines[j].box
            ha, hb = a.box[3] - a.box[1], b[3] - b[1]
            shared = min(a.box[3], b[3]) - max(a.box[1], b[1])
            gap = max(a.box[0], b[0]) - min(a.box[2], b[2])
            if shared >= 0.5 * min(ha, hb) and gap <= max(ha, hb):
                parent[root(j)] = root(i)
    groups: dict[int, list[Line]] = {}
    for i, ln in enumerate(lines):
        groups.setdefault(root(i), []).append(ln)
    rows = list(groups.values())
    joined: list[Line] = []
    for row in rows:
        row.sort(key=lambda f: f.box[0])
        text = row[0].text
        for prev, frag in zip(row, row[1:], strict=False):
            piece = frag.text
            if frag.box[0] < prev.box[2] and len(piece) > 1 and piece[0] in _OVERLAP_MARKS:
                piece = piece[1:].lstrip()
            text += piece if text and cjk(text[-1]) and cjk(piece[0]) else f" {piece}"
        box = [min(f.box[0] for f in row), min(f.box[1] for f in row),
               max(f.box[2] for f in row), max(f.box[3] for f in row)]
        joined.append(Line(text=text, box=box, score=min(f.score for f in row)))
    return joined


def recognise_image(im: Image.Image, max_pixels: int) -> tuple[list[Line], float]:
    """Lines of a PIL image, downscaled to ``max_pixels`` first; boxes in the image's own pixels.
    Returns the lines and the factor the image was shrunk by (1.0: not at all)."""
    import numpy as np

    width, height = im.size
    factor = 1.0
    if width * height > max_pixels:
        factor = math.sqrt(max_pixels / (width * height))
        im = im.resize((max(1, int(width * factor)), max(1, int(height * factor))))
    lines = recognise_array(np.asarray(im.convert("RGB")))
    if factor != 1.0:
        for ln in lines:
            ln.box = [min(v / factor, lim) for v, lim in zip(ln.box, (width, height, width, height), strict=True)]
    return lines, factor


def lay_out(lines: list[Line]) -> tuple[list[Line], list[list[int]]]:
    """A page's recognised lines with each table row's cells joined into one line (``rows.table_rows``:
    text ``" | "`` between cells, box their union, the lowest confidence), and its paragraphs."""
    from .rows import table_rows

    first = {row[0]: row for row in table_rows(lines)}
    joined = {i for row in first.values() for i in row}
    out: list[Line] = []
    for i, ln in enumerate(lines):
        if i in first:
            cells = [lines[k] for k in first[i]]
            out.append(Line(text=" | ".join(c.text for c in cells), box=_union_box([c.box for c in cells]),
                            score=min(c.score for c in cells), cells=sum(c.cells for c in cells)))
        elif i not in joined:
            out.append(ln)
    return out, paragraphs(out)


def _union_box(boxes: list[list[float]]) -> list[float]:
    return [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]


def paragraphs(lines: list[Line]) -> list[list[int]]:
    """Group lines (in the engine's top-to-bottom order) into paragraphs: a line joins the one
    before when it starts below it within about one line height and their columns overlap."""
    order = sorted(range(len(lines)), key=lambda i: (round(lines[i].box[1] / 4), lines[i].box[0]))
    paras: list[list[int]] = []
    for i in order:
        box = lines[i].box
        height = box[3] - box[1]
        if paras:
            prev = lines[paras[-1][-1]].box
            gap = box[1] - prev[3]
            overlap = min(box[2], prev[2]) - max(box[0], prev[0])
            if -0.5 * height <= gap <= 0.9 * height and overlap > 0:
                paras[-1].append(i)
                continue
        paras.append([i])
    return paras


# --------------------------------------------------------------------------- one file, once


_hashes: dict[tuple[str, int, int], str] = {}
_memo: dict[str, Scan] = {}
_memo_lock = threading.Lock()


def content_hash(path: str) -> str:
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError as exc:
        raise DocumentError(f"cannot read {Path(path).name}: {exc.strerror or exc}", path=path) from exc
    key = (real, st.st_size, st.st_mtime_ns)
    sha = _hashes.get(key)
    if sha is None:
        h = hashlib.sha256()
        with open(real, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        sha = _hashes[key] = h.hexdigest()
    return sha


def _store() -> Any:
    from mnote_kr.plugin_api import KeyedStore

    return KeyedStore("ocr", VERSION, max_entries=20000)


def _key(sha: str) -> str:
    s = budget.settings()
    return f"{sha}:{s.max_pixels}:{s.max_pages}:{s.dpi}"


def cached(path: str) -> Scan | None:
    """The record of this file's content, when it was recognised before (no recognition here)."""
    return record_for(content_hash(path))


def record_for(sha: str) -> Scan | None:
    """The record kept for the content with this SHA-256 (hex, or the registry's ``sha256:hex``), or None."""
    sha = sha.removeprefix("sha256:")
    with _memo_lock:
        hit = _memo.get(_key(sha))
    if hit is not None:
        return hit
    data = _store().get(_key(sha))
    if data is None:
        return None
    try:
        result = Scan.from_json(data)
    except (ValueError, KeyError, TypeError, IndexError):
        return None
    with _memo_lock:
        _memo[_key(sha)] = result
    return result


def pages_to_recognise(missing: int, garbled: int, total: int) -> str:
    """Why OCR reads the pages it reads, as a person says it: ``its only page has an unreadable text layer``, ``of
    its 5 pages, 2 have no text layer and 1 has an unreadable one`` (nc26a read "0 pages without a text layer, 1
    with an unreadable one of 1")."""
    if total == 1 and missing + garbled == 1:
        return "its only page has " + ("no text layer" if missing else "an unreadable text layer")
    if missing == total:
        return f"none of its {total} pages has a text layer"
    if garbled == total:
        return f"all {total} of its pages have an unreadable text layer"
    said = [f"{n} {'has' if n == 1 else 'have'} {what}"
            for n, what in ((missing, "no text layer"),
                            (garbled, "an unreadable one" if missing else "an unreadable text layer")) if n]
    return f"of its {total} pages, " + " and ".join(said)


def scan(path: str, progress: Progress = _quiet) -> Scan:
    """This file's recognition, from the cache or made now (and kept). A file over a budget raises
    ``OverBudgetError``; a file that cannot be read is a record with ``error`` (kept, not retried)."""
    hit = cached(path)
    if hit is not None and not _unchecked(hit, path):
        return hit
    sha = content_hash(path)
    started = time.monotonic()
    try:
        result = _scan_pdf(path, progress) if path.lower().endswith(".pdf") else _scan_image(path, progress)
    except OverBudgetError:
        raise
    except MnoteKrError as exc:
        result = Scan(error=exc.message)
    result.seconds = round(time.monotonic() - started, 3)
    if result.stopped:
        return result
    try:
        _store().put(_key(sha), result.to_json())
    except OSError:
        pass  # no cache: the next call recognises again
    with _memo_lock:
        _memo[_key(sha)] = result
    return result


def _unchecked(record: Scan, path: str) -> bool:
    """Whether a PDF's record, kept before unreadable layers were detected, must be made again: it
    recognised no page (its layers were not kept: reading them again costs no recognition unless one
    is unreadable), or a layer it kept is unreadable."""
    if record.layers_checked or record.error or not path.lower().endswith(".pdf"):
        return False
    return not record.recognised_pages() or any(
        p.source == "text-layer" and unreadable_layer(p.layer_text) for p in record.pages)


def open_image(path: str) -> Image.Image:
    """The image as shown (EXIF orientation applied), after the header check; frame 1 of many."""
    from PIL import Image, ImageOps

    width, height = budget.image_size(path)
    name = Path(path).name
    try:
        with Image.open(path) as im:
            target = budget.settings().max_pixels
            if width * height > target:
                factor = math.sqrt(target / (width * height))
                im.draft("RGB", (int(width * factor) + 1, int(height * factor) + 1))  # JPEG: decode smaller
            im.load()
            shown = ImageOps.exif_transpose(im)
            return shown if shown is not None else im.copy()
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise DocumentError(f"cannot read the image {name}: {exc}", path=path,
                            hint="the file is damaged or not an image; its name is still indexed") from exc


def shown_size(path: str) -> tuple[int, int]:
    """The image's size as shown: the header's, turned by its EXIF orientation."""
    from PIL import Image

    width, height = budget.image_size(path)
    try:
        with Image.open(path) as im:
            orientation = im.getexif().get(0x0112, 1)
    except (OSError, ValueError, SyntaxError):
        orientation = 1
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


def _scan_image(path: str, progress: Progress) -> Scan:
    im = open_image(path)
    full = shown_size(path)
    s = budget.settings()
    name = Path(path).name
    # "0/1 pages": a step's start, which 'ingest' prints piped (recognition can take a minute)
    progress(f"OCR {name}: 0/1 pages recognised (an image of {full[0]:,} x {full[1]:,} pixels)")
    with heartbeat(progress, lambda t: f"OCR {name}: 0/1 pages recognised; {t:.0f} s so far"):
        lines, factor = recognise_image(im, s.max_pixels)
    if im.size != full:  # decoded smaller (JPEG draft): boxes back to the shown image's pixels
        fx, fy = full[0] / im.size[0], full[1] / im.size[1]
        for ln in lines:
            ln.box = [ln.box[0] * fx, ln.box[1] * fy, ln.box[2] * fx, ln.box[3] * fy]
    notes = []
    if factor != 1.0 or im.size != full:
        notes.append(f"{Path(path).name}: {full[0]:,} x {full[1]:,} pixels recognised downscaled to at most "
                     f"{s.max_pixels:,} pixels (limit: OCR pixels per page, [ocr] max_pixels)")
    lines, paras = lay_out(lines)
    page = Page(number=1, width=float(full[0]), height=float(full[1]), unit="px", source="ocr", lines=lines,
                paragraphs=paras)
    progress(f"OCR {name}: 1/1 pages recognised, {len(lines)} line(s)")
    for note in notes:
        progress(note)
    return Scan(pages=[page], notes=notes)


def _scan_pdf(path: str, progress: Progress) -> Scan:
    import pypdfium2 as pdfium

    name = Path(path).name
    s = budget.settings()
    try:
        pdf = pdfium.PdfDocument(path)
    except (pdfium.PdfiumError, OSError) as exc:
        raise DocumentError(f"cannot open the PDF {name}: {exc}", path=path) from exc
    started = time.monotonic()
    result = Scan()
    try:
        total = len(pdf)
        layers = [pdf[i].get_textpage().get_text_range() for i in range(total)]
        missing = [i for i in range(total) if len(layers[i].strip()) < MIN_LAYER_CHARS]
        garbled = [i for i in range(total) if i not in missing and unreadable_layer(layers[i])]
        to_scan = sorted(missing + garbled)
        if len(to_scan) > s.max_pages:
            readable = " readable" if garbled else ""
            result.notes.append(f"{name}: {len(to_scan)} pages without a{readable} text layer; the first "
                                f"{s.max_pages} were recognised (limit: OCR pages per file {s.max_pages}, "
                                "[ocr] max_pages)")
        chosen = set(to_scan[:s.max_pages])
        done = 0
        if garbled:
            progress(f"{name}: text layer unreadable on {len(garbled)} page(s) (a font without a usable Unicode "
                     "map): read by OCR")
        if chosen:  # "N/M pages": a step's count, which 'ingest' prints piped (each tenth, every 4 s)
            progress(f"OCR {name}: 0/{len(chosen)} pages recognised "
                     f"({pages_to_recognise(len(missing), len(garbled), total)})")
        for i in range(total):
            page = pdf[i]
            if i not in chosen:
                width, height = page.get_size()
                # a PDF with no page to recognise keeps no text here (its own reader has it all)
                text = layers[i] if to_scan and i not in to_scan else ""
                result.pages.append(Page(number=i + 1, width=width, height=height, unit="pt",
                                         source="text-layer" if i not in to_scan else "skipped", layer_text=text))
                continue
            if result.stopped or time.monotonic() - started > s.max_seconds:
                if not result.stopped:
                    result.notes.append(f"{name}: recognition stopped after {done} of {len(chosen)} pages "
                                        f"(limit: OCR time per file {s.max_seconds:g} s, [ocr] max_seconds)")
                result.stopped = True
                width, height = page.get_size()
                result.pages.append(Page(number=i + 1, width=width, height=height, unit="pt", source="skipped"))
                continue
            width, height = page.get_size()
            scale = s.dpi / 72.0
            if width * height * scale * scale > s.max_pixels:
                scale = math.sqrt(s.max_pixels / (width * height))
            bitmap = page.render(scale=scale)
            im = bitmap.to_pil()
            # the frame PDFium renders (crop box after /Rotate) in points: pixels / scale
            fw, fh = im.size[0] / scale, im.size[1] / scale
            with heartbeat(progress, lambda _t, n=done, page=i + 1: f"OCR {name}: {n}/{len(chosen)} pages recognised; "
                           f"{time.monotonic() - started:.0f} s so far (page {page})"):
                lines, _factor = recognise_image(im, s.max_pixels)
            for ln in lines:
                ln.box = [round(v / scale, 2) for v in ln.box]
            lines, paras = lay_out(lines)
            result.pages.append(Page(number=i + 1, width=fw, height=fh, unit="pt", source="ocr", lines=lines,
                                     paragraphs=paras, unreadable=i in garbled))
            done += 1
            progress(f"OCR {name}: {done}/{len(chosen)} pages recognised; {time.monotonic() - started:.0f} s so far")
    except pdfium.PdfiumError as exc:
        raise DocumentError(f"cannot read the PDF {name}: {exc}", path=path) from exc
    finally:
        pdf.close()
    for note in result.notes:
        progress(note)
    return result
