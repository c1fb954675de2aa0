"""The headings a DOCX paragraph sits under (its ``heading_path``), as the reader's walk meets them.

A styled heading (a Heading style, a Title, an outline level) opens a section; a table cell never
does, whatever its style says (cover tables style their labels as headings: "Сумма контракта",
"Год: 2016"). Many contracts and forms style no heading at all and type their section titles as a
short numbered line, bold or in capitals ("3. ЦЕНА КОНТРАКТА И ПОРЯДОК ОПЛАТЫ"): such a title heads
the paragraphs after it until the next title of its depth or a styled heading, under the styled
headings before it. An appendix's own line ("Приложение № 2", "Appendix B", on its own) opens a part of
the document that no heading before it heads. A title typed as text never becomes a heading paragraph (``heading_level``
stays 0): only the trail of headings it heads changes.
"""

from __future__ import annotations

import re

from lxml import etree

# "3.", "3.1", "3.1.", "IV." then the title's words: no line break, no sentence after it
_NUMBERED = re.compile(r"^\s*((?:\d{1,3}\.)+\d{0,3}|\d{1,3}\)|[IVXLC]{1,6}\.)[\s\u00a0]+(\S[^\n]*)$")
_APPENDIX = re.compile(r"^(?:приложение|appendix|annex|annexe|anhang|anlage|附录|附件|別紙|別添)\s*"
                       r"(?:№|no\.?|nr\.?|n°)?\s*[0-9A-Za-zА-Яа-я]{1,3}(?:\.[0-9]{1,3})*\.?$", re.I)
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

    def styled_heading(self, level: int, text: str, number: str = "") -> None:
        """A styled heading of ``level`` (``number``: Word's number before it, with its separator): it closes
        those of its level and deeper, and every typed title."""
        while self.styled and self.styled[-1][0] >= level:
            self.styled.pop()
        self.styled.append((level, text, number))
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
