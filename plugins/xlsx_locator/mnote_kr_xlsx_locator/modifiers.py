"""A row of Latin words lacking a Chinese question's modifier is an approximate place.

"2022年海水鸭观测到多少只？" (saltwater ducks, 2022) over "2022, Freshwater Ducks: 170" was cited exact (nc21a): the
row holds the year asked, which made the matcher's semantic row exact (``by_value``). The question's 海水 stands
right before 鸭 (duck), which the row's header holds: the host's ``unheld_modifiers`` reads them through the
dictionary, every sense of each word (淡水 is "fresh water" there, so "2024年淡水鸭" keeps the row exact).
"""

from __future__ import annotations

from mnote_kr.plugin_api import iter_tokens, lazy_compile, normalize, unheld_modifiers

from .reader import RowParagraph

_CJK = lazy_compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _tokens(text: str) -> set[str]:
    return {tok for tok, _, _ in iter_tokens(normalize(text))}


def lacked_modifiers(row: RowParagraph, query: str) -> list[str]:
    """The Chinese query's modifiers (``unheld_modifiers``) a row of Latin words lacks, its headers and sheet's name
    counted; none for a comment, a query without Chinese or a row with Chinese of its own (``absent_words`` reads
    those)."""
    if row.comment or not _CJK.search(query) or _CJK.search(row.text):
        return []
    held = set(row.tokens) | _tokens(row.sheet)
    for header in row.headers.values():
        held |= _tokens(header)
    return unheld_modifiers(query, held)
