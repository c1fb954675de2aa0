"""The viewer's way back to the search that cited a place: the search page's URL with that search's query, mode
and scope (nc29b: "back to the results" ran the words again in the default mode over the whole library, so a
``naive`` or a scoped search came back as another search). The default mode (``mix``) and the whole library
are left out of the URL, as the search page's own form leaves them."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from urllib.parse import urlencode


def search_href(query: str, mode: str | None = None, scope: Sequence[str] | None = None) -> str:
    """``/?q=...&mode=naive&scope=papers``: the search page running ``query`` in ``mode`` over ``scope``
    (root-relative paths; each a ``scope`` parameter); ``/`` without a query."""
    if not query.strip():
        return "/"
    params: list[tuple[str, str]] = [("q", query)]
    if mode and mode not in ("mix", "hybrid"):
        params.append(("mode", mode))
    params += [("scope", s) for s in scope or () if s.strip("/") not in ("", ".")]
    return "/?" + urlencode(params)


def results_link(query: str, mode: str | None = None, scope: Sequence[str] | None = None) -> str:
    """The way back from the viewer to the search that cited it (its query, mode and scope kept in the URL)."""
    label = "‹ back to the results" if query.strip() else "‹ search"
    return (f'<p class="back"><a id="back-to-results" rel="up" href="{escape(search_href(query, mode, scope))}">'
            f"{label}</a></p>")
