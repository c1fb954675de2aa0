"""Where a citation points inside its file and what it claims of that place: the part of a citation
its ID stands for.

An ID (``ids.citation_id``) is hashed from its file's version for a place inside the file, else its passage
(the sidecar block, else the chunk, else the text; :func:`id_anchor`), and :func:`place_anchor`: the place
(:func:`place_key`) and how sure the citation is of it (``precision``: exact, approximate, a file citation's
known page). Whether a place is exact depends on the query (the same box holds the answer to one question and
is only the passage of another), so the claim is part of what an ID names: an exact and an approximate
citation of one box are two IDs, and a later search cannot re-issue an ID with another claim than it was
issued with. The ID store keeps an ID's latest record and the searches that printed it before
(``caches.citecache``); with the claim in the ID, that record can no longer say another precision than the ID
was issued with. The store also refuses to give a short ID to a second place (``caches.idrecord.place_of``:
file, place, claim): a hash collision renames the newcomer, never the ID a note already holds.

A place inside a file is named by the file's version, not by the chunk or block that reached it
(:func:`id_anchor`): LightRAG's chunks overlap, so two searches can reach one box through two chunks, and
an ID hashed from the chunk gave that one box two IDs (round 18: ``[rbqt]`` and ``[675q]``). A citation
with no place inside the file (the whole file, a known page) shows its passage, and is named by it.
"""

from __future__ import annotations

import msgspec

from mnote_kr.citations.render.precision import is_approximate, page_hint
from mnote_kr.citations.text.sections import names_other, section_refs
from mnote_kr.models import Locator

__all__ = ["honest", "id_anchor", "inside", "place_anchor", "place_key"]


def honest(locator: Locator, cap: str) -> Locator:
    """A paragraph claim stands on a sidecar block, or on the locator's own match: a paragraph is never guessed.

    ``cap``: what the passage's sidecar block supports (``classify_locator``). Without a block behind it
    (``file``: LightRAG parses no blocks for ``.txt``, ``.log``, ``.csv``; or the chunk matched none), a
    paragraph stands only when the locator found the evidence in the file's own text (not
    ``locator_degraded``, with a ``paragraph_index`` or ``para_id``), as a PDF box found in the text layer
    stands. An approximate paragraph (by meaning, the passage's, few of the query's words) has nothing
    to confirm it: it is the file (docs/plugins.md, "What the host checks")."""
    matched = not locator.locator_degraded and (locator.paragraph_index is not None or locator.para_id is not None)
    if locator.locator_precision == "paragraph" and cap == "file" and not matched:
        return msgspec.structs.replace(
            locator,
            locator_precision="file",
            locator_degraded=True,
            paragraph_index=None,
            para_id=None,
            highlight=None,
            reason="no sidecar block confirms the paragraph",
        )
    return locator


def not_another_numbered(locator: Locator, query: str) -> Locator:
    """A place naming another table or figure than the one the query asks for is no exact place of it: "The fit ...
    was generally good. Table 2 gives" for "what does table 3 show?" (nc23a Q9, claimed exact) is approximate, its
    reason saying why (``sections.names_other``, read on the place's own words)."""
    if locator.locator_degraded or not locator.place_text:
        return locator
    refs = section_refs(query)
    if not names_other(refs, locator.place_text):
        return locator
    asked = " or ".join(f"{r.kind} {r.number}" for r in refs if r.kind in ("table", "figure"))
    why = f"{locator.reason or ''}; it names another table or figure than the {asked} asked: an approximate place"
    return msgspec.structs.replace(locator, locator_degraded=True, reason=why.lstrip("; "),
                                   locator_reason=why.lstrip("; "))


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


#: How far (PDF points) a box may stand out of another and still lie inside it (text frames of one block read
#: through two passages differ by a fraction of a point).
INSIDE_SLACK = 1.5


def inside(locator: Locator, other: Locator) -> bool:
    """``locator``'s box lies within ``other``'s on the same page (``INSIDE_SLACK`` aside): the reader's eye is
    on it already when ``other`` is shown. nc28a F4: a passage box read from a second chunk, lines 123-180 of
    the first place's 123-216, quoted as its own place behind it."""
    a, b = locator.bbox, other.bbox
    if locator.locator_precision != "bbox" or other.locator_precision != "bbox" or not a or not b \
            or locator.page is None or locator.page != other.page:
        return False
    return (a[0] >= b[0] - INSIDE_SLACK and a[1] >= b[1] - INSIDE_SLACK and a[2] <= b[2] + INSIDE_SLACK
            and a[3] <= b[3] + INSIDE_SLACK)


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


def id_anchor(passage: str, version: str, locator: Locator) -> str:
    """The anchor a citation's ID is hashed from (:func:`place_anchor` on a base). A place inside the file
    (``place_key``) is based on the file's version (``version``: its content hash in the registry), so the
    same place with the same claim in the same version of a file is one ID whichever chunk or block of the
    search reached it; another version is another ID (``open`` refuses an ID whose file changed). Without a
    place, or without a known version, the base is ``passage`` (the sidecar block id, else the chunk id,
    else the passage's text fingerprint), as it always was."""
    if version and place_key(locator):
        return place_anchor(f"v:{version}", locator)
    return place_anchor(passage, locator)
