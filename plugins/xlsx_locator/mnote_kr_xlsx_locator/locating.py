"""Evidence to a ``cell`` locator, or an honest ``file`` one.

The row comes from ``match_evidence`` over the visible rows (then over every row, hidden ones
included, when nothing visible matches). Inside the row, the query picks the one value: the
only value column whose cell or header carries a query word is cited as that cell (``C12``);
otherwise the row's cells are (``B7:D7``). ``locatorReason`` reads the cited place as people do:
"Revenue, 2023: 4,100".
"""

from __future__ import annotations

from mnote_kr.plugin_api import (
    Highlight,
    LocateRequest,
    Locator,
    Match,
    iter_tokens,
    locator_from_match,
    match_evidence,
    normalize,
    scaffolding,
)

from .reader import RowParagraph, XlsxDocument, column_letter, load_xlsx

PLUGIN_NAME = "xlsx_locator"


def _tokens(text: str) -> set[str]:
    return {tok for tok, _, _ in iter_tokens(normalize(text))}


def query_words(query: str) -> set[str]:
    """The query's tokens without question scaffolding ("what", "was", "the", ...)."""
    words = [tok for tok, _, _ in iter_tokens(normalize(query))]
    return {w for w, scaffold in zip(words, scaffolding(words), strict=True) if not scaffold}


def value_column(row: RowParagraph, query: str) -> int | None:
    """The one value column the query names best (query words in its value and its header), else None."""
    words = query_words(query)
    if not words:
        return None
    hits = sorted(((len((_tokens(text) | _tokens(row.headers.get(col, ""))) & words), col)
                   for col, text in row.cells if col != row.label_column), reverse=True)
    if not hits or hits[0][0] == 0 or (len(hits) > 1 and hits[1][0] == hits[0][0]):
        return None
    return hits[0][1]


def reading(row: RowParagraph, columns: list[int]) -> str:
    """The cited cells as people read them: "Revenue, 2023: 4,100" or "Revenue: 2022: 3,900; 2023: 4,100"."""
    shown = {col: text for (col, _), text in zip(row.cells, row.shown, strict=True)}
    label = shown.get(row.label_column) if row.label_column is not None else None
    parts = [f"{row.headers[c]}: {shown[c]}" if row.headers.get(c) else shown[c] for c in columns if c in shown]
    if len(parts) == 1 and label:
        return f"{label}, {parts[0]}"
    return f"{label}: " + "; ".join(parts) if label else "; ".join(parts)


def cell_locator(row: RowParagraph, query: str, *, highlight: Highlight | None, score: float | None,
                 reason: str, block_id: str | None) -> Locator:
    """The ``cell`` locator of one matched row."""
    one = value_column(row, query)
    cols = [col for col, _ in row.cells]
    if one is not None:
        cited, where = [one], f"{column_letter(one)}{row.row}"
    else:
        cited = [c for c in cols if c != row.label_column] or cols
        lo, hi = column_letter(cols[0]), column_letter(cols[-1])
        where = f"{lo}{row.row}" if lo == hi else f"{lo}{row.row}:{hi}{row.row}"
    read = reading(row, cited)
    why = f"{reason}: {row.sheet}!{where}" + (" (hidden)" if row.hidden else "") + f": {read}"
    return Locator(
        locator_precision="cell", locator_degraded=False, sheet=row.sheet, range=where,
        header_row=row.header_row, headers=[row.headers.get(c, "") for c in cited] if row.headers else [],
        row_label=dict(row.cells).get(row.label_column) if row.label_column is not None else None,
        highlight=highlight, score=score, block_id=block_id, locator_plugin=PLUGIN_NAME,
        reason=why, locator_reason=why,
    )


def _match(doc: XlsxDocument, request: LocateRequest) -> tuple[RowParagraph | None, Match]:
    block = request.block
    heading = block.heading if block is not None else None
    content = block.content if block is not None else None
    if doc.visible is not None:
        match = match_evidence(doc.visible, request.evidence, request.query, block_heading=heading,
                               block_content=content)
        if match.paragraph is not None:
            return doc.visible.paragraphs[match.paragraph.index], match
    match = match_evidence(doc, request.evidence, request.query, block_heading=heading, block_content=content)
    return (doc.paragraphs[match.paragraph.index] if match.paragraph is not None else None), match


def locate_xlsx(request: LocateRequest) -> Locator:
    """Locate ``request.evidence`` in the workbook ``request.file``. Raises ``DocumentError``."""
    doc = load_xlsx(request.file)
    block_id = request.block_id or (request.block.blockid if request.block is not None else None)
    row, match = _match(doc, request)
    if row is None:
        return locator_from_match(match, plugin=PLUGIN_NAME, block_id=block_id)  # ``file``, degraded
    highlight = Highlight(start=match.highlight[0], end=match.highlight[1]) if match.highlight else None
    return cell_locator(row, request.query, highlight=highlight, score=match.score, reason=match.reason,
                        block_id=block_id)
