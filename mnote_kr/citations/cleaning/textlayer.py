"""Whether a PDF page's text layer can be read: a font without a usable Unicode map gives mojibake.

A page drawn with such a font renders as clean text, but its text layer reads as control characters
and Latin-1 symbols (``Ø\\x17 x1 = 0 ½ x1 + x2 = 0. \\x9c/ 1 x1 = 0. d\\x9e\\x06Øª``:
``mineru__garbled_formula.pdf``, a Chinese maths page). Indexed as it is, nothing on the page can be
found and its garbage turns up as quotes; read by OCR, it says what it shows.

``layer_quality`` measures two shares of a page's non-space characters:

* **suspect**: control characters (C0 and C1, whitespace aside), private-use, unassigned and surrogate
  code points, U+FFFD, Latin-1 supplement symbols (U+00A1-U+00BF, ``×``, ``÷``), and Latin-1 letters
  outside a Latin word (in a letter run with no ASCII letter, or three of them in a row: ``ÔèÿÁ``;
  ``protégées`` and ``à`` in French are words).
* **readable**: CJK characters (ideographs, kana, hangul), and letters in runs of three or more
  (any script: English, Cyrillic, Arabic words) that are not Latin-1 letters alone.

A layer is unreadable (``unreadable_layer``) when at least ``SUSPECT_SHARE`` of it is suspect and
under ``READABLE_SHARE`` of it readable: mostly mojibake. Measured on every page of the PDFs in
``tests/data/corpus/pdf`` (``benchmarks/text_layers.py`` prints them): the garbled page is 0.216
suspect and 0.041 readable; no other page is above 0.036 suspect. One page is partly garbled
(``docling__redp5110_sampled.pdf`` p.3: its sidebar reads as control characters, 0.132 suspect) but
0.779 readable: its layer is kept (its prose is there to cite), so only ``READABLE_SHARE`` keeps it.
A layer of wrong but plain ASCII letters (a font mapped to other letters) is not detected here.

A short text (a text block, a quote: ``mojibake``) is judged by the same shares with no ``MIN_CHARS``,
but only on sure signs: at least ``SURE_SIGNS`` characters no text writes, ``SURE_SHARE`` of it. Those are
control, private-use (the Symbol font's brace pieces aside) and unassigned characters, U+FFFD, and Latin-1
letters three in a row with no ASCII letter (``ÔèÿÁ``) or touching a digit or a symbol (``)û``). A Latin-1
symbol alone is no sure sign: ``25 ± 3 °C``, ``x² × 2``, ``£40`` are what tables and formulas write; nor
is a lone accented word, ``à 10 h``. On every text block of the 38 corpus PDFs (5,256, read by the PDF
locator, as written and folded) it flags 11 blocks of the garbled page and 7 of redp5110 p.3's sidebar
(control characters only), no other block.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: At least this share of a layer's non-space characters suspect ...
SUSPECT_SHARE = 0.10
#: ... and under this share readable: the layer is mostly mojibake.
READABLE_SHARE = 0.5
#: A layer with fewer non-space characters than this is not judged (a scan's stray marks: OCR's
#: ``MIN_LAYER_CHARS`` already takes such a page as one without a text layer).
MIN_CHARS = 20

_LATIN_RUN = re.compile(r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff]+")
_ASCII_LETTER = re.compile(r"[A-Za-z]")
_LATIN1_TRIPLE = re.compile(r"[\u00c0-\u00ff]{3,}")
_LETTER_RUN = re.compile(r"[^\W\d_]{3,}")
#: A Latin-1 letter touching a digit or a symbol (not a space, a letter or a quote mark): ``)û``, ``8Ô``.
_LATIN1_STUCK = re.compile(r"(?<=[^\s\w'\u2019\"])[\u00c0-\u00ff]|[\u00c0-\u00ff](?=[^\s\w'\u2019\".,;:!?])"
                           r"|(?<=\d)[\u00c0-\u00ff]|[\u00c0-\u00ff](?=\d)")


def _cjk(ch: str) -> bool:
    o = ord(ch)
    return (0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF
            or 0x20000 <= o <= 0x3FFFF)


def _latin1_letter(ch: str) -> bool:
    return "\u00c0" <= ch <= "\u00ff" and ch not in "\u00d7\u00f7"


@dataclass(frozen=True, slots=True)
class LayerQuality:
    """A text layer's measure: its non-space characters, and the suspect and readable shares of them."""

    chars: int
    suspect: float
    readable: float

    @property
    def unreadable(self) -> bool:
        """Mostly mojibake: ``SUSPECT_SHARE`` or more suspect, under ``READABLE_SHARE`` readable."""
        return self.chars >= MIN_CHARS and self.suspect >= SUSPECT_SHARE and self.readable < READABLE_SHARE


