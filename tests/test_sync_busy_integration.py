"""An edited DOCX and one plain 'mnote-kr sync', end to end on the managed engine (real lightrag-server).

A newcomer appended a paragraph to an indexed DOCX and ran 'mnote-kr sync': the old document's delete
kept LightRAG's pipeline busy, the scan of the new version was refused, and sync still said the file
was "still being re-indexed" while nothing had been sent. It took three syncs, and searches meanwhile
left the file out without naming it. One sync now waits for LightRAG to go idle, sends the file and
follows it; its words say what happened. Waits are on conditions, bounded only so that a failure ends.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import docx
import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.citations.render.synctext import render_sync
from mnote_kr.cli.outcome import sent_now
from mnote_kr.sync.busy import send_refused
from tests.rename_helpers import QUERY, indexed_docs
from tests.rename_helpers import sync as plain_sync

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

REL = "kotaemon__dummy.docx"
NEW = "The quokka colony nests under the copper gearbox of the windmill."


def cli_sync(host: Host) -> tuple[dict, str]:
    """'mnote-kr sync' as the command runs it: the disk, the provider, the busy step; and its text."""
    result = plain_sync(host)
    send_refused(host, result)
    return result, render_sync(result, sent_now(result, host.registry().entries))


def test_one_sync_after_an_edit_sends_the_file_and_says_what_it_did(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    host = indexed_docs(tmp_path, lightrag_engine, monkeypatch)
    path = host.root / REL
    document = docx.Document(str(path))
    document.add_paragraph(NEW)  # as the newcomer did, with python-docx
    document.save(str(path))
    edited = hashlib.sha256(path.read_bytes()).hexdigest()

    result, text = cli_sync(host)

    entry = host.registry().entries[REL]
    assert entry.source_hash == "sha256:" + edited
    # Sent: never left queued behind a pipeline that was only busy deleting the old version.
    assert entry.status in ("submitted", "processing", "processed"), (entry.status, entry.last_error, text)
    assert "not sent" not in text.lower(), text
    if entry.status == "processed":
        assert "re-indexed 1 edited file" in text and "1 edited file still" not in text, text
    else:
        assert "1 edited file still being re-indexed" in text, text
        # out of the index for now: every search names it
        found = host.search(QUERY, mode="naive")
        if REL not in {c.source_root_relative_path for c in found.results}:
            assert REL in {n.source_path for n in found.not_indexed}, found.not_indexed

    def done() -> bool:
        status = host.status()
        return status["provider"].get("pipelineBusy") is False and not status["registry"].get("waiting")

    wait_until(done, timeout_s=300, what=lambda: render_status(host.status()))
    status = host.status()
    # LightRAG is done with it: the registry is not left behind needing another sync.
    assert status["registry"]["behind"] is None, render_status(status)
    assert host.registry().entries[REL].status == "processed", render_status(status)
    cited = host.search("quokka colony copper gearbox windmill", mode="naive")
    assert any(c.source_root_relative_path == REL and "quokka" in (c.display_quote or "") for c in cited.results), \
        [(c.source_root_relative_path, c.display_quote) for c in cited.results]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == edited  # the user's file is untouched
