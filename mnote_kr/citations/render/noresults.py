"""When a search has no citation, or none that seems to answer: the two explanations a reader gets.

``why_no_results`` says why nothing could be cited and what to do; ``weak_reason`` says why the
citations found seem not to answer the query (the relevance floor)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mnote_kr.citations.rank.ranking import terms
from mnote_kr.citations.render.typedwords import said
from mnote_kr.citations.render.weakabsent import absent_reason, declined
from mnote_kr.citations.render.weakacross import apart, query_script, stands_out
from mnote_kr.citations.render.weakmore import more_reason, names_its_answer, said_somewhere, same_script
from mnote_kr.citations.render.weakmore import name_terms as _name_terms
from mnote_kr.citations.render.weakmore import passage as _passage
from mnote_kr.citations.render.weakscript import across_reason
from mnote_kr.citations.render.weakscript import place_text as _place_text
from mnote_kr.citations.render.weakunits import numberless_reason, unit_reason
from mnote_kr.citations.render.weakwords import passage_words
from mnote_kr.citations.text.namedplaces import named_places, naming
from mnote_kr.core.registry import Registry
from mnote_kr.models import Citation

if TYPE_CHECKING:
    from mnote_kr.citations.caches.libwords import LibraryWords

#: The ranking's parts that say a passage holds the query's own words (or its file is named by them).
_WORDS_PARTS = ("lexical", "phrase", "fileName", "fileTerms")


def weak_reason(citations: list[Citation], query: str = "",
                library: Callable[[], LibraryWords | None] | None = None) -> str | None:
    """Why nothing found seems to answer the query, or None when something does.

    The rule (measured: docs/http-api.md, "Places, quotes and weak results";
    ``benchmarks/relevance_floor.py``): no passage the provider returned
    holds any of the query's content words (stemmed words, CJK bigrams) and no file name does; a number
    alone (a year, an amount) is no such word when the query has others (``_numbers_only``); nor are
    words that say nothing of what it asks (``_saying_nothing``): common English words alone ("back",
    "best", "time"), or one word of a Chinese query whose first place is not close in meaning.
    The provider always returns its nearest chunks, so a query on another subject gets cards; its
    words are then nowhere in them, or only its common ones. In the eighteenth round's run it flagged 21
    of the 258 labelled tuning questions (their citations are kept, only marked), 20 of 30 off-topic
    queries and 9 of 16 off-topic queries holding numbers (docs/http-api.md, "Places, quotes and weak
    results"; docs/embeddings.md, "Issue 33, eighteenth round").

    A query in another script than every passage found (a Chinese question over English files, or
    the reverse: the default embedder finds answers across languages) shares no word with them
    whether they answer it or not, so words cannot judge it: it is not said weak. When only the first
    passage is in the other script (a Chinese question answered by an English slide, with a Chinese
    passage further down), it stays weak (an off-topic question's first place is as often in the other
    script) but says so (``ACROSS_LANGUAGES``) rather than that nothing answers it. Nor is a query
    without a content word ("C", "what is it"): it has no word to look for. Nor is one that names a slide,
    page or sheet (``named_places``: "第三张幻灯片的备注") cited there, not approximately (its locator found
    the place it names: the notes of an English deck hold no "备注").

    Nor is a Chinese question whose first place, a Latin passage, says its words in English (``said_across``:
    "2024年淡水鸭的数量是多少？" over a row "2024, Freshwater Ducks: 180", 淡水 being "fresh water"): two of them,
    or one when that place is close in meaning, as one shared word clears a Chinese query in Chinese (``ZH_MEANING``).
    On the twenty-first round's dump (``benchmarks/weak_variants.py``) it cleared 3 labelled tuning questions asked
    across languages, each first on its right file, and no off-topic tuning query (28 of 55 and 8 of 16 stay weak).

    Words only in the chunks around the places found clear nothing when no place holds one and the first place is far
    in meaning (``_only_around``); a header of the first place named wholly by the Chinese question counts its words
    (``HEADER_NAMED``). Neither changed a flag of the twenty-first round's dump.

    With the library's word counts (``library``: what loads them, ``caches.libwords``, called only when they are
    needed), an English query cleared by its words is
    weak when the words the passages hold are all common in this library and it asks for a word no file holds
    (``library_common``: "how to report a lost passport" over a library of reports).

    A Latin query whose first file holds at most half its words is uncertain when a file in another script (Cyrillic,
    Arabic, Han ...) was found as close in meaning (``weakscript.across_reason``: "check that file's place too").

    Before any of these, a question asking a measured quantity (a voltage, a current, a temperature ...) whose first
    place states no number in its unit, but one in another's or none, is weak in any script (``weakunits``); after
    them all, one asking an amount, a percentage, a size ... whose first place holds no number (``numberless_reason``).
    """
    reason = _weak(citations, query, cjk_stop=CJK_FUNCTION_WORDS, first_script=FIRST_SCRIPT, library=library)
    if reason is None and query and declined(citations):
        return DECLINED_REASON
    return reason if reason is not None else numberless_reason(citations, query)


#: The weak reason when every card shown says its place only names its document's subject (``weakabsent.declined``).
DECLINED_REASON = ("every place shown holds only words naming its document's subject (a title, a term), not what the "
                   "query asks, as each card's reason says: nothing in your files clearly answers it; the passages "
                   "shown are only the nearest by meaning")


#: The weak check reads a query's words without its Chinese function words (``content_words``: a passage
#: holding only 的意 of "最好的意大利面酱配方是什么？" would hold none of its words). Measured and not kept
#: (docs/embeddings.md, "Issue 33, sixteenth round"): off-topic tuning queries said weak 15 -> 15 and 7 -> 7,
#: labelled tuning questions 16 -> 19 (real answers cleared today by 意的, 查有, 下去 only).
CJK_FUNCTION_WORDS = False
#: A query in another script than the FIRST citation's passage (not every passage) is not judged by words.
#: Measured and not kept (the same round): off-topic tuning queries said weak 15 -> 13 and 7 -> 3.
FIRST_SCRIPT = False


def content_words(query: str) -> set[str]:
    """The words the weak check looks for: the query's ``terms`` less its Chinese function words. The question
    words and particles (``queryterms``: 什么, 多少, 怎么, 为什么, 吗 ...) are taken out before CJK bigrams
    are made, and a bigram with a function character (ranking's: 的, 是, 在, 有, 这, 个 ...) on either side
    is none (``terms`` drops only a bigram made of two)."""
    from mnote_kr.citations.rank.ranking import CJK_FUNCTION_CHARS, fold
    from mnote_kr.citations.text.queryterms import drop_cjk_question_words

    return {t for t in terms(drop_cjk_question_words(fold(query)))
            if not (len(t) == 2 and (t[0] in CJK_FUNCTION_CHARS or t[1] in CJK_FUNCTION_CHARS))}


def _weak(citations: list[Citation], query: str, *, cjk_stop: bool, first_script: bool,
          library: Callable[[], LibraryWords | None] | None = None) -> str | None:
    """``weak_reason``, its two choices named (the benchmark reads either: ``benchmarks/weak_variants.py``)."""
    if not citations:
        return None
    if units := unit_reason(citations, query):  # read across scripts: before the exemptions below
        return units
    asked = content_words(query) if cjk_stop else set(terms(query))
    numbers_only = False
    parts = [c.diagnostics.score_parts for c in citations]
    few: list[str] = []
    around: list[str] = []
    common: tuple[list[str], list[str]] = ([], [])
    plain: list[str] = []
    more: str | None = None
    if _worded(citations, parts, query, asked):
        # a file the query names ("2024-01-05.md") answers it whatever its name is made of
        numbers_only = not any(p.get("fileName", 0.0) > 0.0 for p in parts) and _numbers_only(asked, citations)
        few = [] if numbers_only else _saying_nothing(citations, parts, query)
        around = [] if numbers_only or few else _only_around(citations, parts, query)
        common = (([], []) if numbers_only or few or around or library is None
                  else library_common(citations, query, library))
        plain = ([] if numbers_only or few or around or common[0] or library is None
                 else library_plain(citations, query, library))
        more = (None if numbers_only or few or around or common[0] or plain
                else more_reason(citations, query, library, LIBRARY_FILES, PLAIN_WORDS, COMMON_WORDS)
                or absent_reason(citations, query, library) or across_reason(citations, query, library))
        if not numbers_only and not few and not around and not common[0] and not plain and not more:
            return None
    if _across_scripts(query, citations[:1] if first_script else citations) \
            and said_somewhere(query, citations, _english_words(query)):
        return None
    if _cited_where_named(query, citations):
        return None
    if query and not asked:
        return None
    if said_across(query, citations) or stands_out(query, citations, _passage):
        return None
    if around:
        return (f"the query's words ({said(around, query)}) are only in the text around the places found, not at any "
                "of them, and the first is not close to the query in meaning: nothing in your files clearly answers "
                "it; the passages shown are only the nearest by meaning")
    if more:
        return more
    if plain:
        return (f"no passage found holds more of the query than words common in this library ({said(plain, query)}), "
                "and the first is not close to it in meaning: nothing in your files clearly answers it; the passages "
                "shown are only the nearest by meaning")
    if common[0]:
        return (f"only words common in this library ({said(common[0], query)}) are in the passages found, and "
                f"{said(common[1], query)} {'is' if len(common[1]) == 1 else 'are'} in none of its files: nothing in "
                "your files clearly answers it; the passages shown are only the nearest by meaning")
    if numbers_only:
        return ("only the query's numbers are in the passages found, none of its words: nothing in your files "
                "clearly answers it; the passages shown are only the nearest by meaning")
    if few and set(few) <= COMMON_WORDS:
        return (f"only common words of the query ({said(few, query)}) are in the passages found: nothing in your "
                "files clearly answers it; the passages shown are only the nearest by meaning")
    if few:
        return (f"only one of the query's words ({said(few[:1], query)}) is in the passages found, and the first "
                "passage is not close to the query in meaning: nothing in your files clearly answers it; the passages "
                "shown are only the nearest by meaning")
    if _across_scripts(query, citations[:1], shown=True):  # the passage the reason speaks of: the one shown
        return ACROSS_LANGUAGES
    return ("none of the query's words is in any passage found: nothing in your files clearly answers it; "
            "the passages shown are only the nearest by meaning")


#: The weak reason when the first place found is in another script than the query (a Chinese question, an English
#: slide): words cannot say whether it answers, whichever it is (``benchmarks/weak_variants.py``, ``first_script``).
ACROSS_LANGUAGES = ("the first passage found is in another script than the query, found by meaning across languages: "
                    "none of the query's words could be matched in it or in any other passage found; "
                    "check that it answers")


def _worded(citations: list[Citation], parts: list[dict[str, float]], query: str, asked: set[str]) -> bool:
    """Some passage found, or its file's name, holds one of the words ``asked``. The ranking's parts say so
    when ``asked`` is the query's every term; else (function words left out) a verbatim phrase or a named
    file still does, and the lexical part is read again on the passages with ``asked`` alone."""
    every = asked == set(terms(query))
    if any(p.get(k, 0.0) > 0.0 for p in parts for k in (_WORDS_PARTS if every else _NAMED)):
        return True
    return not every and any(asked & (passage_words(_passage(c)) | _name_terms(c)) for c in citations)


#: The word parts that need no term of the query: the query verbatim in a passage, a file it names.
_NAMED = ("phrase", "fileName")


#: Words too common to say what a query is about: the Glasgow stop list (as scikit-learn ships it) less the
#: ranking's own stop words and less its words that can name a topic (bill, fire, system, interest, amount, detail,
#: mill, thick, thin, cry, name, empty, fill), and ten of English's most frequent words beside it.
_COMMON = """above across after afterwards again against almost alone along already also although always among
    amongst another anyhow anyone anything anyway anywhere around back became because become becomes becoming before
    beforehand behind below beside besides between beyond both bottom call cannot de done down due during eight either
    eleven else elsewhere enough even ever every everyone everything everywhere except few fifteen fifty first five
    former formerly forty found four front full further give go hence hereafter hereby herein hereupon hers herself
    himself however hundred indeed keep last latter latterly least less made meanwhile mine moreover mostly move
    myself namely neither never nevertheless next nine nobody none noone nor nothing now nowhere off often once one
    only onto others otherwise ours ourselves out own part per perhaps put rather same see seem seemed seeming seems
    serious several side since six sixty somehow someone something sometime sometimes somewhere still take ten
    themselves thence thereafter thereby therefore therein thereupon third though three through throughout thus
    together too top toward towards twelve twenty two until up upon us very via well whatever whence whenever
    whereafter whereas whereby wherein whereupon wherever whether while whither whoever whole within without yet
    yours yourself yourselves
    time year day way thing best good new make like"""
#: ``_COMMON`` as ``terms`` reads a query (stemmed: "becomes" is "becom").
COMMON_WORDS = frozenset(t for w in _COMMON.split() for t in terms(w))
#: The first place's cosine with a Chinese query below which one shared word does not clear it.
ZH_MEANING = 0.70


#: The library IDF (``LibraryWords.idf``, natural log) that the words the passages hold must reach together for an
#: English query that asks for a word the library lacks: below it they are words about a fifth of the library's files
#: hold or more (one "report", "table", "change"). Measured on the twenty-first round's dump with the benchmark's
#: library (``benchmarks/weak_variants.py --library``): off-topic English tuning queries said weak 15 -> 19 of 44,
#: labelled English 2 -> 3 of 132 (h_en08, its right file not among those found); the same from 1.5 to 1.7.
LIBRARY_COMMON = 1.6
#: The files a library must count for its word counts to judge: in a smaller one a word one file holds weighs little
#: (in 3 files, ln(4 / 1.5) < 1), however rarely a person would write it.
LIBRARY_FILES = 10


def library_common(citations: list[Citation], query: str,
                   library: Callable[[], LibraryWords | None]) -> tuple[list[str], list[str]]:
    """(the query's words the passages hold, the words no file of the library holds) when the first weigh less than
    ``LIBRARY_COMMON`` together and the second are some, else ([], []): for a mostly Latin query (Han share at most
    0.2; a Chinese query's bigrams across its words are in no file whatever it asks) cleared by its words, not by a
    verbatim phrase or a file it names; in a library of ``LIBRARY_FILES`` counted or more. Numbers aside. O(the
    query's words) lookups, the counts loaded (``library()``) only past those checks; none kept (None): ([], [])."""
    from mnote_kr.citations.rank.neutral import han_share

    if han_share(query) > 0.2 or names_its_answer(c.diagnostics.score_parts for c in citations):
        return [], []
    asked = {t for t in terms(query) if not t.isdigit()}
    lib = library() if asked else None
    if lib is None or lib.files < LIBRARY_FILES:
        return [], []
    held = sorted({t for c in citations for t in asked & (passage_words(_passage(c)) | _name_terms(c))})
    lacking = sorted(t for t in asked.difference(held) if lib.df.get(t, 0) == 0)  # a held word is in some file
    if not lacking:
        return [], []
    if not held or sum(lib.held_idf(t) for t in held) >= LIBRARY_COMMON:
        return [], []
    return held, lacking


#: ``library_plain``: a query of at most this many words (numbers aside). A longer question asked in other words than
#: its answer's (most labelled tuning questions) often shares only common words with the right place.
PLAIN_WORDS = 5
#: ``library_plain``: the library IDF the query's words one passage holds must reach together (about one word held by
#: a single file in a library of 46, or two held by a fifth of them each); in a smaller library, the weight of a word
#: held by a single file (a word one file holds is not common, whatever the library's size).
PLAIN_IDF = 3.0
#: ``library_plain``: the first place's cosine below which it is not close to the query in meaning.
PLAIN_MEANING = 0.67


def library_plain(citations: list[Citation], query: str, library: Callable[[], LibraryWords | None]) -> list[str]:
    """The query's words (numbers aside) the passages hold, when it is a short one (``PLAIN_WORDS``) built from words
    common in this library: no passage holds words of it weighing ``PLAIN_IDF`` together (library IDF), the first
    place is in the query's script and its cosine is known and below ``PLAIN_MEANING``; else []. Not for a verbatim
    phrase or a named file; in a library of ``LIBRARY_FILES`` counted or more. "how to read a weather report" over 46
    files, 4 holding "weather", 12 "read", 12 "report": passages hold each, none enough of them (first cosine 0.66).
    A right answer's place holds a word of the question few files hold, or is close to it in meaning.
    Measured on the twenty-second round's dump (docs/embeddings.md, "Issue 33, twenty-third round")."""

    if names_its_answer(c.diagnostics.score_parts for c in citations):
        return []
    asked = {t for t in terms(query) if not t.isdigit()}
    meaning = citations[0].locator.meaning_score
    if not asked or len(asked) > PLAIN_WORDS or meaning is None or meaning >= PLAIN_MEANING \
            or not same_script(query, _passage(citations[0])):
        return []
    lib = library()
    if lib is None or lib.files < LIBRARY_FILES:
        return []
    held = [asked & (passage_words(_passage(c)) | _name_terms(c)) for c in citations]
    # at most the weight of a word one file holds: below about 30 files PLAIN_IDF is more than that (nc29a: 'hire',
    # in one file of 13, was called common); the library of 46 it was measured on is above it, its flags unchanged
    bar = min(PLAIN_IDF, lib.held_idf(_NO_TERM))
    if any(sum(lib.held_idf(t) for t in h) >= bar for h in held):
        return []
    return sorted(set().union(*held))


#: No word: its ``held_idf`` is the weight of a word a single file holds.
_NO_TERM = ""


def _saying_nothing(citations: list[Citation], parts: list[dict[str, float]], query: str) -> list[str]:
    """The query's words (numbers aside) the passages found hold, when they say nothing of what it asks, else []:
    every one is a common word ("best exercises for lower back pain" over a passage holding "back"), or the query
    is Chinese, ONE of its words is held and the first place is not close in meaning (cosine < ``ZH_MEANING``:
    "足球比赛越位规则是什么" over a passage holding 规则). A verbatim phrase or a file the query names says
    something whatever its words are."""
    from mnote_kr.citations.rank.neutral import han_share

    if names_its_answer(parts):
        return []
    asked = {t for t in terms(query) if not t.isdigit()}
    held = sorted({t for c in citations for t in asked & (passage_words(_passage(c)) | _name_terms(c))})
    if held and set(held) <= COMMON_WORDS:
        return held
    meaning = citations[0].locator.meaning_score
    far = meaning is not None and meaning < ZH_MEANING
    return held if len(held) == 1 and far and han_share(query) >= 0.5 else []


#: ``_only_around`` is on: words a passage holds clear a search only when some place cited holds one, or the first
#: place is close in meaning (``ZH_MEANING``).
PLACES_HOLD = True


def _only_around(citations: list[Citation], parts: list[dict[str, float]], query: str) -> list[str]:
    """The query's words (numbers aside) the passages found hold, when no place cited holds any (``_place_text``: the
    quote a card shows, its headers and headings), the first place is in the query's script and not close to it in
    meaning (cosine known and below ``ZH_MEANING``), and no verbatim phrase or named file matched; else []. The
    passages are the provider's chunks, around the places: "chocolate cake baking temperature" first placed on a
    table row ("Cathedral Peak 2 0.83 ...") and elsewhere on rows whose chunks hold "temperature" (nc22b)."""

    if not PLACES_HOLD or names_its_answer(parts):
        return []
    first = citations[0]
    meaning = first.locator.meaning_score
    if meaning is None or meaning >= ZH_MEANING or not same_script(query, _passage(first)):
        return []
    asked = {t for t in terms(query) if not t.isdigit()}
    if any(asked & (passage_words(_place_text(c)) | _name_terms(c)) for c in citations):
        return []
    return sorted({t for c in citations for t in asked & passage_words(_passage(c))})


def said_across(query: str, citations: list[Citation]) -> list[str]:
    """The query's Chinese words the first place says in English (``crossmods.held_words``, through the dictionary's
    synonyms), when they are enough to say it answers, else []: the query is mostly Han, that place's passage is not,
    and it says two of the words, or one with its cosine at least ``ZH_MEANING`` (a cross-language cosine of a right
    answer sits no higher than a same-language one). A dictionary-less install says none.

    The other way too: an English query (Han share at most 0.2) whose first place is mostly Han, by the same count, its
    words being its Latin words the ranking reads (not its stop words, nor ``COMMON_WORDS``: "day") that one of the
    place's Chinese words says (``crossmods.said_in_chinese``; "Why wouldn't the dad go and fetch his son on the day
    of the downpour?" over a page holding 爸爸 and 儿子; a British "organisation" read as CC-CEDICT's "organization").
    On the twenty-first round's dump (``benchmarks/weak_variants.py``) it cleared that question (t4_en02, the right
    page first) and no off-topic tuning query (only two English ones have a Chinese first place there)."""
    from mnote_kr.citations.rank.neutral import han_share
    from mnote_kr.citations.text.crossmods import held_words, naming_words, said_in_chinese

    first = citations[0] if citations else None
    if first is None:
        return []
    passage = _passage(first)
    mine = han_share(query)
    if mine <= 0.2 and han_share(passage) >= 0.5:
        said = said_in_chinese(_english_words(query), passage)
    elif mine >= 0.5 and han_share(passage) < 0.2:
        said = held_words(query, set(_LATIN_WORD.findall(passage.lower())))
        if HEADER_NAMED:
            said = list(dict.fromkeys([*said, *(w for h in first.locator.headers for w in naming_words(query, h))]))
    else:
        return []
    meaning = first.locator.meaning_score
    close = meaning is not None and meaning >= ZH_MEANING
    return said if len(said) >= 2 or (said and close) else []


_LATIN_WORD = re.compile(r"[a-z0-9]+")
#: ``said_across`` counts the Chinese words naming a header of the first place wholly (``crossmods.naming_words``:
#: 淡水 and 鸭 name "Freshwater Ducks", the column of the cell cited), one character long or more: "淡水鸭数量最多的是
#: 哪一年？" on B10:C10 ("2024, Freshwater Ducks: 180", cosine 0.61) was said weak with 淡水 alone (nc22b).
HEADER_NAMED = True


def _english_words(query: str) -> list[str]:
    """The query's Latin words, lower case, each once, that say what it asks: a term the ranking reads (no stop word,
    no number) and not a ``COMMON_WORDS`` one."""
    return [w for w in dict.fromkeys(re.findall(r"[a-z]+", query.lower()))
            if (stems := set(terms(w))) and not stems <= COMMON_WORDS]


def _numbers_only(asked: set[str], citations: list[Citation]) -> bool:
    """The query holds a number and other words (``asked``), and no passage found (nor its file's name) holds any of
    those words: "2022年世界杯冠军是哪个国家", "population of Tokyo in 2020" over a library whose passages
    hold the year. A year or an amount alone says nothing of the topic (``benchmarks/relevance_floor.py``,
    ``offtopic_numbers.json``: 3 -> 10 of 16 said weak, the other sets unchanged but one labelled question)."""
    words = {t for t in asked if not t.isdigit()}
    if not words or words == asked:
        return False
    return not any(words & (passage_words(_passage(c)) | _name_terms(c)) for c in citations)


def _cited_where_named(query: str, citations: list[Citation]) -> bool:
    """A citation is on a slide, page or sheet the query names (``naming``: a deck's slide named as a page too),
    and not approximately there."""
    places = named_places(query) if query else []
    return any(not (c.locator_degraded or c.locator.locator_degraded)
               and naming(places, slide=c.locator.slide, page=c.locator.page, sheet=c.locator.sheet)
               for c in (citations if places else ()))


def _across_scripts(query: str, citations: list[Citation], *, shown: bool = False) -> bool:
    """The query is mostly Han characters and no passage is, or mostly in another script (Latin, Cyrillic, Arabic,
    Hangul ...) and every passage in another script than its own (``weakacross.apart``: a Chinese, Russian or Persian
    passage under an English query). The passages are the chunks the words were matched in; ``shown``, the quotes the
    cards show (a Chinese chunk's Latin line "FreeBSD, OpenBSD, NetBSD" is a Latin passage to the person reading the
    reason)."""
    from mnote_kr.citations.rank.neutral import han_share

    mine = han_share(query)
    texts = ((c.display_quote if shown else None) or c.raw_quote or c.context_quote or c.display_quote or ""
             for c in citations)
    if mine >= 0.5:
        return all(han_share(t) < 0.2 for t in texts)  # stops at the first passage in the query's script
    if mine > 0.2 or not any(ch.isalpha() for ch in query):
        return False
    script = query_script(query)
    return all(han_share(t) >= 0.5 or apart(script, t) for t in texts)


def why_no_results(reg: Registry, dropped: dict[str, int], scoped: bool,
                   absent: Sequence[str] = (), held: dict[str, Any] | None = None) -> dict[str, Any]:
    """Why a search has no citation: ``{"reason": code, "message": one line with what to do}``.

    Codes: ``nothing_ingested``, ``still_indexing``, ``only_unusable_sources`` (the provider
    found passages, but only in stale, changed, deleted or out-of-scope sources),
    ``scope_not_found`` (every file or folder searched is neither on disk nor in the index:
    ``absent``, a mistyped path, whose fix is the path, not a wider folder), ``no_match``. ``held``: the search's
    ``heldWords`` (``map.heldwords``), which says whether a wider search would find the query's words (``_wider``).
    """
    counts = reg.counts()  # from the registry's columns (a stale entry counts as "stale"): nothing decoded
    live = counts.get("processed", 0)
    waiting = sum(counts.get(s, 0) for s in ("pending", "submitted", "processing"))
    if not reg.entries:
        return {"reason": "nothing_ingested",
                "message": "nothing is ingested yet; add files with 'mnote-kr ingest FOLDER'"}
    if scoped and absent:
        names = ", ".join(absent[:3]) + (f" and {len(absent) - 3} more" if len(absent) > 3 else "")
        return {"reason": "scope_not_found",
                "message": f"nothing was searched: no such file or folder: {names}; check the path "
                           "(relative to the workspace; 'mnote-kr status' counts what is indexed)"}
    # (a duplicate is cited once; a passage without a whole word, page furniture, is no match)
    unusable = {k: v for k, v in dropped.items() if k not in ("duplicate", "noWords") and v}
    if not live and waiting and not unusable:  # (passages of a file being indexed are cited)
        return {"reason": "still_indexing",
                "message": f"still indexing: {waiting} file(s) waiting; "
                           "'mnote-kr sync --wait 60' follows them, then search again"}
    if unusable:
        parts = []
        if unusable.get("outOfScope"):
            # Not "--scope": this line is also HTTP's and MCP's (sourcePaths) and the web page's (a folder).
            parts.append(f"{unusable['outOfScope']} outside the files and folders searched")
        stale = sum(unusable.get(k, 0) for k in ("notLive", "missingOnDisk", "changedOnDisk"))
        if stale:
            parts.append(f"{stale} in files changed, moved or deleted since indexing")
        if unusable.get("excludedByRoot"):
            parts.append(f"{unusable['excludedByRoot']} in files their root's --exclude now leaves out")
        if unusable.get("unmapped"):
            # Files sent without --wait are recorded as indexed only when followed (sync, watch).
            parts.append(f"{unusable['unmapped']} in documents not recorded as indexed yet, with {waiting} "
                         "file(s) sent and not followed" if waiting else
                         f"{unusable['unmapped']} in LightRAG documents no file of this workspace maps to")
        # The fix that fits each cause, in the order the causes are listed.
        fixes = []
        if scoped and unusable.get("outOfScope"):
            fixes.append(_wider(held))
        elif held and held.get("note"):
            fixes.append(str(held["note"]))
        if stale:
            # (sync and watch leave a changed file stale only in a root added with --no-follow)
            fixes.append("'mnote-kr ingest FILE' re-indexes a changed file")
        if unusable.get("excludedByRoot"):
            fixes.append("'mnote-kr sync' drops them from the index")
        if unusable.get("unmapped"):
            fixes.append("'mnote-kr sync --wait 60' records what LightRAG has indexed, then search again" if waiting
                         else "'mnote-kr status' counts them under Unmapped")
        return {"reason": "only_unusable_sources",
                "message": f"passages were found only in sources that cannot be cited ({'; '.join(parts)}); "
                           + "; ".join(dict.fromkeys(fixes))}
    extra = f"; {waiting} file(s) are still being indexed" if waiting else ""
    if held and held.get("note"):
        return {"reason": "no_match", "message": f"no passage returned matched the query{extra}; {held['note']}"}
    return {"reason": "no_match", "message": f"nothing in the indexed files matched the query{extra}; try other words"}


WIDER = "search a wider folder or the whole workspace"


def _wider(held: dict[str, Any] | None) -> str:
    """What to do when the passages found are all outside the files searched: a wider search, unless the words the
    library holds (``held``: ``heldWords``) say it would find no more of the query than this one. nc26b scoped
    "A software module for extracting text from binary files" to the file holding it and was sent to the whole
    workspace, which missed it too."""
    if held is None:
        return WIDER
    if held.get("note"):  # a file LightRAG returned no passage of holds them: its locate command
        return str(held["note"])
    if outside := held.get("outside"):  # (a passage of it was returned: searching it cites that)
        return (f"{outside[0]}, not among the files searched, holds every word of the query: search it or the whole "
                "workspace")
    if not held.get("scopeCounted") or held.get("elsewhere"):
        return WIDER
    return ("neither the files searched nor any other file holds every word of the query, nor does any passage found "
            "outside them: a wider search finds no more of it; try other words")


def more_left_behind(diagnostics: dict[str, Any]) -> str | None:
    """The line that counts the files left behind beyond those ``notIndexed`` names, or None."""
    behind = diagnostics.get("leftBehind") or {}
    more = behind.get("count", 0) - behind.get("shown", 0)
    if more <= 0:
        return None
    return (f"{more} more file(s) in roots added with --no-follow are not indexed; "
            "'mnote-kr status --json' lists them all")


def more_skipped(diagnostics: dict[str, Any]) -> str | None:
    """The line that counts the files passed over for their type beyond those ``notIndexed`` names, or None."""
    skipped = diagnostics.get("skipped") or {}
    more = skipped.get("count", 0) - skipped.get("shown", 0)
    if more <= 0:
        return None
    return (f"{more} more file(s) of types no provider indexes are not indexed; "
            "'mnote-kr status --json' lists the first 50")
