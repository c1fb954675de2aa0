"""Map a LightRAG reference back to a registry entry and to the sidecar block it came from.

No LightRAG REST route exposes a chunk's block refs (LightRAG 1.5.7 keeps them in its own
stores only), so the chunk text is
found in the sidecar itself: the block contents joined with ``"\\n\\n"`` are the text the
chunkers cut, and a chunk is a contiguous slice of it (overlaps and token edges aside).
We locate the chunk's span in the joined text (exactly, else after collapsing
whitespace, else by anchoring probe windows) and pick the block holding most of it;
when the chunk spans several blocks, the one containing the query wins.

Sidecars are parsed once per (path, mtime, size) and kept with their joined text and
block offsets, so mapping a result page costs a few ``str.find`` calls.
"""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mnote_kr.plugin_api import (
    FileCache,
    MappedReference,
    MnoteKrError,
    Persist,
    ProviderContext,
    ProviderReference,
    Sidecar,
    SidecarBlock,
    SourceEntry,
    query_standing,
    query_terms,
    read_sidecar,
)

from . import links, naming

_CACHE_SIZE = 64
_WS = re.compile(r"\s+")
_PROBE = 48


@dataclass
class SidecarIndex:
    """A sidecar with its joined text, normalised text and block offsets."""

    sidecar: Sidecar
    blocks: list[SidecarBlock]  # non-empty blocks, in order
    starts: list[int]  # start offset of each block in ``joined``
    joined: str
    norm: str  # ``joined`` with whitespace runs collapsed to one space
    norm_map: list[int]  # offset in ``norm`` → offset in ``joined``

    def block_at(self, offset: int) -> int:
        """Index of the block containing ``offset`` of ``joined``."""
        return max(0, bisect.bisect_right(self.starts, offset) - 1)


def _normalise(text: str) -> tuple[str, list[int]]:
    out: list[str] = []
    mapping: list[int] = []
    last_space = True
    for index, char in enumerate(text):
        if char.isspace():
            if last_space:
                continue
            out.append(" ")
            mapping.append(index)
            last_space = True
        else:
            out.append(char)
            mapping.append(index)
            last_space = False
    return "".join(out), mapping


def build_index(sidecar: Sidecar) -> SidecarIndex:
    """Join block contents the way LightRAG does and remember where each block starts."""
    blocks = [b for b in sidecar.blocks if b.content]
    starts: list[int] = []
    parts: list[str] = []
    offset = 0
    for block in blocks:
        starts.append(offset)
        parts.append(block.content)
        offset += len(block.content) + 2
    joined = "\n\n".join(parts)
    norm, norm_map = _normalise(joined)
    return SidecarIndex(sidecar=sidecar, blocks=blocks, starts=starts, joined=joined, norm=norm, norm_map=norm_map)


def _index(real: str, st: os.stat_result) -> SidecarIndex:
    return build_index(read_sidecar(real))


# Kept on disk too: a new process would otherwise re-read and re-normalise every cited
# document's sidecar (a character loop over the whole text) on its first search.
_cache: FileCache[SidecarIndex] = FileCache(_index, what="sidecar", max_items=_CACHE_SIZE,
                                            persist=Persist(name="sidecar", version="1", model=SidecarIndex))


def load_index(path: Path) -> SidecarIndex | None:
    """The cached index of a ``blocks.jsonl`` sidecar, or None when it cannot be read."""
    try:
        return _cache.get(path)
    except MnoteKrError:
        return None


def find_sidecar(input_dir: Path, file_name: str, doc_id: str | None = None) -> Path | None:
    """``INPUT_DIR/__parsed__/<name>.parsed[_NNN]/<stem>.blocks.jsonl`` for a LightRAG file name."""
    parsed = input_dir / links.PARSED_DIR
    stem = naming.sidecar_stem(file_name)
    exact = parsed / f"{file_name}.parsed" / f"{stem}.blocks.jsonl"
    if exact.is_file():
        return exact
    # ``<name>.parsed_NNN`` (three ASCII digits), newest first: what the glob
    # ``<name>.parsed_[0-9][0-9][0-9]`` lists, without compiling a pattern per cited file.
    prefix = f"{file_name}.parsed_"
    try:
        names = sorted((n for n in os.listdir(parsed) if n.startswith(prefix) and len(n) == len(prefix) + 3
                        and all(c in "0123456789" for c in n[-3:])), reverse=True)
    except OSError:
        return None
    for name in names:
        path = parsed / name / f"{stem}.blocks.jsonl"
        if path.is_file():
            return path
    return None


def _exact_span(index: SidecarIndex, chunk: str) -> tuple[int, int] | None:
    at = index.joined.find(chunk)
    if at >= 0:
        return at, at + len(chunk)
    norm_chunk, _ = _normalise(chunk.strip())
    if not norm_chunk:
        return None
    at = index.norm.find(norm_chunk)
    if at >= 0:
        end = at + len(norm_chunk) - 1
        return index.norm_map[at], index.norm_map[end] + 1
    return None


