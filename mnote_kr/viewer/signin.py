"""How a browser signs in to the web UI without a reusable secret in any URL.

A URL a person opens ends up in places nobody controls: the browser's history database
(Chromium stores the first URL of a redirect chain too), the command line of the browser the
CLI starts (``ps`` shows it to every local user), terminal scrollback, proxy logs. So no URL
ever carries the server's token. It carries a **sign-in code** instead:

* random (144 bits), minted by the server itself: in-process (``mnote-kr serve`` printing its
  URL, the short-lived server of ``open --show``) or through ``POST /api/web/sign-in`` by a
  client that holds the bearer token (``open --show`` beside a running ``serve``);
* single use: the first request that presents it consumes it;
* short-lived: :data:`CODE_TTL_S` seconds after it was minted it is refused, used or not.

The browser presents ``?code=C`` once; the server answers with the HttpOnly session cookie
and a ``303`` to the same page without the code. What stays behind in history is a code that
no longer opens anything. A code that was used or has expired gets ``401`` and a sign-in page
where the token can be pasted (a POST body: never part of a URL).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from html import escape
from urllib.parse import parse_qs, urlencode

from mnote_kr.viewer import webpages

__all__ = ["CODE_TTL_S", "CodeBook", "SIGN_IN_PATH", "local_path", "sign_in_page", "token_from_form", "with_code"]

CODE_TTL_S = 60.0
MAX_OPEN_CODES = 64  # a flood of mints forgets the oldest unused codes, never grows without bound
SIGN_IN_PATH = "/signin"


class CodeBook:
    """Outstanding sign-in codes: minted, then redeemed at most once before they expire."""

    def __init__(self, ttl_s: float = CODE_TTL_S, clock: Callable[[], float] = time.monotonic,
                 max_open: int = MAX_OPEN_CODES) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._max_open = max_open
        self._codes: OrderedDict[str, float] = OrderedDict()  # code -> deadline
        self._lock = threading.Lock()

    def mint(self) -> str:
        """A new code, valid once for ``ttl_s`` seconds from now."""
        code = secrets.token_urlsafe(18)
        with self._lock:
            self._forget_expired()
            self._codes[code] = self._clock() + self.ttl_s
            while len(self._codes) > self._max_open:
                self._codes.popitem(last=False)
        return code

    def redeem(self, code: str, *, spend: bool = True) -> bool:
        """True for a code minted here and not expired; with ``spend`` (a GET) the code is gone
        afterwards, without it (a HEAD: link previews, a shell probing the URL) it stays open."""
        with self._lock:
            self._forget_expired()
            found = next((c for c in self._codes if hmac.compare_digest(c.encode(), code.encode("utf-8", "replace"))),
                         None)
            if found is None:
                return False
            if spend:
                del self._codes[found]
            return True

    def _forget_expired(self) -> None:
        now = self._clock()
        for code in [c for c, deadline in self._codes.items() if deadline <= now]:
            del self._codes[code]


def local_path(path: str) -> str:
    """``path`` when it names a page of this server (``/...``, not ``//host`` nor the API), else ``/``."""
    if not path.startswith("/") or path.startswith("//") or path.startswith("/\\") or path.startswith("/api/"):
        return "/"
    return path


def with_code(base_url: str, path: str, code: str) -> str:
    """The URL that signs a browser in with ``code`` and lands on ``path``."""
    path = local_path(path)
    return f"{base_url}{path}{'&' if '?' in path else '?'}{urlencode({'code': code})}"


def sign_in_page(next_path: str, title: str, message: str, token_hint: str) -> str:
    """The ``401`` page: why, and a form to paste the server's token (posted, never in a URL)."""
    body = (f'<section class="notice"><h1>{escape(title)}</h1><p>{escape(message)}</p>'
            f'<form class="sign-in" method="post" action="{SIGN_IN_PATH}">'
            f'<input type="hidden" name="next" value="{escape(local_path(next_path))}">'
            '<label>Server token <input type="password" name="token" autocomplete="off" required></label> '
            '<button type="submit">Sign in</button></form>'
            f'<p class="hint">{escape(token_hint)}</p></section>')
    return webpages.page(title, body, scripts=False)


def token_from_form(body: bytes) -> tuple[str, str]:
    """(token, next path) from the sign-in form's ``application/x-www-form-urlencoded`` body."""
    fields = parse_qs(body.decode("utf-8", "replace"))
    return (fields.get("token") or [""])[-1].strip(), local_path((fields.get("next") or ["/"])[-1])
