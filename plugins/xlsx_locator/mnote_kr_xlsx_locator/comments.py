"""A workbook's cell comments, read as lines that name their sheet and cell.

A comment (Excel's "note") is what openpyxl loads onto its cell (``cell.comment``: author and text). A
threaded comment (a comment with replies, Excel 365) is kept twice in the file: as a thread in
``xl/threadedComments/`` (each comment and reply with its person, from ``xl/persons/``) and, for older
readers, as a note whose author is ``tc={id}`` and whose text is a fallback in the words of the Excel that
saved it ("[Threaded comment] Your version of Excel ... Comment: ... Reply: ..."). openpyxl 3.1 reads only
that note; the threads are read here from the zip (streamed, at most ``MAX_COMMENTS`` entries) and replace
it, a line per comment and reply; a thread whose part is missing or damaged keeps the note's text.

A line reads ``Comment on Sheet1!F7 (Jane Smith (JS)): Minimum number of saltwater ducks`` (``line``); a
reply says so after its author. A note's text starting with its author's name and a colon (Excel writes
that into a new note) is read without it. The lines are in sheet order, then by row and column, a thread's
comments in its order; past ``MAX_COMMENTS`` lines in a workbook, the rest are left out.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree as ET

#: Comment lines read from one workbook (each is a paragraph the locator keeps and ingest may embed).
MAX_COMMENTS = 10_000
PREFIX = "Comment on "
_THREADS = "xl/threadedComments/"
_PERSONS = "xl/persons/"
_TC = "tc="


@dataclass(frozen=True, slots=True)
class CellComment:
    """One comment (or a reply in a thread) on the cell at ``row``, ``column`` (1-based)."""

    row: int
    column: int
    author: str
    words: str
    reply: bool = False


def line(sheet: str, cell: str, comment: CellComment) -> str:
    """The comment as the workbook's text holds it: ``Comment on Sheet1!F7 (author): words``."""
    who = ", ".join(w for w in (comment.author, "reply" if comment.reply else "") if w)
    return f"{PREFIX}{sheet}!{cell}" + (f" ({who})" if who else "") + f": {comment.words}"


def _words(text: str) -> str:
    return " ".join(text.split())


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _ends(zf: zipfile.ZipFile, prefix: str) -> Iterator[ET.Element]:
    """The elements of the parts under ``prefix`` (in name order) as each ends, streamed."""
    for name in sorted(n for n in zf.namelist() if n.startswith(prefix) and n.endswith(".xml")):
        with zf.open(name) as fh:
            for _, elem in ET.iterparse(fh, events=("end",)):
                yield elem


def threads(path: str) -> dict[str, list[tuple[str, str]]]:
    """``{thread id: [(person, words), ...]}``: each thread's comment, then its replies in the file's
    order, at most ``MAX_COMMENTS`` entries; empty when the workbook has none or they cannot be read."""
    out: dict[str, list[tuple[str, str]]] = {}
    try:
        with zipfile.ZipFile(path) as zf:
            persons = {e.get("id") or "": e.get("displayName") or "" for e in _ends(zf, _PERSONS)
                       if _local(e.tag) == "person"}
            taken = 0
            for elem in _ends(zf, _THREADS):
                if _local(elem.tag) != "threadedComment":
                    continue
                text = next((t.text or "" for t in elem if _local(t.tag) == "text"), "")
                root = elem.get("parentId") or elem.get("id") or ""
                if _words(text) and root:
                    out.setdefault(root, []).append((_words(persons.get(elem.get("personId") or "", "")), _words(text)))
                    taken += 1
                elem.clear()
                if taken >= MAX_COMMENTS:
                    break
    except (OSError, zipfile.BadZipFile, ET.ParseError, zlib.error, EOFError, RuntimeError, ValueError,
            NotImplementedError):
        return {}  # a damaged part: the notes keep their own text
    return out


def sheet_comments(cells: list[Any], found: dict[str, list[tuple[str, str]]], room: int) -> list[CellComment]:
    """The comments on ``cells`` (openpyxl's, by row then column), at most ``room``: a thread's note as the
    thread's comments (``found``, from ``threads``), any other note as its text."""
    out: list[CellComment] = []
    for cell in cells if room > 0 else ():
        note = cell.comment
        if note is None:
            continue
        author = _words(note.author or "")
        thread = found.get(author[len(_TC):]) if author.startswith(_TC) else None
        if thread:
            out += [CellComment(cell.row, cell.column, who, words, reply=i > 0)
                    for i, (who, words) in enumerate(thread)]
        else:
            words = _words(note.text or "")
            if author and not author.startswith(_TC) and words.startswith(author + ":"):
                words = words[len(author) + 1:].strip()
            if words:
                out.append(CellComment(cell.row, cell.column, "" if author.startswith(_TC) else author, words))
        if len(out) >= room:
            return out[:room]
    return out
