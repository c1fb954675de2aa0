"""The rows a query names by their number ("the col-4 value in row 9 of Sheet2", "rows 3", "第9行"): a row number,
not a value a cell holds (nc23c problem 4: "row 9" cited the row holding the value 9, D4, not row 9, D9)."""

from __future__ import annotations

import re

_ROW_RE = re.compile(r"\brows?\s*(?:no\.?|number|#)?\s*(\d{1,7})\b|第\s*(\d{1,7})\s*行", re.IGNORECASE)


def named_rows(query: str) -> set[int]:
    """The row numbers the query names ("row 9": {9})."""
    return {int(m.group(1) or m.group(2)) for m in _ROW_RE.finditer(query or "")}


def without_named_rows(query: str) -> str:
    """The query without the rows it names by number, so their numbers are not read as values."""
    return _ROW_RE.sub(" ", query or "")
