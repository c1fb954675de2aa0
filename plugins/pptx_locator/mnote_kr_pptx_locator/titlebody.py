"""A slide's title that is only the query's topic ("What are the next steps?" on the title "Next Steps") names what
is asked about; the answer is the slide's body under it, when that body is one shape. As the host's
``heading_lead`` quotes a heading with what it opens, the citation moves to the slide's body shape (its box is
the answer's place) and its quote reads the title, then the body ("Next Steps: 1. Finalize pricing model; 2.
…"). A title saying more than the query ("Q3 Revenue Summary" for "revenue summary": which quarter) keeps its
place, as does a title the query names ("the title of slide 3") and one whose words are the whole query
("quarterly revenue": a search for the title, which finds it; the host's ``heading_lead`` keeps a heading so
too)."""

from __future__ import annotations

from mnote_kr.plugin_api import iter_tokens, normalize

from .named import named_kinds, other_words
from .reader import PptxDocument, SlideParagraph


def body_under_title(doc: PptxDocument, picked: SlideParagraph, query: str,
                     meta: frozenset[str]) -> SlideParagraph | None:
    """The first paragraph of the first body shape of ``picked``'s slide when ``picked`` is the slide's title
    holding the query's topic words and nothing more (``other_words``: its places, scaffolding and ``meta``
    aside), the query says more than the title (it asks something of it) and does not name a title, and the
    slide's body is one shape (on a slide of two columns the first is not the answer: review r17); else None."""
    if not picked.title or picked.notes or not picked.tokens or "title" in named_kinds(query):
        return None
    if {tok for tok, _, _ in iter_tokens(normalize(query))} <= picked.tokens:  # a search for the title itself
        return None
    if not picked.tokens <= other_words(query, meta):
        return None
    body = [p for p in doc.paragraphs if p.slide == picked.slide and not p.title and not p.notes
            and p.kind != "comment" and p.tokens]
    if len({(p.shape_id, p.shape_name) for p in body}) != 1:
        return None  # two columns, a list and a table: the first shape is not the body under the title
    return body[0]


def titled_quote(title: SlideParagraph, quote: str | None) -> str | None:
    """The body's ``quote`` headed by its slide's ``title``: "Next Steps: 1. Finalize pricing model; …"."""
    head = " ".join(title.text.split()).rstrip(":：")
    return f"{head}: {quote}" if quote else head or None
