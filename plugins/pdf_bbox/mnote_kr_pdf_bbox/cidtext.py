"""Pages whose text PDFium cannot read: CJK text drawn in fonts the PDF does not embed.

A PDF may draw Chinese, Japanese or Korean text in a font it does not embed (STSong-Light,
SimSun, MSung-Light, HeiseiMin-W3, HYSMyeongJo-Medium, ...): a CID font named by its character
collection (Adobe-GB1, CNS1, Japan1, Korea1) with a standard CMap such as ``UniGB-UCS2-H``.
A reader substitutes a system font and maps the codes to Unicode through that CMap. PDFium as
pypdfium2 ships it has no such CMaps: those characters are missing from its text layer, and,
without the font's metrics, from its boxes too. LightRAG's PDF reader (pypdf) does read them,
so the evidence LightRAG returns holds text the locator could not find, and every citation of
such a document fell back to ``file``.

pdfminer.six (MIT) ships the Adobe CMaps and the CID fonts' widths, and gives each character
its Unicode text, box and baseline. It is pure Python (about 0.4 s a page), so it reads only the
pages where PDFium met text objects in a non-embedded font that yielded no text
(:func:`unreadable_text_objects`), at most ``MAX_PAGES`` of them per document and within the
reader's time budget; the other pages keep PDFium's reading.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .budget import Stopwatch

#: Pages of one document read again this way (the rest keep PDFium's reading).
MAX_PAGES = 200

Char = tuple[str, tuple[float, float, float, float], float, float]  # text, box, baseline y, size


#: A page is read again when at least this share of its text objects gave PDFium no text
#: (a few empty objects, spaces drawn in a missing font, are common and harmless).
MIN_SHARE = 0.1


def unreadable_text_objects(page: Any, textpage: Any) -> int:
    """How many text objects of ``page`` use a font the PDF does not embed and gave PDFium no
    text; 0 when they are fewer than ``MIN_SHARE`` of its text objects."""
    import pypdfium2.raw as pdfium_c

    count = total = 0
    for k in range(pdfium_c.FPDFPage_CountObjects(page.raw)):
        obj = pdfium_c.FPDFPage_GetObject(page.raw, k)
        if pdfium_c.FPDFPageObj_GetType(obj) != pdfium_c.FPDF_PAGEOBJ_TEXT:
            continue
        total += 1
        font = pdfium_c.FPDFTextObj_GetFont(obj)
        # the length counts the UTF-16 terminator: 2 bytes is no text at all
        if font and not pdfium_c.FPDFFont_GetIsEmbedded(font) and \
                pdfium_c.FPDFTextObj_GetText(obj, textpage.raw, None, 0) <= 2:
            count += 1
    return count if count >= MIN_SHARE * total else 0


def reads_more(found: list[Char], pdfium_text: str) -> bool:
    """True when pdfminer's reading of a page holds clearly more letters and digits than PDFium's:
    only then does it replace PDFium's (whose boxes and reading order are otherwise the better)."""
    ours = sum(c[0].isalnum() for c in found)
    theirs = sum(ch.isalnum() for ch in pdfium_text)
    return ours > 1.1 * theirs + 8


def _chars(layout: Any) -> Iterator[Any]:
    from pdfminer.layout import LTChar

    stack = [layout]
    while stack:  # depth first, children in their order: the content stream's order
        item = stack.pop()
        if isinstance(item, LTChar):
            yield item
        elif hasattr(item, "__iter__"):
            stack.extend(reversed(list(item)))


def read_pages(path: str | Path, numbers: Iterable[int], watch: Stopwatch) -> dict[int, list[Char]]:
    """The characters of pages ``numbers`` (1-based) as pdfminer.six reads them, one per entry.

    Pages not read before the reading's budget is spent (``watch``, ``budget.MAX_SECONDS``) are left out; so is a page
    pdfminer cannot parse. A character pdfminer could not map to Unicode (``(cid:N)``) is
    dropped: never a wrong letter.
    """
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfminer.psparser import PSException

    wanted = sorted(set(numbers))[:MAX_PAGES]
    out: dict[int, list[Char]] = {}
    if not wanted:
        return out
    # No layout analysis is needed (the locator has its own); boxes_flow=None keeps content order.
    params = LAParams(boxes_flow=None, all_texts=True)
    pages = extract_pages(str(path), page_numbers=[n - 1 for n in wanted], laparams=params)
    try:
        for number, layout in zip(wanted, pages, strict=False):
            chars: list[Char] = []
            for ch in _chars(layout):
                text = ch.get_text()
                if len(text) != 1 or text.startswith("(cid:"):
                    continue  # a ligature's several letters or an unmapped code: not placed by one box
                x0, y0, x1, y1 = ch.bbox
                chars.append((text, (x0, y0, x1, y1), float(ch.matrix[5]), float(ch.size)))
            out[number] = chars
            if watch.over():
                break
    except (PDFSyntaxError, PSException, ValueError, KeyError, TypeError, AssertionError):
        pass  # what was read stays; the rest keeps PDFium's reading
    return out
