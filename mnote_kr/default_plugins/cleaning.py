"""Built-in ``clean_text``: the single cleaning step (see ``mnote_kr.citations.cleaning``)."""

from __future__ import annotations

from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import CitationTextBundle


@hookimpl(trylast=True)
def clean_text(raw: str, query: str, block_text: str | None) -> CitationTextBundle:
    from mnote_kr.citations.cleaning import clean_citation_text

    return clean_citation_text(raw, query, block_text)
