"""Private-use code points as the glyph they draw, for quotes: a quote never shows a private-use box.

Word and PDF text layers write a character of the Symbol font (and of Wingdings) as its code plus 0xF000
(``w:sym w:font="Symbol" w:char="F06C"``: λ), and Adobe's Symbol encoding puts the pieces of big brackets, braces and
integrals at U+F8E5-U+F8FE. The text alone does not say which font drew U+F06C (Symbol's λ, Wingdings' ●):
``copyable.symbol_bullets`` first shows a bullet where one opens an item; what is left of U+F020-U+F0FF is read as
the Symbol font (a formula's letters and operators), except the codes the corpus writes only as Wingdings' bullets
and marks (``WINGDINGS``); any other private-use code point (a font's own glyph) goes.
"""

from __future__ import annotations

from mnote_kr.citations.text.textnorm import lazy_compile

#: Adobe's Symbol encoding, 0x20-0xFE, as Unicode (Adobe's ``symbol.txt``; its own private-use pieces as the
#: bracket pieces Unicode has since added). A code the font leaves empty is absent.
_SYMBOL = dict(zip(range(0x20, 0x7F), (
    " !\u2200#\u2203%&\u220b()\u2217+,\u2212./0123456789:;<=>?"
    "\u2245\u0391\u0392\u03a7\u0394\u0395\u03a6\u0393\u0397\u0399\u03d1\u039a\u039b\u039c\u039d\u039f"
    "\u03a0\u0398\u03a1\u03a3\u03a4\u03a5\u03c2\u03a9\u039e\u03a8\u0396[\u2234]\u22a5_"
    "\u203e\u03b1\u03b2\u03c7\u03b4\u03b5\u03c6\u03b3\u03b7\u03b9\u03d5\u03ba\u03bb\u03bc\u03bd\u03bf"
    "\u03c0\u03b8\u03c1\u03c3\u03c4\u03c5\u03d6\u03c9\u03be\u03c8\u03b6{|}\u223c"), strict=True))
_SYMBOL |= dict(zip(range(0xA0, 0xFF), (
    "\u20ac\u03d2\u2032\u2264\u2044\u221e\u0192\u2663\u2666\u2665\u2660\u2194\u2190\u2191\u2192\u2193"
    "\u00b0\u00b1\u2033\u2265\u00d7\u221d\u2202\u2022\u00f7\u2260\u2261\u2248\u2026\u23d0\u23af\u21b5"
    "\u2135\u2111\u211c\u2118\u2297\u2295\u2205\u2229\u222a\u2283\u2287\u2284\u2282\u2286\u2208\u2209"
    "\u2220\u2207\u00ae\u00a9\u2122\u220f\u221a\u22c5\u00ac\u2227\u2228\u21d4\u21d0\u21d1\u21d2\u21d3"
    "\u25ca\u2329\u00ae\u00a9\u2122\u2211\u239b\u239c\u239d\u23a1\u23a2\u23a3\u23a7\u23a8\u23a9\u23aa"
    "\x00\u232a\u222b\u2320\u23ae\u2321\u239e\u239f\u23a0\u23a4\u23a5\u23a6\u23ab\u23ac\u23ad"), strict=True))
del _SYMBOL[0xF0]  # the Apple logo
#: Adobe's private-use Symbol pieces (U+F8E5-U+F8FE) as Unicode's.
_PIECES = dict(zip(range(0xF8E5, 0xF8FF), (
    "\u203e\u23d0\u23af\u00ae\u00a9\u2122\u239b\u239c\u239d\u23a1\u23a2\u23a3\u23a7\u23a8\u23a9\u23aa\u23ae"
    "\u239e\u239f\u23a0\u23a4\u23a5\u23a6\u23ab\u23ac\u23ad"), strict=True))
#: Codes the corpus writes only in Wingdings (its bullets and marks: ``copyable._PRIVATE_USE_BULLETS``' upper half),
#: each as the glyph Wingdings draws; in Symbol they would be ♣, ♦, ¬, a bracket piece.
WINGDINGS = {0xF09F: "\u2022", 0xF0A7: "\u25aa", 0xF0A8: "\u25fb", 0xF0D8: "\u27a2", 0xF0E8: "\u2794",
             0xF0FC: "\u2713"}

_TABLE = {code: ch for code, ch in ((0xF000 + k, v) for k, v in _SYMBOL.items())} | _PIECES | WINGDINGS
PRIVATE_USE_RE = lazy_compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")


def as_drawn(text: str) -> str:
    """``text`` with each private-use code point as the glyph it draws (``_TABLE``), or without it."""
    if PRIVATE_USE_RE.search(text) is None:
        return text
    return PRIVATE_USE_RE.sub(lambda m: _TABLE.get(ord(m.group()), ""), text)
