"""A presentation holding words LightRAG's parser leaves out: indexed through the text mnote-kr reads in it.

LightRAG 1.5.7 parses a ``.pptx`` with its legacy engine (``lightrag/parser/legacy/extractors.py``,
``_extract_pptx``; the native engine takes only ``docx``/``md``): for each slide, for each shape of
``slide.shapes`` with a ``text`` attribute, ``shape.text``. In python-pptx only an autoshape, a text
box or a text placeholder (``p:sp``) has one, and ``slide.shapes`` holds the slide's top-level shapes
only. So four kinds of words never reach its index: speaker notes (on the notes slide), table cells
(a ``p:graphicFrame``), the text of shapes inside a group (a ``p:grpSp``, not entered) and chart data
(a ``p:graphicFrame``'s chart part). A question about them finds nothing, or lands by its words on
another slide or file.

Before a ``.pptx`` is sent, the host is asked for the deck's text as its locator plugin reads it
(``ProviderContext.extract_text``: slides in order, each title a ``#`` line, a speaker-notes
paragraph starting ``Notes: ``, the first paragraph of a table, a chart and a group's text starting
``Table: ``, ``Chart: `` and ``Group: ``). When that text holds any of those, it goes into LightRAG's
input dir as a Markdown text wrapper in place of the link, exactly like a PDF with scanned pages
(``recognized``): it maps back to the same registry entry, its ``kind`` is ``text_fallback`` and its
note says which of them the deck has, and citations still land in the deck (a note on its slide's
notes, a table row, a chart line or a shape's words on that shape). A deck whose words are all its
slides' top-level text stays a plain link.
"""

from __future__ import annotations

from mnote_kr.plugin_api import MnoteKrError, ProviderContext, SourceFile

from . import naming

SUFFIX = ".pptx"
#: How the locator plugin's text starts a speaker-notes paragraph (``extract_text``'s convention).
NOTES_PREFIX = "Notes: "
#: What LightRAG's parser leaves out, by how ``extract_text``'s text marks it, as the note names it.
LEFT_OUT = ((NOTES_PREFIX, "speaker notes"), ("Table: ", "table cells"), ("Group: ", "grouped shapes' text"),
            ("Chart: ", "chart data"))


def left_out(text: str) -> dict[str, int]:
    """What of the deck's text LightRAG's parser leaves out (``LEFT_OUT``'s names, in its order): how many
    slides (``#`` sections) hold each; only those some slide holds."""
    slides: dict[str, set[int]] = {}
    section = 0
    for line in text.splitlines():
        if line.startswith("# "):
            section += 1
            continue
        for prefix, what in LEFT_OUT:
            if line.startswith(prefix) and line[len(prefix):].strip():
                slides.setdefault(what, set()).add(section)
    return {what: len(slides[what]) for _, what in LEFT_OUT if what in slides}


def deck_text(ctx: ProviderContext, source: SourceFile) -> str | None:
    """The text of a deck holding words LightRAG's parser leaves out, or None: not a ``.pptx``, none of
    those, or it cannot be read here (LightRAG then reads it as it can and says so)."""
    if naming.safe_suffix(source.rel_path) != SUFFIX:
        return None
    try:
        text = ctx.extract_text(source.path)
    except MnoteKrError:
        return None
    return text if text and left_out(text) else None


def note(text: str) -> str:
    """What ``status`` says of a deck indexed this way: which words LightRAG's parser leaves out, on how
    many slides."""
    parts = [f"{what} ({n} slide(s))" for what, n in left_out(text).items()] or ["part of its text"]
    said = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return (f"indexed from the text mnote-kr reads in it, since LightRAG's parser leaves out {said}; "
            "citations still point into the file")
