"""More of the weak rule (``noresults.weak_reason``): the cards shown all say of themselves that they do not answer,
and a name the query asks about that no file holds.

Kept apart from ``noresults`` and ``weakmore`` for their size. ``noresults`` asks :func:`declined` after every
other rule (the locator's own word on each card shown overrides what words and scripts suggest), and
:func:`absent_reason` (:func:`name_absent`) after ``weakmore``'s library rules. Measured on the
twenty-third round's dump (``benchmarks/weak_variants.py --library``; docs/embeddings.md, "Issue 33, twenty-fourth
round").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mnote_kr.citations.rank.ranking import terms
from mnote_kr.citations.render.typedwords import said
from mnote_kr.citations.render.weakacross import apart, query_script
from mnote_kr.citations.render.weakmore import (
    _NOTHING,
    SMALL_FILES,
    name_terms,
    names_its_answer,
    passage,
    query_names,
)
from mnote_kr.citations.render.weakwords import passage_words

if TYPE_CHECKING:
    from mnote_kr.citations.caches.libwords import LibraryWords
    from mnote_kr.models import Citation

#: What a locator's reason says when its place only names the document's subject, the locator's own judgement that
#: the place does not answer (``locate.placing``: a title line, a heading of the question's setting words;
#: ``locate.subject``: a place holding only the title's words).
DECLINING = ("it names the subject, it does not answer", "naming the document's subject")

#: ``declined`` is on (``benchmarks/weak_variants.py`` replays the rule with it off).
DECLINED = True


def declines(c: Citation) -> bool:
    """The citation's locator says its place only names the subject of its document (``DECLINING``)."""
    reason = c.locator.reason or ""
    return any(m in reason for m in DECLINING)


def shown_cards(citations: list[Citation]) -> list[Citation]:
    """The cards a reader gets whole from these places: the first place of each file, in order (``folding``: one card
    per file, its best place first), those ``strength.by_strength`` keeps whole."""
    from mnote_kr.citations.render.strength import by_strength

    seen: set[str] = set()
    cards = []
    for c in citations:
        if c.source_root_relative_path not in seen:
            seen.add(c.source_root_relative_path)
            cards.append(c)
    return by_strength(cards)[0]


def declined(citations: list[Citation]) -> bool:
    """Every card shown whole says of its place that it only names the subject of its document, not what the query
    asks (``declines``), and no verbatim phrase or file the query names matched. "Which safety factors does a periodic
    safety review of a nuclear plant cover?" over Chinese standards: three cards on the term line "定期安全评价
    periodic safety review", each saying "it holds only the words naming the document's subject (its title's), not
    what the question asks" (nc24a Q10); the flag and the cards' reasons are then one judgement."""
    if not DECLINED or not citations or names_its_answer(c.diagnostics.score_parts for c in citations):
        return False
    shown = shown_cards(citations)
    return bool(shown) and all(declines(c) for c in shown)


#: ``absent_reason`` reads ``name_absent`` (the benchmark replays the rule with it off). A Chinese query half of whose
#: dictionary words (``cjkwords.query_words``) no passage and no file holds ("家用汽车年检要评价哪些安全要素？" over
#: nuclear safety standards: 家用, 汽车, 年检; nc24a Q14) was measured and not kept: on the twenty-third round's dump
#: it caught 6 more off-topic queries (2 of 55, 2 of 16 with numbers, 2 of 12 in the library's words) and called 32
#: labelled tuning questions weak (heldout +6, tune3 +5, tables +3, tune4 +9, tune5 +9): Chinese questions asked in
#: their own words over English files and Chinese ones written otherwise (t4_zh01's 化验, 消遣).
ABSENT = True


def absent_reason(citations: list[Citation], query: str,
                  library: Callable[[], LibraryWords | None] | None) -> str | None:
    """Why a search its words cleared is weak by ``name_absent``, or None (``noresults``
    asks after ``weakmore.more_reason``)."""
    if not ABSENT or library is None:
        return None
    if names := name_absent(citations, query, library):
        return f"the query asks about {said(names, query)}, which no file of this library holds" + _NOTHING
    return None


def name_absent(citations: list[Citation], query: str, library: Callable[[], LibraryWords | None]) -> list[str]:
    """The names the query writes (``weakmore.query_names``: "TableFormer", "Kubernetes") that no passage found, no file
    name found and no file of the library holds, else []: for a mostly Latin query whose first place is Latin, not
    cleared by a verbatim phrase or a file it names, in a library of ``weakmore.SMALL_FILES`` counted files or more.
    "TableFormer table structure recognition transformer" over handbook notes and two PDFs, cleared by "recognition"
    in one note and "data structures (e.g., hash tables)" in tracemonkey.pdf (nc24b problem 2): what it asks about is
    nowhere in the library. A right answer's passage names what it asks about."""
    from mnote_kr.citations.rank.neutral import han_share

    script = query_script(query)
    if not citations or han_share(query) > 0.2 or any(han_share(passage(c)) > 0.2 or apart(script, passage(c))
                                                      for c in citations) \
            or names_its_answer(c.diagnostics.score_parts for c in citations):
        return []  # a Chinese or Russian passage may write the name its own way (Feida as 飞达)
    names = {t for t in query_names(query) if not t.isdigit()}
    if not names:
        return []
    held = set().union(*(passage_words(passage(c)) | name_terms(c) for c in citations))
    lower = "\n".join(passage(c).lower() for c in citations)
    names = {t for t in names - held if t not in lower}  # a name inside a word of a passage is held (OCR glues)
    if not names:
        return []
    lib = library()
    if lib is None or lib.files < SMALL_FILES:
        return []
    return sorted(t for t in names if not lib.df.get(t))


#: ``held_reason`` is on (``benchmarks/weak_variants.py`` may replay the rule with it off).
HELD = True


def held_reason(citations: list[Citation], query: str, held: dict[str, Any] | None, weak: str | None) -> str | None:
    """The weak reason of a search when files of the library hold every word of the query and no passage found does
    (``map.heldwords``: ``held``, the search's ``heldWords``), else ``weak`` (the weak rule's reason, or None).

    The file holding the query's every word, which LightRAG returned no passage of and the search does not cite, is
    named with the command that finds the place in it (``held["note"]``): a search the weak rule calls weak does not
    say "nothing in your files clearly answers it" when a file holds every word, and a phrase (no question: its words
    are the file's own words, not a question's) whose first card's quote holds none of its words is weak, not an
    answer held up by the provider's order alone: nc26b Q10, "A software module for extracting text from binary
    files", had a card of ``pdfjs__tracemonkey.pdf`` first, 0 of the query's 6 content terms, not weak, while
    ``poi__endnotes.docx`` holds it as written."""
    from mnote_kr.citations.text.latinwords import is_question

    if not HELD or not citations or held is None or not held.get("note"):
        return weak
    first = citations[0]
    if weak is None and (is_question(query) or set(terms(first.display_quote or first.raw_quote or ""))
                         & set(held.get("terms", ()))):
        return None
    return ("no passage found holds every word of the query, and the passages shown are only the nearest by meaning; "
            f"{held['note']}")
