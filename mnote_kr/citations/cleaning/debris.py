"""A figure's labels and a picture's glyph debris, read into a text layer, out of the display quote.

A PDF's text layer holds every glyph drawn on the page, a figure's too: a diagram's row of
subscripted labels reads ``g g g g g g segment g g … …``, and an OCR text layer over a drawing
reads its strokes as punctuation (``· …、、、～ } l 、 I／～，『／，、，‘``). Neither is a word a reader
can use, and both push the sentence that answers out of a quote's few hundred characters.
:func:`drop_debris` takes them out of the display quote only: the locator's evidence keeps every
glyph, since the text layer it is matched against holds them.
"""

from __future__ import annotations

import re
import unicodedata

from mnote_kr.citations.text.textnorm import lazy_compile

__all__ = ["drop_debris"]

#: A run of lone letters (and ellipses between them) is a figure's label run when it is one lowercase letter
#: standing at least ``LABEL_REPEATS`` times ("g g g g g g"): text repeats a letter three times ("a a a"),
#: alternates two ("a b a b a", "x x x y y y") or counts in Roman numerals ("i i i", "X X X"), a label
#: row of a diagram repeats its one subscript. A shorter run of that same letter ("g g … …") goes too.
LABEL_REPEATS = 5
_ROMAN = frozenset("ivxlcdm")
#: A run of punctuation and symbols (and lone letters) with at least this many marks, ``DEBRIS_CJK`` of
#: them CJK or fullwidth, and at least ``DEBRIS_STROKES`` kinds of ``STROKES``: glyph debris. A stroke
#: is a mark an OCR layer reads a drawing's line as (a tilde, a brace, a slash, a lone l or I, an opening
#: corner bracket or quote with nothing after it); a run of a sentence's own punctuation (``，。、；：？！``),
#: of operators (``＋－×÷``), of brackets (``（！）``), of "……——" or of a range's ``～`` has fewer kinds.
DEBRIS_MARKS = 6
DEBRIS_CJK = 3
DEBRIS_STROKES = 4
STROKES = frozenset("～~{}|｜／＼『‘`lI")

_LONE = r"(?:[A-Za-z]|…|⋯|\.\.\.)"
_LABEL_RUN_RE = lazy_compile(rf"(?<!\S){_LONE}(?:[^\S\n]+{_LONE})+(?!\S)")
_MARKS_RE = lazy_compile(r"(?:[^\w\s]|(?<![^\W\d_])[A-Za-z](?![^\W\d_])|\s)+")


def _labels(text: str) -> set[str]:
    """The letters that are a label run of ``text`` (see ``LABEL_REPEATS``)."""
    out: set[str] = set()
    for m in _LABEL_RUN_RE.finditer(text):
        letters = [t for t in m.group(0).split() if t.isalpha()]
        if len(letters) >= LABEL_REPEATS and len(set(letters)) == 1:
            letter = letters[0]
            if letter.islower() and letter not in _ROMAN:
                out.add(letter)
    return out


def _debris(run: str) -> bool:
    marks = [c for c in run if not c.isspace()]
    if len(marks) < DEBRIS_MARKS or any(c.isalpha() and c not in STROKES for c in marks):
        return False
    if not all(c.isalpha() or unicodedata.category(c)[0] in "PS" for c in marks):
        return False
    wide = sum(1 for c in marks if "\u3000" <= c <= "\u303f" or "\uff00" <= c <= "\uffef")
    return wide >= DEBRIS_CJK and len(STROKES.intersection(marks)) >= DEBRIS_STROKES


#: The marks a debris run keeps at its edges: the sentence's end before it, a bracket opening after it.
_ENDS = "。！？!?.”」』）)】"
_OPENS = "【「『“（(《"


def _kept_edges(m: re.Match[str]) -> str:
    run = m.group(0)
    if not _debris(run):
        return run
    a, b = 0, len(run)
    while a < b and (run[a] in _ENDS or run[a].isspace()):
        a += 1
    while b > a and run[b - 1] in _OPENS:
        b -= 1
    return f"{run[:a].rstrip()} {run[b:]}"


def drop_debris(text: str) -> str:
    """``text`` without runs of a figure's lone-letter labels (and the ellipses among them) and without
    runs of glyph debris (see the module docstring); everything else as it was, and ``text`` itself when
    nothing but debris would be left."""
    shown = text
    if " " in shown and (labels := _labels(shown)):

        def label_run(m: re.Match[str]) -> str:
            letters = {t for t in m.group(0).split() if t.isalpha()}
            return " " if letters and letters <= labels else m.group(0)

        shown = _LABEL_RUN_RE.sub(label_run, shown)
    if not shown.isascii():
        shown = _MARKS_RE.sub(_kept_edges, shown)
    if shown != text and not any(c.isalnum() for c in shown):
        shown = text
    return " ".join(shown.split()) if shown != shown.strip() or "  " in shown else shown
