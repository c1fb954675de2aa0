"""The passage's blocks beside the evidence window that hold as much of the query's words as it does.

The host sends the locator a window of LightRAG's chunk around the query's words (``LocateRequest.evidence``)
and the whole chunk (``passage``). The window can end before the paragraph that answers while the one it holds
has the same words: "OTSL 在 PubTables-1M 这样更大的数据集上相比 HTML 有什么优势？" held a window over §5.2's first
paragraph ("…PubTables-1M (about 1M samples)… OTSL outperforms HTML…"), and the next, "Additionally… OTSL has an
advantage over HTML when applied on a bigger data set like PubTables-1M", was left out although it holds the
same terms and is nearer the question by meaning (nc18a). Such a block of the passage, holding every query term
the window's best holds and as much of their weight, is a candidate beside the window's (``answer.WORD_PEERS``);
a block holding other words ("reader", "top" for "BM25") is not (the whole passage's blocks as candidates,
``locator.PASSAGE_BLOCKS``, lost first places on the tuning sets), and a window holding the query as written
keeps its own blocks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from mnote_kr.plugin_api import query_occurrences

from . import answer, blocks
from .pdftext import DocumentText

T = TypeVar("T")


def with_peers(doc: DocumentText, own: dict[tuple[int, int], T], passage: Callable[[], dict[tuple[int, int], T]],
               query: str) -> dict[tuple[int, int], T]:
    """``own`` (the window's blocks) and the blocks of ``passage()`` (the window's and the rest of the chunk's,
    read only when needed) holding every query term the best of ``own`` holds and at least its share of the
    query's term weight, when that one holds ``answer.MIN_SHARE`` of it (a block chosen by words); ``own``
    itself otherwise."""
    if not answer.WORD_PEERS or not own:
        return own
    share, top = max((answer.holds_terms(doc, b, query)[0], b) for b in own)
    if share < answer.MIN_SHARE:
        return own
    q = " ".join(blocks.fold(query).split())
    dt = blocks.doc_terms(doc)
    if len(q) >= 3 and any(w >= 1.0 for b in own for _, w in query_occurrences(dt.block(b).text, q)):
        return own  # the query as written stands in the window: that block answers
    terms = blocks.content_terms(query).keys()
    held = terms & dt.block(top).terms.keys()
    out = dict(own)
    for b, touch in passage().items():
        # as many of the query's words by weight, and every one the window's best holds ("BM25" is not
        # traded for "reader" and "top")
        if b not in out and held <= dt.block(b).terms.keys() and answer.holds_terms(doc, b, query)[0] >= share - 1e-9:
            out[b] = touch
    return out
