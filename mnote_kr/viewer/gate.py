"""The web UI's door: how every answer goes out (``Reply``: the strict headers, the
Content-Security-Policy) and who may come in (``gate``: a sign-in code, the token form, the
session cookie or the bearer token; ``web.py``'s docstring tells the rules, ``signin.py`` why).
"""

from __future__ import annotations

import hmac
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol
from urllib.parse import urlencode

from mnote_kr.viewer import signin, webpages

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


class Sessions(Protocol):
    """What the gate reads of the server's ``web.WebState``: its session cookie and sign-in codes."""

    cookie_name: str
    cookie_value: str
    codes: signin.CodeBook


# --------------------------------------------------------------------------- responses


class Reply:
    def __init__(self, handler: BaseHTTPRequestHandler) -> None:
        self.h = handler

    def send(self, status: int, body: bytes, ctype: str, *, cache: str = "no-store",
             headers: dict[str, str] | None = None) -> None:
        h = self.h
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(body)))
        h.send_header("Cache-Control", cache)
        h.send_header("Content-Security-Policy", CSP)
        h.send_header("X-Content-Type-Options", "nosniff")
        h.send_header("X-Frame-Options", "DENY")
        # same-origin, not no-referrer: no URL of these pages ever reaches another site either way, but
        # under no-referrer Chromium sends "Origin: null" on the pages' own form posts (Fetch's origin
        # serialisation), which the Origin rule in dispatch() must refuse. Under same-origin a form of this
        # server carries its real Origin and one of any other origin still carries its own, or null.
        h.send_header("Referrer-Policy", "same-origin")
        h.send_header("Cross-Origin-Opener-Policy", "same-origin")
        h.send_header("Cross-Origin-Resource-Policy", "same-origin")
        for key, value in (headers or {}).items():
            h.send_header(key, value)
        if h.close_connection:
            h.send_header("Connection", "close")
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(body)

    def html(self, status: int, text: str, headers: dict[str, str] | None = None) -> None:
        self.send(status, text.encode("utf-8"), "text/html; charset=utf-8", headers=headers)

    def message(self, status: int, title: str, message: str, hint: str | None = None) -> None:
        self.html(status, webpages.message_page(title, message, hint))

    def redirect(self, location: str, headers: dict[str, str] | None = None) -> None:
        self.send(303, b"", "text/plain; charset=utf-8", headers={"Location": location, **(headers or {})})


# --------------------------------------------------------------------------- checks


def own_origins(api: Any) -> set[str]:
    return {f"http://{name}:{api.port}" for name in ("127.0.0.1", "localhost", "[::1]")} | {api.url}


def _cookie(handler: BaseHTTPRequestHandler, name: str) -> str:
    for header in handler.headers.get_all("Cookie") or []:
        for part in header.split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value
    return ""


def _authorised(handler: BaseHTTPRequestHandler, api: Any, web: Sessions) -> bool:
    given = _cookie(handler, web.cookie_name)
    if given and hmac.compare_digest(given.encode("utf-8", "replace"), web.cookie_value.encode()):
        return True
    scheme, _, bearer = handler.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(bearer.strip().encode("utf-8", "replace"),
                                                              api.token.encode())


def drain(handler: BaseHTTPRequestHandler) -> bytes:
    """Read a small body (returned) so keep-alive stays in sync; close the connection on anything else."""
    raw = (handler.headers.get("Content-Length") or "0").strip()
    if handler.headers.get("Transfer-Encoding") or not raw.isdigit() or int(raw) > 65536:
        handler.close_connection = True
    elif int(raw):
        # The server's deadline-aware reader (conn.py) when there is one: a trickled body cannot hold a thread.
        read_exact = getattr(handler, "read_exact", None)
        if read_exact is None:
            return bytes(handler.rfile.read(int(raw)))
        body = read_exact(int(raw))
        if body is None:
            handler.close_connection = True
        return body or b""
    return b""


def _without(path: str, query: dict[str, list[str]], name: str) -> str:
    rest = {k: v for k, v in query.items() if k != name}
    return path + ("?" + urlencode(rest, doseq=True) if rest else "")


def _sign_in(reply: Reply, api: Any, status: int, next_path: str, title: str, message: str) -> None:
    reply.html(status, signin.sign_in_page(next_path, title, message,
                                           "'mnote-kr open ID --show' opens a citation signed in; the server's "
                                           f"token is in {api.token_file_hint}"))


def _session(reply: Reply, web: Sessions, target: str) -> None:
    cookie = f"{web.cookie_name}={web.cookie_value}; HttpOnly; SameSite=Strict; Path=/"
    reply.redirect(target, {"Set-Cookie": cookie})


def gate(reply: Reply, handler: BaseHTTPRequestHandler, api: Any, web: Sessions, body: bytes,
          path: str, query: dict[str, list[str]]) -> bool:
    """Sign-in by code, token form or cookie: True when the request may go on to the pages."""
    method = handler.command
    if path == signin.SIGN_IN_PATH and method == "POST":
        token, target = signin.token_from_form(body)
        if token and hmac.compare_digest(token.encode("utf-8", "replace"), api.token.encode()):
            _session(reply, web, target)
        else:
            _sign_in(reply, api, 401, target, "Wrong token", "That is not the token this server was started with.")
        return False
    code = (query.get("code") or [""])[-1]
    if code and method in ("GET", "HEAD"):
        if method == "HEAD" and web.codes.redeem(code, spend=False):  # answers as GET would, spends nothing
            reply.redirect(_without(path, query, "code"), {})
        elif web.codes.redeem(code):
            _session(reply, web, _without(path, query, "code"))
        else:
            _sign_in(reply, api, 401, _without(path, query, "code"), "Sign-in link used or expired",
                     f"A sign-in link works once, within {web.codes.ttl_s:g} seconds of being made.")
        return False
    if query.get("token") and method in ("GET", "HEAD"):
        _sign_in(reply, api, 401, _without(path, query, "token"), "Links do not carry the token",
                 "A URL with the server's token would stay in the browser's history; this server refuses it.")
        return False
    if not _authorised(handler, api, web):
        _sign_in(reply, api, 401, _without(path, query, "code") if method == "GET" else "/", "Not signed in",
                 "Open this server through a sign-in link, or paste its token.")
        return False
    return True
