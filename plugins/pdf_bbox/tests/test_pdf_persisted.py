"""What a locate derives from a PDF without the query is kept on disk: the model with
its k-gram indexes, running-header keys and term statistics (filled at ingest by
``prepare_locate``), and each chunk's alignment. A fresh process then only chooses the
answering block with the query's terms.

The rule tested: a located result is the same, field for field (page, bbox, rects, precision,
reason, score), whether nothing is cached, the model comes from disk, or the alignment does too;
a torn entry is rebuilt, never trusted; an edited file is read again; the source is never written.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit import pdf_cases as C
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import align, clear_cache, locate, model, prepare_locate

PDF = CORPUS / "pdf"
#: long documents (where the cache matters), a two-column paper, right-to-left text, a rotated page
CHUNKED = ["pdfplumber__federal-register-2020-17221.pdf", "pdfjs__tracemonkey.pdf", "docling__right_to_left_01.pdf",
           "pdfplumber__nics-background-checks-2015-11-rotated.pdf", "unstructured__multi-column-2p.pdf"]


def _chunk_requests() -> list[tuple[str, str, str]]:
    """Chunk-sized evidence as pypdf reads a page (LightRAG's own PDF reading), with a phrase
    and a question made of the page's words: (file, evidence, query)."""
    return C.page_requests(PDF, CHUNKED, parts=3, question_window=False)


def _requests() -> list[tuple[str, str, str]]:
    cases = [(Path(c.file).name, c.evidence, c.query) for c in C.pypdf_cases(CORPUS, per_doc=1)]
    return _chunk_requests() + cases


def _located(requests: list[tuple[str, str, str]], folder: Path) -> list[dict]:
    return [msgspec.to_builtins(locate(LocateRequest(file=str(folder / name), evidence=ev, query=q)))
            for name, ev, q in requests]


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


@pytest.fixture(scope="module")
def requests() -> list[tuple[str, str, str]]:
    return _requests()


@pytest.fixture
def docs(tmp_path: Path, requests: list[tuple[str, str, str]]) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in {n for n, _, _ in requests}:
        shutil.copyfile(PDF / name, folder / name)
    return folder


def test_located_results_are_identical_uncached_from_disk_and_with_stored_alignments(
    docs: Path, requests: list[tuple[str, str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _digests(docs)
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    clear_cache()
    uncached = _located(requests, docs)
    monkeypatch.delenv("MNOTE_KR_LOCATE_CACHE")
    assert sum(1 for loc in uncached if loc["locatorPrecision"] == "bbox") >= len(requests) * 0.8

    for name in {n for n, _, _ in requests}:
        assert prepare_locate(str(docs / name)) is True  # what ingest does
    clear_cache()  # a new process: models from disk, alignments computed and stored
    parses = model._cache.stats["parses"]
    store = align.alignments()
    hits, writes = store.stats["hits"], store.stats["writes"]
    from_disk = _located(requests, docs)
    assert model._cache.stats["parses"] == parses  # nothing re-read with PDFium
    assert store.stats["writes"] > writes

    clear_cache()  # another new process: alignments read back as well
    hits = store.stats["hits"]
    stored = _located(requests, docs)
    assert store.stats["hits"] - hits >= len({(n, e) for n, e, _ in requests})

    for i, (a, b, c) in enumerate(zip(uncached, from_disk, stored, strict=True)):
        assert a == b == c, requests[i][0]
    assert _digests(docs) == before  # the user's files are never written


@pytest.mark.parametrize("damage", ["model", "alignments"])
def test_torn_entries_are_rebuilt_and_give_the_same_locations(
    docs: Path, requests: list[tuple[str, str, str]], damage: str
) -> None:
    sample = [r for r in requests if r[0] == CHUNKED[4]][:4]
    assert sample
    clear_cache()
    expected = _located(sample, docs)
    cache = Path(os.environ["MNOTE_KR_HOME"]) / "cache" / "locate"
    folder, pattern = (cache / "pdf", "e-*") if damage == "model" else (cache / "pdf-align", "k-*")
    entries = sorted(folder.glob(pattern))
    assert entries
    for entry in entries:
        blob = entry.read_bytes()
        entry.write_bytes(blob[: len(blob) // 2])  # a write cut short by a crash
    clear_cache()
    rejected = (model._cache.disk.stats if damage == "model" else align.alignments().stats)["rejected"]  # type: ignore[union-attr]
    assert _located(sample, docs) == expected
    after = (model._cache.disk.stats if damage == "model" else align.alignments().stats)["rejected"]  # type: ignore[union-attr]
    assert after > rejected
    clear_cache()
    assert _located(sample, docs) == expected  # and the rebuilt entries serve again
    for entry in entries:
        assert entry.exists() and entry.stat().st_size > 0


def test_an_edited_file_is_located_in_its_new_text(docs: Path, requests: list[tuple[str, str, str]]) -> None:
    target = docs / "doc.pdf"
    shutil.copyfile(PDF / CHUNKED[0], target)
    first_ev = next(ev for name, ev, _ in requests if name == CHUNKED[0])
    clear_cache()
    old = _located([(target.name, first_ev, "")], docs)[0]
    assert old["locatorPrecision"] == "bbox"
    shutil.copyfile(PDF / CHUNKED[1], target)  # the same path, another document
    os.utime(target, ns=(target.stat().st_atime_ns, target.stat().st_mtime_ns + 10**9))
    clear_cache()
    new = _located([(target.name, first_ev, "")], docs)[0]
    assert new["locatorPrecision"] == "file"  # the old document's chunk is not in the new one


def test_a_fresh_process_locates_from_disk_without_pdfium(docs: Path, requests: list[tuple[str, str, str]]) -> None:
    sample = [r for r in requests if r[0] in (CHUNKED[0], CHUNKED[4])][:6]
    for name in {n for n, _, _ in sample}:
        prepare_locate(str(docs / name))
    clear_cache()
    expected = _located(sample, docs)
    code = (
        "import json, sys, msgspec\n"
        "from mnote_kr.models import LocateRequest\n"
        "from mnote_kr_pdf_bbox import locate\n"
        "reqs = json.loads(sys.stdin.read())\n"
        "out = [msgspec.to_builtins(locate(LocateRequest(file=f, evidence=e, query=q))) for f, e, q in reqs]\n"
        "print(json.dumps({'pdfium': 'pypdfium2' in sys.modules, 'locs': out}))\n"
    )
    payload = json.dumps([[str(docs / n), e, q] for n, e, q in sample])
    proc = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, text=True,
                          env=os.environ.copy(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["pdfium"] is False
    assert got["locs"] == json.loads(json.dumps(expected))
