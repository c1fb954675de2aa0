"""The answering chunk first: each found file's places in LightRAG's list go to its best chunks.

LightRAG finds the right file, but its first chunk of that file is often a neighbour (the
title or abstract of a PDF, a paragraph two away in a DOCX), and the chunk that answers is
often not among the first ``chunk_top_k`` at all (measured on the held-out questions of
``benchmarks/retrieval.py``: present in 24 of 48 at depth 20, 41 of 48 at depth 80).

So, with the offline model service, the plugin asks LightRAG for ``DEPTH_FACTOR`` times more
chunks than wanted, scores every chunk against the query and keeps LightRAG's first ``wanted``
*slots* as they are, file by file: a file that held ranks 1 and 7 still holds ranks 1 and 7,
filled with its two best chunks of the deeper list. Which files are found, and in what order,
stays LightRAG's (recall does not move); only which chunk of a file comes first changes.

A chunk's score is the z-score of its similarity to the query (the model service's learned
model, ``/rerank``) over the deeper list plus ``POSITION_WEIGHT / rank``: LightRAG's own order
still counts, so a similarity barely above the rest does not displace the chunk LightRAG
ranked first.

**Files from the deeper list** (:func:`with_deeper_files`, on whether passages are ranked or not):
a search asks LightRAG for the deeper list, keeps the first ``wanted`` chunks' slots as above, and
passes on ``DEEPER_FILES`` more files: the first files of the deeper list that the slots lack, in
LightRAG's order, one chunk each (its first there), after the slots. The host's ranking, which
reads each file's places, decides where they go. Measured (``benchmarks/xlang_deep.py``, the
tuning sets' 306 questions over an engine store, whose 20-chunk pool it reproduces question for
question): the answering file is among the first 20 chunks' files for 79 of 109 cross-language
questions and 190 of 197 same-language ones, and the host's first five held it every time it was
there; among 40 chunks 92 / 193, among 60 96 / 193. Five deeper files reach 93 / 192 (4.3 files
more per search on average; three: 88 / 192). ``[providers.lightrag] deeper_files`` sets it per
workspace. Each is marked ``deeper``: the host ranks only those whose meaning (their places' stored vectors)
beats one of the first files', in another script than the question's (``mnote_kr.citations.rank.deeper``); ranked
at their own rank instead (r22), the host's first five did not keep every file it was given and the held-out
sets did not gain (docs/embeddings.md). Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

from mnote_kr.plugin_api import ProviderReference, text_language

#: How much deeper than the wanted chunks the plugin retrieves (capped by ``MAX_DEPTH``).
DEPTH_FACTOR = 3
MAX_DEPTH = 80
#: Weight of LightRAG's order (``POSITION_WEIGHT / rank``, rank 1-based) against the
#: similarity's z-score (measured, docs/embeddings.md).
POSITION_WEIGHT = 3.0
#: Files of the deeper list that the first ``wanted`` chunks lack, passed on after them, when switched on.
DEEPER_FILES = 5
#: ``[providers.lightrag] deeper_files`` when the workspace does not set it: 0, the first chunks alone. Five deeper
#: files, marked ``deeper`` and admitted by meaning (``mnote_kr.citations.rank.deeper``), found 7 more of 258
#: tuning questions' files in the first five and 1 fewer of 171 held-out ones in one engine run (r23, 46 files,
#: ``--variant old:providers.lightrag.deeper_files=0``; docs/embeddings.md), at LightRAG's cost of 60 chunks a
#: search; r22 measured the same in LightRAG's order (+3 of 306, -1 of 123). ``deeper_files = 5`` switches it on.
DEFAULT_DEEPER_FILES = 0
#: Only files of the deeper list whose chunk there is in another language than the question's are passed on
#: (``plugin_api.text_language``): the host ranks no deeper file in the question's own script
#: (``mnote_kr.citations.rank.deeper``), so locating them was work for nothing. Replayed on the tuning sets
#: (``benchmarks/deeper_slot.py``, five deeper files): the same answering files in the first five, 2.1 files
#: passed on per search instead of 4.2. False: the first files the slots lack, whatever their language.
OTHER_LANGUAGE_ONLY = True


#: How much deeper than the wanted chunks a search passing on deeper files (and not ranking passages) retrieves:
#: replayed on the tuning sets (``benchmarks/deeper_slot.py``, five files, ``mnote_kr.citations.rank.deeperslot``),
#: chunks 21-40 gave the same answering files in the first five as 21-60 and one more (228 against 227 of 258),
#: with 1.0 file passed on per search instead of 2.1, and LightRAG returns 40 chunks instead of 60.
DEEPER_FILES_FACTOR = 2


def deeper(wanted: int, factor: int = DEPTH_FACTOR) -> int:
    """How many chunks to ask LightRAG for when ``wanted`` are kept (``factor`` times as many, at most
    ``MAX_DEPTH``)."""
    return max(wanted, min(MAX_DEPTH, wanted * factor))


def chunk_scores(similarity: Sequence[float], position_weight: float = POSITION_WEIGHT) -> list[float]:
    """z-score of ``similarity`` over the list plus ``position_weight / rank`` (list order = rank)."""
    n = len(similarity)
    if not n:
        return []
    mean = sum(similarity) / n
    std = math.sqrt(sum((s - mean) ** 2 for s in similarity) / n)
    return [(s - mean) / (std + 1e-9) + position_weight / (i + 1) for i, s in enumerate(similarity)]


def fill_slots(references: Sequence[ProviderReference], scores: Sequence[float],
               wanted: int) -> list[ProviderReference]:
    """The first ``wanted`` references' slots, each file's filled with its best-scored chunks.

    ``references`` is LightRAG's deeper list in its order, ``scores`` one per reference. A slot
    keeps its file; within a file, chunks go best score first (ties: LightRAG's order). Ranks
    are renumbered 1..n.
    """
    if len(scores) != len(references):
        raise ValueError("one score per reference")
    head = list(references[:wanted])
    by_file: dict[str, list[ProviderReference]] = {}
    for i in sorted(range(len(references)), key=lambda i: (-scores[i], i)):
        by_file.setdefault(references[i].file_path, []).append(references[i])
    return [msgspec.structs.replace(by_file[ref.file_path].pop(0), rank=k)
            for k, ref in enumerate(head, start=1)]


def with_deeper_files(head: Sequence[ProviderReference], deeper_list: Sequence[ProviderReference],
                      wanted: int, files: int, query: str | None = None) -> list[ProviderReference]:
    """``head`` (the search's first ``wanted`` slots), then the first ``files`` files of
    ``deeper_list[wanted:]`` (LightRAG's deeper list, its order) that ``head`` lacks, one
    reference each (the file's first there), marked ``deeper`` for the host to admit by meaning. Ranks are
    renumbered 1..n. With the ``query`` (and ``OTHER_LANGUAGE_ONLY``), a reference whose text is in the query's
    language is passed over."""
    out = list(head)
    have = {r.file_path for r in out}
    asked = text_language(query) if query and OTHER_LANGUAGE_ONLY else None
    for ref in deeper_list[wanted:]:
        if files <= 0:
            break
        if asked is not None and text_language(ref.content or "") == asked:
            continue
        if ref.file_path not in have:
            have.add(ref.file_path)
            out.append(msgspec.structs.replace(ref, deeper=True))
            files -= 1
    return [r if r.rank == k else msgspec.structs.replace(r, rank=k) for k, r in enumerate(out, start=1)]
