"""``--refold`` of ``benchmarks/retrieval.py``: a saved run's returned citations with each file's places (its first and
``alternatives``) put in the order this tree's ``folding.behind_by_meaning`` gives them, so a change of the rules
ordering a file's places (``LEAD_BY_MEANING``, ``VALUE_ROW_LEADS``, ``TYPE_LEADS``) is measured on a dump without an
engine. Only the places the run showed are re-ordered (the host orders every place of the file it found), so the
figures bound the change from below; a tree without a change gives back the run's own figures."""

from __future__ import annotations

from typing import Any

import msgspec

_ENC = msgspec.json.Encoder()


def _citation(first: Any, place: dict[str, Any], k: int, shown: bool, kinds: bool, thin: bool = False) -> Any:
    """``place`` (a returned citation or one of its alternatives) as a ``Citation`` the host would fold: a file's
    first keeps its quote, a place behind it has its words in ``place_text`` (as runner-ups do). ``kinds``: its claim
    judged again by ``kindclaims.without_unstated_kind`` on its quote, its passage the file's first's context (the
    chunk's text the host quoted: a part of the passage, so the figures bound the change from below). ``thin``: and
    by ``thinclaims.without_thin_claim`` (a number or the file's name alone)."""
    from mnote_kr.citations.render.kindclaims import without_unstated_kind
    from mnote_kr.citations.render.thinclaims import without_thin_claim
    from mnote_kr.models import Locator

    quote = place.get("displayQuote") or place.get("rawQuote") or ""
    loc = msgspec.json.decode(_ENC.encode(place["locator"]), type=Locator)
    loc = msgspec.structs.replace(loc, locator_degraded=bool(place.get("locatorDegraded", True)))
    if kinds:
        judged = without_unstated_kind(msgspec.structs.replace(loc, place_text=quote), first.search_query or "",
                                       " ".join(t for t in (first.context_quote, place.get("contextQuote")) if t))
        loc = msgspec.structs.replace(loc, locator_degraded=judged.locator_degraded, reason=judged.reason,
                                      locator_reason=judged.locator_reason)
    if thin:
        judged = without_thin_claim(msgspec.structs.replace(loc, place_text=quote), first.search_query or "",
                                    first.source_root_relative_path)
        loc = msgspec.structs.replace(loc, locator_degraded=judged.locator_degraded, reason=judged.reason,
                                      locator_reason=judged.locator_reason)
    loc = msgspec.structs.replace(loc, place_text=None if shown else quote)
    return msgspec.structs.replace(first, citation_id=f"[refold{k}]", locator=loc,
                                   locator_precision=loc.locator_precision, locator_degraded=loc.locator_degraded,
                                   display_quote=quote if shown else None, alternatives=[])


def refolded(run: dict[str, Any], kinds: bool = True, thin: bool = True) -> dict[str, Any]:
    """``run`` with ``results`` re-ordered within each returned citation's places (``all`` left out); ``kinds``: each
    place's claim judged again by the rule on the kind of answer asked (``kindclaims``) before; ``thin``: and by the
    rule on a number or the file's name alone (``thinclaims``)."""
    from mnote_kr.citations.render.folding import behind_by_meaning
    from mnote_kr.models import Citation

    out = {}
    for qid, cits in run["results"].items():
        new = []
        for c in cits:
            group = [c, *(c.get("alternatives") or [])]
            first = msgspec.json.decode(_ENC.encode({**c, "alternatives": []}), type=Citation)
            places = [_citation(first, p, k, k == 0, kinds, thin) for k, p in enumerate(group)]
            # each place as the host would give it: its claim as judged here
            group = [{**d, "locatorDegraded": p.locator_degraded, "locator": {**d["locator"], "locatorDegraded":
                      p.locator_degraded}} for p, d in zip(places, group, strict=True)]
            if len(group) < 2:
                new.append(group[0])
                continue
            back = {p.citation_id: d for p, d in zip(places, group, strict=True)}
            order = [back[p.citation_id] for p in behind_by_meaning(places)]
            new.append({**order[0], "sourceRootRelativePath": c["sourceRootRelativePath"],
                        "alternatives": order[1:]})
        out[qid] = new
    return {**run, "results": out, "all": None}
