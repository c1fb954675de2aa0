"""Private-use code points as the glyph they draw, for quotes: a quote never shows a private-use box.

Word and PDF text layers write a character of the Symbol font (and of Wingdings) as its code plus 0xF000
(``w:sym w:font="Symbol" w:char="F06C"``: λ), and Adobe's Symbol encoding puts the pieces of big brackets, braces and
integrals at U+F8E5-U+F8FE. The text alone does not say which font drew U+F06C (Symbol's λ, Wingdings' ●):
``copyable.symbol_bullets`` first shows a bullet where one opens an item; what is left of U+F020-U+F0FF is read as
the Symbol font (a formula's letters and operators), except the codes the corpus writes only as Wingdings' bullets
and marks (``WINGDINGS``) and Wingdings' boxes where the text is no formula (``BOXES``, :func:`_boxes`).

Any other private-use code point (a font's own glyph, a user-defined CJK character some Chinese documents store at
U+E000-U+F8FF) is shown as ``UNKNOWN``, the geta mark 〓 (U+3013) CJK typesetting sets for a character it cannot
show: a reader sees that a character stood there, which dropping it hid ("\ue000市政府" read "市政府", review r28
finding 5). Not U+FFFD (``copyable`` drops it as decoding debris, so a quote cleaned twice would lose it), nor a
box (□ reads as a form's empty box, which ``BOXES`` now shows); one character for one, as the mapped ones.
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

#: Wingdings' boxes, a form's answers ("Married \uf0fe Yes \uf0a8 No": ☑ Yes ◻ No), where Symbol has a right brace's
#: middle and bottom pieces (⎬ ⎭) and the Greek ξ and ο: read as boxes unless the text is a formula (:func:`_boxes`).
#: U+F078 is Wingdings' ⌧, shown as the ballot box ☒ it means (more fonts draw it).
BOXES = {0xF0FE: "\u2611", 0xF0FD: "\u2612", 0xF078: "\u2612", 0xF06F: "\u2610"}
#: A big bracket's pieces in the Symbol font (U+F0E6-F0FE) and Adobe's (U+F8E5-F8FE), but for the right brace's top,
#: middle and bottom (U+F0FC-F0FE: ✓ ☒ ☑ in Wingdings) and U+F0E8 (``WINGDINGS``' ➔): a text holding one of them, or
#: the right brace's three pieces, draws a brace, and U+F0FC-F0FE are its pieces.
_OTHER_PIECES = frozenset(chr(c) for c in [*range(0xF0E6, 0xF0F0), *range(0xF0F3, 0xF0FC), *range(0xF8E6, 0xF8E8),
                                           *range(0xF8EB, 0xF8FF)] if c != 0xF0E8)
_RIGHT_BRACE = "\uf0fc\uf0fd\uf0fe"
#: Wingdings' marks of a form the Symbol font has no use for in a formula (◻ ✓), and its boxes above when read so.
_FORM_MARKS = "\uf0a8\uf0fc\uf0fd\uf0fe"
#: ξ or ο standing as a mark opens the text or a line, before a space and a word ("\uf078 approved").
_MARK_OPENS_RE = lazy_compile("(?m)^[^\\S\\n]*[\uf06f\uf078](?=[^\\S\\n]+[^\\W\\d_])")
#: The Symbol font's codes a formula is written with (U+F020-F0FF but Wingdings' marks and boxes).
_SYMBOL_CODE_RE = lazy_compile("[\uf020-\uf0ff]")
#: What a private-use code point no table knows is shown as: the geta mark (see the module docstring).
UNKNOWN = "\u3013"

_TABLE = {code: ch for code, ch in ((0xF000 + k, v) for k, v in _SYMBOL.items())} | _PIECES | WINGDINGS
PRIVATE_USE_RE = lazy_compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")


def _brace(text: str) -> bool:
    """Whether ``text`` draws a big bracket in the Symbol font: one of its pieces other than the right brace's (which
    are Wingdings' ✓ ☒ ☑ too), or the right brace's three."""
    return any(ch in _OTHER_PIECES for ch in text) or all(ch in text for ch in _RIGHT_BRACE)


def _boxes(text: str) -> dict[int, str]:
    """The codes of ``BOXES`` in ``text`` read as Wingdings' boxes, with their box; the others are the Symbol font's.
    U+F0FD/F0FE are boxes unless the text draws a brace (a piece is drawn only stacked with the others); U+F06F/F078
    (ξ ο) are boxes beside another of a form's marks (``_FORM_MARKS``, the brace's pieces not being boxes), or when
    one opens the text or a line before a word in a text holding no other Symbol code (no formula around it)."""
    found = {ord(ch) for ch in text if ord(ch) in BOXES}
    if not found:
        return {}
    brace = _brace(text)
    boxes = {} if brace else {c: BOXES[c] for c in found if c in (0xF0FD, 0xF0FE)}
    greek = found & {0xF06F, 0xF078}
    if greek:
        marks = set(_FORM_MARKS) - ({"\uf0fc", "\uf0fd", "\uf0fe"} if brace else set())
        alone = _MARK_OPENS_RE.search(text) is not None and all(
            ord(m.group()) in BOXES or ord(m.group()) in WINGDINGS for m in _SYMBOL_CODE_RE.finditer(text))
        if any(ch in text for ch in marks) or alone:
            boxes |= {c: BOXES[c] for c in greek}
    return boxes


def symbol_char(code: int) -> str:
    """The Symbol font's character at ``code`` (its code, or Word's private-use one: 0xF000 added), ``UNKNOWN`` for
    a code the font leaves empty: a character named as the Symbol font's (``wordsym``), no other font's reading."""
    return _SYMBOL.get(code - 0xF000 if code >= 0xF000 else code, UNKNOWN)


def as_drawn(text: str) -> str:
    """``text`` with each private-use code point as the glyph it draws (``_TABLE``; ``BOXES`` where the text is a
    form's, the right brace's pieces where it draws a brace), or as ``UNKNOWN``."""
    if PRIVATE_USE_RE.search(text) is None:
        return text
    table = _TABLE
    if "\uf0fc" in text and _brace(text):
        table = {**table, 0xF0FC: "\u23ab"}  # the right brace's top, not Wingdings' ✓
    if boxes := _boxes(text):
        table = {**table, **boxes}
    return PRIVATE_USE_RE.sub(lambda m: table.get(ord(m.group()), UNKNOWN), text)
