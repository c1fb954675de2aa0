"""A term the document abbreviates meets its abbreviation: "定期安全评价" is the file's "PSR", and back.

Documents define their acronyms ("Portable Document Format (PDF)", "图卷积网络（GCN）", a standard's
缩略语 list "PSR 定期安全评价") and then write the short form. A question asks with the full term ("核电厂定期
安全评价多久开展一次") while the paragraph that answers writes "核电厂PSR通常每10年左右开展一次": by words alone
it shared the question's frame and not its subject, and the paragraphs naming the subject in full won.

The rule learns a file's own definitions from its text (:func:`defined_in`), nothing from a list:

* inline, a term followed by its acronym in brackets: ``term (ABC)`` or ``term（ABC）``. The acronym is 2 to 8
  Latin capitals and digits, starting with a capital, with at least two capitals (a plural's ``s`` may follow:
  "Large language models (LLMs)"). An English term is the run of words before the bracket whose initials are the
  acronym's letters, minor words skipped ("Office of Management and Budget (OMB)"), else the shortest run whose
  letters spell it in order, its first letter starting a word (Schwartz and Hearst's rule: "Open Database
  Connectivity (ODBC)"), of at most ``WORDS_PER_LETTER`` words a letter; one word only when its capitals are the
  acronym ("WikiTableQuestions (WTQ)", not "sequences (SEQ)"). A Chinese term is the CJK run before the bracket;
  where it starts is unknown ("本标准所称定期安全审查（PSR）"), so it is the run's longest ending of at least
  ``CJK_MIN`` characters that the document writes elsewhere too, else the whole run when it is at most
  ``CJK_WHOLE`` characters and does not end in a function character (的, 了);
* a line of an abbreviation list, the whole paragraph: ``ABC`` then a space, tab, colon or dash, then the term:
  Chinese (no sentence punctuation, at most ``CJK_LIST_MAX`` characters) or English words spelling the acronym
  from their first word.

An acronym the document also writes as a word in lower or mixed case ("ALL" beside "all", "PART" beside "part")
is dropped: the text a locator matches is lower-cased, where such an acronym is that word too.

:func:`stand_ins` gives a query's pairs: what the query says (the acronym, or a defined full term) and what a
place may write instead (the full term, or the acronym). The callers (``queryterms.QueryTerms``, the PDF
locator's block terms) count a place writing the other form as holding the query's words, for less than the
words themselves, never making a place an exact match by the other form alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from mnote_kr.citations.text.textnorm import CJK_CLASS, CJK_FIRST, lazy_compile, normalize

__all__ = ["ACRONYMS", "CJK_MIN", "CJK_WHOLE", "Definition", "StandIn", "defined_in", "stand_ins", "written_at"]

#: False: no stand-ins, a query's words meet only themselves, as before (measured both ways in one run).
ACRONYMS = True

#: Fewest characters of a Chinese term learned from an inline definition (two are a common word: 模型, 系统).
CJK_MIN = 3
#: Longest CJK run before a bracket taken whole as the term when no shorter ending recurs in the document.
CJK_WHOLE = 10
#: Longest CJK run before a bracket looked at (a term is a noun phrase, not a clause).
CJK_RUN_MAX = 16
#: Longest Chinese term of an abbreviation list's line.
CJK_LIST_MAX = 24
#: Most words of an English term per letter of its acronym, plus ``WORDS_SLACK`` ("Office of Management and
#: Budget (OMB)": 5 words for 3 letters).
WORDS_PER_LETTER = 2
WORDS_SLACK = 1


class Definition(NamedTuple):
    """One acronym the document defines: ``short`` as written ("PSR"), ``full`` normalised ("定期安全评价",
    "periodic safety review"); ``cjk`` when the term is Chinese. Plain data (a model on disk keeps it)."""

    short: str
    full: str
    cjk: bool


class StandIn(NamedTuple):
    """What the query says (``said``: the acronym lower-cased, or the full term normalised) and what a place
    may write for it instead (``written``, found by :func:`written_at`); ``said_short`` when the query wrote
    the acronym."""

    said: str
    written: str
    said_short: bool
    cjk: bool


_ACRONYM = r"[A-Z][A-Z0-9]{1,7}"
_INLINE = lazy_compile(rf"[(（]\s?({_ACRONYM})(s?)\s?[)）]")
_LIST_LINE = lazy_compile(rf"^\s*({_ACRONYM})(s?)(?:\s*[:：=–—-]\s*|\s+)(\S.*?)\s*$")
_CJK_RUN_END = lazy_compile(rf"[{CJK_CLASS}]+$")
_CJK_LEAD = lazy_compile(rf"^[{CJK_CLASS}、·]+")
#: Characters no Chinese term ends with (a run "本标准所称的" before "（PSR）" is a clause's end, no term).
_FUNCTION_CHARS = frozenset("的了是在和与及或为之等")
_SENTENCE_MARKS = frozenset("。，,；;：:！!？?（(）)")
_LATIN_WORD = lazy_compile(r"[A-Za-z][\w'’-]*")


def _capitals(short: str) -> bool:
    return sum(ch.isupper() for ch in short) >= 2


def _spells(words: Sequence[str], short: str) -> int | None:
    """The number of ``words`` (the last ones) that spell ``short`` in order, its first letter starting a word
    and its last letters inside the last word or before (Schwartz and Hearst 2003); None when they do not."""
    chars = [ch for ch in short.lower() if ch.isalnum()]
    text = " ".join(w.lower() for w in words)
    at = len(text) - 1
    for k in range(len(chars) - 1, -1, -1):
        ch = chars[k]
        while at >= 0 and (text[at] != ch or (k == 0 and at > 0 and text[at - 1].isalnum())):
            at -= 1
        if at < 0:
            return None
        at -= 1
    return text[at + 1:].count(" ") + 1


#: Words an English term may hold that its acronym skips ("Office of Management and Budget (OMB)").
_MINOR = frozenset("of and the for on in to at by de du des la le et del".split())


def _initials(words: Sequence[str], short: str) -> int | None:
    """The number of ``words`` (the last ones) whose initials, minor words (``_MINOR``) skipped, are the letters
    of ``short``: "Social Security Administration (SSA)" whole, where :func:`_spells` stops at "Security
    Administration" (its "s" inside "administration")."""
    letters = [ch for ch in short.lower() if ch.isalpha()]
    k = len(letters)
    for n in range(1, len(words) + 1):
        word = words[-n].lower()
        if word in _MINOR and k < len(letters):
            continue
        if k == 0 or word[:1] != letters[k - 1]:
            return None
        k -= 1
        if k == 0:
            return n
    return None


