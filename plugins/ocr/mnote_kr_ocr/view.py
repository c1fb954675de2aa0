"""The viewer's image of a picture: PNG of the image as shown (EXIF orientation applied)."""

from __future__ import annotations

import io
import math
from pathlib import Path

from mnote_kr.plugin_api import DocumentError

from . import budget

#: The viewer shows at most this many pixels of an image (it scales the picture to its frame).
MAX_VIEW_PIXELS = 6_000_000


def render_image(path: str, page: int, scale: float) -> bytes:
    if page != 1:
        raise DocumentError(f"page {page} out of range: an image has 1 page", path=path)
    from .scan import open_image

    im = open_image(path)
    width, height = im.size
    factor = min(1.0, scale, math.sqrt(min(budget.settings().max_pixels, MAX_VIEW_PIXELS) / (width * height)))
    if factor < 1.0:
        im = im.resize((max(1, int(width * factor)), max(1, int(height * factor))))
    if im.mode not in ("RGB", "RGBA", "L", "LA"):
        im = im.convert("RGBA" if "A" in im.mode else "RGB")
    out = io.BytesIO()
    try:
        im.save(out, format="PNG")
    except (OSError, ValueError) as exc:
        raise DocumentError(f"cannot show the image {Path(path).name}: {exc}", path=path) from exc
    return out.getvalue()
