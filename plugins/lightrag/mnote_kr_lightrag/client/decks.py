"""A presentation with speaker notes: indexed through the text mnote-kr reads in it.

LightRAG 1.5.7's PPTX parser reads the text of each slide's top-level shapes and nothing else: a
slide's speaker notes never reach its index, so a question about what the notes say finds nothing,
or lands by its words on another slide or file. Before a ``.pptx`` is sent, the host is asked for
the deck's text as its locator plugin reads it (``ProviderContext.extract_text``: slides in order,
each title a ``#`` line, the notes as paragraphs starting ``Notes: ``). When that text holds notes,
it goes into LightRAG's input dir as a Markdown text wrapper in place of the link, exactly like a
PDF with scanned pages (``recognized``): it maps back to the same registry entry, its ``kind`` is
``text_fallback`` and its note says why, and citations still land in the deck (a note on its
slide's notes, a shape's words on that shape). A deck without notes stays a plain link.
"""

from __future__ import annotations

from mnote_kr.plugin_api import MnoteKrError, ProviderContext, SourceFile

from . import naming

SUFFIX = ".pptx"
#: How the locator plugin's text starts a speaker-notes paragraph (``extract_text``'s convention).
NOTES_PREFIX = "Notes: "


def _notes_slides(text: str) -> int:
    """How many slides (``#`` sections) of the deck's text hold a speaker-notes paragraph."""
    slides: set[int] = set()
    section = 0
    for line in text.splitlines():
        if line.startswith("# "):
            section += 1
        elif line.startswith(NOTES_PREFIX) and line[len(NOTES_PREFIX):].strip():
            slides.add(section)
    return len(slides)


def notes_text(ctx: ProviderContext, source: SourceFile) -> str | None:
    """The text of a deck with speaker notes, or None: not a ``.pptx``, no notes, or it cannot be
    read here (LightRAG then reads it as it can and says so)."""
    if naming.safe_suffix(source.rel_path) != SUFFIX:
        return None
    try:
        text = ctx.extract_text(source.path)
    except MnoteKrError:
        return None
    return text if text and _notes_slides(text) else None


def note(text: str) -> str:
    """What ``status`` says of a deck indexed this way."""
    return (f"indexed from the text mnote-kr reads in it, since LightRAG's parser leaves out speaker notes "
            f"({_notes_slides(text)} slide(s) have them); citations still point into the file")
