"""The browser face of ``mnote-kr serve``: a search page and the source viewer.

Same process, same socket and the same Host-header check as the JSON API (``app.py``
hands every path outside ``/api/`` to :func:`dispatch`). What differs is how a browser
proves it holds the per-start token (``signin.py`` says why no URL carries it):

* the printed URL carries a one-time sign-in code (``?code=...``, single use, seconds-lived); the
  server answers with a cookie and a redirect to the same page without the code. A URL with the
  token itself is refused; the sign-in page (``401``) takes the token as a posted form instead;
* the cookie ``mnote_kr_<port>`` holds an HMAC of the token, not the token (the cookie
  never works as the API's bearer token), ``HttpOnly; SameSite=Strict; Path=/``;
* ``Authorization: Bearer <token>`` also works (a desktop shell's webview);
* no valid code or cookie: ``401`` and the sign-in page, nothing else.

Every answer carries a strict Content-Security-Policy (only this server's own script,
styles and images; no inline code, no framing, forms only to itself). A POST must come
from this server's own origin. Documents and page images are served only through a
citation whose source is a live entry of the workspace's registry, inside the workspace,
unchanged since it was indexed; anything else is ``404`` (unknown) or ``410`` (stale,
deleted, changed), and neither shows any of the document.

Routes (all ``GET`` unless said): ``/`` search page (``q``, ``mode``, ``scope``);
``/view/{id}`` viewer (``issue``: the search it came from, ``render.ids.issue_key``; ``place``; ``page`` for
PDFs); ``/view/{id}/page/{n}.png`` (``scale``);
``/view/{id}/place.json?from=ID`` where a citation is, for a page moving to it (``relocate.py``);
``POST /view/{id}/open`` the system viewer, following the open plan; ``POST /signin`` the token form;
``/static/viewer.css|viewer.js|shell.js``; ``/static/fonts/cjk.otf`` the shipped CJK webfont (``fonts.py``).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import re
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import msgspec

from mnote_kr.citations.caches import citecache
from mnote_kr.citations.render.moved import moved_target
from mnote_kr.citations.render.openplan import (
    UNKNOWN_HINT,
    changed_on_disk,
    changed_since_issued,
    find_citation,
    normalize_citation_id,
    open_plan,
    unknown_message,
    unverified,
    why_not_citable,
)
from mnote_kr.citations.render.precision import page_hint
from mnote_kr.errors import DocumentError, MnoteKrError, PathNotAllowedError, UsageError, log_failure
from mnote_kr.viewer import fonts, relocate, searchpage, signin, webpages
from mnote_kr.viewer.gate import CSP, Reply, drain, gate, own_origins
from mnote_kr.viewer.sysopen import open_command

if TYPE_CHECKING:
    from mnote_kr.app.host import Host
    from mnote_kr.models import Citation, SourceEntry

__all__ = ["CSP", "WebState", "dispatch", "entry_url", "state", "viewer_url"]

log = logging.getLogger("mnote_kr.viewer.web")

SCALES = (1.0, 1.5, 2.0, 3.0)  # a fixed set bounds the render cache's keys
DEFAULT_SCALE = 1.5
RENDER_CACHE_BYTES = 96 * 1024 * 1024
STATIC = {"viewer.css": "text/css; charset=utf-8", "viewer.js": "text/javascript; charset=utf-8",
          "shell.js": "text/javascript; charset=utf-8"}
_ID = re.compile(r"^[A-Za-z0-9-]{1,40}$")
#: The ID as the CLI prints it, ``[y2y3]``: typed or pasted into the address bar (its brackets percent-encoded or not)
_BRACKETED_ID = re.compile(r"^\[([A-Za-z0-9-]{1,40})\]$")
_PAGE_PNG = re.compile(r"^(\d{1,6})\.png$")


class RenderCache:
    """Page images by (real path, size, mtime, page, scale): one file version's pages, LRU by bytes."""

    def __init__(self, max_bytes: int = RENDER_CACHE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[Any, ...], make: Callable[[], bytes | None]) -> bytes | None:
        """The cached image for ``key``, or ``make()``'s (kept when it fits)."""
        with self._lock:
            got = self._items.get(key)
            if got is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return got
            self.misses += 1
        made = make()
        if made is None or len(made) > self.max_bytes:
            return made
        with self._lock:
            if key not in self._items:
                self._items[key] = made
                self._total += len(made)
            while self._total > self.max_bytes:
                _, old = self._items.popitem(last=False)
                self._total -= len(old)
        return made

    def clear(self) -> None:
        """Forget every image (benchmarks measure a cold start with it)."""
        with self._lock:
            self._items.clear()
            self._total = 0


