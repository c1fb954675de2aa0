"""HTML of the web UI: the search page with source cards and the source viewer.

Pure functions from contracts to HTML strings; every value from a document, a query or
the registry goes through ``html.escape``. The pages carry no inline script or style (the
Content-Security-Policy forbids both): geometry is SVG attributes, behaviour is
``/static/viewer.js``, looks are ``/static/viewer.css``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from html import escape
from urllib.parse import quote, urlencode

import msgspec

from mnote_kr.models import Citation, DocumentModel, Locator, ModelParagraph, SearchResults

MODES = ("mix", "naive", "local", "global", "hybrid")
_STOP = frozenset("a an and are as at be by for from how in is it of on or that the this to was what when where "
                  "which who why with does do did can".split())
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def bare_id(citation_id: str) -> str:
    """``[a3z1]`` -> ``a3z1`` (what URLs carry)."""
    return citation_id.strip().strip("[]")


def view_url(citation_id: str, **query: str | int) -> str:
    """The viewer's path for a citation, with optional query parameters."""
    url = "/view/" + quote(bare_id(citation_id), safe="-_")
    return url + ("?" + urlencode(query) if query else "")


def page(title: str, body: str, *, scripts: bool = True) -> str:
    """A whole HTML document around ``body``."""
    script = '<script src="/static/viewer.js" defer></script>' if scripts else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · mnote-kr</title>"
        f'<link rel="stylesheet" href="/static/viewer.css">{script}</head>'
        f'<body><header class="top"><a class="brand" href="/">mnote-kr</a></header><main>{body}</main></body></html>'
    )


def message_page(title: str, message: str, hint: str | None = None) -> str:
    """An error or notice page: a title, one line, and how to go on."""
    extra = f'<p class="hint">{escape(hint)}</p>' if hint else ""
    return page(title, f'<section class="notice"><h1>{escape(title)}</h1><p>{escape(message)}</p>{extra}</section>',
                scripts=False)


# --------------------------------------------------------------------------- marking


def query_terms(query: str) -> list[str]:
    """The words of a query worth marking (no stop words, no single Latin letters), longest first."""
    terms = {query.strip()} if query.strip() else set()
    for word in _WORD.findall(query):
        if word.lower() in _STOP or (len(word) < 2 and word.isascii()):
            continue
        terms.add(word)
    return sorted((t for t in terms if t), key=len, reverse=True)


def _term_pattern(term: str) -> str:
    """A query term as a regex: a Latin word starts a word (``led`` is not marked in ``Filed``, nor
    ``table`` in ``suitable``) and runs to the word's end (``patent`` marks ``patented`` whole);
    CJK, which has no spaces, matches character by character anywhere."""
    body = re.escape(term)
    if term[:1].isalnum() and term[:1].isascii():
        body = r"(?<![^\W_])" + body
    if term[-1:].isalnum() and term[-1:].isascii():
        body += r"[^\W_]*"
    return body


def mark_query(text: str, query: str) -> str:
    """``text`` as HTML with every occurrence of a query term in ``<mark class="q">`` (whole words for
    Latin scripts, characters for CJK)."""
    terms = query_terms(query)
    if not terms or not text:
        return escape(text)
    pattern = re.compile("|".join(_term_pattern(t) for t in terms), re.IGNORECASE)
    out: list[str] = []
    last = 0
    for m in pattern.finditer(text):
        out.append(escape(text[last:m.start()]))
        out.append(f'<mark class="q">{escape(m.group(0))}</mark>')
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


# --------------------------------------------------------------------------- search page


