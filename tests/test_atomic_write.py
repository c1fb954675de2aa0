"""The one whole-file write every cache, record and plugin state file goes through (``core/atomic.py``)."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from mnote_kr.core import atomic


def test_a_write_replaces_the_whole_file_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old", encoding="utf-8")
    atomic.write_atomic(target, "ně" * 100_000)
    assert target.read_text(encoding="utf-8") == "ně" * 100_000
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_private_files_are_readable_by_the_user_only_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        atomic.write_private(tmp_path / "token", "secret\n")
        atomic.write_atomic(tmp_path / "cache", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "token").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "cache").stat().st_mode) == 0o666  # a plain file: the umask decides


def test_a_failed_write_keeps_the_old_content_and_removes_its_temporary_file(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "answers"
    target.write_bytes(b"old")

    def full_disk(fd: int, data: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "write", full_disk)
    with pytest.raises(OSError, match="No space"):
        atomic.write_atomic(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["answers"]


def test_the_temporary_file_takes_the_folders_prefix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    real = os.replace

    def spy(src: str, dst: object) -> None:
        seen.append(os.path.basename(src))
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(atomic.os, "replace", spy)
    atomic.write_atomic(tmp_path / "e-1", b"x", tmp_prefix=".tmp-")
    atomic.write_atomic(tmp_path / "e-2", b"x")
    assert seen[0].startswith(".tmp-") and seen[1].startswith(".e-2.")


def test_threads_writing_one_file_never_lose_a_write_to_each_others_temporary_file(tmp_path: Path) -> None:
    """Two threads of one process once shared a temporary name (``.<name>.<pid>.tmp``): one thread's
    rename could take the other's half-written file, or find its own gone."""
    target = tmp_path / "known.json"
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def writer(n: int) -> None:
        start.wait()
        try:
            for _ in range(200):
                atomic.write_private(target, str(n) * 4096)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    body = target.read_text(encoding="utf-8")
    assert len(body) == 4096 and len(set(body)) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["known.json"]
