"""The OpenAPI 3.1 document of the HTTP API, built from the route table and the msgspec contracts.

Schemas come from ``msgspec.json.schema_components`` over the very types the handlers
decode and encode, so the document cannot drift from the wire.
"""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import msgspec

from mnote_kr.server.jobs import ApiErrorBody
from mnote_kr.server.route import Route

REF = "#/components/schemas/{name}"

#: Documented error codes per status (the body is always ``{"error": ApiErrorBody}``).
ERROR_STATUSES: dict[int, str] = {
    400: "malformed_json, invalid_request or usage: the body or a parameter is wrong",
    401: "unauthorized: missing or wrong bearer token",
    403: "forbidden_host, origin_not_allowed or path_not_allowed",
    404: "not_found: unknown route, citation, source, root or job",
    405: "method_not_allowed",
    413: "payload_too_large: the body exceeds the server's limit",
    415: "unsupported_media_type: bodies must be application/json",
    422: "locator or document: a source file could not be read for locating",
    429: "too_many_jobs",
    500: "internal: an unexpected error (details only in the server log)",
    502: "provider: the retrieval provider failed",
    503: "provider_busy: the provider is busy; the work stays queued",
}


class ErrorResponse(msgspec.Struct, kw_only=True):
    """Every error: ``{"error": {"code", "message", "hint"}}``."""

    error: ApiErrorBody


def _version() -> str:
    try:
        return version("mnote-kr")
    except PackageNotFoundError:
        return "0.0.0"


@functools.lru_cache(maxsize=1)
def openapi_document(routes: tuple[Route, ...]) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``routes`` (built once per process)."""
    types: list[Any] = [ErrorResponse]
    for route in routes:
        types.extend(t for t in (route.request, route.response) if t is not None)
    schemas, components = msgspec.json.schema_components(types, ref_template=REF)
    schema_of = dict(zip(map(id, types), schemas, strict=True))
    error_schema = schema_of[id(ErrorResponse)]

    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        op: dict[str, Any] = {
            "operationId": (route.method.lower() + route.path.replace("/api", "").replace("/", "_")
                            .replace("-", "_").replace("{", "").replace("}", "").replace(".", "_")),
            "summary": route.summary,
            "responses": {},
        }
        params = [seg[1:-1] for seg in route.path.split("/") if seg.startswith("{")]
        if params:
            op["parameters"] = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                                for p in params]
        if route.path == "/api/plugins":
            op["parameters"] = [{"name": "all", "in": "query", "required": False,
                                 "description": "1 to include built-in plugins", "schema": {"type": "string"}}]
        if route.request is not None:
            op["requestBody"] = {
                "required": False,
                "content": {"application/json": {"schema": schema_of[id(route.request)]}},
            }
        if route.stream:
            ok = {"description": "text/event-stream: `event: progress` (data: ProgressLine) then `event: done` "
                                 "(data: JobView)",
                  "content": {"text/event-stream": {"schema": {"type": "string"}}}}
        else:
            ok = {"description": "OK", "content": {"application/json": {"schema": schema_of[id(route.response)]}}}
        op["responses"][str(route.status)] = ok
        if 202 in route.extra_status:
            op["responses"]["202"] = {
                "description": "Accepted: a background job; poll GET /api/jobs/{id} (Location header)",
                "content": {"application/json": {"schema": {"$ref": REF.format(name="JobView")}}},
            }
        codes = sorted(ERROR_STATUSES) if route.auth else [403, 404, 405, 500]
        if route.request is None:
            codes = [c for c in codes if c not in (413, 415)]
        for code in codes:
            op["responses"][str(code)] = {
                "description": ERROR_STATUSES[code],
                "content": {"application/json": {"schema": error_schema}},
            }
        if route.auth:
            op["security"] = [{"bearer": []}]
        else:
            op["security"] = []
        paths.setdefault(route.path, {})[route.method.lower()] = op

    if "JobView" not in components:
        from mnote_kr.server.jobs import JobView

        _, extra = msgspec.json.schema_components([JobView], ref_template=REF)
        components.update(extra)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "mnote-kr local HTTP API",
            "version": _version(),
            "description": (
                "Loopback API for desktop shells. Every route but /api/health needs "
                "`Authorization: Bearer <token>` (printed at start and written to the state dir). "
                "Answers have the shapes of the CLI's --json output."
            ),
        },
        "servers": [{"url": "http://127.0.0.1:{port}", "variables": {"port": {"default": "0"}}}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