def precision_badge(locator: Locator) -> str:
    """What is known about the place, said plainly: a box on a page, a paragraph, or only the file."""
    if locator.locator_precision == "bbox" and locator.page is not None:
        return f'<span class="badge bbox" title="page and rectangle known">box · p.{locator.page}</span>'
    if locator.locator_precision == "slide" and locator.slide is not None:
        notes = " notes" if locator.speaker_notes else ""
        return f'<span class="badge paragraph" title="slide and shape known">slide {locator.slide}{notes}</span>'
    if locator.locator_precision == "cell" and locator.sheet is not None:
        return (f'<span class="badge paragraph" title="sheet and cells known">'
                f'{escape(locator.sheet)}!{escape(locator.range or "")}</span>')
    if locator.locator_precision == "paragraph":
        return '<span class="badge paragraph" title="paragraph known, no page">paragraph</span>'
    return '<span class="badge file" title="the place in the file is not known">file only</span>'


def place_words(locator: Locator) -> str:
    """Where a place is, short: ``p.3``, ``¶12``, ``file``."""
    if locator.locator_precision == "bbox" and locator.page is not None:
        return f"p.{locator.page}"
    if locator.locator_precision == "paragraph" and locator.paragraph_index is not None:
        return f"¶{locator.paragraph_index}"
    return "file"


def _alternatives(c: Citation, query: str) -> str:
    """The file's next places under its card: each links to the viewer at that place."""
    if not c.alternatives:
        return ""
    items = "".join(
        f'<li class="alt" data-citation-id="{escape(a.citation_id)}" data-precision="{a.locator_precision}">'
        f'<a href="{escape(view_url(c.citation_id, place=n))}">place {n}</a> {precision_badge(a.locator)} '
        f'<span class="where">{escape(place_words(a.locator))}</span> '
        f'<span class="alt-quote">{mark_query(a.display_quote or "", query)}</span></li>'
        for n, a in enumerate(c.alternatives, 2))
    return f'<ol class="alternatives" aria-label="more places in this file">{items}</ol>'


def card(c: Citation, query: str) -> str:
    """One source card: citation ID, file, heading path, precision badge, marked quote, the file's next places."""
    heading = " › ".join(c.heading_path)
    heading_html = f'<div class="heading">{escape(heading)}</div>' if heading else ""
    quote_text = c.display_quote or ""
    return (
        f'<li class="card" data-citation-id="{escape(c.citation_id)}" data-precision="{c.locator_precision}">'
        f'<div class="card-head"><a class="cid" href="{escape(view_url(c.citation_id))}">{escape(c.citation_id)}</a>'
        f'<span class="file">{escape(c.source_root_relative_path)}</span>{precision_badge(c.locator)}</div>'
        f'{heading_html}<blockquote class="quote">{mark_query(quote_text, query)}</blockquote>'
        f'{_alternatives(c, query)}</li>'
    )


def search_page(query: str = "", mode: str = "mix", scope: str = "", roots: Iterable[str] = (),
                results: SearchResults | None = None, error: tuple[str, str | None] | None = None) -> str:
    """The search form, and the result cards when a query was run."""
    modes = "".join(f'<option value="{m}"{" selected" if m == mode else ""}>{m}</option>' for m in MODES)
    scopes = '<option value="">all indexed folders</option>' + "".join(
        f'<option value="{escape(r)}"{" selected" if r == scope else ""}>{escape(r)}</option>' for r in roots)
    form = (
        '<form class="search" method="get" action="/" role="search">'
        f'<input id="q" name="q" type="search" value="{escape(query)}" placeholder="Search your sources" '
        'autofocus required aria-label="query">'
        f'<select name="mode" aria-label="mode">{modes}</select>'
        f'<select name="scope" aria-label="folder">{scopes}</select>'
        '<button type="submit">Search</button></form>'
    )
    parts = [form]
    if error is not None:
        hint = f' <span class="hint">({escape(error[1])})</span>' if error[1] else ""
        parts.append(f'<p class="error" role="alert">{escape(error[0])}{hint}</p>')
    if results is not None:
        n = len(results.results)
        if results.weak and n:
            parts.append(f'<p class="banner weak" role="note">Weak result: {escape(results.weak_reason or "")}.</p>')
        parts.append(f'<p class="count">{n} source{"s" if n != 1 else ""} for <q>{escape(results.query)}</q></p>')
        parts.append('<ol class="cards">' + "".join(card(c, results.query) for c in results.results) + "</ol>")
        for item in results.not_indexed:
            parts.append(f'<p class="not-indexed">{escape(item.source_path)}: {escape(item.status)} '
                         f'({escape(item.reason)})</p>')
    return page(f"Search {query}" if query else "Search", "".join(parts))


