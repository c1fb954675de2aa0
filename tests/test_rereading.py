"""Files indexed by an older reading (docs/sync.md): each entry keeps the reading its provider reported,
``status`` counts the files read by an older reading with the command that re-reads them, and ``sync``
(``watch``'s start-up reconcile) re-reads those through ``ingest --force``'s path; files indexed before
readings were recorded are checked once (their reading recorded when read the same way now), and those no
cheap check can tell are left to ``sync --reread``. The commands run in process on a host whose provider is
the in-process ``FakeProvider``, taught readings; the sources are checked byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.citations.render.synctext import render_sync
from mnote_kr.cli.main import main
from mnote_kr.cli.reports import Ctx
from mnote_kr.context import ProviderContext
from mnote_kr.core.readings import decide, status_lines
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import EntryUpdate, ReadingCheck, SourceEntry, SourceFile
from mnote_kr.sync.reconcile import reconcile_and_apply

CURRENT = "text:2"
#: A reading by a reader that is gone (a plugin uninstalled): the provider names such files in ``reader_missing``.
GONE = "plugin:1"


class ReadingProvider(FakeProvider):
    """Reads every file as ``CURRENT``. Of the files indexed before readings were recorded, it tells a
    ``.txt`` read the same way now (recorded) and cannot tell a ``.pdf`` (unknown)."""

    def __init__(self) -> None:
        super().__init__()
        self.forced: list[list[str]] = []
        self.looked: list[bool] = []

    @hookimpl
    def ingest(self, ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate]:
        if force:
            self.forced.append([s.rel_path for s in sources])
        updates = FakeProvider.ingest(self, ctx, sources, force)
        return [EntryUpdate(**{**{f: getattr(u, f) for f in u.__struct_fields__}, "reading": CURRENT})
                for u in updates]

    @hookimpl
    def check_readings(self, ctx: ProviderContext, entries: list[SourceEntry], look: bool) -> ReadingCheck:
        self._check()  # down: as a real provider, it cannot answer
        self.looked.append(look)
        older = {e.source_root_relative_path: "read again for what version 2 reads" for e in entries
                 if e.reading is not None and e.reading not in (CURRENT, GONE)}
        gone = {e.source_root_relative_path: "no plugin installed now reads it" for e in entries if e.reading == GONE}
        legacy = [e.source_root_relative_path for e in entries if e.reading is None]
        return ReadingCheck(older=older, record={r: CURRENT for r in legacy if r.endswith(".txt")},
                            unknown={r: "not checked: its pages would be read whole" for r in legacy
                                     if r.endswith(".pdf")}, reader_missing=gone)


def _set_reading(host: Host, readings: dict[str, str | None]) -> None:
    """Entries as an older version left them: an older reading, or none recorded."""
    with host.store.transaction() as reg:
        for rel, reading in readings.items():
            reg.update(rel, reading=reading)


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Host, ReadingProvider]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    for name in ("old.txt", "legacy.txt", "scan.pdf", "fresh.txt"):
        write(ws / "kb" / name, f"{name} text\n")
    host, fake = fake_host(ws, ReadingProvider())
    host.add_root("kb")
    host.ingest(["kb"])
    monkeypatch.setattr(Ctx, "host", lambda self, progress=False: host)
    return host, fake


def test_each_send_records_the_reading_its_provider_reports(kb: tuple[Host, ReadingProvider]) -> None:
    host, _ = kb
    assert {rel: e.reading for rel, e in host.registry().entries.items()} == dict.fromkeys(
        ("kb/fresh.txt", "kb/legacy.txt", "kb/old.txt", "kb/scan.pdf"), CURRENT)
    # kept through a save and a load (camelCase on disk, omitted when None)
    assert Host(host.root, plugins=host.plugins, config=host.config).registry().entries["kb/old.txt"].reading == CURRENT


def test_status_counts_older_and_unknown_readings_each_with_its_command(kb: tuple[Host, ReadingProvider]) -> None:
    host, fake = kb
    assert host.status()["readings"] == {
        "older": {"count": 0, "paths": [], "reasons": {}, "command": "mnote-kr sync"},
        "unknown": {"count": 0, "paths": [], "reasons": {}, "command": "mnote-kr sync --reread"}}
    _set_reading(host, {"kb/old.txt": "text:1", "kb/legacy.txt": None, "kb/scan.pdf": None})
    info = host.status()
    readings = info["readings"]
    assert (readings["older"]["count"], readings["older"]["paths"]) == (1, ["kb/old.txt"])
    assert (readings["unknown"]["count"], readings["unknown"]["paths"]) == (1, ["kb/scan.pdf"])
    assert fake.looked == [False, False]  # a report asks the provider to read no file
    text = render_status(info)
    assert ("Reading:   1 file(s) indexed by an older reading, e.g. kb/old.txt (read again for what version 2 "
            "reads): 'mnote-kr sync' re-reads those read differently now") in text
    assert "'mnote-kr sync --reread' re-reads them" in text
    assert status_lines(None) == []


def test_sync_rereads_an_older_reading_records_a_checked_one_and_leaves_unknown_to_reread(
        kb: tuple[Host, ReadingProvider], capsys: pytest.CaptureFixture[str]) -> None:
    host, fake = kb
    ws = host.root
    _set_reading(host, {"kb/old.txt": "text:1", "kb/legacy.txt": None, "kb/scan.pdf": None})
    before = digest_tree(ws)
    capsys.readouterr()
    assert main(["sync", "--json"]) == 0
    reread = json.loads(capsys.readouterr().out)["reconcile"]["reread"]
    assert (reread["sent"]["paths"], reread["recorded"], reread["unknown"]["paths"]) == (
        ["kb/old.txt"], 1, ["kb/scan.pdf"])
    assert reread["counts"] == {"processed": 1}
    assert fake.forced == [["kb/old.txt"]] and fake.looked[-1] is True  # sent as 'ingest --force' sends it
    entries = host.registry().entries
    assert {rel: entries[rel].reading for rel in ("kb/old.txt", "kb/legacy.txt", "kb/scan.pdf")} == {
        "kb/old.txt": CURRENT, "kb/legacy.txt": CURRENT, "kb/scan.pdf": None}
    assert digest_tree(ws) == before  # the user's files are never touched

    # Read once: the next sync sends nothing, and says what it left to --reread.
    assert main(["sync"]) == 0
    out = capsys.readouterr().out
    assert "re-read:" not in out and "1 file(s) indexed before mnote-kr recorded" in out
    assert "'mnote-kr sync --reread' re-reads them" in out
    assert fake.forced == [["kb/old.txt"]]

    assert main(["sync", "--reread", "--json"]) == 0
    reread = json.loads(capsys.readouterr().out)["reconcile"]["reread"]
    assert reread["sent"]["paths"] == ["kb/scan.pdf"] and reread["unknown"]["count"] == 0
    assert fake.forced[-1] == ["kb/scan.pdf"] and host.registry().entries["kb/scan.pdf"].reading == CURRENT
    assert digest_tree(ws) == before


def test_a_text_sync_names_each_file_it_rereads(kb: tuple[Host, ReadingProvider]) -> None:
    host, _ = kb
    _set_reading(host, {"kb/old.txt": "text:1"})
    result: dict[str, Any] = {"reconcile": reconcile_and_apply(host), "provider": host.sync()}
    assert f"{'re-read:':<24}kb/old.txt (read again for what version 2 reads)" in render_sync(result).splitlines()


def test_the_decision_sends_unknown_readings_only_when_asked() -> None:
    check = ReadingCheck(older={"a.docx": "notes"}, record={"b.md": "x:1"}, unknown={"c.pdf": "pages"})
    assert decide(check, everything=False) == {"a.docx": "notes"}
    assert decide(check, everything=True) == {"a.docx": "notes", "c.pdf": "re-read on request (pages)"}


def test_a_provider_down_leaves_the_rest_of_sync_working(kb: tuple[Host, ReadingProvider]) -> None:
    host, fake = kb
    _set_reading(host, {"kb/old.txt": "text:1"})
    write(host.root / "kb" / "new.txt", "new\n")
    fake.down = True
    summary = reconcile_and_apply(host)
    assert summary["reread"] == {"error": "fake provider is down"}
    assert summary["new"]["paths"] == ["kb/new.txt"]  # queued for the next sync as before
    assert host.registry().entries["kb/old.txt"].reading == "text:1"


def test_status_and_sync_say_once_that_a_file_s_reader_is_missing(kb: tuple[Host, ReadingProvider],
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """nc29a: a file indexed through a plugin no longer installed was cited "whole file" and nothing said why:
    ``status`` and ``sync`` say it once, with what brings the reader back, and sync sends nothing again for it."""
    host, fake = kb
    assert "readerMissing" not in host.status()["readings"]  # nothing missing: the report as before
    _set_reading(host, {"kb/fresh.txt": GONE})
    info = host.status()
    assert info["readings"]["readerMissing"]["paths"] == ["kb/fresh.txt"]
    lines = [line for line in render_status(info).splitlines() if "kb/fresh.txt" in line]
    assert lines == ["Reader:    1 file(s) indexed through a reader that is not installed now (a plugin), e.g. "
                     "kb/fresh.txt (no plugin installed now reads it): install it again to cite it in place"]
    capsys.readouterr()
    assert main(["sync"]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if "kb/fresh.txt" in line] == [
        "1 file(s) indexed through a reader that is not installed now (a plugin), e.g. kb/fresh.txt (no plugin "
        "installed now reads it): install it again to cite it in place"]
    assert fake.forced == []
