"""What a fresh process reuses from earlier ones (speed from a cold start, docs/cold-start.md), and the
plain HTTP client that spares status and search the httpx import: each cache serves while
what it was built from is unchanged, and is ignored (never trusted) otherwise."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from mnote_kr import entrypoints
from mnote_kr.citations import pipeline
from mnote_kr.citations.caches import answercache
from mnote_kr.core.config import load_config
from mnote_kr.models import LocateRequest, Locator
from mnote_kr.plainhttp import PlainClient
from mnote_kr.plugins import load_plugins

# ----------------------------------------------------------------------------- plain HTTP


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        return None

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path == "/json":
            self._send(200, b'{"ok": true, "word": "caf\xc3\xa9"}', {"Content-Type": "application/json"})
        elif self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (b'{"a": ', b"[1, 2, 3]}"):
                self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        elif self.path == "/busy":
            self._send(503, b'{"detail": "busy"}', {"Retry-After": "7"})
        elif self.path == "/slow":
            time.sleep(1.5)
            self._send(200, b"{}")
        elif self.path == "/headers":
            self._send(200, json.dumps({"key": self.headers.get("X-API-Key")}).encode())

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._send(200, json.dumps({"got": json.loads(body), "type": self.headers.get("Content-Type")}).encode())


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _client(url: str, timeout: float = 5.0) -> PlainClient:
    return PlainClient(url, timeout=timeout, connect_timeout=1.0, headers={"X-API-Key": "k1"},
                       fallback=lambda: httpx.Client(base_url=url))


def test_plain_client_reads_json_chunked_bodies_and_status_like_httpx(server: str) -> None:
    client = _client(server)
    got = client.request("GET", "/json")
    assert got.status_code == 200 and got.json() == {"ok": True, "word": "café"}
    assert got.headers.get("content-type") == got.headers.get("Content-Type") == "application/json"
    assert client.request("GET", "/chunked").json() == {"a": [1, 2, 3]}
    busy = client.request("GET", "/busy")
    assert busy.status_code == 503 and busy.headers.get("retry-after") == "7"
    echoed = client.request("POST", "/echo", json={"query": "ü", "n": 1}).json()
    assert echoed == {"got": {"query": "ü", "n": 1}, "type": "application/json"}
    assert client.request("GET", "/headers").json() == {"key": "k1"}
    request = client.build_request("GET", "/headers")
    request.headers.pop("X-API-Key", None)  # what the exposure probe does
    assert client.send(request).json() == {"key": None}


def test_plain_client_fails_with_httpx_errors(server: str) -> None:
    with pytest.raises(httpx.TimeoutException):
        _client(server, timeout=0.3).request("GET", "/slow")
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate fails as it does with httpx
        _client(server).request("POST", "/echo", json={"query": "x \udce7"})
    with pytest.raises(httpx.TransportError):  # nothing listens there
        _client(f"http://127.0.0.1:{_free_port()}").request("GET", "/json")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ----------------------------------------------------------------------------- entry points


def test_entry_points_are_cached_and_rescanned_when_the_import_path_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    first = entrypoints.entry_points("mnote_kr")
    expected = sorted((ep.name, ep.value) for ep in metadata.entry_points(group="mnote_kr"))
    assert [(r.name, r.value) for r in first] == expected and expected
    real_scan = entrypoints._scan
    monkeypatch.setattr(entrypoints, "_scan", lambda group: pytest.fail("scanned although nothing changed"))
    assert entrypoints.entry_points("mnote_kr") == first
    # A new distribution on the path: the list is read again and holds it.
    site = tmp_path / "site"
    info = site / "fake_ep-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-ep\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[mnote_kr]\nfake_ep = fake_ep_mod\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(entrypoints, "_scan", real_scan)
    names = {r.name: r for r in entrypoints.entry_points("mnote_kr")}
    assert names["fake_ep"].distribution == "fake-ep" and names["fake_ep"].version == "1.0"
    # The plugin's entry_points.txt edited in place (no new folder): rescanned too.
    (info / "entry_points.txt").write_text("[mnote_kr]\nfake_ep2 = fake_ep_mod\n")
    os.utime(info / "entry_points.txt", ns=(1, 1))
    names = {r.name for r in entrypoints.entry_points("mnote_kr")}
    assert "fake_ep2" in names and "fake_ep" not in names


def test_a_torn_entry_point_cache_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = entrypoints.entry_points("mnote_kr")
    path = entrypoints._cache_file(entrypoints.install_key())
    path.write_text(path.read_text()[:40])
    assert entrypoints.entry_points("mnote_kr") == rows
    assert json.loads(path.read_text())["rows"]  # rewritten whole


# ----------------------------------------------------------------------------- --help manifest

_PROBE = """
import json, sys
from mnote_kr.cli import main
code = main(["--help"])
print(json.dumps({"code": code, "lightrag": "mnote_kr_lightrag" in sys.modules}), file=sys.stderr)
"""


def _help(env: dict[str, str], cwd: Path) -> tuple[str, dict[str, object]]:
    proc = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120)
    return proc.stdout, json.loads(proc.stderr.strip().splitlines()[-1])


def test_help_lists_plugin_commands_from_the_manifest_and_rebuilds_a_foreign_one(tmp_path: Path) -> None:
    env = {**os.environ, "MNOTE_KR_HOME": str(tmp_path / "home")}
    out, first = _help(env, tmp_path)
    assert first == {"code": 0, "lightrag": True} and "engine" in out and "demo" in out
    out, second = _help(env, tmp_path)
    assert second == {"code": 0, "lightrag": False}  # listed without loading the plugin
    assert "engine" in out and "demo" in out
    manifest = tmp_path / "home" / "cache" / "cli-commands.json"
    data = json.loads(manifest.read_text())
    data["key"]["install"]["python"] = "some other interpreter"
    data["commands"].append({"name": "ghost", "help": "Not a real command.", "short_help": None, "hidden": False})
    manifest.write_text(json.dumps(data))
    out, third = _help(env, tmp_path)
    assert third == {"code": 0, "lightrag": True} and "ghost" not in out and "engine" in out


# ----------------------------------------------------------------------------- locate answers


def _counted_note(tmp_path: Path) -> tuple[Path, Any, list[str], LocateRequest]:
    """A note, the plugins with their ``locate`` counting its calls (the files asked), and a request on it."""
    note = tmp_path / "note.md"
    note.write_text("# Title\n\nThe battery capacity is 42 kWh in the summer.\n", encoding="utf-8")
    plugins = load_plugins(load_config(None))
    calls: list[str] = []
    real = plugins.locate

    def counting(request: LocateRequest) -> Locator:
        calls.append(request.file)
        return real(request)

    plugins.locate = counting  # type: ignore[method-assign]
    request = LocateRequest(file=str(note), evidence="battery capacity is 42 kWh", query="battery capacity")
    return note, plugins, calls, request



def test_a_fresh_process_reuses_a_locate_answer_until_the_file_changes(tmp_path: Path) -> None:
    note, plugins, calls, request = _counted_note(tmp_path)
    pipeline.clear_memos()
    first = pipeline._locate(plugins, request, os.stat(note), None)
    assert answercache.flush()  # the answers a process put are written by its end (atexit)
    pipeline.clear_memos()  # what a new process starts with
    again = pipeline._locate(plugins, request, os.stat(note), None)
    assert again == first and calls == [str(note)]
    assert any(_answers())
    note.write_text("# Title\n\nNothing about that any more.\n", encoding="utf-8")
    os.utime(note, ns=(10**9, 10**9))
    pipeline.clear_memos()
    pipeline._locate(plugins, request, os.stat(note), None)
    assert len(calls) == 2  # an edited file is located afresh


def test_locate_answers_stay_off_with_the_locate_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    answercache.put("a-test", Locator(locator_precision="file", locator_degraded=True))
    assert answercache.get("a-test") is None and not list(_answers())


def test_a_torn_locate_answer_is_a_miss() -> None:
    answercache.put("a-torn", Locator(locator_precision="file", locator_degraded=True))
    assert answercache.flush()  # written by the process's end
    path = next(p for p in _answers() if p.name == "a-torn")
    path.write_bytes(path.read_bytes()[:10])
    assert answercache.get("a-torn") is None


def _answers() -> Iterator[Path]:
    folder = answercache._folder()
    return folder.glob("a-*") if folder.is_dir() else iter(())


def test_locate_answers_are_stamped_with_the_host_text_code_the_locators_use(tmp_path: Path) -> None:
    """A locator matches text with the host's ``mnote_kr.citations`` modules: a change there
    (an upgrade of textmatch) or to the plugin's own code must not answer from an entry the old code wrote."""
    plugin = tmp_path / "plugin_pkg"
    plugin.mkdir()
    module = plugin / "locator.py"
    module.write_text("x = 1\n")
    os.utime(module, ns=(1_000, 1_000))
    stamped = {Path(p) for p in answercache._stamped_files(str(module))}
    assert {"textmatch.py", "queryterms.py", "meaning.py", "pipeline.py", "copyable.py"} <= {p.name for p in stamped}
    before = answercache._code_stamp(str(module))
    os.utime(module, ns=(2_000, 2_000))
    assert answercache._code_stamp(str(module)) not in ("", before)


