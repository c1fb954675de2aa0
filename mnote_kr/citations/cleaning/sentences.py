"""Cutting a cited passage into sentences, for the quote a citation shows (:mod:`mnote_kr.citations.cleaning.quote`),
the place a sentence is grounded on and the units a locator highlights.

Sentences end at ``。！？!?`` and at a full stop followed by a space, except after an
abbreviation (``e.g.``, ``Fig.``, ``Dr.``, a legal citation's ``Fed.`` or ``U.S.C.``), an initial
(``J. Smith``) or a list's letter after a colon (``only if: a. the``); a decimal point ("3.5") is
followed by no space. A DOCX note or comment read at its mark is a sentence of its own, and a list item's
number that ends a sentence opens the next one. Pure and linear in the text.
"""

from __future__ import annotations

import re

from mnote_kr.citations.text.docxnotes import NOTE_OPENING, holds_notes
from mnote_kr.citations.text.sentencestops import ABBREVIATIONS, BEFORE_NUMBERS

__all__ = ["sentences"]

#: A sentence's end: CJK full stops anywhere; an ASCII ``!`` or ``?`` (like ``.``) only before a space, the
#: text's end or CJK ("?q=1" in a URL, "size !×!" in a PDF formula read as text end nothing).
_END_RE = re.compile(r"[。！？]+[”」』)）\"']*(?:\[\d{1,4}\])*"
                     r"|[!?]+[”」』)）\"']*(?:\[\d{1,4}\])*(?=\s|$|[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef])"
                     r"|\.+[”\"')]*(?:\[\d{1,4}\])*(?=\s)")
#: A legal citation's abbreviations ("Fed. R. Bankr. P. 2003", "11 U.S.C. § 521", "Sec. 4"), which may also
#: end a sentence ("moved to the U.S. He", "set by the Fed. It"): not an end when the citation goes on.
_CITATION_ABBREVIATIONS = frozenset("fed bankr civ crim evid u.s.c c.f.r u.s sec secs ch para supp".split())
_NEXT_RE = re.compile(r"\s*(\S+)")
#: A reference's noun, capitalised, with a stray full stop before its number (docling's paper: "presented in
#: Table. 2. It is clearly evident"): the number ends that sentence, it is no list marker of the next.
_REFERENCE_NOUNS = frozenset("table tab figure section sec chapter equation eq appendix algorithm listing".split())
_REFERENCE_NUMBER_RE = re.compile(r"\s+\d{1,3}\.(?=\s|$)")


def sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of ``text``, in order, covering every non-space character."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _END_RE.finditer(text):
        end = m.end()
        if m.group(0).startswith(".") and _abbreviation(text, m.start()):
            continue
        if text[start:end].strip():
            spans.append(_strip(text, start, end))
        start = end
    if text[start:].strip():
        spans.append(_strip(text, start, len(text)))
    if holds_notes(text):
        spans = _at_notes(text, spans)
    return _markers_forward(text, spans)


def _at_notes(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` cut where a DOCX note or comment read at its mark opens (`` [Footnote 1: ...``) and after it
    closes: the note's words are a sentence of their own, which a quote can lead with."""
    cuts: list[int] = []
    for m in NOTE_OPENING.finditer(text):
        cuts.append(m.start())
        depth = 1
        for i in range(m.end(), len(text)):
            depth += (text[i] == "[") - (text[i] == "]")
            if not depth:
                cuts.append(i + 1)
                break
    out: list[tuple[int, int]] = []
    for a, b in spans:
        for cut in (c for c in cuts if a < c < b):
            if text[a:cut].strip():
                out.append(_strip(text, a, cut))
            a = cut
        if text[a:b].strip():
            out.append(_strip(text, a, b))
    return out


#: A list item's number or letter ending a sentence: alone ("1." before "Notwithstanding ...") or
#: after a colon ("features include: 1." before "Undo/Redo: ..."): it is the next sentence's.
_MARKER_ONLY_RE = re.compile(r"(?:\d{1,3}|[A-Za-z])\.")
#: (a space after the colon, no digit before it: "10:30." and "John 3:16." are a time and a verse)
_MARKER_AFTER_COLON_RE = re.compile(r"(?<=[:：;；])(?<![0-9０-９][:：;；])(?:\s+|(?<=[：；]))((?:\d{1,3}|[A-Za-z])\.)$")


def _markers_forward(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` with a list marker that ends a sentence moved to the start of the next one."""
    out: list[tuple[int, int]] = []
    carry: int | None = None
    for n, (a, b) in enumerate(spans):
        a = a if carry is None else carry
        carry = None
        if n + 1 < len(spans):
            if _MARKER_ONLY_RE.fullmatch(text, a, b):
                carry = a
                continue
            m = _MARKER_AFTER_COLON_RE.search(text, a, b)
            if m is not None:
                carry = m.start(1)
                b = m.start()
        out.append((a, b))
    return out


def _abbreviation(text: str, dot: int) -> bool:
    """The word before the full stop at ``dot`` is an abbreviation or an initial (``J.``)."""
    word_start = dot
    while word_start > 0 and (text[word_start - 1].isalpha() or text[word_start - 1] == "."):
        word_start -= 1
    word = text[word_start:dot].casefold()
    if word in _REFERENCE_NOUNS and text[word_start].isupper() and _REFERENCE_NUMBER_RE.match(text, dot + 1):
        return True
    if len(word) == 1 and word.isascii() and text[word_start].islower():
        # a list's letter after a colon or semicolon ("only if: a. the debtor ..."), not a sentence's end;
        # nor a page's or a section's before its number ("(Rawls (2002) p. 230)")
        before = text[:word_start].rstrip()
        after = _NEXT_RE.match(text, dot + 1)
        return ((not before or before[-1] in ":;") and _goes_on(text, dot + 1)) or \
            (after is not None and after.group(1)[0].isdigit() and not text[word_start - 1:word_start].isalnum())
    if word in _CITATION_ABBREVIATIONS:
        return _goes_on(text, dot + 1)
    if word in BEFORE_NUMBERS and (after := _NEXT_RE.match(text, dot + 1)) is not None and after.group(1)[0].isdigit():
        return True  # "Art. 5", "Tab. 2"
    return word in ABBREVIATIONS or (len(word) == 1 and word.isascii() and text[word_start].isupper())


def _goes_on(text: str, at: int) -> bool:
    """The words after a full stop at ``at - 1`` go on with its sentence: a lowercase word, a number, a
    section sign or a parenthesis, or another abbreviation or initial (``R.``, ``Bankr.``)."""
    m = _NEXT_RE.match(text, at)
    if m is None:
        return False
    token = m.group(1)
    return token[0].islower() or token[0].isdigit() or token[0] in "§(" or (token.endswith(".") and len(token) <= 7)


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
