"""The words a passage holds as the weak rule reads them (``noresults.weak_reason``, ``weakmore``, ``weakabsent``):
its terms (``ranking.terms``: stemmed Latin words, CJK bigrams), and the words it holds inside compounds of its own.

A query's word is held by a passage writing it inside a compound: after a prefix that leaves the word's meaning
("Apache Tika is a subproject of the Lucene project" holds "project" of "What does the Apache project called Tika
do?": nc27a Q4, flagged weak as holding none of the query's other words), with its parts hyphenated ("e-mail" holds
"email"), or a short word with its plural "s" ("maps" holds "map", which the stemmer leaves: it stems words of five
letters or more). Prefixes that make another word of it ("re-cover", "dis-cover", "de-tail", "inter-view",
"under-stand") are not read: a passage holding "recover" does not hold "cover".
"""

from __future__ import annotations

import functools
import re

from mnote_kr.citations.rank.ranking import _stem, fold, terms

#: Prefixes after which a word keeps its meaning (a subproject is a project, a co-author an author).
PREFIXES = ("counter", "pseudo", "hyper", "macro", "micro", "multi", "super", "ultra", "anti", "meta", "mini", "post",
            "self", "semi", "mid", "non", "sub", "co")
#: The fewest letters of the word after the prefix ("subproject": "project"): shorter ones are as often another
#: word's end ("co-ward", "micro-soft", "mid-wife").
PREFIXED_LEAST = 5
#: The most letters of a word whose plural "s" the stemmer leaves on (``ranking._stem`` stems from five).
SHORT_PLURAL = 4
_LATIN_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@functools.lru_cache(maxsize=2048)  # a search's rules read the same few passages several times
def passage_words(text: str) -> frozenset[str]:
    """``terms(text)``, and the words ``text`` holds inside its compounds (see the module's docstring)."""
    out = set(terms(text))
    for m in _LATIN_WORD.finditer(fold(text)):
        word = m.group()
        if "-" in word:
            out.add(_stem(word.replace("-", "")))  # "e-mail": email
            continue
        if 3 <= len(word) <= SHORT_PLURAL and word.isalpha():
            out.add(word[:-1] if word.endswith("s") else word + "s")  # "maps": map; "map": maps
        for prefix in PREFIXES:
            if word.startswith(prefix) and len(word) - len(prefix) >= PREFIXED_LEAST:
                if len(rest := _stem(word[len(prefix):])) >= PREFIXED_LEAST:
                    out.add(rest)
                break
    return frozenset(out)
