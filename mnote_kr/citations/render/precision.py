"""How sure a citation's place is: one rule, one field, read by every surface.

The rule. A place is **exact** only when the block it names holds the evidence that answered
(the query stands in it, or it holds the query's content words); otherwise the locator cites the
passage the evidence came from and sets ``locatorDegraded`` (a *passage box*, an *approximate*
paragraph). ``file`` precision names no place at all. The one field every surface reads is
``locatorDegraded`` beside ``locatorPrecision``: :func:`certainty` turns the two into
``exact | approximate | file``, and the CLI's words, the web page's badge and drawing (a dashed,
lighter box for approximate, solid for exact), the MCP tool results and ``citationMarkdown`` all
say what it says. No surface decides this again from a reason string or a score.

The page hint. A ``file`` locator never carries ``page`` or ``bbox`` (the contract: missing
page/box is never filled with a guess). When the locator knew the page but found no place on it
(a sidecar that names the page without a box, a one-page PDF, CJK text whose characters the text
layer lacks), the page goes in ``pageHint``: the viewer opens at that page and says "page known,
place not found", the CLI and ``citationMarkdown`` say the same, and MCP describes it as a hint.
``Plugins.locate`` (``mnote_kr.plugins.settled``) moves a ``file`` locator's ``page`` to ``pageHint``
for any plugin that still sets it.

Placed by meaning (round 28, nc28a F8). ``locatorDegraded`` says the place was not chosen by the query's words;
it is not doubt of the place. A block or paragraph the placing chose inside the passage by its meaning (its reason
says "placed by meaning", and nothing else made the claim approximate: a table's title asked for a value, a
heading holding none of the words) is *placed by meaning*, said so (:func:`how_placed`, ``box placed by meaning``,
``paragraph 13 (placed by meaning)``); a place where the passage's evidence was found, holding some of the query's
words but not all, is *where the search found it*; a paragraph the text locator chose as the one holding most of a
question's few words (a question in other words, nc30a Q6) is placed by meaning too; only the passage itself (a
*passage box*) and a claim made approximate for a reason are called approximate. The words change, not the claim:
``locatorDegraded``, the ID's claim and the drawing (dashed for all three) stay as they were.

Paragraphs are numbered for people from 1 (:func:`paragraph_number`); ``paragraphIndex`` on the
wire stays 0-based.
"""

from __future__ import annotations

import re
from typing import Literal

from mnote_kr.models import Locator

Certainty = Literal["exact", "approximate", "file"]

#: How the PPTX locator's reason ends for a slide's review comment (no shape holds it, and the Locator has no
#: field for it): ``...: slide 3, a review comment (Jane Smith, reply) (no shape: the slide)``.
_COMMENT_RE = re.compile(r"a review comment(?: \(([^()]*)\))? \(no shape: the slide\)$")


def review_comment(loc: Locator) -> str | None:
    """``review comment (Jane Smith)`` when ``loc`` cites a slide's review comment (no shape; its reason says so,
    the words the PPTX locator writes), else None: a place named in words, never ``shape None "None"``."""
    m = _COMMENT_RE.search(loc.locator_reason or loc.reason or "") if loc.shape_id is None else None
    return None if m is None else "review comment" + (f" ({m.group(1)})" if m.group(1) else "")

#: Words for an exact place, by precision; an approximate one says so (``_APPROXIMATE``).
_EXACT = {"bbox": "exact box", "paragraph": "paragraph", "slide": "slide", "cell": "cells"}
_APPROXIMATE = {"bbox": "passage box (approximate)", "paragraph": "paragraph (approximate)",
                "slide": "slide (approximate)", "cell": "cells (approximate)"}
FILE_WORDS = "whole file (no exact place found)"
#: What a page hint means, wherever it is shown.
HINT_WORDS = "page known, place not found"


#: How a degraded place was placed, read from its locator's reason by the placing's fixed clauses only (``how_placed``):
#: a reason's clauses are split at "; ", what they quote taken out first (the words a place lacks, a heading's title:
#: "not “approximate”" said nothing of how the place was placed, review r29 finding 6).
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|(?<!\w)'[^']*'(?!\w)|«[^»]*»|「[^」]*」")
#: A clause starting so says how the placing chose the place (after the matcher's name, "semantic match: ").
_BY_MEANING = re.compile(r"^(?:semantic match: )?placed by meaning\b")
#: A clause starting so says the text locator chose the paragraph (or its sentence) holding most of a question's few
#: words: a place chosen for a question asked in other words, by meaning (nc30a Q6: "paragraph 2 (approximate)" on the
#: paragraph that answered). Not for a box: there the passage's box is the place, approximate.
_FEW_WORDS = re.compile(r"^(?:semantic match: )?the (?:(?:sentence|paragraph|list item) holding most of the query's "
                        r"words holds few of them|passage holds few of the query's words)\b")
_FOUND_HERE = re.compile(r"^(?:semantic match: )?the evidence was found here\b")
#: A clause starting so says the locator chose one block of the passage (its box is that block's, not the passage's).
_CHOSEN = re.compile(r"^(?:semantic match: )?(?:placed by meaning|the evidence was found here|this text block holds)\b")
#: A clause ending so (before an anchor's kind, " (seg)") made the claim approximate for a reason.
_DOUBTED = re.compile(r"(?::|,) (?:an approximate place|not an exact place)(?: \([^()]*\))?$")
#: What the placing says of every place it chose by meaning with few of the query's words: no other doubt.
_USUAL = "it holds few of the query's words: an approximate place"
Placed = Literal["exact", "meaning", "found", "approximate", "file"]
#: The words after a place, by how it was placed (``exact`` none).
PLACED_WORDS = {"meaning": "placed by meaning", "found": "where the search found it", "approximate": "approximate"}


