"""mnote-kr XLSX locator: a citation lands on the sheet, the row of a table or the one cell.

Written only against ``mnote_kr.plugin_api``, as a third party's plugin would be. ``reader``
turns a workbook into one paragraph per non-empty row (values as LightRAG indexes them: formulas
by their cached value, else their text), knowing each row's table header and label; the host's ``match_evidence``
finds the row the evidence came from. The answer is ``cell`` precision (sheet, A1 range of the
row or of the one cell the query names, header texts, row label), or an honest ``file`` locator.
Cell comments are lines of their own (``comments``), cited on the commented cell in their words.
Hidden sheets and rows are searched only when nothing visible matches.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr.plugin_api import DocumentModel, LocateRequest, Locator, hookimpl

PLUGIN_NAME = "xlsx_locator"
EXTENSIONS = (".xlsx", ".xlsm")
__version__ = "0.1.0"
#: Rows of a workbook ingest embeds at most (each row a place ranked by meaning; e5 on a CPU embeds
#: some hundreds a second, so a 100,000-row sheet would hold ingest for minutes).
MEANING_ROWS = 5_000


def _ours(path: str) -> bool:
    return Path(path).suffix.lower() in EXTENSIONS


@hookimpl
def locator_extensions() -> list[str]:
    """This plugin locates citations in ``.xlsx`` and ``.xlsm`` workbooks."""
    return list(EXTENSIONS)


@hookimpl
def locate(request: LocateRequest) -> Locator | None:
    """``cell`` locator for workbooks; None for any other suffix. Raises ``DocumentError``."""
    if not _ours(request.file):
        return None
    from .locating import locate_xlsx

    return locate_xlsx(request)


@hookimpl
def extract_text(path: str) -> str | None:
    """The sheets as Markdown (hidden ones and hidden rows too, as LightRAG reads a workbook: this text
    stands in for its reading): a ``#`` line per sheet, one line per row, and each cell comment
    (a note, or each comment and reply of a thread) as a line naming its sheet and cell right after the
    row holding that cell (``Comment on Sheet1!F7 (author): words``)."""
    if not _ours(path):
        return None
    from .reader import load_xlsx

    return load_xlsx(path).markdown()


@hookimpl
def check_budget(path: str) -> str | None:
    """Why the reader would not take this workbook (the budget it exceeds: file bytes, zip entries, a part's
    inflated size or compression ratio, a sheet's rows holding a value, the cells its sheets' XML holds), or
    None. Read from the zip directory and a streaming count of the sheets' XML (``reader.check_workbook``,
    what reading it checks first), never loading it. A file that is only broken (not a zip, a damaged part)
    is not over a budget: None. Its text is not counted against the host's index budget (``max_text_chars``,
    not taken here): that would take the load this check avoids."""
    if not _ours(path):
        return None
    from mnote_kr.plugin_api import budget_refusal

    from .reader import check_workbook

    return budget_refusal(path, check_workbook)


@hookimpl
def prepare_locate(path: str) -> bool | None:
    """Have ingest embed the workbook's visible rows, and all its rows when some are hidden, when there are at
    most ``MEANING_ROWS`` (the rows behind a cited one are ranked by meaning too; a larger workbook's by
    words): parsed for it (kept in memory for this process) only when its sheets' XML says it has no more
    rows than that."""
    if not _ours(path):
        return None
    from mnote_kr.plugin_api import queue_places

    from .reader import count_rows, load_xlsx, warm_xlsx

    parsed = warm_xlsx(path)
    rows_at_most = count_rows(path, MEANING_ROWS)
    if rows_at_most is not None and rows_at_most > MEANING_ROWS:
        return parsed  # too many to embed: not parsed only to be skipped
    doc = load_xlsx(path)
    # The visible rows, and every row when some are hidden: ``locate_xlsx`` ranks among every row when no
    # visible one matches, and a search that found no vectors for those would record the workbook as
    # placed by words only (nc25a: status changed after searches alone, and sync "re-embedded" nothing).
    for rows in (doc.visible, doc):
        if rows is not None and len(rows.paragraphs) <= MEANING_ROWS:
            queue_places(rows)
    return parsed


@hookimpl
def document_model(path: str) -> DocumentModel | None:
    """The sheets for the viewer: each sheet's non-empty cells (row, column, value as shown), capped
    (``truncated``), as ``locate`` reads them; None for any other suffix."""
    if not _ours(path):
        return None
    from .view import document_model_xlsx

    return document_model_xlsx(path, PLUGIN_NAME)
