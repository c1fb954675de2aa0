"""``status`` of a workspace with no files does not start the provider's server just to report.

Seen by a newcomer: ``status`` in a folder with nothing ingested started the managed LightRAG engine
for the workspace (~0.5 GB). The host now asks the provider for a report that may not start
anything (``ProviderContext.may_start``) while the registry holds no entry; the provider says its
engine starts on the first ingest, or reports the engine that already runs. (The real engine:
``tests/test_workspaces_integration.py``; the LightRAG provider's side: ``test_lr_workspaces.py``.)
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import write

from mnote_kr import hookimpl
from mnote_kr.agents.contracts import StatusInput
from mnote_kr.agents.tools import tool_status
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.context import ProviderContext
from mnote_kr.models import ProviderStatus, SourceEntry

NOT_STARTED = "this workspace's engine starts on the first ingest ('mnote-kr ingest FOLDER')"


class Lazy(FakeProvider):
    """Reports as a provider with an engine started on demand: not started while it may not start it."""

    def __init__(self) -> None:
        super().__init__(delete_status="delete_completed")
        self.asked: list[bool] = []

    @hookimpl
    def provider_status(self, ctx: ProviderContext, entries: list[SourceEntry]) -> ProviderStatus:
        self.asked.append(ctx.may_start)
        if not ctx.may_start:
            return ProviderStatus(provider="fake", reachable=False, not_started=NOT_STARTED)
        return ProviderStatus(provider="fake", reachable=True, url="http://127.0.0.1:9621")


def test_status_with_no_files_asks_a_report_that_starts_nothing_and_says_when_it_starts(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws / "kb" / "a.md", "# A\n\nThe amber lamp.\n")
    provider = Lazy()
    host, _ = fake_host(ws, provider)
    info = host.status()
    assert provider.asked == [False]
    assert info["provider"]["notStarted"] == NOT_STARTED and info["provider"]["reachable"] is False
    text = render_status(info)
    assert f"Provider:  fake: not started: {NOT_STARTED}" in text.splitlines(), text
    assert "DOWN" not in text
    agent = tool_status(host, StatusInput())
    assert not agent.provider.reachable and agent.provider.error == f"not started: {NOT_STARTED}"
    host.roots_add(ws / "kb")  # a root and still no file in the registry: nothing to report on yet
    host.status()
    assert provider.asked == [False, False, False]  # status, the agents' status, status
    host.ingest([ws / "kb"])
    info = host.status()
    assert provider.asked[-1] is True and info["provider"]["reachable"] is True
    assert "notStarted" not in info["provider"] or info["provider"]["notStarted"] is None
