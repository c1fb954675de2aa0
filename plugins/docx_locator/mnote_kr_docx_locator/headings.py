"""The headings a DOCX paragraph sits under (its ``heading_path``), as the reader's walk meets them.

A styled heading (a Heading style, a Title, an outline level) opens a section; a table cell never
does, whatever its style says (cover tables style their labels as headings: "Сумма контракта",
"Год: 2016"). Many contracts and forms style no heading at all and type their section titles as a
short numbered line, bold or in capitals ("3. ЦЕНА КОНТРАКТА И ПОРЯДОК ОПЛАТЫ"): such a title heads
the paragraphs after it until the next title of its depth or a styled heading, under the styled
headings before it. An appendix's own line ("Приложение № 2", "Appendix B", on its own) opens a part of
the document that no heading before it heads. A title typed as text never becomes a heading paragraph (``heading_level``
stays 0): only the trail of headings it heads changes.

A title typed as text may also outrank the styled headings open before it. The DOJ handbook (four copies of one
text in a file) styles its chapters and sections as headings in its first two copies only; the later ones type
"CHAPTER 7 – REPORTS, AUDITS, COMPLIANCE", "A.<tab>MONTHLY REPORTS" in Normal style, and the last Heading 1
and Heading 2 of the second copy were carried over thousands of paragraphs ("CHAPTER 7 ... > D. EVALUATION ... >
7. FACILITIES AND EQUIPMENT" over the first monthly-report paragraph of the third). So the trail learns how the
file's styled headings of each level begin (``lead_shape``: "CHAPTER 1", "A.", "1.", "1.1", "IV."): a typed
title beginning as the headings of one level do takes that level, closing the styled headings of it and deeper.
A chapter's or part's own line in capitals or titled ("CHAPTER 8", "Chapter 18.33 ACCESSORY DWELLING UNITS" in
bold; not a cover's bold "Chapter 13" alone) whose level no styled heading tells closes every heading that is no
part or book above it: a trail shown shorter is better than one naming a chapter the
paragraph is not in. A lead the styled headings of two levels share tells nothing.
"""

from __future__ import annotations

import re

from lxml import etree

# "3.", "3.1", "3.1.", "IV." then the title's words: no line break, no sentence after it
_NUMBERED = re.compile(r"^\s*((?:\d{1,3}\.)+\d{0,3}|\d{1,3}\)|[IVXLC]{1,6}\.)[\s\u00a0]+(\S[^\n]*)$")
_APPENDIX = re.compile(r"^(?:приложение|appendix|annex|annexe|anhang|anlage|附录|附件|別紙|別添)\s*"
                       r"(?:№|no\.?|nr\.?|n°)?\s*[0-9A-Za-zА-Яа-я]{1,3}(?:\.[0-9]{1,3})*\.?$", re.I)
# how a heading's text begins: a chapter's or part's word and its number, "A." (one capital), "1.", "1.1", "IV."
_KEYWORD_LEAD = re.compile(r"^(chapter|part|book|section|article|kapitel|chapitre|cap[ií]tulo|глава|раздел)"
                           r"[\s\u00a0]+(?:\d{1,3}|[IVXLC]{1,6}|[A-Z])\b", re.I)
_LETTER_LEAD = re.compile(r"^([A-Z])[.)][\s\u00a0]")
_ROMAN_LEAD = re.compile(r"^([IVXLC]{2,6})[.)][\s\u00a0]")
_NUMBER_LEAD = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?[\s\u00a0)]")
_TOP_KEYWORDS = frozenset({"chapter", "part", "book", "kapitel", "chapitre", "capitulo", "capítulo", "глава"})
_ABOVE_CHAPTER = frozenset({"part", "book"})
TITLE_CHARS = 120  # a typed title's length at most (a clause "3.1. Цена Контракта составляет ..." runs longer)
_BOLD_OFF = frozenset({"0", "false", "off", "none"})


def typed_title(text: str, *, bold: bool) -> tuple[int, str] | None:
    """``(depth, title)`` when ``text`` reads as a section title typed as a numbered line: short, its
    letters all capitals, or all bold and not ending as a sentence does; depth 0 for an appendix's own
    line. Else None."""
    text = text.strip()
    if not text or len(text) > TITLE_CHARS:
        return None
    if _APPENDIX.match(text):
        return 0, " ".join(text.split())
    m = _NUMBERED.match(text)
    if m is None:
        return None
    number, words = m.group(1), m.group(2).strip()
    letters = [ch for ch in words if ch.isalpha()]
    if len(letters) < 3:
        return None
    caps = all(ch.isupper() for ch in letters) and any(ch.isupper() for ch in letters)
    if not caps and not (bold and len(words) <= 80 and words[-1] not in ".;:,"):
        return None
    depth = max(1, len([g for g in re.split(r"[.)]", number) if g]))
    return depth, " ".join(text.split())


