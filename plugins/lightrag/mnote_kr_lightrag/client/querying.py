"""Queries: ``/query/data`` for references, ``/query`` or ``/query/stream`` for the answer.

``enable_rerank``: LightRAG 1.5.7 defaults it to *on* and logs a warning on every query
when no reranker is configured. So the request's value is sent when the caller set
one; otherwise the server's own configured ``enable_rerank`` (from ``/health``) is
sent, which keeps a configured reranker working and silences the warning when there
is none (``false`` when ``/health`` does not say).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from mnote_kr.plugin_api import (
    ProviderContext,
    ProviderError,
    ProviderQueryResult,
    ProviderReference,
    QueryRequest,
    UsageError,
)

from . import crossquery, meaningquery, naming, passages, workbooks
from .http import LightRagClient, ProviderHTTPError
from .links import TEXT_MARKS
from .provider import as_dict
from .settings import Settings, cached_health, is_offline_llm, open_client, resolve_settings

PROVIDER = "lightrag"
MODES = frozenset({"local", "global", "naive", "mix", "bypass"})
#: One line: what is missing and how to add it (a running engine keeps its models until it is stopped).
#: The no-LLM note opens with this; :func:`no_llm_note` says where to configure one.
NO_LLM_NOTE = "No LLM is configured, so there is no answer, only citations"


def no_llm_note(ctx: ProviderContext) -> str:
    """The no-LLM note with the real paths of the two ``config.toml`` files the managed engine's LLM is read
    from: the home's (every workspace; ``MNOTE_KR_HOME/config`` when set) and this workspace's, which
    overrides it."""
    from mnote_kr.plugin_api import paths  # noqa: PLC0415 - only when the note is given

    home, here = paths.config_dir() / "config.toml", ctx.workspace_root / ".mnote" / "config.toml"
    return (f"{NO_LLM_NOTE}; for answers, set host and model under [providers.lightrag.engine.llm] in {home} "
            f"(every workspace) or {here} (this workspace), then restart the engine: 'mnote-kr engine stop', "
            "then 'mnote-kr engine start' (README: Configuration)")


NO_CONTEXT_NOTE = "LightRAG found nothing in the knowledge base for this question"
NO_CONTEXT_MARK = "[no-context]"
#: Modes that read only LightRAG's knowledge graph: nothing without one (the managed offline engine
#: skips the graph's extraction), where ``mix`` still reads the passages.
GRAPH_MODES = ("local", "global")
GRAPH_NOTE = ("LightRAG's knowledge graph holds nothing for this question (the offline engine builds none): "
              "its passages were searched instead (mode mix)")
OTHER_WORKSPACES_NOTE = ("This LightRAG also holds other workspaces; its answer text may draw on their passages, "
                         "the citations are this workspace's only")
#: LightRAG 1.5.7's default ``chunk_top_k`` and the request limits (``MAX_QUERY_TOP_K``,
#: ``MAX_QUERY_TOKEN_BUDGET``): the bounds of the over-fetch that keeps a workspace from being
#: crowded out by another one sharing the server.
DEFAULT_CHUNK_TOP_K = 20
MAX_CHUNK_TOP_K = 1000
OVERFETCH_TOKEN_BUDGET = 1_000_000
OVERFETCH_FACTOR = 4


def normalize_mode(mode: str) -> str:
    """LightRAG query mode; ``hybrid`` is an alias of ``mix``."""
    value = (mode or "mix").strip().lower()
    if value == "hybrid":
        return "mix"
    if value not in MODES:
        raise UsageError(f"Unknown query mode {mode!r}", hint="use one of: mix, hybrid, local, global, naive, bypass")
    return value


def _graph_found(body: dict[str, Any]) -> bool:
    """Did the graph give entities or relationships (``/query/data``'s ``data``)?"""
    data = body.get("data") if isinstance(body.get("data"), dict) else {}
    return bool(data.get("entities") or data.get("relationships"))


def _health(ctx: ProviderContext, client: LightRagClient) -> dict[str, Any]:
    try:
        return cached_health(ctx, client)
    except ProviderError:
        return {}


def build_payload(request: QueryRequest, health: dict[str, Any]) -> dict[str, Any]:
    """The JSON body shared by ``/query/data``, ``/query`` and ``/query/stream``."""
    payload: dict[str, Any] = {
        "query": request.query,
        "mode": normalize_mode(request.mode),
        "top_k": request.top_k,
        "include_references": True,
        "include_chunk_content": True,
    }
    if request.chunk_top_k is not None:
        payload["chunk_top_k"] = request.chunk_top_k
    if request.enable_rerank is not None:
        payload["enable_rerank"] = request.enable_rerank
    else:
        configuration = as_dict(health.get("configuration"))
        payload["enable_rerank"] = bool(configuration.get("enable_rerank", False))
    return payload


def without_wrapper_header(content: str | None) -> str | None:
    """A text-fallback wrapper's first chunk without the wrapper's own first line (ours, not the
    user's text: it must not reach a quote or the locator's evidence)."""
    if content is None or not content.startswith(TEXT_MARKS):
        return content
    return content.partition("\n")[2].lstrip("\n")


def _reference(file_path: str, *, rank: int, reference_id: Any = None, chunk_id: str | None = None,
               content: str | None = None) -> ProviderReference:
    content = without_wrapper_header(content)
    if content and workbooks.linked_workbook(file_path):  # LightRAG's cell escapes, undone once, here
        content = workbooks.unescaped_cells(content)
    doc_id = naming.doc_id_from_chunk_id(chunk_id) or (naming.doc_id_for(file_path) if file_path else None)
    return ProviderReference(provider=PROVIDER, file_path=file_path,
                             reference_id=str(reference_id) if reference_id is not None else None,
                             chunk_id=chunk_id, doc_id=doc_id, content=content, rank=rank,
                             chunk_order=naming.chunk_order(chunk_id))


def references_from_data(data: Any) -> list[ProviderReference]:
    """One reference per retrieved chunk, in LightRAG's order (``rank`` 1 = first).

    Built from ``data.chunks``; ``data.references`` (file names only) supplies missing
    file names, and is used alone when there are no chunks. ``data: {}`` → no results.
    """
    if not isinstance(data, dict):
        return []
    refs = [r for r in data.get("references") or [] if isinstance(r, dict)]
    names = {str(r.get("reference_id")): str(r.get("file_path") or "") for r in refs}
    chunks = [c for c in data.get("chunks") or [] if isinstance(c, dict)]
    out: list[ProviderReference] = []
    if chunks:
        for chunk in chunks:
            file_path = str(chunk.get("file_path") or names.get(str(chunk.get("reference_id")), ""))
            if not file_path:
                continue
            out.append(_reference(file_path, rank=len(out) + 1, reference_id=chunk.get("reference_id"),
                                  chunk_id=chunk.get("chunk_id"), content=chunk.get("content")))
        return out
    for ref in refs:
        if ref.get("file_path"):
            out.append(_reference(str(ref["file_path"]), rank=len(out) + 1, reference_id=ref.get("reference_id")))
    return out


def references_from_answer(refs: Any) -> list[ProviderReference]:
    """References in ``/query`` or ``/query/stream`` shape (``content`` is a list of chunk texts)."""
    out: list[ProviderReference] = []
    for ref in refs or []:
        if not isinstance(ref, dict) or not ref.get("file_path"):
            continue
        texts = ref.get("content")
        if isinstance(texts, list) and texts:
            for text in texts:
                out.append(_reference(str(ref["file_path"]), rank=len(out) + 1,
                                      reference_id=ref.get("reference_id"), content=str(text)))
        else:
            out.append(_reference(str(ref["file_path"]), rank=len(out) + 1, reference_id=ref.get("reference_id")))
    return out


#: LightRAG 1.5.7's own limit on a query (``lightrag.constants.MAX_QUERY_CHARS``).
MAX_QUERY_CHARS = 64 * 1024


def check_query(request: QueryRequest) -> None:
    """Refuse, before sending, a query LightRAG would refuse with a raw validation error."""
    if len(request.query) > MAX_QUERY_CHARS:
        raise UsageError(f"The query is {len(request.query)} characters long;"
                         f" LightRAG accepts at most {MAX_QUERY_CHARS}",
                         hint="shorten it to the phrase or question you are looking for")


def own_references(references: list[ProviderReference], ws: str) -> tuple[list[ProviderReference], int]:
    """Drop references to another workspace's documents; re-rank the rest. Returns (kept, dropped)."""
    kept = [r for r in references if not naming.is_foreign(r.file_path or "", ws)]
    if len(kept) == len(references):
        return references, 0
    return [msgspec.structs.replace(r, rank=rank) for rank, r in enumerate(kept, start=1)], len(references) - len(kept)


def retrieve_own(client: LightRagClient, payload: dict[str, Any],
                 ws: str) -> tuple[dict[str, Any], list[ProviderReference], int]:
    """``/query/data`` until this workspace has its share of chunks, whatever other workspaces hold.

    LightRAG ranks chunks over every document it stores. When other workspaces' chunks take
    places in the top ``chunk_top_k``, ask again for ``OVERFETCH_FACTOR`` times more (with a
    token budget that does not cut them), until this workspace has ``chunk_top_k`` chunks, the
    server has no more to give, or LightRAG's limit (1000) is reached. Returns the last body,
    this workspace's references and the number of foreign chunks seen.
    """
    wanted = int(payload.get("chunk_top_k") or DEFAULT_CHUNK_TOP_K)
    asked = wanted
    while True:
        body = client.query_data(payload)
        raw = references_from_data(body.get("data"))
        refs, foreign = own_references(raw, ws)
        exhausted = len(raw) < asked
        if not foreign or len(refs) >= wanted or exhausted or asked >= MAX_CHUNK_TOP_K:
            return body, refs[:wanted] if foreign else refs, foreign
        asked = min(MAX_CHUNK_TOP_K, asked * OVERFETCH_FACTOR)
        payload = {**payload, "chunk_top_k": asked, "max_total_tokens": OVERFETCH_TOKEN_BUDGET}


def _similarity(models_url: str, query: str, references: list[ProviderReference], timeout_s: float,
                models_key: str | None) -> list[float]:
    """Each chunk's similarity to ``query`` (the offline model service's ``/v1/rerank``)."""
    import httpx

    # trust_env=False: a loopback service never goes through a proxy (the texts are the user's).
    reply = httpx.post(f"{models_url}/v1/rerank", timeout=timeout_s, trust_env=False,
                       headers={"Authorization": f"Bearer {models_key}"} if models_key else None,
                       json={"query": query, "documents": [r.content or "" for r in references]})
    reply.raise_for_status()
    similarity = [0.0] * len(references)
    for item in reply.json()["results"]:
        similarity[int(item["index"])] = float(item["relevance_score"])
    return similarity


def rank_found_files(models_url: str, query: str, references: list[ProviderReference], wanted: int,
                     timeout_s: float, models_key: str | None = None, translation: str | None = None,
                     extra: list[list[ProviderReference]] | None = None) -> list[ProviderReference]:
    """LightRAG's first ``wanted`` slots, each file's filled with its chunks that best match the
    query (:mod:`.passages`), scored by the offline model service's ``/v1/rerank``; with a
    ``translation`` of the query, the files it ``extra`` adds (each its candidate chunks), their
    chunks scored against it in a second, small call beside the first, each file placed by its
    best (:func:`crossquery.place`).

    Any failure of the service (an old one without ``/rerank``, a timeout) keeps LightRAG's
    own first ``wanted`` (the added files after them): ranking passages improves a search, it
    never fails one.
    """
    import httpx

    candidates = [r for group in extra or [] for r in group] if translation else []
    box: list[list[float]] = []

    def score_added() -> None:
        try:
            box.append(_similarity(models_url, translation or "", candidates, timeout_s, models_key))
        except (httpx.HTTPError, ValueError, KeyError, TypeError, IndexError):
            pass

    beside = threading.Thread(target=score_added, name="mnote-kr-lightrag-rerank-added", daemon=True)
    if candidates:
        beside.start()
    ranked, best = references[:wanted], None
    if len(references) > 1:
        try:
            similarity = _similarity(models_url, query, references, timeout_s, models_key)
            ranked = passages.fill_slots(references, passages.chunk_scores(similarity), wanted)
            best = {}
            for ref, sim in zip(references, similarity, strict=True):
                best[ref.file_path] = max(sim, best.get(ref.file_path, sim))
        except (httpx.HTTPError, ValueError, KeyError, TypeError, IndexError):
            pass
    if not candidates:
        return ranked
    beside.join()
    if best is None or not box:  # unscored: each added file's first chunk, after the question's own
        return crossquery.place(ranked, [(group[0], 0.0) for group in extra or []], None, wanted)
    scores = dict(zip((id(r) for r in candidates), box[0], strict=True))
    picks = [max(group, key=lambda r: scores[id(r)]) for group in extra or []]
    return crossquery.place(ranked, [(r, scores[id(r)]) for r in picks], best, wanted)


def _add_scored(settings: Settings, query: str, translation: str, references: list[ProviderReference],
                extra: list[list[ProviderReference]]) -> list[ProviderReference]:
    """The translation's added files placed among the question's first ``SCORED_FILES`` files by the
    model service's scores: each of those (its first chunk) by its better match of the question and
    the translation (a file in the other language matches the question weakly, its translation
    well), each added candidate by its match of the translation. Two small calls side by side;
    without the service, or when it fails, the added follow the question's own."""
    import httpx

    own: list[ProviderReference] = []
    for ref in references:
        if len(own) < crossquery.SCORED_FILES and ref.file_path not in {r.file_path for r in own}:
            own.append(ref)
    candidates = [r for group in extra for r in group]
    unscored = crossquery.place(references, [(group[0], 0.0) for group in extra], None, len(references) + len(extra))
    if settings.scorer_url is None or not own:
        return unscored
    box: list[list[float]] = []

    def score_translation() -> None:
        try:
            box.append(_similarity(settings.scorer_url or "", translation, [*own, *candidates], settings.timeout_s,
                                   settings.models_key))
        except (httpx.HTTPError, ValueError, KeyError, TypeError, IndexError):
            pass

    beside = threading.Thread(target=score_translation, name="mnote-kr-lightrag-score-added", daemon=True)
    beside.start()
    try:
        mine = _similarity(settings.scorer_url, query, own, settings.timeout_s, settings.models_key)
    except (httpx.HTTPError, ValueError, KeyError, TypeError, IndexError):
        return unscored
    finally:
        beside.join()
    if not box:
        return unscored
    scores = dict(zip((id(r) for r in candidates), box[0][len(own):], strict=True))
    picks = [max(group, key=lambda r: scores[id(r)]) for group in extra]
    best = {r.file_path: max(q, t) for r, q, t in zip(own, mine, box[0][:len(own)], strict=True)}
    return crossquery.place(references, [(r, scores[id(r)]) for r in picks], best, len(references) + len(picks))


def _query_error(exc: ProviderHTTPError) -> Exception:
    if exc.status_code in (400, 422):
        said = str(exc.detail or exc.message)
        short = "too short" in said.lower()  # a one-letter query: LightRAG wants a few characters more
        return UsageError(f"LightRAG refused the query: {said}",
                          hint="give a few more words" if short else "shorten or rephrase the query")
    return exc


def _prepare(ctx: ProviderContext, request: QueryRequest) -> tuple[Settings, LightRagClient, dict[str, Any],
                                                                   dict[str, Any]]:
    """What a query checks and asks before sending it: the request, the server, ``/health``."""
    check_query(request)
    settings = resolve_settings(ctx)
    client = open_client(ctx, settings)
    try:
        health = _health(ctx, client)
        payload = build_payload(request, health)
        client.look_before_search(request.sent_files)  # said at once when LightRAG indexes them
    except BaseException:
        client.close()
        raise
    return settings, client, health, payload


def run_query(ctx: ProviderContext, request: QueryRequest) -> ProviderQueryResult:
    """Retrieve references and, when asked, LightRAG's answer."""
    settings, client, health, payload = _prepare(ctx, request)
    with client:
        return _finish(ctx, request, settings, client, health, payload)


def start_query(ctx: ProviderContext, request: QueryRequest) -> Callable[[], ProviderQueryResult]:
    """``run_query`` with its request sent from a thread: returns at once a function that waits.

    The checks, the settings and ``/health`` run here, so their errors are raised to the caller
    as ``run_query`` raises them; the thread sends ``/query/data`` (and ``/query``), whose
    errors the returned function raises. While LightRAG works, this thread loads the mapping
    code the answer's references go through.
    """
    settings, client, health, payload = _prepare(ctx, request)
    box: dict[str, Any] = {}
    begun = threading.Event()

    def work() -> None:
        begun.set()
        try:
            with client:
                box["result"] = _finish(ctx, request, settings, client, health, payload)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller, raised there
            box["error"] = exc

    # A daemon: a caller that fails or is interrupted meanwhile does not wait for LightRAG to exit.
    thread = threading.Thread(target=work, name="mnote-kr-lightrag-query", daemon=True)
    thread.start()
    begun.wait()  # the request goes out before this thread takes the interpreter back for imports
    from . import mapping  # noqa: F401 - the next hook the answer goes through; loads meanwhile

    def wait() -> ProviderQueryResult:
        thread.join()
        if "error" in box:
            error: BaseException = box.pop("error")
            raise error
        result: ProviderQueryResult = box["result"]
        return result

    return wait


#: The translation (None: none sent), the references it found and why none were (a ``crossquery`` reason).
_Translated = tuple[str | None, list[ProviderReference], str | None]


def _retrieve_translated(client: LightRagClient, payload: dict[str, Any], on: bool | None, ws: str,
                         sent: threading.Event) -> Callable[[], _Translated]:
    """The question translated and ``/query/data`` with it, in a thread beside the question's own
    query: returns a function that waits for the translation, its references (none when there
    is no translation or the query failed: the question's own stand alone, a translation only
    adds) and why none came (:func:`crossquery.translation`). The thread starts translating once
    ``sent`` is set, as the question's own query goes out: in a fresh process the dictionary's load
    (~0.4 s holding the interpreter) then runs while LightRAG works, not before it is asked."""
    box: list[_Translated] = []

    def work() -> None:
        sent.wait()
        translation, why = crossquery.translation(payload["query"], on)
        try:
            box.append((translation, retrieve_own(client, {**payload, "query": translation}, ws)[1]
                        if translation else [], why))
        except ProviderError:
            box.append((translation, [], crossquery.FAILED))

    thread = threading.Thread(target=work, name="mnote-kr-lightrag-translated", daemon=True)
    thread.start()

    def wait() -> _Translated:
        thread.join()
        return box[0] if box else (None, [], crossquery.FAILED)

    return wait


def _finish(ctx: ProviderContext, request: QueryRequest, settings: Settings, client: LightRagClient,
            health: dict[str, Any], payload: dict[str, Any]) -> ProviderQueryResult:
    """Send the prepared query (``/query/data``; ``/query`` for an answer) and read the result."""
    wanted = int(payload.get("chunk_top_k") or DEFAULT_CHUNK_TOP_K)
    rank_passages = settings.models_url is not None and payload["mode"] != "bypass"
    deeper_files = settings.deeper_files if payload["mode"] != "bypass" else 0
    if rank_passages or deeper_files:  # passages are ranked over the deeper list; deeper files come from 2x
        payload = {**payload, "chunk_top_k": passages.deeper(wanted) if rank_passages
                   else passages.deeper(wanted, passages.DEEPER_FILES_FACTOR)}
    graph_note = None
    ws = naming.workspace_tag(ctx.workspace_root)
    known = crossquery.Languages(ctx.state_dir, ws) if crossquery.switched_on(settings.translate) else None
    second, sent = None, threading.Event()
    why = crossquery.why_not_asked(request.query, known, payload["mode"])
    if why is None:
        second = _retrieve_translated(client, payload, settings.translate, ws, sent)
    meant = meaningquery.start(client, payload, ws, retrieve_own) if settings.meaning_query else None
    try:
        sent.set()  # the question's own query goes out now: the translation's thread may take the interpreter
        body, references, foreign = retrieve_own(client, payload, ws)
        if not references and payload["mode"] in GRAPH_MODES and not _graph_found(body):
            # the graph holds nothing for it (the managed offline engine builds none): its passages instead
            payload = {**payload, "mode": "mix"}
            body, references, foreign = retrieve_own(client, payload, ws)
            graph_note = GRAPH_NOTE
    except ProviderHTTPError as exc:
        raise _query_error(exc) from exc
    translation, theirs, why = second() if second is not None else (None, [], why)
    if known is not None:  # a search that sent no translation only learns files, never closes the gate
        known.learn([*references, *theirs], crossquery.other_language(request.query) if translation else None)
    deeper_list = references
    own = passages.with_deeper_files(references[:wanted], deeper_list, wanted, deeper_files, request.query)
    extra = crossquery.added(references, theirs, wanted) if theirs else []
    if rank_passages or deeper_files:
        payload = {**payload, "chunk_top_k": wanted}  # the answer below uses the user's depth
    if rank_passages:
        references = rank_found_files(settings.models_url or "", request.query, references, wanted,
                                      settings.timeout_s, settings.models_key, translation=translation, extra=extra)
    else:
        references = references[:wanted]
        if extra:
            references = _add_scored(settings, request.query, translation or "", references, extra)
    if meant is not None:  # files in another script than the question's, found by its meaning
        references = meaningquery.added_files(references, meant(), request.query)
    if deeper_files:  # the deeper list's first files the slots lack, after them: the host ranks them
        references = passages.with_deeper_files(references, deeper_list, wanted, deeper_files, request.query)
    status = str(body.get("status", ""))
    metadata = as_dict(body.get("metadata"))
    if status == "failure" and metadata.get("failure_reason") != "no_results":
        raise ProviderError(f"LightRAG could not run the query: {body.get('message') or 'unknown failure'}",
                            url=f"{settings.url}/query/data")
    configuration = as_dict(health.get("configuration"))
    result = ProviderQueryResult(provider=PROVIDER, references=references,
                                 raw_status="no_results" if not references else status or "success",
                                 rerank_requested=bool(request.enable_rerank),
                                 rerank_enabled=bool(payload.get("enable_rerank"))
                                 and configuration.get("rerank_binding") not in (None, "null", ""),
                                 rerank_model=configuration.get("rerank_model"),
                                 diagnostics={"translation": crossquery.account(translation, why, own, references),
                                              **({"indexing": client.looked} if client.looked else {})})
    if graph_note:
        result.notes.append(graph_note)
    if known is not None and known.problem:
        result.notes.append(known.problem)
    if not request.want_answer:
        return result
    if is_offline_llm(settings, health):
        result.notes.append(no_llm_note(ctx))
        return result
    if not references and payload["mode"] != "bypass":
        result.notes.append(NO_CONTEXT_NOTE)
        return result
    if foreign:  # only an answer text can draw on them
        result.notes.append(f"{OTHER_WORKSPACES_NOTE} ({foreign} passage(s) seen)")
    try:
        answer = client.query({**payload, "include_references": False, "include_chunk_content": False})
    except ProviderHTTPError as exc:
        raise _query_error(exc) from exc
    text = answer.get("response")
    if not isinstance(text, str) or NO_CONTEXT_MARK in text:
        result.notes.append(NO_CONTEXT_NOTE)
        return result
    result.answer = text
    result.llm_generated = bool(answer.get("llm_generated", True))
    return result


@dataclass(frozen=True)
class StreamEvent:
    """One event of ``stream_answer``.

    ``kind``: ``progress`` (``text`` is the stage), ``references``, ``delta`` (``text`` is
    the next piece of the answer), ``note`` (``text``), ``done`` (``data`` has
    ``response_time``/``llm_generated`` when LightRAG sent them).
    """

    kind: str
    text: str = ""
    references: list[ProviderReference] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def stream_events(lines: Iterator[dict[str, Any]]) -> Iterator[StreamEvent]:
    """Turn ``/query/stream`` NDJSON objects into events (both shapes LightRAG sends).

    Incremental: ``{"references"}`` then ``{"response": delta}``... (``{"progress"}`` and
    ``{"response_time"}`` optional). Complete (LLM cache, no context): one line with
    ``response``, ``references`` and ``llm_generated``.
    """
    done: dict[str, Any] = {}
    for item in lines:
        if "progress" in item:
            yield StreamEvent(kind="progress", text=str(item["progress"]))
        if "response" in item and ("references" in item or "llm_generated" in item):
            refs = references_from_answer(item.get("references"))
            if refs:
                yield StreamEvent(kind="references", references=refs)
            text = str(item.get("response") or "")
            if NO_CONTEXT_MARK in text:
                yield StreamEvent(kind="note", text=NO_CONTEXT_NOTE)
            elif text:
                yield StreamEvent(kind="delta", text=text)
            done["llm_generated"] = bool(item.get("llm_generated", False))
        elif "references" in item:
            yield StreamEvent(kind="references", references=references_from_answer(item.get("references")))
        elif "response" in item:
            if item["response"]:
                yield StreamEvent(kind="delta", text=str(item["response"]))
        if "response_time" in item:
            done["response_time"] = item["response_time"]
    yield StreamEvent(kind="done", data=done)


def stream_answer(ctx: ProviderContext, request: QueryRequest) -> Iterator[StreamEvent]:
    """Stream LightRAG's answer (``/query/stream``) as ``StreamEvent``s.

    With the offline model service (no LLM) it yields one ``note`` and ``done``.
    An ``{"error": ...}`` line raises ``ProviderError``.
    """
    settings: Settings = resolve_settings(ctx)
    client = open_client(ctx, settings)
    try:
        health = _health(ctx, client)
        if is_offline_llm(settings, health):
            yield StreamEvent(kind="note", text=no_llm_note(ctx))
            yield StreamEvent(kind="done")
            return
        payload = {**build_payload(request, health), "stream": True}
        try:
            yield from stream_events(client.query_stream(payload))
        except ProviderHTTPError as exc:
            raise _query_error(exc) from exc
    finally:
        client.close()
