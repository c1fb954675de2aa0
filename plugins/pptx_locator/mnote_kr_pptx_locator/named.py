"""The slide a query names ("what do the notes on slide 2 say", "第二张幻灯片"): the citation goes there.

A provider returns a small deck as one passage, and the evidence picked from it may be another
slide's; when the query names slides the deck has (the host's ``named_places``: a slide, or a page,
as people call a slide too) and the evidence's place is on none of them, the named slide's shape or
notes holding most of the query's other words (and meaning, once ingest embedded the deck) is cited
instead, its notes first when the query asks for notes. The evidence's place stands first behind it.
A slide the deck does not have is no place: the evidence's place stays.

A named slide not asked for its notes is cited on its shapes ("what is on the second slide": the notes "Some
notes on the second slide." are nearest by meaning, not what the slide shows), even when the evidence is the
notes of that slide; unless the notes hold words the query asks for that the shapes do not ("what does slide 2
say about the budget deadline", the deadline only in its notes): then they are what it asks about and stay
cited. Among the shapes the title is context: it heads every shape of its slide (``place_headings``), so its
words count for each of them and it is cited only when the query names it ("the title of slide 2") or the slide
has nothing else. A shape kind the query names ("the rectangle on slide 2", "第二张幻灯片的矩形") chooses among
the shapes holding most of its other words: its name says its kind ("Rectangle 3"; "矩形 3" in a Chinese
PowerPoint). Only PowerPoint's kind words name a kind (``SHAPE_KINDS``), never a placeholder's other words:
"number of users on slide 2" names no "Slide Number Placeholder".
"""

from __future__ import annotations

import re

import msgspec

from mnote_kr.plugin_api import (
    Locator,
    asked_of_place,
    iter_tokens,
    named_places,
    normalize,
    places_key,
    rank_by_meaning,
    scaffolding,
    without_file_description,
    without_places,
)

from .reader import PptxDocument, SlideParagraph

#: Words asking for a slide's speaker notes.
NOTES_WORDS = frozenset({"note", "notes", "notizen", "备注", "讲稿", "注释"})
#: The kinds PowerPoint names its shapes by ("Rectangle 3", "TextBox 5", "Chart 2"; "矩形 3" in a Chinese
#: PowerPoint), each with the words a query names it by. A closed list: a placeholder's name ("Slide Number
#: Placeholder 4", "Content Placeholder 2", "Date Placeholder 3") holds ordinary words that name no kind.
SHAPE_KINDS: dict[str, tuple[str, ...]] = {
    "rectangle": ("rectangle", "rectangles", "矩形"), "oval": ("oval", "ovals", "ellipse", "circle", "椭圆"),
    "triangle": ("triangle", "triangles", "三角形"), "textbox": ("textbox", "text box", "文本框"),
    "title": ("title", "标题"), "subtitle": ("subtitle", "副标题"), "chart": ("chart", "charts", "graph", "图表"),
    "table": ("table", "tables", "表格"), "picture": ("picture", "pictures", "image", "photo", "图片"),
}
#: The kind words of a shape's name, as PowerPoint writes them in English and Chinese.
_NAME_KINDS = {word: kind for kind, words in SHAPE_KINDS.items() for word in (kind, *words) if " " not in word}


def choosing_words(query: str) -> str:
    """The query's words that choose a shape: without the slides and pages it names ("what does slide 9 say
    about revenue": "what does say about revenue"), so a slide named that the evidence is not on, or the deck
    lacks, chooses as if none were named."""
    return without_places(query) if named_places(query) else query


def named_slides(doc: PptxDocument, query: str) -> list[int]:
    """The deck's slides the query names (as slides or pages), in the order it names them."""
    out: list[int] = []
    for place in named_places(query):
        if place.kind in ("slide", "page"):
            out += [n for n in place.numbered(len(doc.titles)) if n not in out]
    return out


def other_words(query: str, meta: frozenset[str]) -> set[str]:
    """The query's words besides the slides it names, scaffolding, ``meta`` (words about the deck) and those
    describing which deck ("of the duck survey deck": ``without_file_description``)."""
    said = [tok for tok, _, _ in iter_tokens(normalize(without_places(without_file_description(query))))]
    return {w for w, skip in zip(said, scaffolding(said), strict=True) if not skip} - meta


def asks_for_notes(query: str, meta: frozenset[str]) -> bool:
    """Whether the query asks for speaker notes ("the notes on slide 2", "第三张幻灯片的备注")."""
    rest = normalize(without_places(query))
    return bool(other_words(query, meta) & NOTES_WORDS) or any(w in rest for w in NOTES_WORDS if not w.isascii())


