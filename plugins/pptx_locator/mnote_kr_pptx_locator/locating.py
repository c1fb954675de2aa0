"""Evidence to a ``slide`` locator, or an honest ``file`` one."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from mnote_kr.plugin_api import (
    Highlight,
    LocateRequest,
    Locator,
    iter_tokens,
    locator_from_match,
    match_evidence,
    normalize,
    scaffolding,
    textmatch,
)
from mnote_kr.plugin_api import with_places_behind as places_behind_locator

from .chartquote import chart_place, point_quote
from .named import at_named_slide, choosing_words, evidence_place_first, held_words, on_its_named_slide
from .reader import PptxDocument, SlideParagraph, load_pptx
from .titlebody import body_under_title, titled_quote

PLUGIN_NAME = "pptx_locator"
#: Words a question about a deck uses for the deck itself ("what does the slide say about X").
META_WORDS = frozenset({"slide", "slides", "deck", "presentation", "say", "says", "shown", "show"})
#: Share of the evidence's tokens that whole quoted paragraphs of one slide must cover for the
#: evidence to count as that slide's, when the matcher finds no paragraph (many short shapes).
WINDOW_COVER = 0.6
#: A cited shape paragraph is quoted with those after it in its shape up to about this many characters.
QUOTE_CHARS = 200


def shape_quote(doc: PptxDocument, para: SlideParagraph) -> str:
    """The cited paragraph's words, with the paragraphs after it in its shape while the quote is under
    ``QUOTE_CHARS`` (a title or a list's first item says little alone): the place, not the provider's
    chunk of every slide. A table row and a comment are quoted alone: the rows or comments after it are
    other records, or other people's words. A chart's point is quoted by its line, its chart's head after it
    when the line lacks its words (``chartquote.point_quote``: "Q2: 20 (2026)"), not by the points after it;
    a chart's head (cited for the chart as a whole) with the points after it, as a shape's first paragraph."""
    if (point := point_quote(doc, para)) is not None:
        return point
    parts = [" ".join(para.text.split())]
    for nxt in doc.paragraphs[para.index + 1:] if para.kind not in ("table", "comment") else ():
        if (nxt.slide, nxt.shape_id, nxt.notes) != (para.slide, para.shape_id, para.notes) or \
                sum(len(p) for p in parts) >= QUOTE_CHARS:
            break
        parts.append(" ".join(nxt.text.split()))
    out = ""
    for part in (p for p in parts if p):  # list items apart with "; ", sentences with a space
        out = part if not out else out + (" " if out[-1] in ".!?。！？:;" else "; ") + part
    return out


def slide_locator(doc: PptxDocument, para: SlideParagraph, *, highlight: Highlight | None, score: float | None,
                  reason: str, block_id: str | None) -> Locator:
    """The ``slide`` locator of one matched paragraph. A speaker note's is the slide's notes alone: no
    shape id, name or box, since the notes placeholder is no shape on the slide (its id is the notes
    page's, and may be a slide shape's id too). A review comment's is its slide alone too (no shape holds
    it, and its pin marks no text), its ``paragraphIndex`` its line among the slide's comments; the Locator
    has no field for a comment: its reason says so. ``place_headings``: the slide's title."""
    fraction = None
    if para.box is not None and doc.width and doc.height:
        x0, y0, x1, y1 = para.box
        fraction = [round(x0 / doc.width, 4), round(y0 / doc.height, 4),
                    round(x1 / doc.width, 4), round(y1 / doc.height, 4)]
    own = not (para.notes or para.kind == "comment")  # a shape on the slide
    where = f"slide {para.slide}" + (" notes" if para.notes else f", shape {para.shape_id} ({para.shape_name})")
    if para.kind == "comment":
        who = ", ".join(w for w in (para.author, "reply" if para.reply else "") if w)
        where = f"slide {para.slide}, a review comment" + (f" ({who})" if who else "") + " (no shape: the slide)"
    why = f"{reason}: {where}"
    return Locator(
        locator_precision="slide", locator_degraded=False, slide=para.slide,
        shape_id=para.shape_id if own else None, shape_name=para.shape_name if own else None,
        paragraph_index=para.shape_paragraph, speaker_notes=para.notes,
        bbox=[float(v) for v in para.box] if para.box is not None else None, bbox_unit="emu",
        bbox_fraction=fraction, highlight=highlight, score=score, block_id=block_id,
        locator_plugin=PLUGIN_NAME, reason=why, locator_reason=why, quote=shape_quote(doc, para) or None,
        # its own slide's title (none: an untitled slide), not the provider's chunk's, which may be another
        # slide's: a place moved to the slide a query names, or one behind it, is headed by its slide
        place_headings=list(para.heading_path),
    )