def how_placed(loc: Locator) -> Placed:
    """``exact``; ``meaning`` (a degraded place the placing chose by its meaning, no other reason given for doubt);
    ``found`` (a degraded place where the passage's evidence was found, holding some of the query's words, not
    all); ``approximate`` (the passage's box, or a claim made approximate for a reason); ``file``."""
    kind = certainty(loc)
    if kind != "approximate":
        return kind
    clauses = _clauses(loc)
    if any(c != _USUAL and _DOUBTED.search(c) for c in clauses):
        return "approximate"
    if any(_BY_MEANING.match(c) for c in clauses):
        return "meaning"
    if loc.locator_precision != "bbox" and any(_FEW_WORDS.match(c) for c in clauses):
        return "meaning"
    return "found" if any(_FOUND_HERE.match(c) for c in clauses) else "approximate"


def _clauses(loc: Locator) -> list[str]:
    """The clauses of ``loc``'s reason (split at "; "), what they quote taken out."""
    return [c.strip() for c in _QUOTED.sub("", loc.locator_reason or loc.reason or "").split("; ")]


def passage_box(loc: Locator) -> bool:
    """An approximate box that is the passage's, not one block the locator chose in it (its reason says it chose one:
    "this text block holds", "placed by meaning", "the evidence was found here"; a heading's box made approximate is
    that heading's, review r29 finding 12). A reason saying nothing of a block chosen leaves it the passage's."""
    return (loc.locator_precision == "bbox" and certainty(loc) == "approximate"
            and not any(_CHOSEN.match(c) for c in _clauses(loc)))


def placed_words(loc: Locator) -> str:
    """`` (placed by meaning)``, `` (where the search found it)``, `` (approximate)``, or "" for an exact place."""
    kind = how_placed(loc)
    return f" ({PLACED_WORDS[kind]})" if kind in PLACED_WORDS else ""


def certainty(loc: Locator) -> Certainty:
    """``exact``, ``approximate`` (a passage box or paragraph: ``locatorDegraded``) or ``file``."""
    if loc.locator_precision == "file":
        return "file"
    return "approximate" if loc.locator_degraded else "exact"


def is_approximate(loc: Locator) -> bool:
    """A place is named but it is the passage, not the exact place (``locatorDegraded``)."""
    return certainty(loc) == "approximate"


def page_hint(loc: Locator) -> int | None:
    """The page a ``file`` locator knew without a place on it; None for other precisions."""
    return loc.page_hint if loc.locator_precision == "file" else None


def paragraph_number(index: int) -> int:
    """``paragraphIndex`` (0-based on the wire) as people count paragraphs: from 1."""
    return int(index) + 1


def precision_words(loc: Locator) -> str:
    """The precision in words: ``exact box``, ``passage box (approximate)``, ``box (approximate)`` (one block of
    the passage, doubted: ``passage_box``), ``paragraph``,
    ``whole file (no exact place found)``, or ``whole file (page 5 known, place not found)``."""
    kind = certainty(loc)
    if kind == "file":
        hint = page_hint(loc)
        return f"whole file (page {hint} known, place not found)" if hint is not None else FILE_WORDS
    if kind == "approximate" and how_placed(loc) != "approximate":  # placed by meaning, or where it was found
        if loc.locator_precision == "bbox":
            return f"box {PLACED_WORDS[how_placed(loc)]}"
        return _EXACT.get(loc.locator_precision, loc.locator_precision) + placed_words(loc)
    if kind == "approximate" and loc.locator_precision == "bbox" and not passage_box(loc):
        return "box (approximate)"
    table = _APPROXIMATE if kind == "approximate" else _EXACT
    return table.get(loc.locator_precision, loc.locator_precision)


def short_label(loc: Locator) -> str:
    """The place in a few words, as a badge shows it: ``box · p.4``, ``passage box · p.4 (approximate)``,
    ``box · p.4 (approximate)`` (one block of the passage, doubted),
    ``paragraph 13``, ``slide 3``, ``Sheet1!C2``, ``p.5 · place not found``, ``file only``."""
    approx = placed_words(loc)
    p = loc.locator_precision
    if p == "bbox" and loc.page is not None:
        return (f"passage box · p.{loc.page}" if passage_box(loc) else f"box · p.{loc.page}") + approx
    if p == "slide" and loc.slide is not None:
        return f"slide {loc.slide}" + (" notes" if loc.speaker_notes else "") + approx
    if p == "cell" and loc.sheet is not None:
        return f"{loc.sheet}!{loc.range or ''}" + approx
    if p == "paragraph":
        number = f" {paragraph_number(loc.paragraph_index)}" if loc.paragraph_index is not None else ""
        return f"paragraph{number}" + approx
    hint = page_hint(loc)
    return f"p.{hint} · place not found" if hint is not None else "file only"


__all__ = ["FILE_WORDS", "HINT_WORDS", "PLACED_WORDS", "Certainty", "Placed", "certainty", "how_placed",
           "is_approximate", "page_hint", "paragraph_number", "passage_box", "placed_words", "precision_words",
           "short_label"]
