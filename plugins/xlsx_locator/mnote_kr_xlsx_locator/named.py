"""The sheet a query names ("the total on the Sales sheet", "sheet 'Q1'", "工作表 销售", "the second sheet").

A provider returns a small workbook as one passage, and the row the evidence matched may be on another
sheet; when the query names a sheet of the workbook (the host's ``named_places``: by its name, else by
its number in the workbook's tab order) and the matched row is on none of them, the named sheet's row
holding the query's other words is cited (its first row when no word chooses), the matched row first
behind it. A sheet the workbook does not have leaves the citation as it was.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from mnote_kr.plugin_api import (
    Locator,
    TextDocument,
    named_places,
    places_key,
    rank_by_meaning,
    without_file_description,
    without_places,
)

from .reader import RowParagraph


def choosing_words(query: str) -> str:
    """The query's words that choose a row and cell: without the sheets it names ("Sheet 4 values": "values"),
    so a sheet named that holds no row of the passage chooses as if none were named. A sheet's unquoted
    name stays (``without_places``)."""
    return without_places(query) if named_places(query) else query


def named_sheets(sheets: list[str], query: str) -> list[str]:
    """The workbook's ``sheets`` (names in tab order) the query names, in the order it names them: by name
    (the longest the query holds), else by number."""
    out: list[str] = []
    for place in named_places(query):
        if place.kind != "sheet":
            continue
        names = place.named(sheets)[:1] or [sheets[n - 1] for n in place.numbered(len(sheets))]
        out += [n for n in names if n not in out]
    return out


def at_named_sheet(rows: TextDocument[RowParagraph], row: RowParagraph, query: str, sheets: list[str],
                   pick: Callable[[list[RowParagraph], RowParagraph, str], RowParagraph],
                   query_words: Callable[[str], set[str]]) -> tuple[RowParagraph, str, bool] | None:
    """When the query names sheets of the workbook and ``row`` (the evidence's) is on none of them: the row
    of those sheets ``pick(run, first, query)`` chooses by the query's other words (the sheet's first row
    when none does; ``query_words``: a text's words without scaffolding), the reason, and whether that is
    an approximate place (the query's other words are in the workbook, none in the row); else None."""
    names = named_sheets(sheets, query)
    if not names or row.sheet in names:
        return None
    cands = [p for p in rows.paragraphs if p.sheet in names and p.tokens]
    if not cands:
        return None
    rest = without_places(without_file_description(query))  # "of the emf workbook" says which file
    chosen = pick(cands, cands[0], rest)
    words = query_words(rest) - set().union(*(query_words(n) for n in names))
    degraded = bool(words & rows.df.keys()) and not words & chosen.tokens
    why = f"the query names sheet {', '.join(names)}" + (
        "; none of its other words is there: an approximate place" if degraded else "")
    return chosen, why, degraded


def evidence_row_first(rows: TextDocument[RowParagraph], located: Locator, evidence_row: Locator,
                       row: RowParagraph, query: str) -> Locator:
    """``located`` (on the named sheet, with the rows behind it) with the evidence's own row first behind
    it: approximate, with its cosine once ingest embedded the workbook; a row behind at the same cells
    left out."""
    ranked = rank_by_meaning(places_key([p.text for p in rows.paragraphs]), query, {row.index: 0.0})
    cos = ranked[1].get(row.index) if ranked is not None else None
    first = msgspec.structs.replace(evidence_row, locator_degraded=True, highlight=None, runners_up=[],
                                    meaning_score=round(cos, 6) if cos is not None else None)
    behind = [r for r in located.runners_up if (r.sheet, r.range) != (first.sheet, first.range)]
    return msgspec.structs.replace(located, runners_up=[first, *behind])
