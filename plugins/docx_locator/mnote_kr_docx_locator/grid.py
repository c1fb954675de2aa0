"""A table cell's place on its table's grid, read from ``w:tcPr`` and ``w:trPr`` (the reader's walk).

Word keeps a merged cell as its first cell with a span (``w:gridSpan``: columns) or a vertical merge
(``w:vMerge w:val="restart"`` on the first, ``w:vMerge`` on the cells it covers below, whose own
paragraphs are empty); a row may leave grid columns empty before its first cell (``w:gridBefore``).
"""

from __future__ import annotations

from lxml import etree

#: A cell's span is capped (a hostile value must not make a row's reading loop over millions of columns).
MAX_SPAN = 64


def _local(el: etree._Element) -> str | None:
    return etree.QName(el).localname if isinstance(el.tag, str) else None


def _val(el: etree._Element) -> str | None:
    return next((str(v) for k, v in el.attrib.items() if k.endswith("}val")), None)


def _number(el: etree._Element) -> int | None:
    try:
        return int(_val(el) or "")
    except ValueError:
        return None


def grid_before(tr: etree._Element) -> int:
    """The grid columns a row leaves empty before its first cell (``w:trPr/w:gridBefore``)."""
    for pr in tr:
        if _local(pr) == "trPr":
            for el in pr:
                if _local(el) == "gridBefore":
                    return min(max(0, _number(el) or 0), MAX_SPAN)
    return 0


def cell_props(tc: etree._Element) -> tuple[int, str | None]:
    """A cell's span in grid columns and its vertical merge: "restart", "continue" or None."""
    span, merge = 1, None
    for pr in tc:
        if _local(pr) == "tcPr":
            for el in pr:
                local = _local(el)
                if local == "gridSpan":
                    span = min(max(1, _number(el) or 1), MAX_SPAN)
                elif local == "vMerge":
                    merge = "restart" if _val(el) == "restart" else "continue"
            break
    return span, merge
