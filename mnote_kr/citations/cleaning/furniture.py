"""Page furniture with words, known by its form: the lines a quote leaves out, wherever the page put them.

A locator finds a PDF's running headers and footers by their repetition across pages (``Locator.quoteOmit``);
a header printed once (a journal article's first page: ``Journal of Hydrology 310 (2005) 253–265``), the first
page's foot (``* Corresponding author. Address: ...``, ``E-mail address: ...``, ``© 2005 Elsevier B.V. All
rights reserved.``) and any file no locator reads page by page keep them. LightRAG's chunk crosses a page's
foot, so they stand between two pages' text, and a quote's sentence starts with them. These lines are
furniture by their form alone (``is_furniture``), each whole:

* a journal's running header: its name (after ``Author et al. /``), volume, ``(year)`` and page range, and
  the page number the text layer may glue on (``253–265254``);
* ``Page 3 of 12``, ``page 3``, ``3 of 12``, ``第 3 页 共 12 页``;
* a line starting ``Corresponding author`` (after a footnote mark);
* a copyright line (``©``, ``(c)``, ``Copyright`` with a year) or one ending ``All rights reserved``;
* an ``E-mail``/``Email`` line holding an address, and a bare ``doi:`` line.

``drop_furniture`` takes them out of a chunk before its quote is cleaned, except a line holding a content
word of the query (it answers: "which volume of the Journal of Hydrology"). Only whole lines go, so a
sentence that mentions a journal, a page or an e-mail is never cut.
"""

from __future__ import annotations

import re

from mnote_kr.citations.text.queryterms import content_terms
from mnote_kr.citations.text.textnorm import lazy_compile, normalize

#: A line longer than this is prose, whatever it starts with (a footnote's address runs a line or two).
MAX_LINE = 240

_YEAR = r"(?:1[89]|20)\d{2}"
_FURNITURE_RE = lazy_compile(
    r"^(?:"
    # journal header: [Author et al. /] Name Words 310 (2005) 253–265 [254]
    rf"(?:[^/\n]{{1,80}}\bet al\.?\s*/\s*)?[A-Z][\w&.,:'’ -]{{2,90}}?\s\d{{1,4}}\s?\({_YEAR}\)\s?"
    r"[A-Za-z]?\d{1,6}\s?[–—-]\s?[A-Za-z]?\d{1,6}(?:\s?\d{1,6})?"
    # page numbers in words
    r"|(?:page|p\.|pg\.?)\s?\d{1,5}(?:\s?(?:of|/)\s?\d{1,5})?|\d{1,5}\s(?:of)\s\d{1,5}"
    r"|第\s?\d{1,5}\s?页(?:\s?[,，/]?\s?共\s?\d{1,5}\s?页)?"
    # corresponding author (after a footnote mark)
    r"|[*∗†‡]?\s?\d?\s?corresponding\s+authors?\b.*"
    # copyright: a mark and a year, or "all rights reserved" at the end
    rf"|(?:©|\(c\)|copyright\b).{{0,160}}?\b{_YEAR}\b.*"
    r"|.{0,160}\ball rights reserved\.?"
    # e-mail and doi lines
    r"|[*∗†‡]?\s?e-?mail(?:\s+address(?:es)?)?\s?[:：]?\s?\S+@\S+.*"
    r"|doi\s?[:：]\s?10\.\S+"
    r")$",
    re.IGNORECASE,
)
_SPACES_RE = lazy_compile(r"\s+")


def is_furniture(line: str) -> bool:
    """Whether the whole ``line`` is page furniture by its form (see the module docstring)."""
    text = _SPACES_RE.sub(" ", line).strip()
    return bool(text) and len(text) <= MAX_LINE and _FURNITURE_RE.match(text) is not None


def _answers(line: str, terms: list[tuple[str, bool]]) -> bool:
    """Whether ``line`` holds one of the query's content ``terms`` (a word's stem at a word's start; CJK as is)."""
    norm = normalize(line)
    return any((text in norm) if cjk else re.search(r"(?<![^\W_])" + re.escape(text), norm) is not None
               for text, cjk in terms)


def drop_furniture(raw: str, query: str) -> str:
    """``raw`` without its furniture lines (``is_furniture``) that hold none of ``query``'s content words;
    ``raw`` itself when it has none."""
    if not raw:
        return raw
    lines = raw.splitlines(keepends=True)
    gone = [i for i, line in enumerate(lines) if is_furniture(line)]
    if not gone:
        return raw
    terms = [(t.text, t.cjk) for t in content_terms(query)]
    gone = [i for i in gone if not _answers(lines[i], terms)]
    if not gone:
        return raw
    out = set(gone)
    return "".join(line for i, line in enumerate(lines) if i not in out)


def without_furniture(raw: str, query: str, omit: list[str] | None = None) -> str:
    """``raw`` without its furniture lines by form (``drop_furniture``) and the running headers, footers and page
    numbers a locator found (``omit``: ``Locator.quoteOmit``, ``copyable.drop_lines``)."""
    from mnote_kr.citations.cleaning.copyable import drop_lines

    kept = drop_furniture(raw, query)
    return drop_lines(kept, omit) if omit else kept
