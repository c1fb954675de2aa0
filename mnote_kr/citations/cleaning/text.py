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
#: LightRAG's separator in a workbook's text (its XLSX extractor: ``==================== Sheet: Ducks
#: ====================`` before each sheet, a bare rule after the last), either rule possibly cut by a chunk.
_SHEET_RULE_RE = lazy_compile(r"^[^\S\n]*=+[^\S\n]+(Sheet:[^\S\n]+[^\n]*?)(?:[^\S\n]+=+)?[^\S\n]*$"
                              r"|^[^\S\n]*=+[^\S\n]*$", re.MULTILINE)
_FULLWIDTH_PUNCT = tuple((chr(c), unicodedata.normalize("NFKC", chr(c))) for c in map(ord, "，：；？！（）［］　"))
_FINGERPRINT_DROP_RE = lazy_compile(r"[\W_]+")
_BOUNDARY_RE = lazy_compile(r"[\n。！？；!?;]|[.](?=\s)")


def sheet_headings(text: str) -> str:
    """LightRAG's sheet separators as the sheet's heading (``Sheet: Ducks``), its bare rules gone: markup of
    the parser's, no words of the workbook's, in every quote and in the locator's evidence alike."""
    return _SHEET_RULE_RE.sub(lambda m: m.group(1) or "", text) if "=" in text else text


def _collapse(text: str) -> str:
    """Whitespace runs to one space, ends stripped (str.split is much faster than a regex)."""
    return " ".join(text.split())
