"""Evidence to a ``cell`` locator, or an honest ``file`` one.

The row comes from ``match_evidence`` over the visible rows (then over every row, hidden ones
included, when nothing visible matches), then the one the query names among the rows the evidence quotes
whole (``named_row``: most of its items, words and, compared as values, its dates and numbers:
``cellvalues``), or among the passage's when one there holds a date or number asked for that it lacks
(``beyond_evidence``). A row holding a date of its own and none of the query's is another day's: an
approximate place. Inside the row, the query picks the one value or the row's cells (``cells``:
``value_column``; a cell the question only gives stays first behind), read as people do ("Revenue, 2023:
4,100"). A cell comment's line (``comments``) is cited on its cell in the comment's words
(``comment_locator``); it competes with the rows the evidence quotes by the query's words, as they do with
each other, a table's header row first become the row the query names under it (the crossing of its row
label and column header); a comment is an exact place only when its own words hold the query's (``notes``:
its author's name is not what it says).
"""

from __future__ import annotations

import msgspec

from mnote_kr.plugin_api import (
    Highlight,
    LocateRequest,
    Locator,
    Match,
    TextDocument,
    ValueMention,
    abbreviated_at,
    locator_from_match,
    match_evidence,
    named_header,
    normalize,
    stem,
    textmatch,
    with_places_behind,
)

from . import notes
from .cells import PLUGIN_NAME, cell_locator, query_words, token_set, without_headers
from .cells import reading as reading  # the cited cells' words, read here before they moved to ``cells``
from .cellvalues import another_day, asked_values, cell_holds, counted, decisive, held_by, verbatim
from .extremes import asked_extreme, cite_extreme
from .modifiers import lacked_modifiers
from .named import at_named_sheet, choosing_words, evidence_row_first
from .reader import RowParagraph, column_letter, load_xlsx
from .rownumbers import named_rows, without_named_rows

#: Share of the evidence's tokens that a run of whole-quoted rows must cover for the evidence to count
#: as theirs when the matcher finds no row (a window of short numeric rows has few shingles).
WINDOW_COVER = 0.6


def quoted_run(doc: TextDocument[RowParagraph], evidence: str, near: RowParagraph | None) -> list[RowParagraph]:
    """The rows the evidence quotes whole (every token of theirs is in it) that form one run of consecutive
    rows of one table region that covers most of the evidence (on a tie, the one holding ``near``, the
    matcher's row), if it covers at least ``WINDOW_COVER`` of its tokens; else whole sheet rows across
    regions (``_sheet_rows_run``); else the run holding ``near``. Empty when there is none. The words only
    cell comments the evidence quotes hold are no row's to cover (``rows_words``)."""
    ev = rows_words(doc, token_set(evidence))
    runs: list[list[RowParagraph]] = []
    for para in doc.paragraphs:
        if para.comment or not (para.tokens and para.tokens <= ev):  # a comment: beside its row, in no run
            continue
        last = runs[-1][-1] if runs else None
        if last is not None and last.region == para.region and para.row == last.row + 1:
            runs[-1].append(para)
        else:
            runs.append([para])
    if not ev or not runs:
        return []
    scored = sorted(((len(set().union(*(p.tokens for p in run))) / len(ev),
                      near is not None and any(p.index == near.index for p in run), -i) for i, run in enumerate(runs)),
                    reverse=True)
    cover, holds_near, i = scored[0]
    if cover >= WINDOW_COVER:
        return runs[-i]
    return _sheet_rows_run(doc, ev) or (runs[-i] if holds_near else [])


def rows_words(doc: TextDocument[RowParagraph], ev: set[str]) -> set[str]:
    """The evidence's tokens ``ev`` without those only the cell comments it quotes whole hold (their
    "Comment on", authors and words): a run of rows covers the rest. ``ev`` itself for a workbook without
    comments."""
    said = [p.tokens for p in doc.paragraphs if p.comment and p.tokens and p.tokens <= ev]
    if not said:
        return ev
    paras = doc.paragraphs
    return ev - {t for t in set().union(*said) if all(paras[i].comment for i in doc.postings.get(t, ()))}


