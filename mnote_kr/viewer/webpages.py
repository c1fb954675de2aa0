"""HTML of the web UI: the page shell, precision badges and the source viewer (the search page and its
cards: ``searchpage``).

Pure functions from contracts to HTML strings; every value from a document, a query or
the registry goes through ``html.escape``. The pages carry no inline script or style (the
Content-Security-Policy forbids both): geometry is SVG attributes, behaviour is
``/static/viewer.js``, looks are ``/static/viewer.css``.
"""

from __future__ import annotations

import re
from html import escape
from urllib.parse import quote, urlencode

import msgspec

from mnote_kr.citations.render.ids import issue_key
from mnote_kr.citations.render.precision import (
    HINT_WORDS,
    certainty,
    how_placed,
    page_hint,
    paragraph_number,
    short_label,
)
from mnote_kr.models import (
    Citation,
    DocumentModel,
    IssuedQuote,
    Locator,
    ModelParagraph,
    ModelShape,
    ModelSheet,
    ModelSlide,
)
from mnote_kr.viewer.fonts import displayable
from mnote_kr.viewer.marking import mark_query, sentence_span  # tests and callers use mark_query from here too
from mnote_kr.viewer.searchlinks import results_link  # tests use it from here


def bare_id(citation_id: str) -> str:
    """``[a3z1]`` -> ``a3z1`` (what URLs carry)."""
    return citation_id.strip().strip("[]")


def view_url(citation_id: str, **query: str | int) -> str:
    """The viewer's path for a citation, with optional query parameters."""
    url = "/view/" + quote(bare_id(citation_id), safe="-_")
    return url + ("?" + urlencode(query) if query else "")


def issue_param(c: Citation | IssuedQuote) -> dict[str, str]:
    """``?issue=`` of the search that issued ``c`` (its ``issue``, else its query's key; none without a query):
    the viewer opens an ID as that search showed it (its places, its way back), whichever search printed it since."""
    return {"issue": c.issue or issue_key(c.search_query)} if c.search_query.strip() else {}


def view_url_of(c: Citation, **query: str | int) -> str:
    """``view_url`` of ``c`` on the issue the page shows: stepping never leaves its search."""
    return view_url(c.citation_id, **issue_param(c), **query)


def _open_action(c: Citation) -> str:
    """``POST /view/{id}/open`` (the system viewer), keeping the issue for the page it comes back to."""
    issue = issue_param(c)
    return view_url(c.citation_id) + "/open" + ("?" + urlencode(issue) if issue else "")


def page(title: str, body: str, *, scripts: bool = True) -> str:
    """A whole HTML document around ``body``."""
    script = ('<script src="/static/viewer.js" defer></script><script src="/static/shell.js" defer></script>'
              if scripts else "")
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


# --------------------------------------------------------------------------- precision badges (cards and viewer)


_BADGE_TITLE = {
    "bbox": "page and rectangle known: the box holds the evidence",
    "slide": "slide and shape known", "cell": "sheet and cells known", "paragraph": "paragraph known, no page",
}
_APPROX_TITLE = "approximate: the passage the evidence came from, not the exact place"
#: A degraded place chosen by meaning, or where the evidence was found (``precision.how_placed``): said, not doubted.
_PLACED_TITLE = {"meaning": "placed by meaning: the place nearest the question in meaning, holding few of its words",
                 "found": "where the search found it: the passage's evidence, holding some of the question's words"}


def precision_badge(locator: Locator) -> str:
    """What is known about the place, said plainly (``citations.precision``): a box on a page, a
    passage box (approximate), a paragraph, a page known without its place, or only the file."""
    kind = certainty(locator)
    label = escape(short_label(locator))
    if kind == "file":
        title = HINT_WORDS if page_hint(locator) is not None else "the place in the file is not known"
        return f'<span class="badge file" data-certainty="file" title="{title}">{label}</span>'
    css = "bbox" if locator.locator_precision == "bbox" else "paragraph"
    title = _PLACED_TITLE.get(how_placed(locator), _APPROX_TITLE) if kind == "approximate" \
        else _BADGE_TITLE.get(locator.locator_precision, "")
    extra = " approx" if kind == "approximate" else ""
    return f'<span class="badge {css}{extra}" data-certainty="{kind}" title="{title}">{label}</span>'


