"""A workspace of one indexed note (the fake provider), the start of the citation ID and move tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import fake_host
from mnote_kr_testkit.files import write

from mnote_kr.app.host import Host

HERON = "# Heron\n\nThe grey heron waits over the marsh.\n"


def heron_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **notes: str) -> Host:
    """A host over ``tmp_path/ws`` with ``notes/heron.md`` (and ``notes/NAME.md`` for each of ``notes``)
    ingested, its home in ``tmp_path/home``."""
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    write(ws / "notes" / "heron.md", HERON)
    for name, text in notes.items():
        write(ws / "notes" / f"{name}.md", text)
    host, _ = fake_host(ws)
    host.roots_add(ws)
    host.ingest(["."])
    return host
