"""A DOCX whose words LightRAG's parser runs together across a break: indexed through the text mnote-kr reads in it.

LightRAG 1.5.7's native DOCX parser reads a run (``parse_document.extract_text_from_run``, and
``table_extractor.extract_text_from_run_table`` in a table cell) as its ``w:t`` text, a tab as ``\\t``, a
``w:br`` of no type or ``textWrapping`` as a newline and a drawing as its placeholder; anything else reads as
nothing. So a page or column break (``w:br w:type="page"``/``"column"``), a carriage return (``w:cr``) and a
non-breaking hyphen (``w:noBreakHyphen``) inside a paragraph join the text on either side: "end of the
section<page break>Next" reaches its index as "sectionNext" and "26<non-breaking hyphen>jährige" as "26jährige",
so neither word is found, and a quote of them is not the document's. (A soft hyphen, ``w:softHyphen``, is an
optional hyphen: read as nothing, the word is whole, as the DOCX locator reads it too.) Measured on the corpus's
35 DOCX with the real parser: page breaks in 12 files (77), carriage returns in 1 (2), non-breaking hyphens in
1 (1), mostly at a paragraph's end or between paragraphs, where they glue nothing.

Whether a document glues words is read from its main part's structure (``glued``: each paragraph as LightRAG's run
readers read it, a break it drops standing for a mark; text right on both sides of a mark glues), never from its
text; only the paragraphs around a possible mark are parsed (``_candidates``: the corpus's 35 DOCX checked in 0.7 s,
2.6 s parsing each part whole). Only then is the host asked for the document's text as its locator plugin reads it
(``ProviderContext.extract_text``: paragraphs in order, a break a space, a non-breaking hyphen "-", footnotes and
comments at their marks), sent as a Markdown text wrapper in place of the link (``recognized.own_text``), exactly
like a deck with line breaks inside a text box (``decks.GLUED``): it maps back to the same registry entry, its
``kind`` is ``text_fallback``, its reading the DOCX reader's text (``readings.FALLBACK``), and citations land on the
same paragraphs, since the locator reads the text it came from. Any other DOCX stays a plain link.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from mnote_kr.plugin_api import ProviderContext, SourceFile

from .owntext import listed, own_text

if TYPE_CHECKING:
    import zipfile
    from xml.etree import ElementTree as ET

SUFFIX = ".docx"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
MAIN_TYPE = "/officeDocument"
MAX_PART_BYTES = 64 * 1024 * 1024  # the main part, decompressed
#: What LightRAG's parser runs words together across, as ``status`` names it, in the note's order.
PAGE, CR, HYPHEN = "page or column breaks", "carriage returns", "non-breaking hyphens"
KINDS = (PAGE, CR, HYPHEN)
_MARKS = {PAGE: "\x01", CR: "\x02", HYPHEN: "\x03"}
#: A mark with text right on both sides (a run of marks glues by the first one's kind).
_GLUE = re.compile(r"\S([\x01-\x03])[\x01-\x03]*\S")
_KIND_OF = {mark: kind for kind, mark in _MARKS.items()}
#: Cheap first look at the raw part: a document without any of these glues nothing and is not parsed.
_MAYBE = re.compile(rb"<(?:[\w.-]+:)?(?:cr|noBreakHyphen)\b|type=\"(?:page|column)\"")


def _line(p: ET.Element) -> str:
    """The paragraph's text as LightRAG's run readers read it, each break they drop a mark (``_MARKS``); a
    paragraph nested in it (a text box's) is left out: it is a paragraph of its own."""
    out: list[str] = []
    stack = [iter(p)]
    while stack:
        for child in stack[-1]:
            tag = child.tag
            if tag == W + "t":
                out.append(child.text or "")
            elif tag == W + "tab":
                out.append("\t")
            elif tag == W + "br":
                kind = child.get(W + "type")
                out.append("\n" if kind in (None, "textWrapping") else _MARKS[PAGE] if kind in ("page", "column")
                           else "")
            elif tag == W + "cr":
                out.append(_MARKS[CR])
            elif tag == W + "noBreakHyphen":
                out.append(_MARKS[HYPHEN])
            elif tag != W + "p" and isinstance(tag, str):
                stack.append(iter(child))
                break
        else:
            stack.pop()
    return "".join(out)


def _main_part(zf: zipfile.ZipFile) -> str:
    """The main document part's name (the package's officeDocument relationship; ``word/document.xml`` else)."""
    from xml.etree import ElementTree as ET

    try:
        rels = ET.fromstring(zf.read("_rels/.rels"))
    except (KeyError, ET.ParseError):
        return "word/document.xml"
    for rel in rels.iter(RELS):
        if (rel.get("Type") or "").endswith(MAIN_TYPE) and rel.get("TargetMode") != "External":
            return posixpath.normpath((rel.get("Target") or "").lstrip("/")) or "word/document.xml"
    return "word/document.xml"


def _candidates(data: bytes) -> ET.Element | None:
    """Only the paragraphs of the main part holding a possible mark (``_MAYBE``), under its root element: parsing
    a 12 MB part whole took 1.3 s, longer than a third of LightRAG's own parse of it. None when the part is not
    written as Word writes it (the ``w`` prefix on its root, no paragraph inside another around a mark): then the
    caller parses it whole."""
    from xml.etree import ElementTree as ET

    head = re.search(rb"<w:document\b[^>]*>", data)
    if head is None:
        return None
    spans: dict[int, int] = {}
    for found in _MAYBE.finditer(data, head.end()):
        at = found.start()
        start = max(data.rfind(b"<w:p ", 0, at), data.rfind(b"<w:p>", 0, at))
        end = data.find(b"</w:p>", at)
        if start < 0 or end < 0:
            return None
        inner = data[start + 4:end]
        if b"<w:p " in inner or b"<w:p>" in inner or b"</w:p>" in data[start:at]:
            return None  # a text box's paragraph in or before the mark: parse it whole
        spans[start] = end + len(b"</w:p>")
    return ET.fromstring(head.group(0) + b"".join(data[s:e] for s, e in spans.items()) + b"</w:document>")


def glued(path: str) -> dict[str, int]:
    """How many paragraphs of the DOCX hold each kind of break (``KINDS``) with text right on both sides, which
    LightRAG's parser runs together; only the kinds some paragraph holds. Empty for a file with no readable main
    part or one declaring entities (LightRAG then reads it as it can). Raises ``MnoteKrError`` (``DocumentError``,
    ``OverBudgetError``) for a file that is no zip or a zip over the host's budget."""
    import zipfile
    import zlib
    from xml.etree import ElementTree as ET

    from mnote_kr.plugin_api import check_zip

    check_zip(path, "DOCX")
    try:
        with zipfile.ZipFile(path) as zf:
            name = _main_part(zf)
            if zf.getinfo(name).file_size > MAX_PART_BYTES:
                return {}
            data = zf.read(name)
    except (OSError, KeyError, zipfile.BadZipFile, ValueError, zlib.error, EOFError, RuntimeError,
            NotImplementedError):
        return {}
    if not _MAYBE.search(data) or b"<!ENTITY" in data:
        return {}
    try:
        root = _candidates(data)
        if root is None:  # not as Word writes it: the whole part
            root = ET.fromstring(data)
    except ET.ParseError:
        return {}
    counts = dict.fromkeys(KINDS, 0)
    for p in root.iter(W + "p"):
        for kind in {_KIND_OF[m.group(1)] for m in _GLUE.finditer(_line(p))}:
            counts[kind] += 1
    return {kind: n for kind, n in counts.items() if n}


def docx_text(ctx: ProviderContext, source: SourceFile) -> tuple[str, dict[str, int]] | None:
    """The text of a DOCX whose words LightRAG's parser runs together across a break, with what glues them
    (``glued``), or None: not a ``.docx``, nothing glued, or it cannot be read here (LightRAG then reads it)."""
    return own_text(ctx, source, SUFFIX, glued)



def note(held: dict[str, int]) -> str:
    """What ``status`` says of a DOCX indexed this way: which breaks LightRAG's parser runs words together across,
    in how many paragraphs."""
    which = listed([f"{kind} ({n} paragraph(s))" for kind, n in held.items()])
    return (f"indexed from the text mnote-kr reads in it, since LightRAG's parser runs the words on either side of "
            f"its {which} together; citations still point into the file")


def adds(held: dict[str, int]) -> str:
    """What reading a linked DOCX holding ``held`` (``glued``) as mnote-kr's text adds, as ``sync`` says it."""
    return f"the words on either side of its {listed(list(held))}, which LightRAG's parser runs together"
