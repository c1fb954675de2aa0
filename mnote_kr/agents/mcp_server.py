"""``mnote-kr mcp``: the agent tools over the Model Context Protocol (the official ``mcp`` SDK).

Built on the SDK's low-level ``Server`` rather than its decorator API, because the schemas come
from our msgspec contracts (``agents.contracts``), not from Python signatures. Over stdio (the
default) stdout carries only JSON-RPC; with ``--http`` it is streamable HTTP on 127.0.0.1 behind
the same checks as ``mnote-kr serve``: the Host header must be a loopback name with this
server's port (DNS rebinding), browser origins are refused, and every request needs the
per-start bearer token (constant-time compare).

Host calls are blocking (files, LightRAG over HTTP), so they run in a worker thread and the
event loop keeps answering. A deliberate failure (``MnoteKrError``) becomes the tool's error
result (``isError``) with one ``Error: ... (how to fix)`` line, never a crashed server.
"""

from __future__ import annotations

import functools
import hmac
import logging
import secrets
import socket
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import mcp_types as types
import msgspec
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from mnote_kr.agents.tools import PROMPT_NAME, SKILL, ToolSpec, call_tool, error_text, prompt_text, tool_specs
from mnote_kr.errors import MnoteKrError

if TYPE_CHECKING:
    from mnote_kr.app.host import Host

log = logging.getLogger("mnote_kr.agents.mcp_server")

MCP_PATH = "/mcp"
TOKEN_FILE = "mcp-token"
_encoder = msgspec.json.Encoder()

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema,
        output_schema=spec.output_schema,
        annotations=types.ToolAnnotations(
            title=spec.title, read_only_hint=spec.read_only, destructive_hint=False if spec.read_only else None,
            idempotent_hint=spec.read_only, open_world_hint=False),
    )


def _error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def build_server(host: Host, *, allow_writes: bool = False) -> Server[Any]:
    """An MCP ``Server`` exposing the tools and the skill prompt for one ``Host``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("mnote-kr")
    except PackageNotFoundError:
        ver = "0"
    tools = [_tool(s) for s in tool_specs(allow_writes)]
    listing = types.ListToolsResult(tools=tools)
    run = functools.partial(call_tool, allow_writes=allow_writes)

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return listing

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            result = await anyio.to_thread.run_sync(run, host, params.name, params.arguments)
        except MnoteKrError as exc:
            return _error_result(error_text(exc))
        except Exception:  # noqa: BLE001 - the one boundary: the agent gets a line, the log the traceback
            log.exception("tool %s failed", params.name)
            return _error_result(f"Error: {params.name} failed unexpectedly (see the mnote-kr mcp log on stderr)")
        return types.CallToolResult(
            content=[types.TextContent(text=_encoder.encode(result).decode("utf-8"))],
            structured_content=msgspec.to_builtins(result),
        )

    prompt = types.Prompt(
        name=PROMPT_NAME,
        title="Answer from the knowledge base, with citations",
        description="How to answer from the user's documents: only from mnote_knowledge_rag_query's citations, "
                    "cited with their citationMarkdown.",
        arguments=[types.PromptArgument(name="question", description="The user's question", required=False)],
    )

    async def on_list_prompts(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[prompt])

    async def on_get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != PROMPT_NAME:
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt {params.name!r}; the prompt is {PROMPT_NAME!r}")
        question = (params.arguments or {}).get("question")
        return types.GetPromptResult(
            description=prompt.description,
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=prompt_text(question)))],
        )

    return Server(
        "mnote-kr",
        version=ver,
        title="mnote-kr knowledge base",
        instructions=SKILL,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_list_prompts=on_list_prompts,
        on_get_prompt=on_get_prompt,
    )


# ----------------------------------------------------------------------------- stdio


def refusal(line: str) -> types.JSONRPCError | None:
    """JSON-RPC's answer to a line that is no JSON-RPC message, or None for a message (the server's to
    answer): -32700 Parse error (id null) when it is not JSON; -32600 Invalid Request when it is JSON but
    no message, as the SDK reads one (no method, a list, a bare value), or a request whose id is neither
    a string nor an integer (the SDK would read it as a notification and answer nothing). The reply
    carries the line's id when that is a string or an integer, else null."""
    import pydantic

    try:
        value = msgspec.json.decode(line)
    except msgspec.DecodeError:
        return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
            code=types.PARSE_ERROR, message="Parse error: the line is not JSON"))
    ident = value.get("id") if isinstance(value, dict) else None
    if isinstance(ident, bool) or not isinstance(ident, str | int):
        ident = None
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except pydantic.ValidationError:
        pass
    else:
        if not (isinstance(message, types.JSONRPCNotification) and "id" in value):
            return None
    return types.JSONRPCError(jsonrpc="2.0", id=ident, error=types.ErrorData(
        code=types.INVALID_REQUEST, message='Invalid Request: the line is JSON but not a JSON-RPC 2.0 message '
                                            '("jsonrpc": "2.0", a "method", and an "id" that is a string or an '
                                            'integer, or none for a notification)'))