def place_words(locator: Locator) -> str:
    """Where a place is, short: ``p.3``, ``¶13`` (paragraphs counted from 1), ``slide 2``, ``Results!C2``,
    ``p.5?`` (a page hint), ``file``."""
    if locator.locator_precision == "bbox" and locator.page is not None:
        return f"p.{locator.page}"
    if locator.locator_precision == "paragraph" and locator.paragraph_index is not None:
        return f"¶{paragraph_number(locator.paragraph_index)}"
    if locator.locator_precision == "slide" and locator.slide is not None:
        return f"slide {locator.slide}" + (" notes" if locator.speaker_notes else "")
    if locator.locator_precision == "cell" and locator.sheet is not None:
        return f"{locator.sheet}!{locator.range or ''}"
    hint = page_hint(locator)
    return f"p.{hint}?" if hint is not None else "file"


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
    """Previous / next place (keys ``p`` / ``n``, viewer.js); the last says so, ``n`` there goes to the first."""
    total = place_count(c)
    if total < 2:
        return ""
    parts = [f'<nav class="places" aria-label="places in this file" data-place="{place}" data-places="{total}">']
    if place > 1:
        back = view_url_of(c, place=place - 1) if place > 2 else view_url_of(c)  # 1: the citation's
        parts.append(f'<a id="place-prev" rel="prev" href="{escape(back)}" '
                     'aria-keyshortcuts="p">‹ previous place (p)</a>')
    parts.append(f'<span class="place-no">{"last place" if place == total else f"place {place}"} of {total}</span>')
    nxt = (f'id="place-next" rel="next" href="{escape(view_url_of(c, place=place + 1))}" ', "next place (n) ›") \
        if place < total else (f'id="place-first" rel="first" href="{escape(view_url_of(c))}" ', "back to first (n) «")
    parts.append(f'<a {nxt[0]}aria-keyshortcuts="n">{nxt[1]}</a>')
    parts.append("</nav>")
    return "".join(parts)


def _viewer_head(c: Citation, banner: str, opened: str | None, place: int = 1, note: str | None = None) -> str:
    heading = " › ".join(c.heading_path)
    notice = f'<p class="opened" role="status">{escape(opened)}</p>' if opened else ""
    if note:  # the search the URL named is not kept: the newest is shown
        notice += f'<p class="banner issue-gone" role="note">{escape(note)}</p>'
    return (
        f'<section class="viewer-head">{results_link(c.search_query, c.search_mode, c.search_scope)}'
        f'<div class="card-head"><span class="cid">{escape(c.citation_id)}</span>'
        f'<span class="file">{escape(c.source_root_relative_path)}</span>{precision_badge(c.locator)}</div>'
        + (f'<div class="heading">{escape(heading)}</div>' if heading else "")
        + f'<blockquote class="quote">{mark_query(c.display_quote or "", c.search_query)}</blockquote>'
        + (f'<details class="context"><summary>the whole passage</summary>'
           f'<p>{mark_query(c.context_quote, c.search_query)}</p></details>' if c.context_quote else "")
        + _place_nav(c, place)
        + f'<form method="post" action="{escape(_open_action(c))}" class="open-system">'
        '<button type="submit">Open in the system viewer</button></form>'
        f"{notice}{banner}</section>"
    )


FILE_BANNER = ('<p class="banner file-only" role="note">The place of this passage in the file is not known: '
               "the document is shown from its start, nothing is highlighted.</p>")
HINT_BANNER = ('<p class="banner file-only page-hint" role="note">Page {page} known, place not found: the evidence '
               "is on page {page}, its place on the page was not found, so nothing is highlighted.</p>")
