"""Is the engine there? One plain GET on loopback (``get``), its ``/health`` (remembered a moment
for the provider's own check: ``seen_health``), whether its Host-header guard is in place, and the
wait for a starting process to answer.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnote_kr.plugin_api import ProviderError

from .procs import log_tail

if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable

#: (url, api key) -> (monotonic time, /health body): what :func:`health` last received.
_SEEN_HEALTH: dict[tuple[str, str | None], tuple[float, dict[str, Any]]] = {}


def get(url: str, path: str, headers: dict[str, str], timeout: float) -> tuple[int, bytes] | None:
    """One plain GET to the engine (always ``http://`` on loopback): status and body, or None.

    A bare socket exchange, not httpx: a status or search process checks the engine's health
    twice, and httpx's import and client set-up cost more than the rest of such a process.
    """
    from urllib.parse import urlsplit

    from mnote_kr.plugin_api import ProtocolError, exchange

    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        return None
    try:
        status, _, _, body = exchange(parts.hostname, parts.port or 80, "GET", parts.path.rstrip("/") + path,
                                      headers, None, connect_timeout=timeout, timeout=timeout)
    except (OSError, ProtocolError, ValueError):
        return None
    return status, body


def health(url: str, api_key: str | None = None, timeout: float = 2.0) -> dict[str, Any] | None:
    """The engine's ``/health`` body (remembered for ``seen_health``), or None when it does not answer 200 JSON."""
    got = get(url, "/health", {"X-API-Key": api_key} if api_key else {}, timeout)
    if got is None or got[0] != 200:
        return None
    try:
        body = json.loads(got[1])
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    if len(_SEEN_HEALTH) > 64:
        _SEEN_HEALTH.clear()
    _SEEN_HEALTH[(url.rstrip("/"), api_key or None)] = (time.monotonic(), body)
    return body


def seen_health(url: str, api_key: str | None, max_age_s: float) -> dict[str, Any] | None:
    """The ``/health`` body this process received from ``url`` with this key at most
    ``max_age_s`` ago (the engine check a status or search starts with), else None.

    The provider asks ``/health`` right after that check; within a second the answer is the
    same request's, and asking again only costs the command a round trip.
    """
    hit = _SEEN_HEALTH.get((url.rstrip("/"), api_key or None))
    if hit is None or time.monotonic() - hit[0] > max_age_s:
        return None
    return hit[1]


def guard_active(url: str) -> bool:
    """True when the engine at ``url`` refuses a foreign Host header, i.e. its guard is in place."""
    got = get(url, "/health", {"Host": "mnote-kr-guard-check.invalid"}, 5.0)
    return got is not None and got[0] == 403


def wait_until(check_url: str, proc: subprocess.Popen[bytes], deadline: float, what: str,
               logs: list[Path], still_wanted: Callable[[], object] | None = None) -> None:
    """Until ``check_url/health`` answers; ``ProviderError`` with the logs' tails when ``proc`` exits
    or ``deadline`` (``time.monotonic``) passes first. ``still_wanted`` is called at each poll and raises when
    the start is no longer wanted (an 'engine stop' began: nc28c's search caught by a stop said so only after
    the 12 s its workspace server took to start, which the stop waited for); the caller stops ``proc``."""
    while True:
        if health(check_url, timeout=1.0) is not None:
            return
        if still_wanted is not None:
            still_wanted()
        code = proc.poll()
        if code is not None:
            tails = "\n".join(t for t in (log_tail(p) for p in logs) if t)
            raise ProviderError(f"{what} exited with code {code} during start-up:\n{tails}".rstrip(),
                                url=check_url, hint=f"see {logs[0]}")
        if time.monotonic() > deadline:
            tails = "\n".join(t for t in (log_tail(p) for p in logs) if t)
            raise ProviderError(f"{what} did not answer {check_url}/health in time:\n{tails}".rstrip(),
                                url=check_url, hint=f"see {logs[0]}; a cold start can take longer, raise wait_s")
        time.sleep(0.25)
