"""``status`` when the registry has fallen behind LightRAG (an ingest whose wait ended first: the
registry still says "processing" beside LightRAG's "18 processed", with no hint), and a queued
file's "LightRAG is busy" reason shown beside "Provider: ... (idle)"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import write

from mnote_kr import hookimpl
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.context import ProviderContext
from mnote_kr.models import EntryUpdate, ProviderStatus, SourceEntry, SourceFile

BUSY = "LightRAG is busy: Pipeline is currently busy"


class Seen(FakeProvider):
    """Leaves what it takes 'submitted' (nobody followed it) and reports LightRAG's own view."""

    def __init__(self) -> None:
        super().__init__(ingest_status="submitted")
        self.busy: bool | None = False
        self.documents: dict[str, int] = {}

    @hookimpl
    def provider_status(self, ctx: ProviderContext, entries: list[SourceEntry]) -> ProviderStatus:
        return ProviderStatus(provider="fake", reachable=True, url="http://127.0.0.1:9621", pipeline_busy=self.busy,
                              documents_by_status={**self.documents, "all": sum(self.documents.values())})


class Refusing(Seen):
    """A scan refused while the pipeline was busy: the files stay queued with that reason."""

    @hookimpl
    def ingest(self, ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate]:
        return [EntryUpdate(source_root_relative_path=s.rel_path, status="pending", pending_action="ingest",
                            last_error=BUSY) for s in sources]


def _host(tmp_path: Path, provider: Any) -> Any:  # noqa: ANN401
    ws = tmp_path / "ws"
    write(ws / "kb" / "a.md", "# A\n\nThe amber lamp glows.\n")
    write(ws / "kb" / "b.md", "# B\n\nThe blue kettle sings.\n")
    host, _ = fake_host(ws, provider)
    host.ingest(["kb"])
    return host


def test_status_brings_the_registry_up_to_date_with_an_idle_lightrag_done_with_its_files(tmp_path: Path) -> None:
    """A plain sync ended with files being indexed; LightRAG finished them since. ``status`` asks LightRAG
    about those files and says them indexed, rather than "Behind ... 'mnote-kr sync' brings it up to date"."""
    provider = Seen()
    host = _host(tmp_path, provider)
    provider.documents = {"processed": 2}  # LightRAG done with both; nobody followed them
    info = host.status()
    assert info["registry"]["behind"] is None
    assert info["registry"]["byStatus"] == {"processed": 2}
    assert {e.status for e in host.registry().entries.values()} == {"processed"}
    text = render_status(info)
    assert "Behind:" not in text and "(2 indexed)" in text, text


class Unfollowed(Seen):
    """LightRAG is idle and done, but following the files tells nothing (the registry cannot catch up)."""

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        return []


def test_status_says_the_registry_is_behind_when_following_the_files_tells_nothing(tmp_path: Path) -> None:
    provider = Unfollowed()
    host = _host(tmp_path, provider)
    provider.documents = {"processed": 2}
    info = host.status()
    assert info["registry"]["behind"] == {"count": 2, "paths": ["kb/a.md", "kb/b.md"]}
    lines = [line for line in render_status(info).splitlines() if "behind" in line.lower()]
    assert len(lines) == 1 and "2 file(s)" in lines[0] and "'mnote-kr sync'" in lines[0], lines
    assert "kb/a.md" in lines[0], lines


@pytest.mark.parametrize(("busy", "documents"), [(True, {"processed": 1, "processing": 1}),
                                                 (False, {"processed": 1, "pending": 1}),
                                                 (None, {"processed": 2})])
def test_status_says_nothing_of_being_behind_while_lightrag_is_at_work_or_cannot_tell(
        tmp_path: Path, busy: bool | None, documents: dict[str, int]) -> None:
    provider = Seen()
    host = _host(tmp_path, provider)
    provider.busy, provider.documents = busy, documents
    info = host.status()
    assert info["registry"]["behind"] is None
    assert "behind" not in render_status(info).lower()


def test_a_busy_reason_recorded_earlier_reads_as_past_when_lightrag_is_idle(tmp_path: Path) -> None:
    provider = Refusing()
    host = _host(tmp_path, provider)
    provider.documents = {"processed": 3}
    text = render_status(host.status())
    waiting = [line for line in text.splitlines() if "kb/a.md" in line]
    assert len(waiting) == 1 and "was busy when it was last tried" in waiting[0], text
    assert "idle now" in waiting[0] and "'mnote-kr sync'" in waiting[0], waiting
    assert "(idle)" in text  # the provider's line, which the reason no longer contradicts

    provider.busy = True  # still busy: the reason is today's, shown as recorded
    text = render_status(host.status())
    waiting = [line for line in text.splitlines() if "kb/a.md" in line]
    assert waiting == [f"           ingest kb/a.md: {BUSY}"], waiting


def test_status_does_not_tell_its_reader_to_run_status_for_a_reason_recorded_before() -> None:
    """A failure recorded by an older version ends "'mnote-kr status' lists failures": status prints it
    without that hint, inside its own output (the reason's advice stays)."""
    old = "Invalid object in /Pages: 'mnote-kr ingest broken_copy.pdf' tries again; 'mnote-kr status' lists failures"
    text = render_status({"workspace": "/w", "registry": {"entries": 1, "failed": [
        {"sourcePath": "broken_copy.pdf", "reason": old}]}})
    assert "Failed:    broken_copy.pdf: Invalid object in /Pages: 'mnote-kr ingest broken_copy.pdf' tries again" in text
    assert "lists failures" not in text, text
