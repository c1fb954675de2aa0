"""With ``mnote-kr watch`` running, what the watch log and a search say of a file being re-indexed.

A newcomer (nc18b, problem 6) edited a DOCX with ``watch`` running and read, in the watch log, ``sent 0/1
files (1 queued, not sent; 0 s so far)`` with no time and no file name, then "LightRAG is busy"; a search
in that window said "'mnote-kr sync' sends it", though the watcher was about to. The watcher now leaves a
mark while it runs (``core.watchmark``); a search names it instead of sync; the log names a changed file
before its ingest's progress lines, and every line of ``mnote-kr watch`` starts with the time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.citations.map.notindexed import uncitable
from mnote_kr.core import watchmark
from mnote_kr.sync.watch import WatchAction, Watcher
from mnote_kr.sync.watchcli import stamped

pytestmark = pytest.mark.timeout(300)
STAMP = re.compile(r"^\d\d:\d\d:\d\d ")
BUSY = "LightRAG is busy removing this file's old version, which this re-index deleted first; the new one is sent next"


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Host, FakeProvider]]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    ws.mkdir()
    host, fake = fake_host(ws, FakeProvider(ingest_status="submitted"))
    write(ws / "kb" / "report.md", "# Report\n\nThe amber lamp glows.\n")
    host.roots_add(ws / "kb")
    host.ingest(["kb"])
    yield host, fake


def _queued_reindex(host: Host) -> None:
    """report.md as a re-index leaves it when LightRAG refused the new version's scan."""
    with host.store.transaction() as reg:
        reg.update("kb/report.md", status="pending", pending_action="ingest", last_error=BUSY,
                   indexed_at_ms=1_700_000_000_000)


def _reason(host: Host) -> str:
    [item] = [m for m in uncitable(host, host.registry(), "amber lamp", [], set(), {})
              if m.source_path == "kb/report.md"]
    return item.reason


def test_a_search_says_the_running_watcher_sends_a_queued_file_not_sync(kb: tuple[Host, FakeProvider]) -> None:
    host, _ = kb
    _queued_reindex(host)
    alone = _reason(host)
    assert "'mnote-kr sync' sends it" in alone and BUSY in alone
    watchmark.mark(host.store.index_dir)  # what a running watcher leaves (its own retries kept out of this test)
    watched = _reason(host)
    assert "the running 'mnote-kr watch' sends it" in watched and "mnote-kr sync" not in watched, watched
    watchmark.unmark(host.store.index_dir)
    assert "'mnote-kr sync' sends it" in _reason(host)


def test_a_watcher_marks_the_workspace_while_it_runs(kb: tuple[Host, FakeProvider]) -> None:
    host, _ = kb
    watcher = Watcher(host, reconcile=False)
    watcher.start()
    try:
        assert watchmark.watching(host.store.index_dir)
    finally:
        watcher.stop()
    assert not watchmark.watching(host.store.index_dir)  # stopped: the mark is gone


def test_a_mark_left_by_a_watcher_that_died_claims_nothing(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    (tmp_path / watchmark.MARK_FILE).write_text(dead.stdout)
    assert not watchmark.watching(tmp_path)
    (tmp_path / watchmark.MARK_FILE).write_text(f"{os.getpid()}\n")
    assert watchmark.watching(tmp_path)
    watchmark.unmark(tmp_path)
    assert not (tmp_path / watchmark.MARK_FILE).exists()


def test_the_watch_log_names_a_changed_file_before_the_progress_of_its_ingest(kb: tuple[Host, FakeProvider]) -> None:
    host, _ = kb
    said: list[str] = []  # actions and progress lines, in the order they came
    host.progress = lambda line: said.append("progress: " + line)
    actions: list[WatchAction] = []

    def on_action(action: WatchAction) -> None:
        actions.append(action)
        said.append("action: " + action.line())

    watcher = Watcher(host, debounce_s=0.2, follow_interval_s=0.2, sync_interval_s=0.5, on_action=on_action)
    watcher.start()
    try:
        assert watcher.wait_idle(30)
        said.clear()
        write(host.root / "kb" / "report.md", "# Report\n\nEdited: the quokka nests under the gearbox.\n")
        before = digest_tree(host.root)
        wait_until(lambda: any(a.kind == "ingested" and a.path == "kb/report.md" for a in actions), timeout_s=60,
                   what=lambda: "\n".join(said))
    finally:
        watcher.stop()
    changed = next(i for i, line in enumerate(said) if line.startswith("action: changed   kb/report.md ("))
    sent = next(i for i, line in enumerate(said) if line.startswith("progress: sent "))
    assert changed < sent, said
    assert "re-indexing it" in said[changed], said[changed]
    assert digest_tree(host.root) == before


def test_every_progress_line_of_watch_starts_with_the_time() -> None:
    lines: list[str] = []
    write_line = stamped(lines.append)
    write_line("sent 0/1 files (1 queued, not sent; 0 s so far)")
    write_line("note: something the person must see")
    assert STAMP.match(lines[0]) and lines[0].endswith(" sent 0/1 files (1 queued, not sent; 0 s so far)")
    assert lines[1].startswith("note: ") and STAMP.match(lines[1][len("note: "):]), lines[1]
