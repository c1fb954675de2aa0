"""Where a citation points inside its file and what it claims of that place: the part of a citation
its ID stands for.

An ID (``ids.citation_id``) is hashed from its passage (the sidecar block, else the chunk, else the
text) and :func:`place_anchor`: the place (:func:`place_key`) and how sure the citation is of it
(``precision``: exact, approximate, a file citation's known page). Whether a place is exact depends on
the query (the same box holds the answer to one question and is only the passage of another), so the
claim is part of what an ID names: an exact and an approximate citation of one box are two IDs, and a
later search cannot re-issue an ID with another claim than it was issued with. The ID store keeps
an ID's latest record (``caches.citecache``: the query and quote of the search a user just left); with
the claim in the ID, that record can no longer say another precision than the ID was issued with. The
store also refuses to give a short ID to a second place (``caches.idrecord.place_of``: file, place,
claim): a hash collision renames the newcomer, never the ID a note already holds.
"""

from __future__ import annotations

from mnote_kr.citations.render.precision import is_approximate, page_hint
from mnote_kr.models import Locator

__all__ = ["place_anchor", "place_key"]


def place_key(locator: Locator) -> str:
    """Where a locator points inside its file, as a short stable string ('' for file level)."""
    if locator.locator_precision == "paragraph" and locator.paragraph_index is not None:
        return f"p{locator.paragraph_index}"
    if locator.locator_precision == "slide" and locator.slide is not None:
        # the notes apart: a slide's shape and its notes placeholder may share an id
        shape = "notes" if locator.speaker_notes else locator.shape_id
        return f"s{locator.slide}:{shape}:{locator.paragraph_index}"
    if locator.locator_precision == "cell" and locator.sheet is not None:
        return f"c{locator.sheet}!{locator.range}"
    if locator.locator_precision == "bbox" and locator.page is not None and locator.bbox:
        return f"b{locator.page}:" + ",".join(f"{v:.0f}" for v in locator.bbox)
    return ""


def place_anchor(base: str, locator: Locator) -> str:
    """The anchor a citation ID is hashed from: ``base`` (the passage) ``@`` the place ``locator`` names
    and its claim; ``base`` alone for a file citation that knows no page.

    An approximate place (``locatorDegraded``: the passage's box or paragraph) adds ``~``, a file
    citation's known page (``pageHint``) ``~p5``; an exact place adds nothing (its anchor, and so its ID,
    is the one it always had). The same place with the same claim keeps its ID across searches."""
    hint = page_hint(locator)
    claim = f"~p{hint}" if hint is not None else "~" if is_approximate(locator) else ""
    place = place_key(locator) + claim
    return f"{base}@{place}" if place else base
