"""A presentation holding words LightRAG's parser leaves out: indexed through the text mnote-kr reads in it.

LightRAG 1.5.7 parses a ``.pptx`` with its legacy engine (``lightrag/parser/legacy/extractors.py``,
``_extract_pptx``; the native engine takes only ``docx``/``md``): for each slide, for each shape of ``slide.shapes``
with a ``text`` attribute, ``shape.text``. In python-pptx only an autoshape, a text box or a text placeholder
(``p:sp``) has one, and ``slide.shapes`` holds the slide's top-level shapes only. So five kinds of words never reach
its index: speaker notes (on the notes slide), table cells (a ``p:graphicFrame``), the text of shapes inside a group
(a ``p:grpSp``, not entered), chart data (a ``p:graphicFrame``'s chart part) and review comments (a slide's
``comments`` part, legacy or modern). A question about them finds nothing, or lands by its words on another slide or
file.

Whether a deck holds any of them is read from its structure (``left_out``: the parts of the zip, with the standard
library), never from its text: a slide's own text box may well start "Notes: ". Only then is the host asked for the
deck's text as its locator plugin reads it (``ProviderContext.extract_text``: slides in order, each title a ``#``
line, speaker notes, table rows, chart lines and groups' text in their places); it goes into LightRAG's input dir as
a Markdown text wrapper in place of the link, exactly like a PDF with scanned pages (``recognized``): it maps back
to the same registry entry, its ``kind`` is ``text_fallback`` and its note says which of them the deck has, and
citations still land in the deck (a note on its slide's notes, a table row, a chart line or a shape's words on that
shape). A deck whose words are all its slides' top-level text stays a plain link.

The parser also runs words together: a line break inside a paragraph (``a:br``, Shift+Enter, common in titles) is a
vertical tab in python-pptx's ``shape.text``, and LightRAG's text sanitiser (``sanitize_text_for_encoding``) drops
it, so "X-Library" and "The" on two lines of a title reach its index as "X-LibraryThe", and neither word is found. A
deck whose top-level text shape holds such a break with text right on both sides (``GLUED``) is sent as its text
too, where the locator plugin reads each line apart; a break next to a space or at a paragraph's end glues nothing.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from mnote_kr.plugin_api import ProviderContext, SourceFile

from .owntext import listed, own_text

if TYPE_CHECKING:  # imported when a deck is read: ``status`` loads this module, and no zip reader
    import zipfile
    from xml.etree import ElementTree as ET

SUFFIX = ".pptx"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
#: What LightRAG's parser leaves out, as the note names it, in the note's order.
NOTES, TABLES, GROUPS, CHARTS = "speaker notes", "table cells", "grouped shapes' text", "chart data"
COMMENTS = "review comments"
LEFT_OUT = (NOTES, TABLES, GROUPS, CHARTS, COMMENTS)
#: A line break between words inside a top-level text shape: LightRAG's parser runs its two lines together.
GLUED = "line breaks inside a text box"
_GLUE = re.compile(r"\S\v+\S")


def _has_text(element: ET.Element) -> bool:
    return any((t.text or "").strip() for t in element.iter(A + "t"))


class _Deck:
    """The zip of a deck, its parts read on demand (``None`` for a part that is missing or no XML)."""

    def __init__(self, zf: zipfile.ZipFile) -> None:
        self.zf = zf
        self.names = set(zf.namelist())

    def xml(self, name: str) -> ET.Element | None:
        from xml.etree import ElementTree as ET

        if name not in self.names:
            return None
        try:
            return ET.fromstring(self.zf.read(name))
        except ET.ParseError:
            return None

    def related(self, part: str) -> dict[str, tuple[str, str]]:
        """``{rId: (type's last word, part name)}`` of ``part``'s internal relationships."""
        folder, name = posixpath.split(part)
        rels = self.xml(posixpath.join(folder, "_rels", name + ".rels"))
        out = {}
        for rel in rels.iter(RELS) if rels is not None else ():
            target = rel.get("Target") or ""
            if rel.get("TargetMode") == "External" or not target:
                continue
            where = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
            out[rel.get("Id") or ""] = ((rel.get("Type") or "").rsplit("/", 1)[-1], where)
        return out

    def slides(self) -> list[str]:
        """The slides' part names, in the presentation's order."""
        presentation = "ppt/presentation.xml"
        root, related = self.xml(presentation), self.related(presentation)
        ids = root.find(P + "sldIdLst") if root is not None else None
        return [related[s.get(R_ID) or ""][1] for s in (ids if ids is not None else ())
                if related.get(s.get(R_ID) or "", ("",))[0] == "slide"]

    def holds(self, slide: str) -> set[str]:
        """What of ``LEFT_OUT`` the slide holds with words: notes with text on its notes slide, a table with
        text, a group with a text shape, a chart with cached values, a comments part with words."""
        root = self.xml(slide)
        if root is None:
            return set()
        related = self.related(slide)
        out: set[str] = set()
        notes = [self.xml(part) for kind, part in related.values() if kind == "notesSlide"]
        if any(_notes_text(n) for n in notes if n is not None):
            out.add(NOTES)
        if any(_has_text(tbl) for tbl in root.iter(A + "tbl")):
            out.add(TABLES)
        if any(_has_text(sp) for group in root.iter(P + "grpSp") for sp in group.iter(P + "sp")):
            out.add(GROUPS)
        for chart in root.iter(C + "chart"):
            kind, part = related.get(chart.get(R_ID) or "", ("", ""))
            space = self.xml(part) if kind == "chart" else None
            if space is not None and _chart_values(space):
                out.add(CHARTS)
                break
        comments = [self.xml(part) for kind, part in related.values() if kind == "comments"]
        if any(_comment_words(c) for c in comments if c is not None):
            out.add(COMMENTS)
        tree = root.find(f"{P}cSld/{P}spTree")
        if tree is not None and any(_glued(sp) for sp in tree.findall(P + "sp")):
            out.add(GLUED)
        return out


def _glued(sp: ET.Element) -> bool:
    """A paragraph of the text shape holds a line break with text right before and after it, as LightRAG's
    parser reads it (python-pptx: a run's or field's text as is, each ``a:br`` a vertical tab)."""
    for para in sp.iter(A + "p"):
        line = "".join("\v" if part.tag == A + "br" else "".join(t.text or "" for t in part.iter(A + "t"))
                       for part in para)
        if _GLUE.search(line):
            return True
    return False


def _notes_text(notes: ET.Element) -> bool:
    """The notes slide's notes placeholder (``p:ph type="body"``) holds text."""
    for sp in notes.iter(P + "sp"):
        ph = sp.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
        if ph is not None and ph.get("type") == "body" and _has_text(sp):
            return True
    return False


def _comment_words(part: ET.Element) -> bool:
    """A comment of the part has words: a legacy ``p:text``, a modern comment's or reply's ``a:t``."""
    return any((e.text or "").strip() for e in part.iter() if e.tag in (P + "text", A + "t"))


def _chart_values(space: ET.Element) -> bool:
    """A series of the chart has a cached value (what the locator plugin reads of a chart)."""
    for ser in space.iter(C + "ser"):
        for holder in (ser.find(C + "val"), ser.find(C + "yVal")):
            if holder is not None and any((v.text or "").strip() for v in holder.iter(C + "v")):
                return True
    return False


def left_out(path: str) -> dict[str, int]:
    """What of the deck LightRAG's parser leaves out (``LEFT_OUT``'s names, in its order) or runs together
    (``GLUED``, last): how many slides hold each; only those some slide holds. Raises ``MnoteKrError``
    (``DocumentError``) for a file that is no readable zip or is over the host's budget."""
    import zipfile
    import zlib

    from mnote_kr.plugin_api import check_zip

    check_zip(path, "PPTX")
    counts = dict.fromkeys((*LEFT_OUT, GLUED), 0)
    try:
        with zipfile.ZipFile(path) as zf:
            deck = _Deck(zf)
            for slide in deck.slides():
                for what in deck.holds(slide):
                    counts[what] += 1
    except (OSError, zipfile.BadZipFile, ValueError, zlib.error, EOFError, RuntimeError, NotImplementedError):
        return {}  # a damaged part (a bad deflate stream, an unsupported method): LightRAG reads it as it can
    return {what: n for what, n in counts.items() if n}


def deck_text(ctx: ProviderContext, source: SourceFile) -> tuple[str, dict[str, int]] | None:
    """The text of a deck holding words LightRAG's parser leaves out or runs together, with what it holds
    (``left_out``), or None: not a ``.pptx``, none of those, or it cannot be read here (LightRAG then reads it
    as it can and says so)."""
    return own_text(ctx, source, SUFFIX, left_out)



def _why(held: dict[str, int]) -> list[str]:
    """Why LightRAG's parser misses words of the deck, in a user's words: what it leaves out, its glued lines."""
    left = [f"{what} ({n} slide(s))" for what, n in held.items() if what != GLUED]
    out = [f"LightRAG's parser leaves out {listed(left or ['part of its text'])}"] if left or GLUED not in held else []
    if GLUED in held:
        out.append(f"the deck has {GLUED} ({held[GLUED]} slide(s)), whose lines LightRAG's parser runs together")
    return out


def note(held: dict[str, int]) -> str:
    """What ``status`` says of a deck indexed this way: which words LightRAG's parser leaves out, on how
    many slides, and where it runs lines together."""
    return (f"indexed from the text mnote-kr reads in it, since {', and '.join(_why(held))}; "
            "citations still point into the file")


def adds(held: dict[str, int]) -> str:
    """What reading a linked deck holding ``held`` (``left_out``) as mnote-kr's text adds, as ``sync`` says it."""
    left = [what for what in held if what != GLUED]
    out = [f"what LightRAG's parser leaves out of it ({', '.join(left)})"] if left else []
    if GLUED in held:
        out.append(f"the words on either side of its {GLUED}, which LightRAG's parser runs together")
    return " and ".join(out)