def _sheet_rows_run(doc: TextDocument[RowParagraph], ev: set[str]) -> list[RowParagraph]:
    """Whole sheet rows, as LightRAG's chunk holds them, across regions: the quoted pieces of consecutive
    rows of one sheet that together cover at least ``WINDOW_COVER`` of the evidence (a table whose gaps
    split its rows into regions); empty when none do."""
    quoted = sorted((p for p in doc.paragraphs if not p.comment and p.tokens and p.tokens <= ev),
                    key=lambda p: (p.sheet, p.row))
    runs: list[list[RowParagraph]] = []
    for para in quoted:
        last = runs[-1][-1] if runs else None
        if last is not None and last.sheet == para.sheet and para.row - last.row <= 1:
            runs[-1].append(para)
        else:
            runs.append([para])
    best = max(runs, key=lambda run: len(set().union(*(p.tokens for p in run))), default=[])
    return best if best and len(set().union(*(p.tokens for p in best))) / len(ev) >= WINDOW_COVER else []


def pick_by_query(run: list[RowParagraph], found: RowParagraph, query: str) -> RowParagraph:
    """Among a run of quoted rows, the one the query names (``named_row``); the matcher's own row on a tie
    or when no query word is there."""
    best = named_row(run, query, found)
    return found if best is None else best


def row_score(row: RowParagraph, query: str, words: set[str], asked: tuple[ValueMention, ...]) -> tuple[int, ...]:
    """How well ``row`` holds the query: its items in its label, then in all its cells (each query word, and
    each of the query's dates and numbers ``asked`` a cell holds as a value: ``cellvalues.held_by``; words of
    a header the query names whole are left out: they name a column), then the dates held as the query
    writes them (a verbatim match stays ahead of the same value written another way). Words meet by their
    stems: "Kestrels wingspan" names the Kestrel row."""
    own = _stems(words & query_words(without_headers(row, query)))
    column = row.label_column if row.label_column and not row.is_header else None
    label = dict(row.cells).get(column, "") if column is not None else ""
    in_label = held_by(row, asked, [column]) if column is not None else 0
    return (len(_stems(token_set(label)) & own) + in_label, _held(row, own) + held_by(row, asked), verbatim(row, asked))


def _held(row: RowParagraph, own: set[str]) -> int:
    """How many of the query's word stems ``own`` the row holds: as its words, or written short with a full
    stop ("Ambient temp." holds "temperature": the host's ``abbreviated_at``)."""
    held = _stems(row.tokens) & own
    rest = own - held
    if rest and "." in row.text:
        norm = normalize(row.text)
        held |= {w for w in rest if abbreviated_at(norm, w, row.text)}
    return len(held)


def _stems(words: set[str] | frozenset[str]) -> set[str]:
    """Words by their light stems (the host's ``stem``, as its query terms meet inflections): the query's
    "kestrels" names the row labelled "Kestrel"."""
    return {stem(w) for w in words}


def named_row(run: list[RowParagraph], query: str, found: RowParagraph | None = None) -> RowParagraph | None:
    """Among a run of quoted rows, the one the query names: most of the query's items in its label, then in
    all its cells (``row_score``: its words, and its dates and numbers as values: a row holding the item and
    the date asked for over one holding the item alone); a header row only by its cells. ``found`` (the
    matcher's row) when it is among the best; None on a tie or when no query word or value is there. Rows the query
    names by number ("row 9": ``rownumbers``) are the only ones chosen among when the run holds one, the number
    not read as a value."""
    hits = [r for r in run if r.row in named_rows(query) and not r.comment and not r.is_header]
    if hits:
        best = named_row(hits, without_named_rows(query), found)
        return best if best is not None else found if found in hits else hits[0]
    words = query_words(query)
    asked = decisive(asked_values(query), run)
    if not (words or asked) or not run:
        return None
    scored = sorted(((row_score(r, query, words, asked), -r.index) for r in run), reverse=True)
    if not any(scored[0][0][:2]):
        return None
    best = [-i for sc, i in scored if sc == scored[0][0]]
    if found is not None and found.index in best:
        return found
    return next(r for r in run if r.index == best[0]) if len(best) == 1 else None


def quoted_rows(doc: TextDocument[RowParagraph], head: RowParagraph, evidence: str) -> list[RowParagraph]:
    """The rows of the table headed by ``head`` that the evidence quotes whole."""
    ev = token_set(evidence)
    return [p for p in doc.paragraphs
            if p.region == head.region and p.header_row == head.row and p.tokens and p.tokens <= ev]


