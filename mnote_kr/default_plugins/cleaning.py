"""Built-in ``clean_text``: the single cleaning step (see ``mnote_kr.citations.cleaning``).

The part of cleaning that depends on the chunk's text alone comes from the on-disk cache of
cleaned chunks (``mnote_kr.citations.caches.cleancache``) when an earlier process stored it; only
this built-in cleaner uses that cache, so a plugin with its own ``clean_text`` is unaffected.
"""

from __future__ import annotations

from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import CitationTextBundle


@hookimpl(trylast=True)
def clean_text(raw: str, query: str, block_text: str | None) -> CitationTextBundle:
    from mnote_kr.citations.caches import cleancache
    from mnote_kr.citations.cleaning import clean_prepared

    raw = raw or ""
    return clean_prepared(raw, cleancache.prepared(raw), query, block_text)
