"""The OCR plugin's budgets, and the image header check that refuses a decompression bomb.

OCR is CPU work on pixels, so every limit is about pixels, pages, seconds and threads:

* ``refuse_pixels``: an image whose header declares more pixels than this is refused before a
  single pixel is decoded (a 30,000 x 30,000 PNG of a few KB inflates to 2.7 GB of RGB).
* ``max_pixels``: a page (an image, or a PDF page as rendered) is downscaled to at most this many
  pixels before recognition; its boxes are scaled back to the original's pixels or points.
* ``max_pages``: the pages of one PDF that are recognised; the rest are said to be left out.
* ``max_seconds``: recognition of one file stops after the page that crosses it.
* ``threads``: onnxruntime's threads for one recognition (the machine is shared).

Each comes from an environment variable (``MNOTE_KR_OCR_MAX_PIXELS`` ...) or its default here.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from mnote_kr.plugin_api import DocumentError, OverBudgetError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp")


@dataclass(frozen=True)
class Settings:
    refuse_pixels: int = 100_000_000
    max_pixels: int = 12_000_000
    max_pages: int = 60
    max_seconds: float = 300.0
    threads: int = 2
    #: A cited line recognised with less confidence than this is a degraded place.
    min_confidence: float = 0.75
    #: PDF pages are rendered at this many dots per inch for recognition.
    dpi: int = 200


def _env_num(name: str, default: float) -> float:
    raw = os.environ.get(f"MNOTE_KR_OCR_{name}")
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value > 0 else default


def settings() -> Settings:
    """The budgets in force (environment first, then the defaults)."""
    d = Settings()
    return Settings(
        refuse_pixels=int(_env_num("REFUSE_PIXELS", d.refuse_pixels)),
        max_pixels=int(_env_num("MAX_PIXELS", d.max_pixels)),
        max_pages=int(_env_num("MAX_PAGES", d.max_pages)),
        max_seconds=_env_num("MAX_SECONDS", d.max_seconds),
        threads=max(1, int(_env_num("THREADS", d.threads))),
        min_confidence=_env_num("MIN_CONFIDENCE", d.min_confidence),
        dpi=int(_env_num("DPI", d.dpi)),
    )


def is_image(path: str) -> bool:
    return Path(path).suffix.lower() in IMAGE_SUFFIXES


def _megapixels(n: float) -> str:
    return f"{n / 1e6:,.1f} megapixels"


_unguarded = threading.Lock()


def _header_size(path: str) -> tuple[int, int]:
    """The size the header declares. Pillow's open reads the header only (pixels are decoded by
    ``load``), but refuses past twice its own bomb limit before saying the size: that one case is
    opened again without its guard, which is safe since nothing is decoded, to name the size."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            return im.size
    except Image.DecompressionBombError:
        with _unguarded:
            guard, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, None
            try:
                with Image.open(path) as im:
                    return im.size
            finally:
                Image.MAX_IMAGE_PIXELS = guard


def image_size(path: str) -> tuple[int, int]:
    """Width and height as the image's header declares them, read without decoding a pixel.

    Raises ``OverBudgetError`` when the header declares more than ``refuse_pixels`` and
    ``DocumentError`` when the file is no image Pillow can read.
    """

    limit = settings().refuse_pixels
    name = Path(path).name
    try:
        width, height = _header_size(path)
    except (OSError, ValueError, SyntaxError) as exc:
        raise DocumentError(f"cannot read the image {name}: {exc}", path=path,
                            hint="the file is damaged or not an image; its name is still indexed") from exc
    if width * height > limit:
        raise OverBudgetError(f"{name}: the image is {width:,} x {height:,} pixels ({_megapixels(width * height)}; "
                              f"limit: OCR image size {_megapixels(limit)})", limit="ocr_refuse_pixels", path=path)
    return width, height


def check_image(path: str) -> str | None:
    """``check_budget`` for an image: the header's line when it is over the size limit, else None
    (a damaged image is not over a budget: its name is indexed and the OCR failure is said)."""
    try:
        image_size(path)
    except OverBudgetError as exc:
        return exc.message
    except DocumentError:
        return None
    return None
