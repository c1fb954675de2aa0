"""A character Word inserts from a symbol font (``<w:sym w:font="Wingdings" w:char="F0FE"/>``: Insert > Symbol, a
form's checkbox) as the character it draws.

Word keeps no text for it, only the font and the glyph's code, so a reader of runs' ``w:t`` lost a form's ☐/☑
("☐ Yes ☑ No" read " Yes  No"). The element names its font, which a text layer's private-use code point does not
(``symbolfont``'s module docstring): a Wingdings code is read as the quotes and the viewer show Wingdings' boxes,
marks and bullets (``symbolfont.BOXES``, ``symbolfont.WINGDINGS``, ``copyable.symbol_bullets``' bullet opening an
item), a Symbol code as the Symbol font's character (``symbolfont.symbol_char``), another symbol font's as the mark
of a glyph no table here knows (``symbolfont.UNKNOWN``); one character for one element.
"""

from __future__ import annotations

from mnote_kr.citations.cleaning.copyable import symbol_bullets
from mnote_kr.citations.cleaning.symbolfont import BOXES, UNKNOWN, WINGDINGS, symbol_char

__all__ = ["sym_char"]


def sym_char(font: str | None, char: str | None) -> str:
    """The character a ``w:sym`` draws (``font``: its ``w:font``; ``char``: its ``w:char``, hex, the font's code
    with or without Word's 0xF000): Wingdings' ☐ ☑ ☒ ✓ ◻ ▪ ➢ ➔ as quotes and the viewer show them, a bullet of it
    as "•", any other Wingdings code as ``UNKNOWN`` (〓: a glyph stood there); the Symbol font's as its character;
    another font's private-use code as ``UNKNOWN`` too, a plain code as itself. "" for no code."""
    try:
        code = int(char or "", 16)
    except ValueError:
        return ""
    pua = 0xF000 | code if 0x20 <= code <= 0xFF else code
    if not 0xF020 <= pua <= 0xF0FF:
        return chr(code) if 0x20 <= code < 0xE000 or 0xF900 <= code < 0x110000 else UNKNOWN
    family = (font or "").strip().lower()
    if family == "wingdings":
        drawn = BOXES.get(pua) or WINGDINGS.get(pua)
        if drawn:
            return drawn
        return "•" if symbol_bullets(chr(pua) + " a")[0] == "•" else UNKNOWN
    # another symbol font (Wingdings 2, Webdings): no table here says its glyphs, and the Symbol font's reading of
    # the code would be a wrong character, so the mark that a glyph stood there
    return symbol_char(pua) if family == "symbol" else UNKNOWN