# --------------------------------------------------------------------------- viewer


def place_count(c: Citation) -> int:
    """How many places the viewer steps through: the citation's own and its alternatives."""
    return 1 + len(c.alternatives)


def at_place(c: Citation, place: int) -> Citation:
    """``c`` as shown at its ``place`` (1: its own; 2...: its alternatives), keeping its ID and
    alternatives (the viewer steps from there)."""
    if place <= 1 or place > place_count(c):
        return c
    a = c.alternatives[place - 2]
    return msgspec.structs.replace(c, locator=a.locator, locator_precision=a.locator_precision,
                                   locator_degraded=a.locator_degraded, display_quote=a.display_quote,
                                   heading_path=a.heading_path)


def _place_nav(c: Citation, place: int) -> str:
    """Previous / next place of the file (keys ``p`` / ``n``, viewer.js), with where each is."""
    total = place_count(c)
    if total < 2:
        return ""
    parts = [f'<nav class="places" aria-label="places in this file" data-place="{place}" data-places="{total}">']
    if place > 1:
        back = view_url(c.citation_id, place=place - 1) if place > 2 else view_url(c.citation_id)  # 1: the citation's
        parts.append(f'<a id="place-prev" rel="prev" href="{escape(back)}" '
                     'aria-keyshortcuts="p">‹ previous place (p)</a>')
    parts.append(f'<span class="place-no">place {place} of {total}</span>')
    if place < total:
        parts.append(f'<a id="place-next" rel="next" href="{escape(view_url(c.citation_id, place=place + 1))}" '
                     'aria-keyshortcuts="n">next place (n) ›</a>')
    parts.append("</nav>")
    return "".join(parts)


def _viewer_head(c: Citation, banner: str, opened: str | None, place: int = 1) -> str:
    heading = " › ".join(c.heading_path)
    notice = ""
    if opened:
        notice = f'<p class="opened" role="status">{escape(opened)}</p>'
    return (
        f'<section class="viewer-head"><div class="card-head"><span class="cid">{escape(c.citation_id)}</span>'
        f'<span class="file">{escape(c.source_root_relative_path)}</span>{precision_badge(c.locator)}</div>'
        + (f'<div class="heading">{escape(heading)}</div>' if heading else "")
        + f'<blockquote class="quote">{mark_query(c.display_quote or "", c.search_query)}</blockquote>'
        + (f'<details class="context"><summary>the whole passage</summary>'
           f'<p>{mark_query(c.context_quote, c.search_query)}</p></details>' if c.context_quote else "")
        + _place_nav(c, place)
        + f'<form method="post" action="{escape(view_url(c.citation_id))}/open" class="open-system">'
        '<button type="submit">Open in the system viewer</button></form>'
        f"{notice}{banner}</section>"
    )


FILE_BANNER = ('<p class="banner file-only" role="note">The place of this passage in the file is not known: '
               "the document is shown from its start, nothing is highlighted.</p>")


