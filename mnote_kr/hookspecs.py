"""Hook specifications: the whole plugin surface of mnote-kr.

Plugins implement these with ``@mnote_kr.hookimpl`` and register through the
entry-point group ``mnote_kr``. Every spec states its calling convention:

* **firstresult**: "who handles this?"; pluggy stops at the first non-None answer.
  Provider hooks are called only on the configured provider's plugin, and ``locate``
  only on the locator plugin configured for the file's extension, so plugins that
  do the same job never race.
* **collect-all**: every plugin answers; the host gets a list.

Data flows one way: provider → ``map_reference`` → ``clean_text`` →
``classify_locator`` → ``locate`` → citation. Plugins know nothing about each other;
the host knows nothing about LightRAG.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from mnote_kr.context import ProviderContext
    from mnote_kr.models import (
        CitationTextBundle,
        DocumentModel,
        EntryUpdate,
        LocateRequest,
        Locator,
        MappedReference,
        ProviderQueryResult,
        ProviderReference,
        ProviderStatus,
        QueryRequest,
        ReadingCheck,
        SidecarBlock,
        SidecarMeta,
        SourceEntry,
        SourceFile,
    )

PROJECT_NAME = "mnote_kr"
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# --------------------------------------------------------------------------- discovery


@hookspec(historic=True)
def configure(config: dict[str, Any]) -> None:
    """The effective configuration (user ``config.toml`` merged with the workspace's), given once
    the plugins are loaded. A plugin reads its own table (``config.get("ocr", {})``: the table
    named like the plugin) and raises ``ConfigError`` for a bad value, one line naming the key and
    what it takes. ``enabled = false`` in that table blocks the plugin (as ``disabled_plugins``):
    it is never loaded, so never configured.

    Calling convention: historic collect-all: a plugin registered later is configured too.
    """


@hookspec
def provider_names() -> list[str]:
    """Names of the retrieval providers this plugin implements (e.g. ``["lightrag"]``).

    Calling convention: collect-all. The configuration's ``provider`` picks one; the
    provider hooks below are then called on that plugin only.
    """


@hookspec
def locator_extensions() -> list[str]:
    """File extensions this plugin can locate citations in (lowercase, with dot).

    Calling convention: collect-all. For each extension the configuration's
    ``locators`` table may name the plugin to use; otherwise the first plugin in
    hook order (third-party before built-in) that claims it wins.
    """


# --------------------------------------------------------------------------- provider lifecycle


@hookspec(firstresult=True)
def ingest(ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate] | None:
    """Send resolved, hashed source files to the provider's index.

    The host has already checked the paths are inside an allowed root, expanded
    folders and skipped unchanged files. A source sent again (changed content, or
    ``force``) replaces the provider's older version of it: the provider deletes that
    version's derived index itself, then adds the new one. The provider must never
    copy, move or delete a source; it reports one ``EntryUpdate`` per source
    (``submitted``, ``pending`` when busy, ``failed`` with ``last_error``...).

    Calling convention: firstresult, configured provider only.
    """


@hookspec(firstresult=True)
def unindexable(ctx: ProviderContext, paths: list[str]) -> dict[str, str] | None:
    """The ``paths`` (workspace-relative) the provider cannot index, each with the reason a
    user reads (``{"data.bin": "not a file type ... indexes ('.bin' files; ...)"}``).

    Asked once per folder walk (``ingest`` of a folder, reconcile, the watcher, ``notIndexed``):
    a file found in a folder that the provider cannot index is passed over and reported, not
    sent; a file the user names is still sent, and fails with the provider's reason. Answer from
    the file names (a suffix check), with no request per file. Optional: a provider that does
    not implement it (None) is taken to index every file.

    Calling convention: firstresult, configured provider only.
    """


@hookspec(firstresult=True)
def sync(ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate] | None:
    """Retry queued work and follow submitted work to a terminal state.

    ``entries`` are the registry entries that are not terminal (pending, submitted,
    processing, delete_submitted). Poll for at most ``wait_s`` seconds (0 = one look).

    A full ``sync`` also passes the entries the registry holds as ``failed`` or ``refused`` that
    name a provider document: whatever the provider still holds of them (a document processing,
    processed or failed there) is deleted from its index (never the source), and each is
    reported with its status unchanged.

    Calling convention: firstresult, configured provider only.
    """


@hookspec(firstresult=True)
def delete(ctx: ProviderContext, entries: list[SourceEntry]) -> list[EntryUpdate] | None:
    """Remove the provider's derived index for these entries; never the source file.

    Calling convention: firstresult, configured provider only.
    """


@hookspec(firstresult=True)
def provider_status(ctx: ProviderContext, entries: Sequence[SourceEntry]) -> ProviderStatus | None:
    """Report the provider's health, document counts, rerank configuration and the
    documents that no registry entry maps ("unmapped").

    ``entries`` is every registry entry, decoded when iterated. The host's sequence also has
    ``columns()`` (:class:`~mnote_kr.models.EntryColumns`: paths, doc ids, names, liveness)
    that decodes no entry; use it when present (``getattr(entries, "columns", None)``).

    With ``ctx.may_start`` False (``status`` of a workspace with no files) start nothing the
    provider starts on demand: report a server that runs, else return a status with
    ``not_started`` saying when it starts.

    Calling convention: firstresult, configured provider only. Raise
    ``ProviderError`` when the provider cannot be reached.
    """


@hookspec(firstresult=True)
def check_readings(ctx: ProviderContext, entries: list[SourceEntry], look: bool) -> ReadingCheck | None:
    """How each of these indexed ``entries`` was read for the index (``SourceEntry.reading``, which the
    provider sets in the ``EntryUpdate`` of a send) against how the provider reads such a file now: the
    ones read differently now (``older``, with what the new reading adds), and, for entries indexed
    before readings were recorded, the reading to record (``record``: read the same now) or why it is
    not known (``unknown``).

    ``look``: the provider may open the files for a cheap check of their structure (a DOCX's notes
    parts, a deck's slides, a workbook's comments parts; never a whole text or OCR), so that only the
    files whose reading changes are sent again (``sync``, ``watch``'s reconcile). Without it no file is
    read: ``status`` counts from the recorded readings alone. Optional: a provider that does not
    implement it (None) has no readings to compare.

    Calling convention: firstresult, configured provider only.
    """


@hookspec(firstresult=True)
def query(ctx: ProviderContext, request: QueryRequest) -> ProviderQueryResult | None:
    """Retrieve references (and an answer when ``request.want_answer``).

    Calling convention: firstresult, configured provider only.
    """


@hookspec(firstresult=True)
def start_query(ctx: ProviderContext, request: QueryRequest) -> Callable[[], ProviderQueryResult] | None:
    """Start ``query`` and return at once a function that waits for its result.

    The host starts a search's query before it loads the citation pipeline, so a fresh
    process imports while the provider works. Check the request and raise its errors here
    (a bad query, an unreachable provider); the returned function returns what ``query``
    would, or raises what ``query`` would have raised. A plugin without it is asked
    ``query`` at once, and the host waits for nothing more.

    Calling convention: firstresult, configured provider only.
    """


@hookspec(firstresult=True)
def map_reference(
    ctx: ProviderContext, reference: ProviderReference, entries: Mapping[str, SourceEntry], query: str
) -> MappedReference | None:
    """Map one provider reference back to a registry entry and, when the provider
    writes sidecars, to the block the chunk came from.

    ``entries`` indexes the live registry entries by the provider's file name
    (``lightRagFilePath``). Return None when the reference maps to no live entry:
    it then never becomes a citation.

    Calling convention: firstresult, configured provider only.
    """


# --------------------------------------------------------------------------- citation pipeline


@hookspec(firstresult=True)
def clean_text(raw: str, query: str, block_text: str | None) -> CitationTextBundle | None:
    """Clean a raw chunk once into display, locator and fingerprint texts.

    ``block_text`` is the matched sidecar block's content, when there is one; the
    locator evidence is then a query-centred window of it.

    Calling convention: firstresult; a built-in fallback runs last.
    """


@hookspec(firstresult=True)
def classify_locator(block: SidecarBlock | None, meta: SidecarMeta | None) -> str | None:
    """Say which precision a sidecar block can support: ``bbox`` (page and
    rectangle), ``paragraph`` (block, paraid or heading) or ``file``.

    Calling convention: firstresult; a built-in fallback runs last.
    """


@hookspec(firstresult=True)
def locate(request: LocateRequest) -> Locator | None:
    """Turn a source file plus cleaned evidence into a locator.

    Never invent precision: without a confident match return a ``file`` locator
    with ``locatorDegraded=True`` (a page known without a place on it goes in
    ``page_hint``, never ``page``; the host moves a ``file`` locator's ``page`` there).
    A box or paragraph that is the passage rather than the block holding the evidence that
    answered sets ``locatorDegraded=True``: every surface then calls it approximate
    (``mnote_kr.citations.render.precision``). Raise ``DocumentError`` for broken or hostile files.

    Calling convention: firstresult, called only on the plugin chosen for the file's
    extension; a built-in ``file`` locator answers when no plugin does.
    """


# --------------------------------------------------------------------------- viewer


@hookspec(firstresult=True)
def document_model(path: str) -> DocumentModel | None:
    """Describe a source file for the viewer (``/view/{citationId}`` of ``mnote-kr serve``).

    Paragraph formats (DOCX, Markdown, text) return ``kind="paragraphs"``: every
    paragraph in the same ``paragraphIndex`` order, with the same text, that this
    plugin's ``locate`` counts in, so a locator's ``paragraphIndex`` and ``highlight``
    land on what is shown. Paged formats (PDF) return ``kind="pages"`` with each page's
    size in points in the locator's ``bbox`` frame. Presentations return ``kind="slides"`` (each
    slide's shapes with text: id, name, paragraphs indexed as the locator's ``paragraphIndex``, box
    as fractions of the slide; its notes), workbooks ``kind="sheets"`` (each sheet's non-empty
    cells, capped, ``truncated`` when cut). Raise ``DocumentError`` for broken
    or hostile files; return None for a file this plugin does not handle.

    Calling convention: firstresult, called only on the locator plugin chosen for the
    file's extension (the same one ``locate`` uses); no answer means "file only".
    """


@hookspec(firstresult=True)
def render_page(path: str, page: int, scale: float) -> bytes | None:
    """Render one page (1-based) of a paged source as PNG bytes, ``scale`` pixels per point.

    The image covers the page exactly as ``document_model`` sizes it (crop box, after
    ``/Rotate``), so a locator ``bbox`` times ``scale`` is its pixel rectangle. The host
    caches the result per file version, page and scale. Raise ``DocumentError`` for a
    page out of range or a broken file; return None for a file this plugin does not handle.

    Calling convention: firstresult, called only on the locator plugin chosen for the
    file's extension.
    """


@hookspec(firstresult=True)
def page_fonts(path: str, page: int) -> tuple[list[str], str | None] | None:
    """The fonts one page (1-based) of a paged source uses without including them, for the viewer.

    Returns (base names of the fonts the file names but does not embed, sorted; the face the
    renderer draws Chinese, Japanese and Korean text of such fonts in, or None when it has none
    and that text cannot be drawn, or "" when the page has no such text). The viewer says so
    above the page image, naming only the scripts the page uses. Return None for a
    file this plugin does not handle.

    Calling convention: firstresult, called only on the locator plugin chosen for the
    file's extension.
    """


@hookspec(firstresult=True)
def prepare_locate(path: str) -> bool | None:
    """Parse ``path`` ahead of time so its first ``locate`` is fast, even in a new process.

    The host calls it after ingest, for each file sent. A plugin that keeps its parsed
    model on disk (``mnote_kr.plugin_api.Persist``, ``FileCache``) fills that cache here; it
    returns True when it parsed the file now, False when the cache already held it.
    Raise ``DocumentError`` for a file it cannot read (the host ignores it here: the
    provider reports what it makes of the file).

    Calling convention: firstresult, called only on the plugin chosen for the file's
    extension; None means the plugin keeps nothing ahead of time.
    """


@hookspec
def prepare_search() -> None:
    """Get ready to locate: called while the provider works on a search's query.

    A fresh ``mnote-kr search`` process waits for LightRAG's answer before it locates
    anything; a locator plugin that imports its locating code only when ``locate`` is first
    called (to keep ``status`` and ``--help`` light) may import it here instead, so the user
    waits for those imports only when LightRAG answers sooner. Read no user file and do
    nothing slow: the answer may already be in.

    Calling convention: collect-all, called only on the plugins chosen as locators for some
    extension, before the provider's answer is read. An exception is ignored here (the
    ``locate`` call that follows reports its own failure).
    """


@hookspec(firstresult=True)
def check_budget(path: str, max_text_chars: int) -> str | None:
    """Whether this plugin's reader would take ``path`` within its budgets: None when it would,
    else one line naming the budget the file exceeds and by how much (``"word/document.xml
    expands to 141,557,760 bytes (limit: XML part size 64 MiB)"``).

    The host asks before a file is sent to the provider (``ingest``, and the watcher and
    ``sync`` through it). A file over a reader's budget is not sent: the provider would spend
    its time and memory on what no citation could ever land in. It is recorded ``refused``
    with this reason, and cited nowhere. Check the limits the reader applies when it reads
    the file (file bytes, the size of its parts once inflated, nesting, text, pages), from
    the cheapest first; a file that is only broken (not a zip, encrypted) is not over a
    budget: answer None, and the provider says what it makes of it. ``max_text_chars`` is the
    host's index budget (``max_index_chars``): the most text one file may send to the
    provider, which grows the provider's index (and its memory) chunk by chunk; check the
    text the reader extracts against it where that is cheap to know.

    Calling convention: firstresult, called only on the plugin chosen for the file's
    extension (as ``locate``); no plugin for the extension, or None, means no reader limit
    applies.
    """


@hookspec(firstresult=True)
def extract_text(path: str, progress: Callable[[str], None]) -> str | None:
    """The text of ``path`` as this plugin reads it, as Markdown (headings as ``#`` lines,
    one paragraph per block), or None when it does not read that kind of file. ``progress``
    (optional to take) receives a line per step of slow reading (OCR: pages done, limits hit).

    The host offers it to the provider (``ProviderContext.extract_text``) for files the
    provider's own parser fails on, or reads only in part, or of a type it does not take (a plugin
    that claims an extension in ``locator_extensions`` and reads it here adds the type: the host
    lists it in ``ProviderContext.text_suffixes``): the text is indexed in their place,
    and citations still land in the original file because the locator reads the same
    paragraphs. A presentation marks the words that are not its slides' top-level shapes' text:
    each speaker-notes paragraph starts ``Notes: ``, and the first paragraph of a table, a chart
    (its cached data) and a group's text starts ``Table: ``, ``Chart: `` and ``Group: `` (so a
    provider whose parser reads only top-level shapes can tell what a deck holds beyond them).

    Calling convention: firstresult, called only on the plugin chosen for the file's
    extension. Raise ``DocumentError`` for a file it cannot read either.
    """


@hookspec(firstresult=True)
def recognize_text(path: str, progress: Callable[[str], None]) -> str | None:
    """The text of a file some or all of whose pages only OCR can read (a PDF of scanned pages, or
    a text PDF with scanned pages inside): Markdown with a ``## Page N`` line before each page (a
    page with a text layer gives that text, a scanned page what was recognised on it), or None when
    this plugin does not recognise that kind of file or no page of it needs recognition.

    The host asks it when the locator plugin of the file's extension gives no text
    (``extract_text``), and the provider asks it (``ProviderContext.recognize_text``) before it
    sends a PDF, so it indexes what the scanned pages show. Recognise once per file content.
    Raise ``DocumentError`` (``OverBudgetError``) for a file it cannot (may not) read.

    Calling convention: firstresult, every plugin that implements it (OCR plugins).
    """


@hookspec(firstresult=True)
def recognized_pages(path: str) -> tuple[int, int] | None:
    """``(pages read by OCR, pages in all)`` of a file from the recognition ``recognize_text`` kept for it
    (never recognise here), or None when it kept none: the provider says whether all of a PDF's pages or some
    of them were recognised.

    Calling convention: firstresult, every plugin that implements it (OCR plugins).
    """


@hookspec(firstresult=True)
def locate_recognized(request: LocateRequest) -> Locator | None:
    """A place in the recognised text of a file whose own locator found none (a scanned PDF
    page): ``bbox`` with the page and the line's box in the locator's frame, or None (no
    recognition kept for this file, no match, or the passage is best placed on a page with a
    text layer: ``text_layer_request`` then lets the file's own locator place it). Never
    recognise here: answer from what ``recognize_text`` kept.

    Calling convention: firstresult, every plugin that implements it, asked only when the
    extension's locator answered a degraded ``file`` locator.
    """


@hookspec(firstresult=True)
def text_layer_request(request: LocateRequest) -> LocateRequest | None:
    """``request`` cut to the pages of the file that have a text layer, for the file's own locator:
    the evidence and passage without the page markers and the text recognised on scanned pages
    (a passage of a PDF whose indexed text holds both), or None (nothing recognised in this file,
    or nothing of the evidence is left).

    Calling convention: firstresult, every plugin that implements it, asked only when the
    extension's locator answered a ``file`` locator and ``locate_recognized`` found no place
    on a scanned page; the extension's locator is then asked again with this request.
    """


@hookspec
def reader_status(entries: Mapping[str, SourceEntry]) -> dict[str, Any] | None:
    """What this reader still has to do, or could not do, for the workspace's files, as
    ``{"name": {...}}`` for ``mnote-kr status`` (OCR: files waiting for recognition and files it
    failed on, each with its reason), or None when it has nothing to say.

    ``entries`` maps every registry entry's workspace-relative path to its entry, decoded when
    looked up: pick yours by the key's suffix first, and read no user file (the entry's
    ``source_hash`` names the content).

    Calling convention: collect-all; the host merges the answers into ``status``'s ``readers``.
    """


# --------------------------------------------------------------------------- extension points for shells


@hookspec
def register_commands(cli: Any) -> None:
    """Add sub-commands to the ``mnote-kr`` CLI (``cli`` is its click group).

    Calling convention: collect-all broadcast; return value ignored.
    """
