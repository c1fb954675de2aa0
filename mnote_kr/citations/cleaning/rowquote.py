"""The quote of a table row too long to show whole: its label and the cell the question asks for.

A table row reads ``label: header: value; header: value; ...`` (``tablerows.labelled_row``; a PDF table's rows
too, ``pdf_bbox.tableread``). A row of many columns runs past a quote's length, and a quote cut at that length
cut off the cell asked for: "What was the overall count of firearm background checks in Texas that month?"
showed Texas's Permit ... Returned/Disposition cells and not ``Totals: 146,982`` (the tables builder, round 23,
question en02). :func:`row_quote` keeps the label, the cells from the first while they fit, and the cell whose
header the question names (``tablerows.named_header``; a total, "overall", "in all", 合计, asks for a
``Total``/``Totals``/合计 column), "…" for the cells left out.
"""

from __future__ import annotations

import re

from mnote_kr.citations.text.tablerows import named_header

__all__ = ["row_quote"]

#: Fewest cells for a sentence to be read as a table row.
ROW_CELLS = 3
_TOTAL_ASKED = re.compile(r"\b(?:totals?|overall|altogether|in all|combined|all told)\b|合计|总计|总共|一共|共计|总数",
                          re.I)
_TOTAL_HEADER = re.compile(r"^\s*(?:grand\s+)?totals?\s*$|^\s*(?:合计|总计|总数)\s*$", re.I)


def _cells(text: str) -> tuple[str, list[tuple[str, str, str]]] | None:
    """``text`` read as a row: its label ("" when none) and its ``(header, value, as written)`` cells; None when it
    is not one (a part without "header: value", fewer than ``ROW_CELLS`` cells). A cell saying its header itself
    ("检测方法：提取…": ``labelled_row`` writes it as it is) is that header's, at its full-width colon."""
    parts = " ".join(text.split()).split("; ")
    label, sep, first = parts[0].partition(": ")
    if not sep:
        return None
    if ": " not in first and "：" not in first:  # no label: "Year: 2021; Freshwater Ducks: 150"
        label, first = "", parts[0]
    cells = []
    for part in [first, *parts[1:]]:
        header, sep, value = part.rpartition(": ")
        if not sep:
            header, sep, value = part.partition("：")
        if not sep or not header.strip() or not value.strip():
            return None
        cells.append((header, value, part))
    return (label, cells) if len(cells) >= ROW_CELLS else None


def row_quote(text: str, query: str, limit: int) -> str | None:
    """The quote of the long row ``text`` for ``query``: the label, the first cells while they fit within
    ``limit`` beside the asked one, "…" for the cells between, the asked cell, "…" when more follow it. None when
    ``text`` is no row, the question names none of its headers, or the cells up to the asked one fit anyway."""
    read = _cells(text)
    if read is None:
        return None
    label, cells = read
    asked = named_header(query, [(h, i) for i, (h, _, _) in enumerate(cells)], inflected=True)
    if asked is None and _TOTAL_ASKED.search(query):
        asked = next((i for i, (h, _, _) in enumerate(cells) if _TOTAL_HEADER.match(h)), None)
    if asked is None:
        return None
    said = [written for _, _, written in cells]
    head = f"{label}: " if label else ""
    room = limit - len(head) - len(said[asked]) - len("; …; ; …")
    kept: list[str] = []
    for cell in said[:asked]:
        if sum(len(k) + 2 for k in kept) + len(cell) > room:
            break
        kept.append(cell)
    if len(kept) == asked:
        return None  # nothing to leave out before it: the row's own cut keeps it
    more = ["…"] if asked < len(said) - 1 else []
    return head + "; ".join([*kept, "…", said[asked], *more])
