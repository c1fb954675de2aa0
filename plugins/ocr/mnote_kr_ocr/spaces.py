"""Word spaces the recogniser saw but did not write.

PP-OCRv4's recogniser (``ch_PP-OCRv4_rec_infer.onnx`` in the pinned RapidOCR wheel) reads a line
as CTC frames, each a probability over its 6,623 characters, a final space class and the blank.
On a low-resolution scan (the MEDRPT corpus PDF: a 100-dpi page image) it writes the blank, not
the space, in most gaps between English words, and the text reaches the index glued
("Noacutentracranialhemorrhage"), where those words match nothing. The space class still rises
in those gaps: a frame decoded as blank is read as a space here when the space's probability is
at least ``SPACE_SHARE`` of the blank's. Only blank frames change, so no character is lost or
replaced; a space so found is kept between words, never next to a CJK letter, before a closing
mark or after an opening one (Chinese and Japanese lines stay unspaced), and the line keeps the engine's
own confidence. Measured in ``docs/budgets.md`` (OCR, word spaces).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

#: A blank frame is read as a space when P(space) >= SPACE_SHARE * P(blank).
SPACE_SHARE = 1 / 30
#: Marks that take no space before them, and those that take none after them.
_CLOSING = ".,;:!?)]}%'\"’”、。，；：！？）》」』】"
_OPENING = "([{‘“（《「『【"


def cjk(ch: str) -> bool:
    """A character of CJK text (ideographs, kana, hangul, full-width forms): no spaces between them."""
    return "\u2e80" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\uffef"


def _spaceable(before: str, after: str) -> bool:
    """Whether a space may stand between these two characters: never beside a CJK letter, and beside
    a CJK mark (``（``, ``。``) only when a Latin letter or digit is on its other side."""
    for one, other in ((before, after), (after, before)):
        if cjk(one) and (one.isalpha() or not (other.isascii() and other.isalnum())):
            return False
    return True


def spaced_frames(preds: np.ndarray, space: int, share: float = SPACE_SHARE) -> np.ndarray:
    """``preds`` (batch x frames x classes, class 0 the CTC blank) with each frame whose best class
    is the blank and whose space probability is at least ``share`` of the blank's made a space
    frame (its space probability raised just above the blank's). A copy; other frames unchanged."""
    import numpy as np

    best = preds.argmax(axis=2)
    blank, spaces = preds[:, :, 0], preds[:, :, space]
    lift = (best == 0) & (spaces >= share * blank)
    out = preds.copy()
    out[:, :, space] = np.where(lift, np.nextafter(blank, np.inf), spaces)
    return out


def keep_spaces(plain: str, spaced: str) -> str:
    """``plain`` with the spaces of ``spaced`` (the same characters, spaces added) that belong there:
    none beside a CJK letter, none beside a CJK mark unless a Latin letter or digit is on its other
    side (``Hypertension （diagnosed``), none before a closing mark or after an opening one, none
    inside a number, time, code or contraction (:func:`_joined`). ``plain``'s own spaces stay as they
    are (a double space too). ``plain`` itself when the two differ in anything but spaces (never
    expected: only blanks became spaces)."""
    chars = [c for c in plain if c != " "]
    if chars != [c for c in spaced if c != " "]:
        return plain
    gaps_plain = _gaps(plain)
    gaps_spaced = _gaps(spaced)
    out: list[str] = []
    for k, ch in enumerate(chars):
        if gaps_plain[k]:
            out.append(gaps_plain[k])
        elif gaps_spaced[k] and k and _spaceable(chars[k - 1], ch) and ch not in _CLOSING \
                and chars[k - 1] not in _OPENING and not _joined(chars, k):
            out.append(" ")
        out.append(ch)
    out.append(gaps_plain[len(chars)])
    return "".join(out)


def _gaps(text: str) -> list[str]:
    """The spaces before each non-space character of ``text``, then those after the last."""
    gaps, run = [], ""
    for ch in text:
        if ch == " ":
            run += ch
        else:
            gaps.append(run)
            run = ""
    return [*gaps, run]


#: Marks that join what stands on both sides of them: a time, a date, a code, a contraction.
_JOINING = ":/-'’"


def _joined(chars: list[str], k: int) -> bool:
    """A space before ``chars[k]`` would split one token: two digits (``12|345``), a number at its
    separator (``2,|000``, ``3.|5``), a time (``10:|30``), or a joining mark between letters or digits
    (``BCB|-445782``, ``and/|or``, ``don'|t``)."""
    before, after = chars[k - 1], chars[k]
    if before.isdigit() and after.isdigit():
        return True
    if before in ",." and after.isdigit() and k >= 2 and chars[k - 2].isdigit():
        return True
    if before in _JOINING and k >= 2 and _joins(before, chars[k - 2], after):
        return True
    return after in _JOINING and k + 1 < len(chars) and _joins(after, before, chars[k + 1])


def _joins(mark: str, left: str, right: str) -> bool:
    """``mark`` joins ``left`` and ``right``: a colon only between digits (``10:30``, not ``FINDINGS:No``),
    the others between letters or digits."""
    if mark == ":":
        return left.isdigit() and right.isdigit()
    return left.isalnum() and right.isalnum()


class SpacedDecode:
    """Stands in for RapidOCR's ``CTCLabelDecode`` (``TextRecognizer.postprocess_op``): its own decode
    of the frames (texts and confidences), then the spaces :func:`spaced_frames` finds added with
    :func:`keep_spaces`. Word boxes (``return_word_box``) are the engine's own, unchanged."""

    def __init__(self, decode: Any, share: float = SPACE_SHARE) -> None:
        self.decode = decode
        self.share = share
        self.space = len(decode.character) - 1  # RapidOCR appends the space class last

    def __getattr__(self, name: str) -> Any:
        return getattr(self.decode, name)

    def __call__(self, preds: np.ndarray, return_word_box: bool = False, **kwargs: Any) -> list[Any]:
        plain = self.decode(preds, return_word_box, **kwargs)
        if return_word_box:
            return plain
        spaced = self.decode(spaced_frames(preds, self.space, self.share), False)
        return [(keep_spaces(p[0], s[0]), p[1]) for p, s in zip(plain, spaced, strict=True)]


def install(engine: Any) -> None:
    """Have a ``RapidOCR`` engine decode with :class:`SpacedDecode` (once)."""
    rec = engine.text_rec
    decode = rec.postprocess_op
    if isinstance(decode, SpacedDecode):
        return
    character = getattr(decode, "character", None)
    if not character or character[-1] != " ":
        return  # another RapidOCR than the pinned one: its own decoding stands (no spaces added)
    rec.postprocess_op = SpacedDecode(decode)