def answering_row(doc: TextDocument[RowParagraph], row: RowParagraph, run: list[RowParagraph],
                  request: LocateRequest) -> tuple[RowParagraph, bool]:
    """``row``, or for a table's header row the one row of its table the query names (``named_row``: the
    query's words left once the headers it names are out, its row key) among those the evidence quotes, else
    among those the passage quotes (the window is centred where the query's words cluster: on the header,
    which holds the column's word for every row, while the keyed row stands further down the chunk); and
    whether the place is only that header (approximate: the evidence the rows are, not their header)."""
    if not row.is_header:
        return row, False
    rows = quoted_rows(doc, row, request.evidence)
    best = named_row(rows, request.query) if rows else None
    if best is None and request.passage:
        best = named_row([p for p in quoted_rows(doc, row, request.passage) if p not in rows], request.query)
    if best is not None:
        return best, False
    only = single_row_under(doc, row)
    if only is not None:  # nothing to choose: the header's one row answers what its header names
        return only, False
    return row, bool(rows)  # the evidence is the header itself, or no row holds the query's other words


def single_row_under(doc: TextDocument[RowParagraph], row: RowParagraph) -> RowParagraph | None:
    """For a table's header row with a single data row under it, that row (the host's ``asked_row`` over one
    row: "what is the objective" over "Name | Objective" is answered by the row, not the header); else None."""
    if not row.is_header:
        return None
    under = [p for p in doc.paragraphs if not p.comment and p.tokens and p.sheet == row.sheet
             and p.region == row.region and p.header_row == row.row and not p.is_header]
    return under[0] if len(under) == 1 else None


#: Other cells of the cited row given behind its cell. One: a reader is shown two places behind a citation,
#: ordered by meaning, and a row's cells share its row's; a second would take the other row's place.
ROW_CELLS = 1


def cells_behind(row: RowParagraph, query: str, cited: int) -> list[int]:
    """The row's other non-empty cells than the ``cited`` one, best first: the one under a header the query
    names (``named_header``: the next one named when the cited header was guessed wrong), then most query
    words in its header and value, the row's label, then in column order."""
    others = [col for col, _ in row.cells if col != cited]
    named = named_header(query, [(row.headers[col], col) for col in others if row.headers.get(col)], inflected=True)
    words = query_words(query)
    asked = asked_values(query)
    values = dict(row.cells)

    def key(col: int) -> tuple[bool, int, bool, int]:
        held = (len(token_set(row.headers.get(col, "")) & words) + len(token_set(values[col]) & words)
                + sum(counted(values[col], m) for m in asked))
        return col == named, held, col == row.label_column, -col

    return sorted(others, key=key, reverse=True)


def with_rows_behind(doc: TextDocument[RowParagraph], located: Locator, row: RowParagraph,
                     request: LocateRequest) -> Locator:
    """``located`` with the workbook's next places behind it (``runnersUp``): for one cited cell, the row's
    best other cell (``cells_behind``, ``ROW_CELLS``); then the passage's other rows of its own sheets, then
    the sheet rows nearest by meaning (header rows left out, ``with_places_behind``)."""
    cited = located.range if located.range and ":" not in located.range and not row.is_header else None
    by_cell = {f"{column_letter(col)}{row.row}": col for col, _ in row.cells}
    own = [cell_locator(row, request.query, highlight=None, score=located.score, block_id=located.block_id,
                        column=col, reason="another cell of the cited row, by the query's words")
           for col in cells_behind(row, request.query, by_cell[cited])[:ROW_CELLS]] if cited in by_cell else []
    held = commented_row(doc, row) if row.comment else None
    if held is not None:  # the commented cell's own value first behind its comment, its row not again
        own = [cell_locator(held, request.query, highlight=None, score=located.score, block_id=located.block_id,
                            column=row.cells[0][0], reason="the commented cell")]
    return with_places_behind(
        doc, located, row.index, request.passage or request.evidence, request.query,
        lambda other: cell_locator(other, request.query, highlight=None, score=located.score,
                                   block_id=located.block_id,
                                   reason="a row behind the cited one, by the query's words and meaning"),
        keep=lambda p: not p.is_header and p is not held, part=lambda p: p.sheet, own=own)


def commented_row(doc: TextDocument[RowParagraph], comment: RowParagraph) -> RowParagraph | None:
    """The row holding the value of a comment's cell, or None (a comment on an empty cell)."""
    col = comment.cells[0][0]
    return next((p for p in doc.paragraphs if not p.comment and p.sheet == comment.sheet and p.row == comment.row
                 and col in dict(p.cells)), None)


