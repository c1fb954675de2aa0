"""A search's (or an ask's) request to the provider: checked, then started before the citation
pipeline loads.

A fresh ``mnote-kr search`` spends about as long importing the citation pipeline as the
provider spends answering in its own process. Started first, the provider's answer and the
imports overlap (the user waits for the longer of the two, not their sum). This
module is light on purpose: it loads with the host, before the pipeline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mnote_kr.errors import ConfigError, UsageError
from mnote_kr.models import QueryRequest

if TYPE_CHECKING:
    from mnote_kr.citations.hostview import HostView
    from mnote_kr.models import ProviderQueryResult


#: The longest query, in characters, on every surface (CLI, HTTP, MCP): about a page. A longer text
#: is not a question; the encoders read a query's first 512 tokens at most anyway.
MAX_QUERY_CHARS = 4000


#: The shortest query: LightRAG 1.5.7 refuses a RAG query that weighs less (``lightrag/query_validation.py``,
#: ``MIN_RAG_QUERY_WEIGHT``) with its raw "Validation error: body: Value error, RAG query is too short";
#: mnote-kr says it first, in its own words, as it does the maximum.
MIN_QUERY_WEIGHT = 3
#: What LightRAG weighs 2 (its ``_WIDE_CODEPOINT_RANGES``, whole Unicode blocks: Chinese, Japanese and
#: Korean, fullwidth forms); every other character weighs 1. The same table, so neither side lets through
#: what the other refuses.
_WIDE = ((0x1100, 0x11FF), (0x2E80, 0x33FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA960, 0xA97F),
         (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEE), (0x16FE0, 0x16FFF),
         (0x1AFF0, 0x1B2FF), (0x20000, 0x3FFFD))


def _weight(query: str) -> int:
    """LightRAG's weight of a query, counted up to the minimum only (a long query costs a few steps)."""
    total = 0
    for ch in query.strip():
        code = ord(ch)
        total += 2 if any(lo <= code <= hi for lo, hi in _WIDE) else 1
        if total >= MIN_QUERY_WEIGHT:
            break
    return total


def check_query_text(query: str) -> None:
    """A query must be text: bytes that were not valid UTF-8 (lone surrogates) are a usage error."""
    try:
        query.encode("utf-8")
    except UnicodeEncodeError as exc:
        shown = query.encode("utf-8", "replace").decode("utf-8")[:60]
        raise UsageError(f"The query '{shown}' holds bytes that are not valid UTF-8 (at character {exc.start + 1})",
                         hint="retype it, or set the terminal's encoding to UTF-8") from None


def retrieval_depth(config: dict[str, Any], top_k: int) -> tuple[int, int]:
    """The provider's (``top_k``, ``chunk_top_k``) for a request of ``top_k`` citations.

    ``top_k`` is what the user asked for: the number of citations returned. How deep the
    provider retrieves is a separate setting, ``[query] retrieval_top_k`` (entities and
    relations, default 20) and ``retrieval_chunk_top_k`` (chunks, default 20), raised to
    ``top_k`` when the user asks for more citations than that.
    """
    found = config.get("query")
    section: dict[str, Any] = found if isinstance(found, dict) else {}
    try:
        depth = int(section.get("retrieval_top_k", 20))
        chunks = int(section.get("retrieval_chunk_top_k", 20))
    except (TypeError, ValueError) as exc:
        raise ConfigError("[query] retrieval_top_k and retrieval_chunk_top_k must be integers",
                          hint="e.g. retrieval_top_k = 40 in .mnote/config.toml") from exc
    return max(1, depth), max(top_k, chunks)


def query_request(config: dict[str, Any], query: str, *, top_k: int, mode: str, rerank: bool | None,
                  want_answer: bool, sent: tuple[str, ...] = ()) -> QueryRequest:
    """The provider request for a user's query, or a ``UsageError`` saying what to fix. ``sent``: the
    provider's names of the files sent and not indexed yet (``stillindexing.sent_files``)."""
    query = " ".join(query.split())
    check_query_not_empty(query)
    check_query_text(query)
    if not any(ch.isalnum() for ch in query):  # emoji or marks alone: LightRAG finds no keyword and fails
        raise UsageError("The query has no words, only symbols", hint="give a few words or a phrase from the passage")
    if _weight(query) < MIN_QUERY_WEIGHT:
        raise UsageError(f"The query is too short: give at least {MIN_QUERY_WEIGHT} characters "
                         "(a Chinese, Japanese or Korean character counts as 2)",
                         hint="ask a question or give a word or phrase from the passage")
    check_query_length(query)
    if not 1 <= top_k <= 200:
        raise UsageError(f"--top-k must be between 1 and 200, not {top_k}",
                         hint="it is the number of citations returned, e.g. --top-k 5")
    depth, chunk_depth = retrieval_depth(config, top_k)
    return QueryRequest(query=query, mode=mode, top_k=depth, chunk_top_k=chunk_depth, want_answer=want_answer,
                        enable_rerank=rerank, sent_files=sent)


class StartedQuery:
    """A provider query under way: ``result()`` waits for its answer (or raises its error)."""

    def __init__(self, wait: Callable[[], ProviderQueryResult], started_at: float) -> None:
        self._wait = wait
        self.started_at = started_at
        #: Milliseconds from the start until the host had the answer (set by ``result``).
        self.elapsed_ms: float | None = None

    def result(self) -> ProviderQueryResult:
        """The provider's answer; the same errors, with the same messages, as its ``query``."""
        result = self._wait()
        if self.elapsed_ms is None:
            self.elapsed_ms = (time.perf_counter() - self.started_at) * 1000
        return result


def start_query(host: HostView, query: str, *, top_k: int, mode: str, rerank: bool | None,
                want_answer: bool) -> StartedQuery:
    """Check the query and start the provider on it; a bad query or an unreachable provider
    fails here, before anything else is loaded."""
    from mnote_kr.citations.map.stillindexing import sent_files

    request = query_request(host.config, query, top_k=top_k, mode=mode, rerank=rerank, want_answer=want_answer,
                            sent=sent_files(host.registry()))
    started_at = time.perf_counter()
    return StartedQuery(host.plugins.start_query(host.context(), request), started_at)


def check_query_not_empty(query: str) -> None:
    """Refuse an empty or blank query with the one message every surface (CLI, HTTP, MCP) gives."""
    if not query.strip():
        raise UsageError("The query is empty",
                         hint="give the words to look for: a question, or a word or phrase from the passage")


def check_query_length(query: str) -> None:
    """Refuse a query over MAX_QUERY_CHARS with the one message every surface (CLI, HTTP, MCP) gives."""
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(f"The query is {len(query):,} characters long; at most {MAX_QUERY_CHARS:,} are accepted",
                         hint="ask a question or give a phrase from the passage, not the whole text")
