"""A table row as people read it: its label, then each value under its header.

Shared by the readers of tables (a workbook's regions, a slide's tables) so a row reads the same in
every format: ``header_row`` finds the header of a table's rows, ``labelled_row`` writes a row as
``label: header: value; header: value`` ("Revenue: 2022: 3,900; 2023: 4,100"), or one value as
``label, header: value`` ("Revenue, 2023: 4,100"). A blank cell is no part of it, so every value
written stands beside its own header, whatever is blank around it. ``named_header`` picks, among a row's
cells by their headers, the one the question names ("…的相关基因": the 相关基因 cell), so a citation can
stand on the answer's cell rather than on the cell holding the question's other words; ``meant_header``
picks it by meaning when no word of the question names a header ("who wrote ...": Author). ``asked_row``
finds the data row a question cited on its header row asks about ("How many calories per portion do
berries have?": the header holds the column's words for every row, the Berries row the question's other
words).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TypeVar

from mnote_kr.citations.text.queryterms import Term, content_terms, stem
from mnote_kr.citations.text.textnorm import normalize

__all__ = ["asked_row", "header_row", "is_header", "is_number", "labelled_row", "meant_header", "named_header",
           "said_at", "valued_row"]

T = TypeVar("T")
_WORD = re.compile(r"[a-z0-9]+")
_WORD_ANY = re.compile(r"\w+")
#: An agent noun's ending: "Publisher" is who "published", "Director" who "directed".
_AGENT = ("er", "or")
_VERB = ("ed", "ing")  # the verb's forms an agent noun meets ("published", "publishing"; not "cents": "Center")
#: Least lead of the best header's cosine with a question over the next one's for ``meant_header`` to
#: choose it. Short texts' e5 cosines stand close (0.80-0.90). ``benchmarks/header_meaning.py``: 38
#: questions over eight tables naming their column in other words ("who wrote": Author, "how many
#: people": Population), the words naming the row taken out: the best header is the asked one for 31;
#: 21 lead by at least this, 20 of them the asked one (the other: "which book did Bantam Books print",
#: Author). Below it the row is cited, which holds the answer.
MEANT_MARGIN = 0.02
#: Least cosine of the best header with the question for ``meant_header`` to choose it (one header alone
#: too): a lead says which header is least far from the question, not that any is what it asks for.
#: Chosen on ``benchmarks/header_meaning.py``'s 38 questions and 17 more asking for a column the table
#: lacks, at ``MEANT_MARGIN`` (``--floors``): with no floor 21 cells, 20 right, and 3 of the 17 get a cell
#: ("Maria Lopez email": Salary at 0.880); at 0.845 20 right, 2 wrong; at 0.870 16, 1 wrong. A wrong cell
#: claims a column the question did not ask for while the row, cited instead, holds the answer: the floor
#: is the lowest leaving no wrong cell, midway between the highest wrong one (0.880) and the lowest right
#: one above it (0.883): 12 cells, all right. Held out (27 questions over the corpus workbooks, never
#: tuned on): 1 cell of 14 asked, right; none of 13 lacking (without the floor: 5 right, 2 lacking a cell).
MEANT_FLOOR = 0.882


def is_number(text: str) -> bool:
    """Whether the cell's text is a number (``4,100`` too)."""
    try:
        float(text.replace(",", ""))
    except ValueError:
        return False
    return True


#: A cell of marks only that stands between a label and its value ("Rated frequency | : | 50"): a data
#: row's, never a header's ("#" and "№" head a column of numbers, so they are not among them).
_SEPARATOR = re.compile(r"^[\s:=\-–—/|.…>→]+$")


def is_header(head: Sequence[str], below: Sequence[str]) -> bool:
    """Whether ``head`` (a row's non-blank texts) heads the row ``below`` it: all text, no separator
    between a label and its value (":"); or, over a column of labels, a label's header and years
    ("Line item | 2022 | 2023")."""
    if any(_SEPARATOR.match(t) for t in head):
        return False
    if not any(is_number(t) for t in head):
        return True
    first, rest = head[0], head[1:]
    return (bool(below) and not is_number(first) and not is_number(below[0])
            and all(not is_number(t) or (t.isdigit() and 1000 <= int(t) <= 2999) for t in rest))


def header_row(rows: Sequence[Sequence[str]]) -> int | None:
    """The index of the header among a table's rows (each its non-blank texts, in order), or None: the
    first row of two texts or more (single texts above it are the table's title), with a row below it
    that it heads (``is_header``)."""
    at = next((i for i, row in enumerate(rows) if len(row) > 1), None)
    if at is None or at == len(rows) - 1 or not is_header(rows[at], rows[at + 1]):
        return None
    return at