def _launch(argv: list[str]) -> None:
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    # Reaped when it exits (xdg-open hands the file on and exits at once): no zombie is left.
    threading.Thread(target=proc.wait, name="reap-opener", daemon=True).start()


@dataclass
class WebState:
    """The web UI's per-server state: the session cookie, the render cache, the launcher."""

    cookie_name: str
    cookie_value: str
    renders: RenderCache = field(default_factory=RenderCache)
    codes: signin.CodeBook = field(default_factory=signin.CodeBook)
    launch: Callable[[list[str]], None] = _launch  # tests record instead of opening a program
    last_request: float = field(default_factory=time.monotonic)


_states_lock = threading.Lock()


def state(api: Any) -> WebState:
    """The ``WebState`` of an ``ApiServer`` (made on first use from its token and port)."""
    got = getattr(api, "_web_state", None)
    if got is None:
        with _states_lock:
            got = getattr(api, "_web_state", None)
            if got is None:
                value = hmac.new(api.token.encode(), b"mnote-kr web session", hashlib.sha256).hexdigest()
                got = WebState(cookie_name=f"mnote_kr_{api.port}", cookie_value=value)
                api._web_state = got
    return got


def entry_url(api: Any, path: str = "/") -> str:
    """A URL that lets one browser in, once, within ``signin.CODE_TTL_S`` seconds: ``path`` with a new code."""
    return signin.with_code(api.url, path, state(api).codes.mint())


def viewer_url(api: Any, citation_id: str, issue: str | None = None) -> str:
    """The viewer's URL for a citation, with a new sign-in code (``mnote-kr open ID --show``), on the search with
    key ``issue`` when one is given."""
    return entry_url(api, webpages.view_url(citation_id, **({"issue": issue} if issue else {})))


# --------------------------------------------------------------------------- dispatch


def dispatch(handler: BaseHTTPRequestHandler) -> None:
    """Answer one request for a path outside ``/api/`` (the Host header is already checked)."""
    api = handler.server.api  # type: ignore[attr-defined]
    web = state(api)
    web.last_request = time.monotonic()
    reply = Reply(handler)
    body = drain(handler)
    split = urlsplit(handler.path)
    path = split.path
    query = parse_qs(split.query)
    method = handler.command
    origin = handler.headers.get("Origin")
    if origin is not None and origin.rstrip("/") not in own_origins(api):  # "null" included: never ours
        reply.message(403, "Forbidden", "Requests from other sites are refused.")
        return
    if origin is None and method not in ("GET", "HEAD"):  # the page's own form always sends it
        reply.message(403, "Forbidden", "A request that changes something must come from this server's own page.")
        return
    if path == "/favicon.ico" and method in ("GET", "HEAD"):
        reply.send(204, b"", "image/x-icon", cache="max-age=86400")  # no icon, and no 404 in the log
        return
    if path.startswith("/static/") and method in ("GET", "HEAD"):
        _static(reply, path[len("/static/"):])
        return
    if not gate(reply, handler, api, web, body, path, query):
        return
    try:
        _route(reply, api.host, web, method, path, query)
    except MnoteKrError as exc:
        status = exc.http_status if 400 <= exc.http_status < 600 else 500
        log_failure(log, method, path, exc, status)
        reply.message(status, "Cannot show this", exc.message, getattr(exc, "hint", None))
    except Exception:  # noqa: BLE001 - the one boundary of the web UI; no traceback in the page
        log.exception("%s %s failed", method, path)
        reply.message(500, "Internal error", "Something went wrong; the server log has the details.")