def title_words(doc: PptxDocument, slide: int) -> set[str]:
    """The words of ``slide``'s title, which heads every shape of the slide."""
    return {tok for tok, _, _ in iter_tokens(normalize(doc.titles.get(slide, "")))}


def held_words(doc: PptxDocument, para: SlideParagraph, words: set[str]) -> set[str]:
    """Of ``words``, those ``para`` holds: its own, and its slide's title's (the title heads it, as a heading
    its section's paragraphs: "quarterly revenue in Q2" is held whole by the line "Q2: 20" under the title
    "Quarterly revenue", and only in part by the title)."""
    return words & (para.tokens | title_words(doc, para.slide))


def named_kinds(query: str) -> set[str]:
    """The shape kinds (keys of ``SHAPE_KINDS``) the query names by their words, its places aside: a Latin word
    whole ("the rectangle", "text box"), a Chinese one where it stands ("第二张幻灯片的矩形"), the longer first
    ("副标题" names a subtitle, not a title)."""
    rest = " ".join(normalize(without_places(query)).split())
    out: set[str] = set()
    for word, kind in sorted(((w, k) for k, ws in SHAPE_KINDS.items() for w in ws), key=lambda wk: -len(wk[0])):
        at = re.search(r"(?<![a-z0-9])" + re.escape(word) + r"(?![a-z0-9])" if word.isascii() else re.escape(word),
                       rest)
        if at is not None:
            out.add(kind)
            rest = rest[:at.start()] + " " + rest[at.end():]
    return out


def kind_words(kinds: set[str]) -> set[str]:
    """The words (as ``iter_tokens`` reads them) by which a query names the shape ``kinds``: "rectangle",
    "text" and "box", "矩形"."""
    return {tok for kind in kinds for word in SHAPE_KINDS[kind] for tok, _, _ in iter_tokens(normalize(word))}


def of_kind(para: SlideParagraph, kinds: set[str]) -> bool:
    """Whether ``para``'s shape is of a kind named: a kind word of its name ("Rectangle 3", "Rounded Rectangle
    4", "矩形 3"; ``SHAPE_KINDS``); never a speaker note."""
    return not para.notes and any(_NAME_KINDS.get(w) in kinds for w in normalize(para.shape_name).split())


def notes_hold_more(doc: PptxDocument, cands: list[SlideParagraph], words: set[str]) -> bool:
    """Whether the notes among ``cands`` hold a word of ``words`` that none of its shapes holds (nor a title,
    which heads them all): the query asks about what only the notes say."""
    shown: set[str] = set()
    noted: set[str] = set()
    for p in cands:
        (noted if p.notes else shown).update(held_words(doc, p, words))
    return bool(noted - shown)


def on_named_slide(doc: PptxDocument, slides: list[int], query: str, meta: frozenset[str],
                   named_by: frozenset[str] = frozenset()) -> tuple[SlideParagraph, str, bool] | None:
    """The paragraph of the named ``slides`` the query's other words choose, the reason, and whether it
    is an approximate place (the query's other words are in the deck, none on the slides); None when the slides
    hold no text. ``meta``: words about the deck itself, never content. Notes only when the query asks for
    them, they hold words it asks for that the shapes do not, or the slides have nothing else; among the shapes
    holding most of its words, one of a kind it names first; a title last, unless named (it is its slide's
    context, see the module). Exact only where it holds a word asked (``asked_of_place``) or none is asked;
    ``named_by``: the words of the deck's file name, which say which deck, nothing its slide must hold."""
    cands = [p for p in doc.paragraphs if p.slide in slides and p.tokens]
    if not cands:
        return None
    words = other_words(query, meta)
    notes = asks_for_notes(query, meta)
    kinds = named_kinds(query)
    # a kind word names a shape, it asks nothing of the content: "point at the rectangle" in the notes is no answer
    if not notes and not notes_hold_more(doc, cands, words - kind_words(kinds)):  # the shapes: what it shows
        cands = [p for p in cands if not p.notes] or cands
    total = sum(doc.idf(w) for w in words)
    score = {p.index: sum(doc.idf(w) for w in held_words(doc, p, words)) / total if total else 0.0 for p in cands}
    held = any(score.values())
    # meaning chooses with the words, not without them: "what is on slide 3" is the slide's first shape
    ranked = rank_by_meaning(places_key([p.text for p in doc.paragraphs]), query, score) \
        if total and len(cands) > 1 else None
    combined = ranked[0] if ranked is not None else score
    # a kind named breaks the tie among the shapes holding most of the words: it never outranks the words
    most = max((score[p.index] for p in cands if not p.title or "title" in kinds), default=None) if kinds else None
    pick = max(cands, key=lambda p: (notes and p.notes, not p.title or "title" in kinds,
                                     score[p.index] == most and of_kind(p, kinds), combined[p.index],
                                     -slides.index(p.slide), -p.index))
    where = "slide " + ", ".join(str(n) for n in slides)
    if notes and pick.notes:
        return pick, f"the query names {where} and asks for its notes", False
    if held:
        there = "its notes" if pick.notes else "this shape"
        return pick, f"the query names {where}; its other words are in {there}", False
    # nothing else asked for: no word the deck holds, nor a Latin one it lacks ("Q3 value" asks for what another
    # deck may hold; "say", "讲了" ask for the slide: ``asked_of_place``)
    if not asked_of_place(words - kind_words(kinds) - named_by, doc.df.keys(), without_places(query)):
        return pick, f"the query names {where}", False
    return pick, f"the query names {where}; none of its other words is there: an approximate place", True


