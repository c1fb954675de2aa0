"""Built-in ``classify_locator``: seed 000 §5.4 (bbox needs page and rectangle)."""

from __future__ import annotations

from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import SidecarBlock, SidecarMeta


@hookimpl(trylast=True)
def classify_locator(block: SidecarBlock | None, meta: SidecarMeta | None) -> str:
    from mnote_kr.citations.ids import classify_block_precision

    return classify_block_precision(block)
