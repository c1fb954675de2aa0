"""A question asking a kind of answer (an amount, a date, a count ...) is exact only on a place stating one.

The rule, one for every locator (a PDF block, a DOCX paragraph, a PPTX shape, an XLSX cell), read on the place's own
words (``Locator.place_text``, else its ``quote``): a place claimed exact for a question asking a kind of answer
(``cues.answer_types``) that holds none of the kinds asked, while the passage it came from (the provider's chunk)
states one, is approximate, its reason saying which kind it lacks. nc25b (round 25): "铁西区国资局起诉要求公司赔多少钱"
was "exact box, p.7" on the case's title, which holds the question's words and no sum; the block under it says
"合计37,745,190元". The DOCX and text locators apply the same rule with the whole document before choosing
(``answertype.without_untyped_claim``, which also moves the place); the host's is the floor under every locator, so a
place no locator checked does not claim what it cannot show.

As there: a question asked as written (the query in the place) keeps its claim, a which-question (哪几类) asks no
count, a short phrase search (fewer than ``answertype.MIN_TERMS`` terms) asks no kind, and a passage stating none of
the kinds leaves the claim alone (the answer is written some other way, or not there). A count, or a figure a table
holds, is stated by a number standing as a value (``valuerows.states_value``): a cell "110" under "Saltwater Ducks"
answers "how many saltwater ducks", though no "110 ducks" is written. Pure: no I/O.
"""

from __future__ import annotations

import msgspec

from mnote_kr.citations.rank.cues import answer_types, holds_type
from mnote_kr.citations.rank.ranking import fold
from mnote_kr.citations.render.valuerows import is_keyed_row, is_value_row, states_value
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import lazy_compile, normalize
from mnote_kr.models import Locator

__all__ = ["KIND_CLAIMS", "without_unstated_kind"]

#: A place claimed exact without the kind of answer asked, which its passage states, is approximate (False: as before
#: round 25, only the DOCX and text locators checked it).
KIND_CLAIMS = True
#: Fewest content terms of the query for it to ask a kind of answer (``answertype.MIN_TERMS``).
MIN_TERMS = 2
#: Kinds a bare number states (a table's value under its header): a count and the figures a table holds.
_BY_NUMBER = ("count:", "money", "percent", "ratio", "size", "distance", "speed")
#: A list item's number ("1、", "(2)", "3.") opening a line: no value stated.
_ITEM_RE = lazy_compile(r"(?:^|\n)\s*[(（]?\d{1,2}\s*[、.．)）]")
#: How a reason names each kind (``answertype``'s words).
_NAMES = {"date": "date", "money": "amount", "percent": "percentage", "frequency": "frequency",
          "duration": "duration", "distance": "distance", "size": "size", "speed": "speed or rate", "ratio": "ratio"}


def _states(kind: str, text: str, query: str, table: bool) -> bool:
    """``text`` (folded) states answer kind ``kind``: its pattern, or said in words, or, in a ``table``'s cell or row,
    a number standing as a value for a kind a table states by its number alone (in prose, "1、" numbers a list)."""
    return holds_type(kind, text, worded=True) or table and kind.startswith(_BY_NUMBER) \
        and states_value(_ITEM_RE.sub(" ", text), query)


def _in_table(locator: Locator, words: str, query: str) -> bool:
    """``locator`` cites a table's cell or row: a sheet's cells, a cell read under its headers, a row as the locators
    write one ("label: header: value; ...") or reading as one (``valuerows.is_value_row``)."""
    return locator.locator_precision == "cell" or bool(locator.headers or locator.row_label) \
        or is_keyed_row(words) or is_value_row(words, query)


def without_unstated_kind(locator: Locator, query: str, passage: str) -> Locator:
    """``locator`` made approximate when it claims an exact place holding none of the kinds of answer ``query`` asks
    while ``passage`` states one (module docstring); its ``runners_up`` judged alike. Unchanged otherwise."""
    if not KIND_CLAIMS:
        return locator
    runners = [without_unstated_kind(r, query, passage) for r in locator.runners_up]
    if any(a is not b for a, b in zip(runners, locator.runners_up, strict=True)):
        locator = msgspec.structs.replace(locator, runners_up=runners)
    words = locator.place_text or locator.quote
    if locator.locator_degraded or locator.locator_precision == "file" or not words or not query:
        return locator
    q = fold(" ".join(normalize(query).split()))
    place = fold(" ".join(normalize(words).split()))
    if not q or q in place:
        return locator
    kinds = tuple(t for t in answer_types(q) if not (t.startswith("count:") and "哪" in q))
    if not kinds or len(QueryTerms(q, {}, 1).terms) < MIN_TERMS:
        return locator
    told = fold(" ".join(normalize(passage).split()))
    table = _in_table(locator, words, query)  # a table's place and its passage state a figure by a number alone
    shown = [t for t in kinds if _states(t, told, query, table)]
    if not shown or any(_states(t, place, query, table) for t in kinds):
        return locator
    names = " or ".join(_NAMES.get(t) or (f"count of {t[6:]}" if t[6:] else "number") for t in shown)
    why = f"{locator.locator_reason or locator.reason or ''}; it holds the question's words, not the {names} it " \
          "asks, which its passage states: an approximate place"
    return msgspec.structs.replace(locator, locator_degraded=True, reason=why.lstrip("; "),
                                   locator_reason=why.lstrip("; "))
