"""What a route is: its handler's view of the server (``Api``) and its table row (``Route``).

``routes.py`` fills the table and ``openapi.py`` documents it; both import this module, so
neither imports the other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mnote_kr.server.jobs import JobManager

if TYPE_CHECKING:
    from mnote_kr.app.host import Host


@dataclass
class Api:
    """What a handler may use: the host, the jobs, and the path parameters of the request."""

    host: Host
    jobs: JobManager
    params: dict[str, str] = field(default_factory=dict)
    query: dict[str, list[str]] = field(default_factory=dict)
    last_event_id: str | None = None
    url: str = ""  # the server's own base URL (``http://127.0.0.1:PORT``): viewer URLs in answers
    server: Any = None  # the ApiServer (its URL and web state, for sign-in codes)


#: A handler returns (HTTP status, msgspec-encodable body); ``STREAM`` bodies are SSE.
Handler = Callable[[Api, Any], tuple[int, Any]]


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # OpenAPI template, e.g. /api/jobs/{id}
    handler: Handler
    summary: str
    request: type | None = None
    response: Any = None
    status: int = 200
    auth: bool = True
    stream: bool = False  # text/event-stream
    extra_status: tuple[int, ...] = ()