def _match(doc: TextDocument[RowParagraph], request: LocateRequest,
           ) -> tuple[RowParagraph | None, Match, bool]:
    """The row the evidence came from (the one the query names among rows it quotes whole), its match, and
    whether that row is only its table's header (``answering_row``)."""
    block = request.block
    heading = block.heading if block is not None else None
    content = block.content if block is not None else None
    match = match_evidence(doc, request.evidence, request.query, block_heading=heading, block_content=content)
    found = doc.paragraphs[match.paragraph.index] if match.paragraph is not None else None
    run = quoted_run(doc, request.evidence, found)
    if found is None and run:
        found = max(run, key=lambda r: (len(r.tokens), -r.index))
    if found is None:
        return None, match, False
    picked = beyond_evidence(doc, pick_by_query(run, found, request.query), request)
    if not notes.BY_CONTENT:  # before round 19: a header row met the comments before its row was chosen
        row, header_only = answering_row(doc, by_comment(doc, picked, found, request), run, request)
        return row, match, header_only
    # a table's header first becomes the row the query names ("freshwater ducks 2021": the 2021 row under
    # Freshwater Ducks), which then meets the comments: a header holding only the column's words would lose
    # to a note holding one of them ("Minimum number of saltwater ducks")
    row, header_only = answering_row(doc, picked, run, request)
    chosen = by_comment(doc, row, found, request)
    if chosen is not row:
        row, header_only = answering_row(doc, chosen, run, request)
    return row, match, header_only


def beyond_evidence(doc: TextDocument[RowParagraph], row: RowParagraph, request: LocateRequest) -> RowParagraph:
    """``row``, or the row of the passage (rows it quotes whole: LightRAG's chunk, wider than the evidence's
    window) that holds more of the query's items (``row_score``) by a date or number the query names that
    ``row`` lacks: the window is centred where the query's words cluster, blind to a date written another
    way than the cell's ("2024年1月7日": ``2024-01-07 00:00:00``), so the row holding the item and the date
    can stand outside it. ``row`` when the query names no value, or no row of the passage holds more."""
    asked = asked_values(request.query)
    if row.comment or not asked or not request.passage:
        return row
    said = token_set(request.passage)
    rows = [p for p in doc.paragraphs if not p.comment and not p.is_header and p.tokens and p.tokens <= said]
    best = named_row([*rows, row] if row not in rows else rows, request.query, row)
    if best is None or best is row:
        return row
    asked = decisive(asked, [*rows, row])
    words = query_words(request.query)
    if not any(held_by(best, [m]) and not held_by(row, [m]) for m in asked):
        return row  # more of the query's words only: the window was centred on them
    # more items in all (index 1), not a better label: a date in a date-labelled table's label is no item more
    return best if row_score(best, request.query, words, asked)[1] > row_score(row, request.query, words, asked)[1] \
        else row


def by_comment(doc: TextDocument[RowParagraph], row: RowParagraph, found: RowParagraph,
               request: LocateRequest) -> RowParagraph:
    """``row``, or the cell comment the query names better (``named_row``: more of its words), among those the
    evidence quotes whole and the matcher's own paragraph (a comment's line is a paragraph of its own, in no
    run of rows), each with the row holding its cell (a question about the cell's value, not its comment,
    names that row better). ``row`` on a tie; the same row as before for a workbook without comments. A row
    chosen by its label (a comment has none) yields to a comment on one of its cells that holds query words
    the row does not spell (``comment_asked``)."""
    ev = token_set(request.evidence)
    said = [p for p in doc.paragraphs if p.comment and p is not row and (p is found or p.tokens and p.tokens <= ev)]
    if not said:
        return row
    cells = {(c.sheet, c.row, c.cells[0][0]) for c in said}
    held = [p for p in doc.paragraphs if not p.comment and p is not row and p.tokens <= ev
            and any((p.sheet, p.row, col) in cells for col, _ in p.cells)]
    best = named_row([row, *said, *held], request.query, row)
    best = row if best is None else best
    return best if best.comment else comment_asked(best, said, request.query) or best


def comment_asked(row: RowParagraph, said: list[RowParagraph], query: str) -> RowParagraph | None:
    """Among the comments ``said``, the one on a cell of ``row`` holding the most query words that none of
    the row's cells, its headers and its sheet's name hold ("who checked the south count twice": only the
    comment on the South row's count says "checked" and "twice"): the question is about the comment, on
    that cell. None when no comment on the row holds such a word."""
    held = set(row.tokens) | token_set(row.sheet)
    for text in row.headers.values():
        held |= token_set(text)
    asked = query_words(query) - held
    cols = {col for col, _ in row.cells}
    scored = [(len(c.tokens & asked), -c.index, c) for c in said
              if c.sheet == row.sheet and c.row == row.row and c.cells[0][0] in cols]
    best = max(scored, key=lambda s: s[:2], default=None)
    return best[2] if best is not None and best[0] else None