def quoted_on_slide(doc: PptxDocument, evidence: str, slide: int) -> list[SlideParagraph]:
    """The paragraphs of ``slide`` the evidence quotes whole (every token of theirs is in it)."""
    ev = {tok for tok, _, _ in iter_tokens(normalize(evidence))}
    return [p for p in doc.paragraphs if p.slide == slide and p.tokens and p.tokens <= ev]


def quoted_window(doc: PptxDocument, evidence: str) -> SlideParagraph | None:
    """When the matcher finds no paragraph: the slide whose whole-quoted paragraphs cover most of the
    evidence (at least ``WINDOW_COVER`` of its tokens), as its longest quoted paragraph; else None."""
    ev = {tok for tok, _, _ in iter_tokens(normalize(evidence))}
    if not ev:
        return None
    by_slide: dict[int, list[SlideParagraph]] = {}
    for para in doc.paragraphs:
        if para.tokens and para.tokens <= ev:
            by_slide.setdefault(para.slide, []).append(para)
    best: tuple[float, int] | None = None
    for slide, paras in by_slide.items():
        cover = len(set().union(*(p.tokens for p in paras))) / len(ev)
        if cover >= WINDOW_COVER and (best is None or cover > best[0]):
            best = (cover, slide)
    if best is None:
        return None
    return max(by_slide[best[1]], key=lambda p: (len(p.tokens), -p.index))


def pick_by_query(doc: PptxDocument, found: SlideParagraph, evidence: str, query: str) -> SlideParagraph:
    """Among the paragraphs of the found one's slide that the evidence quotes, the one holding the most
    query weight (idf of its query words, its slide's title's counted for each: ``held_words``); the matcher's
    own pick on a tie or when no query word is there.

    An evidence window of several shapes quotes them all equally; the query says which one is meant. The
    title restates the slide's subject: "quarterly revenue in Q2" finds "Q2: 20" under the title "Quarterly
    revenue", which holds only the words every shape of its slide shares; "quarterly revenue" alone keeps it.
    """
    words = [tok for tok, _, _ in iter_tokens(normalize(query))]
    wanted = {w for w, scaffold in zip(words, scaffolding(words), strict=True) if not scaffold} - META_WORDS
    if not wanted:
        return found
    scored = sorted(((sum(doc.idf(w) for w in held_words(doc, p, wanted)), p.index) for p in
                     quoted_on_slide(doc, evidence, found.slide)), reverse=True)
    if not scored or scored[0][0] <= 0:
        return found
    best = [i for score, i in scored if score == scored[0][0]]
    return found if found.index in best or len(best) > 1 else doc.paragraphs[best[0]]


def nearest_in_shape(doc: PptxDocument, picked: SlideParagraph, query: str) -> SlideParagraph:
    """The paragraph of ``picked``'s shape (or of its slide's notes) nearest the question by meaning when
    none of them holds a word of it (a question in another language, or in other words): its quote
    (``shape_quote``) then starts at the answer, not at the paragraph the evidence began with ("Key
    Benefits:" before "Considerations ...:" in one shape). By the deck's paragraph vectors, ingest's (each
    with its neighbours', ``rank_by_meaning``); ``picked`` when a paragraph holds a query word (the words'
    choice stands), for a table's row, or while the deck has no vectors."""
    from mnote_kr.plugin_api import places_key, rank_by_meaning

    if picked.kind == "table":
        return picked
    where = (picked.slide, picked.shape_id, picked.notes)
    shape = [p for p in doc.paragraphs if (p.slide, p.shape_id, p.notes) == where and p.kind != "table" and p.tokens]
    words = [tok for tok, _, _ in iter_tokens(normalize(query))]
    wanted = {w for w, scaffold in zip(words, scaffolding(words), strict=True) if not scaffold} - META_WORDS
    if len(shape) < 2 or not wanted or any(wanted & p.tokens for p in shape):
        return picked
    ranked = rank_by_meaning(places_key([p.text for p in doc.paragraphs]), query, {p.index: 0.0 for p in shape})
    if ranked is None:
        return picked
    score, _ = ranked
    return doc.paragraphs[min(score, key=lambda i: (-round(score[i], 9), i))]


def apart(doc: PptxDocument, text: str) -> str:
    """``text`` with the two words of each line break (``a:br``) of the deck written apart where it glues
    them ("revenueUp"): LightRAG reads a deck it parses itself through python-pptx, which gives a break as
    a vertical tab, and its text sanitiser drops that tab, so its chunk holds a word the slide never shows.
    Only where the glued pair stands as a word of its own ("AB" of "Grade A / B", never inside "TABLE"),
    and not where the glued word is the deck's own too."""
    for left, right in doc.breaks:
        glued = left + right
        if glued in text and not {tok for tok, _, _ in iter_tokens(normalize(glued))} <= doc.df.keys():
            spaced = f"{left} {right}"
            text = re.sub(r"(?<![^\W_])" + re.escape(glued) + r"(?![^\W_])", lambda _, s=spaced: s, text)
    return text