APPROX_BANNER = ('<p class="banner approx" role="note">Approximate place: what is marked (dashed) is the passage '
                 "the evidence came from; the exact place of the answer in it is not known.</p>")
PLACED_BANNER = {
    "meaning": ('<p class="banner approx placed" role="note">Placed by meaning: what is marked (dashed) is the place '
                "of the passage nearest the question in meaning; it holds few of the question's words.</p>"),
    "found": ('<p class="banner approx placed" role="note">Where the search found it: what is marked (dashed) holds '
              "the passage's evidence and some of the question's words, not all of them.</p>")}


def place_banner(loc: Locator, shown: bool) -> str:
    """The viewer's note on how sure the place is (``citations.precision``): none for an exact place
    it shows; "approximate" for a passage box or paragraph; "page known, place not found" for a
    ``file`` citation's ``pageHint``; else the place is not known (``shown`` false)."""
    if shown:
        return PLACED_BANNER.get(how_placed(loc), APPROX_BANNER) if certainty(loc) == "approximate" else ""
    hint = page_hint(loc)
    return HINT_BANNER.format(page=hint) if hint is not None else FILE_BANNER


def _fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _step_nav(c: Citation, unit: str, shown: int, total: int, extra: dict[str, int]) -> list[str]:
    """The opening of a page or slide bar: ``‹ previous``, ``page 2 of 9``, ``next ›`` (``unit`` is the
    query parameter and the word); the caller adds its own items and closes the ``nav``."""
    nav = [f'<nav class="pages" aria-label="{unit}s">']
    if shown > 1:
        back = view_url_of(c, **{unit: shown - 1}, **extra)
        nav.append(f'<a rel="prev" href="{escape(back)}">‹ previous</a>')
    nav.append(f'<span class="page-no">{unit} {shown} of {total}</span>')
    if shown < total:
        nav.append(f'<a rel="next" href="{escape(view_url_of(c, **{unit: shown + 1}, **extra))}">next ›</a>')
    return nav


