"""A file whose time changed but not its bytes (``touch``, a backup or sync tool, ``git checkout``) is the
version that was indexed: search keeps citing it, ``open`` and the viewer open it.

Seen in review: the pipeline compares each cited file's size and time with the registry's, so a touched
file's passages were dropped from every search until ``sync``, and since round 14 the search named the
file "changed since indexed" (and ``open`` refused its IDs "changed since it was indexed"). In a root
added with --no-follow the search said to run ``mnote-kr ingest FILE``, which answered "unchanged" and
left the registry's time as it was, so the file stayed uncited. A file of the indexed size whose time
changed is hashed once (per process and version) and compared with the indexed hash; ``ingest`` of an
unchanged file records its new time.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import fake_host
from mnote_kr_testkit.files import write

from mnote_kr.app.host import Host
from mnote_kr.core import workspace
from mnote_kr.errors import NotFoundError

QUERY = "lamp over the harbour"


def _host(tmp_path: Path) -> Host:
    ws = tmp_path / "ws"
    write(ws / "kb" / "amber.md", "# Amber\n\nThe amber lamp glows over the harbour.\n")
    write(ws / "slow" / "grey.md", "# Grey\n\nThe grey lamp glows over the harbour.\n")
    host, _ = fake_host(ws)
    host.roots_add(ws / "kb")
    host.roots_add(ws / "slow", run_on_change=False)
    host.ingest([ws / "kb", ws / "slow"])
    return host


def _touch(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 7_000_000_000))


def _cited(host: Host) -> set[str]:
    return {c.source_root_relative_path for c in host.search(QUERY).results}


def test_a_touched_file_is_still_cited_and_its_ids_still_open(tmp_path: Path) -> None:
    host = _host(tmp_path)
    before = host.search(QUERY)
    ids = {c.source_root_relative_path: c.citation_id for c in before.results}
    assert set(ids) == {"kb/amber.md", "slow/grey.md"}
    data = {rel: (host.root / rel).read_bytes() for rel in ids}
    for rel in ids:
        _touch(host.root / rel)
    after = host.search(QUERY)
    assert {c.source_root_relative_path for c in after.results} == set(ids), after.not_indexed
    assert "changedSinceIndexed" not in after.diagnostics
    assert not [n for n in after.not_indexed if n.source_path in ids]
    for rel, cid in ids.items():
        assert host.open(cid).resource_root_relative_path == rel
    assert {rel: (host.root / rel).read_bytes() for rel in ids} == data  # never changed


def test_a_file_edited_to_the_same_size_is_still_named_changed(tmp_path: Path) -> None:
    host = _host(tmp_path)
    cid = {c.source_root_relative_path: c.citation_id for c in host.search(QUERY).results}["kb/amber.md"]
    path = host.root / "kb" / "amber.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("amber lamp", "ember lamp"), encoding="utf-8")  # same length, other bytes
    _touch(path)
    result = host.search(QUERY)
    assert "kb/amber.md" not in {c.source_root_relative_path for c in result.results}
    assert result.diagnostics["changedSinceIndexed"]["paths"] == ["kb/amber.md"]
    with pytest.raises(NotFoundError, match="changed since it was indexed"):
        host.open(cid)


def test_a_touched_file_is_hashed_once_per_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = _host(tmp_path)
    _touch(host.root / "kb" / "amber.md")
    hashed: list[str] = []
    real = workspace.sha256_file

    def counting(path: str | Path) -> str:
        hashed.append(str(path))
        return real(path)

    monkeypatch.setattr(workspace, "sha256_file", counting)
    assert "kb/amber.md" in _cited(host)
    assert "kb/amber.md" in _cited(host)
    assert [p for p in hashed if p.endswith("amber.md")] == [str(host.root / "kb" / "amber.md")]


def test_ingest_of_a_touched_file_in_a_root_that_does_not_follow_records_its_new_time(tmp_path: Path) -> None:
    host = _host(tmp_path)
    path = host.root / "slow" / "grey.md"
    _touch(path)
    [item] = host.ingest([path]).items
    assert item.status == "already_registered"
    entry = host.registry().entries["slow/grey.md"]
    assert (entry.size, entry.mtime_ns) == (path.stat().st_size, path.stat().st_mtime_ns)