def layer_quality(text: str) -> LayerQuality:
    """The suspect and readable shares of ``text``'s non-space characters (see the module's docstring)."""
    chars = suspect = readable = 0
    for ch in text:
        if ch.isspace():
            continue
        chars += 1
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Co", "Cn", "Cs") or ch == "\ufffd":
            suspect += 1
        elif "\u00a1" <= ch <= "\u00bf" or ch in "\u00d7\u00f7":
            suspect += 1
        elif _cjk(ch):
            readable += 1
    for m in _LATIN_RUN.finditer(text):
        run = m.group()
        if not _ASCII_LETTER.search(run) or _LATIN1_TRIPLE.search(run):
            suspect += sum(1 for ch in run if _latin1_letter(ch))
    for m in _LETTER_RUN.finditer(text):
        run = m.group()
        if not any(_cjk(ch) for ch in run) and not all(_latin1_letter(ch) for ch in run):
            readable += len(run)
    if not chars:
        return LayerQuality(0, 0.0, 0.0)
    return LayerQuality(chars, suspect / chars, readable / chars)


def unreadable_layer(text: str) -> bool:
    """Whether a page's text layer is mostly mojibake (a font without a usable Unicode map): a page to
    read by OCR, as one without a text layer, and never to box in its layer."""
    return layer_quality(text).unreadable


#: A short text is mojibake with at least this many sure signs (``mojibake``) ...
SURE_SIGNS = 3
#: ... being at least this share of its non-space characters (and the layer's own shares: ``SUSPECT_SHARE``
#: suspect, under ``READABLE_SHARE`` readable).
SURE_SHARE = 0.1
#: Private-use code points of the Symbol font's brace, bracket and integral pieces (``\uf8f2 min C(p, p)``: a
#: formula's big brace in ``mineru__academic_paper_formula.pdf``): drawn by maths typesetting, no sure sign.
_SYMBOL_PIECE = ("\uf8e5", "\uf8ff")


def _sure_signs(text: str) -> int:
    """Characters no text writes (see the module's docstring): control, private-use, unassigned, U+FFFD, and
    Latin-1 letters three in a row without an ASCII letter or stuck to a digit or a symbol."""
    out = sum(1 for ch in text if not ch.isspace() and not _SYMBOL_PIECE[0] <= ch <= _SYMBOL_PIECE[1]
              and (unicodedata.category(ch) in ("Cc", "Co", "Cn", "Cs") or ch == "\ufffd"))
    stuck = {m.start() for m in _LATIN1_STUCK.finditer(text)}
    for m in _LATIN_RUN.finditer(text):
        if not _ASCII_LETTER.search(m.group()):
            stuck |= {m.start() + i for i, ch in enumerate(m.group()) if _latin1_letter(ch) and len(m.group()) >= 3}
    return out + sum(1 for i in stuck if _latin1_letter(text[i]))


def mojibake(text: str) -> bool:
    """Whether a short text (a text block, a quote) is mostly mojibake, a font without a usable Unicode map
    read as Latin-1 and control characters (``K¥"N ²£+8B" {±^5)û 2009 c8ÔèÿÁ1 1 U``): the layer's shares
    (``layer_quality``) and ``SURE_SIGNS`` sure signs, ``SURE_SHARE`` of it (see the module's docstring)."""
    quality = layer_quality(text)
    if quality.suspect < SUSPECT_SHARE or quality.readable >= READABLE_SHARE:
        return False
    sure = _sure_signs(text)
    return sure >= SURE_SIGNS and sure >= SURE_SHARE * quality.chars
