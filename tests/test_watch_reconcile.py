"""Reconcile without watchdog: the pure planner, the tree scan, and a full
``reconcile_and_apply`` after changes made while nothing was watching."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.app.host import Host
from mnote_kr.core.pending import load_pending_new
from mnote_kr.core.scan import admitted, scan_tree
from mnote_kr.models import IndexedRoot, SourceEntry
from mnote_kr.sync.reconcile import (
    PROVISIONAL_MISSING,
    REASON_CHANGED,
    REASON_MISSING,
    plan_changes,
    reconcile_and_apply,
)
from mnote_kr.sync.watch import _Handler


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Host, FakeProvider]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    ws.mkdir()
    return fake_host(ws, FakeProvider())




def entry(rel: str, *, size: int, mtime: int, sha: str, **kw: Any) -> SourceEntry:
    return SourceEntry(source_id="s-" + rel, source_path="/x/" + rel, source_root_relative_path=rel,
                       source_hash=sha, size=size, mtime_ns=mtime, status="processed", **kw)


# --------------------------------------------------------------------------- plan_changes


def test_plan_hashes_only_files_whose_size_or_mtime_changed() -> None:
    entries = {f"d/f{i}.md": entry(f"d/f{i}.md", size=10, mtime=100 + i, sha=f"sha256:{i}") for i in range(50)}
    disk = {rel: (e.size, e.mtime_ns) for rel, e in entries.items()}
    disk["d/f3.md"] = (10, 999)  # touched, same bytes
    disk["d/f7.md"] = (11, 100 + 7)  # edited
    hashed: list[str] = []

    def hasher(rel: str) -> str:
        hashed.append(rel)
        return "sha256:3" if rel == "d/f3.md" else "sha256:new"

    plan = plan_changes(entries, disk, list(disk), hasher)
    assert sorted(hashed) == ["d/f3.md", "d/f7.md"]
    assert plan.hashed == 2
    assert plan.changed == ["d/f7.md"]
    assert plan.touched == {"d/f3.md": (10, 999)}
    assert not plan.missing and not plan.new and not plan.moved


def test_plan_pairs_a_missing_entry_with_a_new_file_of_the_same_hash_as_a_move() -> None:
    entries = {"a/x.pdf": entry("a/x.pdf", size=5, mtime=1, sha="sha256:aaa"),
               "a/y.pdf": entry("a/y.pdf", size=6, mtime=1, sha="sha256:bbb")}
    disk = {"b/x-renamed.pdf": (5, 2), "b/other.pdf": (7, 2), "b/same-size.pdf": (5, 3)}
    hashed: list[str] = []

    def hasher(rel: str) -> str:
        hashed.append(rel)
        return {"b/x-renamed.pdf": "sha256:aaa", "b/same-size.pdf": "sha256:zzz"}[rel]

    plan = plan_changes(entries, disk, list(disk), hasher)
    assert plan.moved == [("a/x.pdf", "b/x-renamed.pdf")]
    assert plan.missing == ["a/y.pdf"]
    assert plan.new == ["b/other.pdf", "b/same-size.pdf"]
    assert "b/other.pdf" not in hashed  # no missing entry has its size: never hashed


def test_plan_restores_a_provisional_mark_when_the_file_is_back_unchanged() -> None:
    e = entry("n.md", size=3, mtime=5, sha="sha256:n", stale=True, stale_reason=PROVISIONAL_MISSING)
    plan = plan_changes({"n.md": e}, {"n.md": (3, 5)}, ["n.md"], lambda rel: pytest.fail("hashed"))
    assert plan.restored == ["n.md"] and not plan.changed and not plan.new


# --------------------------------------------------------------------------- scanning rules


def test_scan_applies_recursion_excludes_tool_folders_and_nested_roots(tmp_path: Path) -> None:
    for rel in ["top/a.md", "top/sub/b.md", "top/skip.tmp", "top/.git/c.md", "top/drafts/d.md",
                "flat/e.md", "flat/deep/f.md", "flat/inner/g.md", "outside/h.md"]:
        write(tmp_path / rel, rel)
    roots = {
        "top": IndexedRoot(root_relative_path="top", exclude_patterns=["*.tmp", "top/drafts"]),
        "flat": IndexedRoot(root_relative_path="flat", recursive=False),
        "flat/inner": IndexedRoot(root_relative_path="flat/inner"),
    }
    found: dict[str, tuple[int, int]] = {}
    for rel in ("top", "flat"):
        scan_tree(tmp_path, rel, roots, found)
    assert sorted(found) == ["flat/e.md", "flat/inner/g.md", "top/a.md", "top/sub/b.md"]
    assert admitted("top/drafts/d.md", roots) is None
    assert admitted("flat/deep/f.md", roots) is None
    assert admitted("flat/inner/g.md", roots) is roots["flat/inner"]
    assert admitted("outside/h.md", roots) is None


def test_a_symlink_loop_is_passed_over_by_the_scan_with_a_reason(tmp_path: Path) -> None:
    """A newcomer's loop (a -> b -> a) made every sync fail ("unexpected RuntimeError: Symlink loop")."""
    write(tmp_path / "top" / "a.md", "a")
    os.symlink("loop2", tmp_path / "top" / "loop1")
    os.symlink("loop1", tmp_path / "top" / "loop2")
    found: dict[str, tuple[int, int]] = {}
    skipped: dict[str, str] = {}
    scan_tree(tmp_path, "top", {"top": IndexedRoot(root_relative_path="top")}, found, skipped)
    assert sorted(found) == ["top/a.md"]
    assert skipped == {"top/loop1": "symlink in a loop: not followed", "top/loop2": "symlink in a loop: not followed"}


