"""mnote-kr PPTX locator: a citation lands on the slide, the shape and the paragraph inside it.

Written only against ``mnote_kr.plugin_api``, as a third party's plugin would be. ``reader``
turns a presentation into paragraphs in slide order (shapes, tables row by row, groups,
placeholders, charts' cached data a line per category, then the slide's speaker notes), and the
host's ``match_evidence`` finds the paragraph the evidence came from. The answer is ``slide``
precision (slide number, shape id and name, ``paragraphIndex`` inside the shape, the shape's box
in EMU and as fractions of the slide; for a speaker note, the slide's notes with no shape), or an
honest ``file`` locator when nothing matches.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr.plugin_api import DocumentModel, LocateRequest, Locator, hookimpl

PLUGIN_NAME = "pptx_locator"
EXTENSIONS = (".pptx",)
__version__ = "0.1.0"
#: Places (paragraphs) of a deck ingest embeds at most, as XLSX's ``MEANING_ROWS``: e5 on a CPU embeds
#: some hundreds a second; a larger deck's places behind a cited one are ranked by words.
MEANING_PLACES = 5_000


def _ours(path: str) -> bool:
    return Path(path).suffix.lower() in EXTENSIONS


@hookimpl
def locator_extensions() -> list[str]:
    """This plugin locates citations in ``.pptx`` files."""
    return list(EXTENSIONS)


@hookimpl
def locate(request: LocateRequest) -> Locator | None:
    """``slide`` locator for ``.pptx``; None for any other suffix. Raises ``DocumentError``."""
    if not _ours(request.file):
        return None
    from .locating import locate_pptx

    return locate_pptx(request)


@hookimpl
def extract_text(path: str) -> str | None:
    """The slides as Markdown: each slide's title as a ``#`` line, then its shapes' paragraphs, then
    its speaker notes' paragraphs, each starting ``Notes: ``, then its review comments, a line each reading
    ``Comment (author): words`` (``Comment (author, reply): ...`` for a reply); a table's, a chart's and a group's first
    paragraph starts ``Table: ``, ``Chart: `` and ``Group: `` (words for the reader of the text, not
    structure: a slide's own text may start the same). A table row reads ``label: header: value; ...``,
    a line break inside a paragraph as a space."""
    if not _ours(path):
        return None
    from .reader import load_pptx

    return load_pptx(path).markdown()


@hookimpl
def check_budget(path: str) -> str | None:
    """Why the reader would not take this deck (the budget it exceeds: file bytes, zip entries, a part's
    inflated size or compression ratio, slides), or None. Read from the zip directory and a streaming count
    of the slides the deck lists (``reader.check_deck``, what reading it checks first), never loading it
    with python-pptx; its paragraphs are counted only when it is read. A file that is only broken (not a
    zip, a damaged part) is not over a budget: None. Its text is not counted against the host's index
    budget (``max_text_chars``, not taken here)."""
    if not _ours(path):
        return None
    from mnote_kr.plugin_api import budget_refusal

    from .reader import check_deck

    return budget_refusal(path, check_deck)


@hookimpl
def prepare_locate(path: str) -> bool | None:
    """Parse the presentation ahead of the first search (kept in memory for this process), and have
    ingest embed its paragraphs when there are at most ``MEANING_PLACES``: the places behind a cited
    one are ranked by meaning too."""
    if not _ours(path):
        return None
    from mnote_kr.plugin_api import queue_places

    from .reader import load_pptx, warm_pptx

    parsed = warm_pptx(path)
    doc = load_pptx(path)
    if len(doc.paragraphs) <= MEANING_PLACES:
        queue_places(doc)
    return parsed


@hookimpl
def document_model(path: str) -> DocumentModel | None:
    """The slides for the viewer: each slide's shapes with text (id, name, paragraphs, box as slide
    fractions) and its speaker notes, as ``locate`` reads them; None for any other suffix."""
    if not _ours(path):
        return None
    from .view import document_model_pptx

    return document_model_pptx(path, PLUGIN_NAME)
