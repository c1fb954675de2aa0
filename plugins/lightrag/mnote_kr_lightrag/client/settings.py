"""Where LightRAG is and how to talk to it: URL, API key, input/working directories.

Order of discovery:

* URL: ``[providers.lightrag] url``, else the managed engine's state file
  (``engine.engine_status(ctx.state_dir)``): then this workspace's own engine process
  (:mod:`.workspaces`, started on demand), else a clear error.
* API key: the managed engine's own key when its URL is used; otherwise
  ``ctx.secret("lightrag-api-key")`` (the host resolves environment and keyring), then
  ``LIGHTRAG_API_KEY`` from the configured ``env_file`` (LightRAG's ``.env``).
* Input/working dirs: configuration, else the managed engine, else ``GET /health``
  (which reports them only with a valid key). A workspace (configuration, else
  ``/health`` ``configuration.workspace``) means the input dir is ``INPUT_DIR/<workspace>``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnote_kr.plugin_api import ConfigError, MnoteKrError, ProviderContext, ProviderError

from .enginegone import USED as _USED
from .enginegone import engine_not_running as _engine_not_running
from .http import LightRagClient
from .searchwait import SEARCH_WAIT_S

SECRET_NAME = "lightrag-api-key"
#: Model names of the managed engine's offline stand-in (``modelservice.py``).
OFFLINE_LLM_MODELS = frozenset({"mnote-offline-llm"})
_HEALTH_TTL_S = 30.0
#: How old a /health answer may be where the caller wants the server as it is now.
_FRESH_S = 1.0
#: (url, id(transport)) -> (monotonic time, /health body with the key)
_HEALTH_CACHE: dict[tuple[str, int], tuple[float, dict[str, Any]]] = {}
#: Settings this process resolved lately, by what decides them (see ``recent_settings``).
_RECENT_TTL_S = 5.0
_RECENT: dict[tuple[Any, ...], tuple[float, Settings]] = {}


@dataclass
class Settings:
    """Resolved connection settings for one hook call."""

    url: str
    api_key: str | None
    timeout_s: float = 30.0
    #: How long a search LightRAG holds while it indexes waits beyond ``timeout_s`` (``searchwait``).
    search_wait_s: float = SEARCH_WAIT_S
    upload_fallback: bool = False
    input_dir: Path | None = None  # LightRAG's INPUT_DIR as seen here (without workspace)
    working_dir: str | None = None
    workspace: str | None = None
    from_engine: bool = False
    #: The managed engine's ``started_at`` (the shared engine's) when ``from_engine``: a call that fails after a
    #: stop of that engine says it was stopped (``http.EngineStoppedError``).
    engine_started_at: float | None = None
    offline_llm: bool = False
    #: The managed engine's offline model service, when its embedder has a learned model: the
    #: query then ranks each found file's chunks with it (``passages``); None otherwise.
    models_url: str | None = None
    models_key: str | None = None  # the model service's key (``Authorization: Bearer``)
    #: The same service whatever ``rank_passages`` says: it scores the few chunks a translated
    #: question adds against the few the question found (``crossquery``); None without one.
    scorer_url: str | None = None
    #: ``[providers.lightrag] translate_queries``: a question also asked in the other language
    #: (``crossquery``); None when the setting is absent: the plugin's default (``crossquery.TRANSLATE``).
    translate: bool | None = None
    #: ``[providers.lightrag] deeper_files``: files of LightRAG's deeper list passed on after the first
    #: ``chunk_top_k`` chunks' (``passages.with_deeper_files``); 0 keeps those chunks alone.
    deeper_files: int = 0
    #: The managed engine's model service embeds with ``e5usexlang``: a search also sends the question
    #: asked for meaning (``meaningquery``).
    meaning_query: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _engine_info(ctx: ProviderContext) -> Any | None:
    """The managed engine's record, or None (also while ``engine/managed.py`` is unavailable)."""
    try:
        from ..engine.managed import engine_status
    except ImportError:
        return None
    try:
        # Only the record of a live engine is needed here: each workspace talks to its own
        # server, whose health workspace_engine() checks (this one's /health was unused).
        return engine_status(ctx.state_dir, check_health=False)
    except (MnoteKrError, OSError, ValueError):
        return None