def test_watch_handler_only_queues_paths() -> None:
    import queue

    from watchdog.events import FileDeletedEvent, FileMovedEvent, FileOpenedEvent

    q: queue.Queue[tuple[str, str, str, bool]] = queue.Queue()
    handler = _Handler(q)
    handler.dispatch(FileDeletedEvent("/w/a.md"))
    handler.dispatch(FileOpenedEvent("/w/a.md"))  # our own reads must not count as changes
    handler.dispatch(FileMovedEvent("/w/b.md", "/w/c.md"))
    assert [q.get_nowait() for _ in range(q.qsize())] == [
        ("deleted", "/w/a.md", "", False), ("moved", "/w/b.md", "/w/c.md", False)]


# --------------------------------------------------------------------------- full reconcile


def test_reconcile_catches_changes_made_while_nothing_was_watching(kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    ws = host.root
    for i in range(6):
        write(ws / "notes" / f"n{i}.md", f"note {i}\n")
    write(ws / "papers" / "p.md", "paper\n")
    host.roots_add(ws / "notes", run_on_change=False)
    host.roots_add(ws / "papers", run_on_change=True)
    host.ingest([ws / "notes", ws / "papers"])
    reg = host.registry()
    assert len(reg.by_provider_name()) == 7
    old_cited = {e.source_root_relative_path: name for name, e in reg.by_provider_name().items()}

    # The watcher is not running: delete, rename, move across roots, edit, touch, add.
    (ws / "notes" / "n0.md").unlink()
    os.rename(ws / "notes" / "n1.md", ws / "notes" / "n1-renamed.md")
    os.rename(ws / "notes" / "n2.md", ws / "papers" / "n2.md")
    write(ws / "notes" / "n3.md", "note 3, edited and longer\n")
    os.utime(ws / "notes" / "n4.md", ns=(1, 1_000_000_000))
    write(ws / "notes" / "brand-new.md", "new\n")
    write(ws / "papers" / "fresh.md", "fresh paper\n")
    write(ws / "papers" / "p.md", "paper, revised\n")
    before = digest_tree(ws)

    summary = reconcile_and_apply(host)

    assert digest_tree(ws) == before  # sources untouched (bytes and mtimes)
    assert summary["missing"]["paths"] == ["notes/n0.md"]
    assert sorted((m["from"], m["to"]) for m in summary["moved"]["paths"]) == [
        ("notes/n1.md", "notes/n1-renamed.md"), ("notes/n2.md", "papers/n2.md")]
    assert sorted(summary["changed"]["paths"]) == ["notes/n3.md", "papers/p.md"]
    assert sorted(summary["new"]["paths"]) == ["notes/brand-new.md", "papers/fresh.md"]
    assert summary["new"]["notIngested"] == ["notes/brand-new.md"]
    # hashed: n3, p (changed), n4 (touched), and the same-size candidates for the 3 missing
    assert summary["hashed"] <= 8
    reg = host.registry()
    e = reg.entries
    assert e["notes/n0.md"].stale and e["notes/n0.md"].stale_reason == REASON_MISSING
    assert e["notes/n0.md"].status == "delete_submitted"
    assert e["notes/n1.md"].stale_reason == "moved to notes/n1-renamed.md"
    assert e["notes/n1-renamed.md"].status == "processed" and not e["notes/n1-renamed.md"].stale
    assert e["notes/n1-renamed.md"].source_hash == e["notes/n1.md"].source_hash
    assert e["notes/n3.md"].stale_reason == REASON_CHANGED  # root without runOnChange
    assert not e["papers/p.md"].stale and e["papers/p.md"].status == "processed"  # runOnChange: re-ingested
    assert "notes/brand-new.md" not in e and e["papers/fresh.md"].status == "processed"
    assert not e["notes/n4.md"].stale and e["notes/n4.md"].mtime_ns == 1_000_000_000
    cited = {e.source_root_relative_path for e in reg.by_provider_name().values()}
    assert cited == {"notes/n1-renamed.md", "notes/n4.md", "notes/n5.md", "papers/n2.md", "papers/p.md",
                     "papers/fresh.md"}
    assert old_cited["notes/n0.md"] not in reg.by_provider_name()
    pending = load_pending_new(host)
    assert [f.source_path for f in pending.files] == ["notes/brand-new.md"] and pending.files[0].root == "notes"

    # Nothing changed since: a second pass hashes nothing and changes nothing.
    again = reconcile_and_apply(host)
    assert again["hashed"] == 0
    assert all(again[k]["count"] == 0 for k in ("missing", "moved", "changed"))
    assert again["new"]["notIngested"] == ["notes/brand-new.md"]
    assert again["unindexed"]["paths"] == ["notes/n3.md"]  # stale (changed), still on disk: not "new"
    assert len(fake.deleted) == len(set(fake.deleted))  # each old document deleted once


def test_reconcile_with_provider_down_queues_work_and_loses_nothing(kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    ws = host.root
    write(ws / "r" / "a.md", "a\n")
    write(ws / "r" / "b.md", "b\n")
    host.roots_add(ws / "r", run_on_change=True)
    host.ingest([ws / "r"])
    fake.down = True
    (ws / "r" / "a.md").unlink()
    write(ws / "r" / "c.md", "c, new\n")

    summary = reconcile_and_apply(host)

    assert summary["ingest"]["queued"] == ["r/c.md"]
    e = host.registry().entries
    assert e["r/a.md"].stale and e["r/a.md"].pending_action == "delete"
    assert e["r/c.md"].status == "pending" and e["r/c.md"].pending_action == "ingest"
    waiting = {w["sourcePath"]: w["action"] for w in host.status()["registry"]["waiting"]}
    assert waiting == {"r/a.md": "delete", "r/c.md": "ingest"}
    assert "r/a.md" not in {x.source_root_relative_path for x in host.registry().by_provider_name().values()}


def test_reconcile_reports_files_the_provider_left_pending_as_queued_not_ingested(
        kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    ws = host.root
    write(ws / "r" / "a.md", "a\n")
    host.roots_add(ws / "r", run_on_change=True)
    host.ingest([ws / "r"])
    fake.ingest_status = "pending"  # takes the call, leaves the file pending (a busy pipeline)
    write(ws / "r" / "b.md", "b, new\n")
    lines: list[tuple[str, str, str]] = []

    summary = reconcile_and_apply(host, on_action=lambda kind, rel, detail: lines.append((kind, rel, detail)))

    assert summary["ingest"] == {"ingested": [], "queued": ["r/b.md"], "failed": []}
    assert ("queued", "r/b.md", "left pending; 'mnote-kr sync' sends it later") in lines
    assert not any(kind == "ingested" for kind, _, _ in lines)
    assert host.registry().entries["r/b.md"].status == "pending"
