"""A chart's place and quote: the point asked about, or the chart as a whole.

A chart is read as its head (its title, or its series' names) and a line per category (``charts``). A
question naming a category or a value ("freshwater ducks 2021") asks for that point: it is cited on its line
and quoted by it first, "2021: Freshwater Ducks 150, Saltwater Ducks 110", the chart's head after it in
brackets when the line lacks its words ("Q2: 20 (2026)": a single series' line names no series), never the
other years' figures; the whole chart stays in the citation's ``contextQuote`` (the provider's chunk). A
question naming no point ("what does the duck survey chart show") asks about the chart: it is cited on the
chart's head and quoted from it, the points after it while they fit (``QUOTE_CHARS``).

A word of a line names its point when not every point line of the chart holds it: "2021", "150", not the
series' names "Freshwater" and "Ducks" each line repeats.
"""

from __future__ import annotations

from mnote_kr.plugin_api import iter_tokens, normalize

from .named import named_kinds, other_words
from .reader import PptxDocument, SlideParagraph


def chart_of(doc: PptxDocument, para: SlideParagraph) -> list[SlideParagraph]:
    """The lines of ``para``'s chart in order, its head first; empty when ``para`` is no chart's line."""
    if para.kind != "chart":
        return []

    def same(p: SlideParagraph) -> bool:
        return (p.slide, p.shape_id, p.notes, p.kind) == (para.slide, para.shape_id, para.notes, "chart")

    start, end = para.index, para.index + 1
    while start > 0 and same(doc.paragraphs[start - 1]):
        start -= 1
    while end < len(doc.paragraphs) and same(doc.paragraphs[end]):
        end += 1
    return doc.paragraphs[start:end]


def point_words(lines: list[SlideParagraph], para: SlideParagraph) -> set[str]:
    """The words of the point line ``para`` that name its point: those not every point line of its chart (all
    of ``lines`` but the head) holds, nor the head; empty for the head."""
    points = lines[1:]
    if para not in points:
        return set()
    shared = frozenset.intersection(*(frozenset(p.tokens) for p in points))
    return para.tokens - shared - lines[0].tokens


def chart_place(doc: PptxDocument, para: SlideParagraph, query: str, meta: frozenset[str]) -> SlideParagraph:
    """Where a chart question is cited. On ``para``'s chart (or, when ``para`` is its slide's title and the
    query names a chart, "the duck survey chart", on the slide's one chart): the point line the query names
    (a word of its ``point_words``), ``para`` when it is one of several named; the chart's head when the
    query names none. ``para`` itself when it is no chart's line and no such title."""
    lines = chart_of(doc, para)
    if not lines and para.title and not para.notes and "chart" in named_kinds(query):
        charts = [p for p in doc.paragraphs if p.slide == para.slide and p.kind == "chart" and not p.notes]
        if len({p.shape_id for p in charts}) == 1:
            lines = chart_of(doc, charts[0])
    if not lines:
        return para
    wanted = other_words(query, meta)
    named = [p for p in lines[1:] if wanted & point_words(lines, p)]
    if not named:
        return lines[0]
    return named[0] if para not in named and len(named) == 1 else para


def point_quote(doc: PptxDocument, para: SlideParagraph) -> str | None:
    """``para``'s line, then its chart's head in brackets when the head holds a word the line does not
    ("Q2: 20 (2026)"); None when ``para`` is no chart's point (its head, or no chart's line)."""
    lines = chart_of(doc, para)
    if not lines or para is lines[0]:
        return None
    line, head = " ".join(para.text.split()), " ".join(lines[0].text.split())
    heads = {tok for tok, _, _ in iter_tokens(normalize(head))}
    return f"{line} ({head})" if heads - para.tokens else line
