"""An ``ingest --wait`` whose engine stopped during the wait (nc28c surprise 1): its files were prepared and their
places queued, but the step that embeds them never ran, and the queue ended with the process. Then ``engine
start`` and ``sync`` indexed them, and ``status`` counted every file "placed by words and meaning" while no vector
existed; only a search met them, and ``sync`` then embedded those alone, "since their places changed".

Here: the files an interrupted wait prepared are remembered as not placed by meaning yet; ``status`` counts them
so once LightRAG has indexed them; the next ``sync`` embeds their places (progress lines, nothing sent again)
and says why in true words. The fake embedder is ``test_words_only``'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr import hookimpl
from mnote_kr.citations import pipeline
from mnote_kr.citations.rank import meaning, wordsonly
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.citations.render.synctext import render_sync
from mnote_kr.context import ProviderContext
from mnote_kr.errors import ProviderError
from mnote_kr.models import EntryUpdate, SourceEntry
from mnote_kr.sync.reconcile import reconcile_and_apply
from tests.surfaces import OnePassage
from tests.test_words_only import QUESTION, TOWN, fake_e5  # noqa: F401 (the fake embedder, autouse)

FILES = {"kb/town.md": TOWN,
         "kb/trams.md": "Trams were introduced in the city in 1905.\n\nThe depot stood near the mill.\n"}


class StopsDuringWait(OnePassage):
    """Takes the files (``submitted``); while ``stopped``, every look fails as a stopped engine's does."""

    def __init__(self) -> None:
        super().__init__(ingest_status="submitted", delete_status="delete_completed")
        self.stopped = True

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        if self.stopped:
            raise ProviderError("The managed LightRAG engine was stopped", hint="mnote-kr engine start")
        return super().sync(ctx, entries, wait_s)


def _places_line(host: Any) -> str:
    (line,) = [x for x in render_status(host.status()).splitlines() if x.startswith("Places:")]
    return line


def test_files_an_interrupted_wait_prepared_are_not_counted_placed_by_meaning_and_sync_embeds_them(
        tmp_path: Path, fake_e5: list[list[str]]) -> None:  # noqa: F811
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    for rel, text in FILES.items():
        (ws / rel).write_text(text, encoding="utf-8")
    before = {rel: (ws / rel).read_bytes() for rel in FILES}
    lines: list[str] = []
    provider = StopsDuringWait()
    host, _ = fake_host(ws, provider)
    host.progress = lines.append
    host.roots_add("kb")
    with pytest.raises(ProviderError):
        host.ingest(["kb"], wait=True)
    assert fake_e5 == []  # the step that embeds their places never ran
    meaning._memo.clear()
    meaning._queue.clear()  # a new process: the queue ended with the one that was stopped
    pipeline.clear_memos()

    provider.stopped = False  # 'mnote-kr engine start'; LightRAG indexes them (as a sync's look records)
    host.apply_updates([EntryUpdate(source_root_relative_path=rel, status="processed") for rel in FILES])
    assert _places_line(host).startswith("Places:    2 file(s) citable now, 0 placed by words and meaning, 2 by "
                                         "words only until 'mnote-kr sync' embeds their places"), _places_line(host)
    meant = host.status()["meaning"]
    assert meant["wordsOnly"]["count"] == 2 and meant["wordsOnlyIndexed"] == 2
    assert sorted(f.source_path for f in wordsonly.load(host).files) == sorted(FILES)

    sent = list(provider.ingested)
    lines.clear()
    summary = reconcile_and_apply(host)  # 'mnote-kr sync'
    assert sorted(summary["wordsOnly"]["paths"]) == sorted(FILES) and summary["wordsOnly"]["notYet"] == 2
    assert sorted(map(tuple, fake_e5)) == sorted(tuple(p.strip() for p in t.split("\n\n") if p.strip())
                                                for t in FILES.values())
    assert any(line.startswith("embedding places: ") for line in lines), lines  # with progress
    assert any("not placed by meaning yet" in line for line in lines), lines  # the step says why
    said = render_sync({"reconcile": summary})
    assert "not placed by meaning yet" in said and "since their places changed" not in said, said
    assert provider.ingested == sent  # nothing sent again
    assert _places_line(host) == "Places:    2 file(s) citable now, 2 placed by words and meaning"
    assert wordsonly.load(host).files == []
    pipeline.clear_memos()
    (c, *_) = host.search(QUESTION, top_k=5).results
    assert c.source_root_relative_path == "kb/town.md" and c.locator.meaning_score is not None  # by meaning
    assert {rel: (ws / rel).read_bytes() for rel in FILES} == before


class CutDuringWait(OnePassage):
    """Takes the files (``submitted``); the first look is cut by Ctrl-C, as a person stops ``ingest --wait``."""

    def __init__(self) -> None:
        super().__init__(ingest_status="submitted", delete_status="delete_completed")

    @hookimpl
    def sync(self, ctx: ProviderContext, entries: list[SourceEntry], wait_s: float) -> list[EntryUpdate]:
        raise KeyboardInterrupt


@pytest.mark.parametrize("when", ["wait", "placing"])
def test_an_ingest_cut_by_ctrl_c_in_its_wait_or_its_placing_step_remembers_the_files_it_did_not_embed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    for rel, text in FILES.items():
        (ws / rel).write_text(text, encoding="utf-8")
    if when == "placing":  # LightRAG indexed them; Ctrl-C while their places are embedded
        def cut(files: Any, progress: Any) -> None:
            raise KeyboardInterrupt

        monkeypatch.setattr(meaning, "_embed_files", cut)
    host, _ = fake_host(ws, CutDuringWait() if when == "wait" else OnePassage(delete_status="delete_completed"))
    host.progress = lambda line: None
    host.roots_add("kb")
    with pytest.raises(KeyboardInterrupt):
        host.ingest(["kb"], wait=True)
    assert sorted((f.source_path, f.not_yet) for f in wordsonly.load(host).files) == [(rel, True) for rel in
                                                                                       sorted(FILES)]
