"""mnote-kr DOCX paragraph locator.

DOCX has no pages. This plugin finds the paragraph a citation came from in the DOCX
itself and returns a ``paragraph`` locator (``paragraphIndex`` as ``reader`` counts
it, ``w14:paraId`` when present, the character span to highlight), or a ``file``
locator when nothing is confident. Broken or hostile files raise ``DocumentError``.

The DOCX-specific parts live here (safe zip/XML reading, ``paragraphIndex`` order,
TOC detection, sidecar paraId range scoping); the evidence matching is the host's
format-independent ``mnote_kr.citations.locate.textmatch``, run over the reader's paragraphs.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnote_kr.plugin_api import DocumentModel, LocateRequest, Locator, ModelParagraph, SidecarBlock, hookimpl

if TYPE_CHECKING:
    from .document import DocxDocument

PLUGIN_NAME = "docx_locator"
_NO_BLOCK_MATCH = "evidence matches no paragraph of the sidecar block's paraid range"

__all__ = [
    "PLUGIN_NAME",
    "THRESHOLD",
    "block_scope",
    "check_budget",
    "clear_cache",
    "document_model",
    "load_docx",
    "locate",
    "locate_docx",
    "locator_extensions",
    "extract_text",
    "prepare_locate",
]


def __getattr__(name: str) -> Any:
    # The cache loads at need (`mnote-kr status` and `--help` stay light), lxml only when a
    # DOCX is parsed (`cache` imports `reader` then).
    if name in ("load_docx", "clear_cache"):
        from . import cache

        return getattr(cache, name)
    if name == "THRESHOLD":
        from mnote_kr.plugin_api import THRESHOLD

        return THRESHOLD
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def block_scope(doc: DocxDocument, block: SidecarBlock | None) -> tuple[int, int] | None:
    """The inclusive paragraph-index range of a block whose paraid range is real and found."""
    if block is None:
        return None
    for pos in block.positions:
        if pos.type != "paraid" or not pos.range or len(pos.range) < 2:
            continue
        lo, hi = pos.range[0], pos.range[-1]
        if not isinstance(lo, str) or not isinstance(hi, str):
            continue
        i, j = doc.by_para_id.get(lo.upper()), doc.by_para_id.get(hi.upper())
        if i is not None and j is not None and i <= j:
            return i, j
    return None


@hookimpl
def prepare_search() -> None:
    """Import the paragraph matcher and the document cache while the provider answers."""
    from mnote_kr.plugin_api import textmatch  # noqa: F401

    from . import cache  # noqa: F401


def locate_docx(request: LocateRequest) -> Locator:
    """Locate ``request.evidence`` in the DOCX ``request.file``. Raises ``DocumentError``."""
    from mnote_kr.plugin_api import Scope, locator_from_match, match_evidence, with_meaning

    from .cache import load_docx

    doc = load_docx(request.file)
    block = request.block
    block_id = request.block_id or (block.blockid if block is not None else None)
    scope = block_scope(doc, block)
    match = match_evidence(
        doc,
        request.evidence,
        request.query,
        block_heading=block.heading if block is not None else None,
        block_content=block.content if block is not None else None,
        scope=Scope((scope,)) if scope is not None else None,
    )
    in_scope = match.paragraph is not None and (scope is None or scope[0] <= match.paragraph.index <= scope[1])
    if in_scope or scope is None:
        from .rows import as_rows
        from .sections import at_named_caption, at_named_section

        match = with_meaning(doc, match, request.passage, request.query, Scope((scope,)) if scope is not None else None)
        loc = locator_from_match(match, plugin=PLUGIN_NAME, block_id=block_id, headings=True, doc=doc)
        # under the numbered section the query names ("section 6.2.1", "第3章": ``sections``); then a table
        # cell is cited as its row, on the cell under the header the query names (``rows``)
        loc = at_named_section(doc, loc, request.query, request.evidence) if scope is None else loc
        loc = at_named_caption(doc, loc, request.query, scope)  # "what does Table 1 contain?": its caption
        return numbered(doc, as_rows(doc, loc, request.query))
    # The sidecar names a real paragraph range, but the evidence matches none of its
    # paragraphs: say so (``file``, degraded) rather than land on the block's first
    # paragraph as if it had been found there.
    return Locator(
        locator_precision="file",
        locator_degraded=True,
        block_id=block_id,
        score=match.score,
        locator_plugin=PLUGIN_NAME,
        reason=_NO_BLOCK_MATCH,
        locator_reason=_NO_BLOCK_MATCH,
    )


def numbered(doc: DocxDocument, loc: Locator) -> Locator:
    """``loc`` (and its runners-up) with its headings as the reader sees them: after the numbers Word shows
    ("3 术语和定义", ``numbering``). The paragraphs match by their headings' words alone, as the provider
    reads them; only the place shown gains the numbers."""
    import msgspec

    runners = [numbered(doc, r) for r in loc.runners_up]
    i = loc.paragraph_index
    headings = loc.place_headings
    if i is not None and headings is not None and 0 <= i < len(doc.paragraphs):
        para = doc.paragraphs[i]
        if para.heading_numbers and list(para.heading_path) == list(headings):
            return msgspec.structs.replace(loc, place_headings=list(para.shown_headings), runners_up=runners)
    if any(r is not s for r, s in zip(runners, loc.runners_up, strict=True)):
        return msgspec.structs.replace(loc, runners_up=runners)
    return loc


@hookimpl
def locator_extensions() -> list[str]:
    """This plugin locates citations in ``.docx`` files."""
    return [".docx"]


@hookimpl
def extract_text(path: str) -> str | None:
    """The DOCX's paragraphs in ``paragraphIndex`` order as Markdown (headings as ``#`` lines).

    Used in place of the file when the provider's own DOCX parser fails on it; the text
    is the reader's, so citations into it locate back onto the same paragraphs.
    """
    if Path(path).suffix.lower() != ".docx":
        return None
    from .cache import load_docx

    blocks = []
    for para in load_docx(path).paragraphs:
        text = " ".join(para.text.split())
        if text:
            blocks.append(("#" * min(para.heading_level, 6) + " " + text) if para.heading_level else text)
    return "\n\n".join(blocks)


@hookimpl
def check_budget(path: str, max_text_chars: int) -> str | None:
    """Why the reader would not take this DOCX (the budget it exceeds: file bytes, zip entries,
    XML part size, compression ratio, entity declarations, elements, nesting, paragraphs, text;
    then the host's index budget ``max_text_chars``), or None. The file is parsed within those
    budgets (cheapest first: a 135 MB XML part is refused from the zip directory, before
    anything is inflated) and kept in the cache that ``prepare_locate`` fills, so a file within
    budget is not parsed twice. A file that is only broken is not over a budget: None, and the
    provider says what it makes of it."""
    if Path(path).suffix.lower() != ".docx":
        return None
    from mnote_kr.plugin_api import DocumentError, OverBudgetError

    from .cache import load_docx

    try:
        chars = sum(len(p.text) for p in load_docx(path).paragraphs)
    except OverBudgetError as exc:
        return exc.message
    except DocumentError:
        return None
    if chars > max_text_chars:
        return (f"DOCX over the index budget: {chars} characters of text (limit {max_text_chars}: "
                f"max_index_chars): {Path(path).name}")
    return None


@hookimpl
def prepare_locate(path: str) -> bool | None:
    """Keep the DOCX's paragraph model on disk so the first search need not parse it."""
    if Path(path).suffix.lower() != ".docx":
        return None
    from mnote_kr.plugin_api import queue_places

    from .cache import load_docx, warm_docx

    parsed = warm_docx(path)
    queue_places(load_docx(path))  # ingest embeds its paragraphs once it is citable
    return parsed


@hookimpl
def locate(request: LocateRequest) -> Locator | None:
    """Paragraph locator for ``.docx``; None for any other suffix."""
    if Path(request.file).suffix.lower() != ".docx":
        return None
    return locate_docx(request)


@hookimpl
def document_model(path: str) -> DocumentModel | None:
    """The DOCX's paragraphs in ``paragraphIndex`` order, as ``locate`` reads them, for the viewer.

    Headings, list items (level, numbered or bulleted), the number Word shows before a numbered
    paragraph (``label``), table cells (outermost table, row, column) and the text boxes anchored
    in each paragraph; None for any other suffix. Built once per parsed document (``_MODELS``): a search asks it
    of every DOCX list item it quotes (the label Word draws before it), and building every paragraph's entry again
    was work done per citation.
    """
    if Path(path).suffix.lower() != ".docx":
        return None
    from .cache import load_docx

    doc = load_docx(path)
    with _MODELS_LOCK:  # the threaded server asks many at once (review r29 finding 10: an unlocked eviction failed one)
        hit = _MODELS.get(path)
        if hit is not None and hit[0] is doc:  # the same parse (an edited file is parsed anew: a new document)
            _MODELS.move_to_end(path)
            return hit[1]
    model = _model_of(doc)  # built outside the lock: two threads may both build it, the last one's is kept
    if MODELS_MAX > 0:
        with _MODELS_LOCK:
            _MODELS[path] = (doc, model)
            _MODELS.move_to_end(path)
            while len(_MODELS) > MODELS_MAX:
                _MODELS.popitem(last=False)
    return model


#: Viewer models kept (0: built at every ask, as before round 28).
MODELS_MAX = 8
#: The last documents' viewer models, by path, with the parse each was built from: the least recently asked first.
_MODELS: OrderedDict[str, tuple[object, DocumentModel]] = OrderedDict()
_MODELS_LOCK = threading.Lock()


def _model_of(doc: Any) -> DocumentModel:  # noqa: ANN401
    return DocumentModel(
        kind="paragraphs",
        plugin=PLUGIN_NAME,
        paragraphs=[
            ModelParagraph(
                index=p.index, text=p.text if p.own_chars is None else p.text[: p.own_chars],
                heading_level=p.heading_level, in_toc=p.in_toc,
                list_level=p.list_level, list_ordered=p.list_ordered, label=p.label,
                cell=list(p.cell) if p.cell is not None else None, textboxes=list(p.textboxes),
            )
            for p in doc.paragraphs
        ],
    )
