"""Text primitives every matcher shares: CJK ranges, offset-keeping normalisation, word edges.

One definition of each, used by the paragraph matcher (``textmatch``), the query terms
(``queryterms``), the citation cleaning and ranking, and the locator plugins:

* ``CJK_CLASS``: the CJK (and kana, hangul) characters as a regex class body;
* ``normalize``: lower-case NFKC text with exactly one output character per input
  character, so a span found in normalised text is the same span in the original (a few
  characters NFKC leaves apart folded too: "△H" is "ΔH", "−" is "-", "3×4" is "3x4");
* ``standalone_occurrence``: does a query at a position stand as a word of its own, or
  sit inside a longer word (吡咯烷 inside N-甲基吡咯烷酮)?
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any, cast

__all__ = [
    "TOKEN_RE",
    "CJK_CLASS",
    "CJK_FIRST",
    "find_all",
    "free_sides",
    "has_cjk",
    "is_word_char",
    "unconfused_char",
    "lazy_compile",
    "iter_tokens",
    "joined_words",
    "normalize",
    "query_occurrences",
    "query_standing",
    "shingles",
    "standalone_occurrence",
    "token_set",
]

#: The CJK (and kana, hangul) characters, as a regex character-class body.
CJK_CLASS = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\U00020000-\U0002a6df\U0002a700-\U0002ebef"
)


class _LazyPattern:
    """A regex compiled at its first use (see ``lazy_compile``)."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            from mnote_kr.citations.caches.regexcache import compile_pattern

            self._compiled = compile_pattern(*self._args)
        return getattr(self._compiled, name)


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile`` deferred to the first use.

    A class holding the CJK ranges costs several milliseconds to compile (``re`` walks every
    code point of the BMP ranges), and modules holding them load in every ``search`` process,
    which often never uses them (a fresh process answering from the on-disk caches). The
    compiled program is kept on disk (``regexcache``): the next process skips the compile.
    """
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))


#: The smallest code point of ``CJK_CLASS``: a text whose characters all lie below it has no
#: CJK, which ``max`` tells at C speed without compiling a CJK class (each costs milliseconds,
#: and a search in a Latin script then compiles only ``TOKEN_RE``).
CJK_FIRST = "\u3040"
assert min(CJK_CLASS.replace("-", "")) == CJK_FIRST  # noqa: S101 - keeps the two in step

_CJK_CHAR_RE = lazy_compile(rf"[{CJK_CLASS}]")
_MD_LINK_RE = lazy_compile(r"!?\[([^\[\]\n]{0,300})\]\([^()\s]{1,2000}\)")


def markdown_links_as_words(text: str) -> str:
    """``text`` with each Markdown link or image as its words (``[the supplier](https://...)`` -> ``the
    supplier``); a bracket not followed by an address stays."""
    return _MD_LINK_RE.sub(r"\1", text) if "](" in text else text
#: A CJK run (group ``cjk``) or a word (group ``word``).
TOKEN_RE = lazy_compile(rf"(?P<cjk>[{CJK_CLASS}]+)|(?P<word>[^\W_{CJK_CLASS}]+)")


#: Short letter groups joined by "/", "&" or "." into one word: "p/e", "r&d", "u.s", "i/o", "at&t".
#: TOKEN_RE splits them into letters, which every term list drops (a one-letter word says nothing).
_JOINED_RE = lazy_compile(
    rf"(?<![/&.])(?<![^\W_{CJK_CLASS}])(?:[^\W\d_{CJK_CLASS}]{{1,2}}[/&.]){{1,3}}[^\W\d_{CJK_CLASS}]{{1,2}}"
    rf"(?![/&])(?![^\W_{CJK_CLASS}])"
)
_JOINERS = frozenset("/&.")


def joined_words(norm: str) -> Iterator[tuple[str, int]]:
    """``(word, start)`` of each short joined word of normalised text ("p/e ratio" -> ``("p/e", 0)``):
    groups of one or two letters joined by "/", "&" or "." (a trailing "." of "u.s." left out)."""
    if _JOINERS.isdisjoint(norm):
        return
    for m in _JOINED_RE.finditer(norm):
        yield m.group(0), m.start()


def compile_patterns() -> None:
    """Compile the deferred patterns now (a search does it while the provider answers)."""
    TOKEN_RE.groups  # noqa: B018 - the first attribute read compiles it (CJK ones: at need)
_TOKEN_RE = TOKEN_RE
_UNIT_RE = lazy_compile(rf"[{CJK_CLASS}]|[^\W_{CJK_CLASS}]+")
_WORD_RE = lazy_compile(r"[^\W_]+")  # _UNIT_RE on a text without CJK
# Characters that NFKC may merge with their neighbour (combining marks, conjoining jamo):
# where one is present, whole-text NFKC can shift offsets even when the length is unchanged
# ('e\u0301' composes to one character while 'ﬁ' expands to two).
# Besides the marks themselves: characters whose NFKC form starts with a combining mark or
# a conjoining jamo (Hangul compatibility and halfwidth jamo, circled jamo, halfwidth kana
# voicing marks, Thai and Lao sara am), found by scanning every code point.
_MERGING_RE = lazy_compile(
    r"[\u0300-\u036f\u0e33\u0eb3\u1100-\u11ff\u3131-\u318e\u3260-\u326d\ua960-\ua97f\ud7b0-\ud7ff\uff9e-\uffdc]"
)


def _merges(text: str) -> bool:
    if _MERGING_RE.search(text):
        return True
    # each distinct character once: a paragraph repeats a few dozen characters thousands of times
    return any(unicodedata.category(ch)[0] == "M" for ch in set(text) if ch >= "\u0483")


def normalize(text: str) -> str:
    """Lower-case NFKC text with exactly one output character per input character.

    Character ``i`` of the result is the normalised form of character ``i`` of ``text``
    (a character whose form is longer, such as ``ﬁ``, or a combining mark, stays itself,
    lower-cased), so offsets found in the result hold in ``text``.
    """
    if text.isascii():
        return text.lower()
    if not _merges(text):
        # without merging characters nothing contracts, so equal length means every
        # character kept exactly one output character in place
        norm = unicodedata.normalize("NFKC", text).lower()
        if len(norm) == len(text):
            return _unconfused(norm)
    table = {}
    for ch in set(text):  # each distinct character once, then one C-level pass
        n = unicodedata.normalize("NFKC", ch).lower()
        table[ord(ch)] = n if len(n) == 1 else ch.lower()[:1] or ch
    return _unconfused(text.translate(table))


#: Characters a text writes for another that NFKC leaves apart, one for one: a PDF's "△H" (white triangle) or
#: "∆H" (increment) for the query's "ΔH" (Greek delta, lower-cased), the minus sign for the hyphen-minus typed.
#: ``normalize`` folds them for matching only: a quote is cut from the original text at the same offsets.
_CONFUSABLE = str.maketrans({"\u25b3": "\u03b4", "\u25b5": "\u03b4", "\u2206": "\u03b4", "\u2212": "-"})
_CONFUSED = frozenset("\u25b3\u25b5\u2206\u2212\u00d7")
#: The multiplication sign of a dimension or a count, "3×4", "1920 × 1080", "5 mm × 3": the "x" typed for it.
#: A "×" between letters ("a × b") stays a sign, and so does one a word touches ("500 px×500", "部×4回"): an "x"
#: there would join the word.
_TIMES_RE = lazy_compile(r"(?:(?<=[0-9])|(?<=[0-9a-z]\s))\u00d7(?=\s?[0-9])")


def unconfused_char(ch: str) -> str:
    """One character as ``normalize`` folds it among the confusables NFKC leaves apart (``_CONFUSABLE``: △, ▵, ∆
    read δ, − reads -), any other as it is: the PDF alignment's ``fold_char`` reads them so too, or a page's "△H"
    and an evidence's "ΔH" would not align."""
    return ch.translate(_CONFUSABLE)


def _unconfused(norm: str) -> str:
    """``norm`` with the confusable characters of ``_CONFUSABLE`` and a dimension's "×" folded (same length)."""
    if _CONFUSED.isdisjoint(norm):
        return norm
    norm = norm.translate(_CONFUSABLE)
    return _TIMES_RE.sub("x", norm) if "\u00d7" in norm else norm


def has_cjk(text: str) -> bool:
    """True when the text contains a CJK (or kana/hangul) character."""
    if not text or max(text) < CJK_FIRST:
        return False
    return _CJK_CHAR_RE.search(text) is not None


def is_word_char(ch: str) -> bool:
    """A character that continues a Latin-script word (letters and digits, not CJK)."""
    return bool(ch) and ch.isalnum() and not has_cjk(ch)


_SENTENCE_START = frozenset("\n。！？；.!?;:：")


def keeps_line_end_hyphen(before: str, after: str, context: str = "") -> bool:
    """Whether a hyphen at a line end between the words ``before`` and ``after`` is the word's own
    ("FAA-approved", "Jean-Paul", "COVID-19", "19-year", "state-of-the-art"), not typesetting's
    ("exam-ple"). ``before`` is the whole word before the hyphen, its own hyphens included.

    It is the word's own when the next line goes on in a capital or digit; when ``before`` is in
    capitals, ends in a digit or holds a hyphen already (typesetting breaks neither an acronym nor a
    compound inside); when either side is written in a script that is not hyphenated at line ends
    (CJK, Hangul, kana); or when ``context`` (the text around, e.g. the page) writes the two words with
    a hyphen elsewhere, as a word of its own ("re-enter", not inside "pre-entered")."""
    if not before or not after:
        return True
    if after[0].isupper() or after[0].isdigit() or before[-1].isdigit() or "-" in before:
        return True
    if before.isupper() or _never_hyphenated(before[-1]) or _never_hyphenated(after[0]):
        return True
    if context:
        word = re.escape(f"{before}-{after}")
        return re.search(rf"(?<![^\W_]){word}(?![^\W_])", context, re.I) is not None
    return False


def _never_hyphenated(ch: str) -> bool:
    """A CJK ideograph, kana or Hangul character (not a Latin ligature such as "ﬁ", nor a fullwidth letter)."""
    o = ord(ch)
    return 0x2E80 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF or 0x1100 <= o <= 0x11FF \
        or o >= 0x20000


def _is_join(ch: str) -> bool:
    """A character that continues a word: a letter or digit of any script (CJK included), or ``_``."""
    return bool(ch) and (ch.isalnum() or ch == "_")


def _clean_left(text: str, i: int, edges: bool) -> bool:
    if i == 0:
        return edges
    before = text[i - 1]
    if before in "-‐‑" and i >= 2 and _is_join(text[i - 2]):
        return False  # N-甲基…: a hyphen inside a compound name joins
    return not _is_join(before)


def _clean_right(text: str, j: int, edges: bool) -> bool:
    if j >= len(text):
        return edges
    after = text[j]
    if after in "-‐‑" and j + 1 < len(text) and _is_join(text[j + 1]):
        return False
    return not _is_join(after)


def _starts_sentence(text: str, i: int, edges: bool) -> bool:
    k = i - 1
    while k >= 0 and text[k] in " \t\u3000":
        k -= 1
    if k < 0:
        return edges
    return text[k] in _SENTENCE_START


def standalone_occurrence(text: str, i: int, query: str, *, edges: bool = True) -> bool:
    """True when the query at ``text[i:]`` stands as a word of its own.

    Its neighbours are not letters, digits or CJK characters continuing the same word,
    or it starts a sentence, line or paragraph (``吡咯烷 是一种…``, ``吡咯烷是一种…``);
    ``N-甲基吡咯烷酮`` does not hold ``吡咯烷`` standing alone. ``edges=False`` treats the
    start and end of ``text`` as unknown (an evidence window may cut a word there).
    """
    if not _clean_left(text, i, edges):
        return False
    return _clean_right(text, i + len(query), edges) or _starts_sentence(text, i, edges)


def free_sides(text: str, start: int, end: int) -> int:
    """How many sides of ``text[start:end]`` are free of a word continuing it (0, 1 or 2).

    The one rule for "does the query stand alone or sit inside a longer word": a letter
    or digit of any script (CJK included) or ``_`` next to it continues the word, and so
    does a hyphen inside a compound name (``N-甲基吡咯烷酮``). The ends of ``text`` are free.
    """
    return int(_clean_left(text, start, True)) + int(_clean_right(text, end, True))


def query_standing(text: str, query: str) -> int:
    """How well ``query`` stands alone in ``text``: -1 absent, 0 only inside longer words,
    1 or 2 free sides at its best occurrence (``free_sides``). Case-insensitive; spaces in
    the query match any whitespace. Locators and block mappers use it so that a short
    query never prefers a longer word that contains it."""
    words = query.split()
    if not words:
        return -1
    pattern = re.compile(r"\s*".join(re.escape(w) for w in words), re.IGNORECASE)
    best = -1
    for n, m in enumerate(pattern.finditer(text)):
        best = max(best, free_sides(text, m.start(), m.end()))
        if best == 2 or n > 200:
            break
    return best


# --------------------------------------------------------------------------- tokens


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


def shingles(norm: str) -> frozenset[int]:
    """Order-sensitive shingles: hashes of 4 consecutive CJK characters or 3 consecutive words.

    Token sets ignore order; shingles tell a verbatim excerpt from a bag of the same words.
    Hashes are per process: compare shingles computed in the same process only.
    """
    units = (_UNIT_RE if has_cjk(norm) else _WORD_RE).findall(norm)
    out = set()
    n = len(units)
    for i in range(n):
        k = 4 if has_cjk(units[i]) else 3
        if i + k <= n:
            out.add(hash(tuple(units[i : i + k])))
    if not out and units:
        out.add(hash(tuple(units)))
    return frozenset(out)


def query_occurrences(
    text: str, query: str, centred: bool = False, *, prefer_standalone: bool | None = None, edges: bool = True
) -> list[tuple[int, float]]:
    """Occurrences of ``query`` in ``text`` as ``(position, weight)``.

    A Latin query inside a longer Latin word weighs little. CJK has no word
    boundaries, so an occurrence between CJK characters is normal text; but when the
    query also stands alone (``standalone_occurrence``) in ``text``, or
    ``prefer_standalone`` says it does in the evidence, the occurrences inside a longer
    CJK word weigh little too (吡咯烷 in N-甲基吡咯烷酮 beside 吡咯烷 是一种环状仲胺).
    ``edges`` as in ``standalone_occurrence``.
    """
    if not query:
        return []
    found: list[tuple[int, bool, bool]] = []  # position, embedded in a Latin word, stands alone
    latin_edges = is_word_char(query[0]), is_word_char(query[-1])
    cjk_edges = has_cjk(query[0]), has_cjk(query[-1])
    i = text.find(query)
    while i >= 0 and len(found) < 50:
        before = text[i - 1] if i > 0 else ""
        after = text[i + len(query) : i + len(query) + 1]
        embedded = (latin_edges[0] and is_word_char(before)) or (latin_edges[1] and is_word_char(after))
        alone = (cjk_edges[0] or cjk_edges[1]) and standalone_occurrence(text, i, query, edges=edges)
        found.append((i, embedded, alone))
        i = text.find(query, i + 1)
    if prefer_standalone is None:
        prefer_standalone = any(alone for _, _, alone in found)
    out = [(p, 0.25 if embedded or (prefer_standalone and not alone) else 1.0) for p, embedded, alone in found]
    if len(out) > 1 and centred:
        # the evidence is a query-centred window: its middle occurrence is the one meant
        half = max(1.0, len(text) / 2.0)
        out = [(p, w * (1.0 - 0.3 * min(1.0, abs(p + len(query) / 2 - half) / half))) for p, w in out]
    return out


def find_all(text: str, query: str, limit: int = 50) -> list[int]:
    """Start positions of ``query`` in ``text`` (overlapping), at most ``limit``."""
    out: list[int] = []
    i = text.find(query)
    while i >= 0 and len(out) < limit:
        out.append(i)
        i = text.find(query, i + 1)
    return out


def made_of(key: str, pieces: list[str] | tuple[str, ...]) -> bool:
    """True when ``key`` is one or more of ``pieces`` end to end, in any order.

    Locators use it to recognise a line that only holds page furniture: one parser writes a
    running header and its page number on one line, in either order, another on two.
    """
    seen: set[int] = set()
    todo = [0]
    while todo:  # a small search over positions, each reached once
        at = todo.pop()
        if at == len(key):
            return True
        for piece in pieces:
            nxt = at + len(piece)
            if piece and nxt not in seen and key.startswith(piece, at):
                seen.add(nxt)
                todo.append(nxt)
    return False