def _fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def pdf_viewer(c: Citation, model: DocumentModel, shown: int, scale: float, version: str,
               opened: str | None = None, place: int = 1) -> str:
    """One PDF page as an image with the cited rectangles drawn over it in PDF points (those of
    the citation's ``place``: 1 its own, 2... its alternatives)."""
    c = at_place(c, place)
    extra = {"place": place} if place > 1 else {}
    loc = c.locator
    precise = loc.locator_precision == "bbox" and loc.bbox is not None and loc.page is not None
    size = model.pages[shown - 1]
    rects: list[str] = []
    if precise:
        for r in loc.rects:
            if r.page == shown and r.bbox != loc.bbox and len(r.bbox) == 4:
                x0, y0, x1, y1 = r.bbox
                rects.append(f'<rect class="hl-rect" x="{_fmt(x0)}" y="{_fmt(y0)}" width="{_fmt(x1 - x0)}" '
                             f'height="{_fmt(y1 - y0)}"/>')
        if loc.page == shown and loc.bbox is not None:
            x0, y0, x1, y1 = loc.bbox
            rects.append(f'<rect class="hl-primary" id="hl" x="{_fmt(x0)}" y="{_fmt(y0)}" width="{_fmt(x1 - x0)}" '
                         f'height="{_fmt(y1 - y0)}"/>')
    total = len(model.pages)
    cited_pages = sorted({r.page for r in loc.rects} | ({loc.page} if precise and loc.page else set()))
    nav = ['<nav class="pages" aria-label="pages">']
    if shown > 1:
        nav.append(f'<a rel="prev" href="{escape(view_url(c.citation_id, page=shown - 1, **extra))}">‹ previous</a>')
    nav.append(f'<span class="page-no">page {shown} of {total}</span>')
    if shown < total:
        nav.append(f'<a rel="next" href="{escape(view_url(c.citation_id, page=shown + 1, **extra))}">next ›</a>')
    hidden = f'<input type="hidden" name="place" value="{place}">' if place > 1 else ""
    nav.append(f'<form method="get" action="{escape(view_url(c.citation_id))}" class="goto">{hidden}'
               f'<input name="page" type="number" min="1" max="{total}" value="{shown}" aria-label="page">'
               '<button type="submit">go</button></form>')
    if precise and cited_pages:
        links = " ".join(f'<a href="{escape(view_url(c.citation_id, page=p, **extra))}">p.{p}</a>'
                         for p in cited_pages)
        nav.append(f'<span class="cited-pages">cited: {links}</span>')
    nav.append("</nav>")
    width_px, height_px = round(size.width * scale), round(size.height * scale)
    src = view_url(c.citation_id) + f"/page/{shown}.png?" + urlencode({"scale": _fmt(scale), "v": version})
    figure = (
        f'<div class="pdf-page" data-page="{shown}" data-width-pt="{_fmt(size.width)}" '
        f'data-height-pt="{_fmt(size.height)}">'
        f'<img class="page-image" src="{escape(src)}" width="{width_px}" height="{height_px}" '
        f'alt="page {shown} of {escape(c.source_root_relative_path)}">'
        f'<svg class="overlay" viewBox="0 0 {_fmt(size.width)} {_fmt(size.height)}" preserveAspectRatio="none" '
        f'aria-hidden="true">{"".join(rects)}</svg></div>'
    )
    banner = "" if precise else FILE_BANNER
    return page(f"{c.citation_id} {c.source_root_relative_path}",
                _viewer_head(c, banner, opened, place) + "".join(nav) + figure)


def _para_inner(p: ModelParagraph, loc: Locator | None) -> str:
    text = p.text
    if loc is not None and loc.highlight is not None and 0 <= loc.highlight.start < loc.highlight.end <= len(text):
        h = loc.highlight
        body = (escape(text[:h.start]) + f'<mark class="hl" id="hl">{escape(text[h.start:h.end])}</mark>'
                + escape(text[h.end:]))
    else:
        body = escape(text)
    boxes = "".join(f'<div class="textbox" role="note">{escape(t)}</div>' for t in p.textboxes if t.strip())
    return body + boxes


def _paragraph(p: ModelParagraph, cited: Locator | None, marker: str = "") -> str:
    classes = ["para"]
    attrs = [f'id="p-{p.index}"', f'data-paragraph-index="{p.index}"']
    if p.heading_level:
        classes.append(f"h{min(p.heading_level, 6)}")
        attrs.append(f'role="heading" aria-level="{min(p.heading_level, 6)}"')
    if p.list_level is not None:
        classes += ["li", f"lvl-{min(p.list_level, 8)}"]
    if p.in_toc:
        classes.append("toc")
    if p.code:
        classes.append("code")
    if cited is not None:
        classes.append("cited")
    mark = f'<span class="marker">{escape(marker)}</span>' if marker else ""
    return f'<div class="{" ".join(classes)}" {" ".join(attrs)}>{mark}{_para_inner(p, cited)}</div>'