def _route(reply: Reply, host: Host, web: WebState, method: str, path: str, query: dict[str, list[str]]) -> None:
    parts = path.strip("/").split("/") if path.strip("/") else []
    if not parts:
        if method not in ("GET", "HEAD"):
            reply.message(405, "Method not allowed", f"{method} is not allowed here.")
            return
        _search(reply, host, query)
        return
    bracketed = _BRACKETED_ID.match(unquote(parts[1])) if len(parts) >= 2 and parts[0] == "view" else None
    if parts[0] != "view" or len(parts) < 2 or not (_ID.match(parts[1]) or bracketed):
        reply.message(404, "Not found", f"Nothing at {path}.")
        return
    cid = bracketed.group(1) if bracketed else parts[1]
    if bracketed and len(parts) == 2 and method in ("GET", "HEAD"):
        # one address per page: the shell script reads the bare ID from it (static/shell.js)
        reply.redirect(webpages.view_url(cid) + ("?" + urlencode(query, doseq=True) if query else ""))
        return
    if len(parts) == 2 and method in ("GET", "HEAD"):
        _view(reply, host, web, cid, query)
    elif len(parts) == 4 and parts[2] == "page" and method in ("GET", "HEAD") and _PAGE_PNG.match(parts[3]):
        _page_image(reply, host, web, cid, int(_PAGE_PNG.match(parts[3]).group(1)), query)  # type: ignore[union-attr]
    elif len(parts) == 3 and parts[2] == "place.json" and method in ("GET", "HEAD"):
        _place(reply, host, cid, query)
    elif len(parts) == 3 and parts[2] == "open" and method == "POST":
        _open_system(reply, host, web, cid, _issue(query))
    else:
        reply.message(404, "Not found", f"Nothing at {path}.")


def _static(reply: Reply, name: str) -> None:
    if "/static/" + name == fonts.ROUTE:
        font = fonts.webfont()
        if font is None:
            reply.message(404, "Not found", "The CJK font package is not installed (noto-cjk-sans-jp-regular).")
            return
        reply.send(200, font.read_bytes(), fonts.CONTENT_TYPE, cache="public, max-age=604800")
        return
    ctype = STATIC.get(name)
    if ctype is None:
        reply.message(404, "Not found", "No such file.")
        return
    body = resources.files("mnote_kr.viewer").joinpath("static", name).read_bytes()
    reply.send(200, body, ctype, cache="no-cache")


# --------------------------------------------------------------------------- search


def _search(reply: Reply, host: Host, query: dict[str, list[str]]) -> None:
    q = (query.get("q") or [""])[-1].strip()
    mode = (query.get("mode") or ["mix"])[-1]
    # each ``scope`` a path the search covers (the viewer's way back carries a scoped search's, nc29b)
    scope = [s.strip() for s in query.get("scope") or [] if s.strip()]
    roots = [r.root_relative_path for r in host.roots_list()]
    if not q:
        reply.html(200, searchpage.search_page(mode=mode, scope=scope, roots=roots))
        return
    try:
        if mode not in searchpage.MODES:
            raise UsageError(f"Unknown mode {mode!r}", hint="choose " + ", ".join(searchpage.MODES))
        paths = [str(host.workspace.resolve(s, base=host.root)[0]) for s in scope]
        results = host.search(q, scope=paths, mode=mode, top_k=20)
    except MnoteKrError as exc:
        reply.html(exc.http_status, searchpage.search_page(q, mode, scope, roots, error=(exc.message, exc.hint)))
        return
    reply.html(200, searchpage.search_page(q, mode, scope, roots, results=results))


# --------------------------------------------------------------------------- the cited source


@dataclass
class _Source:
    citation: Citation
    path: Path
    entry: SourceEntry
    version: str
    note: str | None = None  # the issue the URL named is not kept: the newest is shown (``_issue_note``)


class _Gone(Exception):
    def __init__(self, citation: Citation, reason: str) -> None:
        super().__init__(reason)
        self.citation = citation
        self.reason = reason


