"""The managed local LightRAG engine (``mnote-kr engine start|stop|status``).

:func:`start_engine` runs a real ``lightrag-server`` (``pip install 'mnote-kr[engine]'``) on
loopback. Its working and input dirs live under ``<data_dir>/engine/``; it runs from a scratch
directory without ``.env`` (``<state_dir>/engine-run/``, which also holds its logs). When the
configuration names no LLM or embedding endpoint, the offline model service
(:mod:`mnote_kr_lightrag.engine.modelservice`) runs beside it as a second process, and ingestion skips
knowledge-graph extraction (LightRAG's ``!`` parser option), so nothing needs an LLM; answers
then come back as ``modelservice.NO_LLM_ANSWER`` and the provider reports ``answer: null``.

The server runs through :mod:`mnote_kr_lightrag.engine.guard`: LightRAG's own server whose app is
wrapped in a check of Host, Origin and key, so nothing but ``/health`` answers without the
engine's key and no other origin or host name reaches it (``docs/security.md``).

The PIDs, URL and a random API key go to ``<state_dir>/engine.json`` (mode 0600, atomic).
:func:`stop_engine` signals only those PIDs, and only after checking that each one still runs
the program we started. The pieces are plain functions so tests start the engine through
exactly this code (:mod:`mnote_kr_testkit.engine`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from mnote_kr.plugin_api import ProviderError

from .health import get, guard_active, health, wait_until
from .procs import CHILDREN, MARKERS, base_env, is_our_process, make_private, reap_exited, spawn, terminate

if TYPE_CHECKING:
    import subprocess

# What only starting and stopping need (the model service, the index record, the tiktoken
# cache, file locks, subprocesses, signals, sockets, temp files) loads in those functions:
# engine_status() runs in every status and search process and needs none of it.

STATE_FILE = "engine.json"
#: Left by :func:`engine_status` when it finds the recorded server gone without a stop, so that
#: the next error can say the engine died (and where its log is) rather than that none is set up.
DIED_FILE = "engine-died.json"
#: Written by :func:`stop_engine` before it signals anything, and removed by the next start: a workspace's
#: server is never started on demand for an engine a stop has begun on (:func:`stopped_record`), and work
#: that was using that engine says it was stopped rather than that it is unreachable.
STOPPED_FILE = "engine-stopped.json"
RUN_DIR = "engine-run"
STATE_VERSION = 1

#: Seconds LightRAG waits for one embedding call of the offline model service (LightRAG's own
#: default, 30, is for a remote API; a local model on a busy CPU needs more, and nothing is lost by waiting).
OFFLINE_EMBEDDING_TIMEOUT_S = 600
#: Chunk parameters for every rule: smaller chunks make citations more precise than the
#: default 1200 tokens (verified: accepted for native and legacy, see the integration test).
CHUNK = "F(chunk_ts=400,chunk_ol=40)"
#: Offline default: native parser (sidecars) for DOCX/MD, legacy text for PDF/TXT; ``!`` skips
#: KG extraction so ingestion makes embedding calls only.
OFFLINE_PARSER_RULES = f"docx:native-!{CHUNK};md:native-!{CHUNK};txt:legacy-!{CHUNK};pdf:legacy-!{CHUNK}"
#: With a real LLM configured, the knowledge graph is built as usual.
LLM_PARSER_RULES = f"docx:native-{CHUNK};md:native-{CHUNK};txt:legacy-{CHUNK};pdf:legacy-{CHUNK}"

#: LightRAG's defaults open /api/* (its Ollama-compatible chat) without the key and allow every
#: CORS origin. The guard refuses both anyway; with these LightRAG's own checks agree with it.
LOCKDOWN_ENV = {"WHITELIST_PATHS": "/health", "CORS_ORIGINS": ""}



class EngineInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A running managed engine, as recorded in ``engine.json``.

    ``pids`` maps ``"server"`` (and ``"models"`` when the offline service runs) to a PID.
    ``offline_llm`` is true when chat goes to the offline service (no real answers).
    ``shared_models_pid``: the PID of another engine's model service this one uses (a workspace's
    server on the shared engine's, :mod:`.modelshare`); not in ``pids``, so a stop leaves it running.
    """

    version: int = STATE_VERSION
    url: str
    api_key: str
    input_dir: str
    working_dir: str
    pids: dict[str, int]
    offline_models: bool
    offline_llm: bool = True
    models_url: str | None = None
    #: The offline model service's key (a new one each start): LightRAG's bindings send it.
    models_key: str | None = None
    run_dir: str = ""
    server_log: str = ""
    lightrag_log: str = ""
    models_log: str | None = None
    parser_rules: str = ""
    embedder: dict[str, Any] | None = None  # name, dim, version of what embeds the index
    vector_storage: str = ""  # LightRAG's vector storage class of this namespace (storage.py)
    storage_note: str | None = None  # why it is not the default, for the one who started it
    shared_models_pid: int | None = None
    started_at: float = 0.0
    start_seconds: float = 0.0
    healthy: bool = True


