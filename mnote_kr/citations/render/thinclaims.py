"""A place is not exact on a number or on the file's own name alone, whichever locator chose it.

Two claims nc25c (round 25) saw rest on nothing a reader would call an answer:

- "营业收入 2024E" and "高测股份2024年营业收入预测" listed the duck workbook's row "Year: 2024; Freshwater Ducks: 180"
  as exact: of the question's words it holds only the year. A year or a number is in every table of every file.
- "TraceMonkey在哪些基准测试上因为递归而没有加速？" was "exact box, p.4" on "i=5. TraceMonkey calls T16 ...", "1 of the
  query's 2 content terms": the term is the subject the file is named for (``pdfjs__tracemonkey.pdf``), which any of
  its pages holds. The answer, the p.11 bullet on recursion, was the place behind it.

The rule, one for every locator, read on the place's own words (``Locator.place_text``, else its ``quote``): a place
claimed exact whose query words are all numbers (a year, "2024" of "2024E") or words of its file's name, for a question
asking words beyond them, is approximate, its reason saying what it holds. A question asked as written (the query in
the place) keeps its claim, as does one asking nothing beyond the name or the number ("TraceMonkey", "2024"), and a
place holding none of the query's words (claimed by meaning: ``kindclaims`` and the locators judge those). The page or
slide a question names ("page 2") is none of its words (``ranking.content_words``: the named place's own rule). The
DOCX and text locators judge the document's title lines the same way (``locate.subject``); the host knows a file's
name. Pure: no I/O.
"""

from __future__ import annotations

import re

import msgspec

from mnote_kr.citations.rank.ranking import content_words, fold
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize
from mnote_kr.models import Locator

__all__ = ["THIN_CLAIMS", "without_thin_claim"]

#: A place claimed exact on a number or its file's name alone is approximate (False: as before round 25).
THIN_CLAIMS = True
#: A term that is a number: digits (a year, a count, "3.5"), perhaps a letter or two after them ("2024e", "10k").
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*[a-z]{0,2}")


def _norm(text: str) -> str:
    return fold(" ".join(normalize(text).split()))


def _name_words(file_name: str) -> str:
    """A file's name as words: its stem, every run of punctuation ("pdfjs__tracemonkey") a space."""
    stem = file_name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return _norm(re.sub(r"[\W_]+", " ", stem))


def without_thin_claim(locator: Locator, query: str, file_name: str) -> Locator:
    """``locator`` made approximate when it claims an exact place whose query words are only numbers or words of
    ``file_name`` (the file's name or path) while ``query`` asks more (module docstring); its ``runners_up`` judged
    alike. Unchanged otherwise."""
    runners = [without_thin_claim(r, query, file_name) for r in locator.runners_up] if THIN_CLAIMS \
        else locator.runners_up
    if any(a is not b for a, b in zip(runners, locator.runners_up, strict=True)):
        locator = msgspec.structs.replace(locator, runners_up=runners)
    words = locator.place_text or locator.quote
    if not THIN_CLAIMS or locator.locator_degraded or locator.locator_precision == "file" or not words or not query:
        return locator
    q, place = _norm(query), _norm(words)
    if not q or q in place:
        return locator
    qt = QueryTerms(_norm(content_words(query)), {}, 1)  # a page or slide it names ("page 2") is no word to hold
    if not qt:
        return locator
    named = {k for k, _pos, w in qt.hits(_name_words(file_name)) if w >= 0.5}
    thin = named | {k for k, t in enumerate(qt.terms) if _NUMBER_RE.fullmatch(t.text)}
    held = {k for k, _pos, _w in qt.hits(place) if qt.weights[k] > 0}
    if not held or not held <= thin:
        return locator
    if not any(w > 0 and k not in thin and not qt.cuts[k] for k, w in enumerate(qt.weights)):
        return locator  # the question asks only the name or the number
    what = " and ".join(x for x, ks in (("its file's name", named), ("a number", thin - named)) if held & ks)
    why = f"{locator.locator_reason or locator.reason or ''}; of the question's words it holds only {what}, " \
          "not what it asks: an approximate place"
    return msgspec.structs.replace(locator, locator_degraded=True, reason=why.lstrip("; "),
                                   locator_reason=why.lstrip("; "))