def _source(host: Host, cid: str, issue: str | None = None) -> _Source | None:
    """The citation's live source, None when unknown (404); raises ``_Gone`` when stale (410). ``issue``: the
    search the URL came from (``?issue=``): the citation as that search showed it, else the newest and a note."""
    found = citecache.issued_as(host, normalize_citation_id(cid), issue)
    if found is None:
        return None
    citation, issued_hash, kept = found
    rel = citation.source_root_relative_path
    reg = host.registry()
    entry = reg.entries.get(rel)
    if (target := moved_target(reg, entry, rel, host.workspace.index_dir)) is not None:  # as 'open' opens it
        rel, entry = target
        citation = msgspec.structs.replace(citation, source_root_relative_path=rel)
    if entry is None or entry.stale or entry.status not in ("processed",):  # the words 'open' gives
        raise _Gone(citation, f"Not cited any more: {why_not_citable(host, rel, entry)}.")
    if changed := changed_since_issued(citation, issued_hash, entry):
        raise _Gone(citation, f"The source {changed}: the place may have moved. Search again.")
    try:
        path, _ = host.workspace.resolve(rel, base=host.root)
    except PathNotAllowedError:
        return None
    try:
        st = path.stat()
    except OSError:
        raise _Gone(citation, f"The source file was deleted or moved: {rel}.") from None
    if not path.is_file():
        raise _Gone(citation, f"The source is not a file any more: {rel}.")
    if changed_on_disk(entry, path, st):
        raise _Gone(citation, f"The source changed since it was indexed: {rel}. Its citations are stale.")
    citation = unverified(citation, issued_hash) or citation  # no version recorded: the file, at no place
    return _Source(citation, path, entry, f"{st.st_size:x}-{st.st_mtime_ns:x}", None if kept else _issue_note(citation))


def _issue_note(c: Citation) -> str:
    latest = f'the latest search that cited it, "{c.search_query}"' if c.search_query else "its latest issue"
    return (f"The search this link came from is no longer kept for {c.citation_id} (an ID keeps the places of its "
            f"latest searches): showing {latest}.")


def _issue(query: dict[str, list[str]]) -> str | None:
    got = (query.get("issue") or [""])[-1]
    return got or None


def _opened_note(query: dict[str, list[str]]) -> str | None:
    flag = (query.get("opened") or [""])[-1]
    if flag == "1":
        return "Asked the system to open the file."
    if flag == "0":
        return "No program to open the file was found on this machine."
    return None


def _view(reply: Reply, host: Host, web: WebState, cid: str, query: dict[str, list[str]]) -> None:
    try:
        src = _source(host, cid, _issue(query))
    except _Gone as gone:
        reply.html(410, webpages.gone_page(gone.citation, gone.reason))
        return
    if src is None:
        reply.message(404, "Not found", unknown_message(host, normalize_citation_id(cid)) + ".", UNKNOWN_HINT)
        return
    c = src.citation
    opened = _opened_note(query)
    model = host.plugins.document_model(str(src.path))
    if model is None or (model.kind == "pages" and not model.pages) or (model.kind == "slides" and not model.slides):
        reply.html(200, webpages.no_preview(c, "No plugin can show this file type here; "
                                               "open it in the system viewer.", opened, src.note))
        return
    raw_place = (query.get("place") or ["1"])[-1]
    place = int(raw_place) if raw_place.isdigit() else 0
    if not 1 <= place <= webpages.place_count(c):
        reply.message(404, "No such place", f"This citation has {webpages.place_count(c)} place(s) in its file.")
        return
    loc = webpages.at_place(c, place).locator
    if model.kind in ("pages", "slides"):
        unit, total = ("page", len(model.pages)) if model.kind == "pages" else ("slide", len(model.slides))
        hint = page_hint(loc) if unit == "page" else None  # a file citation opens at the page it knew
        cited = loc.page if unit == "page" and loc.locator_precision == "bbox" else \
            loc.slide if unit == "slide" and loc.locator_precision == "slide" else \
            hint if hint is not None and 1 <= hint <= total else None
        raw = (query.get(unit) or [""])[-1]
        shown = int(raw) if raw.isdigit() else cited or 1
        if not 1 <= shown <= total:
            what = "PDF" if unit == "page" else "presentation"
            reply.message(404, f"No such {unit}", f"The {what} has {total} {unit}s.")
            return
        reply.html(200, webpages.pdf_viewer(c, model, shown, DEFAULT_SCALE, src.version, opened, place,
                                            notice=_font_notice(host, src.path, shown), note=src.note)
                   if unit == "page" else webpages.slide_viewer(c, model, shown, opened, place, src.note))
        return
    if model.kind == "sheets":
        name = query["sheet"][-1] if query.get("sheet") else None
        if name is not None and name not in {sheet.name for sheet in model.sheets}:
            reply.message(404, "No such sheet", "The workbook has no sheet with cells by that name.")
            return
        reply.html(200, webpages.sheet_viewer(c, model, opened, place, name, src.note))
        return
    reply.html(200, webpages.paragraph_viewer(c, model, opened, place, src.note))


