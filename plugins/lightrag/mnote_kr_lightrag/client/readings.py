"""How a file was read for LightRAG's index: a name and a version, recorded with the file's registry entry.

What LightRAG indexes of a file depends on how it is sent, decided in ``provider._link_and_scan``: the file
itself linked, read by LightRAG's own parser (a DOCX with the managed engine's notes and comments read at their marks,
``engine/docxnotes.py``, when that engine says so), or the text mnote-kr reads in it (``recognized.own_text``:
a PDF's scanned pages by OCR, a deck with what LightRAG's parser leaves out, a commented or macro-enabled
workbook; ``fallback``: a document LightRAG failed on), or an image's wrapper. The send reports that as the
entry's ``reading`` (``"lightrag+notes:1"``). A reader that changes what reaches the index bumps its version
here (``VERSIONS``), and :func:`check` tells the host which indexed files were read by an older one:
``sync`` re-reads those (docs/sync.md, "Files indexed by an older reading").

A file indexed before readings were recorded (no ``reading``) is checked by what cheaply tells how it was
read: its entry's kind, its wrapper's first line (the mark says which reader wrote it), and for a linked
DOCX, deck or workbook its structure (notes and comments parts, slides, comments parts). So is a DOCX read by
the notes reading's first version, before review comments were read: only one holding a comment is read again.
A linked PDF is not checked (its pages would have to be read to find those only OCR reads), nor an image: they
are ``unknown``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from mnote_kr.plugin_api import MnoteKrError, ProviderContext, ProviderError, ReadingCheck, SourceEntry

from . import links, naming
from .http import LightRagClient

if TYPE_CHECKING:
    from .recognized import OwnText


class LightRagProvider(Protocol):
    """What of ``provider.LightRagProvider`` this module uses (that module imports this one)."""

    ctx: ProviderContext
    client: LightRagClient

    def input_dir(self) -> Path | None: ...

#: LightRAG's own parser over the linked file.
LIGHTRAG = "lightrag"
#: A DOCX read by LightRAG's parser with its footnotes and endnotes at their marks (the managed engine); since
#: its second version with its review comments at their marks too.
LIGHTRAG_NOTES = "lightrag+notes"
IMAGE, OCR, DECK, WORKBOOK, XLSM, FALLBACK = "image", "ocr", "deck", "workbook", "xlsm", "fallback"
#: A file of a type LightRAG does not take, sent as the text the plugin reading the type gives.
PLUGIN = "plugin"
#: Each reading's current version. Bump one when its reader changes what LightRAG indexes of a file, and
#: say in ``ADDS`` what the new version adds: the files it read are then re-read by ``sync``.
VERSIONS = {LIGHTRAG: 4, LIGHTRAG_NOTES: 3, IMAGE: 2, OCR: 2, DECK: 4, WORKBOOK: 2, XLSM: 2, FALLBACK: 4, PLUGIN: 1}
_ROWS = "a scanned table's cells on one baseline read as one row"
_LABELS = "a data sheet's label read in one row with its value across empty columns"
#: The types a version of a reading changed, when not every type: a file of another type read by an earlier
#: version reads the same now. The plain reading's second version sends a workbook declaring far more rows than it
#: holds as mnote-kr's text (``workbooks.inflated``), its third a deck whose text box holds a line break between
#: words (``decks.GLUED``), its fourth a DOCX whose words LightRAG's parser runs together across a break
#: (``docxbreaks.glued``); each is checked by the send's own test (``_PLAIN_TO_CHECK``). The notes reading's third
#: version is that DOCX test too (``_before_breaks``). The fallback's second
#: version is the DOCX reader's text of now (a document LightRAG fails on is sent as it), its third that text with
#: the review comments at their marks, its fourth with a form's symbol characters (``w:sym``: ☐ ☑ from Wingdings)
#: read as the characters they draw; no other type's changed.
CHANGED = {(LIGHTRAG, 2): (".xlsx",), (LIGHTRAG, 3): (".pptx",), (LIGHTRAG, 4): (".docx",), (FALLBACK, 2): (".docx",),
           (FALLBACK, 3): (".docx",), (FALLBACK, 4): (".docx",), (LIGHTRAG_NOTES, 3): (".docx",)}
#: What a reading's current version adds over its earlier ones, as ``status`` and ``sync`` say it.
ADDS = {DECK: ("its review comments, tables, grouped shapes' text and chart data, besides its speaker notes; a table "
              "row labelled by a number read under that column's header"),
        LIGHTRAG_NOTES: "its review comments",
        OCR: f"{_ROWS}, and pages whose text layer is mostly mojibake read by OCR", IMAGE: _ROWS,
        WORKBOOK: _LABELS, XLSM: _LABELS,
        FALLBACK: ("the DOCX reader's text of now: a form's symbol characters (checkboxes inserted from Wingdings) "
                   "as the characters they draw, its review comments at their marks, an equation's powers and "
                   "indices as c^2 and a_0, a heading-styled table cell and a contents line ending 'N/A' read as text, "
                   "not as headings"),
        LIGHTRAG: ("a workbook's cells, a deck's or a DOCX's text as mnote-kr reads them, when LightRAG's parser "
                   "misreads them")}
#: The reading a text wrapper's first line says wrote it (``links``' marks; the notes-only deck mark is
#: the deck reading's first version).
MARKS = {links.RECOGNIZED_WRAPPER_MARK: f"{OCR}:1", links.DECK_WRAPPER_MARK: f"{DECK}:2",
         links.BREAKS_WRAPPER_MARK: f"{FALLBACK}:3",  # the DOCX reader's text, as a fallback's
         links.NOTES_WRAPPER_MARK: f"{DECK}:1", links.WORKBOOK_WRAPPER_MARK: f"{WORKBOOK}:1",
         links.MACRO_WORKBOOK_WRAPPER_MARK: f"{XLSM}:1", links.TEXT_WRAPPER_MARK: f"{FALLBACK}:1",
         links.PLUGIN_TEXT_WRAPPER_MARK: f"{PLUGIN}:1"}
BEFORE = "indexed before mnote-kr recorded how it reads a file"
#: Why a file indexed before is not checked (``unknown``), by suffix; any image's is ``_IMAGE_UNKNOWN``.
_PDF_UNKNOWN = (f"{BEFORE}; pages without a text layer are read by OCR only when it is sent again, and "
                "finding them would read every page")
_IMAGE_UNKNOWN = f"{BEFORE}; the text in an image is read by OCR only when it is sent again"
#: What the notes reading reads of a DOCX (``engine/docxnotes.held``), as ``status`` and ``sync`` say it.
_HELD = {"notes": "its footnotes and endnotes", "comments": "its review comments"}
#: Why ``status`` counts a DOCX of the notes reading's first version: only ``sync`` reads its comments part.
_NOTES_TO_CHECK = ("read before review comments were indexed: 'mnote-kr sync' checks whether it holds any "
                   "(its comments part only)")
_NOTES_SEEN: dict[tuple[str, int], tuple[float, bool, bool]] = {}
_NOTES_TTL_S = 60.0


def _suffix(rel_path: str) -> str:
    """The lowercased extension of ``rel_path`` (compared here with known ones only): a string slice, since
    ``status`` asks this of every indexed file (``naming.safe_suffix``'s path parsing made the check 8x slower)."""
    name = rel_path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def reader_missing(ctx: ProviderContext, entries: list[SourceEntry]) -> dict[str, str]:
    """The files indexed from the text a plugin read (``PLUGIN``) whose type no loaded plugin reads now
    (``ctx.text_suffixes``, asked only when there is one): path -> why, and what brings the reader back. nc29a's
    birds.psv was cited "whole file" with the plugin gone, and nothing said why."""
    mine = [e for e in entries if e.reading is not None and split(e.reading)[0] == PLUGIN]
    if not mine:
        return {}
    read = ctx.text_suffixes()
    return {e.source_root_relative_path: (
        f"indexed from the text a plugin read in it; no plugin installed now reads '{suffix}' files, so it is cited "
        "as the whole file and an edit cannot be indexed; 'mnote-kr plugins' lists those loaded")
        for e in mine if (suffix := _suffix(e.source_root_relative_path)) not in read}


def current(how: str) -> str:
    """The reading ``how`` at its current version (``"deck:2"``)."""
    return f"{how}:{VERSIONS[how]}"


def split(reading: str) -> tuple[str, int]:
    """``"deck:1"`` -> ``("deck", 1)``; a reading not of this form is version 0 of its name."""
    how, _, version = reading.rpartition(":")
    return (how, int(version)) if how and version.isdigit() else (reading, 0)


def of_send(rel_path: str, is_image: bool, own: OwnText | None, notes: bool, comments: bool = True) -> str:
    """The reading of a file sent now: an image's wrapper, the text mnote-kr sends in its place (by the
    wrapper's mark), or the file linked (a DOCX with its notes when the engine reads them, ``notes``, and its
    comments unless an engine started before they were read says it does not, ``comments``)."""
    if is_image:
        return current(IMAGE)
    if own is not None:  # the reader the mark names, at its version now (``MARKS``: what an old wrapper's says)
        return current(split(MARKS[own.mark])[0]) if own.mark in MARKS else current(FALLBACK)
    if notes and naming.safe_suffix(rel_path) == ".docx":
        return current(LIGHTRAG_NOTES) if comments else f"{LIGHTRAG_NOTES}:1"
    return current(LIGHTRAG)


def for_send(prov: LightRagProvider, rel_path: str, is_image: bool, own: OwnText | None) -> str:
    """:func:`of_send` for a file this provider sends now (the server asked whether it reads DOCX notes
    only for a linked DOCX)."""
    linked_docx = not is_image and own is None and naming.safe_suffix(rel_path) == ".docx"
    notes = linked_docx and engine_reads_notes(prov)
    return of_send(rel_path, is_image, own, notes, notes and engine_reads_comments(prov))


def asks_server(entries: list[SourceEntry]) -> bool:
    """Whether a report (``check`` without ``look``) depends on the server's answer: only a DOCX indexed
    by LightRAG's plain reading, by the notes reading's first version, or before readings were recorded, is
    older when the server reads notes. ``status`` asks the server nothing more otherwise
    (``tests/test_cli_fast.py``)."""
    return any(_suffix(e.source_root_relative_path) == ".docx"
               and (e.reading is None or split(e.reading)[0] == LIGHTRAG
                    or split(e.reading) < (LIGHTRAG_NOTES, VERSIONS[LIGHTRAG_NOTES])) for e in entries)


def engine_reads_notes(prov: LightRagProvider) -> bool:
    """Whether the server reads a DOCX's notes into LightRAG's parse: the managed engine's guard says so
    (``engine/guard.py``, ``READINGS_PATH``); any other server (which answers 404) does not. Asked once a
    minute per server; an engine that cannot answer now counts as not reading them (the file is then
    recorded with LightRAG's plain reading, and re-read once the engine says it reads notes)."""
    return _engine_readings(prov)[0]


def engine_reads_comments(prov: LightRagProvider) -> bool:
    """Whether the server reads a DOCX's review comments with its notes (an engine started before they were
    read says only that it reads notes): asked with :func:`engine_reads_notes`."""
    return _engine_readings(prov)[1]


def _engine_readings(prov: LightRagProvider) -> tuple[bool, bool]:
    key = (prov.client.url, id(prov.ctx.transport))
    seen = _NOTES_SEEN.get(key)
    if seen is not None and time.monotonic() - seen[0] < _NOTES_TTL_S:
        return seen[1], seen[2]
    from ..engine.guard import READINGS_PATH

    try:
        body = prov.client.request("GET", READINGS_PATH)
    except ProviderError as exc:
        if getattr(exc, "status_code", None) != 404:
            return False, False  # not cached: asked again by the next call
        body = {}
    reads = isinstance(body, dict) and body.get("docxNotes") is True
    comments = reads and isinstance(body, dict) and body.get("docxComments") is True
    _NOTES_SEEN[key] = (time.monotonic(), reads, comments)
    return reads, comments


def _changed(how: str, version: int, suffix: str) -> bool:
    """Whether a version of ``how`` after ``version`` changed what it reads of a file of ``suffix`` (``CHANGED``)."""
    return any(suffix in CHANGED.get((how, v), (suffix,)) for v in range(version + 1, VERSIONS[how] + 1))


def _older(entry: SourceEntry, notes: bool, comments: bool) -> tuple[str, str] | None:
    """(the current reading, what it adds) when the entry's recorded reading is older; else None."""
    how, version = split(entry.reading or "")
    suffix = _suffix(entry.source_root_relative_path)
    if how == LIGHTRAG and notes and suffix == ".docx":
        return _notes_now(comments), _HELD["notes"] + (f" and {_HELD['comments']}" if comments else "")
    if how == LIGHTRAG_NOTES:  # what the server reads decides: none of it (not notes) reads any differently
        return (current(how), ADDS[how]) if notes and comments and version < VERSIONS[how] else None
    if how in VERSIONS and version < VERSIONS[how] and _changed(how, version, suffix):
        return current(how), ADDS.get(how, f"what its reader reads since version {VERSIONS[how]}")
    return None


#: Why ``status`` counts a workbook or deck linked by an earlier plain reading: only ``sync`` reads its structure.
_PLAIN_TO_CHECK = {
    ".xlsx": ("linked before a workbook declaring far more rows than it holds was sent as mnote-kr's text: "
              "'mnote-kr sync' checks the rows it declares"),
    ".pptx": ("linked before a deck with line breaks inside a text box was sent as mnote-kr's text: "
              "'mnote-kr sync' checks its slides")}


def _inflated(path: str) -> str | None:
    """What a linked workbook's reading now adds when it declares far more rows than it holds: the test the send
    makes (``workbooks.inflated``, each sheet's first bytes), else None (read the same now)."""
    from .workbooks import inflated

    rows = inflated(path)
    if rows is None:
        return None
    return f"its cells as mnote-kr reads them, since it declares {rows:,} rows LightRAG's parser walks"


def _wrapper_mark(entry: SourceEntry, input_dir: Path | None) -> str | None:
    """The reading the first line of the entry's text wrapper names (None: not found, or no mark)."""
    name = entry.light_rag_file_path
    places = [Path(entry.wrapper_path)] if entry.wrapper_path else []
    if input_dir is not None and name:
        places += [input_dir / name, input_dir / links.PARSED_DIR / name]
    for place in places:
        try:
            with place.open("rb") as fh:
                head = fh.read(512).decode("utf-8", "replace")
        except OSError:
            continue
        for mark, reading in MARKS.items():
            if head.startswith(mark):
                return reading
    return None


def _deck_reads_same(path: str, version: int) -> bool:
    """Whether the deck read by the deck reading's ``version`` (2 or 3) reads the same now, from its structure: the
    third version added review comments, the fourth a table row's number label under its header, so a deck holding
    neither table nor (before the third) comment does. False for a deck no check can read."""
    from .decks import COMMENTS, TABLES, left_out

    try:
        held = left_out(path)
    except MnoteKrError:
        return False
    return TABLES not in held and (version >= 3 or COMMENTS not in held)


def _notes_now(comments: bool) -> str:
    """The notes reading the server reads by: its first version for an engine that reads no comments."""
    return current(LIGHTRAG_NOTES) if comments else f"{LIGHTRAG_NOTES}:1"


def _docx_comments(path: str) -> bool:
    """Whether the DOCX holds a review comment with text (its comments part only)."""
    from ..engine.docxnotes import COMMENTS, held

    return COMMENTS in held(path)


#: A symbol character's element in a DOCX's main part (``w:sym``, any prefix).
_SYM_TAG = re.compile(rb"<(?:\w+:)?sym[\s>/]")


def _docx_syms(path: str) -> bool:
    """Whether the DOCX's main part holds a symbol character (``w:sym``), streamed, nothing kept; False for a file
    no check can read (its reading is then left as it was)."""
    import zipfile
    import zlib

    from mnote_kr.plugin_api import check_zip, count_tags

    from .docxbreaks import _main_part

    try:
        check_zip(path, "DOCX")
        with zipfile.ZipFile(path) as zf, zf.open(_main_part(zf)) as fh:
            return count_tags(fh, _SYM_TAG, 0) > 0
    except (MnoteKrError, OSError, KeyError, zipfile.BadZipFile, zlib.error, ValueError, EOFError, RuntimeError,
            NotImplementedError):
        return False


def _fallback_reads_same(path: str, since: int) -> bool:
    """Whether a DOCX the fallback's version ``since`` (2 or 3) read reads the same now: no symbol character (the
    fourth version's) and, since the second, no review comment (the third's)."""
    return not _docx_syms(path) and (since >= 3 or not _docx_comments(path))


def _probe(path: str, suffix: str, notes: bool, comments: bool = True, since: int = 0) -> str | None:
    """What a linked file's reading now adds, from its structure (None: the same as LightRAG's plain one, or for
    a DOCX the notes reading's version ``since``, which read its notes)."""
    if suffix == ".docx":
        from ..engine.docxnotes import COMMENTS, NOTES, held

        found = held(path) if notes else frozenset()
        wanted = (COMMENTS,) if since else (NOTES, COMMENTS)  # notes read since the first version
        adds = [_HELD[k] for k in wanted if k in found and (comments or k == NOTES)]
        return " and ".join(adds) or None
    try:
        if suffix == ".pptx":
            from .decks import adds, left_out

            held = left_out(path)
            return adds(held) if held else None
        if suffix == ".xlsx":
            from .workbooks import commented

            return "its cell comments, which LightRAG's parser leaves out" if commented(path) else _inflated(path)
    except MnoteKrError:  # a file no check can read (not a zip, over a budget) is read as before: LightRAG's
        return None
    return None


#: Why ``status`` counts a DOCX linked before one whose words LightRAG's parser runs together across a break was sent
#: as mnote-kr's text (``docxbreaks``): only ``sync`` reads its paragraphs.
_BREAKS_TO_CHECK = ("linked before a DOCX whose words LightRAG's parser runs together across a page break, a "
                    "carriage return or a non-breaking hyphen was sent as mnote-kr's text: 'mnote-kr sync' checks "
                    "its paragraphs")


def _before_breaks(entry: SourceEntry, suffix: str) -> bool:
    """Whether the entry is a DOCX linked before one whose words LightRAG's parser runs together across a break was
    sent as mnote-kr's text: by the plain reading before its fourth version, the notes reading before its third,
    or before readings were recorded."""
    if suffix != ".docx":
        return False
    if entry.reading is None:
        return entry.kind == "document"
    how, version = split(entry.reading)
    return (how, version) < (LIGHTRAG, 4) if how == LIGHTRAG else how == LIGHTRAG_NOTES and version < 3


def _past_breaks(entry: SourceEntry, notes: bool, comments: bool) -> tuple[SourceEntry, str | None]:
    """A DOCX of ``_before_breaks`` whose breaks glue no words, as its reading's versions since read it: the
    entry with its reading moved past the breaks' versions (the plain reading's fourth, the notes reading's third
    from its second), and the reading to record when nothing else about it changed (None: not recorded here)."""
    import msgspec

    how, version = split(entry.reading or "")
    if how == LIGHTRAG:
        return msgspec.structs.replace(entry, reading=current(LIGHTRAG)), current(LIGHTRAG)
    if how == LIGHTRAG_NOTES and version == 2:
        return msgspec.structs.replace(entry, reading=current(LIGHTRAG_NOTES)), current(LIGHTRAG_NOTES)
    if how == LIGHTRAG_NOTES:  # the first: its comments are the notes reading's question
        return entry, _notes_now(comments) if notes else current(LIGHTRAG)
    return entry, None  # indexed before readings: the checks below decide


def _breaks(path: str) -> dict[str, int]:
    from .docxbreaks import glued

    try:
        return glued(path)
    except MnoteKrError:  # a file no check can read (over a budget) is read as before: LightRAG's
        return {}


def check(prov: LightRagProvider | None, entries: list[SourceEntry], look: bool,
          notes: bool, comments: bool | None = None) -> ReadingCheck:
    """``check_readings``: see the hookspec. ``notes``: whether the server reads DOCX notes now; ``comments``:
    their review comments too (by default when it reads notes)."""
    comments = notes if comments is None else comments and notes
    older: dict[str, str] = {}
    record: dict[str, str] = {}
    unknown: dict[str, str] = {}
    root = Path(prov.ctx.workspace_root) if prov is not None else Path(".")
    settles: dict[str, str | None] = {}  # a DOCX whose breaks glue nothing: recorded so if nothing else changed
    input_dir: Path | None = None
    asked_dir = False
    for entry in entries:
        rel = entry.source_root_relative_path
        suffix = _suffix(rel)
        path = f"{root}/{rel}"
        if _before_breaks(entry, suffix):
            if not look:
                older[rel] = (_NOTES_TO_CHECK if entry.reading == f"{LIGHTRAG_NOTES}:1" else _BREAKS_TO_CHECK
                              if entry.reading else f"{BEFORE}: 'mnote-kr sync' checks whether it is read "
                              "differently now")
                continue
            if held := _breaks(path):
                from .docxbreaks import adds as breaks_adds

                older[rel] = f"{'' if entry.reading else BEFORE + '; '}read again for {breaks_adds(held)}"
                continue
            entry, settles[rel] = _past_breaks(entry, notes, comments)
        if entry.reading is not None:
            found = _older(entry, notes, comments)
            if found is None:
                continue
            now, adds = found
            if now == current(LIGHTRAG):  # a workbook or deck linked by an earlier plain reading: the send's test
                if not look:
                    older[rel] = _PLAIN_TO_CHECK[suffix]
                elif (probed := _probe(path, suffix, notes)) is not None:
                    older[rel] = f"read again for {probed}"
                else:
                    record[rel] = now
            elif split(now)[0] == LIGHTRAG_NOTES and (entry.reading or "").startswith(LIGHTRAG_NOTES):
                if not look:  # the notes reading's first version: only a DOCX holding a comment reads differently
                    older[rel] = _NOTES_TO_CHECK
                elif (probed := _probe(path, suffix, notes, comments, since=1)) is not None:
                    older[rel] = f"read again for {probed}"
                else:
                    record[rel] = now
            elif look and split(now)[0] == LIGHTRAG_NOTES and (probed := _probe(path, suffix, notes, comments)) is None:
                record[rel] = now  # a DOCX without notes or comments: LightRAG's blocks are the same either way
            elif look and split(now)[0] == LIGHTRAG_NOTES:
                older[rel] = f"read again for {probed}"
            elif look and entry.reading in (f"{DECK}:2", f"{DECK}:3") \
                    and _deck_reads_same(path, split(entry.reading)[1]):
                record[rel] = now  # deck:3 adds only review comments, deck:4 tables' number labels: a deck without
            elif look and entry.reading in (f"{FALLBACK}:2", f"{FALLBACK}:3") and _fallback_reads_same(
                    path, split(entry.reading)[1]):
                record[rel] = now  # fallback:3 adds only review comments, fallback:4 symbol characters
            else:
                older[rel] = f"read again for {adds}"
            continue
        # Indexed before readings were recorded.
        if entry.kind == "image" or suffix in naming.IMAGE_SUFFIXES:
            unknown[rel] = _IMAGE_UNKNOWN
        elif entry.kind != "document":  # sent as a text wrapper: its first line names the reader
            if not look:
                older[rel] = f"{BEFORE}: its index text is checked by 'mnote-kr sync'"
                continue
            if not asked_dir and prov is not None:
                asked_dir = True
                try:
                    input_dir = prov.input_dir()
                except ProviderError:
                    input_dir = None
            reading = _wrapper_mark(entry, input_dir)
            if reading in (f"{DECK}:2", f"{DECK}:3") and _deck_reads_same(path, split(reading)[1]):
                reading = current(DECK)  # deck:3 adds only review comments, deck:4 tables' number labels
            how, version = split(reading or "")
            if reading is None:
                unknown[rel] = f"{BEFORE}; its index text was not found to check"
            elif version < VERSIONS[how] and _changed(how, version, suffix):
                older[rel] = f"{BEFORE}; read again for {ADDS.get(how, 'what its reader reads now')}"
            else:
                record[rel] = current(how)  # its reader's later versions changed no file of its type
        elif suffix == ".pdf":
            unknown[rel] = _PDF_UNKNOWN
        elif suffix in (".pptx", ".xlsx") or (suffix == ".docx" and notes):
            if not look:
                older[rel] = f"{BEFORE}: 'mnote-kr sync' checks whether it is read differently now"
                continue
            probed = _probe(path, suffix, notes, comments)
            if probed is not None:
                older[rel] = f"{BEFORE}; read again for {probed}"
            else:
                record[rel] = _notes_now(comments) if suffix == ".docx" else current(LIGHTRAG)
        else:
            record[rel] = current(LIGHTRAG)
    for rel, now in settles.items():
        if now is not None and rel not in older and rel not in record:
            record[rel] = now
    return ReadingCheck(older=older, record=record, unknown=unknown)