def read_env_key(env_file: str | Path) -> str | None:
    """``LIGHTRAG_API_KEY`` from a dotenv file, or None. Never logs the value."""
    try:
        text = Path(env_file).expanduser().read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("export "):
            line = line[len("export "):].strip()
        if not line.startswith("LIGHTRAG_API_KEY") or "=" not in line:
            continue
        name, _, value = line.partition("=")
        if name.strip() != "LIGHTRAG_API_KEY":
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].strip()
        return value or None
    return None


def _flag(config: dict[str, Any], name: str) -> bool:
    """A true/false setting of ``[providers.lightrag]`` (absent: false); anything else is one clear error."""
    value = config.get(name, False)
    if not isinstance(value, bool):
        raise ConfigError(f"[providers.lightrag] {name} must be true or false, not {value!r}")
    return value


def _seconds(config: dict[str, Any], name: str, default: float) -> float:
    """``[providers.lightrag] <name>``: seconds, 0 or more."""
    value = config.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f"[providers.lightrag] {name} must be a number of seconds (0 or more), not {value!r}")
    return float(value)


def resolve_settings(ctx: ProviderContext) -> Settings:
    """Resolve URL, key and directories without any HTTP call to LightRAG itself."""
    config = ctx.config or {}
    try:
        timeout_s = float(config.get("timeout_s", 30.0))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"[providers.lightrag] timeout_s must be a number, not {config.get('timeout_s')!r}") from exc
    search_wait_s = _seconds(config, "search_wait_s", SEARCH_WAIT_S)
    url = str(config.get("url") or "").strip()
    info = None
    started_at: float | None = None
    if not url:
        info = _engine_info(ctx)
        if info is None:
            raise _engine_not_running(ctx)
        # One managed engine, many workspaces: each has its own LightRAG namespace and server.
        from .workspaces import lightrag_workspace, workspace_engine

        started_at = _USED[str(ctx.state_dir)] = info.started_at
        info = workspace_engine(ctx, info)
        url = info.url
    key: str | None = None
    if info is not None and getattr(info, "api_key", None):
        key = info.api_key
    if not key:
        key = ctx.secret(SECRET_NAME)
    if not key and config.get("env_file"):
        key = read_env_key(str(config["env_file"]))
    input_dir = config.get("input_dir") or (getattr(info, "input_dir", None) if info is not None else None)
    working_dir = config.get("working_dir") or (getattr(info, "working_dir", None) if info is not None else None)
    workspace = config.get("workspace")
    if info is not None:
        workspace = lightrag_workspace(ctx)
    settings = Settings(
        url=url.rstrip("/"),
        api_key=key or None,
        timeout_s=timeout_s,
        search_wait_s=search_wait_s,
        upload_fallback=bool(config.get("upload_fallback", False)),
        input_dir=Path(str(input_dir)).expanduser() if input_dir else None,
        working_dir=str(working_dir) if working_dir else None,
        workspace=str(workspace) if workspace is not None else None,
        from_engine=info is not None,
        engine_started_at=started_at,
        offline_llm=bool(getattr(info, "offline_llm", False)) if info is not None else False,
        models_url=_reranker_url(info, config),
        scorer_url=_reranker_url(info, {**config, "rank_passages": True}),
        models_key=getattr(info, "models_key", None) if info is not None else None,
        translate=_flag(config, "translate_queries") if "translate_queries" in config else None,
        deeper_files=_deeper_files(config),
        meaning_query=_embedder_name(info) == "e5usexlang",
    )
    if len(_RECENT) > 64:
        _RECENT.clear()
    _RECENT[_settings_key(ctx)] = (time.monotonic(), settings)
    return settings


def _deeper_files(config: dict[str, Any]) -> int:
    """``[providers.lightrag] deeper_files``: a whole number from 0 to ``passages.MAX_DEPTH``; absent: the default."""
    from .passages import DEFAULT_DEEPER_FILES, MAX_DEPTH

    value = config.get("deeper_files", DEFAULT_DEEPER_FILES)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DEPTH:
        raise ConfigError(f"[providers.lightrag] deeper_files must be a whole number from 0 to {MAX_DEPTH},"
                          f" not {value!r}")
    return value


def _embedder_name(info: Any | None) -> str | None:
    """The managed engine's offline embedder (None: no managed engine, or no model service)."""
    record = getattr(info, "embedder", None) if info is not None and getattr(info, "models_url", None) else None
    return str(record.get("name")) if isinstance(record, dict) and record.get("name") else None


