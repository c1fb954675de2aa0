"""A small, strict HTTP client for the LightRAG 1.5.7 REST API.

Every failure becomes a ``ProviderError`` whose message is one line naming the URL:
connection refused, timeouts, HTTP errors (with LightRAG's ``detail``), and bodies that
are HTML, garbage or truncated JSON. Busy answers sent with HTTP 409/429/503 become
``ProviderBusyError`` (``retry_after`` from ``Retry-After``); the busy answers LightRAG
sends with HTTP 200 (``scanning_skipped_pipeline_busy``, ``status: "busy"``) are left
to the caller, which must look at ``status``. The API key travels only in the
``X-API-Key`` header and never appears in a message.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from mnote_kr.plugin_api import ProviderContext

if TYPE_CHECKING:
    import httpx
from mnote_kr.plugin_api import ProviderBusyError, ProviderError, ProviderStoppedError

from . import interrupted, searchwait
from .searchwait import STATUS_TIMEOUT_S, Indexing

AUTH_HINT = "run 'mnote-kr secrets set lightrag-api-key' or set MNOTE_KR_LIGHTRAG_API_KEY"
ENGINE_HINT = "is it running? 'mnote-kr engine start'"
PAGE_SIZE = 200  # LightRAG accepts 10..200


class ProviderUnavailableError(ProviderError):
    """LightRAG could not be reached or did not answer in time; nothing was changed."""

    code = "provider_unavailable"


class EngineNotStartedError(ProviderError):
    """This workspace's managed server does not run, and the call may not start it (``ctx.may_start``:
    ``status`` of a workspace with no files; ``workspaces.workspace_engine`` raises it)."""

    def __init__(self) -> None:
        super().__init__("this workspace's LightRAG engine starts on the first ingest ('mnote-kr ingest FOLDER'); "
                         "status does not start it while nothing is indexed")


class EngineNotRunningError(ProviderError):
    """No LightRAG URL is configured and the managed engine was never started (or was stopped with
    'mnote-kr engine stop'); one that died is a plain ``ProviderError``. ``status`` says "not started"."""

    #: What ``status`` shows after "not started: ".
    NOT_STARTED = "run 'mnote-kr engine start' (or set [providers.lightrag] url to your own LightRAG)"


#: What a call says when the managed engine it used was stopped (``EngineStoppedError``).
START_HINT = "start it with 'mnote-kr engine start'"


class EngineStoppedError(EngineNotRunningError, ProviderStoppedError):
    """The managed engine this work used was stopped ('mnote-kr engine stop'): the stop wins, and nothing
    starts an engine again behind the user's back. ``stopped`` is the stop's record (``at``: when)."""

    def __init__(self, stopped: dict[str, Any], during: str | None = None) -> None:
        at = stopped.get("at")
        when = f" at {time.strftime('%H:%M:%S', time.localtime(at))}" if isinstance(at, (int, float)) else ""
        super().__init__(f"The managed LightRAG engine was stopped ('mnote-kr engine stop'{when})"
                         + (f" while {during} was under way" if during else ""), hint=START_HINT)


def stopped_during(state_dir: Any, started_at: float | None) -> dict[str, Any] | None:  # noqa: ANN401
    """The stop's record when the managed engine recorded under ``state_dir`` that started at ``started_at``
    (the one a call was made with) has been stopped since, else None (``engine/managed.py``: STOPPED_FILE)."""
    if started_at is None:
        return None
    try:
        from ..engine.managed import stopped_record
    except ImportError:
        return None
    record = stopped_record(state_dir)
    return record if record is not None and record.get("startedAt") == started_at else None


class ProviderHTTPError(ProviderError):
    """LightRAG answered with an HTTP error status."""

    @property
    def transient(self) -> bool:
        """A 5xx (server or proxy trouble): retry later rather than fail the work."""
        return self.status_code >= 500

    def __init__(self, message: str, *, url: str, status_code: int, detail: str | None,
                 hint: str | None = None) -> None:
        super().__init__(message, url=url, hint=hint)
        self.status_code = status_code
        self.detail = detail


def _one_line(text: str, limit: int = 160) -> str:
    """``text`` on one line, at most ``limit`` characters, cut between words (never mid-word)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" .,;:") + "…"


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _detail(payload: Any) -> str | None:
    """LightRAG's error text: ``detail`` (FastAPI) or ``message`` (query routes)."""
    if isinstance(payload, dict):
        detail = payload.get("detail", payload.get("message"))
        if isinstance(detail, str):
            return detail
        if isinstance(detail, list):  # 422: a list of validation errors, told as "field: message"
            parts = []
            for item in detail:
                if isinstance(item, dict) and item.get("msg"):
                    loc = ".".join(str(x) for x in item.get("loc") or [] if x != "body")
                    parts.append(f"{loc}: {item['msg']}" if loc else str(item["msg"]))
            if parts:
                return _one_line("; ".join(parts), 300)
        if detail is not None:
            return _one_line(json.dumps(detail, ensure_ascii=False), 300)
    return None