class _StdinLines:
    """The client's lines, read by a daemon thread from a private copy of stdin's descriptor; while the
    server runs, fd 0 reads the null device (as under the SDK's own claim of stdin, so a child process
    reads nothing of the wire), and :meth:`close` puts it back. The SDK reads stdin in an anyio worker
    thread that a cancel cannot stop: blocked on a terminal, it held up Ctrl-C until stdin closed. A
    daemon thread's read holds up neither Ctrl-C nor the process's exit."""

    def __init__(self) -> None:
        import fcntl
        import os
        import threading

        from mnote_kr.errors import UsageError

        try:
            if sys.stdin is None or sys.stdin.fileno() != 0:
                raise OSError
            private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)  # above 0-2, whichever of them is closed
            self._saved = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        except (OSError, ValueError, AttributeError):
            raise UsageError("stdin is closed: 'mnote-kr mcp' talks to its client over stdin and stdout",
                             hint="start it from an MCP client, or use 'mnote-kr mcp --http'") from None
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        send, self._receive = anyio.create_memory_object_stream[str](16)
        token = anyio.lowlevel.current_token()

        def pump() -> None:
            try:
                with open(private, encoding="utf-8", errors="replace", closefd=True) as lines:
                    for line in lines:
                        anyio.from_thread.run(send.send, line, token=token)
                anyio.from_thread.run(send.aclose, token=token)
            except BaseException:  # noqa: BLE001 - the server has stopped (cancelled, closed, loop gone)
                pass  # nobody reads these lines any more; a daemon thread ends quietly

        threading.Thread(target=pump, name="mcp stdin", daemon=True).start()

        self.replies: Any = None  # the SDK's write stream, once stdio_server has made it

    async def __aiter__(self) -> Any:
        """The lines that are JSON-RPC messages; each other line is answered here (:func:`refusal`). The
        SDK's reader would hand it to the server, which answers nothing, and a client waiting for its
        reply hung (nc26c; review r27)."""
        from mcp.shared.message import SessionMessage

        async for line in self._receive:
            if not line.strip():
                continue
            error = refusal(line)
            if error is None:
                yield line
            elif self.replies is not None:
                await self.replies.send(SessionMessage(error))

    def close(self) -> None:
        """Stop taking lines (a blocked sender then fails, and its thread ends) and give fd 0 back."""
        import os

        self._receive.close()
        try:
            os.dup2(self._saved, 0)
            os.close(self._saved)
        except OSError:
            pass


