"""Text normalisation and tokens that work for Chinese without spaces and for English.

Normalisation keeps one output character per input character, so a span found in the
normalised text is the same span in the paragraph text the parser extracted.
Tokens: a Latin/Cyrillic/Greek/digit word is one token; a run of CJK characters gives
its character bigrams (a lone CJK character gives itself).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN_RE = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>[^\W_{_CJK}]+)")
_CJK_CHAR_RE = re.compile(rf"[{_CJK}]")


def normalize(text: str) -> str:
    """Lower-case NFKC text with exactly one output character per input character."""
    if text.isascii():
        return text.lower()
    norm = unicodedata.normalize("NFKC", text).lower()
    if len(norm) == len(text):
        return norm
    out = []
    for ch in text:
        n = unicodedata.normalize("NFKC", ch).lower()
        out.append(n if len(n) == 1 else ch.lower()[:1] or ch)
    return "".join(out)


def has_cjk(text: str) -> bool:
    """True when the text contains a CJK (or kana/hangul) character."""
    return _CJK_CHAR_RE.search(text) is not None


def iter_tokens(norm: str) -> Iterator[tuple[str, int, int]]:
    """Yield ``(token, start, end)`` over normalised text."""
    for m in _TOKEN_RE.finditer(norm):
        start = m.start()
        if m.group("cjk") is not None:
            run = m.group("cjk")
            if len(run) == 1:
                yield run, start, start + 1
            else:
                for i in range(len(run) - 1):
                    yield run[i : i + 2], start + i, start + i + 2
        else:
            yield m.group("word"), start, m.end()


def token_set(norm: str) -> frozenset[str]:
    """The set of tokens of normalised text."""
    out: set[str] = set()
    for m in _TOKEN_RE.finditer(norm):
        run = m.group("cjk")
        if run is not None:
            if len(run) == 1:
                out.add(run)
            else:
                out.update(run[i : i + 2] for i in range(len(run) - 1))
        else:
            out.add(m.group("word"))
    return frozenset(out)


def is_word_char(ch: str) -> bool:
    """A character that continues a Latin-script word (letters and digits, not CJK)."""
    return bool(ch) and ch.isalnum() and not has_cjk(ch)


_UNIT_RE = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


def shingles(norm: str) -> frozenset[int]:
    """Order-sensitive shingles: hashes of 4 consecutive CJK characters or 3 consecutive words.

    Token sets ignore order; shingles tell a verbatim excerpt from a bag of the same words.
    """
    units = _UNIT_RE.findall(norm)
    out = set()
    n = len(units)
    for i in range(n):
        k = 4 if has_cjk(units[i]) else 3
        if i + k <= n:
            out.add(hash(tuple(units[i : i + k])))
    if not out and units:
        out.add(hash(tuple(units)))
    return frozenset(out)
