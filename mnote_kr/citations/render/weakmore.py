"""More of the weak rule (``noresults.weak_reason``): words held only by a list of sources, a query most of whose
words no file holds, a small library, and a query across languages saying none of its words.

Kept apart from ``noresults`` for its size; ``noresults`` calls :func:`more_reason` after its own word rules, and
:func:`said_somewhere` before it exempts a query in another script than every passage. Measured on the twenty-second
round's dump and on ``benchmarks/offtopic_small.json`` recorded (docs/embeddings.md, "Issue 33, twenty-third round,
small libraries")."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Iterable, Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING

from mnote_kr.citations.rank.ranking import terms
from mnote_kr.citations.render.typedwords import said
from mnote_kr.citations.render.weakacross import apart, query_script
from mnote_kr.citations.render.weakwords import passage_words

if TYPE_CHECKING:
    from mnote_kr.citations.caches.libwords import LibraryWords
    from mnote_kr.models import Citation

def passage(c: Citation) -> str:
    """A citation's passage as the ranking reads it: a PDF text layer's spaced CJK glyphs ("营 业 收 入") joined up."""
    from mnote_kr.citations.cleaning.copyable import join_cjk_gaps

    return join_cjk_gaps(c.raw_quote or c.context_quote or c.display_quote or "")


def place_words(c: Citation) -> frozenset[str]:
    """The words a citation's place holds as its card shows it (``PLACE_WORDS``; else none): its quote, the locator's
    place text (a PDF table's row read under its headers: "Florida, Totals: 103,532") and a table cell's column
    headers and row label (``Locator.headers``, ``row_label``), which the provider's chunk may not hold."""
    from mnote_kr.citations.cleaning.copyable import join_cjk_gaps

    if not PLACE_WORDS:
        return frozenset()
    loc = c.locator
    return passage_words(join_cjk_gaps("\n".join(x for x in (c.display_quote, loc.quote, loc.place_text, *loc.headers,
                                                               loc.row_label) if x)))


#: ``names_only`` reads the words of each place (:func:`place_words`) beside its passage's. "What is the total for
#: Florida?" over the NICS firearm-checks table cited the cell "Florida, Totals: 103,532" and was said weak: its chunk
#: holds the Florida row's figures, not the column's header "Totals" the PDF locator reads the row under (nc29b
#: section 2). False: the provider's chunk alone, as before round 30. Read by every word rule instead, it cleared the
#: off-topic tuning query off43, "how to train for a 5k run" (``tests/test_weak_plain.py``: a card's quote holding
#: "train" where the chunk recorded for the rule does not): kept to this rule.
PLACE_WORDS = True


def name_terms(c: Citation) -> set[str]:
    """The words of a citation's file name (its stem, ``_`` as a space)."""
    return set(terms(PurePath(c.source_root_relative_path).stem.replace("_", " ")))


#: Score parts by which a query names what it asks for: a verbatim phrase, a file's name or its words.
NAMING_PARTS = ("phrase", "fileName", "fileTerms")


def names_its_answer(parts: Iterable[dict[str, float]]) -> bool:
    """Some of these score parts (a citation's ``diagnostics.score_parts`` each) matched a verbatim phrase or a file
    the query names (``NAMING_PARTS``): no word rule calls such a search weak."""
    return any(p.get(k, 0.0) > 0.0 for p in parts for k in NAMING_PARTS)


def one_script(mine: float, theirs: float) -> bool:
    """Two texts' Han shares (``neutral.han_share``) say one script: both mostly Latin, or both mostly Chinese."""
    return mine <= 0.2 and theirs <= 0.2 or mine >= 0.5 <= theirs


def same_script(query: str, text: str) -> bool:
    """``text`` is in the query's script: their Han shares say one script (:func:`one_script`) and, for a query in
    another script than Han, ``text`` is not mostly in a third one (``weakacross.apart``: a Russian or Korean
    passage holds no Han character nor Latin word, so its Han share reads it as Latin)."""
    from mnote_kr.citations.rank.neutral import han_share

    return one_script(han_share(query), han_share(text)) and not apart(query_script(query), text)


_NOTHING = ": nothing in your files clearly answers it; the passages shown are only the nearest by meaning"


def more_reason(citations: list[Citation], query: str, library: Callable[[], LibraryWords | None] | None,
                small_below: int, words_most: int, common: frozenset[str] = frozenset()) -> str | None:
    """Why a search its words cleared is weak after all, by these rules in turn, or None. ``small_below`` and
    ``words_most``: ``noresults.LIBRARY_FILES`` and ``noresults.PLAIN_WORDS`` (``small_plain``); ``common``:
    ``noresults.COMMON_WORDS`` (``names_only``)."""
    if words := only_sources(citations, query):
        return (f"the query's words ({said(words, query)}) are only in lists of sources (references, contents) among "
                "the passages found, and most of its words are in none" + _NOTHING)
    if library is None:
        return None
    held, absent = library_lacks(citations, query, library)
    if absent:
        return (f"most of the query's words ({said(absent, query)}) are in no file of this library, and the passages "
                + (f"found hold only {said(held, query)}" if held else "found hold none of the others") + _NOTHING)
    if words := small_plain(citations, query, library, small_below, words_most):
        return (f"in this small library no passage found holds more of the query than words several of its files hold "
                f"({said(words, query)}), and the first is no closer to it in meaning than the rest" + _NOTHING)
    named, rest = names_only(citations, query, library, common) if NAMES_ONLY else ([], [])
    if named:
        return (f"the passages found name {said(named, query)}, but none naming it holds any other word of the query "
                f"({said(rest, query)}): they name what it asks about, not what it asks" + _NOTHING)
    return None

#: Words by which a query asks about a list of sources itself ("which book in the references ..."), whose answer a
#: reference list is.
_SOURCE_WORDS = frozenset(t for w in """reference references bibliography cite cited citation citations source
    sources literature contents index 参考 文献 引用 目录 索引 出处""".split() for t in terms(w))


def only_sources(citations: list[Citation], query: str) -> list[str]:
    """The query's words (numbers aside) the passages found hold, when every passage holding one is a list of sources
    (the ranking's ``apparatus`` part: a reference list, a table of contents: ``cues.is_apparatus``), they are at most
    half the query's words, the first place is in the query's script, and the query neither asks about sources
    (``_SOURCE_WORDS``) nor matched a verbatim phrase or a file it names; else []. A bibliography entry holding "pine
    plantations" does not answer "pine plantations, glacier melt, Himalayas" (nc23a problem 6): a reference list names
    what other works are about, so it holds a word of many a question it does not answer."""

    if not citations or names_its_answer(c.diagnostics.score_parts for c in citations):
        return []
    asked = {t for t in terms(query) if not t.isdigit()}
    if not asked or asked & _SOURCE_WORDS:
        return []
    if not same_script(query, passage(citations[0])):
        return []
    held = [(c, asked & (passage_words(passage(c)) | name_terms(c))) for c in citations]
    holding = [(c, h) for c, h in held if h]
    if not holding or any("apparatus" not in c.diagnostics.score_parts for c, _ in holding):
        return []
    words = sorted(set().union(*(h for _, h in holding)))
    return words if 2 * len(words) <= len(asked) else []


#: A query in another script than every passage found is not judged by words only when some passage says one of its
#: words in the other language (``said_somewhere``); with the dictionary missing, always (nothing can be said).
SAID_SOMEWHERE = True


def said_somewhere(query: str, citations: list[Citation], english: Sequence[str]) -> bool:
    """Some passage found says one of the query's words in its own language (an English query's words, ``english``, in
    a Chinese passage: ``crossmods.said_in_chinese``, or all the words of a headword's synonym of two words or more:
    年薪 "annual salary"; a Chinese query's words in a Latin one: ``crossmods.held_words``), or the dictionary that
    would say so is missing. A right answer across languages says some ("Northeast Electric" as 东北电气; 班加罗尔 as
    "Bangalore"); in a library with no file in the query's language every passage is in the other script whatever is
    asked, and one saying none of its words ("When was the Supreme Court argument in Knowles v. Mirzayance?" over
    Chinese nuclear-safety standards: nc23b problem 1) answers nothing of it."""
    from mnote_kr.citations.rank.neutral import han_share
    from mnote_kr.citations.text.cjkwords import _headwords
    from mnote_kr.citations.text.crossmods import held_words, said_in_chinese

    if not SAID_SOMEWHERE or not _headwords():
        return True
    if han_share(query) >= 0.5:
        return any(held_words(query, set(_LATIN_WORD.findall(passage(c).lower()))) for c in citations)
    return any(said_in_chinese(english, passage(c)) or _said_as_phrase(english, passage(c)) for c in citations)


_LATIN_WORD = re.compile(r"[a-z0-9]+")


def _said_as_phrase(english: Sequence[str], text: str) -> bool:
    """A Chinese headword of ``text`` (two characters or more, no function word) one of whose synonyms is two words or
    more, every one of them among ``english``: 年薪 "annual salary" for "what is the annual salary"."""
    from mnote_kr.citations.text.cjkwords import FUNCTION_WORDS, _headwords
    from mnote_kr.citations.text.crosslang import segment, synonyms
    from mnote_kr.citations.text.textnorm import normalize

    asked = set(english)
    gloss = _headwords()
    return bool(asked) and any(
        len(syn) >= 2 and set(syn) <= asked
        for run in _CJK_RUN.findall(normalize(text)) for head in dict.fromkeys(segment(run, gloss))
        if len(head) >= 2 and head not in FUNCTION_WORDS for syn in synonyms(head))


_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


#: The fewest files a library counts for its word counts to judge at all (``library_lacks``, ``small_plain``).
SMALL_FILES = 3


def library_lacks(citations: list[Citation], query: str,
                  library: Callable[[], LibraryWords | None]) -> tuple[list[str], list[str]]:
    """(the query's words the passages hold, its words no file of the library holds) when the second are two or more
    and more than half its words (numbers aside), else ([], []): for a mostly Latin query (Han share at most 0.2: a
    Chinese query's bigrams across its words are in no file whatever it asks) whose first place is in its script,
    cleared by its words, not by a verbatim phrase or a file it names, in a library of ``SMALL_FILES`` counted or more.
    "pine plantations, glacier melt, Himalayas" over twelve files, a paper on pine plantations among them: glacier,
    melt and Himalayas are in none (nc23a problem 6). A right answer's words are mostly the library's."""
    from mnote_kr.citations.rank.neutral import han_share

    if not citations or names_its_answer(c.diagnostics.score_parts for c in citations):
        return [], []
    if han_share(query) > 0.2 or han_share(passage(citations[0])) > 0.2 \
            or apart(query_script(query), passage(citations[0])):
        return [], []
    asked = {t for t in terms(query) if not t.isdigit()}
    if len(asked) < 2:
        return [], []
    lib = library()
    if lib is None or lib.files < SMALL_FILES:
        return [], []
    held = {t for c in citations for t in asked & (passage_words(passage(c)) | name_terms(c))}
    absent = sorted(t for t in asked - held if not lib.df.get(t))  # a word a passage holds is in some file
    if len(absent) < 2 or 2 * len(absent) <= len(asked):
        return [], []
    return sorted(held), absent


#: ``small_plain``: the share of the largest IDF in a library (of a word no file holds, ln((files + 1) / 0.5)) that the
#: words one passage holds must weigh together: ``noresults.PLAIN_IDF`` is this share of it in the 46 files it was
#: measured on (3.0 of 4.54).
SMALL_SHARE = 0.66
#: ``small_plain``: how far above the middle of the places' cosines the first place's must be for it to be close to the
#: query in meaning. A library in one language gives every passage of it a high cosine with a query in that language
#: (0.70 to 0.73 for the off-topic 学校的年度报告表 over Chinese standards), so an absolute limit cannot tell.
SMALL_GAP = 0.03


def small_plain(citations: list[Citation], query: str, library: Callable[[], LibraryWords | None],
                small_below: int, words_most: int) -> list[str]:
    """``noresults.library_plain`` for a library of ``SMALL_FILES`` files to ``small_below``: the query's words
    (numbers aside) the passages hold, when it is a short one (``words_most`` words; a Chinese query's by the
    dictionary, ``cjkwords.query_words``, its bigrams otherwise), no passage holds words of it weighing together
    ``SMALL_SHARE`` of the library's largest IDF, the first place is in the query's script and its cosine is less than
    ``SMALL_GAP`` above the median of the places' cosines; else []. 学校的年度报告表 over five Chinese files, two
    holding 报告 (nc23b problem 1). A right answer's passage holds words one file holds (连续, 读取 of stress009),
    its place stands out in meaning from the rest."""
    from mnote_kr.citations.rank.neutral import han_share
    from mnote_kr.citations.text.cjkwords import query_words

    if not citations or names_its_answer(c.diagnostics.score_parts for c in citations):
        return []
    asked = {t for t in terms(query) if not t.isdigit()}
    mine = han_share(query)
    if not asked or not same_script(query, passage(citations[0])):
        return []
    zh = query_words(query) if mine >= 0.5 else ()
    count = len(zh) + sum(1 for t in asked if t.isascii()) if zh else len(asked)
    meanings = [c.locator.meaning_score for c in citations if c.locator.meaning_score is not None]
    first = citations[0].locator.meaning_score
    if count > words_most or first is None or len(meanings) < 3 or first - statistics.median(meanings) >= SMALL_GAP:
        return []
    lib = library()
    if lib is None or not SMALL_FILES <= lib.files < small_below:
        return []
    limit = SMALL_SHARE * math.log((lib.files + 1) / 0.5)
    held = [asked & (passage_words(passage(c)) | name_terms(c)) for c in citations]
    if any(sum(lib.held_idf(t) for t in h) >= limit for h in held):
        return []
    return sorted(set().union(*held))


#: ``more_reason`` reads ``names_only`` (``benchmarks/weak_variants.py`` replays the rule with it off).
NAMES_ONLY = True
#: ``names_only``: a word the query writes as a name is the name of something only when at most this many of the
#: library's files hold it ("Tokyo", "Bangalore"; not "American", held by 4 of 46).
NAME_FILES = 2
#: ``names_only``: a name this long or longer is named by a passage holding it inside a word of its own.
GLUED_NAME = 5
#: Words written as names that name a date, not a subject ("the March 2016 meeting").
_DATE_NAMES = frozenset(t for w in """january february march april may june july august september october november
    december monday tuesday wednesday thursday friday saturday sunday""".split() for t in terms(w))
_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9'\u2019-]*")


def query_names(query: str) -> set[str]:
    """The terms of the Latin words ``query`` writes as names: capitalised after its first word, or two capitals or
    more ("Tokyo", "FAA", "NANDrive"), months and weekdays aside."""
    words = _LATIN_NAME.findall(query)
    return {t for i, w in enumerate(words) if sum(ch.isupper() for ch in w) >= 2 or (i > 0 and w[0].isupper()
                                                                                 and w != "I")
            for t in terms(w)} - _DATE_NAMES


def names_only(citations: list[Citation], query: str, library: Callable[[], LibraryWords | None],
               common: frozenset[str]) -> tuple[list[str], list[str]]:
    """(the names the passages hold, the query's other words) when no passage (nor file name) holding one of those names
    holds any of the other words, else ([], []). For a mostly Latin query (Han share at most 0.2) whose first place
    is Latin too (a Chinese passage found across languages holds none of its words whatever it says), holding a name
    (``query_names``) some passage holds and at most ``NAME_FILES`` of the library's files do, and another content
    word (numbers and ``common`` words aside: ``noresults.COMMON_WORDS``); not cleared by a verbatim phrase or a
    file it names; in a library of ``SMALL_FILES`` counted files or more. "what was the population of Tokyo in
    2020", cleared by the source line "Tokyo Climate Center" under a climate table of an article on Bangalore: the
    library names Tokyo, and nothing naming it says a word of population ("parking fees at Seattle General Hospital"
    cited on a report's letterhead: nc23d). A right answer's place names its subject and says something of what is
    asked ("What was Bangalore's population in the 1971 census?" on the census table of that article). A name of
    ``GLUED_NAME`` letters or more inside a word of a passage names it too ("increase Lisinopril dose" answered by the
    OCR line "Increase Lisinoprilfrom 10mg to 20mg")."""
    from mnote_kr.citations.rank.neutral import han_share

    if not citations or han_share(query) > 0.2 or han_share(passage(citations[0])) > 0.2 \
            or apart(query_script(query), passage(citations[0])) \
            or names_its_answer(c.diagnostics.score_parts for c in citations):
        return [], []
    asked = {t for t in terms(query) if not t.isdigit()} - common
    written = query_names(query) & asked
    rest = asked - query_names(query)
    if not written or not rest:
        return [], []
    held = [asked & (passage_words(passage(c)) | name_terms(c) | place_words(c)) for c in citations]
    named = {t for h in held for t in h & written}
    if not named:
        return [], []
    lib = library()
    if lib is None or lib.files < SMALL_FILES:
        return [], []
    named = {t for t in named if max(lib.df.get(t, 0), 1) <= NAME_FILES}
    # a passage names it in a word of its own too: OCR glues words ("Increase Lisinoprilfrom 10mg to 20mg", nc23c)
    glued = [w.lower() for w in _LATIN_NAME.findall(query) if len(w) >= GLUED_NAME and set(terms(w)) & named]
    if not named or any(h & rest and (h & named or any(w in passage(c).lower() for w in glued))
                        for c, h in zip(citations, held, strict=True)):
        return [], []
    return sorted(named), sorted(rest)
