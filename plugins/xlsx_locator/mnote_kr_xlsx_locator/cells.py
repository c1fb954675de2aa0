"""Inside the cited row, the one cell the query asks for, and the cited cells as people read them.

The column whose header the question names ("Who published ...": Publisher, ``value_column``), else the only value
column whose cell or header carries a query word, is cited as that cell (``C12``); otherwise the row's cells are
(``B7:D7``). A cell (or the row's label) that holds the question's words while the question asks for more than the
row spells ("Who wrote A Brief History of Time?": "wrote" is in no cell and no header) is what the question gives,
not its answer: the column is the header the rest of the question means (``meant_header``, said in
``locatorReason``), else the row. ``locatorReason`` and the quote read the cited place as people do: "Revenue,
2023: 4,100" (``reading``). A cell comment's line is cited on its cell in the comment's words
(``comment_locator``). Which row is cited is :mod:`.locating`'s.
"""

from __future__ import annotations

from mnote_kr.plugin_api import (
    Highlight,
    Locator,
    iter_tokens,
    labelled_row,
    lazy_compile,
    meant_header,
    named_header,
    normalize,
    scaffolding,
    stem,
)

from .cellvalues import asked_values, cell_holds, counted, words_of
from .reader import RowParagraph, column_letter, marks_only

PLUGIN_NAME = "xlsx_locator"


def token_set(text: str) -> set[str]:
    """The tokens of ``text``, normalised as the matcher reads them."""
    return {tok for tok, _, _ in iter_tokens(normalize(text))}


def query_words(query: str) -> set[str]:
    """The query's tokens without question scaffolding ("what", "was", "the", ...) and without its dates
    (compared as values: ``cellvalues``)."""
    words = [tok for tok, _, _ in iter_tokens(normalize(words_of(query)))]
    return {w for w, scaffold in zip(words, scaffolding(words), strict=True) if not scaffold}


def _phrase(text: str) -> str:
    return " " + " ".join(normalize(text).split()) + " "


def without_headers(row: RowParagraph, query: str) -> str:
    """The query with the headers it names as a phrase ("col-3", "Saltwater Ducks") taken out: what is
    left names the row. A header row's headers are its own cells."""
    said = _phrase(query)
    for text in sorted((dict(row.cells) if row.is_header else row.headers).values(), key=len, reverse=True):
        phrase = _phrase(text)
        if phrase.strip():
            said = said.replace(phrase, " ")
    return said


def value_column(row: RowParagraph, query: str) -> tuple[int | None, str]:
    """``_value_column``, unless the cell it chooses holds only the condition of a which-question ("Which book
    was added in 1988?": Added 1988, a value the query already says): the row answers, its title in the quote.
    A which-noun naming the label's header ("which year had 95": Year) keeps the cell, its label quoted with it."""
    col, how = _value_column(row, query)
    which = _WHICH.search(query)
    label = row.headers.get(row.label_column, "") if row.label_column is not None else ""
    if col is not None and which and stem(which.group(1).lower()) not in {stem(t) for t in token_set(label)} \
            and (given := token_set(dict(row.cells).get(col, ""))) and given <= token_set(query) \
            and len(row.cells) > 1 + (row.label_column is not None):
        return None, f"; the cell the query's words choose ({row.headers.get(col) or 'its value'}) holds only " \
                     "the question's condition: the row answers it"
    return col, how


_WHICH = lazy_compile(r"(?i)\b(?:which|what)\s+(?!(?:is|are|was|were|does|do|did|has|have|had|can|will)\b)([a-z]+)")


def _value_column(row: RowParagraph, query: str) -> tuple[int | None, str]:
    """The one value column the query names best, else None (the row), and what ``locatorReason`` adds: the
    header the query names as a phrase, its words inflected ("Who published ...": Publisher; the host's
    ``named_header``), then most query words in its header, then in its value (the words of the row's label
    are left out: they chose the row, not the column). In a table's row, a value (or label) holding the
    query's words while the query asks for more (``asks_more``) is the given: the asked column is the
    header the rest of the query means (``meant_header``), else None."""
    heads = [(row.headers[col], col) for col, _ in row.cells if col != row.label_column and row.headers.get(col)]
    named = named_header(query, heads, inflected=True)
    if named is not None:
        return named, ""
    words = query_words(query)
    label = dict(row.cells).get(row.label_column, "") if row.label_column else ""
    if label:
        words -= token_set(label) & query_words(without_headers(row, query))
    said = _phrase(query)
    asked = asked_values(query)
    hits = sorted((((_phrase(row.headers.get(col, "")) in said if row.headers.get(col) else False,
                     len(token_set(row.headers.get(col, "")) & words),
                     len(token_set(text) & words) + sum(counted(text, m) for m in asked)), col)
                   for col, text in row.cells if col != row.label_column), reverse=True) if words or asked else []
    col = None
    if hits and hits[0][0] != (False, 0, 0) and not (len(hits) > 1 and hits[1][0] == hits[0][0]):
        col = hits[0][1]
        if hits[0][0][:2] != (False, 0):
            return col, ""  # its header holds the query's words
        if is_the_question(dict(row.cells)[col], query) and len(row.cells) > 1 + (row.label_column is not None):
            return None, "; the cell holding the query's words is the question itself: the row answers it"
    if row.is_header or not row.headers:  # a table's row: its cells stand under headers that could answer
        return col, ""
    given = col if col is not None else row.label_column if token_set(label) & query_words(query) else None
    if given is None or not asks_more(row, query):
        return col, ""
    meant = meant_header(_without(query, dict(row.cells)[given]), [(h, c) for h, c in heads if c != given])
    if meant is None:
        return None, ""
    return meant, (f"; the query names the row by its {row.headers.get(given) or 'label'} and no header in "
                   f"words: the column it asks for, {row.headers[meant]}, chosen by meaning")


