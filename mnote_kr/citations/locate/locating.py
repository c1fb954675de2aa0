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

#: The share of the query's terms a place must hold to be ``locate``'s evidence for a query alone
#: (:func:`place_of_words`); one holding fewer than all is said so and degraded. On the tuning sets' 43 questions
#: whose file holds every term (of 3 or more), the query as evidence placed 26 (25 on the labelled place); a place
#: holding all of them 32 (31); half of them 42 (35); two thirds 37 (32).
WORDS_SHARE = 0.5
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


def place_of_words(plugins: Plugins, path: str, query: str) -> tuple[str, int, int] | None:
    """The text of the place of the file at ``path`` holding the most of ``query``'s terms (``heldwords.query_terms``:
    stemmed words, CJK bigrams), the shortest of those holding as many, with how many it holds of how many; None
    when none holds ``WORDS_SHARE`` of them. The places are those its locator queues for embedding
    (``prepare_locate``, as the library's word counts read them: nothing is embedded here), else the paragraphs of
    the text its reader gives (no OCR: a scan is placed by its recognition)."""
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
    if found is None or best[0] < WORDS_SHARE * len(wanted):
        return None
    return found, best[0], len(wanted)


def locate_one(plugins: Plugins, raw: dict[str, Any]) -> Locator:
    request = build_request(raw)
    if not Path(request.file).is_file():
        raise UsageError(f"No such file: {request.file}", hint="give the path of an existing source file")
    if request.evidence.strip() or not request.query.strip():
        return plugins.locate(request)
    # the query alone: the place holding its words is the evidence, else the query's words are
    place = place_of_words(plugins, request.file, request.query)
    if place is None:
        return plugins.locate(msgspec.structs.replace(request, evidence=request.query))
    text, held, wanted = place
    locator = plugins.locate(msgspec.structs.replace(request, evidence=text))
    if locator.locator_precision == "file":
        return locator
    # said as what it is: the place holding the query's words (not all of them: degraded), no evidence matched
    why = "every word of the query" if held == wanted else f"{held} of the query's {wanted} words"
    return msgspec.structs.replace(locator, locator_degraded=locator.locator_degraded or held < wanted,
                                   locator_reason=f"the place holding {why}")


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
