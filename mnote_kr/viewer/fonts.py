"""Text the web UI can draw on any machine: a shipped CJK webfont and readable symbol bullets.

* **CJK webfont.** A machine without a Chinese, Japanese or Korean font (many Linux installs,
  containers, a fresh VM) shows empty boxes for that text. The ``noto-cjk-sans-jp-regular`` wheel
  (pinned; OFL-1.1, which allows bundling) ships Noto Sans CJK: one OpenType file with every CJK
  glyph. The server serves it at :data:`ROUTE` (from this machine, never a network) and
  ``viewer.css`` declares it with ``@font-face`` and a ``unicode-range``, so the browser fetches it
  only for a page that has such text and uses the system's own fonts for everything else.
* **Symbol bullets and Wingdings boxes.** Word and PDF text layers write many bullets and a form's
  boxes as private-use code points of the Symbol and Wingdings fonts (U+F0B7 is Symbol's bullet,
  U+F0FE Wingdings' ☑); no Unicode font has them, so they show as boxes in any browser.
  :func:`displayable` maps the common bullets to their Unicode characters, and every other one to the
  character a quote shows for it (``copyable.symbol_bullets``: ☐ ☑ ☒ ◻ in a form, the Symbol font's
  Greek in a formula, 〓 for a glyph no font has), one code point for one, so the locator's highlight
  offsets still fit the text.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr.citations.cleaning.copyable import symbol_bullets
from mnote_kr.citations.cleaning.symbolfont import PRIVATE_USE_RE

__all__ = ["ROUTE", "displayable", "missing_font_notice", "webfont"]

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
    """``text`` with private-use code points as the characters they draw (same length): the common Symbol and
    Wingdings bullets as the viewer has always shown them, any other as the quotes show it (a form's ☑ ☒ ☐)."""
    if PRIVATE_USE_RE.search(text) is None:
        return text
    drawn = symbol_bullets(text)  # one for one: the quotes' reading of the whole paragraph (a form, a formula)
    if len(drawn) != len(text):
        return text.translate(_SYMBOL_BULLETS)
    return "".join(_SYMBOL_BULLETS.get(ord(a), b) for a, b in zip(text, drawn, strict=True))


# PDF's 14 standard fonts: every reader brings them (PDFium has them built in), none is missing.
STANDARD_14 = frozenset(f"{family}{style}" for family, styles in (
    ("Times", ("-Roman", "-Bold", "-Italic", "-BoldItalic")),
    ("Helvetica", ("", "-Bold", "-Oblique", "-BoldOblique")),
    ("Courier", ("", "-Bold", "-Oblique", "-BoldOblique")),
    ("Symbol", ("",)), ("ZapfDingbats", ("",))) for style in styles)


def missing_font_notice(missing: list[str], cjk_face: str | None) -> str | None:
    """What the PDF viewer says above a page whose fonts the file does not include (None: nothing).
    ``cjk_face``: the face CJK text is drawn in, None when none can draw it, "" when the page has no CJK text."""
    missing = [name for name in missing if name.split("+")[-1] not in STANDARD_14]
    if not missing:
        return None
    names = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
    head = f"This page uses fonts the PDF does not include ({names}). Their text is drawn in substitute fonts"
    if cjk_face == "":  # the page holds no Chinese, Japanese or Korean text: nothing to say of those scripts
        return f"{head} and may look different from the original."
    if cjk_face:
        return f"{head} (Chinese, Japanese and Korean in {cjk_face}) and may look different from the original."
    return (f"{head} where this machine has one; Chinese, Japanese and Korean text in them could not be drawn "
            "(install the noto-cjk-sans-jp-regular package).")
