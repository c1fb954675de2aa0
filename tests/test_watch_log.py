"""What ``mnote-kr watch`` says of each file: one true thing, in the words the rest of mnote-kr uses.

A newcomer's watch log said ``sent 2/2 files``, then ``queued`` for the same two files (LightRAG had
refused them as busy), and ``indexed (2 of 2 submitted file(s) finished)`` where every other report says
"being indexed". The watcher runs on real filesystem events; the provider is ``test_sync_busy``'s fake
that refuses sends as LightRAG does while its pipeline is busy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import write
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.sync.watch import WatchAction, Watcher
from tests.test_sync_busy import BUSY, Busy

pytestmark = pytest.mark.timeout(300)


class Log:
    def __init__(self, host: Host, fake: FakeProvider) -> None:
        self.host, self.fake, self.ws = host, fake, host.root
        self.progress: list[str] = []
        self.actions: list[WatchAction] = []
        host.progress = self.progress.append
        self.watcher: Watcher | None = None

    def start(self) -> None:
        write(self.ws / "kb" / "a.md", "# A\n\nThe amber lamp glows.\n")
        write(self.ws / "kb" / "b.md", "# B\n\nThe blue kettle sings.\n")
        self.host.roots_add(self.ws / "kb")
        self.host.ingest(["kb"])
        self.watcher = Watcher(self.host, debounce_s=0.2, follow_interval_s=0.2, sync_interval_s=0.5,
                               on_action=self.actions.append)
        self.watcher.start()
        assert self.watcher.wait_idle(30)
        self.progress.clear()

    def edit(self) -> None:
        for name in ("a", "b"):
            write(self.ws / "kb" / f"{name}.md", f"# {name}\n\nEdited: a quokka nests under the {name} gearbox.\n")

    def said(self, path: str) -> list[str]:
        return [a.kind for a in self.actions if a.path == path]


def _log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: FakeProvider) -> Iterator[Log]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    (tmp_path / "ws").mkdir()
    log = Log(*fake_host(tmp_path / "ws", provider))
    yield log
    if log.watcher is not None:
        log.watcher.stop()


@pytest.fixture
def busy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Log]:
    yield from _log(tmp_path, monkeypatch, Busy())


@pytest.fixture
def slow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Log]:
    yield from _log(tmp_path, monkeypatch, FakeProvider(ingest_status="submitted"))


def test_a_file_a_busy_lightrag_refused_is_said_queued_never_sent(busy: Log) -> None:
    busy.start()
    assert isinstance(busy.fake, Busy)
    busy.fake.refusing = True
    busy.edit()
    wait_until(lambda: all("queued" in busy.said(f"kb/{n}.md") for n in "ab"), timeout_s=60,
               what=lambda: [a.line() for a in busy.actions])
    for rel in ("kb/a.md", "kb/b.md"):
        assert "ingested" not in busy.said(rel), busy.said(rel)
        [queued] = [a for a in busy.actions if a.path == rel and a.kind == "queued"]
        assert queued.detail == BUSY
    sent = [line for line in busy.progress if line.startswith("sent ")]
    held = "sent 0/2 files (2 queued until LightRAG is free, then sent;"
    assert sent and all(line.startswith(held) for line in sent), busy.progress


def test_files_followed_until_indexed_are_said_being_indexed_not_submitted(slow: Log) -> None:
    slow.start()
    # The first ingest's files are followed too: let that finish first, or its "indexed" line
    # (with no "sent" line after the clear) is taken for the edit's (a CI failure, 2026-12-06).
    wait_until(lambda: not any(e.status in ("submitted", "processing") for e in slow.host.registry().entries.values()),
               timeout_s=60, what=lambda: [a.line() for a in slow.actions])
    assert slow.watcher is not None and slow.watcher.wait_idle(30)  # the tick that saw it has spoken
    slow.actions.clear()
    slow.progress.clear()
    slow.edit()
    wait_until(lambda: any(a.kind == "indexed" for a in slow.actions), timeout_s=60,
               what=lambda: [a.line() for a in slow.actions])
    for rel in ("kb/a.md", "kb/b.md"):
        assert "queued" not in slow.said(rel), slow.said(rel)
    sent = [line for line in slow.progress if line.startswith("sent ")]
    assert sent and "queued" not in " ".join(sent), slow.progress
    [done] = [a for a in slow.actions if a.kind == "indexed"][:1]
    assert "submitted" not in done.detail and "being indexed" in done.detail, done.line()
