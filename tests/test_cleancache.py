"""Cleaned chunks on disk (speed from a cold start, docs/cold-start.md): a fresh process reads a cited
chunk's query-independent cleaning from ``<cache>/locate/clean`` and gives the same citation
text as a process that cleaned it; a torn, foreign or outdated entry is a miss, rebuilt."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.citations.caches import cleancache
from mnote_kr.citations.cleaning import clean_citation_text, prepare_chunk
from mnote_kr.core.config import load_config
from mnote_kr.plugins import load_plugins

# Chunks that exercise each query-independent step and the query-dependent ones on top.
CHUNKS = [
    ("## Results 结果\nThe energy formula is <equation>E=m{c}^{2}</equation> for a body at rest.", "energy formula"),
    ('<table id="tb-1" format="json">[["Cell", "mAh"], ["A1", "3200"]]</table> capacity of cell A1', "cell A1"),
    ("Pressure con-\ntrol valves were replaced by the ﬁeld team.\n⽚ ⾄ 用", "control valves"),
    ("x <equation>E=mc^2</equation> y", "E=mc^2"),  # cleaning loses the query: it is kept
    ("三乙基硅 保护基在酸性条件下脱去，产物经柱层析纯化。" * 20, "三乙基硅 保护"),
    ("Alpha beta gamma. " * 80 + "The typewriter was patented in 1868.", "when was the typewriter patented"),
    # found through the stored fold: the query is not verbatim in the chunk
    ("核电厂的定期安全审查报告 Ｆｕｌｌｗｉｄｔｈ ÉTUDE of the reactor. " * 10, "定期 审查 étude"),
    ("", "anything"),
]
BLOCK = "The energy formula is E=mc^2 for a body at rest. Nothing else is in this block."


def _bundles(plugins: object) -> list[dict[str, object]]:
    out = []
    for raw, query in CHUNKS:
        for block in (None, BLOCK):
            out.append(msgspec.to_builtins(plugins.clean_text(raw, query, block)))  # type: ignore[attr-defined]
    return out


def _entries() -> list[Path]:
    folder = cleancache.folder()
    return sorted(folder.glob("c-*")) if folder.is_dir() else []


def test_a_stored_chunk_cleans_to_exactly_what_cleaning_it_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    plugins = load_plugins(load_config(None))
    first = _bundles(plugins)  # computes and stores
    assert len(_entries()) == len({raw for raw, _ in CHUNKS})
    expected = [msgspec.to_builtins(clean_citation_text(raw, q, b)) for raw, q in CHUNKS for b in (None, BLOCK)]
    assert first == expected

    def no_cleaning(raw: str, **_: object) -> object:
        raise AssertionError("cleaned again although the disk held it")

    monkeypatch.setattr(cleancache, "prepare_chunk", no_cleaning)
    assert _bundles(plugins) == expected  # every chunk read from disk, the query's part done anew


_CHILD = textwrap.dedent("""
    import json, sys, msgspec
    from mnote_kr.citations.caches import cleancache
    from mnote_kr.core.config import load_config
    from mnote_kr.plugins import load_plugins
    if sys.argv[1] == "read-only":
        def refuse(raw, **_):
            raise SystemExit("cleaned again although the disk held it")
        cleancache.prepare_chunk = refuse
    chunks = json.loads(sys.argv[2])
    plugins = load_plugins(load_config(None))
    print(json.dumps([msgspec.to_builtins(plugins.clean_text(r, q, None)) for r, q in chunks]))
