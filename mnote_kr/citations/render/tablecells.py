"""``CELL_LEADS``: a question naming a table's row and one of its columns leads with that cell.

"高测股份2024年营业收入预测" names the row 营业总收入 (its words, the 总 "total" aside) and the column 2024E (the year;
E: estimated) of a report's forecast table; "How many saltwater ducks were observed in 2022?" the column Saltwater
Ducks of a workbook's row whose Year is 2022. A place written as the locators write a table's cells, "营业总收入,
2024E: 5,752" or "Year: 2022; Saltwater Ducks: 110", holding a value under a column the question names in a row it
names, answers it where a heading, a page's header or the prose around the table only say where the answer is
(nc24a Q11: the p1 header box came first). A row whose label only holds the named label in a longer one (营业收入增长率
for 营业收入, a growth rate) is another row: it names it only when the question says it whole. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypeVar

from mnote_kr.citations.rank.ranking import fold, terms
from mnote_kr.citations.text.textnorm import lazy_compile

__all__ = ["column_keys", "keyed_header", "named_cell"]

T = TypeVar("T")

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_CN_NUM = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "十一": 11,
           "十二": 12}
#: A column a question names beside a row: a date, a year (2024, 2024E, 2024年, FY 2024), a quarter (Q2, 2季度,
#: 第二季度), a month (April, Apr, 4月, 四月).
_KEY_RE = lazy_compile(
    r"(?P<date>(?<!\d)(?:19|20)\d\d[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])(?!\d))"
    r"|(?P<year>(?<![\d.])(?:19|20)\d\d(?![\d.,%]))"
    r"|(?P<quarter>\bq[1-4]\b|(?<![\d.])[1-4一二三四](?=\s*季度))"
    r"|(?P<month>\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b"
    r"|(?<![\d.季])(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])(?=\s*月))")
#: A value: a number, with separators, a sign or a percent.
_VALUE_RE = lazy_compile(r"[-−]?\d[\d,，]*(?:\.\d+)?\s*%?")
#: A unit or note after a label: 营业收入(百万元), 毛利率%, "Revenue (USD)".
_UNIT_RE = lazy_compile(r"\s*[(（][^)）]*[)）]|%")
_CJK_RE = lazy_compile(r"[\u3400-\u9fff]")


def column_keys(text: str) -> set[str]:
    """The dates, years, quarters and months ``text`` names, as keys comparable between a question and a header:
    ``y2024`` (2024, 2024E, FY 2024, 2024年), ``q2``, ``m4``, ``d2024-1-7``."""
    keys = set()
    for m in _KEY_RE.finditer(fold(text)):
        word = m.group(0)
        if m.lastgroup == "date":
            y, mo, d = re.split(r"[-/.]", word)
            keys.add(f"d{int(y)}-{int(mo)}-{int(d)}")
        elif m.lastgroup == "year":
            keys.add(f"y{word}")
        elif m.lastgroup == "quarter":
            keys.add(f"q{_CN_NUM.get(word, None) or word[-1]}")
        else:
            keys.add(f"m{_MONTHS.index(word[:3]) + 1}" if word[:3] in _MONTHS else f"m{_CN_NUM.get(word) or int(word)}")
    return keys


def keyed_header(query: str, cells: Iterable[tuple[str, T]]) -> T | None:
    """The cell whose header (each ``(header text, cell)``) names a date, year, quarter or month the question names
    (``column_keys``: "FY 2006" names "FY 2006 Actual", "April" names "Apr"), when exactly one cell's does; None when
    the question names none, no header holds one it names, or several do (a question comparing two years)."""
    asked = column_keys(query)
    found = [cell for text, cell in cells if asked and column_keys(text) & asked] if asked else []
    return found[0] if len(found) == 1 else None


def _cells(text: str) -> list[tuple[str, str, str]]:
    """``text``'s cells as the locators write a table's: (row label, column header, value) of "label, header:
    value" (one cell), "label: header: value; header: value" (a row) or "header: value; header: value" (a workbook's
    row, no label); [] for text that reads as none."""
    out, label = [], ""
    for seg in text.split(";"):
        parts = [p.strip() for p in seg.split(":")]
        if len(parts) == 3:
            label, header, value = parts
        elif len(parts) == 2:
            header, value = parts
            if not out and not label and ", " in header:
                label, header = (p.strip() for p in header.rsplit(", ", 1))
        else:
            continue
        out.append((label, header, value))
    return out


def _label_named(label: str, query: str, bare: str) -> int:
    """2: ``query`` names ``label`` as written (a Chinese label its run of characters, a Latin one every content
    word); 1: a Chinese label saying "total" (总) by its words without it (营业总收入 by 营业收入); 0: not named."""
    label = _UNIT_RE.sub("", fold(label)).strip()
    if sum(ch.isalnum() for ch in label) < 2 or _VALUE_RE.fullmatch(label):
        return 0
    if _CJK_RE.search(label):
        flat = label.replace(" ", "")
        if flat in bare:
            return 2
        without = flat.replace("总", "", 1)
        return 1 if without != flat and len(without) >= 2 and without in bare else 0
    words = [t for t in terms(label) if not t.isdigit()]
    return 2 if words and set(words) <= set(terms(query)) else 0


def named_cell(text: str, query: str) -> int:
    """How well a cell of ``text`` (written as the locators write a table's cells) answers ``query`` by name: a value
    under a column the question names (a year, quarter, month or date: ``column_keys``; or the header's every content
    word) in a row it names (its label, ``_label_named``; or another cell of the row holding a date or year the
    question names: a workbook's Year column). 0 when no cell is so named; else 1 + the row label's naming (2: as
    written, 1: without its 总, 0: by another of its cells)."""
    cells = _cells(text)
    if not cells:
        return 0
    asked = column_keys(query)
    qterms = set(terms(query))
    bare = fold(query).replace(" ", "")
    best = 0
    for label, header, value in cells:
        if not _VALUE_RE.fullmatch(value):
            continue
        words = [t for t in terms(header) if not t.isdigit()]
        keys = column_keys(header)
        if not (keys and keys & asked or words and not keys and set(words) <= qterms):
            continue
        row = _label_named(label, query, bare) if label else 0
        if not row:  # a workbook's row named by another of its cells: "Year: 2022" for "in 2022"
            same = [v for lab, h, v in cells if lab == label and h != header]
            if not any(column_keys(v) & asked for v in same):
                continue
        best = max(best, 1 + row)
    return best
