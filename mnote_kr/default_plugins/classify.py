"""Built-in ``classify_locator``: a sidecar block is ``bbox`` precision only with both a page and a
rectangle; with a page alone it is ``page``, else ``file`` (``citations.ids.classify_block_precision``)."""

from __future__ import annotations

from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import SidecarBlock, SidecarMeta


@hookimpl(trylast=True)
def classify_locator(block: SidecarBlock | None, meta: SidecarMeta | None) -> str:
    from mnote_kr.citations.render.ids import classify_block_precision

    return classify_block_precision(block)
