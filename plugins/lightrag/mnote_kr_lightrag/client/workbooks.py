"""A workbook holding cell comments: indexed through the text mnote-kr reads in it.

LightRAG 1.5.7 parses a ``.xlsx`` with its legacy engine (``lightrag/parser/legacy/extractors.py``,
``_extract_xlsx``): openpyxl's workbook, loaded for values and again for formulas, every sheet as a
``Sheet: <title>`` line and a tab-separated line per row, each cell its cached value (else its formula).
A cell's comment is never read: not a note (openpyxl's ``cell.comment``), not a thread (Excel 365's
comments with replies, kept with a note for older readers). A question in a comment's words finds nothing,
or lands by its words on another cell or file.

Whether a workbook holds comments is read from its structure (``commented``: the comments parts its
sheets relate to, with the standard library), never from its text: a cell may well read "Comment on".
Only then is the host asked for the workbook's text as its locator plugin reads it
(``ProviderContext.extract_text``: a ``#`` line per sheet, a line per row, the values as LightRAG indexes
them, each comment a line ``Comment on Sheet1!F7 (author): words`` right after its cell's row); it goes
into LightRAG's input dir as a Markdown text wrapper in place of the link, exactly like a deck holding
words LightRAG's parser leaves out (``decks``): it maps back to the same registry entry, its ``kind`` is
``text_fallback`` and its note says how many cells hold a comment, and citations still land in the
workbook (a comment on its cell). A workbook without comments stays a plain link, read by LightRAG.

A workbook a sheet of which declares far more rows than it holds (``inflated``: its recorded used range, e.g.
docling's to row 1,048,496 in a 2 KB sheet) is sent the same way: LightRAG's extractor walks every declared
row (half a minute, a megabyte of empty lines), mnote-kr's reader only the cells (nc17b P17).

A macro-enabled workbook (``.xlsm``: the same package as an ``.xlsx``, plus macros) is always sent this
way, comments or not: LightRAG 1.5.7 takes no ``.xlsm`` by scan, upload or link, so its text goes under
the wrapper's ``.xlsm.md`` name while the registry and every citation keep the user's ``.xlsm``. Its
macros are never run or read (the XLSX plugin reads cells and comments with openpyxl, which leaves the
VBA part alone). When its text cannot be read here, ``workbook_text`` says why (``MnoteKrError``), since
no other reader would take the file.

A workbook that stays a link is read as LightRAG's extractor wrote it, but for its cell escapes
(``escape_cell``: a line break inside a cell as ``\\n``, a tab as ``\\t``, a backslash doubled), which the
provider undoes as a chunk comes in (``unescaped_cells``), so "temp.\\nMin" is not read as the word "nmin".
"""

from __future__ import annotations

import posixpath
import re
from typing import IO

from mnote_kr.plugin_api import MnoteKrError, ProviderContext, SourceFile

from . import naming

SUFFIXES = (".xlsx", ".xlsm")
_SHEET_RELS = re.compile(r"xl/worksheets/_rels/[^/]+\.xml\.rels")
_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
_COMMENTS_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments"


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _comments_with_text(fh: IO[bytes]) -> int:
    """The ``<comment>`` elements of a comments part holding text, counted while streaming it."""
    from xml.etree import ElementTree as ET

    count = 0
    for _, elem in ET.iterparse(fh, events=("end",)):
        if _local(elem.tag) == "comment":
            count += any((t.text or "").strip() for t in elem.iter() if _local(t.tag) == "t")
            elem.clear()
    return count


def commented(path: str) -> tuple[int, int] | None:
    """(cells holding a comment, sheets holding them) of the workbook, from the comments parts its sheets
    relate to, or None when it holds none. Raises ``MnoteKrError`` (``DocumentError``) for a file that is
    no readable zip or is over the host's budget; None for a damaged part (LightRAG reads it as it can)."""
    import zipfile
    import zlib
    from xml.etree import ElementTree as ET

    from mnote_kr.plugin_api import check_zip

    check_zip(path, "XLSX")
    cells = sheets = 0
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            for rels in sorted(n for n in names if _SHEET_RELS.fullmatch(n)):
                parts = [posixpath.normpath(posixpath.join("xl/worksheets", rel.get("Target") or ""))
                         for rel in ET.fromstring(zf.read(rels)).iter(_RELS)
                         if rel.get("Type") == _COMMENTS_TYPE and rel.get("TargetMode") != "External"]
                here = 0
                for part in (p.lstrip("/") for p in parts):
                    if part in names:
                        with zf.open(part) as fh:
                            here += _comments_with_text(fh)
                cells, sheets = cells + here, sheets + bool(here)
    except (OSError, zipfile.BadZipFile, ET.ParseError, ValueError, zlib.error, EOFError, RuntimeError,
            NotImplementedError):
        return None
    return (cells, sheets) if cells else None


INFLATED_ROWS = 100_000
_DIMENSION = re.compile(rb'<(?:\w+:)?dimension\s+ref="[A-Z]*\d*:?[A-Z]*(\d+)"')