def labelled_row(label: str | None, parts: Sequence[tuple[str, str]], label_header: str = "") -> str:
    """A row's values as people read them, each ``(header, value)`` as ``header: value`` (a value alone
    when its header is blank): ``label: 2022: 3,900; 2023: 4,100``; one value with a label reads
    ``label, 2023: 4,100``. A label that is a number, under a header (``label_header``), reads as every other
    cell does, under it: ``col-1: 8; col-4: 32``, ``Year: 2021; Freshwater Ducks: 150``, never a bare ``8`` (nc23b:
    a number names no row by itself; a name, "Revenue", does). A value that opens with its header's words
    (``_headed``: "检测方法：提取…" under 检测方法) reads as written, not headed twice (nc26a)."""
    said = [f"{header}: {value}" if header and not _headed(value, header) else value for header, value in parts]
    if label and label_header and is_number(label):
        return "; ".join([f"{label_header}: {label}", *said])
    if len(said) == 1 and label:
        return f"{label}, {said[0]}"
    return f"{label}: " + "; ".join(said) if label else "; ".join(said)


#: What may follow a header's words at a cell's start for the cell to say its header itself: its end, a colon,
#: a dash or an equals sign ("检测方法：提取…", "Method - PCR"), spaces around it.
_AFTER_HEADER = re.compile(r"\s*(?:[:：=\-–—]|$)")


def _headed(value: str, header: str) -> bool:
    """Whether cell text ``value`` opens with ``header``'s words, set apart from what it says next
    (``_AFTER_HEADER``): "检测方法：提取…" under 检测方法, not "方法学验证" under 方法, nor "Yearly" under "Year" (case
    and spacing aside)."""
    said, head = " ".join(value.split()).casefold(), " ".join(header.split()).casefold()
    return bool(head) and said.startswith(head) and _AFTER_HEADER.match(said, len(head)) is not None


def _meet(said: str, head: str) -> bool:
    """Whether the query's word ``said`` is the header's word ``head`` or an inflection of it: the same
    light stem or a plural ("years", "Year"; "authored", "Author"), or the header an agent noun of the
    query's verb ("published", "Publisher")."""
    if said in (head, head + "s", head + "es"):
        return True
    a, b = stem(said), stem(head)
    agent = len(b) > 5 and b.endswith(_AGENT) and (said == b[:-2] or (said.endswith(_VERB) and a == b[:-2]))
    return a == b or agent


#: A financial table's year column marked actual, estimated or forecast ("2024E", "2021A", "2025F"): a question
#: names it by the year alone ("2024年营业收入预测"), since the mark is the report's, not the asker's.
_MARKED_YEAR = re.compile(r"((?:19|20)\d\d)[aef]")


def said_at(query: str, phrase: str, *, inflected: bool = False) -> int | None:
    """Where ``query`` names ``phrase`` as a whole phrase, or None (both normalised, spaces single); a year column
    marked actual or estimated (``_MARKED_YEAR``) is named by its year.
    ``inflected``: a phrase of Latin words is named too by inflections of its words, word for word
    (``_meet``: "who published" names "Publisher")."""
    # a word's edge: a Latin or digit edge of the phrase is not inside a longer word ("ion" in "cation"); a
    # Chinese one may touch a figure, Chinese sets none apart by spaces ("每股净资产2023年")
    before = r"(?<![a-z0-9])" if phrase[:1].isascii() else ""
    after = r"(?![a-z0-9])" if phrase[-1:].isascii() else ""
    found = re.search(before + re.escape(phrase) + after, query)
    if found is None and (year := _MARKED_YEAR.fullmatch(phrase)):  # "2024E" is named by "2024", "2024年"
        found = re.search(r"(?<![a-z0-9])" + year[1] + r"(?![a-z0-9])", query)
    at = found.start() if found is not None else None
    heads = _WORD.findall(phrase) if inflected and phrase.isascii() else []
    if not heads:
        return at
    words = list(_WORD.finditer(query))
    for i in range(len(words) - len(heads) + 1):
        if all(_meet(words[i + j].group(), h) for j, h in enumerate(heads)):
            start = words[i].start()
            return start if at is None else min(at, start)
    return at


def _words(text: str) -> tuple[set[str], str]:
    norm = normalize(text)
    return {stem(w) for w in _WORD_ANY.findall(norm)}, norm


def _holds(words: set[str], norm: str, term: Term) -> bool:
    """Whether a text (``words``: its words' light stems; ``norm``: it normalised) holds ``term``."""
    return term.text in norm if term.cjk else term.text in words