def _english(before: str, short: str) -> str | None:
    """The English term ``before`` ends with that spells ``short``: its words' initials (:func:`_initials`), else
    its letters in order (:func:`_spells`); normalised. One word only when the acronym is its capitals
    ("WikiTableQuestions (WTQ)"), not any letters of it ("sequences (SEQ)")."""
    tail = re.split(r"[.;:!?()\[\]（）。；：]", before)[-1]
    words = [w.strip("\"'‘’“”`,") for w in re.split(r"[\s-]+", tail)]
    words = [w for w in words if w][-(WORDS_PER_LETTER * len(short) + WORDS_SLACK):]
    latin = len(words)
    while latin and _LATIN_WORD.fullmatch(words[latin - 1]):
        latin -= 1
    words = words[latin:]  # the words after the last that is no Latin word ("1099, and Social Security ...")
    if not words:
        return None
    n = _initials(words, short) or _spells(words, short)
    if n is None:
        return None
    if n == 1 and [ch for ch in words[-1] if ch.isupper()] != [ch for ch in short if ch.isalpha()]:
        return None
    return normalize(" ".join(words[-n:])).strip()


def _inline(text: str) -> Iterable[tuple[str, str, bool]]:
    """``(short, term, cjk)`` of each inline definition in ``text``; a Chinese term is the whole CJK run
    before the bracket (:func:`defined_in` shortens it)."""
    for m in _INLINE.finditer(text):
        short = m.group(1)
        if not _capitals(short):
            continue
        before = text[max(0, m.start() - 200): m.start()].rstrip()
        if not before:
            continue
        if before[-1] >= CJK_FIRST and (run := _CJK_RUN_END.search(before)) is not None:
            yield short, normalize(run.group(0)[-CJK_RUN_MAX:]), True
        elif before[-1].isalnum():
            term = _english(before, short)
            if term is not None:
                yield short, term, False


def _listed(text: str) -> Iterable[tuple[str, str, bool]]:
    """``(short, term, cjk)`` when the whole of ``text`` is a line of an abbreviation list: "PSR 定期安全评价",
    "FAA - Federal Aviation Administration"."""
    m = _LIST_LINE.match(text)
    if m is None or not _capitals(m.group(1)):
        return
    short, rest = m.group(1), m.group(3)
    lead = _CJK_LEAD.match(rest)
    if lead is not None:
        term = lead.group(0).strip("、·")
        if CJK_MIN - 1 <= len(term) <= CJK_LIST_MAX and not _SENTENCE_MARKS.intersection(rest):
            yield short, normalize(term), True
            rest = rest[lead.end():].strip()
        else:
            return
    if rest and not _SENTENCE_MARKS.intersection(rest):
        words = [w for w in re.split(r"[\s-]+", rest) if w]
        if 0 < len(words) <= WORDS_PER_LETTER * len(short) + WORDS_SLACK and _spells(words, short) == len(words):
            yield short, normalize(" ".join(words)), False


