"""Following by default, end to end on the real lightrag-server: with the README's commands and no flag
('roots add .', 'ingest', 'watch'), an edited DOCX is re-indexed and cited again, with its new text.

Waits are on conditions (the registry, the search), bounded only so that a failure ends."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

import pytest
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.models import SourceEntry
from mnote_kr.sync.watch import Watcher
from tests.test_integration_flows import make_host

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


def report_docx(token: str, extra: str = "") -> bytes:
    b = DocxBuilder()
    b.heading(f"Field report {token}", 1)
    b.para(f"The saffron windmill {token} turns slowly in the morning fog.")
    if extra:
        b.para(extra)
    return b.build()


def cites(host: Host, query: str, rel: str) -> bool:
    return any(c.source_root_relative_path == rel for c in host.search(query, mode="naive").results)


def test_an_edited_docx_is_followed_and_cited_again_by_default(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    host = make_host(tmp_path / "kb", lightrag_engine, monkeypatch)
    token = uuid.uuid4().hex[:10]
    doc = host.root / "docs" / "report.docx"
    doc.parent.mkdir()
    doc.write_bytes(report_docx(token))
    host.roots_add(host.root)  # 'mnote-kr roots add .', no flag
    host.ingest([host.root], wait=True, wait_s=120)
    assert cites(host, f"saffron windmill {token}", "docs/report.docx")
    old = host.registry().entries["docs/report.docx"]

    edited = report_docx(token, f"A quokka colony {token} now nests under the copper gearbox.")
    with Watcher(host, debounce_s=0.3, sync_interval_s=1.0) as watcher:
        assert watcher.wait_idle(30)
        doc.write_bytes(edited)
        digest = "sha256:" + hashlib.sha256(edited).hexdigest()

        def followed() -> SourceEntry | None:
            e = host.registry().entries["docs/report.docx"]
            return e if e.source_hash == digest and e.status == "processed" and not e.stale else None

        def why() -> str:
            e = host.registry().entries["docs/report.docx"]
            return repr((e.status, e.stale_reason, watcher.last_error))

        entry = wait_until(followed, timeout_s=180, what=why, poll_s=0.2)
        assert watcher.last_error is None
    assert entry.light_rag_doc_id != old.light_rag_doc_id
    found = host.search(f"quokka colony copper gearbox {token}", mode="naive")
    hits = [c for c in found.results if c.source_root_relative_path == "docs/report.docx"]
    assert hits and any("quokka" in (c.display_quote or "") for c in hits), [c.display_quote for c in found.results]
    assert found.not_indexed == []
    assert doc.read_bytes() == edited  # the source is untouched by everything mnote-kr did
