"""Plain-text helpers shared by the cleaning modules: whitespace, headings, sentence boundaries."""

from __future__ import annotations

import re
import unicodedata

from mnote_kr.citations.text.textnorm import lazy_compile

# --------------------------------------------------------------------------- text

# Only runs that need changing (a lone space is left alone: far fewer substitutions).
_SPACE_RE = lazy_compile(r"[^\S\n]{2,}|[^\S \n]")
_NL_RE = lazy_compile(r"[^\S\n]*\n\s*")
_HEADING_RE = lazy_compile(r"^[^\S\n]*(?:#{1,6}(?:[^\S\n]+|$))+", re.MULTILINE)
_FULLWIDTH_PUNCT = tuple((chr(c), unicodedata.normalize("NFKC", chr(c))) for c in map(ord, "，：；？！（）［］　"))
_FINGERPRINT_DROP_RE = lazy_compile(r"[\W_]+")
_BOUNDARY_RE = lazy_compile(r"[\n。！？；!?;]|[.](?=\s)")


def _collapse(text: str) -> str:
    """Whitespace runs to one space, ends stripped (str.split is much faster than a regex)."""
    return " ".join(text.split())
