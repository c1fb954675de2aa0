"""Compiled regex programs on disk (speed from a cold start, docs/cold-start.md): a pattern built from the
stored program is the pattern ``re.compile`` builds, for every deferred pattern of the code
base; a torn, foreign or refused file is a miss that compiles afresh; the cache can be off."""

from __future__ import annotations

import importlib
import os
import pkgutil
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mnote_kr
from mnote_kr.citations.caches import regexcache
from mnote_kr.citations.text.textnorm import CJK_CLASS, _LazyPattern


@pytest.fixture()
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache home and a module that has read nothing yet."""
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MNOTE_KR_REGEX_CACHE", raising=False)
    monkeypatch.setattr(regexcache, "_table", None)
    monkeypatch.setattr(regexcache, "_path", None)
    monkeypatch.setattr(regexcache, "_added", {})
    monkeypatch.setattr(regexcache, "stats", {"hits": 0, "misses": 0})
    return tmp_path / "home"


def _restart() -> None:
    """What a new process sees: the table read again from disk."""
    regexcache._save()
    regexcache._table = None
    regexcache.stats.update(hits=0, misses=0)


def _deferred_patterns() -> list[tuple[str, int]]:
    """Every ``lazy_compile`` pattern of mnote_kr and the bundled plugins (imported to find them)."""
    names = [m.name for m in pkgutil.walk_packages(mnote_kr.__path__, "mnote_kr.")
             if not m.name.startswith(("mnote_kr.server", "mnote_kr.agents", "mnote_kr.__main__"))]
    names += ["mnote_kr_pdf_bbox.layout", "mnote_kr_pdf_bbox.locator", "mnote_kr_lightrag.client.failures"]
    found: set[tuple[str, int]] = set()
    for name in names:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, _LazyPattern):
                found.add(value._args)
    return sorted(found)


def test_every_deferred_pattern_round_trips_to_re_own_program(fresh: Path) -> None:
    patterns = _deferred_patterns()
    assert len(patterns) > 20  # the walk found the code base's patterns, not nothing
    for pattern, flags in patterns:
        regexcache.compile_pattern(pattern, flags)
    assert regexcache.stats == {"hits": 0, "misses": len(patterns)}
    _restart()
    assert list(fresh.glob("cache/regex/re-*.json")), "nothing written at the first process's end"
    for pattern, flags in patterns:
        # Pattern equality compares the pattern, the flags and the compiled code word for word
        assert regexcache.compile_pattern(pattern, flags) == re.compile(pattern, flags), pattern
    assert regexcache.stats == {"hits": len(patterns), "misses": 0}


def test_stored_token_pattern_matches_as_re_does(fresh: Path) -> None:
    pattern = rf"(?P<cjk>[{CJK_CLASS}]+)|(?P<word>[^\W_{CJK_CLASS}]+)"
    regexcache.compile_pattern(pattern)
    _restart()
    stored, own = regexcache.compile_pattern(pattern), re.compile(pattern)
    assert regexcache.stats["hits"] == 1
    rng = random.Random(7)
    alphabet = "ab Zé_-.9 中文かナ한글𠀀\u0301ﬁ\n"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert [(m.span(), m.lastgroup) for m in stored.finditer(text)] == \
            [(m.span(), m.lastgroup) for m in own.finditer(text)]
    assert stored.groupindex == own.groupindex and stored.groups == own.groups


@pytest.mark.parametrize("damage", ["torn", "foreign", "unkeyed", "refused"])
def test_a_bad_file_is_a_miss_and_is_written_again(fresh: Path, damage: str) -> None:
    pattern = r"(?P<word>[^\W_]+)|[。！？]"
    regexcache.compile_pattern(pattern)
    _restart()
    path = next(fresh.glob("cache/regex/re-*.json"))
    blob = path.read_bytes()
    if damage == "torn":
        path.write_bytes(blob[: len(blob) // 2])
    elif damage == "foreign":
        path.write_bytes(b"not a cache file at all")
    else:
        import hashlib
        import json

        table = json.loads(blob[16:])
        if damage == "unkeyed":  # a crafted program (it could crash the engine) without the key
            table[f"0:{pattern}"][1][3] = 0
            body = json.dumps(table).encode()
            path.write_bytes(hashlib.blake2b(body, digest_size=16).digest() + body)
        else:  # a well-formed, keyed file whose program the engine refuses: compiled afresh
            table[f"0:{pattern}"][1] = [999999] * 5
            body = json.dumps(table).encode()
            path.write_bytes(regexcache._mac(body, path) + body)
    assert regexcache.compile_pattern(pattern) == re.compile(pattern)
    assert regexcache.stats == {"hits": 0, "misses": 1}
    _restart()
    assert regexcache.compile_pattern(pattern) == re.compile(pattern)
    assert regexcache.stats == {"hits": 1, "misses": 0}


def test_off_switch_writes_nothing(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_REGEX_CACHE", "0")
    assert regexcache.compile_pattern(r"[\u3040-\u30ff]+") == re.compile(r"[\u3040-\u30ff]+")
    _restart()
    assert not list(fresh.glob("cache/regex/*"))


def test_a_fresh_process_reads_what_the_last_one_stored(tmp_path: Path) -> None:
    env = {**os.environ, "MNOTE_KR_HOME": str(tmp_path / "home")}
    env.pop("MNOTE_KR_REGEX_CACHE", None)
    code = ("from mnote_kr.citations.caches import regexcache; from mnote_kr.citations.text import textnorm\n"
            "textnorm.TOKEN_RE.groups\n"
            "print(regexcache.stats['hits'], regexcache.stats['misses'])\n")
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
            .stdout.split() for _ in range(2)]
    assert runs == [["0", "1"], ["1", "0"]]


def test_the_exit_saves_where_the_process_read(fresh: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The cache dir is fixed at first use: a home changed later (a test's, restored before
    ``atexit``) does not send the table to another user's cache."""
    regexcache.compile_pattern(r"[\u4e00-\u9fff]{2}")
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "elsewhere"))
    regexcache._save()
    assert list(fresh.glob("cache/regex/re-*.json"))
    assert not (tmp_path / "elsewhere").exists()