def _reranker_url(info: Any | None, config: dict[str, Any]) -> str | None:
    """The offline model service's URL when it can rank passages (a learned embedder) and
    ``[providers.lightrag] rank_passages = true``; else None. Off by default: measured, it gains
    little on the first citation's place and makes a cold CLI search ~1.5x slower
    (docs/embeddings.md)."""
    if info is None or not getattr(info, "models_url", None) or config.get("rank_passages", False) is not True:
        return None
    record = getattr(info, "embedder", None) or {}
    learned = ("e5usexlang", "e5xlang", "e5hybrid", "hybrid", "wordllama")
    if not isinstance(record, dict) or record.get("name") not in learned:
        return None
    return str(info.models_url).rstrip("/")


def _settings_key(ctx: ProviderContext) -> tuple[Any, ...]:
    return (ctx.provider, repr(sorted((ctx.config or {}).items())), str(ctx.state_dir), str(ctx.workspace_root),
            id(ctx.transport))


def recent_settings(ctx: ProviderContext) -> Settings:
    """The settings this process resolved for the same context in the last few seconds, else
    ``resolve_settings(ctx)``.

    For work that follows a call which has just resolved them (a search maps its references
    right after its query): resolving again would check the engine's health twice more. Calls
    that talk to the server first use ``resolve_settings`` and see the engine as it is now.
    """
    hit = _RECENT.get(_settings_key(ctx))
    if hit is not None and time.monotonic() - hit[0] < _RECENT_TTL_S:
        return hit[1]
    return resolve_settings(ctx)


def open_client(ctx: ProviderContext, settings: Settings) -> LightRagClient:
    """An HTTP client for these settings."""
    return LightRagClient(ctx, settings.url, settings.api_key, timeout_s=settings.timeout_s,
                          search_wait_s=settings.search_wait_s, engine_started_at=settings.engine_started_at)


def cached_health(ctx: ProviderContext, client: LightRagClient, *, refresh: bool = False) -> dict[str, Any]:
    """``/health`` (with the key), cached for a few seconds per server.

    ``refresh``: an answer at most a second old (in practice: the one the managed engine's
    check received at the start of this very command), else a new request.
    """
    cache_key = (client.url, id(ctx.transport))
    hit = _HEALTH_CACHE.get(cache_key)
    now = time.monotonic()
    max_age = _FRESH_S if refresh else _HEALTH_TTL_S
    if hit is not None and now - hit[0] < max_age:
        return hit[1]
    engine = sys.modules.get("mnote_kr_lightrag.engine.health")  # loaded by then if it checked this server
    if ctx.transport is None and engine is not None:
        seen = engine.seen_health(client.url, client.api_key, max_age)
        if seen is not None:
            return dict(seen)
    body = client.health()
    _HEALTH_CACHE[cache_key] = (now, body)
    return body


def clear_cache() -> None:
    """Forget cached ``/health`` answers and exposure probes (tests; after reconfiguration)."""
    from . import exposure

    _HEALTH_CACHE.clear()
    _RECENT.clear()
    _USED.clear()
    exposure.clear_cache()


def effective_input_dir(ctx: ProviderContext, settings: Settings, client: LightRagClient | None) -> Path | None:
    """LightRAG's input dir for this workspace as a local path, or None when unknown.

    Asks ``/health`` only when neither configuration nor the engine said.
    """
    base = settings.input_dir
    workspace = settings.workspace
    if (base is None or workspace is None) and client is not None and not settings.from_engine:
        try:
            health = cached_health(ctx, client)
        except ProviderError:
            if base is None:
                raise
            health = {}  # the configured dir stands; only the workspace was unknown
        if base is None and health.get("input_directory"):
            base = Path(str(health["input_directory"]))
        configuration = health.get("configuration") or {}
        if workspace is None and isinstance(configuration, dict) and configuration.get("workspace"):
            workspace = str(configuration["workspace"])
    if base is None:
        return None
    return base / workspace if workspace else base


def is_offline_llm(settings: Settings, health: dict[str, Any] | None) -> bool:
    """Whether LightRAG's chat model is the offline stand-in (no real answers)."""
    if settings.offline_llm:
        return True
    configuration = (health or {}).get("configuration") or {}
    return isinstance(configuration, dict) and configuration.get("llm_model") in OFFLINE_LLM_MODELS