def locate_xlsx(request: LocateRequest) -> Locator:
    """Locate ``request.evidence`` in the workbook ``request.file``. Raises ``DocumentError``."""
    asked = request.query  # the sheets it names choose there (``at_named_sheet``); its other words choose rows
    request = msgspec.structs.replace(request, query=choosing_words(asked))
    doc = load_xlsx(request.file)
    block_id = request.block_id or (request.block.blockid if request.block is not None else None)
    row: RowParagraph | None = None
    rows: TextDocument[RowParagraph] = doc
    header_only = False
    if doc.visible is not None:
        row, match, header_only = _match(doc.visible, request)
        rows = doc.visible
    if row is None:
        row, match, header_only = _match(doc, request)
        rows = doc
    if row is None:
        return locator_from_match(match, plugin=PLUGIN_NAME, block_id=block_id)  # ``file``, degraded
    same = match.paragraph is not None and match.paragraph.text == row.text
    highlight = Highlight(start=match.highlight[0], end=match.highlight[1]) if same and match.highlight else None
    # a row the query names nothing of (no word of its cells, headers or sheet: nc25a's hidden "header" cell for a
    # sourdough recipe, the matcher finding no row) is no place the query names, however whole the evidence quotes it
    unnamed = (not same or row.hidden) and not row.comment and not query_words(request.query) & (
        row.tokens | token_set(row.sheet) | {t for h in row.headers.values() for t in token_set(h)})
    reason = match.reason if same else "the evidence quotes these rows whole; the query names " + (
        "none of them: an approximate place" if unnamed else "this one")
    if not same and not row.comment and not row.tokens <= token_set(request.evidence):  # ``beyond_evidence``'s row
        why = "its date or number" if asked_values(request.query) else "the row it names; the header names the column"
        reason = f"the passage quotes this row whole, past the evidence; it holds more of the query ({why})"
    if header_only:  # not the evidence of an answer: approximate
        reason += "; only the table's header holds the query's words, none of its rows the evidence quotes"
    day = None if header_only else another_day(row, asked_values(request.query))
    if day is not None:  # the passage holds no row of the day asked: its best row is a guess
        reason += f"; the query asks about {day.text}, this row holds another date: an approximate place"
    # one rule with the DOCX, PDF, OCR and PPTX locators (``placing.QUERY_SHARE``): the matcher's row holding
    # few of the query's words is an approximate place, unless it holds a date or number the query asks for
    # ("Widget C 2024-01-07 的收入是多少？": the words are Chinese, the row's date is the question's)
    by_value = any(cell_holds(text, m) for _, text in row.cells for m in asked_values(request.query))
    semantic = same and match.reason.startswith(textmatch.SEMANTIC) and not by_value
    # a comment's line holds its author and "Comment on Sheet1!A1", which are not what it says (``notes``)
    loose = row.comment and not semantic and not notes.note_holds_query(rows, row, query_words(request.query))
    if loose:
        reason += "; the comment's words hold only some of the query's: an approximate place"
    lacked = lacked_modifiers(row, request.query)
    if lacked:  # "2022年海水鸭" over "2022, Freshwater Ducks: 170": the ducks and the year, not the saltwater ones
        reason += f"; the query asks {'、'.join(lacked)}, which this row, its headers and sheet do not say: " \
                  "an approximate place"
    located = cell_locator(row, request.query, highlight=highlight, score=match.score, reason=reason, block_id=block_id,
                           degraded=header_only or day is not None or semantic or loose or bool(lacked)
                           or unnamed and not by_value)
    named = at_named_sheet(rows, row, asked, doc.sheets, pick_by_query, query_words)
    extreme = asked_extreme(rows, row, asked) if named is None else None
    if extreme is not None:  # "which product had the highest quantity": the whole column ranks the rows
        return cite_extreme(rows, extreme, request, match.score, block_id, cell_locator, with_rows_behind)
    if named is None:
        return with_rows_behind(rows, located, row, request)
    # the query names another sheet: cite its row, the evidence's row first behind it
    there, why, degraded = named
    only = single_row_under(rows, there)
    there = there if only is None else only  # the named sheet's header over one row: the row answers
    cited = cell_locator(there, request.query, highlight=None, score=match.score, reason=why, block_id=block_id)
    cited = with_rows_behind(rows, msgspec.structs.replace(cited, locator_degraded=degraded), there, request)
    evidence_row = cell_locator(row, request.query, highlight=None, score=match.score, block_id=block_id,
                                reason="the evidence's row, behind the sheet the query names")
    return evidence_row_first(rows, cited, evidence_row, row, asked)
