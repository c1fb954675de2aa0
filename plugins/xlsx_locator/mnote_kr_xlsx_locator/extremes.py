"""A which-question with a superlative naming a numeric column: the row holding the column's extreme answers.

"Which product had the highest quantity sold in a single day?" over a sales table (Product | Date | Quantity |
Revenue) is answered by the row whose Quantity is largest, wherever it stands: the evidence window holds the
header and the first rows, centred where the query's words cluster, and by words the header row held the
question best (nc18b problem 4: cited A1:D1, the rows behind it holding 9, the maximum 12 in rows 8 and 19).
The locator reads the whole table, so it can say which row that is.

The rule fires only when all of these hold, else the place stays what the words chose:

* the question asks "which"/"what" (哪), or asks the value in Chinese (多少, 是什么, 最小值: nc21a Q23, "Sheet1 中
  third 列最小的值是多少", cited the header C1), and says a superlative (``HIGHEST``/``LOWEST``: highest, largest, most,
  maximum ...; 最高, 最多, 最大 / 最低, 最少, 最小);
* the cited row belongs to a table with a header (or is the title line right over one: "Number of freshwater ducks
  per year" over Year | Freshwater Ducks), and the question names one of its columns (every word of the header, by
  stem or written short with a full stop, a CJK header as written, or a Latin header in Chinese words by the
  dictionary: 淡水鸭 for "Freshwater Ducks", ``named_in_chinese``) other than the which-noun's (哪一年: Year)
  ("which year had the most rain": Year is what is asked, Rain the column to rank); the nearest such column to
  the superlative when several are named;
* every non-empty cell of that column in the table is a number (a column of text or dates has no extreme here),
  at least two of them.

A which-question is answered by the row (its noun and the value); a question asking the value itself ("what is the
lowest third", 最小的值是多少, 最大值) by the column's cell in that row.

Ties: the first row in sheet order is cited, the other tied rows first behind it, and the reason names them;
the place is then claimed approximate (the question has more than one answer). A single extreme is exact.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from mnote_kr.plugin_api import (
    LocateRequest,
    Locator,
    TextDocument,
    abbreviated_at,
    iter_tokens,
    lazy_compile,
    named_in_chinese,
    normalize,
    stem,
)

from .reader import RowParagraph

HIGHEST = ("highest", "largest", "biggest", "greatest", "most", "maximum", "max", "top", "最高", "最多", "最大")
LOWEST = ("lowest", "smallest", "least", "fewest", "minimum", "min", "最低", "最少", "最小")
_SUPERLATIVE = lazy_compile(r"(?i)\b(" + "|".join(w for w in (*HIGHEST, *LOWEST) if w.isascii()) + r")\b|("
                            + "|".join(w for w in (*HIGHEST, *LOWEST) if not w.isascii()) + ")")
_WHICH = lazy_compile(r"(?i)\b(?:which|what)\b(?:\s+(\w+))?|哪(?:个|一个|一|些|种|位|家)?(\w{0,4})"
                      r"|(是多少|为多少|多少|是什么|是几|(?<=最[小大高低少多])的?值)")
#: Words after "what" that ask for the value itself ("what is the lowest third"), not for a row by its noun.
_VALUE_WORDS = frozenset({"", "is", "was", "are", "were", "value", "number", "amount"})
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_NUMBER = re.compile(r"[-+]?(?:\d+(?:,\d{3})*|\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?%?")


@dataclass(frozen=True, slots=True)
class Extreme:
    """The rows holding a table column's highest (``highest``) or lowest value, in sheet order."""

    rows: list[RowParagraph]
    column: int
    header: str
    highest: bool
    value: str
    #: The question asks the value itself ("third 列最小的值是多少", "what is the lowest third"): the cell answers,
    #: not the whole row (a which-question: "which product had the highest quantity").
    asks_value: bool = False


def _number(text: str) -> float | None:
    text = text.strip().replace(" ", "")
    if not text or not _NUMBER.fullmatch(text) or not any(ch.isdigit() for ch in text):
        return None
    try:
        return float(text.rstrip("%").replace(",", ""))
    except ValueError:
        return None


def _named_at(header: str, query: str, words: dict[str, int]) -> int | None:
    """Where the normalised ``query`` names ``header`` (its first word's place; ``words``: the query's word
    stems and their places), or None: every word of the header, by its stem or written short in the header
    ("Qty." for the query's "quantity"); a CJK header as written."""
    norm = normalize(header).strip()
    if any(ord(ch) >= 0x2E80 for ch in norm):
        return query.find(norm) if norm in query else None
    if _CJK.search(query):  # 淡水鸭 names "Freshwater Ducks" (the dictionary), as "freshwater ducks" would
        at = named_in_chinese(query, header)
        if at is not None:
            return at
    places = []
    for tok, _, _ in iter_tokens(norm):
        at = words.get(stem(tok))
        if at is None:
            at = next((pos for w, pos in words.items() if abbreviated_at(norm, w, header)), None)
        if at is None:
            return None
        places.append(at)
    return min(places) if places else None


