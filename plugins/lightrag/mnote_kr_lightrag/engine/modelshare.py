"""One offline model service for the managed engine and every workspace's server.

Each mnote-kr workspace gets a ``lightrag-server`` of its own (``client/workspaces.py``). The
offline model service it needs (:mod:`.modelservice`: embeddings, the offline LLM's fixed replies,
``/v1/rerank``) holds nothing of a workspace's: it embeds what it is sent, keyed by an API key. So
a workspace's server uses the shared engine's service when that one runs and serves exactly the
embedder this start would run (its ``/health`` names it); otherwise it starts its own, as before.
One process then holds the model once (e5: ~300 MB idle, ~1 GB while ingesting) instead of once
per workspace, and its bound on forward passes at once (``e5.FORWARDS``) bounds them all.

The PID of a borrowed service is recorded as ``EngineInfo.shared_models_pid``, never in ``pids``:
stopping one workspace's server leaves the service to the others. A server whose service is gone
is stopped when found (:func:`models_gone`, checked by ``managed.engine_status``), so it never
runs on silently with every embedding call failing; the next request then starts it again on
whatever service runs, or says that the engine is not running.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol

from .procs import is_our_process

if TYPE_CHECKING:
    from .embedders import EmbedderSpec


class Engine(Protocol):
    """What this module reads of an engine's record (``managed.EngineInfo``, which imports this)."""

    @property
    def pids(self) -> dict[str, int]: ...
    @property
    def models_url(self) -> str | None: ...
    @property
    def models_key(self) -> str | None: ...
    @property
    def shared_models_pid(self) -> int | None: ...
    @property
    def embedder(self) -> dict[str, Any] | None: ...


#: ``_served_embedder``'s answer for a service that is there but too busy to say (its handler threads all
#: embedding, or its queue full: 503): the engine's record says which embedder it runs.
BUSY = "busy"


def _served_embedder(models_url: str) -> dict[str, object] | str | None:
    """The embedder record the model service at ``models_url`` reports on ``/health``, :data:`BUSY` when it
    does not answer in time or answers 503, else None."""
    from urllib.parse import urlsplit

    from mnote_kr.plugin_api import ProtocolError, exchange

    parts = urlsplit(models_url)
    if parts.scheme != "http" or not parts.hostname:
        return None
    try:
        status, _, _, raw = exchange(parts.hostname, parts.port or 80, "GET", parts.path.rstrip("/") + "/health",
                                     {}, None, connect_timeout=2.0, timeout=2.0)
        body = json.loads(raw) if status == 200 else None
    except TimeoutError:  # /health waits behind the requests its handler threads are embedding
        return BUSY
    except (OSError, ProtocolError, ValueError):
        return None
    if status == 503:
        return BUSY
    record = body.get("embedder") if isinstance(body, dict) else None
    return record if isinstance(record, dict) else None


def usable(owner: Engine | None, spec: EmbedderSpec) -> tuple[str, str, int] | None:
    """``(url, key, pid)`` of ``owner``'s model service when it runs and serves ``spec``, else None.

    Checked, not assumed: the process must still be the model service ``owner`` started (a PID the
    system reused is not), and its ``/health`` must name the same embedder, dim and version (a
    service of another embedder would give vectors the index cannot compare). A service too busy to
    answer (while the engine ingests, exactly when a second copy of the model costs most) is taken at
    the engine's word: ``owner.embedder``, which names the service's embedder when it embeds the index
    (an endpoint's record never equals an offline embedder's).
    """
    if owner is None or not owner.models_url or not owner.models_key:
        return None
    pid = owner.pids.get("models", 0)
    if not is_our_process(pid, "models"):
        return None
    served = _served_embedder(owner.models_url)
    if served == BUSY:
        served = owner.embedder
    if not isinstance(served, dict) or any(served.get(k) != v for k, v in spec.record().items()):
        return None
    return owner.models_url, owner.models_key, pid


def models_gone(info: Engine) -> bool:
    """True when ``info``'s engine borrowed a model service that no longer runs."""
    return bool(info.shared_models_pid) and not is_our_process(info.shared_models_pid or 0, "models")


def borrows_from(info: Engine, owner: Engine) -> bool:
    """True when ``info``'s engine uses ``owner``'s model service (the same process and address)."""
    return bool(info.shared_models_pid) and info.shared_models_pid == owner.pids.get("models") \
        and info.models_url == owner.models_url
