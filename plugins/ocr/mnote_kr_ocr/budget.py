"""The OCR plugin's budgets, and the image header check that refuses a decompression bomb.

OCR is CPU work on pixels, so every limit is about pixels, pages, seconds and threads:

* ``refuse_pixels``: an image whose header declares more pixels than this is refused before a
  single pixel is decoded (a 30,000 x 30,000 PNG of a few KB inflates to 2.7 GB of RGB).
* ``max_pixels``: a page (an image, or a PDF page as rendered) is downscaled to at most this many
  pixels before recognition; its boxes are scaled back to the original's pixels or points.
* ``max_pages``: the pages of one PDF that are recognised; the rest are said to be left out.
* ``max_seconds``: recognition of one file stops after the page that crosses it.
* ``threads``: onnxruntime's threads for one recognition (the machine is shared).

Each comes from the configuration's ``[ocr]`` table (``max_pixels = 12000000`` ...), given by the
host through ``configure``, else its default here; an environment variable
(``MNOTE_KR_OCR_MAX_PIXELS`` ...) overrides both for one run.
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


#: The ``[ocr]`` table's keys: the budget's field and whether it takes a whole number.
KEYS: dict[str, bool] = {"refuse_pixels": True, "max_pixels": True, "max_pages": True, "max_seconds": False,
                         "threads": True, "min_confidence": False, "dpi": True}

_configured: dict[str, float] = {}


def configure(table: object) -> None:
    """Take the ``[ocr]`` table: ``enabled`` (true or false; false keeps the plugin from loading at
    all) and the budgets of ``KEYS``, each a positive number. Raises ``ConfigError`` (one line) for
    an unknown key or a bad value, and keeps the table it had then."""
    from mnote_kr.plugin_api import ConfigError

    if not isinstance(table, dict):
        raise ConfigError("'ocr' must be a table ([ocr] with enabled, max_pixels, max_pages, max_seconds, threads)")
    taken: dict[str, float] = {}
    for key, value in table.items():
        if key == "enabled":
            if not isinstance(value, bool):
                raise ConfigError(f"[ocr] enabled must be true or false, not {value!r}",
                                  hint="enabled = false turns OCR off")
            continue
        if key not in KEYS:
            raise ConfigError(f"[ocr] has no key '{key}'", hint=f"the keys are: enabled, {', '.join(KEYS)}")
        whole = KEYS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0 or (
                whole and value != int(value)):
            kind = "a whole number" if whole else "a number"
            raise ConfigError(f"[ocr] {key} must be {kind} above 0, not {value!r}",
                              hint=f"for example {key} = {_default(key)}")
        taken[key] = float(value)
    _configured.clear()
    _configured.update(taken)


def _default(key: str) -> str:
    value = getattr(Settings(), key)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _num(key: str) -> float:
    raw = os.environ.get(f"MNOTE_KR_OCR_{key.upper()}")
    if raw is not None and raw.strip():
        try:
            value = float(raw)
        except ValueError:
            value = 0.0
        if value > 0:
            return value
    default: float = getattr(Settings(), key)
    return _configured.get(key, default)


def settings() -> Settings:
    """The budgets in force (environment first, then the ``[ocr]`` table, then the defaults)."""
    return Settings(
        refuse_pixels=int(_num("refuse_pixels")),
        max_pixels=int(_num("max_pixels")),
        max_pages=int(_num("max_pages")),
        max_seconds=_num("max_seconds"),
        threads=max(1, int(_num("threads"))),
        min_confidence=_num("min_confidence"),
        dpi=int(_num("dpi")),
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
