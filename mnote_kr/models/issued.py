"""What one search showed under a citation ID: the contract ``open`` gives for each search that printed it."""

from __future__ import annotations

from mnote_kr.models.base import Frozen


class IssuedQuote(Frozen, frozen=True, kw_only=True):
    """One search that printed a citation ID: its query, the quote it showed there, and when (UTC, ISO 8601
    to the second; "" for an ID issued before mnote-kr kept the time).

    An ID names a place (the same place of the same file version keeps its ID across searches), while the
    quote a search shows at the place depends on its question; ``OpenPlan.issues`` lists every search that
    printed the ID, newest first, so a note's ID reopens with the quote the note took."""

    search_query: str
    display_quote: str | None = None
    issued_at: str = ""
    #: The search's issue key (``render.ids.issue_key`` of its query, mode and scope): ``/view/ID?issue=KEY``
    #: opens the ID as this search showed it (its places, its way back).
    issue: str | None = None
    #: ``http://127.0.0.1:PORT/view/ID?issue=KEY`` while ``mnote-kr serve`` runs for the workspace, else null.
    viewer_url: str | None = None
    #: The search's mode (``mix``, ``naive``, ...; ``hybrid`` is ``mix``) and scope (root-relative paths, [] the
    #: whole library): what tells two searches of the same words apart (nc29b: three issues alike but their
    #: keys). Null when not known: an ID printed in another mode or scope before mnote-kr kept them.
    search_mode: str | None = None
    search_scope: list[str] | None = None
