"""The page a query names ("what is on page 3 of the report", "p. 12", "第2页"): the box goes there.

The provider's passage often runs over pages; when the query names pages the PDF has (the host's
``named_places``) and the block ``answer.choose`` picked is on none of them, the block is chosen
again among the places already considered that are on the named pages (the passage's blocks, then
those behind it), else among every block of those pages (the passage does not reach them: "what does
section 7 say on p. 3" over a passage of page 2), by the query's other words (the block holding most of
them, however few: approximate under ``answer.MIN_SHARE`` of their weight, a Chinese word of the query over a PDF
without Chinese counting as one it lacks, ``answer.weighed``); without them, the block the passage covers most
there, else the page's first. The
block picked first stands first behind it. A page the PDF does not have, or one without text blocks,
leaves the answer as it was; so do named pages the passage does not reach that hold none of the query's
other words while the PDF holds some elsewhere ("page 3 on WordPerfect" where page 2 has it).

A query asking for nothing the PDF holds besides the page ("what does page 3 say", "第3页讲了什么": "say", "讲了"
are in none of its blocks), and no Latin word of content the PDF lacks ("the Q3 value on page 2" asks for Q3,
which another file may hold: ``asked_of_place``), has asked for the page: the block chosen there by meaning is
that page's place, not an approximate one (rule "named", none of its other words to hold), whether the
passage's own place was on it already or moved there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from mnote_kr.plugin_api import asked_of_place, named_places, rank_by_meaning, without_places

from .answer import Answer, _narrow, choose, weighed
from .blocks import _CJK_RUN, content_terms, doc_terms, places
from .pdftext import DocumentText


def choosing_words(query: str) -> str:
    """The query's words that choose a block: without the places it names ("what does page 3 say about X":
    "what does say about X"), so a page named that the passage is not on chooses as if none were named."""
    return without_places(query) if named_places(query) else query


def named_pages(doc: DocumentText, query: str) -> list[int]:
    """The PDF's pages (1-based) the query names, in the order it names them."""
    out: list[int] = []
    for place in named_places(query):
        if place.kind == "page":
            out += [n for n in place.numbered(len(doc.pages)) if n not in out]
    return out


def at_named_page(doc: DocumentText, counts: Mapping[tuple[int, int], Any], ans: Answer,
                  query: str) -> tuple[Answer, list[int]]:
    """``ans`` moved to a block on the pages the query names, with the block it held first behind it, and
    those pages; ``(ans, [])`` unchanged when the query names none of the PDF's pages, ``ans`` is on one,
    or (no place considered, ``counts``: the passage's blocks, ``ans.runners_up``, being on one) the named
    pages hold none of the query's other words the PDF holds. A block
    chosen without the query's other words has ``rule`` "named", as ``terms`` those of its other
    words the PDF holds (none: nothing else was asked for), and as ``found`` those of them the block holds."""
    pages = named_pages(doc, query)
    if not pages:
        return ans, []
    if ans.block is not None and ans.block[0] + 1 in pages:
        asked = _only_the_page(doc, ans, query)
        return (_whole_page(doc, asked, query), pages) if asked is not ans else (ans, [])
    reached = [b for b in counts if b[0] + 1 in pages]
    reached += [b for b, _ in ans.runners_up if b[0] + 1 in pages and b not in reached]
    # the passage does not reach the named pages: their blocks, every one (running heads are in none)
    cands = reached or [(n - 1, bi) for n in pages for bi, blk in enumerate(doc.pages[n - 1].blocks) if blk]
    if not cands:
        return ans, []
    rest = without_places(query)
    dt = doc_terms(doc)
    terms, weight = weighed(dt, rest, content_terms(rest))  # a Chinese word over an English PDF is asked too

    def held(b: tuple[int, int]) -> float:
        return sum(w for t, w in weight.items() if t in dt.block(b).terms)

    if not reached and dt.df.keys() & terms.keys() and not any(held(b) for b in cands):
        return ans, []  # the query's other words are in the PDF, none on the named pages: the passage answers
    there = choose(doc, cands, rest)
    if there.block is None:  # no block holds enough of the other words: the one holding most, else the
        # block the passage covers most there, else the page's first
        b = max(cands, key=lambda b: (held(b), getattr(counts.get(b), "count", 0), -b[0], -b[1]))
        # approximate when the query's other words are in the PDF but none of them in this block
        # (and a Chinese word over a PDF with none, and a Latin word it lacks asked of the page: ``asked_of_place``,
        # "the Q3 value on page 2")
        known = asked_of_place(terms.keys(), dt.df.keys(), rest) | {
            t for t in terms if not dt.holds_cjk() and _CJK_RUN.search(t)}
        top = max(weight.values(), default=1.0)  # a word the PDF lacks is as rare as its rarest
        share = sum(weight.get(t, top) for t in known if t in dt.block(b).terms) / (
            sum(weight.get(t, top) for t in known) or 1.0)
        there = Answer(b, "named", share, len(known & dt.block(b).terms.keys()), len(known), _narrow(doc, b, []))
    there = _only_the_page(doc, there, query)
    behind: list[tuple[tuple[int, int], float | None]] = [(ans.block, ans.meaning)] if ans.block is not None else []
    runners = behind + [r for r in there.runners_up if r[0] != ans.block]
    return _whole_page(doc, dataclasses.replace(there, runners_up=runners), query), pages


def _whole_page(doc: DocumentText, ans: Answer, query: str) -> Answer:
    """For a query asking for the page whole (rule "named", none of its other words to hold): the page's longest
    text block (most characters; a table's row after prose) stands for it, the block chosen before first behind it.
    A block chosen there by meaning stood for the page before: nc25a's "请问第二页讲了什么内容" boxed page 2's one-line
    "An excellent introduction into CNNs is given by [Nie15]." The locator's reason says the block stands for the
    page; it stays the page's exact place, as a block chosen there did (the host's ranking counts it as the page)."""
    if ans.block is None or ans.rule != "named" or ans.terms:
        return ans
    pi = ans.block[0]
    page = doc.pages[pi]
    best = max(range(len(page.blocks)), default=None, key=lambda bi: (
        bi not in page.table_rows, sum(len(page.order[li]) for li in page.blocks[bi] if li < len(page.order)), -bi))
    if best is None or best == ans.block[1] or not page.blocks[best]:
        return ans
    runners = [(ans.block, ans.meaning), *(r for r in ans.runners_up if r[0] not in (ans.block, (pi, best)))]
    return dataclasses.replace(ans, block=(pi, best), lines=_narrow(doc, (pi, best), []), runners_up=runners,
                               meaning=_cosine(doc, (pi, best), query) if ans.meaning is not None else None)


def _cosine(doc: DocumentText, b: tuple[int, int], query: str) -> float | None:
    """Block ``b``'s cosine with the query (the host orders a file's places by it); None without vectors."""
    key, starts = places(doc)
    ranked = rank_by_meaning(key, query, {starts[b[0]] + b[1]: 1.0})
    return None if ranked is None else ranked[1].get(starts[b[0]] + b[1])


def _only_the_page(doc: DocumentText, ans: Answer, query: str) -> Answer:
    """``ans`` (a block on a named page) as the page's place, rule "named" with no other word to hold, when it
    was chosen by meaning and the query's other words are none the PDF holds; else ``ans`` itself."""
    if ans.block is None or ans.rule != "meaning":
        return ans
    rest = without_places(query)
    if asked_of_place(content_terms(rest).keys(), doc_terms(doc).df.keys(), rest):
        return ans
    return dataclasses.replace(ans, rule="named", found=0, terms=0)