_decoder = msgspec.json.Decoder(EngineInfo)


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------


def free_port(host: str = "127.0.0.1") -> int:
    """Return a port that is free on ``host`` right now (the OS picks it)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def require_server() -> list[str]:
    """The command that runs the guarded ``lightrag-server`` in this interpreter.

    The guard imports LightRAG's server module, so LightRAG's API extra must be installed in
    the interpreter that runs mnote-kr (checked without importing it: that takes seconds).
    """
    if importlib.util.find_spec("lightrag") is None or importlib.util.find_spec("uvicorn") is None:
        raise ProviderError("lightrag-server not installed", hint="pip install 'mnote-kr[engine]'")
    return [sys.executable, "-m", "mnote_kr_lightrag.engine.guard"]


def _write_state(path: Path, info: EngineInfo) -> None:
    from mnote_kr.plugin_api import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomic(path, msgspec.json.encode(info), private=True, durable=True)


def read_state(state_dir: Path) -> EngineInfo | None:
    """Return the recorded engine (alive or not), or None when there is no readable record."""
    path = Path(state_dir) / STATE_FILE
    try:
        return _decoder.decode(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None


def _endpoint(cfg: Mapping[str, Any], kind: str) -> tuple[str, str, str]:
    host = cfg.get("host") or cfg.get("url") or cfg.get("base_url")
    model = cfg.get("model")
    if not host or not model:
        raise ProviderError(f"{kind} endpoint needs 'host' (OpenAI-compatible base URL) and 'model'",
                            hint=f"set [{kind}] host and model in config.toml, or remove it for offline mode")
    return str(host).rstrip("/"), str(model), str(cfg.get("api_key") or "none")


# ---------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------


def default_engine_dirs() -> dict[str, Path]:
    """The host's directories for the engine: ``data_dir``, ``state_dir``, ``cache_dir`` (platformdirs).

    ``start_engine(**default_engine_dirs())`` is what ``mnote-kr engine start`` runs.
    """
    from mnote_kr.plugin_api import paths

    return {"data_dir": paths.data_dir(), "state_dir": paths.state_dir(), "cache_dir": paths.cache_dir()}


def engine_status(state_dir: Path, *, check_health: bool = True) -> EngineInfo | None:
    """Return the recorded engine when its server process is ours and alive, else None.

    A record whose server is gone is stale: the offline model service it left behind (if it is
    still ours) is stopped and the record removed. A live server that does not answer
    ``/health`` within a few seconds is returned with ``healthy=False``. ``check_health=False``
    skips that request (``healthy`` is then as recorded): for callers that only need the record
    of a live process, such as the settings of a workspace served by its own server.
    """
    state_dir = Path(state_dir)
    reap_exited()  # a server of ours another process stopped (``engine stop``) is no zombie under ``serve``
    info = read_state(state_dir)
    if info is None:
        (state_dir / STATE_FILE).unlink(missing_ok=True)
        return None
    server_pid = info.pids.get("server", 0)
    from .modelshare import models_gone

    # A server whose borrowed model service is gone could only fail every embedding: stopped too.
    if not is_our_process(server_pid, "server") or models_gone(info):
        for role, pid in info.pids.items():
            if role in MARKERS:
                terminate(pid, role, timeout=5)
        with contextlib.suppress(OSError):
            (state_dir / DIED_FILE).write_text(json.dumps(
                {"pid": server_pid, "url": info.url, "serverLog": info.server_log, "foundAt": time.time()}))
        (state_dir / STATE_FILE).unlink(missing_ok=True)
        if "models" in info.pids:  # the workspaces' servers that used its model service go with it
            for sub in workspace_state_dirs(state_dir):
                engine_status(sub, check_health=False)
        return None
    if not check_health:
        return info
    for _ in range(3):
        if health(info.url, info.api_key, timeout=2.0) is not None:
            return msgspec.structs.replace(info, healthy=True)
        time.sleep(0.5)
    return msgspec.structs.replace(info, healthy=False)


def start_engine(
    *,
    data_dir: Path,
    state_dir: Path,
    cache_dir: Path,
    port: int | None = None,
    host: str = "127.0.0.1",
    llm: Mapping[str, Any] | None = None,
    embedding: Mapping[str, Any] | None = None,
    parser_rules: str | None = None,
    wait_s: float = 60.0,
    embedder: str | None = None,
    workspace: str | None = None,
    models_from: EngineInfo | None = None,
    go_ahead: Callable[[], object] | None = None,
) -> EngineInfo:
    """Start (or return the already running) managed LightRAG engine.

    ``llm`` / ``embedding`` are endpoint dicts from the config (``host`` = OpenAI-compatible
    base URL ending in ``/v1``, ``model``, ``api_key``; embedding also ``dim``). When either is
    missing, the offline model service serves that role. ``cache_dir`` is the host's cache dir;
    tiktoken's files go to ``cache_dir/tiktoken``. ``embedder`` names the offline embedder
    (else ``$MNOTE_KR_OFFLINE_EMBEDDER``, else ``embedders.DEFAULT_EMBEDDER``); an index built
    by another embedder stops the start with a clear error (:func:`check_index_embedder`).
    ``workspace`` sets LightRAG's ``WORKSPACE`` (its own storage and input namespace under the
    shared working and input dirs); such an engine is recorded under :func:`workspace_state_dir`.
    ``models_from`` (the shared engine, for a workspace's) lends its offline model service when it
    runs the same embedder (:mod:`.modelshare`); else this start runs its own.
    ``go_ahead`` is called under this engine's lock before anything is checked or started, and again at each
    poll of the start-up's wait for /health (what it started is then stopped), and raises to refuse the
    start: a workspace's server starts only while the shared engine still runs and no stop has begun on it
    (``client/workspaces.py``). Under that lock, a stop that begins later waits for this start, which gives
    up at its next poll, and then stops whatever is left.
    Raises ``ProviderError`` (with the tail of the
    server log) when the server exits or does not answer ``/health`` within ``wait_s``; any
    process started by this call is stopped again in that case.
    """
    data_dir, state_dir, cache_dir = Path(data_dir), Path(state_dir), Path(cache_dir)
    state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    from filelock import FileLock

    with FileLock(str(state_dir / "engine.lock"), timeout=wait_s + 30):
        if go_ahead is not None:
            go_ahead()
        running = engine_status(state_dir)
        if running is not None:
            if not running.healthy:
                raise ProviderError("The managed LightRAG engine is running but does not answer /health",
                                    url=running.url, hint="run 'mnote-kr engine stop' and start it again")
            return running
        return _start_locked(data_dir=data_dir, state_dir=state_dir, cache_dir=cache_dir, port=port, host=host,
                             llm=llm, embedding=embedding, parser_rules=parser_rules, wait_s=wait_s,
                             embedder=embedder, workspace=workspace, models_from=models_from,
                             still_wanted=go_ahead)


def _start_locked(*, data_dir: Path, state_dir: Path, cache_dir: Path, port: int | None, host: str,
                  llm: Mapping[str, Any] | None, embedding: Mapping[str, Any] | None,
                  parser_rules: str | None, wait_s: float, embedder: str | None,
                  workspace: str | None = None, models_from: EngineInfo | None = None,
                  still_wanted: Callable[[], object] | None = None) -> EngineInfo:
    import secrets
    import subprocess

    from . import embedders, modelservice, modelshare, storage
    from .indexrecord import (
        EMBEDDER_ENV,
        check_index_embedder,
        endpoint_record,
        index_has_documents,
        read_index_record,
        resolve_embedder,
        write_index_record,
    )
    from .tiktoken_cache import ensure_tiktoken_cache

    t0 = time.monotonic()
    # Before anything slow: an index built by another embedder is one clear error, at once
    # (unless none was chosen: then the index keeps the one that built it).
    existing = read_index_record(data_dir / "engine") if index_has_documents(data_dir / "engine" / "rag_storage") \
        else None
    offline_spec = resolve_embedder(embedder, existing)
    embed_note = (f"this index was built by embedder {offline_spec.name}, which it keeps; 'mnote-kr engine "
                  f"reembed' rebuilds it with {embedders.DEFAULT_EMBEDDER}, the default (it finds questions "
                  "asked in other words more often: docs/embeddings.md)"
                  if embedding is None and existing is not None and offline_spec.name != embedders.DEFAULT_EMBEDDER
                  and not embedder and not os.environ.get(EMBEDDER_ENV) else None)
    record = offline_spec.record() if embedding is None else endpoint_record(embedding)
    check_index_embedder(data_dir / "engine", record)
    server_cmd = require_server()
    tiktoken_dir = ensure_tiktoken_cache(cache_dir / "tiktoken")
    engine_dir = data_dir / "engine"
    working_dir, input_dir = engine_dir / "rag_storage", engine_dir / "inputs"
    run_dir = state_dir / RUN_DIR
    # Private from the start, and what an older mnote-kr (or LightRAG under umask 022) left is
    # tightened once per start; a per-workspace engine shares engine_dir and walks it too (cheap).
    for d in (engine_dir, run_dir):
        make_private(d)
    for d in (data_dir, state_dir):  # the folders above them: themselves only, not their other contents
        with contextlib.suppress(OSError):
            os.chmod(d, d.stat().st_mode & 0o7700)
    for d in (working_dir, input_dir):
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
    (run_dir / ".env").unlink(missing_ok=True)  # our scratch dir: the server must never read a .env
    server_log, lightrag_log, models_log = run_dir / "server.out", run_dir / "lightrag.log", run_dir / "models.out"
    vector_storage, storage_note = storage.vector_storage(working_dir, workspace)
    storage_note = "; ".join(n for n in (storage_note, embed_note) if n) or None
    if vector_storage == storage.FAISS and importlib.util.find_spec("faiss") is None:
        raise ProviderError("The managed engine's vector storage needs faiss-cpu, which is not installed",
                            hint="pip install 'mnote-kr[engine]' (or pip install faiss-cpu)")

    offline_llm, offline_embed = llm is None, embedding is None
    offline = offline_llm or offline_embed
    deadline = time.monotonic() + wait_s
    started: list[tuple[subprocess.Popen[bytes], str]] = []
    try:
        models_url: str | None = None
        # The model service's key, new on every start: it reaches the service through its
        # environment and LightRAG as its LLM/embedding bindings' API key, nobody else.
        models_key = secrets.token_urlsafe(24) if offline else None
        dim = offline_spec.dim
        borrowed = modelshare.usable(models_from, offline_spec) if offline else None
        if borrowed is not None:  # the shared engine's service, the same embedder: no second copy of the model
            models_url, models_key, _ = borrowed
            models_log = Path(models_from.models_log) if models_from and models_from.models_log else models_log
        elif offline:
            mport = free_port(host)
            models_url = f"http://{host}:{mport}"
            models_log.write_bytes(b"")
            mproc = spawn([sys.executable, "-m", "mnote_kr_lightrag.engine.modelservice", "--host", host,
                            "--port", str(mport), "--embedder", offline_spec.name],
                           cwd=run_dir, log=models_log,
                           env={**base_env(), **modelservice.PROCESS_ENV, modelservice.KEY_ENV: models_key or ""})
            started.append((mproc, "models"))
            wait_until(models_url, mproc, deadline, "The offline model service", [models_log], still_wanted)

        if offline_llm:
            llm_host, llm_model, llm_key = f"{models_url}/v1", modelservice.LLM_MODEL, models_key or ""
        else:
            assert llm is not None
            llm_host, llm_model, llm_key = _endpoint(llm, "llm")
        if offline_embed:
            # the embedder's name in the model's: `status` shows which one the index uses
            emb_host, emb_model, emb_key = (f"{models_url}/v1", f"{modelservice.EMBED_MODEL}:{offline_spec.name}",
                                            models_key or "")
        else:
            assert embedding is not None
            emb_host, emb_model, emb_key = _endpoint(embedding, "embedding")
            if not embedding.get("dim"):
                raise ProviderError("embedding endpoint needs 'dim' (the vector size of its model)",
                                    hint="set [embedding] dim in config.toml")
            dim = int(embedding["dim"])

        rules = parser_rules if parser_rules is not None else (OFFLINE_PARSER_RULES if offline_llm
                                                                 else LLM_PARSER_RULES)
        sport = port or free_port(host)
        api_key = secrets.token_urlsafe(24)
        env = base_env()
        env.update({
            "HOST": host, "PORT": str(sport),
            "WORKING_DIR": str(working_dir), "INPUT_DIR": str(input_dir), "LOG_DIR": str(run_dir),
            "LLM_BINDING": "openai", "LLM_BINDING_HOST": llm_host, "LLM_BINDING_API_KEY": llm_key,
            "LLM_MODEL": llm_model,
            "EMBEDDING_BINDING": "openai", "EMBEDDING_BINDING_HOST": emb_host,
            "EMBEDDING_BINDING_API_KEY": emb_key, "EMBEDDING_MODEL": emb_model, "EMBEDDING_DIM": str(dim),
            "TIKTOKEN_CACHE_DIR": str(tiktoken_dir),
            "LIGHTRAG_API_KEY": api_key,
            **LOCKDOWN_ENV,
            "LIGHTRAG_PARSER": rules,
            "DOCX_SMART_HEADING": "false",  # needs spaCy models that only come from GitHub
            # The offline "answers" must never be cached: a real LLM configured later would
            # otherwise keep returning them.
            "ENABLE_LLM_CACHE": "false" if offline_llm else "true",
            "ENABLE_LLM_CACHE_FOR_EXTRACT": "false" if offline_llm else "true",
            "RERANK_BINDING": "null",
            "LIGHTRAG_VECTOR_STORAGE": vector_storage,
            **({"COSINE_THRESHOLD": str(offline_spec.cosine_threshold)} if offline_embed else {}),
            # LightRAG gives an embedding call 30 s (60 s with its worker's margin), then fails the
            # document: the offline model embeds on this machine's CPU, which a busy laptop or a long
            # CJK batch makes slower than that (27 of 37 benchmark files failed at load 25).
            **({"EMBEDDING_TIMEOUT": str(OFFLINE_EMBEDDING_TIMEOUT_S)} if offline_embed else {}),
            "WORKERS": "1",
            **({"WORKSPACE": workspace} if workspace else {}),
        })
        server_log.write_bytes(b"")
        url = f"http://{host}:{sport}"
        sproc = spawn(server_cmd, cwd=run_dir, env=env, log=server_log)
        started.append((sproc, "server"))
        info = EngineInfo(
            url=url, api_key=api_key, input_dir=str(input_dir), working_dir=str(working_dir),
            pids={role: proc.pid for proc, role in started}, offline_models=offline, offline_llm=offline_llm,
            models_url=models_url, models_key=models_key, run_dir=str(run_dir), server_log=str(server_log),
            lightrag_log=str(lightrag_log),
            models_log=str(models_log) if offline else None, parser_rules=rules, started_at=time.time(),
            embedder=record, vector_storage=vector_storage, storage_note=storage_note,
            shared_models_pid=borrowed[2] if borrowed else None,
        )
        # Recorded before waiting: if this process dies now, status/stop still find both PIDs.
        _write_state(state_dir / STATE_FILE, info)
        wait_until(url, sproc, deadline, "lightrag-server", [server_log, lightrag_log], still_wanted)
        if not guard_active(url):
            raise ProviderError("lightrag-server started without mnote-kr's guard (it answered a foreign "
                                "Host header); it was stopped", url=url,
                                hint="this LightRAG version starts differently; pin lightrag-hku[api]==1.5.7")
        write_index_record(engine_dir, record)
    except BaseException:
        for proc, role in reversed(started):
            terminate(proc.pid, role, timeout=5)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            CHILDREN.pop(proc.pid, None)
        (state_dir / STATE_FILE).unlink(missing_ok=True)
        raise

    info = msgspec.structs.replace(info, start_seconds=round(time.monotonic() - t0, 3))
    _write_state(state_dir / STATE_FILE, info)
    for done in (DIED_FILE, STOPPED_FILE):
        (state_dir / done).unlink(missing_ok=True)
    return info


WORKSPACES_DIR = "workspaces"


def workspace_state_dir(state_dir: Path, workspace: str) -> Path:
    """Where the engine serving LightRAG workspace ``workspace`` is recorded."""
    return Path(state_dir) / WORKSPACES_DIR / workspace


def workspace_state_dirs(state_dir: Path) -> list[Path]:
    """The state dirs of every per-workspace engine ever recorded under ``state_dir``."""
    base = Path(state_dir) / WORKSPACES_DIR
    return sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []


def died_record(state_dir: Path) -> dict[str, Any] | None:
    """What :func:`engine_status` noted when it found the engine's server gone, or None."""
    return _json_record(Path(state_dir) / DIED_FILE)


def stopped_record(state_dir: Path) -> dict[str, Any] | None:
    """What :func:`stop_engine` noted when it began to stop the engine recorded here (``at``: when;
    ``startedAt``: that engine's ``started_at``), until the next start; None when no stop did."""
    return _json_record(Path(state_dir) / STOPPED_FILE)


def _json_record(path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def running_workspace_engines(state_dir: Path) -> list[EngineInfo]:
    """The workspaces' own servers whose process runs (as :func:`engine_status` sees them, without a health
    request): what ``engine status`` names beside the shared engine, and ``engine stop`` stops."""
    found = (engine_status(sub, check_health=False) for sub in workspace_state_dirs(state_dir))
    return [info for info in found if info is not None]


#: SIGTERM to SIGKILL for a server whose pipeline is busy at stop (see ``stop_engine``).
BUSY_GRACE_S = 2.0


def pipeline_busy(info: EngineInfo) -> bool | None:
    """Whether the engine's pipeline is working on documents (None: the server did not say)."""
    got = get(info.url, "/documents/pipeline_status", {"X-API-Key": info.api_key}, 2.0)
    if got is None or got[0] != 200:
        return None
    try:
        return bool(json.loads(got[1]).get("busy"))
    except (ValueError, AttributeError):
        return None


def stop_engine(state_dir: Path, *, timeout: float = 15.0) -> list[int]:
    """Stop the recorded engine and every workspace's; return the PIDs that were signalled.

    Only PIDs from ``engine.json`` are touched, and each only while it still runs the program we
    started (``lightrag-server`` or the model service): SIGTERM, then SIGKILL after ``timeout``.
    Unless every pipeline that uses it is known idle the model service is stopped before the
    servers, and a busy server is killed after ``BUSY_GRACE_S``: a stop never embeds anything and
    takes seconds (docs/budgets.md). The workspaces' servers stop before the shared one, while an
    idle one's model service still answers. A workspace's server that borrowed the shared engine's
    model service (:mod:`.modelshare`) leaves it running when stopped alone. The record is
    removed. Stopping when nothing runs returns ``[]``.
    """
    state_dir = Path(state_dir)
    from filelock import FileLock

    from .modelshare import borrows_from

    with FileLock(str(state_dir / "engine.lock"), timeout=timeout * 3 + 30):
        info = read_state(state_dir)
        stopped: list[int] = []
        if info is not None:
            # Before the workspaces are listed: a workspace's server that work in flight starts from now on
            # is refused (``start_engine``'s ``go_ahead``), one starting already is listed and stopped.
            with contextlib.suppress(OSError):
                (state_dir / STOPPED_FILE).write_text(json.dumps(
                    {"at": time.time(), "startedAt": info.started_at, "url": info.url}))
        subs = workspace_state_dirs(state_dir)
        if info is not None:
            busy = pipeline_busy(info)
            borrowers = [b for b in (read_state(sub) for sub in subs) if b is not None and borrows_from(b, info)]
            # LightRAG's shutdown flushes the vectors it buffered for documents still in flight,
            # embedding every one (452 requests of 10 chunks for a 20 MB file half indexed; the
            # hostile 30 MB DOCX of benchmarks/hostile.py had 66,419 chunks) before it exits. Unless the pipelines
            # are known idle, the model service goes first (from then on nothing can be embedded), and
            # a busy server gets a short grace: what it holds unsaved is unfinished documents'
            # work: LightRAG started again lists it in flight, idle, and mnote-kr's sync sends it again
            # (client/interrupted.py) or cleans it up.
            idle = busy is False and all(pipeline_busy(b) is False for b in borrowers)
            if not idle and info.pids.get("models") and terminate(info.pids["models"], "models", timeout):
                stopped.append(info.pids["models"])
        for sub in subs:  # the per-workspace engines go with it
            stopped += stop_engine(sub, timeout=timeout)
        if info is not None:
            for role in ("server", "models"):
                pid = info.pids.get(role)
                grace = min(timeout, BUSY_GRACE_S) if busy and role == "server" else timeout
                if pid and pid not in stopped and terminate(pid, role, grace):
                    stopped.append(pid)
        (state_dir / STATE_FILE).unlink(missing_ok=True)
        (state_dir / DIED_FILE).unlink(missing_ok=True)
    return stopped
