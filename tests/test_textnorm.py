"""Offset-keeping normalisation: character i of the result stands for character i of the input."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from mnote_kr.citations.locate.textmatch import TextDocument, TextParagraph, match_evidence
from mnote_kr.citations.text.textnorm import normalize
from mnote_kr.models import LocateRequest

#: What a PDF writes for a character NFKC leaves apart from it: white up-pointing triangle and increment for
#: Greek delta, the minus sign for the hyphen-minus.
_LOOKALIKES = {"\u25b3": "\u03b4", "\u25b5": "\u03b4", "\u2206": "\u03b4", "\u2212": "-"}


def _per_char(text: str) -> str:
    out = []
    for ch in text:
        n = unicodedata.normalize("NFKC", ch).lower()
        n = n if len(n) == 1 else ch.lower()[:1] or ch
        out.append(_LOOKALIKES.get(n, n))
    return "".join(out)


def _same_place(a: str, b: str) -> bool:
    # str.lower() picks final sigma by context; the per-character form cannot know it, nor whether a "×"
    # is a dimension's (an "x": test_a_pdfs_lookalike_characters_match_what_is_typed)
    return len(a) == len(b) and all(x == y or {x, y} in ({"σ", "ς"}, {"x", "×"}) for x, y in zip(a, b, strict=True))


def test_a_pdfs_lookalike_characters_match_what_is_typed() -> None:
    """"ΔH" typed meets a PDF's "△H" or "∆H", "-20" its "−20", "640x480" its "640 × 480" and "3×4"; offsets
    hold (the quote is cut from the text as written)."""
    for typed, written in (("ΔH=Q", "△H=Q"), ("ΔT", "∆T"), ("below -20 °C", "below −20 °C"),
                           ("640 x 480 pixels", "640 × 480 pixels"), ("a 3x4 grid", "a 3×4 grid")):
        assert normalize(written) == normalize(typed), (written, typed)
        assert len(normalize(written)) == len(written)
    # a "×" between letters or touching a word stays a sign: an "x" would join the words around it
    for written in ("a × b", "500 px×500 px", "部×4回"):
        assert "×" in normalize(written)


def test_normalize_keeps_offsets_when_a_combining_mark_and_a_ligature_cancel_out():
    text = "e\u0301ﬁx and more"
    norm = normalize(text)
    assert len(norm) == len(text)
    # whole-text NFKC would give 'éfix and more': same length, every later offset shifted by one
    assert norm.index(" and") == text.index(" and")
    assert _same_place(norm, _per_char(text))


def test_highlight_after_combining_mark_and_ligature_covers_the_word():
    text = "Cafe\u0301 ﬁxtures were replaced; the boiler pressure valve was renewed."
    doc = TextDocument([TextParagraph(index=0, text="Unrelated opening line."), TextParagraph(index=1, text=text)])
    m = match_evidence(doc, "the boiler pressure valve was renewed", "pressure valve")
    assert m.paragraph is not None and m.paragraph.index == 1 and m.highlight is not None
    start, end = m.highlight
    assert "pressure valve" in text[start:end]
    assert LocateRequest(file="x", evidence=text)  # the request model takes such text unchanged


_PIECES = list("abcxyzAÉΣσ ς.,-") + [
    "e\u0301",
    "\u0301",
    "ﬁ",
    "ﬂ",
    "İ",
    "ß",
    "Ⅻ",
    "㎏",
    "⽚",
    "ｶﾞ",
    "\u1100\u1161",
    "가",
]
_TEXT = st.lists(st.sampled_from(_PIECES) | st.characters(), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_normalize_is_the_per_character_form_at_every_offset(text):
    norm = normalize(text)
    assert _same_place(norm, _per_char(text))


def test_cjk_shortcuts_match_the_full_patterns() -> None:
    """The no-CJK shortcuts (``max(text) < CJK_FIRST``) give what the CJK patterns give."""
    import random
    import re

    from mnote_kr.citations.render import ids
    from mnote_kr.citations.text import queryterms, textnorm

    cjk = textnorm.CJK_CLASS
    full_char = re.compile(rf"[{cjk}]")
    full_unit = re.compile(rf"[{cjk}]|[^\W_{cjk}]+")
    full_term = re.compile(rf"[{cjk}]+|[^\W{cjk}_]+(?:[-.'][^\W{cjk}_]+)*")
    assert all(min(w) >= textnorm.CJK_FIRST for w in queryterms._CJK_STOP)
    rng = random.Random(18)
    alphabet = "aZ9_-.' \n\u00e9\u0301\u2013\u3001\u303f\u3040\u4e2d\uac00\uf900\ufb01\uff21\u00b2\U00020001"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert textnorm.has_cjk(text) == (full_char.search(text) is not None), text
        units = (textnorm._UNIT_RE if textnorm.has_cjk(text) else textnorm._WORD_RE).findall(text)
        assert units == full_unit.findall(text), text
        folded = ids._fold(text)
        terms = (ids._TERM_RE if textnorm.has_cjk(folded) else ids._LATIN_TERM_RE).findall(folded)
        assert terms == full_term.findall(folded), text


def test_normalize_on_merging_text_is_exactly_the_per_character_form() -> None:
    """A text with a combining mark or a conjoining jamo takes the per-character path (each
    distinct character mapped once): its result is the per-character form, exactly."""
    import random

    from mnote_kr.citations.text.textnorm import normalize as norm

    rng = random.Random(18)
    pool = "aZ\u0130\u00df\ufb01\u2460\uff71\u00e9\u01c5\u2126\u3131 \n"
    for _ in range(3000):
        body = [rng.choice(pool) for _ in range(rng.randint(0, 16))]
        body.insert(rng.randint(0, len(body)), rng.choice("\u0301\u1100\uff9e\u0e33"))
        text = "".join(body)
        assert norm(text) == _per_char(text), text
