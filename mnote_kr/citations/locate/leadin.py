"""A lead-in paragraph and the list it introduces answer together; what a place holds of the query.

"Also, don't forget:" says nothing alone, and "Wear sunglasses" says little; the lead-in with its items
is the passage that answers "things not to forget when swimming" (a newcomer's question over docling's
``word_sample.docx``, which cited the paragraph holding "swimming in the lake" as exact, though it lacks
"forget", and showed the list nowhere). A lead-in is a paragraph ending with a colon; its items are the
list items right after it when the format marks list items (DOCX: ``list_level``), else the paragraphs
after it up to a heading, an empty paragraph or one that leads in itself (``quote.LEAD_IN_ITEMS`` at most).
The locator cites the lead-in; its quote shows the items (``placing.lead_in_text``).

:func:`place_norm` is what a place holds for the question: its words, its list's when it is a lead-in,
and the headings it sits under (the citation shows them with it). A place is exact only when that holds
the query as written or every content word of it the document holds (:func:`holds_query`).
"""

from __future__ import annotations

from mnote_kr.citations.locate.textdoc import P, TextDocument, TextParagraph
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize

__all__ = ["holds_query", "lead_in_items", "lead_in_of", "place_norm"]

#: The most items of a list that go with its lead-in when the format marks list items.
LIST_ITEMS = 12


def _is_item(para: TextParagraph) -> bool:
    return getattr(para, "list_level", None) is not None


def lead_in_items(doc: TextDocument[P], para: TextParagraph) -> list[P]:
    """The paragraphs the lead-in ``para`` introduces (see the module); [] when ``para`` is no lead-in."""
    from mnote_kr.citations.cleaning.quote import LEAD_IN_ENDS, LEAD_IN_ITEMS

    if not para.text.rstrip().endswith(LEAD_IN_ENDS) or para.heading_level:
        return []
    # a list item leads in only the deeper items under it ("Options:" and its sub-items), not its siblings
    level = getattr(para, "list_level", None)
    after = doc.paragraphs[para.index + 1:para.index + 1 + LIST_ITEMS]
    listed = level is not None or (bool(after) and _is_item(after[0]))
    out: list[P] = []
    for nxt in after if listed else after[:LEAD_IN_ITEMS]:
        if not nxt.text.strip() or nxt.heading_level or nxt.in_toc or (listed and not _is_item(nxt)) \
                or (level is not None and getattr(nxt, "list_level", 0) <= level):
            break
        if not listed and nxt.text.rstrip().endswith(LEAD_IN_ENDS):
            break  # unmarked: a paragraph ending with a colon opens its own list (a form's label lines)
        out.append(nxt)
    return out


def lead_in_of(doc: TextDocument[P], para: TextParagraph) -> P | None:
    """The lead-in whose marked list ``para`` is an item of (formats that mark list items only), or None."""
    if not _is_item(para):
        return None
    k = para.index - 1
    while k >= 0 and para.index - k <= LIST_ITEMS and _is_item(doc.paragraphs[k]):
        k -= 1
    if k < 0 or para.index - k > LIST_ITEMS:
        return None
    lead = doc.paragraphs[k]
    return lead if any(p.index == para.index for p in lead_in_items(doc, lead)) else None


def place_norm(doc: TextDocument[P], para: TextParagraph, *, headings: bool = True) -> str:
    """The normalised words a place holds for a question: the paragraph's, its list's when it is a lead-in,
    and (``headings``) the headings it sits under, one a line."""
    lines = [para.norm, *(p.norm for p in lead_in_items(doc, para))]
    if headings:
        lines += [normalize(h) for h in para.heading_path]
    return "\n".join(lines)


def holds_query(doc: TextDocument[P], para: TextParagraph, q: str, qt: QueryTerms | None) -> bool:
    """Whether the place ``para`` answers the query ``q`` (normalised) in its own words: it holds the query as
    written, or its words (:func:`place_norm`) hold every content word of it that the document holds (Latin
    words: a Chinese query's bigrams are not all words, and its share of them decides, ``textmatch``)."""
    if q and q in para.norm:
        return True
    return bool(qt) and qt is not None and qt.holds_all(place_norm(doc, para), present_only=True, words_only=True)
