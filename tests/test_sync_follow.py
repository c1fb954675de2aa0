"""Sync means sync, without a watcher: a root that opts out of following names what it
leaves behind (status, every search), turning following on sends what waited, and the entries no
pass can index (names that are not UTF-8, FIFOs, sockets) get one line each in ingest and sync
instead of a crash or silence. The commands run in process (``main``) on a host whose provider is
the in-process ``FakeProvider``; source files are checked byte for byte after every step."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.agents.contracts import QueryInput, StatusInput
from mnote_kr.agents.tools import tool_query, tool_status
from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.citations.render.synctext import render_sync
from mnote_kr.cli.main import main
from mnote_kr.cli.reports import Ctx
from mnote_kr.core.pending import load_pending_new
from mnote_kr.models import IndexedRoot
from mnote_kr.sync.reconcile import reconcile_and_apply

pytestmark = pytest.mark.timeout(60)  # a FIFO opened by mistake blocks: fail, do not hang

BAD = b"bad\xff\xfe name.pdf"
BAD_SHOWN = "kb/bad\\xff\\xfe name.pdf"


class KB:
    def __init__(self, host: Host, fake: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
        self.host, self.fake, self.ws, self.capsys = host, fake, host.root, capsys
        self.err = ""

    def run(self, *args: str, code: int = 0) -> str:
        """``mnote-kr ARGS`` in process on this host; its stdout (the sources are checked unchanged)."""
        before = digest_tree(self.ws)
        self.capsys.readouterr()
        assert main(list(args)) == code
        assert digest_tree(self.ws) == before, "a command changed a source file"
        captured = self.capsys.readouterr()
        self.err = captured.err
        return captured.out

    def json(self, *args: str, code: int = 0) -> Any:
        return json.loads(self.run(*args, "--json", code=code))

    def cited(self) -> set[str]:
        return {e.source_root_relative_path for e in self.host.registry().by_provider_name().values()}


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[KB]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    ws.mkdir()
    host, fake = fake_host(ws, FakeProvider())
    monkeypatch.setattr(Ctx, "host", lambda self, progress=False: host)
    yield KB(host, fake, capsys)


def opted_out(kb: KB) -> None:
    """kb/ added with --no-follow and ingested; then a.md edited and new.md written, and synced."""
    write(kb.ws / "kb" / "a.md", "alpha\n")
    write(kb.ws / "kb" / "b.md", "beta\n")
    assert kb.json("roots", "add", "kb", "--no-follow", "--exclude", "*.tmp")["runOnChange"] is False
    kb.run("ingest", "kb")
    write(kb.ws / "kb" / "a.md", "alpha, edited\n")
    write(kb.ws / "kb" / "new.md", "brand new\n")
    synced = kb.json("sync")["reconcile"]
    assert synced["changed"]["paths"] == ["kb/a.md"] and synced["new"]["notIngested"] == ["kb/new.md"]


def test_a_root_that_opts_out_names_what_it_left_behind_in_status_and_every_search(kb: KB) -> None:
    opted_out(kb)
    follow = """'mnote-kr roots add kb --exclude "*.tmp"' makes the root follow from now on"""
    status = kb.json("status")
    behind = {f["sourcePath"]: f for f in status["leftBehind"]["files"]}
    assert status["leftBehind"]["count"] == 2 and set(behind) == {"kb/a.md", "kb/new.md"}
    assert behind["kb/a.md"]["status"] == "stale" and behind["kb/new.md"]["status"] == "not_indexed"
    assert "'mnote-kr ingest kb/a.md' indexes it" in behind["kb/a.md"]["fix"]
    assert "'mnote-kr ingest kb/new.md' indexes it" in behind["kb/new.md"]["fix"]
    assert all(follow in f["fix"] for f in behind.values()), behind
    text = render_status(kb.host.status())
    assert "Not indexed: kb/a.md: changed on disk since it was indexed" in text
    assert "Not indexed: kb/new.md: new in an indexed root; not ingested" in text
    # A search about anything names both, with the commands; the file it does cite is not among them.
    found = kb.json("search", "beta")
    assert {c["sourceRootRelativePath"] for c in found["results"]} == {"kb/b.md"}
    named = {n["sourcePath"]: n for n in found["notIndexed"]}
    assert set(named) == {"kb/a.md", "kb/new.md"}
    assert named["kb/a.md"]["status"] == "stale" and "'mnote-kr ingest kb/a.md'" in named["kb/a.md"]["reason"]
    assert "does not follow changes" in named["kb/new.md"]["reason"] and "roots add kb" in named["kb/new.md"]["reason"]
    assert found["diagnostics"]["leftBehind"]["count"] == 2
    # sync says it in words too, with the command that makes the root follow.
    assert "root added with --no-follow" in kb.run("sync")


def test_a_new_file_of_a_root_that_opts_out_is_in_one_list_before_and_after_sync(kb: KB) -> None:
    # It was in pendingNew ("New: ... 'mnote-kr ingest kb' indexes them") and, once sync had seen it,
    # in leftBehind too. A root added with --no-follow names what it leaves behind under "Not indexed"
    # with both fixes (docs/sync.md), before any sync as after; pendingNew is the roots that follow.
    write(kb.ws / "kb" / "b.md", "beta\n")
    write(kb.ws / "follows" / "c.md", "gamma\n")
    kb.run("roots", "add", "kb", "--no-follow")
    kb.run("roots", "add", "follows")
    kb.run("ingest", "kb", "follows")
    write(kb.ws / "kb" / "new.md", "brand new\n")
    write(kb.ws / "follows" / "new2.md", "brand new too\n")
    for step, waiting in (("before sync", "follows/new2.md"), ("after sync", "follows/new3.md")):
        status = kb.json("status")
        assert status["pendingNew"]["paths"] == [waiting], (step, status["pendingNew"])
        assert status["pendingNew"]["count"] == 1 and [r["root"] for r in status["pendingNew"]["byRoot"]] == ["follows"]
        assert [f["sourcePath"] for f in status["leftBehind"]["files"]] == ["kb/new.md"], step
        assert status["leftBehind"]["count"] == 1 and status["leftBehind"]["newCount"] == 1
        text = render_status(kb.host.status())
        assert (f"New:       1 file(s) in the roots not indexed yet: {waiting}; 'mnote-kr ingest follows' indexes them"
                in text), text
        assert "Not indexed: kb/new.md: new in an indexed root; not ingested" in text, text
        assert tool_status(kb.host, StatusInput()).new_files_not_ingested == 2  # an agent's count: both lists
        named = [n for n in kb.json("search", "what is in new.md")["notIndexed"] if n["sourcePath"] == "kb/new.md"]
        assert len(named) == 1 and "does not follow changes" in named[0]["reason"], (step, named)
        if step == "before sync":
            reconcile_and_apply(kb.host)  # records kb/new.md as left behind; ingests follows/new2.md
            write(kb.ws / "follows" / "new3.md", "newer still\n")
    (kb.ws / "kb" / "new.md").unlink()  # gone from disk: in no list, though the recorded one still holds it
    assert kb.json("status")["leftBehind"] == {"count": 0, "files": [], "newCount": 0}


def test_turning_following_on_sends_what_waited(kb: KB) -> None:
    opted_out(kb)
    assert kb.cited() == {"kb/b.md"}
    out = kb.run("roots", "add", "kb", "--exclude", "*.tmp")  # following again: the default
    assert "Updated root kb: now (recursive) exclude=*.tmp, was (recursive, no-follow) exclude=*.tmp" in out
    assert "Sent what waited: kb/a.md" in out and "Sent what waited: kb/new.md" in out
    assert kb.cited() == {"kb/a.md", "kb/b.md", "kb/new.md"}
    entry = kb.host.registry().entries["kb/a.md"]
    assert not entry.stale and entry.status == "processed" and entry.size == len("alpha, edited\n")
    assert kb.json("status")["leftBehind"] == {"count": 0, "files": [], "newCount": 0}
    assert load_pending_new(kb.host).files == []
    assert kb.json("search", "beta")["notIndexed"] == []


def test_a_file_taken_out_with_delete_is_not_ingested_again_by_a_following_root(kb: KB) -> None:
    write(kb.ws / "kb" / "a.md", "alpha\n")
    kb.run("roots", "add", "kb")
    kb.run("ingest", "kb")
    kb.run("delete", "kb/a.md")
    assert not kb.json("sync")["reconcile"]["ingest"].get("ingested")
    assert kb.cited() == set() and kb.fake.ingested == ["kb/a.md"]


def test_a_registry_from_before_following_was_the_default_follows() -> None:
    """Every root an older version wrote says runOnChange false (its only default); a root written
    now keeps --no-follow."""
    import msgspec

    old = msgspec.json.decode(b'{"rootRelativePath": "kb", "recursive": true, "excludePatterns": [],'
                              b' "runOnChange": false, "updatedAtMs": 1}', type=IndexedRoot)
    assert old.run_on_change is True
    kept = msgspec.msgpack.decode(msgspec.msgpack.encode(IndexedRoot(root_relative_path="kb", run_on_change=False,
                                                                     run_on_change_set=True)), type=IndexedRoot)
    assert kept.run_on_change is False


# --------------------------------------------------------------------------- entries no pass can index


def odd_folder(kb: KB) -> None:
    write(kb.ws / "kb" / "good.md", "good\n")
    with open(os.path.join(os.fsencode(kb.ws / "kb"), BAD), "wb") as fh:
        fh.write(b"%PDF-1.4 not really\n")
    os.mkfifo(kb.ws / "kb" / "pipe")
    kb.run("roots", "add", "kb")


def test_ingest_names_a_non_utf8_name_and_a_fifo_and_indexes_the_rest(kb: KB) -> None:
    odd_folder(kb)
    report = kb.json("ingest", "kb")
    skipped = {s["path"]: s["reason"] for s in report["skipped"]}
    assert "not valid UTF-8" in skipped[BAD_SHOWN] and "rename it" in skipped[BAD_SHOWN]
    assert skipped["kb/pipe"] == "a named pipe (FIFO): not a regular file, never opened"
    assert [i["sourcePath"] for i in report["items"]] == ["kb/good.md"] and kb.cited() == {"kb/good.md"}
    text = kb.run("ingest", "kb")
    assert f"skipped            {BAD_SHOWN} (" in text and "skipped            kb/pipe (a named pipe (FIFO)" in text
    # Given by name, each is one line too, never an error.
    named = kb.json("ingest", f"kb/{os.fsdecode(BAD)}", "kb/pipe")
    assert {s["path"] for s in named["skipped"]} == {BAD_SHOWN, "kb/pipe"}


def test_sync_names_a_non_utf8_name_a_fifo_and_a_socket_and_follows_the_rest(kb: KB) -> None:
    odd_folder(kb)
    kb.run("ingest", "kb")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(kb.ws / "kb" / "sock"))
        write(kb.ws / "kb" / "later.md", "later\n")
        result = kb.json("sync")["reconcile"]
        assert result["passedOver"]["reasons"] == {
            BAD_SHOWN: "its name is not valid UTF-8: rename it (e.g. with 'mv') to index it",
            "kb/pipe": "a named pipe (FIFO): not a regular file, never opened",
            "kb/sock": "a socket: not a regular file, never opened"}
        assert result["ingest"]["ingested"] == ["kb/later.md"]
        assert kb.cited() == {"kb/good.md", "kb/later.md"}
        assert load_pending_new(kb.host).files == []
        text = render_sync({"reconcile": reconcile_and_apply(kb.host), "provider": {}})
        for line in (f"{BAD_SHOWN} (its name is not valid UTF-8", "kb/pipe (a named pipe (FIFO)", "kb/sock (a socket"):
            assert f"skipped:                {line}" in text, text
    finally:
        sock.close()


def test_a_folder_whose_name_is_not_utf8_is_one_line_everywhere(kb: KB) -> None:
    odd = os.path.join(os.fsencode(kb.ws / "kb"), b"dossier \xe9t\xe9")
    os.makedirs(odd)
    with open(os.path.join(odd, b"report.md"), "wb") as fh:
        fh.write(b"inside an odd folder\n")
    write(kb.ws / "kb" / "good.md", "good\n")
    shown = "kb/dossier \\xe9t\\xe9"
    kb.run("roots", "add", "kb")
    assert {s["path"]: s["reason"] for s in kb.json("ingest", "kb")["skipped"]} == {
        shown: "a folder whose name is not valid UTF-8: rename it (e.g. with 'mv') to index its files"}
    assert list(kb.json("sync")["reconcile"]["passedOver"]["reasons"]) == [shown]
    assert kb.json("search", "what is in report.md")["notIndexed"] == [  # found nowhere it could be cited from
        {"sourcePath": "report.md", "status": "not_found",
         "reason": "no file of this name among those the library indexes"}]
    assert kb.run("roots", "add", "kb/" + os.fsdecode(b"dossier \xe9t\xe9"), code=2) == ""
    assert "Error: The folder name kb/dossier \\xe9t\\xe9 is not valid UTF-8" in kb.err
    assert kb.cited() == {"kb/good.md"}


def test_search_and_ask_count_the_files_left_behind_beyond_those_they_name(kb: KB,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.citations.map import notindexed

    opted_out(kb)  # two files left behind: a.md changed, new.md new
    monkeypatch.setattr(notindexed, "LEFT_BEHIND_SHOWN", 1)
    found = kb.json("search", "beta")
    assert len(found["notIndexed"]) == 1 and found["diagnostics"]["leftBehind"]["count"] == 2
    text = kb.run("search", "beta")
    assert "1 more file(s) in roots added with --no-follow are not indexed" in text
    asked = kb.json("ask", "beta")
    assert len(asked["notIndexed"]) == 1
    assert any("1 more file(s) in roots added with --no-follow" in n for n in asked["notes"]), asked["notes"]
    for want_answer in (False, True):  # the agents' query tool, as search and as ask: said once
        agent = tool_query(kb.host, QueryInput(query="beta", want_answer=want_answer))
        assert sum("1 more file(s) in roots added" in n for n in agent.notes) == 1, agent.notes
    # all of them named: nothing more to count
    monkeypatch.setattr(notindexed, "LEFT_BEHIND_SHOWN", 2)
    assert "more file(s) in roots added" not in kb.run("search", "beta")
    assert not any("more file(s)" in n for n in kb.json("ask", "beta")["notes"])


def test_a_changed_file_that_failed_is_not_called_left_behind_by_no_follow(tmp_path: Path) -> None:
    """nc29a: in a root that follows (the default), a changed file whose re-index failed (its plugin gone)
    is named by its 'failed:' line only; sync never blames --no-follow for it."""
    from mnote_kr.sync import reconcile
    from tests.surfaces import changed_note_host

    host, _note = changed_note_host(tmp_path, IndexedRoot(root_relative_path="kb"))
    sent: list[list[str]] = []

    def failing(_host: Host, rels: list[str], _on_action: object) -> dict[str, list[str]]:
        sent.append(list(rels))
        return {"ingested": [], "queued": [], "failed": list(rels)}

    original = reconcile.ingest_paths
    reconcile.ingest_paths = failing  # type: ignore[assignment]
    try:
        summary = reconcile.reconcile_and_apply(host)
    finally:
        reconcile.ingest_paths = original  # type: ignore[assignment]
    assert sent == [["kb/a.md"]] and summary["changed"]["paths"] == ["kb/a.md"]
    assert summary["changed"]["notReindexed"] == []
    text = render_sync({"reconcile": summary, "provider": {"failed": [{"path": "kb/a.md", "reason": "no reader"}]}})
    assert "failed:" in text and "kb/a.md (no reader)" in text
    assert "--no-follow" not in text and "not re-indexed" not in text