def pdf_viewer(c: Citation, model: DocumentModel, shown: int, scale: float, version: str,
               opened: str | None = None, place: int = 1, notice: str | None = None, note: str | None = None) -> str:
    """One PDF page as an image with the cited rectangles drawn over it in PDF points (those of
    the citation's ``place``: 1 its own, 2... its alternatives); ``notice`` a line above it (fonts)."""
    c = at_place(c, place)
    extra = {"place": place} if place > 1 else {}
    loc = c.locator
    precise = loc.locator_precision == "bbox" and loc.bbox is not None and loc.page is not None
    size = model.pages[shown - 1]
    rects: list[str] = []
    # One rule (citations.precision): an approximate box is drawn dashed and lighter, an exact one solid.
    approx = " approx" if certainty(loc) == "approximate" else ""
    if precise:
        for r in loc.rects:
            if r.page == shown and r.bbox != loc.bbox and len(r.bbox) == 4:
                x0, y0, x1, y1 = r.bbox
                rects.append(f'<rect class="hl-rect{approx}" x="{_fmt(x0)}" y="{_fmt(y0)}" width="{_fmt(x1 - x0)}" '
                             f'height="{_fmt(y1 - y0)}"/>')
        if loc.page == shown and loc.bbox is not None:
            x0, y0, x1, y1 = loc.bbox
            rects.append(f'<rect class="hl-primary{approx}" id="hl" x="{_fmt(x0)}" y="{_fmt(y0)}" '
                         f'width="{_fmt(x1 - x0)}" height="{_fmt(y1 - y0)}"/>')
    total = len(model.pages)
    cited_pages = sorted({r.page for r in loc.rects} | ({loc.page} if precise and loc.page else set()))
    nav = _step_nav(c, "page", shown, total, extra)
    hidden = "".join(f'<input type="hidden" name="{k}" value="{escape(str(v))}">'
                     for k, v in {**issue_param(c), **extra}.items())
    nav.append(f'<form method="get" action="{escape(view_url(c.citation_id))}" class="goto">{hidden}'
               f'<input name="page" type="number" min="1" max="{total}" value="{shown}" aria-label="page">'
               '<button type="submit">go</button></form>')
    if precise and cited_pages:
        links = " ".join(f'<a href="{escape(view_url_of(c, page=p, **extra))}">p.{p}</a>'
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
    banner = place_banner(loc, precise)
    fonts_line = f'<p class="banner fonts" role="note">{escape(notice)}</p>' if notice else ""
    return page(f"{c.citation_id} {c.source_root_relative_path}",
                _viewer_head(c, banner, opened, place, note) + "".join(nav) + fonts_line + figure)


def _marked(text: str, loc: Locator | None, mark_id: str = ' id="hl"', span: tuple[int, int] | None = None) -> str:
    """``text`` (its ``span`` only, when given: a Markdown line's words without their markup) as HTML with the
    locator's ``highlight`` offsets, which count in the whole ``text``, in ``<mark class="hl">`` when they fit."""
    text = displayable(text)  # Symbol-font bullets as Unicode, one for one: the offsets still fit
    a, b = span if span is not None else (0, len(text))
    if loc is not None and loc.highlight is not None and 0 <= loc.highlight.start < loc.highlight.end <= len(text):
        lo, hi = sentence_span(text, loc.highlight.start, loc.highlight.end)  # whole sentences, not a word cluster
        lo, hi = max(lo, a), min(hi, b)
        if lo < hi:
            return escape(text[a:lo]) + f'<mark class="hl"{mark_id}>{escape(text[lo:hi])}</mark>' + escape(text[hi:b])
    return escape(text[a:b])


def _shown(p: ModelParagraph) -> tuple[int, int] | None:
    """The part of ``p.text`` shown as its words (``ModelParagraph.shown``), when the model gives a valid one."""
    if p.shown is not None and len(p.shown) == 2 and 0 <= p.shown[0] <= p.shown[1] <= len(p.text):
        return p.shown[0], p.shown[1]
    return None


def _para_inner(p: ModelParagraph, loc: Locator | None) -> str:
    body = _marked(p.text, loc, span=_shown(p))
    boxes = "".join(f'<div class="textbox" role="note">{escape(displayable(t))}</div>' for t in p.textboxes
                    if t.strip())
    return body + boxes


def _paragraph(p: ModelParagraph, cited: Locator | None, marker: str = "") -> str:
    classes = ["para"]
    attrs = [f'id="p-{p.index}"', f'data-paragraph-index="{p.index}"']
    span = _shown(p)
    if span is not None and span[0]:
        attrs.append(f'data-text-start="{span[0]}"')  # shell.js: highlight offsets count from the markup
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
        classes += ["cited", "approx"] if certainty(cited) == "approximate" else ["cited"]
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
            "<td>" + "".join(_paragraph(p, loc if p.index == cited_index else None, p.label or "")
                             for p in grid[r][col]) + "</td>"
            for col in sorted(grid[r]))
        rows.append(f"<tr>{cells}</tr>")
    return f'<table class="tbl"><tbody>{"".join(rows)}</tbody></table>'


def paragraphs_html(model: DocumentModel, cited_index: int | None, loc: Locator) -> str:
    """The document's paragraphs in order: tables grouped, list items and numbered headings numbered (by the
    file's own ``label`` when the model knows it, else counted here), the cited one marked."""
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
            marker = p.label or (f"{counters[level]}." if p.list_ordered else "•")
        else:
            counters, kinds = [], []
            marker = p.label or ""  # a numbered heading's "3.1", as the file shows it
        out.append(_paragraph(p, loc if p.index == cited_index else None, marker))
        i += 1
    return "".join(out)


