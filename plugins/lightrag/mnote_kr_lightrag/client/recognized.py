"""A PDF with scanned pages: indexed through the text mnote-kr reads and recognises in it.

LightRAG's PDF parser reads a PDF's text layer; a page that is only a picture (a scanned letter
bound into a report) gives it nothing, so search could never find what that page says. Before a
PDF is sent, the host is asked for its text with such pages recognised
(``ProviderContext.recognize_text``: an OCR plugin, once per file content). When some page needed
it, that text (``## Page N`` before each page) goes into LightRAG's input dir as a Markdown text
wrapper in place of the link, exactly like the fallback for a document LightRAG cannot parse
(``fallback``): it maps back to the same registry entry, its ``kind`` is ``text_fallback`` and its
note says why, and citations still land in the original PDF (its text pages through their text
layer, the scanned ones through the recognised lines' boxes).

A presentation holding words LightRAG's parser leaves out (speaker notes, table cells, grouped
shapes' text, chart data) is sent the same way, decided at the same point (``own_text``; ``decks``
says why, and reads that from the deck's structure), and so is a workbook holding cell comments
(``workbooks``, read from its comments parts) and every macro-enabled workbook (``.xlsm``, a type
LightRAG does not take): one rule for every file whose own text mnote-kr sends before LightRAG reads it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import msgspec

from mnote_kr.plugin_api import EntryUpdate, MnoteKrError, ProviderContext, SourceFile

from . import decks, docxbreaks, links, naming, workbooks

#: The entry's kind: the same as a parser fallback's (``fallback.KIND``), so ``status`` lists it
#: among the files indexed from mnote-kr's text and later status updates keep its note.
KIND = "text_fallback"


def reading(ctx: ProviderContext, sources: Sequence[SourceFile]) -> Iterator[SourceFile]:
    """``sources``, each after a progress line naming it and counting the files read before it
    (``reading files for LightRAG: 2/14 read; now scans/letter.pdf; 3 s so far``), then one line once all
    are read: reading a file (its scanned pages recognised, a deck's own text) can take a minute, and
    nothing else speaks before the files are sent (nc18a). A step line: the CLI keeps a piped log to
    one every few seconds."""
    started, total = time.monotonic(), len(sources)
    for k, source in enumerate(sources):
        ctx.progress(f"reading files for LightRAG: {k}/{total} read; now {source.rel_path}; "
                     f"{time.monotonic() - started:.0f} s so far")
        yield source
    if total:
        ctx.progress(f"reading files for LightRAG: {total}/{total} read in {time.monotonic() - started:.0f} s")


def pages_text(ctx: ProviderContext, source: SourceFile) -> str | None:
    """The text of a PDF some of whose pages only OCR reads, or None: not a PDF, every page has
    its text, or it cannot be read here (LightRAG then reads it as it can and says so)."""
    if naming.safe_suffix(source.rel_path) != ".pdf":
        return None
    try:
        text = ctx.recognize_text(source.path)
    except MnoteKrError:
        return None
    return text if text and text.strip() else None


@dataclass(frozen=True, slots=True)
class OwnText:
    """The text mnote-kr sends in place of a file (``own_text``), the first line of its wrapper (what the
    text is and why it is sent) and what ``status`` says of the file."""

    text: str
    mark: str
    note: str


def own_text(ctx: ProviderContext, source: SourceFile) -> OwnText | None:
    """The text mnote-kr sends in place of a file whose own reading by LightRAG would miss part of it:
    a PDF with scanned pages (``pages_text``), a deck with words LightRAG's parser leaves out or runs together
    (``decks.deck_text``), a DOCX whose words it runs together across a break (``docxbreaks.docx_text``), a
    workbook with cell comments or any macro-enabled one (``workbooks.workbook_text``);
    None: the file itself is linked. Raises ``MnoteKrError`` for a file of a type LightRAG does not take
    (``naming.TEXT_ONLY_SUFFIXES``) whose text cannot be read here."""
    pages = pages_text(ctx, source)
    if pages is not None:
        return OwnText(pages, links.RECOGNIZED_WRAPPER_MARK, _pages_note(pages, ctx.recognized_pages(source.path)))
    deck = decks.deck_text(ctx, source)
    if deck is not None:
        return OwnText(deck[0], links.DECK_WRAPPER_MARK, decks.note(deck[1]))
    docx = docxbreaks.docx_text(ctx, source)
    if docx is not None:
        return OwnText(docx[0], links.BREAKS_WRAPPER_MARK, docxbreaks.note(docx[1]))
    book = workbooks.workbook_text(ctx, source)  # raises for an unreadable .xlsm: nothing else would take it
    if book is not None:
        suffix = naming.safe_suffix(source.rel_path)
        mark = links.MACRO_WORKBOOK_WRAPPER_MARK if suffix in naming.TEXT_ONLY_SUFFIXES else links.WORKBOOK_WRAPPER_MARK
        return OwnText(book[0], mark, workbooks.note(book[1], suffix, book[2]))
    return None


def _pages_note(pages: str, read: tuple[int, int] | None) -> str:
    """What ``status`` says of a PDF indexed from its recognised text: all its pages read by OCR, or how many of
    them (``read``: the OCR plugin's count, ``ProviderContext.recognized_pages``); unknown, "some"."""
    count = pages.count("\n## Page ") + pages.startswith("## Page ")
    if read is not None and read[0] == read[1] > 0:
        which = f"all {read[1]} page{'s' * (read[1] > 1)} recognised by OCR: none has a readable text layer"
    elif read is not None and 0 < read[0] < read[1]:
        which = (f"{read[0]} of its {read[1]} pages recognised by OCR: "
                 f"{'it has' if read[0] == 1 else 'they have'} no readable text layer")
    else:
        which = "some pages recognised by OCR: they have no readable text layer"
    return (f"indexed from the text mnote-kr reads in it ({count} page(s)), {which} for LightRAG's parser; "
            "citations still point into the file")


def plugin_type(ctx: ProviderContext, suffix: str, readable: set[str] | frozenset[str]) -> bool:
    """Whether a file of ``suffix`` is sent as a plugin's text (``plugin_text``): LightRAG does not take the
    type (``readable``: its types), it is no image nor ``TEXT_ONLY_SUFFIXES``, and the host says a loaded
    plugin reads it (``ProviderContext.text_suffixes``; asked only for such a type)."""
    if suffix in readable or suffix in naming.IMAGE_SUFFIXES or suffix in naming.TEXT_ONLY_SUFFIXES:
        return False
    return suffix in ctx.text_suffixes()


def not_taken(suffix: str) -> str:
    """Why a file of a type LightRAG does not take, and no plugin reads, is not sent: and what would send it."""
    from .filetypes import PLUGIN_HINT

    return f"LightRAG cannot index '{suffix or 'extension-less'}' files ({PLUGIN_HINT})"


def plugin_text(ctx: ProviderContext, source: SourceFile) -> OwnText:
    """The text the plugin reading this file's type gives (``ctx.extract_text``), sent in place of a file of a
    type LightRAG does not take (``plugin_type``). Raises ``MnoteKrError`` when it gives none: nothing else
    would take the file."""
    suffix = naming.safe_suffix(source.rel_path)
    try:
        text = ctx.extract_text(source.path)
    except MnoteKrError as exc:
        raise MnoteKrError(f"LightRAG does not take '{suffix}' files, and the plugin reading them cannot read this "
                           f"one: {exc.message}", hint=exc.hint) from exc
    if not text or not text.strip():
        raise MnoteKrError(f"LightRAG does not take '{suffix}' files, and the plugin reading them read no text in "
                           "this one")
    return OwnText(text, links.PLUGIN_TEXT_WRAPPER_MARK, (
        f"indexed from the text a plugin reads in it, since LightRAG does not take '{suffix}' files; citations "
        "still point into the file"))


def kind(is_image: bool, own: OwnText | None) -> str:
    """The entry's kind: an image's wrapper, a file's own text (``own_text``), or the file itself linked."""
    return "image" if is_image else KIND if own is not None else "document"


def noted(update: EntryUpdate, own: OwnText | None) -> EntryUpdate:
    """``update`` with the note of a file sent as its own text (a failure keeps its reason)."""
    if own is None or update.status == "failed":
        return update
    return msgspec.structs.replace(update, last_error=own.note)