def asked_row(query: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> tuple[int, int] | None:
    """``(row, cell)``: the row among a table's data ``rows`` (each its cells' texts) that a question
    matched on the ``header`` row's texts asks about, and its first cell holding the question's words;
    None when the header holds every content word of the question (it asks about the columns) over more
    than one row, no row holds any of the others, or two rows hold as many (which one is meant is not said).

    The header holds the column's words for every row ("Calories per portion"), so the row holding the
    question's other words ("berries": the Berries row) is the place that answers. Over a single data row
    there is nothing to choose: a header holding the asked attribute ("what is the objective" over "Name |
    Objective") is answered by that row, at its cell under the header the question names.

    A question in another script than the table's (``saidacross.across``) is read by its words said in the table's
    language too, when its words as written say nothing (``_asked_across``)."""
    found = _asked_as_written(query, header, rows)
    return found if found is not None else _asked_across(query, header, rows)


def _asked_across(query: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> tuple[int, int] | None:
    """``asked_row`` for a question in another script than the table: the row saying most of the question's words
    the header does not say, each in the table's language by the dictionary (``saidacross.said_words``: "Which gene is
    tested for Lynch syndrome?" over 项目编号 | 检测项目 | 相关基因 | …, whose header says "gene" and "tested", asks
    the row saying "syndrome", 林奇综合征); None when the question is not in another script, the header says every
    word of it, no row says another, or two rows say as many."""
    from mnote_kr.citations.locate.saidacross import across, question_words, said_words

    if not across(query, [*header, *(text for row in rows for text in row)]):
        return None
    words = question_words(query)
    head = said_words(query, " ".join(header), words)
    rest = [w for w in words if w not in head]
    if not rest:
        return None
    return _row_saying_most(rows, rest, lambda text: said_words(query, text, rest).__contains__)


def _asked_as_written(query: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> tuple[int, int] | None:
    """``asked_row`` by the question's words as written."""
    head = _words(" ".join(header))
    terms = content_terms(query)
    rest = [t for t in terms if not _holds(*head, t)]
    filled = [r for r, row in enumerate(rows) if any(text.strip() for text in row)]
    if not rest and terms and len(filled) == 1:
        row = rows[filled[0]]
        named = [i for i, text in enumerate(header) if i < len(row) and row[i].strip()
                 and any(_holds(*_words(text), t) for t in terms)] if len(header) == len(row) else []
        return filled[0], named[0] if named else next(i for i, text in enumerate(row) if text.strip())
    if not rest:
        return None
    return _row_saying_most(rows, rest, lambda text: partial(_holds, *_words(text)))


def _row_saying_most(rows: Sequence[Sequence[str]], terms: Sequence[str],
                     reader: Callable[[str], Callable[[str], bool]]) -> tuple[int, int] | None:
    """``(row, cell)``: the row whose cells say most of ``terms`` (``reader(cell text)`` tells which a cell says),
    and the first cell saying one; None when no row says any, or two rows say as many."""
    scored: list[tuple[int, int, int]] = []
    for r, row in enumerate(rows):
        cells = [(i, reader(text)) for i, text in enumerate(row) if text.strip()]
        held = [next((i for i, says in cells if says(t)), None) for t in terms]
        found = [i for i in held if i is not None]
        if found:
            scored.append((len(found), r, min(found)))
    scored.sort(key=lambda s: -s[0])
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1], scored[0][2]


def valued_row(query: str, header: Sequence[str], rows: Sequence[Sequence[str]],
               closer: Callable[[dict[int, list[int]]], Mapping[int, float] | None] | None = None,
               margin: float = MEANT_MARGIN) -> tuple[int, int] | None:
    """``(row, cell)``: for a question cited on a table's ``header`` row that ``asked_row`` leaves there, the
    data row (among ``rows``, each its cells' texts under ``header``'s, column for column) holding a value
    under the header the question names (``named_header``), and that cell. "遗传病检测项目的检测方法是什么"
    over 项目编号 | 检测项目 | … | 检测方法: the header only names the asked attribute; the one row whose
    检测方法 cell is filled (merged down the rows below) holds "提取外周血基因组 DNA…" and answers (issue 33).

    Several rows holding a value there: the one holding most of the question's words the header does not;
    of rows holding as many (and some), the one ``closer`` puts ahead of the next by ``margin``: given each
    row's cells holding those words (``{row: [cell, ...]}``: what says which row it is), it gives each row's
    cosine with the question (its nearest such cell's).
    None when the question says no word beyond the header's (it asks about the columns), names no header,
    no row holds a value under it, no row holds another of its words ("what percent follow each
    religion": every row answers) or which row is meant is not said."""
    head = _words(" ".join(header))
    rest = [t for t in content_terms(query) if not _holds(*head, t)]
    col = named_header(query, [(text, i) for i, text in enumerate(header) if text.strip()]) if rest else None
    if col is None:
        return None
    holders = [r for r, row in enumerate(rows) if col < len(row) and row[col].strip()]
    if len(holders) <= 1:
        return (holders[0], col) if holders else None
    saying = {r: [i for i, text in enumerate(rows[r]) if text.strip() and any(_holds(*_words(text), t) for t in rest)]
              for r in holders}
    held = {r: sum(1 for t in rest if any(_holds(*_words(rows[r][i]), t) for i in saying[r])) for r in holders}
    most = max(held.values())
    top = [r for r in holders if held[r] == most]
    if not most or len(top) == 1:
        return (top[0], col) if most else None
    cos = closer({r: saying[r] for r in top}) if closer is not None else None
    ranked = sorted(((cos[r], r) for r in top if r in cos), reverse=True) if cos else []
    if len(ranked) < len(top) or ranked[0][0] - ranked[1][0] < margin:
        return None
    return ranked[0][1], col


def named_header(query: str, cells: Iterable[tuple[str, T]], *, inflected: bool = False) -> T | None:
    """The cell whose header (each ``(header text, cell)``) the query names best as a phrase
    (``said_at``), None when none is or two tie.

    Best: a header holding another named one ("Unit price" over "Price") is the more specific; else the
    one named first, since a question names what it asks about before what qualifies it ("What type of
    value", "the price per unit"); a longer header at the same place. Two cells under one header tie.
    A header named right before a possessive (``的``, ``の``) qualifies what follows it, so it yields to a
    header named elsewhere: "检测项目的检测方法是什么" asks for 检测方法, not 检测项目 (issue 33)."""
    q = " ".join(normalize(query).split())
    found: list[tuple[int, str, T]] = []
    for text, cell in cells:
        head = " ".join(normalize(text).split())
        at = said_at(q, head, inflected=inflected) if head else None
        if at is not None:
            found.append((at, head, cell))
    found = [f for f in found if not any(o[1] != f[1] and said_at(o[1], f[1]) is not None for o in found)]
    asked = [f for f in found if not _qualifies(q, f[0] + len(f[1]))]
    if asked and len({f[1] for f in asked}) < len({f[1] for f in found}):
        found = asked
    found.sort(key=lambda f: (f[0], -len(f[1])))
    if not found or (len(found) > 1 and found[1][:2] == found[0][:2]):
        return None
    return found[0][2]


#: Marks after a phrase saying it qualifies what follows ("检测项目的检测方法": the method of the items;
#: "評点の判定基準"). Not "之": it opens words of its own ("之间", "之后").
_POSSESSIVE = ("的", "の")


def _qualifies(query: str, end: int) -> bool:
    """Whether the phrase of ``query`` ending at ``end`` is followed by a possessive (``_POSSESSIVE``)."""
    return query[end:end + 1] in _POSSESSIVE


def meant_header(query: str, cells: Sequence[tuple[str, T]], *, margin: float = MEANT_MARGIN,
                 floor: float = MEANT_FLOOR) -> T | None:
    """The cell whose header (each ``(header text, cell)``) the question means, by the packaged e5
    model's cosine of ``query`` with each header text: when that cosine reaches ``floor`` and leads the
    next header's by ``margin`` (one header alone needs only the floor). None when the model is not
    available (or meaning is turned off: ``meaning.MEANING_WEIGHT`` 0), no cell has a header, none means
    the question enough (it asks for a column the table lacks: "Maria Lopez email" over Department |
    Salary | Start date) or two stand too close to choose.

    For a question naming its column in other words than the header's ("who wrote": Author, "how
    much does she earn": Salary), once ``named_header`` found no header named in words. ``query`` is
    best the question without the words that name the row (they are the cell it gives, not the one it
    asks for). Vectors are those of ``meaning.query_vector``: kept in memory and on disk by text."""
    with_head = [(" ".join(text.split()), cell) for text, cell in cells if text.strip()]
    if not with_head or not query.strip():
        return None
    from mnote_kr.citations.rank import meaning  # noqa: PLC0415 - the model loads only when asked

    if meaning.MEANING_WEIGHT <= 0:
        return None
    q = meaning.query_vector(" ".join(query.split()))
    if q is None:
        return None
    scored = []
    for text, cell in with_head:
        v = meaning.query_vector(text)
        if v is None:
            return None
        scored.append((float(v @ q), cell))
    scored.sort(key=lambda s: -s[0])
    if scored[0][0] < floor or (len(scored) > 1 and scored[0][0] - scored[1][0] < margin):
        return None
    return scored[0][1]