def _font_notice(host: Host, path: Path, page: int) -> str | None:
    """The viewer's line about fonts the PDF names but does not include (fonts.py), if any."""
    try:
        found = host.plugins.page_fonts(str(path), page)
    except DocumentError:
        return None
    return fonts.missing_font_notice(*found) if found else None


def _place(reply: Reply, host: Host, cid: str, query: dict[str, list[str]]) -> None:
    """``/view/{id}/place.json?from=ID&issue=KEY``: where citation ``id`` is, as the search with key ``issue``
    showed it (its places, its way back; the newest without one), for the page showing ``from`` (relocate.py)."""
    def error(status: int, code: str, message: str) -> None:
        reply.send(status, msgspec.json.encode({"error": {"code": code, "message": message}}), "application/json")

    try:
        src = _source(host, cid, _issue(query))
    except _Gone as gone:
        error(410, "gone", gone.reason)
        return
    if src is None:
        error(404, "not_found", f"{unknown_message(host, normalize_citation_id(cid))}; {UNKNOWN_HINT}.")
        return
    try:
        shown = find_citation(host, (query.get("from") or [""])[-1]) if query.get("from") else None
    except UsageError as exc:  # not an ID at all: the caller's mistake, as locate's own bad_request
        error(400, "bad_request", f"from: {exc.message}")
        return
    same = shown is not None and shown.source_root_relative_path == src.citation.source_root_relative_path
    model = host.plugins.document_model(str(src.path)) if same else None
    payload = relocate.place_payload(src.citation, model, same_document=same, scale=DEFAULT_SCALE,
                                     version=src.version, note=src.note)
    reply.send(200, msgspec.json.encode(payload), "application/json")


def _page_image(reply: Reply, host: Host, web: WebState, cid: str, number: int,
                query: dict[str, list[str]]) -> None:
    try:
        src = _source(host, cid)
    except _Gone:
        src = None
    if src is None:
        reply.message(404, "Not found", "No such page image.")
        return
    raw_scale = (query.get("scale") or [str(DEFAULT_SCALE)])[-1]
    try:
        scale = float(raw_scale)
    except ValueError:
        scale = -1.0
    if scale not in SCALES:
        reply.message(404, "Not found", f"Scale must be one of {', '.join(map(str, SCALES))}.")
        return
    st = src.path.stat()
    key = (os.path.realpath(src.path), st.st_size, st.st_mtime_ns, number, scale)
    try:
        png = web.renders.get(key, lambda: host.plugins.render_page(str(src.path), number, scale))
    except DocumentError as exc:
        if "out of range" in exc.message:
            reply.message(404, "Not found", exc.message)
            return
        raise
    if png is None:
        reply.message(404, "Not found", "No plugin renders pages of this file type.")
        return
    # A private document's page: never written to the browser's (or a webview's) disk cache.
    reply.send(200, png, "image/png", cache="no-store")


def _open_system(reply: Reply, host: Host, web: WebState, cid: str, issue: str | None = None) -> None:
    try:
        plan = open_plan(host, cid)
    except MnoteKrError as exc:
        reply.message(404, "Not found", exc.message, exc.hint)
        return
    argv = open_command(plan)
    ok = argv is not None
    if argv is not None:
        try:
            web.launch(argv)
        except OSError as exc:
            log.warning("cannot start %s: %s", argv[0], exc)
            ok = False
    reply.redirect(webpages.view_url(plan.citation_id, **({"issue": issue} if issue else {}), opened=1 if ok else 0))
