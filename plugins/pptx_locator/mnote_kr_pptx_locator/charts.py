"""A chart's data as words: read from the cached values in the chart part's XML.

python-pptx's chart API raises on plot types it does not model (``bar3DChart``: "unsupported plot
type"), so the chart part is read directly: its title (``c:title``), then each series (``c:ser``, in
any plot type) with its name (``c:tx``), categories (``c:cat``, or a scatter's ``c:xVal``) and values
(``c:val``, or ``c:yVal``), from the caches PowerPoint writes beside the embedded workbook
(``c:strCache``, ``c:numCache``, or literal ``c:strLit`` / ``c:numLit``). A series without cached
values is skipped; the points read per chart are bounded.

The text is one line per category, the way a person reads the chart's table aloud::

    Wild Duck Observations by Year
    2019: Freshwater Ducks 120, Saltwater Ducks 80
    2020: Freshwater Ducks 130, Saltwater Ducks 95

A chart without a title is headed by its series' names (PowerPoint shows a single series' name as
its title), and with a single series a line is ``category: value``.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R_ID = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
#: Points (category x series) read from one chart; the rest is left out.
MAX_POINTS = 5_000
#: Series read from one chart.
MAX_SERIES = 100
#: Characters kept of one cached value (a category label, a series name).
MAX_LABEL = 200
_CACHES = (C + "strCache", C + "numCache", C + "strLit", C + "numLit")


def chart_rid(element: Any) -> str | None:
    """The relationship id of the chart a ``p:graphicFrame`` element shows, or None (a table, a picture)."""
    if not str(element.tag).endswith("}graphicFrame"):
        return None
    for chart in element.iter(C + "chart"):
        return chart.get(R_ID)
    return None


def _clean(text: str | None) -> str:
    return " ".join((text or "").split())[:MAX_LABEL]


def _number(text: str, percent: bool) -> str:
    """A cached number as a person writes it: ``120``, ``0.3`` (not ``0.30000000000000004``), ``25%``."""
    try:
        value = float(text)
    except ValueError:
        return _clean(text)
    if percent:
        value *= 100
    out = str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.12g}"
    return out + ("%" if percent else "")


def _is_date(fmt: str) -> bool:
    """A number format that shows a date (``yyyy\\-mm\\-dd``, ``m/d/yyyy``, ``mmm-yy``): a year or day
    code outside quoted text and ``[...]`` sections."""
    bare = re.sub(r'"[^"]*"|\[[^\]]*\]|\\.', "", fmt).lower()
    return "y" in bare or "d" in bare


def _date(text: str, date1904: bool) -> str:
    """A spreadsheet serial day number as an ISO date (``43466`` -> ``2019-01-01``); the text itself when
    it is no number."""
    try:
        serial = float(text)
    except ValueError:
        return _clean(text)
    base = dt.date(1904, 1, 1) if date1904 else dt.date(1899, 12, 30)  # (1900's leap-day bug included)
    try:
        return (base + dt.timedelta(days=int(serial))).isoformat()
    except OverflowError:
        return _clean(text)


def _points(holder: Any, budget: int, date1904: bool = False) -> dict[int, str]:
    """``{index: text}`` of the cached points under a ``c:tx``/``c:cat``/``c:val`` element (a multi-level
    category's labels joined outermost first: ``2019 Q1``); empty when nothing is cached."""
    if holder is None:
        return {}
    cache = next((e for e in holder.iter(*_CACHES)), None)
    if cache is None:
        levels = list(holder.iter(C + "lvl"))  # c:multiLvlStrCache: the first level is the innermost
        if levels:
            return _levels(levels, budget)
        v = holder.find(C + "v")  # a series name written in place: ``c:tx/c:v``
        return {0: _clean(v.text)} if v is not None and (v.text or "").strip() else {}
    fmt = (cache.findtext(C + "formatCode") or "").strip()
    percent = fmt.endswith("%")
    numeric = str(cache.tag).endswith(("numCache", "numLit"))
    dated = numeric and _is_date(fmt)
    out: dict[int, str] = {}
    for idx, text in _cached(cache, budget):
        out[idx] = _date(text, date1904) if dated else _number(text, percent) if numeric else _clean(text)
    return out


def _cached(cache: Any, budget: int) -> list[tuple[int, str]]:
    """``(index, text)`` of a cache's points with a value, at most ``budget``."""
    out: list[tuple[int, str]] = []
    for pt in cache.iterfind(C + "pt"):
        if len(out) >= budget:
            break
        v = pt.find(C + "v")
        try:
            idx = int(pt.get("idx", ""))
        except ValueError:
            continue
        if v is not None and v.text is not None and v.text.strip():
            out.append((idx, v.text.strip()))
    return out


def _levels(levels: list[Any], budget: int) -> dict[int, str]:
    """A multi-level category: each innermost label behind the outer labels it falls under (an outer
    point stands over the inner points from its index to the next outer point's)."""
    inner = {idx: _clean(text) for idx, text in _cached(levels[0], budget)}
    outers = [sorted((idx, _clean(text)) for idx, text in _cached(level, budget)) for level in levels[1:]]
    out = {}
    for i, label in inner.items():
        heads = [next((text for idx, text in reversed(outer) if idx <= i), "") for outer in reversed(outers)]
        out[i] = " ".join(h for h in (*heads, label) if h)
    return out


def _title(space: Any) -> str:
    chart = space.find(C + "chart")
    title = chart.find(C + "title") if chart is not None else None
    tx = title.find(C + "tx") if title is not None else None
    if tx is None:
        return ""
    rich = tx.find(C + "rich")
    if rich is not None:
        lines = ("".join(t.text or "" for t in p.iter(A + "t")) for p in rich.iter(A + "p"))
        return _clean(" ".join(line for line in lines if line.strip()))
    return " ".join(_points(tx, 10).values())


def chart_lines(space: Any) -> list[str]:
    """The chart part's root element (``c:chartSpace``) as lines of text (see the module): its title,
    then a line per category; empty when no series has cached values."""
    series: list[tuple[str, dict[int, str], dict[int, str]]] = []
    budget = MAX_POINTS
    flag = space.find(C + "date1904")
    date1904 = flag is not None and flag.get("val", "1") in ("1", "true")
    for n, ser in enumerate(space.iter(C + "ser")):
        if n >= MAX_SERIES or budget <= 0:
            break
        cats = ser.find(C + "cat")
        cats = cats if cats is not None else ser.find(C + "xVal")
        vals = ser.find(C + "val")
        vals = vals if vals is not None else ser.find(C + "yVal")
        values = _points(vals, budget)
        if not values:
            continue
        budget -= len(values)
        name = " ".join(_points(ser.find(C + "tx"), 10).values()) or f"Series {n + 1}"
        series.append((name, _points(cats, len(values) + 1_000, date1904), values))
    if not series:
        return []
    head = _title(space) or ", ".join(name for name, _, _ in series)
    order = sorted({i for _, _, values in series for i in values})
    lines = [head] if head else []
    for i in order:
        label = next((cats[i] for _, cats, _ in series if i in cats), str(i + 1))
        if len(series) == 1:
            lines.append(f"{label}: {series[0][2][i]}")
        else:
            lines.append(f"{label}: " + ", ".join(f"{name} {values[i]}" for name, _, values in series if i in values))
    return lines