def _ctrl_c_stops() -> None:
    """Ctrl-C (SIGINT) and kill (SIGTERM) raise ``KeyboardInterrupt``, even when the process was started
    with SIGINT ignored (a script's background job: Python then installs no handler of its own and the
    server could not be stopped), as ``watch`` does."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.default_int_handler)


def run_stdio(host: Host, *, allow_writes: bool = False) -> None:
    """Serve over stdin/stdout until the client closes stdin (or Ctrl-C: ``KeyboardInterrupt``). Requests
    still being answered when stdin closes are dropped, as the SDK's stdio transport does: a client
    waits for its answers before it closes."""
    server = build_server(host, allow_writes=allow_writes)
    _ctrl_c_stops()
    try:
        on_terminal = sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):
        on_terminal = False
    if on_terminal:  # a person, not a client, started it: say what it waits for (stderr: stdout is the wire)
        print(f"MCP server for {host.root} on stdin/stdout: it waits for an MCP client's JSON-RPC; start it from "
              "the client's configuration ('mnote-kr mcp --http' serves HTTP). Ctrl-C stops it.",
              file=sys.stderr, flush=True)

    async def main() -> None:
        lines = _StdinLines()
        try:
            async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
                lines.replies = write_stream
                await server.run(read_stream, write_stream, server.create_initialization_options())
        finally:
            lines.close()

    anyio.run(main)


# ----------------------------------------------------------------------------- streamable HTTP


class LoopbackGuard:
    """ASGI middleware with ``mnote-kr serve``'s checks: loopback Host with our port, no browser
    Origin, bearer token. Lifespan events pass through untouched."""

    def __init__(self, app: ASGIApp, *, token: str, port: int) -> None:
        self.app = app
        self.token = token
        self.port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from mnote_kr.server.app import LOOPBACK_NAMES, _split_host_header

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        parsed = _split_host_header(headers.get("host", ""))
        if parsed is None or parsed[0] not in LOOPBACK_NAMES or (80 if parsed[1] is None else parsed[1]) != self.port:
            await _deny(send, 403, "forbidden_host", "Host header is not a loopback name",
                        f"connect to http://127.0.0.1:{self.port}{MCP_PATH}; other names are refused (DNS rebinding)")
            return
        if "origin" in headers:
            await _deny(send, 403, "origin_not_allowed", f"Origin {headers['origin']!r} is not allowed",
                        "the MCP endpoint serves local agents, not web pages")
            return
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode("utf-8", "replace"),
                                                                 self.token.encode()):
            await _deny(send, 401, "unauthorized", "Missing or wrong bearer token",
                        "send 'Authorization: Bearer <token>' (printed by 'mnote-kr mcp --http')")
            return
        await self.app(scope, receive, send)


async def _deny(send: Send, status: int, code: str, message: str, hint: str) -> None:
    body = _encoder.encode({"error": {"code": code, "message": message, "hint": hint}})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"cache-control", b"no-store")]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="mnote-kr"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def http_app(host: Host, *, token: str, port: int, allow_writes: bool = False) -> ASGIApp:
    """The guarded streamable-HTTP ASGI app (for ``run_http`` and tests)."""
    server = build_server(host, allow_writes=allow_writes)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host="127.0.0.1", json_response=True)
    return LoopbackGuard(app, token=token, port=port)


def run_http(host: Host, *, port: int = 0, allow_writes: bool = False) -> None:
    """Serve streamable HTTP on 127.0.0.1 until Ctrl-C; prints the URL and the token."""
    import uvicorn

    from mnote_kr.core import paths
    from mnote_kr.core.atomic import write_private
    from mnote_kr.errors import UsageError

    if not 0 <= port <= 65535:
        raise UsageError(f"Invalid port {port}")
    _ctrl_c_stops()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"Cannot listen on 127.0.0.1:{port}: {exc.strerror}",
                         hint="choose another --port, or 0 for a free one") from exc
    sock.listen(128)  # before the URL is printed: a client may connect at once (uvicorn accepts later)
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    token_file = paths.state_dir() / TOKEN_FILE
    write_private(token_file, token + "\n")
    try:  # from here on, the token file goes however the server stops (a Ctrl-C during start-up too)
        app = http_app(host, token=token, port=port, allow_writes=allow_writes)
        print(f"MCP on http://127.0.0.1:{port}{MCP_PATH}")
        print(f"Token: {token}")
        print(f"Token file: {token_file}", flush=True)

        class Server(uvicorn.Server):
            async def startup(self, sockets: list[socket.socket] | None = None) -> None:
                await super().startup(sockets=sockets)
                # Said once the loop runs: a Ctrl-C before it (the race a CI run hit) left a half-built
                # event loop's "Exception ignored ... Traceback" on stderr.
                print("Press Ctrl-C to stop.", flush=True)

        Server(uvicorn.Config(app, log_level="warning", lifespan="on")).run(sockets=[sock])
    finally:
        sock.close()
        try:
            if token_file.read_text(encoding="utf-8").strip() == token:
                token_file.unlink()
        except OSError:
            pass
        sys.stdout.flush()
