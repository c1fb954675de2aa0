"""Built-in ``locate``: the honest fallback. It opens the file and claims nothing more."""

from __future__ import annotations

from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import LocateRequest, Locator


@hookimpl(trylast=True)
def locate(request: LocateRequest) -> Locator:
    block_id = request.block_id or (request.block.blockid if request.block else None)
    return Locator(
        locator_precision="file",
        locator_degraded=True,
        block_id=block_id,
        locator_plugin="file_locator",
        reason="no locator plugin for this file type",
    )
