"""A PDF model read from disk unpickles its pages one by one, at first use.

The rule tested: locating with the stored pages gives the same locator, field for field, as
locating with every page in memory (the model as it was read with PDFium, and as the old
layout unpickled it), on real corpus files; a locate reads only some pages of a long
document; the stored pages behave as the list they replace.
"""

from __future__ import annotations

import dataclasses
import shutil
from array import array
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit import pdf_cases as C
from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import clear_cache, locator, model, prepare_locate
from mnote_kr_pdf_bbox.pdftext import read_document

PDF = CORPUS / "pdf"
FILES = ["pdfjs__tracemonkey.pdf", "pdfplumber__federal-register-2020-17221.pdf", "unstructured__multi-column-2p.pdf",
         "docling__right_to_left_01.pdf", "pdfplumber__nics-background-checks-2015-11-rotated.pdf",
         "chatchat__1.pdf", "weknora__WeKnora.pdf", "mineru__scanned.pdf"]


@pytest.fixture(scope="module")
def cases() -> list[tuple[str, str, str]]:
    """(file name, evidence, query): chunk-sized evidence as pypdf (LightRAG's reader) gives a
    page, a shorter window of it, with a phrase and a question of the page's words; and the
    corpus's labelled pypdf passages of these files."""
    out = C.page_requests(PDF, FILES, parts=4, question_window=True)
    out += [(Path(c.file).name, c.evidence, c.query) for c in C.pypdf_cases(CORPUS, per_doc=4)
            if Path(c.file).name in FILES]
    assert len({c[0] for c in out}) >= 6
    return out


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in FILES:
        shutil.copyfile(PDF / name, folder / name)
    return folder


def _located(cases: list[tuple[str, str, str]], folder: Path) -> list[dict]:
    return [msgspec.to_builtins(locator.locate_pdf(LocateRequest(file=str(folder / n), evidence=e, query=q)))
            for n, e, q in cases]


def test_locating_with_stored_pages_equals_locating_with_every_page_in_memory(
    docs: Path, cases: list[tuple[str, str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in FILES:
        prepare_locate(str(docs / name))  # what ingest does
    clear_cache()
    stored = _located(cases, docs)
    doc = model.load_document(docs / FILES[0])
    assert isinstance(doc.pages, model.StoredPages)  # the new layout was exercised

    # The same documents with a plain list of pages: every page unpickled up front.
    load = model.load_document

    def eager(path: str | Path) -> object:
        d = load(path)
        return dataclasses.replace(d, pages=list(d.pages))

    monkeypatch.setattr(locator, "load_document", eager)
    clear_cache()
    assert _located(cases, docs) == stored

    # And the model read afresh with PDFium, without any cache.
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")
    clear_cache()
    assert _located(cases, docs) == stored
    assert sum(1 for loc in stored if loc["locatorPrecision"] == "bbox") >= len(cases) * 0.7


def test_a_locate_unpickles_only_the_pages_it_reads(docs: Path, cases: list[tuple[str, str, str]]) -> None:
    name = FILES[0]  # 14 pages
    prepare_locate(str(docs / name))
    clear_cache()
    one = next(c for c in cases if c[0] == name)
    loc = locator.locate_pdf(LocateRequest(file=str(docs / name), evidence=one[1], query=one[2]))
    assert loc.locator_precision == "bbox"
    pages = model.load_document(docs / name).pages
    assert isinstance(pages, model.StoredPages)
    loaded = [i for i, p in enumerate(pages._pages) if p is not None]
    assert loc.page is not None and loc.page - 1 in loaded
    assert len(loaded) <= 4 < len(pages)  # the passage's page, its neighbours' furniture, the first page


def test_stored_pages_behave_as_the_list_they_replace() -> None:
    pages = read_document(str(PDF / "unstructured__multi-column-2p.pdf")).pages
    stored = model.StoredPages.of(pages)
    import pickle

    back = pickle.loads(pickle.dumps(stored))  # noqa: S301 - our own bytes
    # stored as the old layout stored them: the per-character maps as arrays
    pages = [dataclasses.replace(pg, line_of=array("i", pg.line_of), block_of=array("i", pg.block_of)) for pg in pages]
    assert len(back) == len(pages) == 2
    assert back == pages and pages == back  # equality either way, page by page
    assert back[-1] == pages[-1] and back[0:1] == [pages[0]] and back[::-1] == pages[::-1]
    assert [p.number for p in back] == [1, 2]
    assert back[1] is back[1]  # unpickled once
    with pytest.raises(IndexError):
        back[2]
    other = model.StoredPages.of(pages[:1])
    assert back != other