def at_named_slide(doc: PptxDocument, picked: SlideParagraph, query: str, meta: frozenset[str],
                   named_by: frozenset[str] = frozenset()) -> tuple[SlideParagraph, str, bool] | None:
    """When the query names slides of the deck and ``picked`` (the evidence's place) is on none of them:
    the named slide's paragraph, reason and precision (``on_named_slide``); else None."""
    slides = named_slides(doc, query)
    if not slides or picked.slide in slides:
        return None
    return on_named_slide(doc, slides, query, meta, named_by)


def on_its_named_slide(doc: PptxDocument, picked: SlideParagraph, query: str, meta: frozenset[str],
                       reason: str, named_by: frozenset[str] = frozenset()) -> tuple[SlideParagraph, str, bool] | None:
    """When the query names the slide ``picked`` (the evidence's place, found for ``reason``) is on: the place
    to cite, its reason and whether it is approximate. Its notes when the query asks for notes and ``picked``
    is a shape of a slide with notes; the slide's shapes (``on_named_slide``) when ``picked`` is its notes and
    the query does not ask for notes; else ``picked`` itself, the reason saying the slide is named, unless it
    holds none of the words the query asks (``asked_of_place``): then the slide's shape they choose, exact only
    where it holds one ("Q3 total on the second slide" is no exact citation of a rectangle saying nothing of
    Q3). None when the query names no slide ``picked`` is on."""
    if picked.slide not in named_slides(doc, query):
        return None
    where = f"slide {picked.slide}"
    if asks_for_notes(query, meta):
        if picked.notes:
            return picked, f"the query names {where} and asks for its notes", False
        chosen = on_named_slide(doc, [picked.slide], query, meta)
        if chosen is not None and chosen[0].notes:
            return chosen
    elif picked.notes:
        chosen = on_named_slide(doc, [picked.slide], query, meta, named_by)
        if chosen is not None and not chosen[0].notes:
            return chosen
    words = other_words(query, meta)
    if not held_words(doc, picked, words) and asked_of_place(words - kind_words(named_kinds(query)) - named_by,
                                                             doc.df.keys(), without_places(query)):
        chosen = on_named_slide(doc, [picked.slide], query, meta, named_by)
        if chosen is not None:
            return chosen
    return picked, f"the query names {where}; {reason}", False


def evidence_place_first(doc: PptxDocument, located: Locator, evidence_place: Locator,
                         evidence_para: SlideParagraph, query: str) -> Locator:
    """``located`` (at the named slide, with the places behind it) with the evidence's own place
    (``evidence_place``) first behind it: approximate, with its cosine with the query once ingest
    embedded the deck; a place behind at the same shape left out."""
    ranked = rank_by_meaning(places_key([p.text for p in doc.paragraphs]), query, {evidence_para.index: 0.0})
    cos = ranked[1].get(evidence_para.index) if ranked is not None else None
    first = msgspec.structs.replace(evidence_place, locator_degraded=True, runners_up=[],
                                    meaning_score=round(cos, 6) if cos is not None else None)
    same = (first.slide, first.speaker_notes, first.shape_id)
    behind = [r for r in located.runners_up if (r.slide, r.speaker_notes, r.shape_id) != same]
    return msgspec.structs.replace(located, runners_up=[first, *behind])
