"""A PDF block writing the other form of a query's term that the document defines (the host's ``acronyms``):
the paper's "AOA" for the question's "angle of attack", its "flow duration curve" for the question's "FDC".

The definitions are learned once from the document's blocks (``place_texts``, at ingest with the blocks' vectors
key: ``blocks.places``) and kept in the on-disk model (``extras["acronyms"]``); a locate reads them there.
``choose`` counts a block writing the other form as holding the query's terms it stands for, at
``OTHER_FORM_WEIGHT``, or ``OTHER_FORM_ALONE`` when the block holds none of the query's words as written (no
block answers by the other form alone: ``answer.MIN_SHARE``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .pdftext import DocumentText

#: As another inflection of the query's word (``answer.choose``'s 0.85): the document says the forms are one.
OTHER_FORM_WEIGHT = 0.85
#: A block holding the query only in the other form: below ``answer.MIN_SHARE`` with its cluster bonus.
OTHER_FORM_ALONE = 0.25


def defined(doc: DocumentText, texts: Callable[[DocumentText], list[str]]) -> tuple[Any, ...]:
    """The acronyms ``doc`` defines (``plugin_api.defined_in`` over its blocks' ``texts``: ``blocks.place_texts``),
    kept with it."""
    cached = doc.extras.get("acronyms")
    if isinstance(cached, tuple):
        return cached
    from mnote_kr.plugin_api import defined_in

    out = doc.extras["acronyms"] = tuple(defined_in(texts(doc)))
    return out


def other_forms(found: tuple[Any, ...], terms: dict[str, str], query: str,
                stem: Callable[[str], str]) -> list[tuple[Any, list[str]]]:
    """The query's stand-ins (``plugin_api.stand_ins``) by the document's ``found`` acronyms, with the query's
    terms (``blocks.content_terms``: ``stem`` to the word as typed) each stands for: the acronym's word, or the
    terms inside the full term."""
    if not found:
        return []
    from mnote_kr.plugin_api import normalize, stand_ins

    out = []
    for si in stand_ins(normalize(query), found):
        if si.said_short:
            keys = [t for t, typed in terms.items() if typed in (si.said, si.said + "s")]
        elif si.cjk:
            keys = [t for t, typed in terms.items() if not typed.isascii() and typed in si.said]
        else:
            words = si.said.split()
            keys = [t for t, typed in terms.items() if typed in words or t in {stem(w) for w in words}]
        if keys:
            out.append((si, keys))
    return out


def held_other(text: str, forms: list[tuple[Any, list[str]]], found: list[str]) -> dict[str, float]:
    """The query's terms a block (its normalised ``text``) holds only in the other form, with their weight; ``found``
    are the terms it holds as the query writes them."""
    from mnote_kr.plugin_api import written_at

    weight = OTHER_FORM_WEIGHT if found else OTHER_FORM_ALONE
    out: dict[str, float] = {}
    for si, keys in forms:
        if any(t not in found and t not in out for t in keys) and written_at(text, si):
            out.update((t, weight) for t in keys if t not in found)
    return out
