"""More of the weak rule (``noresults.weak_reason``): a Latin query cleared by a few of its words in a Latin place while
the search also found a file in another script, which words cannot judge.

An English question over a library holding English files and a Russian, Arabic, Chinese or Japanese one is cleared by
any word of it an English passage holds: "No later than how many days after signing must the work be finished?"
cited a visa form's "Sign and date each form" first, unflagged, while the Russian contract's "не позднее 65 ...
календарных дней", closer in meaning, came second (this round's probe P4; nc27c N2 and "Extra" are the same kind).
A passage in another script holds none of an English question's words whether it answers or not, so a thin word
match in the query's own script is no sign that the first place answers.

:func:`across_reason` says the search is uncertain when all of these hold: the query is written in Latin letters
(``LATIN_QUERY``), the first place is too (``LATIN_PLACE``), the passages found of its file hold at most half the
query's words (numbers aside; ``FILE_WORDS``), and another file's place found is written in another script
(``OTHER_SCRIPT``: Cyrillic, Arabic, Han, kana, Hangul ...) and either at least as close to the query in meaning as
the first place (``CLOSER``), or within ``ABSENT_NEAR`` of it while a word of the query is in no passage found and no
file of the library (a word the other script may say). A verbatim phrase or a file the query names clears it.
Replayed on round 26's floor dump (docs/embeddings.md, "An English question over a file in another script"): off-topic
tuning queries said weak 39 -> 41 of 55 and 10 -> 11 of 16 with numbers; five English questions of tune4 over Chinese
files whose first card is an unrelated English file flagged; no labelled question whose right file is first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import PurePath
from typing import TYPE_CHECKING

from mnote_kr.citations.rank.ranking import terms
from mnote_kr.citations.render.typedwords import as_typed, said
from mnote_kr.citations.render.weakmore import name_terms, names_its_answer, passage
from mnote_kr.citations.render.weakwords import passage_words

if TYPE_CHECKING:
    from mnote_kr.citations.caches.libwords import LibraryWords
    from mnote_kr.models import Citation

#: The first place is thin when the passages found of its file (True) hold at most half the query's words, or (False)
#: its place alone does (measured, not kept: it also flagged a right answer of tune3, t3_en01).
FILE_WORDS = True
#: ``across_reason`` is on (``benchmarks/weak_variants.py`` replays the rule with it off).
ACROSS_SCRIPT = True
#: A query is written in Latin letters when at least this share of its letters is Latin.
LATIN_QUERY = 0.9
#: The first place is in the query's script when at least this share of its passage's letters is Latin.
LATIN_PLACE = 0.5
#: A place is written in another script when at most this share of its passage's letters is Latin.
OTHER_SCRIPT = 0.3
#: The other script's place is as close in meaning when its cosine is at least the first place's less this.
CLOSER = 0.0
#: With a word of the query in no file of the library, the other script's place counts within this of the first's
#: cosine (None: that clause off).
ABSENT_NEAR: float | None = 0.04


def latin_share(text: str) -> float:
    """The share of Latin letters among the letters of ``text`` (0 without letters). Unlike ``neutral.han_share`` it
    reads every script: Cyrillic, Arabic, Hangul and kana are no Latin letters either. Two regex scans, O(len)."""
    letters = len(_LETTER.findall(text))
    return len(_LATIN_LETTER.findall(text)) / letters if letters else 0.0


_LETTER = re.compile(r"[^\W\d_]")
#: Basic Latin, Latin-1 (less × and ÷), Latin Extended-A/B, IPA and Latin Extended Additional; fullwidth Latin.
_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02af\u1e00-\u1eff\uff21-\uff3a\uff41-\uff5a]")


def across_reason(citations: list[Citation], query: str,
                  library: Callable[[], LibraryWords | None] | None = None) -> str | None:
    """Why a search its words cleared is uncertain (module docstring), or None. Each distinct passage is read once
    (the places of one chunk share it), the first file's for its words, the others for their script."""
    if not ACROSS_SCRIPT or not citations or names_its_answer(c.diagnostics.score_parts for c in citations):
        return None
    first = citations[0]
    mine, home = first.locator.meaning_score, first.source_root_relative_path
    if mine is None or latin_share(query) < LATIN_QUERY or latin_share(passage(first)) < LATIN_PLACE:
        return None
    asked = {t for t in terms(query) if not t.isdigit()}
    if FILE_WORDS:
        thin = _held(asked, (c for c in citations if c.source_root_relative_path == home))
    else:
        thin = asked & (passage_words(place_text(first)) | name_terms(first))
    if not asked or 2 * len(thin) > len(asked):
        return None
    shares: dict[str, float] = {}
    others: dict[str, float] = {}
    for c in citations:
        cos, path = c.locator.meaning_score, c.source_root_relative_path
        if cos is None or path == home or cos <= others.get(path, -1.0):
            continue
        text = passage(c)
        if text not in shares:
            shares[text] = latin_share(text)
        if shares[text] <= OTHER_SCRIPT:
            others[path] = cos
    if not others:
        return None
    path, best = max(others.items(), key=lambda kv: kv[1])
    name, what = PurePath(path).name, _holds_words(thin, asked, query)
    if best >= mine - CLOSER:
        return (f"the first file found holds {what}, and {name}, written in another script in which the query's words "
                "cannot be matched, is as close to it in meaning" + UNCLEAR)
    lib = library() if library is not None and ABSENT_NEAR is not None and best >= mine - ABSENT_NEAR else None
    if lib is None:
        return None
    found = _held(asked, citations)
    absent = sorted(t for t in asked - found if not lib.df.get(t))
    if not absent:
        return None
    verb = "is" if len(absent) == 1 else "are"
    return (f"the first file found holds {what}; {_listed(as_typed(absent, query))} {verb} in no file "
            f"of this library; and {name}, written in another script (which may say them in its own words), is nearly "
            "as close to it in meaning" + UNCLEAR)


def _holds_words(thin: set[str], asked: set[str], query: str) -> str:
    """What the first file holds of the query, in words: "none of the query's words", "only 2 of the query's 5 words
    (days, work)" (nc29a read "at most half the query's words (none)")."""
    if not thin:
        return "none of the query's words"
    return f"only {len(thin)} of the query's {len(asked)} words ({said(sorted(thin), query)})"


def _listed(words: list[str]) -> str:
    """Quoted words as a list: 'a', 'a' and 'b', 'a', 'b' and 'c'."""
    quoted = [f"'{w}'" for w in words]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def _held(asked: set[str], citations: Iterable[Citation]) -> set[str]:
    """The words of ``asked`` these citations' passages (each distinct one read once) or file names hold."""
    held: set[str] = set()
    texts: set[str] = set()
    for c in citations:
        held |= asked & name_terms(c)
        if (text := passage(c)) not in texts:
            texts.add(text)
            held |= asked & passage_words(text)
    return held


#: How ``across_reason``'s reasons end (``agents.tools.weak_note`` reads it: the agent is to read both places).
UNCLEAR = ": it is not clear that the first answers; check that file's place too"


def place_text(c: Citation) -> str:
    """What a citation's place holds, as the card shows it: its quote, and the headers, row label and headings the
    locator read there (``noresults._only_around`` reads it too)."""
    from mnote_kr.citations.cleaning.copyable import join_cjk_gaps

    loc = c.locator
    return join_cjk_gaps("\n".join(x for x in (c.display_quote, loc.quote, loc.place_text, *loc.headers, loc.row_label,
                                                *(loc.place_headings or ())) if x))
