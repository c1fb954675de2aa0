"""A table row printed beside another table's row: the place stays within its own table.

Two tables set side by side (a research report's per-share figures left of its income statement) print each
line as one row of text, and ``tableread`` reads it in parts, each under its own label: ``每股指标(元)`` (a section
label of the left table, no figure of its own) and ``营业总收入: 2021: 1,567; 2022E: 3,684; …``. A place chosen
on the whole line (its words, or its meaning from outside the cited passage) was quoted and boxed across both
tables (nc26a Q14: "每股指标(元); 营业总收入: …"). :func:`own_part` keeps the one part the place stands in:

1. the part whose label the query names (``tableread``'s rule; a label saying "total" named without it too);
2. else the one part with figures, when the others hold none (they only label a section of their own table).

Otherwise the row stays whole: the query's other words do not tell the parts apart reliably (the report writes
"应收帐款周转天数" beside "应收账款及应收票据": a question of 应收账款 days holds more words of the second, its answer
is the first's), and a row shown whole still holds the answer.
"""

from __future__ import annotations

from . import tableread
from .page import PageText


def _parts(page: PageText, bi: int, lines: list[int]) -> list[list[int]]:
    """The lines of ``lines`` in each part of read row ``bi``, part by part ([] for a part none of them is in)."""
    chosen = set(lines)
    out = []
    for _, label, values in page.row_cells.get(bi, ()):
        mine = dict.fromkeys([*label, *(li for _, _, ls in values for li in ls)])
        out.append([li for li in mine if li in chosen])
    return out


def _one(found: list[int]) -> int | None:
    return found[0] if len(found) == 1 else None


def own_part(page: PageText, bi: int, lines: list[int], query: str) -> list[int]:
    """``lines`` (of block ``bi``) cut to the part of a row printed across side-by-side tables that the place
    stands in (see the module), in the block's order; ``lines`` themselves for a row read in one part, or when
    nothing tells the parts apart."""
    segments = getattr(page, "row_cells", {}).get(bi)
    if not segments or len(segments) < 2:
        return lines
    parts = _parts(page, bi, lines)
    held = [k for k, part in enumerate(parts) if part]
    if len(held) < 2:
        return lines
    pick = None
    for loose in (False, True):
        if pick is None and query:
            pick = _one([k for k in held if tableread._names(query, segments[k][0], loose=loose)])
    if pick is None:
        pick = _one([k for k in held if segments[k][2]])
    if pick is None:
        return lines
    keep = set(parts[pick])
    return [li for li in lines if li in keep]
