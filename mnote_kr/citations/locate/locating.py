"""``mnote-kr locate``: one request or a JSON Lines batch, through the locator plugins.

A batch answers one JSON line per request line, in order; a request that fails answers
``{"error": "..."}`` on its line and the batch goes on. Sidecars are read once per batch.

A request with a query and no evidence (the command a search names for a file holding every word of its query,
``map.heldwords``) is located by the file's place holding the most of the query's terms (:func:`place_of_words`): the
question as typed is no evidence a locator can match ("Why work compost into clay soil each autumn?" answered
``file`` on a paragraph holding all five of its words, review r28 finding 2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import msgspec

from mnote_kr.citations.map.sidecar import Sidecar, read_sidecar
from mnote_kr.errors import MnoteKrError, UsageError
from mnote_kr.models import LocateRequest, Locator
from mnote_kr.plugins import Plugins, load_plugins

_encoder = msgspec.json.Encoder()
_line_decoder = msgspec.json.Decoder(dict)


def plugins_for_locate() -> Plugins:
    from mnote_kr.core.config import load_config

    return load_plugins(load_config(None))


@lru_cache(maxsize=64)
def _sidecar(path: str, mtime_ns: int) -> Sidecar:
    return read_sidecar(path)


_SIDECAR_HINT = "pass the blocks.jsonl LightRAG wrote for this document, or leave --sidecar out"


def _skipped(sidecar: Sidecar) -> str:
    """``; N malformed line(s) skipped, first: line K: why`` when the reader skipped lines."""
    if not sidecar.skipped_lines:
        return ""
    number, why = sidecar.skipped_lines[0]
    return f"; {len(sidecar.skipped_lines)} malformed line(s) skipped, first: line {number}: {why[:120]}"


def build_request(raw: dict[str, Any]) -> LocateRequest:
    """A ``LocateRequest`` from a batch line / CLI options (``file``, ``evidence``, ``query``,
    ``sidecar``, ``blockId``)."""
    file = raw.get("file")
    if not isinstance(file, str) or not file:
        raise UsageError("request has no 'file'", hint='each request is {"file", "evidence", "query"}')
    evidence = raw.get("evidence") or ""
    query = raw.get("query") or ""
    if not isinstance(evidence, str) or not isinstance(query, str):
        raise UsageError("'evidence' and 'query' must be strings")
    block_id = raw.get("blockId") or raw.get("block_id")
    block = meta = None
    sidecar_path = raw.get("sidecar")
    if sidecar_path:
        path = Path(sidecar_path)
        try:
            mtime = path.stat().st_mtime_ns
        except OSError as exc:
            raise UsageError(f"Cannot read sidecar {sidecar_path}: {exc.strerror}",
                             hint=_SIDECAR_HINT) from exc
        sidecar = _sidecar(str(path), mtime)
        if sidecar.meta is None and not sidecar.blocks:
            raise UsageError(f"Sidecar {sidecar_path} has no readable meta or block rows{_skipped(sidecar)}",
                             hint=_SIDECAR_HINT)
        meta = sidecar.meta
        if block_id:
            block = sidecar.block(block_id)
            if block is None:
                raise UsageError(f"Block {block_id} is not in sidecar {sidecar_path}{_skipped(sidecar)}",
                                 hint="give a 'blockid' from that file, or leave --block-id out")
    return LocateRequest(file=file, evidence=evidence, query=query, block=block,
                         block_id=block_id, sidecar_meta=meta)


def place_of_words(plugins: Plugins, path: str, query: str) -> str | None:
    """The text of the place of the file at ``path`` holding the most of ``query``'s terms (``heldwords.query_terms``:
    stemmed words, CJK bigrams), the shortest of those holding as many; None when none holds half of them. The places
    are those its locator queues for embedding (``prepare_locate``, as the library's word counts read them: nothing is
    embedded here), else the paragraphs of the text its reader gives (no OCR: a scan is placed by its recognition)."""
    from mnote_kr.citations.caches import libwords
    from mnote_kr.citations.cleaning.copyable import join_cjk_gaps
    from mnote_kr.citations.map.heldwords import query_terms
    from mnote_kr.citations.rank.ranking import terms

    wanted = query_terms(query)
    if not wanted:
        return None
    try:
        with libwords.collecting(only=True) as texts:
            plugins.prepare_locate(path)
        if not any(t.strip() for t in texts):
            texts = re.split(r"\n\s*\n", plugins.extract_text(path, recognize=False) or "")
    except MnoteKrError:
        return None  # the locator says why it cannot read the file
    best: tuple[int, int] = (0, 0)
    found = None
    for text in texts:
        held = len(wanted & set(terms(join_cjk_gaps(text)))) if text.strip() else 0
        if held and (held, -len(text)) > best:
            best, found = (held, -len(text)), text
    return found if 2 * best[0] >= len(wanted) else None


def locate_one(plugins: Plugins, raw: dict[str, Any]) -> Locator:
    request = build_request(raw)
    if not Path(request.file).is_file():
        raise UsageError(f"No such file: {request.file}", hint="give the path of an existing source file")
    if not request.evidence.strip() and request.query.strip():
        # the query alone: its words' place is the evidence, else the query's words are
        evidence = place_of_words(plugins, request.file, request.query) or request.query
        request = msgspec.structs.replace(request, evidence=evidence)
    return plugins.locate(request)


def locate_batch(plugins: Plugins, lines: Iterable[str]) -> Iterator[str]:
    """One JSON answer per non-empty input line, in order."""
    for line in lines:
        if not line.strip():
            continue
        try:
            raw = _line_decoder.decode(line.encode("utf-8", errors="replace"))
            yield _encoder.encode(locate_one(plugins, raw)).decode("utf-8")
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            yield _encoder.encode({"error": f"invalid request line: {exc}"}).decode("utf-8")
        except MnoteKrError as exc:
            yield _encoder.encode({"error": str(exc)}).decode("utf-8")