def test_every_host_module_the_plugin_api_lends_from_citations_stamps_answers(tmp_path: Path) -> None:
    """The modules a locator calls through ``plugin_api`` (``mostly_glyphs`` in ``cleaning/``,
    ``heading_lead``, textmatch...) shape its places and quotes: each is one the stamp reads."""
    from mnote_kr import plugin_api

    (tmp_path / "locator.py").write_text("x = 1\n")
    stamped = {os.path.realpath(p) for p in answercache._stamped_files(str(tmp_path / "locator.py"))}
    lent = {where[0] for where in plugin_api._LAZY.values() if where[0].startswith("mnote_kr.citations.")}
    files = {os.path.realpath(importlib.import_module(m).__file__ or "") for m in lent}
    assert any(f.endswith(os.path.join("cleaning", "copyable.py")) for f in files)
    assert files - stamped == set()


def test_a_change_to_any_citation_stage_module_stamps_answers_anew(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The stamp reads every stage package of ``citations`` (textmatch in ``locate/``, meaning in
    ``rank/``, ``mostly_glyphs`` in ``cleaning/``...), not only the ``caches/`` folder ``answercache``
    lives in; a module put back to an older copy counts too."""
    tree = tmp_path / "citations"
    times = {"caches/answercache.py": 1_000, "pipeline.py": 2_000, "locate/textmatch.py": 5_000,
             "rank/meaning.py": 4_000, "map/sidecar.py": 1_000, "render/ids.py": 1_000, "text/textnorm.py": 1_000,
             "cleaning/copyable.py": 3_000, "plugin/locator.py": 500}
    for rel, ns in times.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text("x = 1\n")
        os.utime(tree / rel, ns=(ns, ns))
    monkeypatch.setattr(answercache, "__file__", str(tree / "caches" / "answercache.py"))
    plugin = str(tree / "plugin" / "locator.py")
    stamps = [answercache._code_stamp(plugin)]
    for rel, ns in (("rank/meaning.py", 7_000), ("cleaning/copyable.py", 2_500), ("locate/textmatch.py", 4_500)):
        os.utime(tree / rel, ns=(ns, ns))
        stamps.append(answercache._code_stamp(plugin))
    (tree / "cleaning" / "copyable.py").write_text("x = 22\n")
    os.utime(tree / "cleaning" / "copyable.py", ns=(2_500, 2_500))  # another size, same time
    stamps.append(answercache._code_stamp(plugin))
    assert "" not in stamps and len(set(stamps)) == len(stamps)
    assert answercache._code_stamp(plugin) == stamps[-1]  # and unchanged code keeps its stamp


def test_a_changed_cleaning_module_is_not_answered_from_the_old_entry(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """``cleaning.copyable`` decides which PDF block is glyph soup (``mostly_glyphs``), so which
    place a locate picks: a new copy of it makes a cached answer a miss."""
    note, plugins, calls, request = _counted_note(tmp_path)
    monkeypatch.setattr(answercache, "_stamps", {})
    pipeline.clear_memos()
    pipeline._locate(plugins, request, os.stat(note), None)
    pipeline.clear_memos()
    monkeypatch.setattr(answercache, "_stamps", {})  # a new process
    pipeline._locate(plugins, request, os.stat(note), None)
    assert calls == [str(note)]
    real_state = answercache._file_state

    def edited(path: str) -> str:  # what a new copy of copyable.py reads as
        return real_state(path) + ("+edited" if path.endswith(os.path.join("cleaning", "copyable.py")) else "")

    monkeypatch.setattr(answercache, "_file_state", edited)
    monkeypatch.setattr(answercache, "_stamps", {})  # a new process with the new code
    pipeline.clear_memos()
    pipeline._locate(plugins, request, os.stat(note), None)
    assert calls == [str(note), str(note)]


def test_a_pdf_answer_is_stamped_with_the_recognition_plugin_it_falls_back_to(monkeypatch: pytest.MonkeyPatch) -> None:
    """A scanned PDF's place comes from the OCR plugin (``locate_recognized``, asked when the PDF's own locator
    finds nothing): a change to that plugin's code (round 26's OCR quotes) must not answer from an entry its old
    code wrote, though the PDF's locator is unchanged (nc26a's Q13 kept its old quote after the change)."""
    plugins = load_plugins(load_config(None))
    assert plugins.locator_plugin(".pdf") == "pdf_bbox" and plugins.pm.get_plugin("ocr") is not None
    monkeypatch.setattr(answercache, "_stamps", {})
    before = answercache.plugin_identity(plugins, ".pdf")
    ocr_dir = os.path.dirname(plugins.pm.get_plugin("ocr").__file__)
    real_state = answercache._file_state

    def edited(path: str) -> str:  # a new copy of the OCR plugin's wraps.py
        return real_state(path) + ("+edited" if path == os.path.join(ocr_dir, "wraps.py") else "")

    monkeypatch.setattr(answercache, "_file_state", edited)
    monkeypatch.setattr(answercache, "_stamps", {})
    assert before is not None and answercache.plugin_identity(plugins, ".pdf") not in (None, before)
