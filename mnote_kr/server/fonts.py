"""Text the web UI can draw on any machine: a shipped CJK webfont and readable symbol bullets.

* **CJK webfont.** A machine without a Chinese, Japanese or Korean font (many Linux installs,
  containers, a fresh VM) shows empty boxes for that text. The ``noto-cjk-sans-jp-regular`` wheel
  (pinned; OFL-1.1, which allows bundling) ships Noto Sans CJK: one OpenType file with every CJK
  glyph. The server serves it at :data:`ROUTE` (from this machine, never a network) and
  ``viewer.css`` declares it with ``@font-face`` and a ``unicode-range``, so the browser fetches it
  only for a page that has such text and uses the system's own fonts for everything else.
* **Symbol bullets.** Word writes many bullets as private-use code points of the Symbol and
  Wingdings fonts (U+F0B7 is Symbol's bullet); no Unicode font has them, so they show as boxes in
  any browser. :func:`displayable` maps the common ones to their Unicode characters, one code
  point for one, so the locator's highlight offsets still fit the text.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ROUTE", "displayable", "webfont"]

ROUTE = "/static/fonts/cjk.otf"
CONTENT_TYPE = "font/otf"

# Symbol / Wingdings private-use bullets (the font's code + 0xF000) -> Unicode, one for one.
_SYMBOL_BULLETS = str.maketrans({
    "\uf0b7": "\u2022",  # Symbol bullet
    "\uf0a7": "\u25aa",  # Wingdings small square
    "\uf06e": "\u25a0",  # Wingdings black square
    "\uf0d8": "\u27a2",  # Wingdings arrowhead
    "\uf0fc": "\u2713",  # Wingdings check mark
    "\uf076": "\u2756",  # Wingdings diamond
    "\uf0e0": "\u2192",  # Symbol arrow right
    "\uf02d": "\u2013",  # Symbol dash
})


def webfont() -> Path | None:
    """The shipped CJK font file, or None when its package is missing (the page then falls back)."""
    try:
        from noto_cjk_sans_jp_regular import FONT_PATH
    except ImportError:
        return None
    path = Path(str(FONT_PATH))
    return path if path.is_file() else None


def displayable(text: str) -> str:
    """``text`` with Symbol/Wingdings private-use bullets as Unicode characters (same length)."""
    return text.translate(_SYMBOL_BULLETS)
