"""The watcher with real filesystem events (watchdog's inotify observer, nothing mocked).

Each test changes files the way a user or an editor does, waits for the watcher, then
checks the registry, the citable set (``Registry.by_provider_name``, exactly what search
cites) and that no source file was written by the watcher (bytes and mtimes).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.core.pending import load_pending_new
from mnote_kr.models import SourceEntry
from mnote_kr.sync.reconcile import PROVISIONAL_MISSING, REASON_CHANGED, REASON_MISSING
from mnote_kr.sync.watch import WatchAction, Watcher

pytestmark = pytest.mark.timeout(900)


class KB:
    def __init__(self, host: Host, fake: FakeProvider) -> None:
        self.host, self.fake, self.ws = host, fake, host.root
        self.actions: list[WatchAction] = []
        self.watcher: Watcher | None = None

    def watch(self, debounce_s: float = 0.3, **kw: Any) -> Watcher:
        self.watcher = Watcher(self.host, debounce_s=debounce_s, on_action=self.actions.append, **kw)
        self.watcher.start()
        assert self.watcher.wait_idle(30)
        return self.watcher

    def entries(self) -> dict[str, SourceEntry]:
        return self.host.registry().entries

    def cited(self) -> set[str]:
        return {e.source_root_relative_path for e in self.host.registry().by_provider_name().values()}

    def settle(self, cond: Callable[[], bool], timeout: float = 300.0) -> None:
        """Wait until ``cond`` holds and the watcher is idle, then check sources are untouched.

        The deadline only stops a hung run: the wait ends the moment ``cond`` holds."""
        before = digest_tree(self.ws)
        wait_until(cond, timeout_s=timeout,
                   what=lambda: f"timed out; actions: {[a.line() for a in self.actions[-20:]]}")
        assert self.watcher is not None and self.watcher.wait_idle(timeout)
        assert digest_tree(self.ws) == before, "the watcher changed a source file"


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[KB]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    ws.mkdir()
    box = KB(*fake_host(ws, FakeProvider()))
    yield box
    if box.watcher is not None:
        box.watcher.stop()




def setup_roots(kb: KB, files: dict[str, str], *, run_on_change: tuple[str, ...] = ()) -> None:
    for rel, text in files.items():
        write(kb.ws / rel, text)
    for top in sorted({rel.split("/")[0] for rel in files}):
        kb.host.roots_add(kb.ws / top, run_on_change=top in run_on_change)
    kb.host.ingest(sorted({rel.split("/")[0] for rel in files}))
    assert kb.cited() == set(files)


# --------------------------------------------------------------------------- delete, rename, move


def test_watch_delete_stops_citations_at_once_then_confirms_with_a_delete(kb: KB) -> None:
    setup_roots(kb, {"notes/a.md": "alpha\n", "notes/b.md": "beta\n"})
    doc_id = kb.entries()["notes/a.md"].light_rag_doc_id
    # A debounce far longer than the wait: the file must leave the citable set on the event
    # itself, before any batch is applied (the provider has not been called when it does).
    w = kb.watch(debounce_s=60.0)
    (kb.ws / "notes" / "a.md").unlink()
    wait_until(lambda: "notes/a.md" not in kb.cited(), timeout_s=50, what="the deleted file stayed citable")
    assert kb.entries()["notes/a.md"].stale_reason == PROVISIONAL_MISSING
    assert kb.fake.deleted == []  # the burst may not be over: no provider call yet
    assert w.flush(10)
    e = kb.entries()["notes/a.md"]
    assert e.stale and e.stale_reason == REASON_MISSING and e.status == "delete_submitted"
    assert kb.fake.deleted == [doc_id]
    assert kb.cited() == {"notes/b.md"}


def test_watch_rename_keeps_the_document_under_the_new_path(kb: KB) -> None:
    setup_roots(kb, {"notes/a.md": "alpha\n", "notes/b.md": "beta\n"})
    old = kb.entries()["notes/a.md"]
    sent = len(kb.fake.ingested)
    kb.watch()
    os.rename(kb.ws / "notes" / "a.md", kb.ws / "notes" / "a-renamed.md")
    kb.settle(lambda: "notes/a-renamed.md" in kb.cited())
    e = kb.entries()
    assert e["notes/a.md"].stale and e["notes/a.md"].stale_reason == "moved to notes/a-renamed.md"
    assert e["notes/a-renamed.md"].source_hash == old.source_hash
    assert e["notes/a-renamed.md"].light_rag_doc_id == old.light_rag_doc_id  # the same document
    assert kb.cited() == {"notes/a-renamed.md", "notes/b.md"}
    assert kb.fake.deleted == [] and len(kb.fake.ingested) == sent  # nothing deleted, nothing sent
    assert any(a.kind == "moved" and a.path == "notes/a-renamed.md" for a in kb.actions)


def test_watch_move_across_folders_and_roots(kb: KB) -> None:
    setup_roots(kb, {"notes/x/a.md": "alpha\n", "notes/y/keep.md": "keep\n", "papers/p.md": "paper\n"})
    kb.watch()
    os.rename(kb.ws / "notes" / "x" / "a.md", kb.ws / "notes" / "y" / "a.md")
    os.rename(kb.ws / "papers" / "p.md", kb.ws / "notes" / "x" / "p.md")
    kb.settle(lambda: {"notes/y/a.md", "notes/x/p.md"} <= kb.cited())
    e = kb.entries()
    assert e["notes/x/a.md"].stale_reason == "moved to notes/y/a.md"
    assert e["papers/p.md"].stale_reason == "moved to notes/x/p.md"
    assert kb.cited() == {"notes/y/a.md", "notes/x/p.md", "notes/y/keep.md"}
    assert load_pending_new(kb.host).files == []


# --------------------------------------------------------------------------- content changes


def test_watch_modify_marks_stale_or_reingests_with_run_on_change(kb: KB) -> None:
    setup_roots(kb, {"notes/a.md": "alpha\n", "live/b.md": "beta\n"}, run_on_change=("live",))
    old_b = kb.entries()["live/b.md"]
    kb.watch()
    with open(kb.ws / "notes" / "a.md", "a", encoding="utf-8") as fh:
        fh.write("more alpha\n")
    with open(kb.ws / "live" / "b.md", "a", encoding="utf-8") as fh:
        fh.write("more beta\n")
    kb.settle(lambda: kb.entries()["live/b.md"].source_hash != old_b.source_hash
              and kb.entries()["notes/a.md"].stale_reason == REASON_CHANGED)
    e = kb.entries()
    assert e["notes/a.md"].status == "delete_submitted"
    b = e["live/b.md"]
    assert b.status == "processed" and not b.stale and b.light_rag_doc_id != old_b.light_rag_doc_id
    assert old_b.light_rag_doc_id in kb.fake.deleted  # delete-then-add
    assert kb.cited() == {"live/b.md"}


def test_watch_editor_atomic_save_reindexes_target_and_ignores_temp_file(kb: KB) -> None:
    setup_roots(kb, {"notes/a.md": "alpha\n", "live/b.md": "beta\n"}, run_on_change=("live",))
    old_b = kb.entries()["live/b.md"]
    kb.watch()
    for rel, text in (("live/b.md", "beta v2\n"), ("notes/a.md", "alpha v2\n")):
        target = kb.ws / rel
        tmp = target.with_name(f".{target.name}.swp~")
        write(tmp, text)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    kb.settle(lambda: kb.entries()["live/b.md"].source_hash != old_b.source_hash
              and kb.entries()["notes/a.md"].stale_reason == REASON_CHANGED)
    e = kb.entries()
    assert not any(".swp~" in rel for rel in e)
    assert e["live/b.md"].status == "processed" and not e["live/b.md"].stale
    assert kb.cited() == {"live/b.md"}
    assert load_pending_new(kb.host).files == []


def test_watch_touch_without_change_restores_and_sends_nothing(kb: KB) -> None:
    setup_roots(kb, {"notes/a.md": "alpha\n"})
    kb.watch(debounce_s=1.0)
    os.utime(kb.ws / "notes" / "a.md", ns=(2_000_000_000, 2_000_000_000))
    kb.settle(lambda: any(a.kind == "restored" for a in kb.actions))
    assert any(a.kind == "stale" and a.path == "notes/a.md" for a in kb.actions)  # provisional, at once
    e = kb.entries()["notes/a.md"]
    assert not e.stale and e.mtime_ns == 2_000_000_000
    assert kb.fake.deleted == [] and kb.cited() == {"notes/a.md"}


# --------------------------------------------------------------------------- bursts and folders


def test_watch_burst_of_1000_creations(kb: KB) -> None:
    setup_roots(kb, {"live/seed.md": "seed\n", "notes/seed.md": "seed\n"}, run_on_change=("live",))
    w = kb.watch(debounce_s=0.5)
    for i in range(1000):
        (kb.ws / "live" / f"n{i:04d}.md").write_text(f"live note {i}\n", encoding="utf-8")
    for i in range(1000):
        (kb.ws / "notes" / f"n{i:04d}.md").write_text(f"pending note {i}\n", encoding="utf-8")
    kb.settle(lambda: len(kb.cited()) == 1002 and len(load_pending_new(kb.host).files) == 1000)
    assert sorted(f.source_path for f in load_pending_new(kb.host).files)[0] == "notes/n0000.md"
    assert sum(1 for rel in kb.fake.ingested if rel.startswith("live/n")) == 1000
    assert w.applied_batches <= 5  # debounced, not one apply per event
    assert not any(rel.startswith("notes/n") for rel in kb.entries())


def test_watch_deleting_a_whole_folder_stales_every_entry_under_it(kb: KB) -> None:
    files = {f"notes/sub/{i}.md": f"note {i}\n" for i in range(20)}
    files["notes/keep.md"] = "keep\n"
    setup_roots(kb, files)
    kb.watch()
    shutil.rmtree(kb.ws / "notes" / "sub")
    kb.settle(lambda: kb.cited() == {"notes/keep.md"}
              and all(e.status == "delete_submitted" for r, e in kb.entries().items() if r != "notes/keep.md"))
    assert all(e.stale_reason == REASON_MISSING for r, e in kb.entries().items() if r != "notes/keep.md")
    assert len(kb.fake.deleted) == 20


# --------------------------------------------------------------------------- provider down, failures, restart


def test_watch_records_events_while_provider_is_down_and_replays_them(kb: KB) -> None:
    setup_roots(kb, {"live/a.md": "alpha\n", "live/b.md": "beta\n"}, run_on_change=("live",))
    doc_a = kb.entries()["live/a.md"].light_rag_doc_id
    kb.fake.down = True
    w = kb.watch(sync_interval_s=3600)
    (kb.ws / "live" / "a.md").unlink()
    write(kb.ws / "live" / "c.md", "gamma\n")
    kb.settle(lambda: "live/c.md" in kb.entries() and kb.entries()["live/a.md"].stale_reason == REASON_MISSING)
    e = kb.entries()
    assert e["live/a.md"].pending_action == "delete" and e["live/c.md"].pending_action == "ingest"
    waiting = {x["sourcePath"]: x["action"] for x in w.status()["waitingForProvider"]}
    assert waiting == {"live/a.md": "delete", "live/c.md": "ingest"}
    assert kb.cited() == {"live/b.md"}
    assert w.running
    kb.fake.down = False
    w.replay_now()
    kb.settle(lambda: "live/c.md" in kb.cited())
    e = kb.entries()
    assert e["live/a.md"].status == "delete_submitted" and e["live/a.md"].pending_action is None
    assert doc_a in kb.fake.deleted
    assert w.status()["waitingForProvider"] == []


def test_watch_survives_a_broken_provider_and_keeps_working(kb: KB) -> None:
    setup_roots(kb, {"live/a.md": "alpha\n", "live/b.md": "beta\n"}, run_on_change=("live",))
    w = kb.watch()
    kb.fake.broken = True
    write(kb.ws / "live" / "new.md", "new\n")
    kb.settle(lambda: any(a.kind == "error" and a.path == "live/new.md" for a in kb.actions))
    kb.fake.broken = False
    (kb.ws / "live" / "a.md").unlink()
    kb.settle(lambda: kb.entries()["live/a.md"].status == "delete_submitted")
    assert w.running and kb.cited() == {"live/b.md"}


def test_watch_startup_reconcile_catches_changes_made_while_stopped(kb: KB) -> None:
    setup_roots(kb, {"notes/a.md": "alpha\n", "notes/b.md": "beta\n", "notes/c.md": "gamma\n"})
    kb.watch().stop()
    (kb.ws / "notes" / "a.md").unlink()
    os.rename(kb.ws / "notes" / "b.md", kb.ws / "notes" / "b2.md")
    write(kb.ws / "notes" / "d.md", "delta\n")
    w = kb.watch()
    r = w.last_reconcile
    assert r is not None
    assert r["missing"]["paths"] == ["notes/a.md"]
    assert r["moved"]["paths"] == [{"from": "notes/b.md", "to": "notes/b2.md"}]
    assert r["new"]["notIngested"] == ["notes/d.md"]
    assert kb.cited() == {"notes/b2.md", "notes/c.md"}
    write(kb.ws / "notes" / "e.md", "epsilon\n")
    kb.settle(lambda: len(load_pending_new(kb.host).files) == 2)
    reported_new = [a.path for a in kb.actions if a.kind == "new"]
    assert reported_new == ["notes/d.md", "notes/e.md"]  # a folder's own event does not re-report d.md
    (kb.ws / "notes" / "d.md").unlink()  # live events work after the reconcile
    kb.settle(lambda: [f.source_path for f in load_pending_new(kb.host).files] == ["notes/e.md"])


def test_watch_follows_its_own_submitted_work_without_waiting_for_the_sync_interval(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider that answers 'submitted' (as LightRAG does): the watcher itself follows the
    re-ingested, edited file to processed itself, not at the next sync interval (an hour here,
    so reaching 'processed' at all shows the watcher followed its work)."""
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    ws.mkdir()
    kb = KB(*fake_host(ws, FakeProvider(ingest_status="submitted")))
    write(ws / "docs" / "a.md", "# A\n\nalpha text\n")
    kb.host.roots_add(ws / "docs", run_on_change=True)
    kb.host.ingest(["docs"])
    kb.host.sync()
    assert kb.cited() == {"docs/a.md"}
    kb.watch(sync_interval_s=3600.0)
    try:
        old = kb.entries()["docs/a.md"].source_hash
        write(ws / "docs" / "a.md", "# A\n\nalpha text, edited\n")  # (a rename sends nothing: moves.py)
        # Followed to processed by the watcher itself (a file being indexed is citable at once,
        # so being cited alone does not show that the watcher followed its work).
        kb.settle(lambda: (e := kb.entries().get("docs/a.md")) is not None and e.source_hash != old
                  and e.status == "processed")
        assert kb.cited() == {"docs/a.md"}
        assert any(a.kind == "indexed" for a in kb.actions)
    finally:
        assert kb.watcher is not None
        kb.watcher.stop()


