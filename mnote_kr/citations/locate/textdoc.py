"""The paragraph model a locator plugin builds for the exact-text matcher (``textmatch``).

A ``TextDocument`` is a format's paragraphs in its own order with the term statistics matching
needs (document frequency, posting lists), computed once when it is built; a ``Scope`` names the
paragraph ranges where a format knows the evidence lies.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from mnote_kr.citations.text.acronyms import Definition, defined_in
from mnote_kr.citations.text.textnorm import normalize, shingles, token_set

__all__ = ["P", "Scope", "TextDocument", "TextParagraph"]


@dataclass(slots=True)
class TextParagraph:
    """One paragraph of a document, in the format's own paragraph order.

    ``index`` is the paragraph's position in ``TextDocument.paragraphs`` (and the
    ``paragraphIndex`` a locator reports). ``heading_path`` lists the headings it sits
    under, outermost first (a heading paragraph's path ends with itself);
    ``heading_level`` is >0 when the paragraph is itself a heading; ``in_toc`` marks a
    table-of-contents line. ``norm`` and ``tokens`` are computed from ``text``.
    """

    index: int
    text: str
    heading_path: tuple[str, ...] = ()
    heading_level: int = 0
    in_toc: bool = False
    para_id: str | None = None
    norm: str = field(init=False, repr=False, compare=False)
    tokens: frozenset[str] = field(init=False, repr=False, compare=False)
    _shingles: frozenset[int] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.norm = normalize(self.text)
        self.tokens = token_set(self.norm)

    @property
    def heading(self) -> str | None:
        """The innermost heading this paragraph sits under (itself, for a heading)."""
        return self.heading_path[-1] if self.heading_path else None

    @property
    def shingles(self) -> frozenset[int]:
        """Order-sensitive shingles of the text, computed on first use."""
        if self._shingles is None:
            self._shingles = shingles(self.norm)
        return self._shingles


P = TypeVar("P", bound=TextParagraph)


@dataclass(slots=True)
class TextDocument(Generic[P]):
    """Paragraphs in order plus the term statistics the matcher needs (computed here), and the acronyms the
    document defines (``defined``: "定期安全评价" is its "PSR", ``acronyms``), learned once from its own text so
    a cached model keeps them."""

    paragraphs: list[P]
    df: Counter[str] = field(init=False, repr=False, compare=False)
    postings: dict[str, list[int]] = field(init=False, repr=False, compare=False)
    #: posting lists of common words as sets, made on first use (``_add_common``)
    posting_sets: dict[str, frozenset[int]] = field(init=False, repr=False, compare=False)
    defined: tuple[Definition, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        df: Counter[str] = Counter()
        postings: dict[str, list[int]] = {}
        for pos, para in enumerate(self.paragraphs):
            if para.index != pos:
                raise ValueError(f"paragraph {pos} has index {para.index}; index must equal list position")
            df.update(para.tokens)
            for tok in para.tokens:
                lst = postings.get(tok)
                if lst is None:
                    postings[tok] = [pos]
                else:
                    lst.append(pos)
        self.df = df
        self.postings = postings
        self.posting_sets = {}
        self.defined = defined_in([p.text for p in self.paragraphs])

    def idf(self, token: str) -> float:
        """Inverse paragraph frequency; a token absent from the document weighs most."""
        n = len(self.paragraphs)
        return math.log((n + 1.0) / (self.df.get(token, 0) + 0.5))


@dataclass(frozen=True, slots=True)
class Scope:
    """Paragraph-index ranges (inclusive) where the evidence is known to lie.

    Paragraphs outside every range have their score and confidence multiplied by
    ``outside``: 0.2 for a range a format states exactly (DOCX paraId range), a milder
    factor for a hint (a Markdown heading section).
    """

    ranges: tuple[tuple[int, int], ...]
    outside: float = 0.2

    def __contains__(self, index: object) -> bool:
        return isinstance(index, int) and any(lo <= index <= hi for lo, hi in self.ranges)


