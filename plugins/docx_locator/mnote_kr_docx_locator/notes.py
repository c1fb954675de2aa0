"""The DOCX locator's reading of footnotes and endnotes: each note's text at its reference mark.

A paragraph holding a note's reference (``w:footnoteReference``/``w:endnoteReference``) reads the
note's text at the mark, `` [Footnote 1: And this is the footnote]``, as the managed engine's
LightRAG reads it (both read through ``plugin_api.docxnotes``: the same wording, text and Word's
numbers), so a note's words locate to the paragraph holding its mark and the quote says them. The
notes parts and ``w:settings`` come through the main part's relationships (Word's names,
``word/footnotes.xml``, without them), read within the budgets of every part: a broken notes part
costs the notes only, an entity declaration refuses the file as anywhere else.
"""

from __future__ import annotations

import zipfile

from lxml import etree

from mnote_kr.plugin_api import DocumentError, docxnotes

from .safezip import parse_xml, read_part

#: The parts a document's notes need, by the last word of their relationship type.
PARTS = ("footnotes", "endnotes", "settings")


def _targets(zf: zipfile.ZipFile, main: str, path: str) -> dict[str, str]:
    """The main part's notes and settings parts by relationship type (Word's names without a rels part)."""
    folder, _, name = main.rpartition("/")
    base = f"{folder}/" if folder else ""
    found = {kind: f"{base}{kind}.xml" for kind in PARTS}
    root = _part(zf, f"{base}_rels/{name}.rels", path)
    for rel in root if root is not None else ():
        kind = str(rel.get("Type", "")).rpartition("/")[2]
        target = str(rel.get("Target", ""))
        if kind in found and target and rel.get("TargetMode") != "External":
            found[kind] = target.lstrip("/") if target.startswith("/") else base + target
    return found


def _part(zf: zipfile.ZipFile, name: str, path: str) -> etree._Element | None:
    data = read_part(zf, name, path)
    if data is None:
        return None
    try:
        return parse_xml(data, name, path)
    except DocumentError as exc:
        if "entity" in exc.message:
            raise
        return None  # a broken notes, settings or rels part costs the notes only


def read_notes(zf: zipfile.ZipFile, main: str, path: str) -> tuple[dict[tuple[str, str], str],
                                                                     dict[str, docxnotes.NoteProps]]:
    """The texts of the document's notes by ``(kind, id)`` and its note properties (both empty when it
    has no note with text). Raises ``DocumentError`` (over a budget, an entity declaration)."""
    parts = _targets(zf, main, path)
    texts: dict[tuple[str, str], str] = {}
    for kind in ("footnotes", "endnotes"):
        root = _part(zf, parts[kind], path)
        if root is not None:
            texts.update(docxnotes.note_texts(root))
    if not texts:
        return {}, {}
    return texts, docxnotes.note_props(_part(zf, parts["settings"], path))