def paragraph_viewer(c: Citation, model: DocumentModel, opened: str | None = None, place: int = 1,
                     note: str | None = None) -> str:
    """A DOCX, Markdown or text source from its paragraph model, the paragraph of the citation's
    ``place`` marked (1: its own, 2...: its alternatives)."""
    c = at_place(c, place)
    loc = c.locator
    precise = loc.locator_precision == "paragraph" and loc.paragraph_index is not None
    cited = loc.paragraph_index if precise else None
    if cited is not None and not 0 <= cited < len(model.paragraphs):
        cited = None  # the document has fewer paragraphs than the locator says: never guess
    banner = place_banner(loc, cited is not None)
    doc = f'<article class="doc">{paragraphs_html(model, cited, loc)}</article>'
    return page(f"{c.citation_id} {c.source_root_relative_path}", _viewer_head(c, banner, opened, place, note) + doc)


# --------------------------------------------------------------------------- slides (PPTX)


def _shape_paragraphs(paras: list[ModelParagraph], cited: Locator | None) -> str:
    """A shape's (or the notes') paragraphs; the locator's ``paragraphIndex`` marked when ``cited``."""
    out = []
    for p in paras:
        mine = cited is not None and cited.paragraph_index == p.index
        cls = "sp cited" if mine else "sp"
        out.append(f'<p class="{cls}" data-paragraph-index="{p.index}">'
                   f'{_marked(p.text, cited if mine else None, "")}</p>')
    return "".join(out)


def _shape(shape: ModelShape, cited: Locator | None) -> str:
    classes = ["shape"] + (["title"] if shape.title else []) + (["cited"] if cited is not None else []) \
        + (["approx"] if cited is not None and certainty(cited) == "approximate" else [])
    attrs = [f'class="{" ".join(classes)}"', f'data-shape-id="{shape.id if shape.id is not None else ""}"',
             f'data-shape-name="{escape(shape.name)}"', f'title="{escape(shape.name)}"']
    if cited is not None:
        attrs.insert(0, 'id="hl"')
    if shape.box is not None and len(shape.box) == 4:
        attrs.append('data-box="' + " ".join(_fmt(v * 100) for v in shape.box) + '"')  # percent of the slide
    return f'<div {" ".join(attrs)}>{_shape_paragraphs(shape.paragraphs, cited)}</div>'


def _cited_shape(slide: ModelSlide, loc: Locator) -> ModelShape | None:
    """The slide's shape the locator names: by id and name, else by id alone; None when not there."""
    same_id = [s for s in slide.shapes if s.id == loc.shape_id]
    return next((s for s in same_id if s.name == loc.shape_name), same_id[0] if len(same_id) == 1 else None)


def slide_viewer(c: Citation, model: DocumentModel, shown: int, opened: str | None = None, place: int = 1,
                 note: str | None = None) -> str:
    """One slide of a presentation: its shapes' text laid out at their places in a slide-shaped frame
    (``viewer.js`` positions them from ``data-box``), the cited shape (or the notes) marked."""
    c = at_place(c, place)
    extra = {"place": place} if place > 1 else {}
    loc = c.locator
    slide = model.slides[shown - 1]
    precise = loc.locator_precision == "slide" and loc.slide == shown
    target = _cited_shape(slide, loc) if precise and not loc.speaker_notes else None
    notes_cited = precise and loc.speaker_notes and bool(slide.notes)
    placed = [s for s in slide.shapes if s.box is not None]
    loose = [s for s in slide.shapes if s.box is None]
    frame = (f'<div class="slide" data-slide="{slide.number}" data-aspect="{slide.width or 4} / {slide.height or 3}" '
             f'aria-label="slide {slide.number}">'
             + "".join(_shape(s, loc if s is target else None) for s in placed) + "</div>")
    rest = ('<div class="loose-shapes">' + "".join(_shape(s, loc if s is target else None) for s in loose)
            + "</div>") if loose else ""
    notes = ""
    if slide.notes:
        hl = ' id="hl"' if notes_cited else ""
        mark = (" cited approx" if certainty(loc) == "approximate" else " cited") if notes_cited else ""
        notes = (f'<section class="notes{mark}"{hl}><h2>Speaker notes</h2>'
                 f'{_shape_paragraphs(slide.notes, loc if notes_cited else None)}</section>')
    total = len(model.slides)
    nav = _step_nav(c, "slide", shown, total, extra)
    if loc.locator_precision == "slide" and loc.slide and loc.slide != shown:
        nav.append(f'<span class="cited-pages">cited: <a href="{escape(view_url_of(c, **extra))}">'
                   f"slide {loc.slide}</a></span>")
    nav.append("</nav>")
    banner = ""
    if loc.locator_precision != "slide" or loc.slide is None:
        banner = FILE_BANNER
    elif precise and target is None and not notes_cited:  # never guess another shape
        banner = ('<p class="banner file-only" role="note">The cited shape is not on this slide as the viewer reads '
                  "it: nothing is highlighted.</p>")
    elif target is not None or notes_cited:  # one rule with PDFs and DOCX: an approximate place dashed, banner
        banner = place_banner(loc, True)
    return page(f"{c.citation_id} {c.source_root_relative_path}",
                _viewer_head(c, banner, opened, place, note) + "".join(nav) + frame + rest + notes)


