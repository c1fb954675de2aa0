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
from collections import Counter

from mnote_kr.citations.text.textnorm import lazy_compile

__all__ = ["drop_debris"]

#: A run of lone letters (and ellipses between them): a label run when one letter stands in it at
#: least ``LABEL_REPEATS`` times ("g g g g"), never a list of distinct letters ("A B C D", "x y z").
LABEL_REPEATS = 3
#: A run of punctuation and symbols (and lone letters) with at least this many marks, ``DEBRIS_CJK`` of
#: them CJK or fullwidth, of at least ``DEBRIS_KINDS`` kinds: glyph debris (a formula's ASCII operators,
#: "……——" and a dot leader are not).
DEBRIS_MARKS = 6
DEBRIS_CJK = 3
DEBRIS_KINDS = 3

_LONE = r"(?:[A-Za-z]|…|⋯|\.\.\.)"
_LABEL_RUN_RE = lazy_compile(rf"(?<!\S){_LONE}(?:[^\S\n]+{_LONE})+(?!\S)")
_MARKS_RE = lazy_compile(r"(?:[^\w\s]|(?<![^\W\d_])[A-Za-z](?![^\W\d_])|\s)+")


def _labels(text: str) -> set[str]:
    """The letters standing alone at least ``LABEL_REPEATS`` times in one run of ``text``."""
    out: set[str] = set()
    for m in _LABEL_RUN_RE.finditer(text):
        counts = Counter(t for t in m.group(0).split() if len(t) == 1 and t.isalpha())
        out.update(c for c, n in counts.items() if n >= LABEL_REPEATS)
    return out


def _debris(run: str) -> bool:
    marks = [c for c in run if not c.isspace() and not c.isalpha()]
    if len(marks) < DEBRIS_MARKS or len(set(marks)) < DEBRIS_KINDS:
        return False
    wide = sum(1 for c in marks if "\u3000" <= c <= "\u303f" or "\uff00" <= c <= "\uffef")
    return wide >= DEBRIS_CJK and all(unicodedata.category(c)[0] in "PS" for c in marks)


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
    runs of glyph debris (see the module docstring); everything else as it was."""
    if " " in text and (labels := _labels(text)):

        def label_run(m: re.Match[str]) -> str:
            letters = {t for t in m.group(0).split() if t.isalpha()}
            return " " if letters and letters <= labels else m.group(0)

        text = _LABEL_RUN_RE.sub(label_run, text)
    if not text.isascii():
        text = _MARKS_RE.sub(_kept_edges, text)
    return " ".join(text.split()) if text != text.strip() or "  " in text else text
