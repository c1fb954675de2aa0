"""HTML of the search page: the form, and the results as source cards.

The cards a person reads whole are those ``citations.render.strength.by_strength`` keeps (the CLI's
plain ``search`` shows the same ones); the weaker matches it names are one line each (ID, file, place) that a
click opens to the whole card, the others folded under one line that counts them; a weak search (nothing seems to
answer) lists its cards so, under a banner that says why. Values are escaped and no script or style is inline, as
in ``webpages``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from mnote_kr.citations.render.alsoasked import held_note
from mnote_kr.citations.render.cards import not_indexed_text, unnamed_line
from mnote_kr.citations.render.strength import by_strength, weaker_named
from mnote_kr.models import Citation, SearchResults
from mnote_kr.viewer.marking import mark_query
from mnote_kr.viewer.webpages import page, place_words, precision_badge, view_url_of

MODES = ("mix", "naive", "local", "global", "hybrid")


def _alternatives(c: Citation, query: str) -> str:
    """The file's next places under its card: each links to the viewer at that place."""
    if not c.alternatives:
        return ""
    items = "".join(
        f'<li class="alt" data-citation-id="{escape(a.citation_id)}" data-precision="{a.locator_precision}">'
        f'<a href="{escape(view_url_of(c, place=n))}">place {n}</a> {precision_badge(a.locator)} '
        f'<span class="where">{escape(place_words(a.locator))}</span> '
        f'<span class="alt-quote">{mark_query(a.display_quote or "", query)}</span></li>'
        for n, a in enumerate(c.alternatives, 2))
    return f'<ol class="alternatives" aria-label="more places in this file">{items}</ol>'


def card(c: Citation, query: str, *, short: bool = False) -> str:
    """One source card: citation ID, file, heading path, precision badge, marked quote, the file's next places.

    ``short``: a weaker match, one line (ID, file, the place's badge) that a click opens to the whole card."""
    heading = " › ".join(c.heading_path)
    heading_html = f'<div class="heading">{escape(heading)}</div>' if heading else ""
    quote_text = c.display_quote or ""
    head = (f'<a class="cid" href="{escape(view_url_of(c))}">{escape(c.citation_id)}</a>'
            f'<span class="file">{escape(c.source_root_relative_path)}</span>{precision_badge(c.locator)}')
    body = (f'{heading_html}<blockquote class="quote">{mark_query(quote_text, query)}</blockquote>'
            f'{_alternatives(c, query)}')
    inner = (f'<details class="more"><summary class="card-head">{head}</summary>{body}</details>' if short
             else f'<div class="card-head">{head}</div>{body}')
    cid = escape(c.citation_id)
    return f'<li class="card" data-citation-id="{cid}" data-precision="{c.locator_precision}">{inner}</li>'


def _cards(cards: list[Citation], query: str, *, weak: bool = False) -> str:
    """The cards ``by_strength`` keeps whole, then the weaker ones short, as the CLI lists them; a weak
    search's all short, under its banner."""
    whole, short = by_strength(cards, weak=weak)
    short, rest = weaker_named(cards, short, weak=weak)
    if weak:
        return ('<ol class="cards weaker" aria-label="nearest by meaning">'
                + "".join(card(c, query, short=True) for c in short) + "</ol>" + _unnamed(rest, query, bool(short)))
    out = '<ol class="cards">' + "".join(card(c, query) for c in whole) + "</ol>"
    if short:
        out += ('<h2 class="weaker">Weaker matches <span class="hint">(nearest by meaning; click one to see it)'
                '</span></h2><ol class="cards weaker" aria-label="weaker matches">'
                + "".join(card(c, query, short=True) for c in short) + "</ol>")
    return out + _unnamed(rest, query, bool(short))


def _unnamed(rest: list[Citation], query: str, listed: bool) -> str:
    """The weaker matches ``weaker_named`` does not name, folded under one closed line that counts them (the CLI
    prints that line alone): nothing is dropped, one click lists them short."""
    if not rest:
        return ""
    return (f'<details class="weaker-more"><summary>{escape(unnamed_line(len(rest), listed=listed).strip())}'
            '</summary><ol class="cards weaker" aria-label="further matches">'
            + "".join(card(c, query, short=True) for c in rest) + "</ol></details>")


def search_page(query: str = "", mode: str = "mix", scope: str | Sequence[str] = "", roots: Iterable[str] = (),
                results: SearchResults | None = None, error: tuple[str, str | None] | None = None) -> str:
    """The search form, and the result cards when a query was run. ``scope``: the path(s) searched; one that is
    no indexed folder (a file, a subfolder: the viewer's way back to a scoped search) is an option of its own,
    chosen, and several make the list a multiple choice, so the form searches the same scope again."""
    modes = "".join(f'<option value="{m}"{" selected" if m == mode else ""}>{m}</option>' for m in MODES)
    chosen = [s for s in ([scope] if isinstance(scope, str) else scope) if s]
    # A root at the workspace itself ('roots add .', path "") is what "all indexed folders" already covers.
    options = [r for r in roots if r not in ("", ".")]
    options += [s for s in chosen if s not in options]
    scopes = '<option value="">all indexed folders</option>' + "".join(
        f'<option value="{escape(r)}"{" selected" if r in chosen else ""}>{escape(r)}</option>' for r in options)
    several = " multiple" if len(chosen) > 1 else ""
    form = (
        '<form class="search" method="get" action="/" role="search">'
        f'<input id="q" name="q" type="search" value="{escape(query)}" placeholder="Search your sources" '
        'autofocus required aria-label="query">'
        f'<select name="mode" aria-label="mode">{modes}</select>'
        f'<select name="scope" aria-label="folder"{several}>{scopes}</select>'
        '<button type="submit">Search</button></form>'
    )
    parts = [form]
    if error is not None:
        hint = f' <span class="hint">({escape(error[1])})</span>' if error[1] else ""
        parts.append(f'<p class="error" role="alert">{escape(error[0])}{hint}</p>')
    if results is not None:
        n = len(results.results)
        weak = results.weak and n > 0
        if weak:  # said first and plainly: the cards under it are no answer, only what lies nearest
            parts.append(f'<p class="banner weak" role="note">Weak result: '
                         f'{escape(results.weak_reason or "nothing found seems to answer the query")}. '
                         'Below, one line each, the passages nearest by meaning; click one to see it.</p>')
        parts.append(f'<p class="count">{n} source{"s" if n != 1 else ""} for <q>{escape(results.query)}</q></p>')
        parts.append(_cards(results.results, results.query, weak=weak))
        if held := held_note(results.diagnostics, results.weak_reason if weak else None):
            parts.append(f'<p class="note">{escape(held)}</p>')  # a file LightRAG returned nothing of holds the words
        for item in results.not_indexed:
            parts.append(f'<p class="not-indexed">{escape(item.source_path)}: not indexed '
                         f'({escape(not_indexed_text(item))})</p>')
    return page(f"Search {query}" if query else "Search", "".join(parts))
