"""``open`` of a citation whose source changed since the citation was issued says so and opens nothing.

Seen by a newcomer: ``[nlz8]`` was issued, the DOCX was edited and ``sync`` re-indexed it, and
``open [nlz8] --json`` still gave the old version's ``sourceMapPath`` and ``evidenceText`` with no word
that the file had changed: the place it names may have moved. DESIGN.md ("Stale, not silent"): a
changed source's citations stop, as a deleted or moved one's do. The citation log keeps the file's
content hash as it was when the ID was issued; ``open`` (CLI, HTTP, MCP: ``Host.open``) and the viewer
compare it with the registry's. The workspace and replay are ``tests/test_pipeline_replay.py``'s.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from mnote_kr.citations.caches import citecache
from mnote_kr.errors import NotFoundError
from tests.test_pipeline_replay import AURORA_REL, NOTES_REL, Env, _entry, fresh_caches, make_env


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    fresh_caches()  # each test's replay is its own
    env = make_env(tmp_path, monkeypatch)
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    return env


def _issued(env: Env, rel: str) -> str:
    return next(c.citation_id for c in env.search("Hamburg").results if c.source_root_relative_path == rel)


def _edit_and_reindex(env: Env, rel: str) -> None:
    """The file edited, then re-indexed as ``sync`` does: the registry holds its new hash, size and time.
    (The provider's document keeps its name here, as one that keys documents by path would.)"""
    with open(env.ws / rel, "a", encoding="utf-8") as fh:
        fh.write("\nA paragraph written after the citation was issued.\n")
    name = env.host.registry().entries[rel].light_rag_file_path
    with env.host.store.transaction() as reg:
        reg.put(_entry(env.ws, rel, name))


def test_open_refuses_a_citation_issued_before_its_source_changed_and_was_reindexed(env: Env) -> None:
    cid = _issued(env, NOTES_REL)
    assert env.host.open(cid).resource_root_relative_path == NOTES_REL  # opens while the file is as cited
    _edit_and_reindex(env, NOTES_REL)
    with pytest.raises(NotFoundError, match="changed since this citation was issued") as caught:
        env.host.open(cid)
    assert caught.value.hint == "search again"
    citecache._memory.clear()  # another process: the hash is in the log on disk
    with pytest.raises(NotFoundError, match="changed since this citation was issued"):
        env.new_host().open(cid)


def test_a_citation_of_another_unchanged_file_still_opens(env: Env) -> None:
    issued = {c.source_root_relative_path: c.citation_id for c in env.search("Hamburg").results}
    _edit_and_reindex(env, NOTES_REL)
    assert env.host.open(issued[AURORA_REL]).resource_root_relative_path == AURORA_REL


def test_searching_again_after_the_change_issues_a_citation_that_opens(env: Env) -> None:
    _issued(env, NOTES_REL)
    _edit_and_reindex(env, NOTES_REL)
    cid = _issued(env, NOTES_REL)  # cited again, from the file as it is now
    assert env.host.open(cid).resource_root_relative_path == NOTES_REL


def test_open_refuses_a_source_changed_on_disk_that_is_not_reindexed_yet(env: Env) -> None:
    cid = _issued(env, NOTES_REL)
    with open(env.ws / NOTES_REL, "a", encoding="utf-8") as fh:
        fh.write("\nEdited; no sync or watcher has seen it.\n")
    with pytest.raises(NotFoundError, match="changed since it was indexed") as caught:
        env.host.open(cid)
    assert "sync" in (caught.value.hint or "")


def test_open_of_a_citation_logged_without_a_hash_compares_the_indexed_document(env: Env) -> None:
    """A log line written before the hash was kept: the provider's document id tells the version apart."""
    cid = _issued(env, NOTES_REL)
    found = citecache.find(env.host, cid)
    for extra in ("", "-wal", "-shm"):  # no store yet: the former log is read into a new one
        Path(str(citecache.store_path(env.host)) + extra).unlink(missing_ok=True)
    citecache.log_path(env.host).write_bytes(msgspec.json.encode(found) + b"\n")  # a line without "sourceHash"
    citecache._memory.clear()
    host = env.new_host()
    assert host.open(cid).resource_root_relative_path == NOTES_REL  # same document: opens
    with open(env.ws / NOTES_REL, "a", encoding="utf-8") as fh:
        fh.write("\nChanged and indexed as a new document.\n")
    with host.store.transaction() as reg:
        reg.put(_entry(env.ws, NOTES_REL, "notes.w00000000.00000000-11111111.md"))
    with pytest.raises(NotFoundError, match="changed since this citation was issued"):
        host.open(cid)


def test_the_viewer_says_a_changed_source_is_gone(env: Env) -> None:
    from mnote_kr.viewer import web

    cid = _issued(env, NOTES_REL)
    assert web._source(env.host, cid.strip("[]")) is not None
    _edit_and_reindex(env, NOTES_REL)  # size and time as the registry has them: only the hash tells
    with pytest.raises(web._Gone, match="changed since this citation was issued"):
        web._source(env.host, cid.strip("[]"))


def _logged_without_a_hash(env: Env, cid: str) -> None:
    """``cid`` as the log of a version before the hash was kept has it (no store yet: read into a new one)."""
    found = citecache.find(env.host, cid)
    for extra in ("", "-wal", "-shm"):
        Path(str(citecache.store_path(env.host)) + extra).unlink(missing_ok=True)
    citecache.log_path(env.host).write_bytes(msgspec.json.encode(found) + b"\n")  # a line without "sourceHash"
    citecache._memory.clear()


def test_a_citation_logged_without_a_hash_of_a_file_replaced_at_its_path_never_claims_its_place(env: Env) -> None:
    """No hash recorded, and a provider that names documents by path: nothing tells the new file from the one
    cited. It opens the file (what a note's link is for), at no place, and says why."""
    from mnote_kr.viewer import web

    cid = _issued(env, NOTES_REL)
    assert citecache.find(env.host, cid).locator.locator_precision == "paragraph"  # type: ignore[union-attr]
    _logged_without_a_hash(env, cid)
    host = env.new_host()
    (env.ws / NOTES_REL).write_text("# Another file\n\nSomething else now stands at this path.\n", encoding="utf-8")
    name = host.registry().entries[NOTES_REL].light_rag_file_path
    with host.store.transaction() as reg:  # re-indexed under the same document id
        reg.put(_entry(env.ws, NOTES_REL, name))

    plan = host.open(cid)

    assert plan.resource_root_relative_path == NOTES_REL
    assert plan.locator.locator_precision == "file" and plan.locator.locator_degraded
    assert plan.locator.paragraph_index is None and "precision=file" in plan.citation_url
    assert plan.note is not None and plan.note.startswith("the place could not be verified")
    assert "search again" in plan.note
    assert web._source(host, cid.strip("[]")).citation.locator.locator_precision == "file"  # type: ignore[union-attr]


def test_a_citation_with_its_hash_still_opens_at_its_place(env: Env) -> None:
    cid = _issued(env, NOTES_REL)
    citecache._memory.clear()  # from the store, with the file's hash then
    plan = env.new_host().open(cid)
    assert plan.locator.locator_precision == "paragraph" and plan.note is None
