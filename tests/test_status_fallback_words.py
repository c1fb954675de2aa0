"""``status`` in words: the new files by name, and a file indexed through a fallback only while it is there.

Seen by a newcomer: ``New: 3 file(s) in the roots not indexed yet: 'mnote-kr ingest .' indexes them``
named none of them (the Changed and Missing lines name theirs); a file deleted from disk was still listed
under ``Fallback:``, and after ``sync`` as ``Fallback:  paperless__multi-page-mixed.pdf: text_fallback``:
a gone file is no file indexed through anything, and ``text_fallback`` is an internal kind, not a reason.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import write

from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.sync.reconcile import reconcile_and_apply


def _host(tmp_path: Path) -> Host:
    ws = tmp_path / "ws"
    write(ws / "scan.md", "# Scan\n\nThe scanned letter.\n")
    write(ws / "kept.md", "# Kept\n\nA kept note.\n")
    host, _ = fake_host(ws, FakeProvider(delete_status="delete_completed"))
    host.roots_add(ws)
    host.ingest(["."])
    with host.store.transaction() as reg:  # as the LightRAG plugin leaves a recognised PDF after a sync
        reg.update("scan.md", kind="text_fallback", last_error=None)
    return host


def _lines(host: Host, label: str) -> list[str]:
    return [line for line in render_status(host.status()).splitlines() if line.startswith(label)]


def test_the_new_line_names_the_first_new_files(tmp_path: Path) -> None:
    host = _host(tmp_path)
    for name in ("alpha.md", "beta.md", "gamma.md"):
        write(host.root / name, f"# {name}\n\nNew.\n")
    new = _lines(host, "New:")
    assert len(new) == 1 and "3 file(s)" in new[0], new
    assert all(name in new[0] for name in ("alpha.md", "beta.md", "gamma.md")), new
    assert "'mnote-kr ingest .'" in new[0], new


def test_a_fallback_is_said_in_words_never_as_its_internal_kind(tmp_path: Path) -> None:
    host = _host(tmp_path)
    fallback = _lines(host, "Fallback:")
    assert len(fallback) == 1 and "scan.md" in fallback[0], fallback
    assert "text_fallback" not in fallback[0] and "text mnote-kr read" in fallback[0], fallback


def test_a_file_gone_from_disk_is_not_listed_as_a_fallback(tmp_path: Path) -> None:
    host = _host(tmp_path)
    (host.root / "scan.md").unlink()
    assert _lines(host, "Fallback:") == []  # before sync: Missing names it
    assert any("scan.md" in line for line in _lines(host, "Missing:"))
    reconcile_and_apply(host)
    assert _lines(host, "Fallback:") == []  # after sync: a stale record, not a file indexed any way
    assert host.status()["registry"]["fallbacks"] == []