def _table(paras: list[ModelParagraph], cited_index: int | None, loc: Locator) -> str:
    grid: dict[int, dict[int, list[ModelParagraph]]] = {}
    for p in paras:
        assert p.cell is not None
        grid.setdefault(p.cell[1], {}).setdefault(p.cell[2], []).append(p)
    rows = []
    for r in sorted(grid):
        cells = "".join(
            "<td>" + "".join(_paragraph(p, loc if p.index == cited_index else None) for p in grid[r][col]) + "</td>"
            for col in sorted(grid[r]))
        rows.append(f"<tr>{cells}</tr>")
    return f'<table class="tbl"><tbody>{"".join(rows)}</tbody></table>'


def paragraphs_html(model: DocumentModel, cited_index: int | None, loc: Locator) -> str:
    """The document's paragraphs in order: tables grouped, list items numbered, the cited one marked."""
    out: list[str] = []
    paras = model.paragraphs
    counters: list[int] = []
    kinds: list[bool] = []  # per level: numbered or bulleted
    i = 0
    while i < len(paras):
        p = paras[i]
        if p.cell is not None:
            j = i
            while j < len(paras) and paras[j].cell is not None and paras[j].cell[0] == p.cell[0]:  # type: ignore[index]
                j += 1
            out.append(_table(list(paras[i:j]), cited_index, loc))
            counters, kinds = [], []
            i = j
            continue
        marker = ""
        if p.list_level is not None:
            level = p.list_level
            del counters[level + 1:]
            del kinds[level + 1:]
            while len(counters) <= level:
                counters.append(0)
                kinds.append(p.list_ordered)
            if kinds[level] != p.list_ordered:  # a bulleted list then a numbered one: numbering restarts
                counters[level], kinds[level] = 0, p.list_ordered
            counters[level] += 1
            marker = f"{counters[level]}." if p.list_ordered else "•"
        else:
            counters, kinds = [], []
        out.append(_paragraph(p, loc if p.index == cited_index else None, marker))
        i += 1
    return "".join(out)


def paragraph_viewer(c: Citation, model: DocumentModel, opened: str | None = None, place: int = 1) -> str:
    """A DOCX, Markdown or text source from its paragraph model, the paragraph of the citation's
    ``place`` marked (1: its own, 2...: its alternatives)."""
    c = at_place(c, place)
    loc = c.locator
    precise = loc.locator_precision == "paragraph" and loc.paragraph_index is not None
    cited = loc.paragraph_index if precise else None
    if cited is not None and not 0 <= cited < len(model.paragraphs):
        cited = None  # the document has fewer paragraphs than the locator says: never guess
    banner = "" if cited is not None else FILE_BANNER
    doc = f'<article class="doc">{paragraphs_html(model, cited, loc)}</article>'
    return page(f"{c.citation_id} {c.source_root_relative_path}", _viewer_head(c, banner, opened, place) + doc)


def no_preview(c: Citation, reason: str, opened: str | None = None) -> str:
    """A source the plugins cannot show: the card, the reason and the system-viewer action."""
    return page(f"{c.citation_id} {c.source_root_relative_path}",
                _viewer_head(c, f'<p class="banner no-preview" role="note">{escape(reason)}</p>', opened))


def gone_page(c: Citation, reason: str) -> str:
    """A cited source that is stale, deleted or changed: say so, show nothing of it."""
    return page(f"{c.citation_id} not available", (
        f'<section class="notice gone"><h1>{escape(c.citation_id)} cannot be shown</h1>'
        f'<p class="file">{escape(c.source_root_relative_path)}</p>'
        f'<p class="banner stale" role="alert">{escape(reason)}</p>'
        '<p class="hint">Search again to get citations of the current version.</p></section>'), scripts=False)
