"""Places reranked by the user's own reranker (a cross-encoder behind a Cohere/Jina-style ``/rerank``).

When ``[rerank]`` names an endpoint in ``config.toml``, the candidate places of each cited file
(the file's citations, each a paragraph or PDF block of a chunk the provider returned) are put in
the order that endpoint gives them. It is the wire format LightRAG's own rerank binding speaks, so
the same server serves both (e.g. a local bge-reranker-v2-m3). The settings mirror LightRAG's::

    [rerank]                                   # LightRAG's .env name
    host = "http://127.0.0.1:8000/rerank"      # RERANK_BINDING_HOST (the whole URL of the endpoint)
    model = "BAAI/bge-reranker-v2-m3"          # RERANK_MODEL
    binding = "cohere"                         # RERANK_BINDING: cohere or jina (the same request)
    timeout_s = 5                              # the longest a search waits for it

The API key is the secret ``rerank-api-key`` (``MNOTE_KR_RERANK_API_KEY``, ``RERANK_BINDING_API_KEY``
in the provider's configured ``env_file`` or the environment, then the keyring); it is sent as
``Authorization: Bearer`` and never printed.

One request per query: ``{"model", "query", "documents", "top_n"}`` with every cited place's text,
answered by ``{"results": [{"index", "relevance_score"}]}``. Each file's places then fill the
positions (and scores) they held, in the reranker's order, so no file moves and no citation is
lost; a place holding the whole query verbatim (``phrase``) still comes first. When the endpoint is
down, slow (past ``timeout_s``) or answers something else, the local ranking stands and the search
carries one note saying so.

This is a client in the host, not a hook: the endpoint is a public wire format that does not depend
on the provider (a search through any provider plugin is reranked alike), and LightRAG does not
expose its own rerank binding over its API.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any

import msgspec

from mnote_kr.models import Citation

SECRET_NAME = "rerank-api-key"
DEFAULT_TIMEOUT_S = 5.0
#: Characters of a place's text sent to the reranker (cross-encoders read ~512 tokens at most).
MAX_DOC_CHARS = 1200
#: Places sent in one request (a search cites at most a few dozen).
MAX_DOCS = 200
BINDINGS = ("cohere", "jina")


@dataclass(frozen=True)
class Settings:
    url: str
    model: str
    binding: str
    timeout_s: float
    api_key: str | None

    def public(self) -> dict[str, Any]:
        """What ``status`` shows (never the key)."""
        return {"enabled": True, "url": self.url, "model": self.model, "binding": self.binding,
                "timeoutS": self.timeout_s, "apiKey": "set" if self.api_key else "not set"}


class RerankFailed(Exception):
    """The endpoint gave no usable ranking (the message says why, in words)."""


def settings(config: dict[str, Any], secret: Any = None) -> Settings | None:
    """The ``[rerank]`` settings, or None when no endpoint is configured.

    ``secret(name)`` resolves the API key (``Host.secret``). A section with a host but no model,
    or a binding this client does not speak, is reported by :func:`status` and not used."""
    section = config.get("rerank")
    if not isinstance(section, dict):
        return None
    url = str(section.get("host") or section.get("url") or "").strip()
    model = str(section.get("model") or "").strip()
    binding = str(section.get("binding") or "cohere").strip().lower()
    if not url or not model or binding not in BINDINGS:
        return None
    try:
        timeout_s = float(section.get("timeout_s", DEFAULT_TIMEOUT_S))
    except (TypeError, ValueError):
        timeout_s = DEFAULT_TIMEOUT_S
    if not math.isfinite(timeout_s) or timeout_s <= 0:
        timeout_s = DEFAULT_TIMEOUT_S
    key = secret(SECRET_NAME) if secret is not None else None
    return Settings(url=url, model=model, binding=binding, timeout_s=timeout_s, api_key=key or None)


def status(config: dict[str, Any], secret: Any = None) -> dict[str, Any]:
    """``status``'s view: on with its endpoint and model, off, or what is wrong with ``[rerank]``."""
    section = config.get("rerank")
    if not isinstance(section, dict) or not section:
        return {"enabled": False}
    found = settings(config, secret)
    if found is not None:
        return found.public()
    binding = str(section.get("binding") or "cohere").strip().lower()
    if binding not in BINDINGS:
        why = f"binding {binding!r} is not one of {', '.join(BINDINGS)}"
    else:
        why = "[rerank] needs both 'host' (the /rerank URL) and 'model'"
    return {"enabled": False, "problem": why}