def asked_extreme(doc: TextDocument[RowParagraph], row: RowParagraph, query: str) -> Extreme | None:
    """The table rows holding the extreme ``query`` asks of a column of ``row``'s table, or None (module
    docstring: every condition for the rule)."""
    sup = _SUPERLATIVE.search(query)
    which = _WHICH.search(query)
    if sup is None or which is None or row.comment:
        return None
    if not row.is_header and row.header_row is None:  # a title over a table ("Number of freshwater ducks per year")
        row = _table_under(doc, row)
        if row is None:
            return None
    head_row = row.row if row.is_header else row.header_row
    headers = dict(row.cells) if row.is_header else row.headers
    if head_row is None or not headers:
        return None
    said = normalize(query)
    words: dict[str, int] = {}
    for tok, start, _ in iter_tokens(said):
        words.setdefault(stem(tok), start)
    asked_noun = normalize(which.group(1) or which.group(2) or "") if not which.group(3) else ""
    table = [p for p in doc.paragraphs if p.sheet == row.sheet and p.region == row.region and not p.comment
             and not p.is_header and p.header_row == head_row]
    best: tuple[int, int] | None = None
    for col, header in headers.items():
        at = _named_at(header, said, words)
        if at is None or (asked_noun and (stem(asked_noun) in {stem(t) for t, _, _ in iter_tokens(normalize(header))}
                                          or normalize(header).strip() == asked_noun
                                          or _CJK.match(asked_noun) and named_in_chinese(asked_noun, header) == 0)):
            continue  # (哪一年: 年 names "Year", the column asked)
        values = [_number(dict(p.cells)[col]) for p in table if col in dict(p.cells)]
        if len(values) < 2 or any(v is None for v in values):
            continue
        distance = abs(at - sup.start())
        if best is None or distance < best[0]:
            best = (distance, col)
    if best is None:
        return None
    col = best[1]
    highest = (sup.group(1) or sup.group(2)).lower() in HIGHEST
    valued = [(_number(dict(p.cells)[col]), p) for p in table if col in dict(p.cells)]
    top = (max if highest else min)(v for v, _ in valued if v is not None)
    rows = [p for v, p in valued if v == top]
    return Extreme(rows=rows, column=col, header=headers[col], highest=highest, value=dict(rows[0].cells)[col],
                   asks_value=asked_noun.strip() in _VALUE_WORDS)


def _table_under(doc: TextDocument[RowParagraph], title: RowParagraph) -> RowParagraph | None:
    """The header row right under ``title`` (the sheet's next row holding a value), or None: the table the title
    line names."""
    paras = doc.paragraphs
    at = next((i for i, p in enumerate(paras) if p is title), None)
    nxt = next((p for p in paras[at + 1:] if p.sheet == title.sheet and not p.comment), None) if at is not None \
        else None
    return nxt if nxt is not None and nxt.is_header else None


def cite_extreme(doc: TextDocument[RowParagraph], extreme: Extreme, request: LocateRequest, score: float | None,
                 block_id: str | None, cell_locator: Callable[..., Locator],
                 with_rows_behind: Callable[..., Locator]) -> Locator:
    """The ``cell`` locator of the first row holding ``extreme`` (the whole row: the question's which-noun and
    the ranked value both), the other tied rows first behind it; approximate on a tie. ``cell_locator`` and
    ``with_rows_behind`` are the locator's own (``locating``, which imports this module)."""

    first, tied = extreme.rows[0], extreme.rows[1:]
    which = "highest" if extreme.highest else "lowest"
    why = (f"the question asks the {which} {extreme.header} of its table ({extreme.value})" if extreme.asks_value
           else f"the question asks which row holds the {which} {extreme.header} of its table ({extreme.value})")
    cell = {"column": extreme.column} if extreme.asks_value else {"whole": True}
    if tied:
        why += "; tied with " + ", ".join(f"row {p.row}" for p in tied) + ": one answer of several, approximate"
    cited = cell_locator(first, request.query, highlight=None, score=score, reason=why, block_id=block_id,
                         degraded=bool(tied), **cell)
    cited = with_rows_behind(doc, cited, first, request)
    also = [cell_locator(p, request.query, highlight=None, score=score, block_id=block_id, degraded=True, **cell,
                         reason=f"a row tied with the cited one ({extreme.header}: {extreme.value})")
            for p in tied]
    shown = {loc.range for loc in also}
    behind = [*also, *(r for r in cited.runners_up if r.range not in shown)]
    return msgspec.structs.replace(cited, runners_up=behind[:max(len(cited.runners_up), len(also))])
