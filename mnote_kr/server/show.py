"""``mnote-kr open ID --show``: the citation in the browser's viewer.

When ``mnote-kr serve`` already runs for this workspace (its ``server.json`` and token
file in the state dir, a live ``/api/health``), its URL is used. Otherwise a short-lived
server starts in this process, serves the viewer, and stops once nobody has asked it
anything for ``linger_s`` seconds (or on Ctrl-C).

Without a web browser (a terminal over SSH, a container) nothing would ever ask that server
anything, so it is not started: the command says so at once and names ``--wait`` (serve here
anyway, printing the URL to open elsewhere) and ``mnote-kr serve``.
"""

from __future__ import annotations

import sys
import time
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import httpx

from mnote_kr.core import paths
from mnote_kr.server import records
from mnote_kr.viewer import webpages

if TYPE_CHECKING:
    from mnote_kr.app.host import Host

DEFAULT_LINGER_S = 300.0


def running_server(host: Host) -> tuple[str, str] | None:
    """(URL, token) of a live ``mnote-kr serve`` for this workspace, or None."""
    mine = records.live_record(paths.state_dir(), host.root)
    if mine is None:
        return None
    try:
        token = Path(mine.token_file).read_text(encoding="utf-8").strip()
        url = mine.url
    except OSError:
        return None
    try:
        if httpx.get(f"{url}/api/health", timeout=1.5).status_code != 200:
            return None
    except httpx.HTTPError:
        return None
    return url, token


def _sign_in_url(server: tuple[str, str], path: str) -> str:
    """A one-time URL for ``path`` from the running server (the token goes in a header, never a URL)."""
    from mnote_kr.errors import UsageError

    url, token = server
    try:
        r = httpx.post(f"{url}/api/web/sign-in", json={"path": path}, timeout=10,
                       headers={"Authorization": f"Bearer {token}"})
    except httpx.HTTPError as exc:
        raise UsageError(f"The running 'mnote-kr serve' at {url} did not answer: {exc}",
                         hint="try again, or restart 'mnote-kr serve'") from exc
    if r.status_code != 200:
        raise UsageError(f"The running 'mnote-kr serve' at {url} refused a sign-in link ({r.status_code})",
                         hint="restart 'mnote-kr serve' (it may be an older version)")
    return str(r.json()["url"])


def browser_available() -> bool:
    """Whether ``webbrowser`` would find a browser to run (``BROWSER``, a desktop's, a console one)."""
    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


def _open_browser(url: str, out: TextIO) -> None:
    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened:
        print("No web browser found: open the URL above yourself.", file=out)


def show(host: Host, citation_id: str, *, linger_s: float = DEFAULT_LINGER_S, browser: bool = True,
         wait: bool = False, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> str:
    """Print the viewer's URL for ``citation_id`` and open it; serve it here when no server runs.

    The citation is checked first (``Host.open``): an unknown or stale one is an error, not a
    page. Without a browser and without a running server, nothing is served unless ``wait``:
    ``UsageError`` says what to do. Returns the URL (its one-time code lets one browser in, once, within
    seconds).
    """
    plan = host.open(citation_id)
    issue = plan.issues[0].issue if plan.issues else None  # the latest search's: its places, whichever comes next
    found = running_server(host)
    if found is None and browser and not wait and not browser_available():
        from mnote_kr.errors import UsageError

        raise UsageError(f"No web browser found to show {plan.citation_id}, and no 'mnote-kr serve' runs for this "
                         "workspace", hint=f"run 'mnote-kr open \"{plan.citation_id}\" --show --wait' to serve the "
                         "viewer from here and open the URL it prints yourself, or start 'mnote-kr serve'")
    if found is not None:
        url = _sign_in_url(found, webpages.view_url(plan.citation_id, **({"issue": issue} if issue else {})))
        print(url, file=out, flush=True)
        if browser:
            _open_browser(url, err)
        return url
    from mnote_kr.server.app import ApiServer
    from mnote_kr.viewer import web

    server = ApiServer(host)
    url = web.viewer_url(server, plan.citation_id, issue)
    server.start()
    try:
        print(url, file=out, flush=True)
        print(f"Serving the viewer until it has been idle for {linger_s:g}s (Ctrl-C stops it).", file=err,
              flush=True)
        if browser:
            _open_browser(url, err)
        state = web.state(server)
        state.last_request = time.monotonic()
        while time.monotonic() - state.last_request < linger_s:
            time.sleep(min(0.5, linger_s))
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return url
