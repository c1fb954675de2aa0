"""The chunk a place is cited from: of a search's chunks that land on one place, the one holding its quote.

Two chunks of one file may land on one place: a paragraph that holds the query as written is found in the
file from a chunk that does not hold it, and the chunk that does hold it comes later in the provider's list.
The place is one citation (``pipeline.build_citations``); it used to carry the first chunk, whichever that
was. Where LightRAG's windows fall moves with the markup's ids (a DOCX's drawing paths hold the link name,
whose workspace tag hashes the workspace's path), and which of them LightRAG returns first moves with them:
the same file, in two folders, was cited with two different chunks (its ``rawQuote``, ``contextQuote``,
``lightRagChunkId``), and scored on the words of whichever came first (a 37-character tail holding none of
the query: 0.5 against 1.7; ``tests/test_place_chunk.py``). So a place carries the chunk holding most of the
words it is quoted with (its ``displayQuote`` from the first chunk: the sentences a reader reads there, which
that chunk holds whole when they are its own), at the best provider rank of the chunks that reached it; of
chunks holding as much of it, the first. Measured on the quote, not on the whole paragraph: a long paragraph
two windows share is quoted from the first's sentences, and the second, holding more of the paragraph but
not them, does not take its place. :class:`Holders` records, while the citations are built, each place's
first chunk and a later one holding more of its quote; :meth:`Holders.reordered` gives the provider's list
with that chunk in the first one's stead (its rank), and the citations are built once more from it: as if
the provider had returned it first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

import msgspec

from mnote_kr.citations.text.textnorm import iter_tokens, normalize
from mnote_kr.models import ProviderQueryResult, ProviderReference

#: Build again with the chunk holding most of each place in the first one's stead (False: a place keeps the
#: first chunk that reached it, as before; ``benchmarks/retrieval.py --variant NAME:py:...HOLDER_FIRST=false``).
HOLDER_FIRST = True


Built = TypeVar("Built")


def holder_first(build: Callable[[ProviderQueryResult, Holders], Built], result: ProviderQueryResult) -> Built:
    """``build(result, holders)`` (the citations of a search: ``pipeline._built``), and once more with the
    references :meth:`Holders.reordered` when a later chunk holds more of a place than the one it kept."""
    holders = Holders()
    built = build(result, holders)
    if not holders.better or not HOLDER_FIRST:
        return built
    return build(msgspec.structs.replace(result, references=holders.reordered(result.references)), Holders())


def held_share(place: str, passage: str) -> float:
    """The share of ``place``'s distinct words that ``passage`` holds (1.0 for a place without words)."""
    words = {tok for tok, _, _ in iter_tokens(normalize(place))}
    if not words:
        return 1.0
    held = {tok for tok, _, _ in iter_tokens(normalize(passage))}
    return len(words & held) / len(words)


class Holders:
    """Which reference each place of one build is cited from, and a later one holding more of its quote."""

    def __init__(self) -> None:
        #: place key -> (index of its reference, the place's quote, the share of it that reference holds)
        self._first: dict[Hashable, tuple[int, str, float]] = {}
        self.better: dict[int, tuple[int, float]] = {}  # index of a place's reference -> (the better one's, share)

    def keep(self, keys: Iterable[Hashable | None], at: int, quote: str, passage: str) -> None:
        """The reference at ``at`` (its chunk ``passage``) is cited at the place ``keys`` name, quoted ``quote``
        (the words a reader reads there: its ``displayQuote``)."""
        for key in keys:
            if key is not None:
                self._first[key] = (at, quote, held_share(quote, passage))

    def again(self, keys: Iterable[Hashable | None], at: int, passage: str) -> None:
        """The reference at ``at`` lands on a place already cited: remembered when it holds more of the place's
        quote than the place's reference (and than a later one already remembered)."""
        held = next((self._first[k] for k in keys if k is not None and k in self._first), None)
        if held is None:
            return
        first, quote, share = held
        mine = held_share(quote, passage)
        if mine > max(share, self.better.get(first, (at, 0.0))[1]):
            self.better[first] = (at, mine)

    def reordered(self, references: Sequence[ProviderReference]) -> list[ProviderReference]:
        """``references`` with each better chunk in the stead of the one first cited at its place, with that
        one's rank (which follows it, and is a duplicate of it then)."""
        moved = {at: first for first, (at, _) in self.better.items()}
        out: list[ProviderReference] = []
        for i, ref in enumerate(references):
            if i in moved:
                continue
            if i in self.better:
                out.append(msgspec.structs.replace(references[self.better[i][0]], rank=ref.rank))
            out.append(ref)
        return out
