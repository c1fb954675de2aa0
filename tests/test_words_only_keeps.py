"""What the words-only record (``wordsonly``) keeps, and what it lets go (review30 findings 2, 6 and 12).

* An ingest's placeholders (``sending``: files sent, their places key not known yet) never push other files out of
  the record: its bound is for what searches met, and every file an ingest left unembedded is a file of the library.
* ``audit`` (the once-per-workspace repair) marks itself done only in the write that records what it found, keeps
  every file it found, says it is checking, and leaves the places other threads queued meanwhile in the queue.
* An ingest that embedded a file's places leaves no older record of that file behind for the next ``sync`` to
  prepare again and report as "embedded".

The fake embedder and the one-note workspace are ``test_words_only``'s."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mnote_kr.citations.rank import meaning, wordsonly
from mnote_kr.citations.render.synctext import render_sync
from mnote_kr.sync.reconcile import reconcile_and_apply
from tests.test_words_only import (
    QUESTION,
    REL,
    _host,
    _lose_vectors,
    _placed,
    _recorded,
    fake_e5,  # noqa: F401 (the fake embedder, autouse)
)

TRAMS = "kb/trams.md"


def _search_records(host: Any, rels: list[str]) -> None:
    """What searches leave: each file met without vectors for its places."""
    for rel in rels:
        wordsonly.located(host, rel, meaning.cosines, meaning.places_key([rel]), QUESTION, [0])


def test_an_ingests_placeholders_push_no_other_file_out_of_the_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """review30 finding 2: with the bound at 5, a ``--wait`` ingest of 5 files wrote its 5 placeholders over the 3
    files searches had recorded, and once it ended they were gone: never embedded by any sync."""
    host, _, _, _ = _host(tmp_path, embed=False)
    monkeypatch.setattr(wordsonly, "MAX_FILES", 5)
    old = [f"kb/old{n}.md" for n in range(3)]
    _search_records(host, old)
    sent = [f"kb/new{n}.md" for n in range(5)]
    wordsonly.sending(host, sent)
    assert _recorded(host) == [*old, *sent]  # during the wait: a kill -9 here loses none of them
    wordsonly.unembedded(host, {}, sent)  # the ingest ended: each embedded, or nothing to embed
    assert _recorded(host) == old
    _search_records(host, [f"kb/later{n}.md" for n in range(4)])  # what searches record stays bounded
    assert _recorded(host) == ["kb/old2.md", *(f"kb/later{n}.md" for n in range(4))]


def _two_files_never_embedded(tmp_path: Path) -> Any:
    """A home an older version left: two indexed files, no vectors for their places, no record."""
    host, _, ws, _ = _host(tmp_path, embed=False)
    (ws / TRAMS).write_text("Trams were introduced in the city in 1905.\n\nThe depot stood near the mill.\n",
                            encoding="utf-8")
    host.ingest([TRAMS], wait=True, embed=False)
    wordsonly.record_path(host).unlink()
    meaning._queue.clear()
    return host


def test_audit_keeps_every_file_it_finds_and_says_it_is_checking(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = _two_files_never_embedded(tmp_path)
    monkeypatch.setattr(wordsonly, "MAX_FILES", 1)  # (the record's bound: not for files an ingest left unembedded)
    lines: list[str] = []
    assert wordsonly.audit(host, host.plugins.prepare_locate, lines.append) == 2
    assert sorted(_recorded(host)) == [REL, TRAMS] and wordsonly.load(host).audited == wordsonly.AUDIT_VERSION
    assert [line for line in lines if line.startswith("checking 2 indexed file(s)")], lines
    assert all(f.not_yet for f in wordsonly.load(host).files)


def test_audit_is_not_marked_done_when_its_record_could_not_be_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """review30 finding 6: the files found were lost to a lock held too long (another process's), the next write
    marked the audit done, and no sync ever looked again."""
    host = _two_files_never_embedded(tmp_path)
    real = wordsonly.exclusive
    calls = [0]

    @contextlib.contextmanager
    def held_once(path: str, timeout: float) -> Iterator[None]:
        calls[0] += 1
        if calls[0] == 1:
            raise TimeoutError(f"the lock {path} is held by another process")
        with real(path, timeout):
            yield

    monkeypatch.setattr(wordsonly, "exclusive", held_once)
    wordsonly.audit(host, host.plugins.prepare_locate)
    assert wordsonly.load(host).audited == 0
    monkeypatch.setattr(wordsonly, "exclusive", real)
    assert wordsonly.audit(host, host.plugins.prepare_locate) == 2  # the next sync looks again
    assert sorted(_recorded(host)) == [REL, TRAMS]


def test_audit_leaves_the_places_another_thread_queued_meanwhile(tmp_path: Path) -> None:
    """review30 finding 6: the audit took its own places out of the shared queue by cutting it where it stood when
    it began (``del _queue[before:]``): a place another thread (``serve``, ``watch``) queued meanwhile went too."""
    host = _two_files_never_embedded(tmp_path)
    other = ["A place another thread's ingest queued while the audit prepared a file."]

    def prepare(path: str) -> object:
        beside = threading.Thread(target=meaning.queue, args=(other,))
        beside.start()
        beside.join()
        return host.plugins.prepare_locate(path)

    assert wordsonly.audit(host, prepare) == 2
    assert meaning._queue == [other, other]  # one per file prepared; none of the audit's own places


def test_an_ingest_that_embedded_a_file_leaves_no_older_record_of_it_for_sync(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_e5: list[list[str]]) -> None:  # noqa: F811
    """review30 finding 12: a search (``serve``'s) met the file after LightRAG indexed it and before this ingest
    embedded its places, and recorded it in place of the ingest's placeholder; the ingest then embedded those very
    places but let only placeholders go, so the next sync prepared the file again and said it embedded it."""
    host, _, ws, lines = _host(tmp_path)
    before = (ws / REL).read_bytes()
    _lose_vectors()
    embed = meaning._embed_files

    def searched_first(files: Any, progress: Any) -> None:
        wordsonly._noted.clear()
        _placed(host)  # by words: its places have no vectors yet
        assert _recorded(host) == [REL] and not wordsonly.load(host).files[0].not_yet
        embed(files, progress)

    monkeypatch.setattr(meaning, "_embed_files", searched_first)
    fake_e5.clear()
    host.ingest([REL], wait=True, force=True)
    assert len(fake_e5) == 1 and _recorded(host) == []  # embedded by this ingest, and forgotten
    monkeypatch.setattr(meaning, "_embed_files", embed)
    fake_e5.clear()
    lines.clear()
    summary = reconcile_and_apply(host)
    assert summary["wordsOnly"] == {} and fake_e5 == []
    assert not any("placing by meaning" in line for line in lines), lines
    assert "Embedded the places" not in render_sync({"reconcile": summary})
    assert (ws / REL).read_bytes() == before