def _timed_out(exc: ProviderUnavailableError) -> bool:
    """Whether ``exc`` is a timeout (LightRAG reached but silent), not an unreachable server."""
    return exc.__cause__ is not None and _transport_failure(exc.__cause__) == "timeout"


def _transport_failure(exc: BaseException) -> str | None:
    """"timeout" or "transport" for httpx's network errors, else None (httpx loads lazily:
    when it is not imported, no exception can be one of its own)."""
    httpx = sys.modules.get("httpx")
    if httpx is None:
        return None
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx.TransportError):
        return "transport"
    return None


class LightRagClient:
    """Typed calls to one LightRAG server. Use as a context manager or call ``close()``."""

    def __init__(self, ctx: ProviderContext, url: str, api_key: str | None, *, timeout_s: float = 30.0,
                 search_wait_s: float = 0.0, engine_started_at: float | None = None) -> None:
        self.url = url.rstrip("/")
        #: The managed engine this server belongs to (its ``started_at``), None for a configured URL: a call
        #: failing after that engine was stopped says so (``EngineStoppedError``), not that it is unreachable.
        self.engine_started_at = engine_started_at
        self.timeout_s = timeout_s
        #: How long a search LightRAG holds while it indexes waits beyond ``timeout_s`` (``searchwait``).
        self.search_wait_s = search_wait_s
        self.clock, self.sleep = time.monotonic, time.sleep
        self._ctx = ctx
        self._saying = threading.Lock()  # one progress voice when the question and its translation both wait
        #: What :meth:`look_before_search` saw of LightRAG's work (None: no look).
        self.looked: dict[str, Any] | None = None
        headers = {"Accept": "application/json"}
        if api_key:
            headers["X-API-Key"] = api_key
        self.has_key = bool(api_key)
        self.api_key = api_key  # sent only as the header; never part of a message
        self._http = ctx.http_client(self.url, timeout=timeout_s, connect_timeout=min(3.0, timeout_s),
                                     headers=headers)

    def close(self) -> None:
        """Close the underlying connection pool."""
        self._http.close()

    def __enter__(self) -> LightRagClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ plumbing

    def _stopped(self, path: str) -> EngineStoppedError | None:
        """The error of a call whose managed engine was stopped meanwhile, else None."""
        stopped = stopped_during(self._ctx.state_dir, self.engine_started_at)
        if stopped is None:
            return None
        during = "this search" if path.startswith("/query") else "this work"
        return EngineStoppedError(stopped, during)

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        where = f"{self.url}{path}"
        try:
            return self._http.request(method, path, **kwargs)
        except Exception as exc:
            kind = _transport_failure(exc)
            if kind is not None and (stopped := self._stopped(path)) is not None:
                raise stopped from exc
            if kind == "timeout":
                raise ProviderUnavailableError(
                    f"LightRAG at {self.url} did not answer {method} {path} in time ({type(exc).__name__})",
                    url=where, hint="it may be overloaded; raise [providers.lightrag] timeout_s or retry later",
                ) from exc
            if kind == "transport":
                raise ProviderUnavailableError(
                    f"LightRAG is not reachable at {self.url} ({ENGINE_HINT})", url=where,
                ) from exc
            raise

    def _decode(self, response: httpx.Response, method: str, path: str) -> Any:
        try:
            return json.loads(response.content)
        except (ValueError, UnicodeDecodeError) as exc:
            kind = response.headers.get("content-type", "unknown type").split(";")[0]
            sample = _one_line(response.content[:120].decode("utf-8", "replace"), 60)
            raise ProviderError(
                f"LightRAG at {self.url} returned an unreadable answer to {method} {path} "
                f"(HTTP {response.status_code}, {kind}, not complete JSON: {sample!r})",
                url=f"{self.url}{path}", hint="is the URL really a LightRAG server?",
            ) from exc

    def _check(self, response: httpx.Response, method: str, path: str) -> Any:
        status = response.status_code
        if status < 400:
            return self._decode(response, method, path)
        try:
            payload: Any = json.loads(response.content)
        except (ValueError, UnicodeDecodeError):
            payload = None
        detail = _detail(payload)
        where = f"{self.url}{path}"
        if status >= 500 and (stopped := self._stopped(path)) is not None:  # its model service went first
            raise stopped
        shown = _one_line(detail) if detail else response.reason_phrase or "error"
        if status in (409, 429, 503):
            raise ProviderBusyError(f"LightRAG at {self.url} is busy (HTTP {status} on {path}): {shown}",
                                    url=where, retry_after=_retry_after(response))
        if status in (401, 403):
            what = "needs an API key" if not self.has_key else "rejected the API key"
            raise ProviderHTTPError(f"LightRAG at {self.url} {what} (HTTP {status}: {shown})", url=where,
                                    status_code=status, detail=detail, hint=AUTH_HINT)
        raise ProviderHTTPError(f"LightRAG at {self.url} answered HTTP {status} to {method} {path}: {shown}",
                                url=where, status_code=status, detail=detail)

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Send one request and return the decoded JSON body (raises ``ProviderError``)."""
        return self._check(self._send(method, path, **kwargs), method, path)

    def _dict(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        body = self.request(method, path, **kwargs)
        if not isinstance(body, dict):
            raise ProviderError(f"LightRAG at {self.url} returned an unexpected answer to {method} {path} "
                                f"({type(body).__name__} instead of an object)", url=f"{self.url}{path}")
        return body

    # ------------------------------------------------------------------ endpoints

    def health(self) -> dict[str, Any]:
        """``GET /health`` (always 200; with a valid key it adds directories and configuration)."""
        return self._dict("GET", "/health")

    def pipeline_status(self) -> dict[str, Any]:
        """``GET /documents/pipeline_status``."""
        return self._dict("GET", "/documents/pipeline_status")

    def status_counts(self) -> dict[str, int]:
        """``GET /documents/status_counts``: documents per status, lowercase (one small answer)."""
        body = self._dict("GET", "/documents/status_counts")
        counts = body.get("status_counts")
        if not isinstance(counts, dict):
            raise ProviderError(f"LightRAG at {self.url} returned no status_counts",
                                url=f"{self.url}/documents/status_counts")
        return {str(k).lower(): int(v) for k, v in counts.items() if isinstance(v, int)}

    def supported_suffixes(self) -> set[str]:
        """``GET /documents/supported_file_types`` → the lowercase suffixes a scan picks up."""
        body = self._dict("GET", "/documents/supported_file_types")
        values = body.get("supported_extensions") or []
        return {str(v).lower() for v in values if isinstance(v, str)}

    def scan(self) -> dict[str, Any]:
        """``POST /documents/scan``; check ``status`` for ``scanning_skipped_pipeline_busy``."""
        return self._dict("POST", "/documents/scan")

    def track_status(self, track_id: str) -> dict[str, Any]:
        """``GET /documents/track_status/{track_id}``."""
        return self._dict("GET", f"/documents/track_status/{track_id}")

    def documents_page(self, page: int, page_size: int = PAGE_SIZE,
                       status_filters: list[str] | None = None) -> dict[str, Any]:
        """One page of ``POST /documents/paginated``."""
        body: dict[str, Any] = {"page": page, "page_size": max(10, min(200, page_size)),
                                "sort_field": "id", "sort_direction": "asc"}
        if status_filters:
            body["status_filters"] = [s.lower() for s in status_filters]
        return self._dict("POST", "/documents/paginated", json=body)

    def all_documents(self, *, page_size: int = PAGE_SIZE, max_pages: int = 10_000) -> tuple[list[dict[str, Any]],
                                                                                            dict[str, int]]:
        """Every document row (all pages) and LightRAG's ``status_counts``."""
        documents: list[dict[str, Any]] = []
        counts: dict[str, int] = {}
        page = 1
        while page <= max_pages:
            body = self.documents_page(page, page_size)
            rows = body.get("documents") or []
            documents.extend(row for row in rows if isinstance(row, dict))
            if page == 1 and isinstance(body.get("status_counts"), dict):
                counts = {str(k): int(v) for k, v in body["status_counts"].items() if isinstance(v, int)}
            pagination = body.get("pagination") or {}
            total_pages = pagination.get("total_pages")
            if not rows or not pagination.get("has_next", False) or (
                    isinstance(total_pages, int) and page >= total_pages):
                break
            page += 1
        return documents, counts

    def delete_documents(self, doc_ids: list[str]) -> dict[str, Any]:
        """``DELETE /documents/delete_document``, always with ``delete_file=false``.

        The user's file is never deleted, and neither is LightRAG's LLM cache.
        """
        unique = list(dict.fromkeys(doc_ids))
        return self._dict("DELETE", "/documents/delete_document",
                          json={"doc_ids": unique, "delete_file": False, "delete_llm_cache": False})

    def cancel_pipeline(self) -> dict[str, Any]:
        """``POST /documents/cancel_pipeline``: LightRAG stops the run in progress and marks the
        documents it held ``failed`` (``{"status": "cancellation_requested"|"not_busy"}``)."""
        return self._dict("POST", "/documents/cancel_pipeline")

    def upload(self, name: str, data: bytes) -> dict[str, Any]:
        """``POST /documents/upload`` (multipart): a copy, used only when asked to."""
        return self._dict("POST", "/documents/upload", files={"file": (name, data)})

    def query_data(self, payload: dict[str, Any]) -> dict[str, Any]:
        """``POST /query/data``: retrieval only. Held while LightRAG indexes: waits, then asks once more."""
        return self._search("/query/data", payload)

    def query(self, payload: dict[str, Any]) -> dict[str, Any]:
        """``POST /query``: the answer (and references). Held while LightRAG indexes: as ``query_data``."""
        return self._search("/query", payload)

    def _search(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        """A search sent; when it gets no answer in time while LightRAG indexes, the wait of ``searchwait``:
        the pipeline status polled until the file being stored is stored, then the search sent once more,
        all within ``search_wait_s``. Past it (or with 0), one line saying what LightRAG indexes."""
        started = self.clock()
        try:
            return self._dict("POST", path, json=payload)
        except ProviderUnavailableError as exc:
            if not _timed_out(exc):
                raise
            what = self._indexing()
            if what is None:
                raise
            if self._wait_stored(what, started):
                try:
                    left = self.search_wait_s - (self.clock() - started - self.timeout_s)
                    return self._dict("POST", path, json=payload, timeout=max(self.timeout_s, left))
                except ProviderUnavailableError as again:
                    if not _timed_out(again):
                        raise
                    what = self._indexing() or what
                    raise self._held(what, started, again) from again
            raise self._held(what, started, exc) from exc

    def look_before_search(self, sent: tuple[str, ...]) -> dict[str, Any] | None:
        """With files the registry records as sent and not indexed yet (``QueryRequest.sent_files``; none: no
        request at all), one look at the pipeline status before a search: when LightRAG indexes, the line
        that this search may wait is said at once (before the ``timeout_s`` a held search waits unheard).
        What it saw, for the host (``diagnostics["indexing"]``): ``{"busy": false}`` (idle: done with every
        file sent, but for those its engine stopped in the middle of: ``interrupted``, when any), or busy with
        the files its history says it finished in this run (``done``); None: no look."""
        self.looked = None
        if not sent:
            return None
        try:
            status = self._dict("GET", "/documents/pipeline_status", timeout=searchwait.LOOK_S)
        except ProviderError:
            return None
        if not searchwait.at_work(status):
            stopped = self._interrupted(sent, status)
            self.looked = {"busy": False, **({"interrupted": stopped} if stopped else {})}
            return self.looked
        what = searchwait.indexing(status)
        line = None
        if what is not None and not what.deleting:
            line = searchwait.may_wait_line(what, self._name(what), self.timeout_s + max(0.0, self.search_wait_s))
            # a notice, not a transient progress line: one whole line on stderr at once, piped or on a terminal
            self._ctx.progress(searchwait.NOTE + line)
        done = searchwait.finished(status)
        self.looked = {"busy": True, "done": done + self._processed(sent, {*done, what.file if what else ""})}
        if line is not None:
            self.looked["said"] = line
        return self.looked

    def _interrupted(self, sent: tuple[str, ...], idle: dict[str, Any]) -> list[str]:
        """Which of ``sent`` an idle LightRAG still lists in flight (``interrupted``: its engine stopped in the
        middle of them, and nothing indexes them until a sync sends them again; nc26c: searches never named the
        handbook an engine stop left "processing"). One page of its documents in flight, oldest change first."""
        body = {"page": 1, "page_size": min(200, max(10, 2 * len(sent))), "sort_field": "updated_at",
                "sort_direction": "asc", "status_filters": ["pending", "parsing", "analyzing", "processing"]}
        try:
            page = self._dict("POST", "/documents/paginated", json=body, timeout=searchwait.LOOK_S)
        except ProviderError:
            return []
        rows = [r for r in page.get("documents") or [] if isinstance(r, dict) and r.get("file_path") in set(sent)]
        return sorted({str(r["file_path"]) for r in interrupted.interrupted(rows, idle, time.time())})

    def _processed(self, sent: tuple[str, ...], known: set[str]) -> list[str]:
        """Which of ``sent`` LightRAG has already indexed, in an earlier run than its current one (its history
        tells only this run's: nc22b, a file finished one job before was named as still being indexed). One
        page of the documents it processed last (``/documents/paginated``, newest first), asked only when a
        sent file is neither the one it indexes nor finished in this run; a file not on it keeps its word."""
        unknown = set(sent) - known
        if not unknown:
            return []
        body = {"page": 1, "page_size": min(200, max(10, 2 * len(unknown))), "status_filters": ["processed"],
                "sort_field": "updated_at", "sort_direction": "desc"}
        try:
            page = self._dict("POST", "/documents/paginated", json=body, timeout=searchwait.LOOK_S)
        except ProviderError:
            return []
        rows = page.get("documents") if isinstance(page.get("documents"), list) else []
        return sorted({str(r.get("file_path")) for r in rows if isinstance(r, dict) and r.get("file_path") in unknown
                       and str(r.get("status") or "").lower() == "processed"})

    def indexing(self) -> Indexing | None:
        """What LightRAG indexes (``/documents/pipeline_status``, 5 s at most; None: idle, or no answer)."""
        return self._indexing()

    def _indexing(self) -> Indexing | None:
        try:
            return searchwait.indexing(self._dict("GET", "/documents/pipeline_status", timeout=STATUS_TIMEOUT_S))
        except ProviderError:
            return None

    def _name(self, what: Indexing) -> str:
        """The user's own path of the file LightRAG indexes (the registry's), else its file name."""
        columns = getattr(self._ctx, "entry_columns", lambda: None)()
        return searchwait.registry_names(columns)(what)

    def _wait_stored(self, what: Indexing, started: float) -> bool:
        """Poll the pipeline status until the step that holds searches is over (True) or ``search_wait_s``
        ran out (False), with a progress line every few seconds."""
        begun = self.clock()
        if self.search_wait_s <= 0:
            return False
        name, said = self._name(what), None
        voice = self._saying.acquire(blocking=False)
        try:
            while (now := self.clock()) - begun < self.search_wait_s:
                if voice and (said is None or now - said >= searchwait.PROGRESS_EVERY_S):
                    said = now
                    self._ctx.progress(searchwait.waiting_line(what, name, now - started, self.search_wait_s
                                                               + self.timeout_s))
                self.sleep(searchwait.POLL_S)
                try:
                    status = self._dict("GET", "/documents/pipeline_status", timeout=STATUS_TIMEOUT_S)
                except EngineStoppedError:
                    raise  # stopped by the user: nothing to wait for
                except ProviderError:
                    continue  # not answering now: it may in a moment, within the same wait
                if searchwait.stored(what, status):
                    return True
            return False
        finally:
            if voice:
                self._saying.release()

    def _held(self, what: Indexing, started: float, exc: ProviderUnavailableError) -> ProviderUnavailableError:
        """The error of a search LightRAG held for all it could wait (``searchwait.gave_up``)."""
        message = searchwait.gave_up(what, self._name(what), self.clock() - started)
        return ProviderUnavailableError(message, url=exc.url, hint="raise [providers.lightrag] search_wait_s "
                                        "to let a search wait longer while LightRAG indexes")

    def query_stream(self, payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """``POST /query/stream``: yields each NDJSON object; an ``{"error": ...}`` line raises."""
        path = "/query/stream"
        try:
            with self._http.stream("POST", path, json=payload) as response:
                if response.status_code >= 400:
                    response.read()
                    self._check(response, "POST", path)
                for line in response.iter_lines():
                    if not line.strip():
                        continue
                    try:
                        item = json.loads(line)
                    except ValueError as exc:
                        raise ProviderError(
                            f"LightRAG at {self.url} sent an unreadable stream line ({_one_line(line, 60)!r})",
                            url=f"{self.url}{path}") from exc
                    if not isinstance(item, dict):
                        continue
                    if "error" in item:
                        raise ProviderError(f"LightRAG at {self.url} reported an error while answering: "
                                            f"{_one_line(str(item['error']))}", url=f"{self.url}{path}")
                    yield item
        except Exception as exc:
            kind = _transport_failure(exc)
            if kind is not None and (stopped := self._stopped(path)) is not None:
                raise stopped from exc
            if kind == "timeout":
                plain = ProviderUnavailableError(f"LightRAG at {self.url} did not answer {path} in time",
                                                 url=f"{self.url}{path}")
                what = self._indexing()  # held while LightRAG indexes: said so (an answer under way is not resent)
                raise (plain if what is None else self._held(what, self.clock() - self.timeout_s, plain)) from exc
            if kind == "transport":
                raise ProviderUnavailableError(f"LightRAG is not reachable at {self.url} ({ENGINE_HINT})",
                                               url=f"{self.url}{path}") from exc
            raise
