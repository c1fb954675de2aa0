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
                  want_answer: bool) -> QueryRequest:
    """The provider request for a user's query, or a ``UsageError`` saying what to fix."""
    query = " ".join(query.split())
    if not query:
        raise UsageError("The query is empty")
    check_query_text(query)
    if not any(ch.isalnum() for ch in query):  # emoji or marks alone: LightRAG finds no keyword and fails
        raise UsageError("The query has no words, only symbols", hint="give a few words or a phrase from the passage")
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(f"The query is {len(query):,} characters long; at most {MAX_QUERY_CHARS:,} are accepted",
                         hint="ask a question or give a phrase from the passage, not the whole text")
    if not 1 <= top_k <= 200:
        raise UsageError(f"--top-k must be between 1 and 200, not {top_k}",
                         hint="it is the number of citations returned, e.g. --top-k 5")
    depth, chunk_depth = retrieval_depth(config, top_k)
    return QueryRequest(query=query, mode=mode, top_k=depth, chunk_top_k=chunk_depth, want_answer=want_answer,
                        enable_rerank=rerank)


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
    request = query_request(host.config, query, top_k=top_k, mode=mode, rerank=rerank, want_answer=want_answer)
    started_at = time.perf_counter()
    return StartedQuery(host.plugins.start_query(host.context(), request), started_at)