def lead_shape(text: str, *, learning: bool = False) -> str | None:
    """How ``text`` begins as a heading: ``"kw:chapter"``, ``"letter"``, ``"roman"``, ``"num:2"`` (a number of two
    parts, "3.1"); None for none of those. ``learning`` (a styled heading's text): a single I, V, X, L or C tells
    nothing (a roman numeral or a letter)."""
    text = text.strip()
    if m := _KEYWORD_LEAD.match(text):
        return "kw:" + m.group(1).lower()
    if m := _LETTER_LEAD.match(text):
        return None if learning and m.group(1) in "IVXLC" else "letter"
    if _ROMAN_LEAD.match(text):
        return "roman"
    if m := _NUMBER_LEAD.match(text):
        return f"num:{m.group(1).count('.') + 1}"
    return None


def _titled(text: str) -> bool:
    """Whether a chapter's line holds words after its number ("Chapter 18.33 ACCESSORY DWELLING UNITS")."""
    m = _KEYWORD_LEAD.match(text.strip())
    return m is not None and any(ch.isalpha() for ch in text.strip()[m.end():].lstrip(".0123456789"))


def reads_as_title(text: str, *, bold: bool) -> bool:
    """Whether ``text`` reads as a title line: short, three letters at least, its letters all capitals, or all bold and
    not ending as a sentence does."""
    text = text.strip()
    if not text or len(text) > TITLE_CHARS:
        return False
    letters = [ch for ch in text if ch.isalpha()]
    if len(letters) < 3:
        return False
    return all(ch.isupper() for ch in letters) or (bold and len(text) <= 80 and text[-1] not in ".;:,")


def all_bold(p: etree._Element) -> bool:
    """Whether every run of ``p`` holding text is set bold directly (``w:b`` on the run)."""
    seen = False
    for r in p.iter():
        if not isinstance(r.tag, str) or not r.tag.endswith("}r"):
            continue
        texts = [t for t in r if isinstance(t.tag, str) and t.tag.endswith("}t") and (t.text or "").strip()]
        if not texts:
            continue
        seen = True
        bold = False
        for rpr in r:
            if isinstance(rpr.tag, str) and rpr.tag.endswith("}rPr"):
                for b in rpr:
                    if isinstance(b.tag, str) and b.tag.endswith("}b"):
                        val = next((v for k, v in b.attrib.items() if k.endswith("}val")), "true")
                        bold = val.lower() not in _BOLD_OFF
        if not bold:
            return False
    return seen


class HeadingTrail:
    """The headings open at the walk's current paragraph: styled ones, then typed titles under them."""

    def __init__(self) -> None:
        self.styled: list[tuple[int, str, str]] = []  # (level, text, its number and separator or "")
        self.typed: list[tuple[int, str]] = []
        self.shapes: dict[str, int] = {}  # how styled headings of a level begin -> that level (0: of several)

    def styled_heading(self, level: int, text: str, number: str = "") -> None:
        """A styled heading of ``level`` (``number``: Word's number before it, with its separator): it closes
        those of its level and deeper, and every typed title."""
        if not number and (shape := lead_shape(text, learning=True)) is not None:
            self.shapes[shape] = level if self.shapes.get(shape, level) == level else 0
        self._close(level)
        self.styled.append((level, text, number))

    def outranking(self, text: str, *, bold: bool) -> bool:
        """Take ``text``, a paragraph styled as no heading, as a title of the level whose styled headings begin as it
        does, when it reads as a title (module docstring); False, and the trail unchanged, when it is none."""
        shape = lead_shape(text)
        if shape is None or not reads_as_title(text, bold=bold):
            return False
        level = self.shapes.get(shape)
        if level is None and shape.startswith("kw:") and shape[3:] in _TOP_KEYWORDS \
                and (_titled(text) or text.upper() == text):  # "Chapter 13" alone in bold: a cover's words
            above = [lv for lv, h, _ in self.styled if (lead_shape(h) or "")[3:] in _ABOVE_CHAPTER]
            level = max(above, default=0) + 1  # no styled heading tells a chapter's level: under a part only
        if not level:
            return False
        self._close(level)
        self.styled.append((level, " ".join(text.split()), ""))
        return True

    def _close(self, level: int) -> None:
        while self.styled and self.styled[-1][0] >= level:
            self.styled.pop()
        self.typed = []

    def typed_heading(self, depth: int, text: str) -> None:
        """A typed title of ``depth`` (1 for "3.", 2 for "3.1."): it closes those of its depth and deeper;
        an appendix's line (depth 0) closes every heading, styled ones too."""
        if depth == 0:
            self.styled = []
        while self.typed and self.typed[-1][0] >= depth:
            self.typed.pop()
        self.typed.append((depth, text))

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(h for _, h, _ in self.styled) + tuple(h for _, h in self.typed)

    @property
    def numbers(self) -> tuple[str, ...]:
        """The number before each heading of ``path`` ("" for none, a typed title's is in its text); ()
        when none is numbered."""
        if not any(n for _, _, n in self.styled):
            return ()
        return tuple(n for _, _, n in self.styled) + ("",) * len(self.typed)
