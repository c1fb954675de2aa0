"""A place's quote sentences embedded at ingest, so a search quoting it by meaning embeds nothing.

A search quotes a shown place by meaning when the query's words single out none of its sentences
(``cleaning.quote.answer_quote``): :func:`mnote_kr.citations.rank.meaning.sentence_cosines` embeds the sentences it
is given, the whole set in one model call, and keeps their vectors by the set's content hash. Round 29 measured those
calls at about a third of what ranking by meaning adds to a warm search (``benchmarks/search_cost.py``: 10.4 of 31 s
over 40 searches, 53 calls). With :data:`SENTENCES_AT_INGEST` (off: its ingest cost), ingest's meaning step
(``meaning.embed_queued``) embeds, after a file's places, the
sentences of each place longer than a quote (a shorter one is quoted whole, never by its sentences), cut and
normalised as the search's quote cuts them, each set in a call of its own, through the same function: the same call
gives the same vectors (the int8 runtime's vectors move with their batch-mates, so sets are never batched together),
stored under the same key. A search that asks for that set reads them; a set it cuts otherwise (the chunk's words
read differently from the file's, the chunk cut the place) is embedded at search time, as before. Either way the
cosines, and so the quotes, are those the search alone would compute.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from mnote_kr.core.progresstext import ProgressText, elapsed_text

__all__ = ["SENTENCES_AT_INGEST", "embed_sets", "sentence_sets"]

#: Embed long places' quote sentences at ingest (False: only when a search quotes them). Off: measured in round 29
#: (``benchmarks/search_cost.py --quote-sets --before``, 40 questions, two runs), on cut the default's warm host time
#: p50 x0.86-0.87, p95 x0.75 and x0.96, citations identical (56-59 of the 61-65 sets its quotes asked were a place's
#: own), but made ingest's whole preparation
#: 9.3x words only instead of 5.5x (CPU 11.9x instead of 8.0x; 16 files), over issue 33's 6x. Turning it on for
#: everyone: bump ``meaning._VERSION`` too, so files embedded before get their places' sets.
SENTENCES_AT_INGEST = False
#: A place no longer than this is quoted whole, never by its sentences: ``cleaning.quote.QUOTE_CHARS`` (not imported:
#: the quote's module reaches the ranking through the locators; ``tests/test_quote_sets.py`` holds them equal).
QUOTE_CHARS = 320


def sentence_sets(texts: Sequence[str], key: Callable[[Sequence[str]], str], most: int) -> dict[str, list[str]]:
    """The sets of sentences a quote of each of ``texts`` (a file's places) would ask the cosines of, by ``key``
    (``meaning.places_key``): the place's sentences (``cleaning.sentences``, each with its spaces collapsed, as
    ``meaning.sentence_cosines`` keys them) when it is longer than a quote (``QUOTE_CHARS``) and has two to ``most``
    (``meaning.MAX_QUOTE_SENTENCES``) of them."""
    from mnote_kr.citations.cleaning.sentences import sentences

    out: dict[str, list[str]] = {}
    for place in texts:
        text = place.strip()
        if len(text) <= QUOTE_CHARS:
            continue
        said = [" ".join(text[a:b].split()) for a, b in sentences(text)]
        if 1 < len(said) <= most:
            out.setdefault(key(said), said)
    return out


def embed_sets(todo: dict[str, list[str]], embed: Callable[[str, list[str]], object | None],
               progress: Callable[[str], None] | None = None, *,
               clock: Callable[[], float] = time.monotonic) -> int:
    """Embed each set of ``todo`` (key -> sentences, not stored yet) with ``embed`` (``meaning._sentence_vectors``:
    one model call per set, stored under its key; None without the model); the number of sets embedded.
    ``progress`` gets ``embedding quote sentences: 12/40 places; 8 s so far`` after a set (at most once a second)
    and ``embedding quote sentences: 40/40 places in 30 s`` at the end. Raises ``e5.ModelUnavailable`` when the
    model cannot embed."""
    started = last = clock()
    for done, (key, said) in enumerate(todo.items(), 1):
        if embed(key, said) is None:
            from mnote_kr.citations.rank.e5 import ModelUnavailable

            raise ModelUnavailable("the model could not embed a place's sentences")
        now = clock()
        if progress is not None and (done == len(todo) or now - last >= 1.0):
            last = now
            detail: dict[str, Any] = {"step": "embed", "part": "sentences", "done": done, "total": len(todo),
                                      "elapsedS": round(now - started, 1)}
            when = f" in {elapsed_text(now - started)}" if done == len(todo) else \
                f"; {elapsed_text(now - started)} so far"
            progress(ProgressText(f"embedding quote sentences: {done}/{len(todo)} places{when}", detail))
    return len(todo)