def is_the_question(text: str, query: str) -> bool:
    """Whether the cell ``text`` is a question saying nothing more than the query ("What are the specific use
    cases?" in a Question column, asked as such): what the row is about, its answer in another cell."""
    return text.rstrip().endswith(("?", "？")) and bool(query_words(text)) and query_words(text) <= query_words(query)


def asks_more(row: RowParagraph, query: str) -> bool:
    """Whether the query has words that are in none of the row's cells, its headers and its sheet's name
    ("wrote" in "Who wrote A Brief History of Time?"; a lone letter, a possessive's "s", aside): it asks
    for something the row does not spell, so the cell holding its other words is not the answer."""
    held = set(row.tokens) | token_set(row.sheet)
    for text in row.headers.values():
        held |= token_set(text)
    return any(w not in held and not (len(w) == 1 and w.isascii() and w.isalpha()) for w in query_words(query))


def _without(query: str, given: str) -> str:
    """The query without the words of the ``given`` cell, and the date or number it holds however the query
    writes it: what it asks ("who wrote")."""
    gone = token_set(given)
    said = list(normalize(query))
    for m in asked_values(query):
        if cell_holds(given, m):
            said[m.start:m.end] = " " * (m.end - m.start)
    return " ".join(tok for tok, _, _ in iter_tokens("".join(said)) if tok not in gone)


def reading(row: RowParagraph, columns: list[int]) -> str:
    """The cited cells as people read them: "Revenue, 2023: 4,100" or "Revenue: 2022: 3,900; 2023: 4,100"; a row
    whose label other rows share, with the cell telling it from them first: "Widget C: Date: 2024-01-07; Revenue:
    15000" (``RowParagraph.key_column``)."""
    shown = {col: text for (col, _), text in zip(row.cells, row.shown, strict=True)}
    if not row.headers and row.label_column is not None and any(marks_only(t) for t in shown.values()):
        # a data sheet's "label | unit | : | value" row: its label reads with all its values, the one asked
        # for (G12 "134") with its unit, never with the ":" between them
        columns = [c for c in shown if c != row.label_column] if columns != [row.label_column] else columns
    columns = [c for c in columns if c in shown and not marks_only(shown[c])] or columns
    # the label cell cited alone reads as its header and value, not as itself twice
    label = shown.get(row.label_column) if row.label_column is not None and columns != [row.label_column] else None
    head = row.headers.get(row.label_column, "") if label is not None and row.label_column is not None else ""
    alone = columns == [row.label_column]  # the label cell cited by itself
    if row.key_column in shown and row.key_column not in columns and (label is not None or alone):
        columns = sorted([row.key_column, *columns])  # which of the label's rows: its date, its quarter
    return labelled_row(label, [(row.headers.get(c, ""), shown[c]) for c in columns if c in shown], head)


def cell_locator(row: RowParagraph, query: str, *, highlight: Highlight | None, score: float | None,
                 reason: str, block_id: str | None, degraded: bool = False, column: int | None = None,
                 whole: bool = False) -> Locator:
    """The ``cell`` locator of one matched row (``degraded``: an approximate place): its cell ``column``, else
    the row when ``whole``, else the one the query names (``value_column``), else the row; a comment's, its
    cell (``comment_locator``)."""
    if row.comment:
        return comment_locator(row, highlight=highlight, score=score, reason=reason, block_id=block_id,
                               degraded=degraded)
    one, how = (column, "") if column is not None or whole else value_column(row, query)
    cols = [col for col, _ in row.cells]
    if one is not None:
        cited, where = [one], f"{column_letter(one)}{row.row}"
    else:
        cited = [c for c in cols if c != row.label_column] or cols
        lo, hi = column_letter(cols[0]), column_letter(cols[-1])
        where = f"{lo}{row.row}" if lo == hi else f"{lo}{row.row}:{hi}{row.row}"
    read = reading(row, cited)
    why = f"{reason}{how}: {row.sheet}!{where}" + (" (hidden)" if row.hidden else "") + f": {read}"
    return Locator(
        locator_precision="cell", locator_degraded=degraded, sheet=row.sheet, range=where,
        header_row=row.header_row, headers=[row.headers.get(c, "") for c in cited] if row.headers else [],
        row_label=dict(row.cells).get(row.label_column) if row.label_column is not None else None,
        highlight=highlight, score=score, block_id=block_id, locator_plugin=PLUGIN_NAME,
        reason=why, locator_reason=why,
        quote=read,  # the cited cells as people read them, not the provider's whole sheet with its markers
    )


def comment_locator(para: RowParagraph, *, highlight: Highlight | None, score: float | None, reason: str,
                    block_id: str | None, degraded: bool = False) -> Locator:
    """The ``cell`` locator of a cell comment's line: the commented cell, under its table's header if any,
    quoted in the comment's words; the reason and the place's text (the line) say it is the cell's comment.
    The Locator has no field for a comment: its reason says so."""
    col = para.cells[0][0]
    where = f"{column_letter(col)}{para.row}"
    what = "a reply in the comment" if para.reply else "the comment"
    who = f" ({para.author})" if para.author else ""
    why = f"{reason}: {what} on {para.sheet}!{where}{who}" + (" (hidden)" if para.hidden else "") + f": {para.words}"
    header = para.headers.get(col)
    return Locator(
        locator_precision="cell", locator_degraded=degraded, sheet=para.sheet, range=where,
        header_row=para.header_row if header else None, headers=[header] if header else [],
        highlight=highlight, score=score, block_id=block_id, locator_plugin=PLUGIN_NAME,
        reason=why, locator_reason=why, quote=para.words, place_text=para.text,
    )
