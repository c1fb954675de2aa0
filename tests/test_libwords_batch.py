"""What keeping the library's word counts (``caches.libwords``) writes: each file's own words as it is prepared (so
an update costs one file, whatever the library's size), the counts once per batch (and every few files or seconds
of a long one), and counts left behind by a process killed between the two are made right by the next update."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.app.host import Host
from mnote_kr.citations.caches import libwords
from mnote_kr.core import atomic
from mnote_kr.sync.reconcile import reconcile_and_apply

#: Words no two files share, one line per file: ``file_text(i)``.
WORDS = ["apple", "harbour", "violin", "glacier", "lantern", "meadow", "copper", "thunder", "orchid", "saddle"]


def file_text(i: int) -> str:
    return f"The {WORDS[i % len(WORDS)]} report number {i}.\n"


def library(root: Path, files: int) -> Host:
    for i in range(files):
        write(root / "kb" / f"f{i:03d}.md", file_text(i))
    host, _ = fake_host(root, FakeProvider(suffixes=frozenset({".md"}), delete_status="delete_completed"))
    host.roots_add("kb")
    return host


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    libwords._updating.clear()
    libwords._memo.clear()
    yield tmp_path
    libwords._updating.clear()
    libwords._memo.clear()


def writes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, int]]:
    """Each whole-file write of the word counts' files from now on: (path, bytes)."""
    got: list[tuple[Path, int]] = []
    real = atomic.write_atomic

    def counting(path: Path | str, data: str | bytes, **kw: bool) -> None:
        if Path(path).name.startswith("libwords") or Path(path).parent.name == "libwords":
            got.append((Path(path), len(data)))
        real(path, data, **kw)

    monkeypatch.setattr(atomic, "write_atomic", counting)
    return got


@pytest.mark.parametrize("files", [2, 40])
def test_changing_one_file_writes_its_own_words_whatever_the_library_s_size(
        home: Path, monkeypatch: pytest.MonkeyPatch, files: int) -> None:
    host = library(home / f"ws{files}", files)
    host.ingest(["kb"])
    before = digest_tree(host.root / "kb")
    seen = writes(monkeypatch)
    write(host.root / "kb" / "f001.md", "A glacier table of cricket scores.\n")
    reconcile_and_apply(host)
    per_file = [n for p, n in seen if p.name != libwords.FILE_NAME]
    # the changed file's words, one write of their size: "a", "glacier", "table", "cricket", "score" and the framing
    assert len(per_file) == 1 and per_file[0] < 120, seen
    assert [p.name for p, _ in seen].count(libwords.FILE_NAME) == 1
    lib = libwords.load(host.workspace.index_dir)
    harbours = sum(1 for i in range(files) if i % len(WORDS) == 1 and i != 1)  # f001's left
    assert lib is not None and lib.files == files and lib.df["cricket"] == 1 and lib.df.get("harbour", 0) == harbours
    assert {k: v for k, v in digest_tree(host.root / "kb").items() if k != "f001.md"} == {
        k: v for k, v in before.items() if k != "f001.md"}


def test_a_preparation_writes_the_counts_once_and_every_few_files_of_a_long_one(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = library(home / "ws", 5)
    monkeypatch.setattr(libwords, "FLUSH_S", 1e9)
    seen = writes(monkeypatch)
    host.ingest(["kb"])
    assert [p.name for p, _ in seen].count(libwords.FILE_NAME) == 1
    assert len([p for p, _ in seen if p.parent.name == "libwords"]) == 5

    for i in range(5):
        write(host.root / "kb" / f"f{i:03d}.md", file_text(i + 5))
    monkeypatch.setattr(libwords, "FLUSH_FILES", 2)
    seen.clear()
    reconcile_and_apply(host)
    assert [p.name for p, _ in seen].count(libwords.FILE_NAME) == 3  # after 2 files, after 4, at the end
    lib = libwords.load(host.workspace.index_dir)
    assert lib is not None and lib.files == 5 and lib.df["report"] == 5 and lib.df["orchid"] == 1
    assert "apple" not in lib.df and not (host.workspace.index_dir / libwords.MARK_NAME).exists()


def test_a_long_batch_writes_the_counts_after_some_seconds_so_a_search_meanwhile_reads_them(home: Path) -> None:
    index = home / "index"
    now = [0.0]
    with libwords.Batch(index, clock=lambda: now[0]) as batch:
        batch.put("kb/a.md", "", ["An apple report."])
        assert libwords.load(index) is None  # not yet
        now[0] += libwords.FLUSH_S
        batch.put("kb/b.md", "", ["A harbour report."])
        lib = libwords.load(index)
        assert lib is not None and lib.files == 2 and lib.df["report"] == 2
        batch.put("kb/c.md", "", ["A violin."])
    lib = libwords.load(index)
    assert lib is not None and lib.files == 3 and lib.df["report"] == 2 and lib.df["violin"] == 1


def new_process() -> None:
    libwords._updating.clear()
    libwords._memo.clear()


def test_counts_left_behind_by_a_process_killed_before_writing_them_are_made_right_by_the_next_update(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = library(home / "ws", 3)
    host.ingest(["kb"])
    index = host.workspace.index_dir
    real = atomic.write_atomic

    def killed(path: Path | str, data: str | bytes, **kw: bool) -> None:
        if Path(path).name == libwords.FILE_NAME:
            raise KeyboardInterrupt  # the process stopped after the file's words were written, before the counts
        real(path, data, **kw)

    monkeypatch.setattr(atomic, "write_atomic", killed)
    with pytest.raises(KeyboardInterrupt):  # f000 changed ("apple" out, "table" in), f003 added
        libwords.note(index, {"kb/f000.md": ("", ["A table report."]), "kb/f003.md": ("", ["A glacier table."])})
    monkeypatch.setattr(atomic, "write_atomic", real)
    new_process()
    lib = libwords.load(index)
    assert lib is not None and (lib.files, lib.df.get("apple"), lib.df.get("table")) == (3, 1, None)  # as before

    libwords.forget(index, ["kb/f002.md"])  # the next update, of another file
    new_process()
    lib = libwords.load(index)
    assert lib is not None and lib.files == 3
    assert {w: lib.df.get(w, 0) for w in ("apple", "harbour", "violin", "table", "glacier", "report")} == {
        "apple": 0, "harbour": 1, "violin": 0, "table": 2, "glacier": 1, "report": 2}
    assert not (index / libwords.MARK_NAME).exists()


def test_a_long_batch_killed_after_writing_the_counts_once_is_counted_whole_by_the_next(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = home / "index"
    monkeypatch.setattr(libwords, "FLUSH_FILES", 2)
    batch = libwords.Batch(index, clock=lambda: 0.0)  # never ended: the process is killed during it
    for i in range(3):
        batch.put(f"kb/{i}.md", "", [file_text(i)])
    new_process()
    lib = libwords.load(index)
    assert lib is not None and lib.files == 2 and "violin" not in lib.df  # written after two files
    libwords.note(index, {"kb/3.md": ("", [file_text(3)])})
    lib = libwords.load(index)
    assert lib is not None and lib.files == 4 and lib.df["violin"] == 1 and lib.df["report"] == 4
    assert sorted(os.listdir(index / libwords.WORDS_DIR)) == sorted(
        libwords._words_path(index, f"kb/{i}.md").name for i in range(4))