def inflated(path: str) -> int | None:
    """The rows a sheet of the workbook declares (its ``<dimension>``, the recorded used range) when they are
    at least ``INFLATED_ROWS`` and more than its part has bytes (no sheet holds a row in under a byte), else
    None. LightRAG 1.5.7's extractor walks every declared row: docling's inflated workbook (Sheet1 declared to
    row 1,048,496 in 2 KB) took it half a minute, a megabyte of empty lines. Read from each sheet part's
    first bytes, where the schema puts ``<dimension>``; a damaged file is None (LightRAG reads it as it can)."""
    import zipfile
    import zlib

    most = None
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if not re.fullmatch(r"xl/worksheets/[^/]+\.xml", info.filename):
                    continue
                with zf.open(info) as fh:
                    found = _DIMENSION.search(fh.read(4096))
                rows = int(found.group(1)) if found else 0
                if rows >= INFLATED_ROWS and info.file_size < rows and rows > (most or 0):
                    most = rows
    except (OSError, zipfile.BadZipFile, ValueError, zlib.error, EOFError, RuntimeError, NotImplementedError):
        return None
    return most


def workbook_text(ctx: ProviderContext, source: SourceFile) -> tuple[str, tuple[int, int] | None, int | None] | None:
    """The text of a workbook holding cell comments, of one declaring far more rows than it holds
    (``inflated``), or of any macro-enabled one (``TEXT_ONLY_SUFFIXES``), with how many comments (``commented``;
    None: none) and the rows it declares (None: not inflated), or None: not a workbook, none of these, or it
    cannot be read here (LightRAG then reads it as it can and says so). A macro-enabled workbook whose text
    cannot be read raises ``MnoteKrError`` with the reason: LightRAG would not take the file itself."""
    suffix = naming.safe_suffix(source.rel_path)
    if suffix not in SUFFIXES:
        return None
    whole = suffix in naming.TEXT_ONLY_SUFFIXES
    try:
        held = commented(source.path)
        rows = inflated(source.path)
        text = ctx.extract_text(source.path) if held or rows or whole else None
    except MnoteKrError as exc:
        if whole:
            raise MnoteKrError(f"{_NOT_TAKEN.format(suffix)}, and mnote-kr cannot read this workbook: {exc.message}",
                               hint=exc.hint) from exc
        return None
    if text and text.strip():
        return (text, held, rows) if held or rows or whole else None
    if whole:
        raise MnoteKrError(f"{_NOT_TAKEN.format(suffix)}, and mnote-kr read no text in this workbook",
                           hint="is the XLSX locator plugin loaded? 'mnote-kr plugins' lists it")
    return None


_NOT_TAKEN = "LightRAG does not take '{}' files"


def note(held: tuple[int, int] | None, suffix: str = ".xlsx", rows: int | None = None) -> str:
    """What ``status`` says of a workbook indexed this way: its comments, which LightRAG's parser leaves out,
    the rows it declares (``inflated``), which that parser would walk, or its type, which LightRAG does not
    take (its macros never run nor read)."""
    comments = f"cell comments ({held[0]} cell(s) on {held[1]} sheet(s))" if held else ""
    if suffix in naming.TEXT_ONLY_SUFFIXES:
        why = f"{_NOT_TAKEN.format(suffix)} (its macros are never run or read)" + (
            f"; its {comments} are in it too" if held else "")
    elif held:
        why = f"LightRAG's parser leaves out {comments}"
    else:
        why = f"the workbook declares {rows or 0:,} rows that LightRAG's parser would walk one by one"
    return f"indexed from the text mnote-kr reads in it, since {why}; citations still point into the file"


#: LightRAG 1.5.7's ``_extract_xlsx`` escapes each cell (``escape_cell``): ``\`` → ``\\`` first, then a tab →
#: ``\t`` and a line break (``\r\n``, ``\r``, ``\n``) → ``\n``. So every escape is a backslash and one of
#: ``\ t n``, read left to right (``\\n`` is a backslash, then the letter n); a backslash before anything
#: else is a chunk's cut through an escape and stays.
_CELL_ESCAPE = re.compile(r"\\([\\tn])")
_UNESCAPED = {"\\": "\\", "t": "\t", "n": "\n"}


def linked_workbook(file_path: str) -> bool:
    """Whether LightRAG's file name is a workbook sent linked, read by its own XLSX extractor (not the
    ``.xlsx.md`` text mnote-kr sends in place of one)."""
    return posixpath.splitext(file_path.replace("\\", "/"))[1].lower() == ".xlsx"


def unescaped_cells(text: str) -> str:
    """A chunk of a linked workbook with LightRAG's cell escapes undone: the cells' own line breaks, tabs and
    backslashes, so its words (``temp.`` and ``Min``, not ``nmin``), evidence and quotes are the cells'."""
    return _CELL_ESCAPE.sub(lambda m: _UNESCAPED[m.group(1)], text) if "\\" in text else text