def _probe_span(index: SidecarIndex, chunk: str) -> tuple[int, int, float] | None:
    """Anchor windows of the chunk in the text; the densest run of hits is the span."""
    norm_chunk, _ = _normalise(chunk.strip())
    if len(norm_chunk) < 12:
        return None
    size = min(_PROBE, max(12, len(norm_chunk) // 4))
    # About 32 evenly spaced windows at most: each is one scan of the document text.
    step = max(size // 2, (len(norm_chunk) - size) // 32 + 1, 1)
    hits: list[tuple[int, int]] = []  # (offset in chunk, offset in norm)
    searched = 0
    for start in range(0, max(1, len(norm_chunk) - size + 1), step):
        window = norm_chunk[start:start + size]
        searched += 1
        at = index.norm.find(window)
        if at >= 0 and index.norm.find(window, at + 1) < 0:  # unique anchors only
            hits.append((start, at))
    if not hits:
        return None
    # Hits consistent with one placement of the chunk (same shift, within a tolerance).
    best: list[tuple[int, int]] = []
    for c0, n0 in hits:
        shift = n0 - c0
        group = [(c, n) for c, n in hits if abs((n - c) - shift) <= max(40, len(norm_chunk) // 10)]
        if len(group) > len(best):
            best = group
    first_c, first_n = best[0]
    last_c, last_n = best[-1]
    start_n = max(0, first_n - first_c)
    end_n = min(len(index.norm) - 1, last_n + size - 1 + (len(norm_chunk) - last_c - size))
    coverage = min(1.0, len(best) / max(1, searched))
    return index.norm_map[start_n], index.norm_map[max(start_n, end_n)] + 1, coverage


def match_block(
    index: SidecarIndex, chunk: str, query: str = ""
) -> tuple[SidecarBlock, float, tuple[int, int]] | None:
    """The block a chunk came from, a 0..1 score (how much of the chunk was found), and the
    part of the block's content the chunk covers (start, end offsets in ``block.content``)."""
    if not index.blocks or not chunk or not chunk.strip():
        return None
    span = _exact_span(index, chunk)
    score = 1.0
    if span is None:
        probed = _probe_span(index, chunk)
        if probed is None:
            return None
        span = probed[0], probed[1]
        score = probed[2]
    start, end = span
    first, last = index.block_at(start), index.block_at(max(start, end - 1))

    def found(i: int) -> tuple[SidecarBlock, float, tuple[int, int]]:
        b_start = index.starts[i]
        length = len(index.blocks[i].content)
        lo, hi = max(0, start - b_start), min(length, end - b_start)
        return index.blocks[i], score, (lo, hi) if lo < hi else (0, length)

    if first == last:
        return found(first)
    overlaps: list[tuple[int, int]] = []
    for i in range(first, last + 1):
        b_start = index.starts[i]
        b_end = b_start + len(index.blocks[i].content)
        overlaps.append((max(0, min(end, b_end) - max(start, b_start)), i))
    if query.strip():
        # Prefer the block where the query stands alone over one where it only sits inside a
        # longer word (吡咯烷 in N-甲基吡咯烷酮), then the larger overlap.
        standing = {i: query_standing(index.blocks[i].content, query) for _, i in overlaps}
        with_query = [(standing[i], ov, i) for ov, i in overlaps if standing[i] >= 0]
        if with_query:
            return found(max(with_query)[2])
        # Not verbatim anywhere: the block holding most of the query's words, then the overlap.
        terms = [t.casefold() for t in query_terms(query)]
        if terms:
            def coverage(i: int) -> int:
                text = index.blocks[i].content.casefold()
                return sum(1 for t in terms if t in text)

            return found(max((coverage(i), ov, i) for ov, i in overlaps)[2])
    return found(max(overlaps)[1])


def _entry_for(reference: ProviderReference, entries: Mapping[str, SourceEntry]) -> SourceEntry | None:
    entry = entries.get(reference.file_path)
    if entry is not None:
        return entry
    doc_id = reference.doc_id or naming.doc_id_from_chunk_id(reference.chunk_id)
    if doc_id:
        for candidate in entries.values():
            if candidate.light_rag_doc_id == doc_id:
                return candidate
    return None


def map_reference(ctx: ProviderContext, reference: ProviderReference, entries: Mapping[str, SourceEntry],
                  query: str, input_dir: Path | None) -> MappedReference | None:
    """Reference → live registry entry (None when unmapped) → sidecar block when one exists."""
    entry = _entry_for(reference, entries)
    if entry is None:
        return None
    name = entry.light_rag_file_path or reference.file_path
    if input_dir is None or not reference.content:
        return MappedReference(reference=reference, entry=entry)
    path = find_sidecar(input_dir, name)
    if path is None:
        return MappedReference(reference=reference, entry=entry)
    index = load_index(path)
    if index is None:
        return MappedReference(reference=reference, entry=entry, sidecar_path=str(path))
    found = match_block(index, reference.content, query)
    if found is None:
        return MappedReference(reference=reference, entry=entry, meta=index.sidecar.meta, sidecar_path=str(path))
    block, score, (lo, hi) = found
    return MappedReference(reference=reference, entry=entry, block=block, meta=index.sidecar.meta,
                           sidecar_path=str(path), block_score=round(score, 4), block_span=[lo, hi])