# --------------------------------------------------------------------------- sheets (XLSX)

#: Rows and columns shown on each side of the cited range (the sheet's used range bounds them).
ROWS_AROUND = 12
COLUMNS_AROUND = 6
_A1 = re.compile(r"^([A-Z]{1,3})([1-9][0-9]{0,6})$")


def column_letters(col: int) -> str:
    """1 -> ``A``, 27 -> ``AA``."""
    letters = ""
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def parse_range(a1: str | None) -> tuple[int, int, int, int] | None:
    """``B7:D9`` -> ``(7, 2, 9, 4)`` (first row, first column, last row, last column); None if malformed."""
    if not a1:
        return None
    ends = []
    for part in a1.upper().split(":", 1):
        m = _A1.match(part.strip())
        if m is None:
            return None
        col = 0
        for ch in m.group(1):
            col = col * 26 + ord(ch) - 64
        ends.append((int(m.group(2)), col))
    (r0, c0), (r1, c1) = ends[0], ends[-1]
    return min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1)


def sheet_table(sheet: ModelSheet, cited: tuple[int, int, int, int] | None, header_row: int | None = None,
                approx: bool = False) -> str:
    """The sheet's rows and columns around ``cited`` (its top-left corner when None) as a table with
    column letters and row numbers; the cited cells marked (``approx``: dashed, an approximate place), the
    first of them ``id="hl"``."""
    if not sheet.cells:
        return '<p class="banner no-preview" role="note">This sheet has no cells to show.</p>'
    rows_used = [cell.row for cell in sheet.cells]
    cols_used = [cell.column for cell in sheet.cells]
    lo_r, hi_r, lo_c, hi_c = min(rows_used), max(rows_used), min(cols_used), max(cols_used)
    r0, c0, r1, c1 = cited if cited is not None else (lo_r, lo_c, lo_r, lo_c)
    rows = list(range(max(lo_r, r0 - ROWS_AROUND), min(hi_r, max(r1, r0) + ROWS_AROUND) + 1))
    if header_row is not None and rows and lo_r <= header_row < rows[0]:
        rows.insert(0, header_row)  # the table's header, when it scrolled out of the window
    cols = list(range(max(lo_c, c0 - COLUMNS_AROUND), min(hi_c, max(c1, c0) + COLUMNS_AROUND) + 1))
    text = {(cell.row, cell.column): cell.text for cell in sheet.cells}
    head = "".join(f'<th scope="col">{column_letters(col)}</th>' for col in cols)
    body: list[str] = []
    first = True
    for i, r in enumerate(rows):
        if i and r != rows[i - 1] + 1:
            body.append(f'<tr class="gap"><th scope="row">…</th><td colspan="{len(cols)}"></td></tr>')
        tds = []
        for col in cols:
            ref = f"{column_letters(col)}{r}"
            attrs = f'data-cell="{ref}"'
            if cited is not None and cited[0] <= r <= cited[2] and cited[1] <= col <= cited[3]:
                marked = 'class="cited approx" ' if approx else 'class="cited" '
                attrs = ('id="hl" ' if first else "") + marked + attrs
                first = False
            tds.append(f"<td {attrs}>{escape(displayable(text.get((r, col), '')))}</td>")
        body.append(f'<tr><th scope="row">{r}</th>{"".join(tds)}</tr>')
    return (f'<div class="sheet-wrap"><table class="sheet" data-sheet="{escape(sheet.name)}">'
            f'<thead><tr><th class="corner"></th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')


