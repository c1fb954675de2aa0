"""Does the configured LightRAG hand the knowledge base to a web page? (``status`` warnings)

A stock LightRAG 1.5.7 answers its Ollama-compatible ``/api/*`` routes without the key
(``WHITELIST_PATHS`` defaults to ``/health,/api/*``) and allows every CORS origin
(``CORS_ORIGINS`` defaults to ``*``): any page open in the user's browser can then post
``/context table`` to ``/api/chat`` and read the retrieved chunks. :func:`probe` asks the
server the way such a page would, without the key, and returns one warning per hole with the
setting that closes it (``docs/security.md``). The managed engine closes all of them itself.

The answers are cached per server for a minute: ``status`` is polled by desktop shells. For
the managed engine they are also kept beside its record (``remember_in``) for as long as that
record is unchanged: its settings cannot change without a restart, which rewrites the record,
so a fresh ``status`` process need not send the three probes again.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from .http import LightRagClient

if TYPE_CHECKING:
    import httpx

PROBE_ORIGIN = "https://mnote-kr-probe.invalid"
_TTL_S = 60.0
REMEMBER_FILE = "exposure.json"
_CACHE: dict[tuple[str, int], tuple[float, list[str]]] = {}


def _without_key(client: LightRagClient, method: str, path: str, headers: dict[str, str] | None = None,
                 ) -> httpx.Response | None:
    http = client._http
    request = http.build_request(method, path, headers=headers)
    request.headers.pop("X-API-Key", None)
    try:
        response: httpx.Response = http.send(request)
    except Exception as exc:
        httpx_module = sys.modules.get("httpx")  # loaded by then if the error is one of its own
        if httpx_module is not None and isinstance(exc, httpx_module.HTTPError):
            return None  # a probe that cannot be answered proves nothing either way
        raise
    return response


def _record_stamp(record: Path) -> list[int] | None:
    try:
        st = record.stat()
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino]


def _remembered(remember_in: Path, url: str) -> list[str] | None:
    try:
        data = json.loads((remember_in.parent / REMEMBER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("url") != url or data.get("record") != _record_stamp(remember_in):
        return None
    warnings = data.get("warnings")
    return [str(w) for w in warnings] if isinstance(warnings, list) else None


def _remember(remember_in: Path, url: str, warnings: list[str]) -> None:
    target = remember_in.parent / REMEMBER_FILE
    from mnote_kr.plugin_api import write_atomic

    try:
        write_atomic(target, json.dumps({"url": url, "record": _record_stamp(remember_in), "warnings": warnings}))
    except OSError:
        pass  # only remembered: the check runs again next time


def probe(client: LightRagClient, transport_id: int = 0, *, remember_in: Path | None = None) -> list[str]:
    """Warnings (possibly none) about what the server answers without the key or to a foreign origin.

    ``remember_in``: the managed engine's record file; the answer is kept beside it while the
    record is unchanged (the same server process).
    """
    key = (client.url, transport_id)
    hit = _CACHE.get(key)
    now = time.monotonic()
    if hit is not None and now - hit[0] < _TTL_S:
        return hit[1]
    remembered = _remembered(remember_in, client.url) if remember_in is not None else None
    if remembered is not None:
        _CACHE[key] = (now, remembered)
        return remembered
    warnings: list[str] = []
    docs = _without_key(client, "GET", "/documents/pipeline_status")
    if docs is not None and docs.status_code == 200:
        warnings.append(f"LightRAG at {client.url} answers without an API key: any program or web page "
                        "that reaches it reads and changes the knowledge base (set LIGHTRAG_API_KEY on "
                        "the server, see docs/security.md)")
    else:
        api = _without_key(client, "GET", "/api/tags")
        if api is not None and api.status_code == 200:
            warnings.append(f"LightRAG at {client.url} answers /api/* (its Ollama-compatible chat) without "
                            "the API key: a web page can read your documents through /api/chat (set "
                            "WHITELIST_PATHS=/health on the server, see docs/security.md)")
    cors = _without_key(client, "GET", "/health", headers={"Origin": PROBE_ORIGIN})
    allowed = cors.headers.get("access-control-allow-origin") if cors is not None else None
    if allowed in ("*", PROBE_ORIGIN):
        warnings.append(f"LightRAG at {client.url} lets any web origin read its answers (CORS "
                        f"Access-Control-Allow-Origin: {allowed}; set CORS_ORIGINS on the server to the "
                        "origins you use, or to nothing, see docs/security.md)")
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[key] = (now, warnings)
    if remember_in is not None:
        _remember(remember_in, client.url, warnings)
    return warnings


def clear_cache() -> None:
    """Forget cached probe answers (tests; after reconfiguration)."""
    _CACHE.clear()