def defined_in(texts: Sequence[str]) -> tuple[Definition, ...]:
    """The acronyms ``texts`` (a file's paragraphs or blocks, as written) define, each pair once, in the order
    first defined (see the module docstring)."""
    runs: dict[tuple[str, str, bool], None] = {}  # inline: a Chinese term is still its whole CJK run
    listed: dict[tuple[str, str, bool], None] = {}
    for text in texts:
        if "(" in text or "（" in text:
            runs.update(dict.fromkeys(_inline(text)))
        if len(text) <= 2 * CJK_LIST_MAX + 60 and text.lstrip()[:2].isupper():
            listed.update(dict.fromkeys(_listed(text)))
    if not runs and not listed:
        return ()
    out: dict[Definition, None] = {}
    joined = "\n".join(texts)
    norm = joined.lower()
    if len(norm) != len(joined) or any(cjk for _, _, cjk in runs):
        norm = normalize(joined)  # one character for one: positions hold in ``joined``
    for short, term, cjk in runs:
        if cjk:
            term = _recurring_end(term, norm) or ""
        if len(term) >= CJK_MIN:
            out.setdefault(Definition(short, term, cjk))
    for short, term, cjk in listed:
        out.setdefault(Definition(short, term, cjk))
    words = _lower_words(joined, norm, {d.short for d in out})
    return tuple(d for d in out if d.short.lower() not in words)


def _recurring_end(run: str, joined: str) -> str | None:
    """The longest ending of the CJK ``run`` (at least ``CJK_MIN`` characters) that the document (``joined``:
    its texts normalised) writes twice (the definition and another place); else the run itself when it is at
    most ``CJK_WHOLE`` characters."""
    for size in range(len(run), CJK_MIN - 1, -1):
        if joined.count(run[-size:]) >= 2:
            return run[-size:]
    return run if len(run) <= CJK_WHOLE and run[-1] not in _FUNCTION_CHARS else None


def _lower_words(joined: str, norm: str, shorts: set[str]) -> set[str]:
    """Those of ``shorts``, lower-cased, that the document (``joined``: its texts, and ``norm``: them normalised)
    also writes as a word not in capitals ("all" for "ALL")."""
    if not shorts:
        return set()
    pattern = re.compile(r"(?<![a-z0-9])(" + "|".join(sorted((re.escape(s.lower()) for s in shorts), key=len,
                                                             reverse=True)) + r")(?![a-z0-9])")
    return {m.group(1) for m in pattern.finditer(norm) if not joined[m.start():m.end()].isupper()}


def _short_re(short: str) -> re.Pattern[str]:
    """The acronym lower-cased as a word of normalised text (a plural ``s`` after it too): CJK may touch it
    ("核电厂psr通常"), a Latin letter or digit may not."""
    return re.compile(rf"(?<![a-z0-9]){re.escape(short.lower())}s?(?![a-z0-9])")


def _full_re(full: str, cjk: bool) -> re.Pattern[str]:
    """The full term in normalised text: Chinese as written; English word by word, each word's ending free (an
    inflection: "flow duration curves" for "flow duration curve"), any spaces or hyphens between."""
    if cjk:
        return re.compile(re.escape(full))
    words = [w for w in re.split(r"[\s-]+", full) if w]
    parts = [re.escape(w[:-1] if len(w) > 3 and w.endswith("s") else w) + r"[a-z]*" for w in words]
    return re.compile(r"(?<![a-z0-9])" + r"[\s-]+".join(parts) + r"(?![a-z0-9])")


def written_at(norm: str, stand_in: StandIn) -> list[int]:
    """Where normalised text writes ``stand_in.written``: each occurrence's first character."""
    pattern = _full_re(stand_in.written, stand_in.cjk) if stand_in.said_short else _short_re(stand_in.written)
    return [m.start() for m in pattern.finditer(norm)]


def stand_ins(query: str, defined: Sequence[Definition]) -> list[StandIn]:
    """The query's stand-ins by the file's ``defined`` acronyms: for an acronym the query writes, its full term;
    for a full term it writes, the acronym. ``query`` is normalised. None while ``ACRONYMS`` is off."""
    out: list[StandIn] = []
    if not ACRONYMS:
        return out
    for d in defined:
        if _short_re(d.short).search(query):
            out.append(StandIn(d.short.lower(), d.full, True, d.cjk))
        elif _full_re(d.full, d.cjk).search(query):
            out.append(StandIn(d.full, d.short.lower(), False, d.cjk))
    return out