def scores(s: Settings, query: str, documents: list[str]) -> list[float]:
    """The endpoint's score of each document (same order); raises ``RerankFailed``.

    The whole exchange is bounded by ``s.timeout_s``: a server that accepts and never answers
    costs the search that long, once."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["scores"] = _post(s, query, documents)
        except RerankFailed as exc:
            box["error"] = exc
        except Exception as exc:  # noqa: BLE001 - any transport failure is one degraded note
            box["error"] = RerankFailed(_transport_reason(exc))

    worker = threading.Thread(target=run, daemon=True, name="mnote-kr-rerank")
    worker.start()
    worker.join(s.timeout_s)
    if worker.is_alive():
        raise RerankFailed(f"no answer within {s.timeout_s:g} s")
    if "error" in box:
        raise box["error"]
    result: list[float] = box["scores"]
    return result


def _transport_reason(exc: Exception) -> str:
    name = type(exc).__name__
    if "Connect" in name or isinstance(exc, ConnectionError):
        return "cannot connect"
    if "Timeout" in name:
        return "timed out"
    return f"{name}: {str(exc)[:200]}"


def _post(s: Settings, query: str, documents: list[str]) -> list[float]:
    import httpx

    headers = {"Content-Type": "application/json"}
    if s.api_key:
        headers["Authorization"] = f"Bearer {s.api_key}"
    body = {"model": s.model, "query": query, "documents": documents, "top_n": len(documents)}
    with httpx.Client(timeout=s.timeout_s, trust_env=False) as client:
        response = client.post(s.url, json=body, headers=headers)
    if response.status_code != 200:
        raise RerankFailed(f"HTTP {response.status_code}")
    try:
        data = response.json()
    except ValueError:
        raise RerankFailed("the answer is not JSON") from None
    return parse(data, len(documents))


def parse(data: Any, n: int) -> list[float]:
    """``{"results": [{"index", "relevance_score"}]}`` as one score per document; a document the
    answer leaves out scores below every one it ranks. Raises ``RerankFailed`` on anything else."""
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not results:
        raise RerankFailed("the answer has no 'results' list")
    out = [-math.inf] * n
    for item in results:
        index = item.get("index") if isinstance(item, dict) else None
        score = item.get("relevance_score") if isinstance(item, dict) else None
        if (not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < n
                or not isinstance(score, int | float) or isinstance(score, bool) or not math.isfinite(score)):
            raise RerankFailed("a result is not {index, relevance_score} of a document sent")
        out[index] = float(score)
    return out


def _text(c: Citation) -> str:
    text = c.display_quote or c.locator.place_text or c.locator_evidence_text or c.context_quote or ""
    return " ".join(text.split())[:MAX_DOC_CHARS]


def rerank_places(s: Settings, query: str, citations: list[Citation],
                  diagnostics: dict[str, Any]) -> tuple[list[Citation], str | None]:
    """``citations`` (ranked, several per file) with each file's places in the reranker's order,
    and a degraded note (None when reranked). ``diagnostics["placeRerank"]`` says what happened."""
    by_file: dict[str, list[int]] = {}
    for i, c in enumerate(citations):
        by_file.setdefault(c.source_root_relative_path, []).append(i)
    todo = [i for positions in by_file.values() if len(positions) > 1 for i in positions][:MAX_DOCS]
    info: dict[str, Any] = {"model": s.model, "places": len(todo)}
    diagnostics["placeRerank"] = info
    if not todo:
        return citations, None
    t0 = time.perf_counter()
    try:
        got = scores(s, query, [_text(citations[i]) for i in todo])
    except RerankFailed as exc:
        info.update(error=str(exc), ms=round((time.perf_counter() - t0) * 1000, 2))
        return citations, (f"The reranker at {s.url} gave no ranking ({exc}); "
                           "places are in the local order (words and meaning).")
    info["ms"] = round((time.perf_counter() - t0) * 1000, 2)
    score = dict(zip(todo, got, strict=True))
    out = list(citations)
    for positions in by_file.values():
        mine = [i for i in positions if i in score]
        if len(mine) < 2:
            continue

        def key(i: int) -> tuple[bool, float, int]:
            return (citations[i].diagnostics.score_parts.get("phrase", 0.0) > 0, score[i], -i)

        for slot, i in zip(mine, sorted(mine, key=key, reverse=True), strict=True):
            c = citations[i]
            parts = {**c.diagnostics.score_parts, "rerank": round(score[i], 6)}
            out[slot] = msgspec.structs.replace(
                c, relevance_score=citations[slot].relevance_score,
                diagnostics=msgspec.structs.replace(c.diagnostics, score_parts=parts))
    info["reranked"] = True
    return out, None