def sheet_viewer(c: Citation, model: DocumentModel, opened: str | None = None, place: int = 1,
                 shown: str | None = None, note: str | None = None) -> str:
    """A sheet of a workbook (``shown``, by name; else the cited one) as the table of rows and columns
    around the cited range, those cells marked; its top-left corner when the place is not on it."""
    c = at_place(c, place)
    extra = {"place": place} if place > 1 else {}
    loc = c.locator
    by_name = {sheet.name: sheet for sheet in model.sheets}
    home = by_name.get(loc.sheet or "") if loc.locator_precision == "cell" else None
    sheet = by_name.get(shown or "") or home or (model.sheets[0] if model.sheets else ModelSheet(name=""))
    cited = parse_range(loc.range) if sheet is home else None
    banner = ""
    if home is None or parse_range(loc.range) is None:
        banner = FILE_BANNER
    elif cited is not None and sheet.truncated and not any(cell.row >= cited[0] for cell in sheet.cells):
        banner = ('<p class="banner file-only" role="note">The cited cells lie past the rows the viewer holds of '
                  "this sheet; open the file in the system viewer to see them.</p>")
        cited = None
    elif cited is not None:  # one rule with PDFs and DOCX: an approximate place dashed, under its banner
        banner = place_banner(loc, True)
    tabs = []
    for s in model.sheets:
        label = escape(s.name) + (" (hidden)" if s.hidden else "")
        if s is sheet:
            tabs.append(f'<li class="current" aria-current="page">{label}</li>')
        else:
            tabs.append(f'<li><a href="{escape(view_url_of(c, sheet=s.name, **extra))}">{label}</a></li>')
    back = ""
    if home is not None and sheet is not home:
        back = (f'<li class="cited-pages">cited: <a href="{escape(view_url_of(c, **extra))}">'
                f"{escape(home.name)}!{escape(loc.range or '')}</a></li>")
    bar = f'<ul class="sheet-tabs" aria-label="sheets">{"".join(tabs)}{back}</ul>'
    partial = ('<p class="hint">Only the first cells of this sheet are held for the viewer.</p>'
               if sheet.truncated else "")
    table = sheet_table(sheet, cited, loc.header_row if cited is not None else None,
                        approx=cited is not None and certainty(loc) == "approximate")
    return page(f"{c.citation_id} {c.source_root_relative_path}",
                _viewer_head(c, banner, opened, place, note) + bar + partial + table)


def no_preview(c: Citation, reason: str, opened: str | None = None, note: str | None = None) -> str:
    """A source the plugins cannot show: the card, the reason and the system-viewer action."""
    return page(f"{c.citation_id} {c.source_root_relative_path}",
                _viewer_head(c, f'<p class="banner no-preview" role="note">{escape(reason)}</p>', opened, note=note))


def gone_page(c: Citation, reason: str) -> str:
    """A cited source that is stale, deleted or changed: say so, show nothing of it."""
    return page(f"{c.citation_id} not available", (
        f'<section class="notice gone"><h1>{escape(c.citation_id)} cannot be shown</h1>'
        f'<p class="file">{escape(c.source_root_relative_path)}</p>'
        f'<p class="banner stale" role="alert">{escape(reason)}</p>'
        '<p class="hint">Search again to get citations of the current version.</p></section>'), scripts=False)