def locate_pptx(request: LocateRequest) -> Locator:
    """Locate ``request.evidence`` in the presentation ``request.file``. Raises ``DocumentError``."""
    asked = request.query  # the slides it names choose there (``at_named_slide``); its other words choose shapes
    request = msgspec.structs.replace(request, query=choosing_words(asked))
    doc = load_pptx(request.file)
    block = request.block
    block_id = request.block_id or (block.blockid if block is not None else None)
    evidence = apart(doc, request.evidence)
    match = match_evidence(doc, evidence, request.query,
                           block_heading=block.heading if block is not None else None,
                           block_content=apart(doc, block.content) if block is not None and block.content else None)
    found = doc.paragraphs[match.paragraph.index] if match.paragraph is not None else quoted_window(doc, evidence)
    if found is None:
        return locator_from_match(match, plugin=PLUGIN_NAME, block_id=block_id)  # ``file``, degraded
    highlight = Highlight(start=match.highlight[0], end=match.highlight[1]) if match.highlight else None
    reason = match.reason if match.paragraph is not None else "the evidence quotes this slide's shapes whole"
    picked = pick_by_query(doc, found, evidence, request.query)
    if picked is not found:
        highlight, reason = None, "the evidence quotes several shapes; the query's words are in this one"
    # one rule with the DOCX, PDF and OCR locators (``placing.QUERY_SHARE``): the matcher's place holding
    # few of the query's words, or a paragraph chosen by meaning since none holds them, is approximate
    approximate = reason.startswith(textmatch.SEMANTIC)
    nearest = nearest_in_shape(doc, picked, request.query)
    if nearest is not picked:
        picked, highlight, approximate = nearest, None, True
        reason = f"{reason}; the shape's paragraph nearest the question by meaning (none holds its words)"
    named_by = frozenset(tok for tok, _, _ in iter_tokens(normalize(Path(request.file).stem.replace("_", " "))))
    named = at_named_slide(doc, picked, asked, META_WORDS, named_by)
    here = on_its_named_slide(doc, picked, asked, META_WORDS, reason, named_by) if named is None else None
    if here is not None and here[0] is picked:  # the query names the evidence's slide: the reason says so
        reason, approximate = here[1], here[2]
    elif here is not None:  # the notes it asks for (or the shapes, not the notes it does not), the evidence's
        named = here        # place of that slide behind them
    title = picked if named is None else None
    body = body_under_title(doc, picked, asked, META_WORDS) if title is not None else None
    if body is not None:  # the title names the topic asked about: its body answers
        picked, highlight = body, None
        reason = f"{reason}; the slide's title holds only the query's topic: the body under it"
    chart = chart_place(doc, picked, asked, META_WORDS) if body is None else picked
    if chart is not picked:  # the chart as a whole, from its head; or the point the query names on it
        why = ("the query names this point of the chart" if chart.shape_paragraph else
               "the query names the slide's chart: from its head" if picked.kind != "chart" else
               "the query asks about the chart as a whole: from its head")
        picked, highlight, reason = chart, None, f"{reason}; {why}"
    located = slide_locator(doc, picked, highlight=highlight if match.paragraph is not None else None,
                            score=match.score, reason=reason, block_id=block_id)
    if body is not None and title is not None:
        located = msgspec.structs.replace(located, quote=titled_quote(title, located.quote))
    if approximate:
        located = msgspec.structs.replace(located, locator_degraded=True)
    if named is None:
        return with_places_behind(doc, located, picked, request)
    # the query names another slide: cite it, the evidence's place first behind it
    para, why, degraded = named
    para = chart_place(doc, para, asked, META_WORDS)
    there = slide_locator(doc, para, highlight=None, score=match.score, reason=why, block_id=block_id)
    there = with_places_behind(doc, msgspec.structs.replace(there, locator_degraded=degraded), para, request)
    evidence_place = slide_locator(doc, picked, highlight=None, score=match.score, block_id=block_id,
                                   reason="the evidence's place, behind the slide the query names")
    return evidence_place_first(doc, there, evidence_place, picked, asked)


def with_places_behind(doc: PptxDocument, located: Locator, picked: SlideParagraph,
                       request: LocateRequest) -> Locator:
    """``located`` with the deck's next places behind it (``runnersUp``: the passage's other shapes and
    notes of its own slides, then the deck's nearest by meaning; one per shape, the host's
    ``with_places_behind``)."""
    return places_behind_locator(
        doc, located, picked.index, request.passage or request.evidence, request.query,
        lambda para: slide_locator(doc, para, highlight=None, score=located.score, block_id=located.block_id,
                                   reason="a place behind the cited one, by the query's words and meaning"),
        group=lambda p: (p.slide, p.notes, p.shape_id, p.shape_paragraph if p.kind == "table" else None),
        part=lambda p: p.slide)