# --------------------------------------------------------------------------- following by default


def test_roots_add_then_watch_follows_edits_new_files_and_renames_by_default(kb: KB) -> None:
    """The README's commands ('roots add .', 'ingest', 'watch'), no flag: an edited file is re-indexed,
    a new one ingested, a renamed one followed; nothing is left as 'not re-indexed' or 'not ingested'."""
    write(kb.ws / "a.md", "alpha\n")
    write(kb.ws / "sub" / "b.md", "beta\n")
    kb.host.roots_add(kb.ws)  # 'mnote-kr roots add .': the defaults
    kb.host.ingest([kb.ws])
    assert kb.cited() == {"a.md", "sub/b.md"}
    old_a = kb.entries()["a.md"]
    kb.watch()
    with open(kb.ws / "a.md", "a", encoding="utf-8") as fh:
        fh.write("alpha, edited\n")
    write(kb.ws / "c.md", "gamma, new\n")
    os.rename(kb.ws / "sub" / "b.md", kb.ws / "sub" / "b2.md")
    kb.settle(lambda: kb.cited() == {"a.md", "sub/b2.md", "c.md"}
              and kb.entries()["a.md"].source_hash != old_a.source_hash)
    a = kb.entries()["a.md"]
    assert a.status == "processed" and not a.stale and a.light_rag_doc_id != old_a.light_rag_doc_id
    assert kb.entries()["sub/b.md"].stale_reason == "moved to sub/b2.md"
    assert load_pending_new(kb.host).files == []
    assert not [a.line() for a in kb.actions if a.kind in ("new", "error") or "not re-indexed" in a.detail]