""")


def test_a_fresh_process_reads_what_an_earlier_one_cleaned() -> None:
    chunks = json.dumps([[raw, q] for raw, q in CHUNKS])
    runs = [subprocess.run([sys.executable, "-c", _CHILD, mode, chunks], capture_output=True, text=True,
                           env=os.environ.copy(), timeout=120) for mode in ("fill", "read-only")]
    assert [r.returncode for r in runs] == [0, 0], runs[1].stderr[-500:]
    cold, warm = (json.loads(r.stdout) for r in runs)
    assert cold == warm == [msgspec.to_builtins(clean_citation_text(r, q)) for r, q in CHUNKS]


def _path(raw: str) -> Path:
    return cleancache.folder() / ("c-" + cleancache._key(raw).hex())


def test_a_torn_or_foreign_entry_is_ignored_and_rebuilt() -> None:
    (raw_a, _), (raw_b, _) = CHUNKS[0], CHUNKS[1]
    cleancache.prepared(raw_a)
    cleancache.prepared(raw_b)
    path_a, path_b = _path(raw_a), _path(raw_b)
    assert cleancache.get(raw_a) == prepare_chunk(raw_a, fold=True)
    assert cleancache.get(raw_b) == prepare_chunk(raw_b, fold=True)

    entry = {p: p.read_bytes() for p in (path_a, path_b)}
    for p in (path_a, path_b):
        p.write_bytes(entry[p][: len(entry[p]) // 2])  # torn: cut mid-write
    assert cleancache.get(raw_a) is None and cleancache.get(raw_b) is None
    assert cleancache.prepared(raw_a) == prepare_chunk(raw_a, fold=True)  # rebuilt ...
    assert cleancache.prepared(raw_b) == prepare_chunk(raw_b, fold=True)
    assert {p: p.read_bytes() for p in (path_a, path_b)} == entry  # ... and written whole again

    path_a.write_bytes(entry[path_b])  # another chunk's entry in this one's place
    path_b.write_bytes(os.urandom(len(entry[path_b])))  # not ours at all
    assert cleancache.get(raw_a) is None and cleancache.get(raw_b) is None

    # A body that passes the digest but is not a ChunkPrep (another format) is a miss too.
    key = cleancache._key(raw_a)
    body = b'{"display": "not this shape"}'
    (cleancache.folder() / ("c-" + key.hex())).write_bytes(cleancache._digest(key, body) + body)
    assert cleancache.get(raw_a) is None
    assert cleancache.prepared(raw_a) == prepare_chunk(raw_a, fold=True) == cleancache.get(raw_a)


def test_a_changed_cleaner_misses_every_old_entry(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    module = tmp_path / "latex.py"  # stands for one of the cleaning modules
    module.write_text("X = 1\n")
    real = cleancache._code_modules()
    monkeypatch.setattr(cleancache, "_code_modules", lambda: [*real, str(module)])
    cleancache.clear_stamp()
    raw = CHUNKS[0][0]
    cleancache.prepared(raw)
    assert cleancache.get(raw) is not None
    module.write_text("X = 2  # the cleaner changed\n")
    cleancache.clear_stamp()  # a new process computes the stamp anew
    assert cleancache.get(raw) is None
    cleancache.prepared(raw)
    assert cleancache.get(raw) is not None and len(_entries()) == 2  # the old one ages out by trimming
    monkeypatch.setattr(cleancache, "FORMAT", b"clean-test-next")  # an explicit format bump
    cleancache.clear_stamp()
    assert cleancache.get(raw) is None
    cleancache.clear_stamp()


def test_the_folder_stays_bounded_and_keeps_the_recently_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cleancache, "_TRIM_EVERY", 1)  # trim after every write
    limit = 40_000
    monkeypatch.setattr(cleancache, "MAX_BYTES", limit)
    raws = [f"Chunk {i}: " + "the quick brown fox jumps over the lazy dog. " * 20 for i in range(120)]
    for i, raw in enumerate(raws):
        cleancache.prepared(raw)
        assert cleancache.get(raws[0]) is not None, i  # read after every write: never the least recent
        total = sum(p.stat().st_size for p in _entries())
        assert total <= limit, (i, total)
    assert cleancache.get(raws[-1]) is not None  # the newest survived
    assert len(_entries()) < len(raws)


def test_off_with_the_locate_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    raw = CHUNKS[0][0]
    assert cleancache.prepared(raw) == prepare_chunk(raw, fold=False)  # nothing stored: no fold paid for later
    assert cleancache.get(raw) is None and not _entries()


_WRITER = textwrap.dedent("""
    import sys
    from mnote_kr.citations.caches import cleancache
    cleancache.MAX_BYTES = 60_000
    cleancache._TRIM_EVERY = 3
    n = int(sys.argv[1])
    for i in range(200):
        raw = f"Shared chunk {(i * 7 + n) % 50}: " + "words of a cited passage. " * 30
        cleancache.prepared(raw)
""")


def test_concurrent_writers_never_leave_a_wrong_or_torn_entry() -> None:
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(n)], env=os.environ.copy(),
                              stderr=subprocess.PIPE, text=True) for n in range(4)]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, errors
    raws = [f"Shared chunk {k}: " + "words of a cited passage. " * 30 for k in range(50)]
    found = 0
    for raw in raws:
        got = cleancache.get(raw)
        if got is not None:
            found += 1
            assert got == prepare_chunk(raw, fold=True)
    assert found > 0
    folder = cleancache.folder()
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]  # every rename completed
    # Every file present is a whole entry of one of the chunks: none torn, none mixed.
    names = {"c-" + cleancache._key(r).hex() for r in raws}
    assert {p.name for p in _entries()} <= names
    assert sum(p.stat().st_size for p in _entries()) <= 60_000 + 4 * 3 * 2_000  # the bound, plus writes in flight


@pytest.mark.integration
def test_cold_processes_cite_exactly_as_a_warm_one(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_HOME", str(Path(lightrag_engine.working_dir).parents[2]))
    monkeypatch.delenv("MNOTE_KR_LOCATE_CACHE", raising=False)
    root = tmp_path / "kb"
    root.mkdir()
    doc = root / "equations.docx"
    doc.write_bytes((CORPUS / "docx" / "docling__equations.docx").read_bytes())
    before = doc.read_bytes()
    host = Host(root)
    assert [i.status for i in host.ingest(["."], wait=True, wait_s=180).items] == ["processed"]
    query = "equation"

    def seen(citations: list[dict[str, object]]) -> list[tuple[object, ...]]:
        return [(c["citationId"], c["displayQuote"], c["locatorEvidenceText"], c["citationUrl"]) for c in citations]

    host.search(query)
    warm = seen(msgspec.to_builtins(host.search(query).results))  # the second: from this process's memo
    assert warm
    shutil.rmtree(cleancache.folder())  # so the first fresh process cleans, and the second reads
    cold = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-m", "mnote_kr", "--workspace", str(root), "search", query, "--json"],
                              env=os.environ.copy(), capture_output=True, text=True, timeout=180)
        assert proc.returncode == 0, proc.stderr[-500:]
        cold.append(seen(json.loads(proc.stdout)["results"]))
        assert _entries()  # the cited chunks' cleaning is on disk after the first
    assert cold[0] == cold[1] == warm
    assert doc.read_bytes() == before
