"""``kill -9`` of an ``ingest --wait`` during its wait for LightRAG (nc28c; round 28's meaning resume remembered the
prepared files only on a stop, Ctrl-C or an error, in the process's own last steps, which a kill never runs): the
files it sent are recorded as not placed by meaning yet before the wait begins, in one atomic write, so whatever
ends the process, ``status`` counts them by words only and the next ``sync`` embeds their places. An ingest that
ends normally leaves no such record behind. The fake embedder is ``test_words_only``'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr import hookimpl
from mnote_kr.citations import pipeline
from mnote_kr.citations.rank import meaning, wordsonly
from mnote_kr.context import ProviderContext
from mnote_kr.errors import ProviderError
from mnote_kr.models import EntryUpdate, SourceEntry
from mnote_kr.sync.reconcile import reconcile_and_apply
from tests.surfaces import OnePassage
from tests.test_meaning_resume import FILES, _places_line
from tests.test_words_only import fake_e5  # noqa: F401 (the fake embedder, autouse)


class Killed(Exception):
    """Stands for SIGKILL: the process ends here and runs nothing after (its after-steps are switched off)."""


class LooksDuringWait(OnePassage):
    """Takes the files (``submitted``); at each look of the wait, reads the record as a kill now would leave it."""

    def __init__(self, kill: bool) -> None:
        super().__init__(ingest_status="submitted", delete_status="delete_completed")
        self.kill = kill
        self.seen: list[list[tuple[str, bool]]] = []
        self.host: Any = None

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        self.seen.append(sorted((f.source_path, f.not_yet) for f in wordsonly.load(self.host).files))
        if self.kill:
            raise ProviderError("killed")  # (the after-steps that would remember them are off: see the test)
        return super().sync(ctx, entries, wait_s)


def _library(tmp_path: Path, kill: bool) -> tuple[Any, LooksDuringWait]:
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    for rel, text in FILES.items():
        (ws / rel).write_text(text, encoding="utf-8")
    provider = LooksDuringWait(kill)
    host, _ = fake_host(ws, provider)
    provider.host = host
    host.progress = lambda line: None
    host.roots_add("kb")
    return host, provider


def test_the_files_sent_are_recorded_before_the_wait_so_a_kill_loses_none(
        tmp_path: Path, fake_e5: list[list[str]]) -> None:  # noqa: F811
    host, provider = _library(tmp_path, kill=True)
    with pytest.MonkeyPatch.context() as killed:  # a killed process runs none of its after-steps
        killed.setattr(wordsonly, "unembedded", lambda *a, **k: None)
        with pytest.raises(ProviderError):
            host.ingest(["kb"], wait=True)
    assert provider.seen[0] == [(rel, True) for rel in sorted(FILES)]  # on disk before the first look
    meaning._memo.clear()
    meaning._queue.clear()  # a new process
    pipeline.clear_memos()
    provider.kill = False
    host.apply_updates([EntryUpdate(source_root_relative_path=rel, status="processed") for rel in FILES])
    assert _places_line(host).startswith("Places:    2 file(s) citable now, 0 placed by words and meaning, 2 by "
                                         "words only until 'mnote-kr sync' embeds their places"), _places_line(host)
    summary = reconcile_and_apply(host)  # 'mnote-kr sync'
    assert sorted(summary["wordsOnly"]["paths"]) == sorted(FILES) and summary["wordsOnly"]["notYet"] == 2
    assert len(fake_e5) == 2
    assert _places_line(host) == "Places:    2 file(s) citable now, 2 placed by words and meaning"
    assert wordsonly.load(host).files == [] and wordsonly.load(host).settled == []


def test_an_ingest_that_ends_normally_leaves_no_record(tmp_path: Path,
                                                       fake_e5: list[list[str]]) -> None:  # noqa: F811
    host, provider = _library(tmp_path, kill=False)
    host.ingest(["kb"], wait=True)
    assert provider.seen and provider.seen[0] == [(rel, True) for rel in sorted(FILES)]
    assert len(fake_e5) == 2  # embedded by the ingest itself
    record = wordsonly.load(host)
    assert record.files == [] and record.settled == []
    assert _places_line(host) == "Places:    2 file(s) citable now, 2 placed by words and meaning"


def test_an_ingest_without_wait_records_the_files_it_did_not_embed(tmp_path: Path,
                                                                  fake_e5: list[list[str]]) -> None:  # noqa: F811
    host, _ = _library(tmp_path, kill=False)
    host.ingest(["kb"])
    assert fake_e5 == []
    record = wordsonly.load(host)
    assert sorted((f.source_path, f.not_yet, bool(f.key)) for f in record.files) == [
        (rel, True, True) for rel in sorted(FILES)]  # each with the key it queued


def test_sync_repairs_a_home_whose_files_were_never_embedded_and_never_recorded(
        tmp_path: Path, fake_e5: list[list[str]]) -> None:  # noqa: F811
    """A home broken before the record was written ahead of the wait (nc28c's: 'placed by words and meaning' with 0
    vectors stored, no record): the first sync finds those files (each prepared again from its cached model,
    nothing sent) and embeds them; later syncs do not look again."""
    host, provider = _library(tmp_path, kill=True)
    with pytest.MonkeyPatch.context() as old:  # what an older version left: nothing recorded
        old.setattr(wordsonly, "unembedded", lambda *a, **k: None)
        old.setattr(wordsonly, "sending", lambda *a, **k: None)
        with pytest.raises(ProviderError):
            host.ingest(["kb"], wait=True)
    meaning._memo.clear()
    meaning._queue.clear()
    pipeline.clear_memos()
    provider.kill = False
    host.apply_updates([EntryUpdate(source_root_relative_path=rel, status="processed") for rel in FILES])
    assert _places_line(host) == "Places:    2 file(s) citable now, 2 placed by words and meaning"  # the lie
    assert not wordsonly.record_path(host).exists()
    sent = list(provider.ingested)
    lines: list[str] = []
    host.progress = lines.append
    summary = reconcile_and_apply(host)  # 'mnote-kr sync', no --force
    assert sorted(summary["wordsOnly"]["paths"]) == sorted(FILES), summary.get("wordsOnly")
    assert len(fake_e5) == 2 and provider.ingested == sent  # embedded; nothing sent again
    assert any(line.startswith("placing by meaning: 2 file(s) placed by words only") for line in lines), lines
    assert all(meaning.has_vectors(meaning.places_key([p.strip() for p in t.split("\n\n") if p.strip()]))
               for t in FILES.values())
    assert _places_line(host) == "Places:    2 file(s) citable now, 2 placed by words and meaning"
    lines.clear()
    reconcile_and_apply(host)
    assert not any("placing by meaning" in line for line in lines), lines
    assert len(fake_e5) == 2