def test_watch_start_up_and_events_name_a_non_utf8_name_and_a_fifo_and_go_on(kb: KB) -> None:
    write(kb.ws / "kb" / "good.md", "good\n")
    bad = os.path.join(os.fsencode(kb.ws / "kb"), b"bad\xff\xfe name.pdf")
    with open(bad, "wb") as fh:
        fh.write(b"%PDF-1.4 not really\n")
    os.mkfifo(kb.ws / "kb" / "pipe")
    kb.host.roots_add(kb.ws / "kb")
    kb.host.ingest(["kb"])
    assert kb.cited() == {"kb/good.md"}
    before = digest_tree(kb.ws)
    w = kb.watch()  # the start-up reconcile walks the folder with both in it
    skipped = {a.path: a.detail for a in kb.actions if a.kind == "skipped"}
    assert "not valid UTF-8" in skipped["kb/bad\\xff\\xfe name.pdf"]
    assert "named pipe (FIFO)" in skipped["kb/pipe"]
    assert w.last_error is None and not [a for a in kb.actions if a.kind == "error"]
    # While watching: another odd name is named, and the rest of the folder is still followed.
    with open(os.path.join(os.fsencode(kb.ws / "kb"), b"also \xe9.md"), "wb") as fh:
        fh.write(b"latin-1 name\n")
    write(kb.ws / "kb" / "new.md", "new\n")
    kb.settle(lambda: "kb/new.md" in kb.cited() and any(a.path == "kb/also \\xe9.md" for a in kb.actions))
    assert w.last_error is None and not [a for a in kb.actions if a.kind == "error"]
    assert kb.cited() == {"kb/good.md", "kb/new.md"}
    assert {k: v for k, v in digest_tree(kb.ws).items() if k in before} == before
