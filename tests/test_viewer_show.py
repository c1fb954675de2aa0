"""``mnote-kr open ID --show``: prints the viewer's URL, opens it in the default browser, and
serves it from a short-lived server when no ``mnote-kr serve`` runs (reusing one that does).

The "browser" is a script named by ``BROWSER`` (the standard library's ``webbrowser`` honours
it) that records the URL; the test then fetches the page through that URL.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.citations.render.ids import issue_key
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer.webpages import view_url
from tests.cli_helpers import cli_env

#: The cited paragraph as the page renders it (its highlight, when it has one, around its words).
CITED_PARAGRAPH = r'data-paragraph-index="1">(<mark[^>]*>)?The quillwort pump'


def _workspace(tmp_path: Path) -> tuple[Path, str]:
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "a.md").write_text("# Pumps\n\nThe quillwort pump runs on diesel.\n", encoding="utf-8")
    host, _ = fake_host(ws)
    host.roots_add(ws / "notes")
    host.ingest([ws / "notes"])
    cite = host.search(SEARCH, top_k=5).results[0]
    return ws, cite.citation_id


SEARCH = "quillwort pump"


def _viewer_path(cid: str) -> str:
    """The viewer's path ``open --show`` names: on the issue of the search that printed the ID (its places)."""
    return view_url(cid, issue=issue_key(SEARCH))


def _recorder(tmp_path: Path) -> tuple[str, Path]:
    log = tmp_path / "browser-urls.txt"
    script = tmp_path / "fake-browser.sh"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\n', encoding="utf-8")  # its whole command line
    script.chmod(0o755)
    return f"{script} %s", log


def _fetch_as_browser(url: str) -> httpx.Response:
    with httpx.Client(timeout=30, follow_redirects=True) as client:  # keeps the cookie across the redirect
        return client.get(url)


def test_open_show_starts_a_short_lived_server_prints_url_and_opens_the_browser(tmp_path: Path) -> None:
    ws, cid = _workspace(tmp_path)
    browser_cmd, log = _recorder(tmp_path)
    env = {**cli_env(Path(os.environ["MNOTE_KR_HOME"]), None), "BROWSER": browser_cmd}
    proc = subprocess.Popen([sys.executable, "-m", "mnote_kr", "--workspace", str(ws), "open", cid, "--show",
                             "--linger", "3"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (log.exists() and log.read_text().strip()) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)
        url = log.read_text().strip().splitlines()[0]
        assert url.startswith("http://127.0.0.1:") and _viewer_path(cid) + "&code=" in url
        page = _fetch_as_browser(url)
        assert page.status_code == 200 and re.search(CITED_PARAGRAPH, page.text)
        assert _fetch_as_browser(url).status_code == 401  # the code in the browser's command line is spent
        out, err = proc.communicate(timeout=30)  # it stops by itself once idle
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert out.strip() == url
    assert "idle" in err


def test_open_show_uses_the_running_server_of_the_workspace(tmp_path: Path) -> None:
    ws, cid = _workspace(tmp_path)
    host, _ = fake_host(ws)
    browser_cmd, log = _recorder(tmp_path)
    env = {**cli_env(Path(os.environ["MNOTE_KR_HOME"]), None), "BROWSER": browser_cmd}
    with ApiServer(host) as server:  # writes server.json and the token file in MNOTE_KR_HOME's state dir
        done = subprocess.run([sys.executable, "-m", "mnote_kr", "--workspace", str(ws), "open", cid, "--show"],
                              env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        url = done.stdout.strip()
        assert url.startswith(server.url + _viewer_path(cid) + "&code=")
        argv = log.read_text()
        assert argv.strip() == url and server.token not in argv and server.token not in done.stdout + done.stderr
        assert _fetch_as_browser(url).status_code == 200
        again = _fetch_as_browser(url)  # the code is single use: history or ps output opens nothing
        assert again.status_code == 401 and "set-cookie" not in again.headers


def test_open_show_of_an_unknown_citation_is_one_error_line(tmp_path: Path) -> None:
    ws, _ = _workspace(tmp_path)
    done = subprocess.run([sys.executable, "-m", "mnote_kr", "--workspace", str(ws), "open", "[zzzz]", "--show"],
                          env=cli_env(Path(os.environ["MNOTE_KR_HOME"]), None), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("Error: Unknown citation [zzzz]") and len(done.stderr.strip().splitlines()) == 1


def _no_browser_env() -> dict[str, str]:
    """No BROWSER, no display, and a PATH with no console browser: ``webbrowser`` finds nothing."""
    env = cli_env(Path(os.environ["MNOTE_KR_HOME"]), None)
    for key in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(key, None)
    env["PATH"] = os.path.dirname(sys.executable)
    return env


def test_open_show_without_a_browser_returns_at_once_and_names_wait(tmp_path: Path) -> None:
    ws, cid = _workspace(tmp_path)
    done = subprocess.run([sys.executable, "-m", "mnote_kr", "--workspace", str(ws), "open", cid, "--show"],
                          env=_no_browser_env(), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: No web browser found to show {cid}"), done.stderr
    assert f'open "{cid}" --show --wait' in lines[0] and "mnote-kr serve" in lines[0]


def test_open_show_wait_without_a_browser_serves_the_printed_url_until_idle(tmp_path: Path) -> None:
    ws, cid = _workspace(tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "mnote_kr", "--workspace", str(ws), "open", cid, "--show",
                             "--wait", "--linger", "3"], env=_no_browser_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()  # printed before it waits
        assert url.startswith("http://127.0.0.1:") and _viewer_path(cid) + "&code=" in url
        page = _fetch_as_browser(url)
        assert page.status_code == 200 and re.search(CITED_PARAGRAPH, page.text)
        _out, err = proc.communicate(timeout=60)  # then it stops by itself once idle
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "No web browser found: open the URL above yourself." in err
