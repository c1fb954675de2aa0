"""Marking a query's words in text for the web UI: whole words for Latin scripts, characters for CJK."""

from __future__ import annotations

import re
from html import escape

from mnote_kr.citations.text.sentencestops import ABBREVIATIONS, BEFORE_NUMBERS

_STOP = frozenset("a an and are as at be by for from how in is it of on or that the this to was what when where "
                  "which who why with does do did can".split())
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
#: Where a sentence ends: a Latin full stop, question or exclamation mark before a space (not "1.5", not
#: "e.g.," inside a word run), CJK sentence punctuation anywhere, a line break.
_SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？；]|\n")
#: The word a full stop closes: letters, with the inner stops of "e.g" or "i.e".
_WORD_BEFORE = re.compile(r"(?<![^\W\d_])(?:[A-Za-z]\.)*[A-Za-z]+$")


def query_terms(query: str) -> list[str]:
    """The words of a query worth marking (no stop words), longest first. A single Latin letter only when the
    ranking's ``query_terms`` keeps it: a letter the query writes as a symbol ("vitamin C", "Plan B",
    ``queryterms.symbol_letters``), kept as written, not "I" or the "A" of "A dog"."""
    from mnote_kr.citations.text.queryterms import symbol_letters

    terms = {query.strip()} if query.strip() else set()
    letters: frozenset[str] | None = None
    for word in _WORD.findall(query):
        if word.lower() in _STOP and not (len(word) == 1 and word.isupper()):
            continue
        if len(word) < 2 and word.isascii():
            if letters is None:
                letters = symbol_letters(query)
            if word.lower() not in letters:
                continue
        terms.add(word)
    return sorted((t for t in terms if t), key=len, reverse=True)


def _term_pattern(term: str) -> str:
    """A query term as a regex: a Latin word starts a word (``led`` is not marked in ``Filed``, nor
    ``table`` in ``suitable``) and runs to the word's end (``patent`` marks ``patented`` whole);
    CJK, which has no spaces, matches character by character anywhere. A one-letter term is a whole
    word in the query's case ("Plan A" marks "A", never the article "a" nor the c of "calcium")."""
    if len(term) == 1 and term.isascii() and term.isalpha():
        return rf"(?<![^\W_])(?-i:{re.escape(term)})(?![^\W_])"
    body = re.escape(term)
    if term[:1].isalnum() and term[:1].isascii():
        body = r"(?<![^\W_])" + body
    if term[-1:].isalnum() and term[-1:].isascii():
        body += r"[^\W_]*"
    return body


def mark_query(text: str, query: str) -> str:
    """``text`` as HTML with every occurrence of a query term in ``<mark class="q">`` (whole words for
    Latin scripts, characters for CJK)."""
    terms = query_terms(query)
    if not terms or not text:
        return escape(text)
    pattern = re.compile("|".join(_term_pattern(t) for t in terms), re.IGNORECASE)
    out: list[str] = []
    last = 0
    for m in pattern.finditer(text):
        out.append(escape(text[last:m.start()]))
        out.append(f'<mark class="q">{escape(m.group(0))}</mark>')
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _ends(text: str, m: re.Match[str]) -> bool:
    """Whether the punctuation ``m`` ends a sentence: a full stop closing an abbreviation does not ("e.g.",
    "vs.", "Fig." before a number), nor "etc." unless a capital follows it ("line spacing, etc. Just check")."""
    if m.group(0) != ".":
        return True
    word = _WORD_BEFORE.search(text, max(0, m.start() - 12), m.start())
    if word is None:
        return True
    key = word.group(0).lower()
    after = text[m.end():].lstrip()[:1]
    if key in BEFORE_NUMBERS:  # (the shared list's, read by what follows first: "see Fig. The next")
        return not after.isdigit()
    if key == "etc":
        return after.isupper()
    return key not in ABBREVIATIONS


def sentence_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span ``start:end`` of ``text`` widened to the whole sentences it touches: from the first word of the
    sentence ``start`` falls in to the end of the one ``end`` falls in, its closing punctuation kept (a locator's
    ``highlight`` is the densest cluster of the query's words, which may start and end mid-sentence: "ink
    only.  Form can be filled", nc21b). Leading spaces, bullets and symbols are not marked; a span that does not
    fit ``text`` is returned as it is."""
    if not 0 <= start < end <= len(text):
        return start, end
    lo = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        if _ends(text, m):
            lo = m.end()
    while lo < start and not text[lo].isalnum():
        lo += 1
    nxt = next((m for m in _SENTENCE_END.finditer(text, max(end - 1, start)) if _ends(text, m)), None)
    hi = nxt.end() if nxt is not None and nxt.group(0) != "\n" else (nxt.start() if nxt is not None else len(text))
    while hi > end and text[hi - 1].isspace():
        hi -= 1
    return lo, hi
