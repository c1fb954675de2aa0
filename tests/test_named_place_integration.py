"""Decks and PDFs in one folder, through the real lightrag-server: a question naming a slide or page is
answered by the file whose named place holds its other words, cited exactly there; another file's same-numbered
place that holds none of them is no exact citation (r19: "what was the Q3 value on slide 2" put
docling__powerpoint_sample.pptx's slide 2 bullet list first, exact, above the chart deck's "Q3: 30")."""

from __future__ import annotations

import copy
import hashlib
import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import DEFAULTS

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"
FILES = {"decks/revenue_review.pptx": CORPUS / "pptx" / "docling__pptx_chart.pptx",  # renamed: no name helps
         "decks/docling__powerpoint_sample.pptx": CORPUS / "pptx" / "docling__powerpoint_sample.pptx",
         "decks/docling__powerpoint_comments.pptx": CORPUS / "pptx" / "docling__powerpoint_comments.pptx",
         "pdfs/docling__multi_page.pdf": CORPUS / "pdf" / "docling__multi_page.pdf",
         "pdfs/pypdf__pdflatex-outline.pdf": CORPUS / "pdf" / "pypdf__pdflatex-outline.pdf"}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_file_whose_named_place_holds_the_querys_words_comes_first(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "kb"
    for rel, src in FILES.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, ws / rel)
    before = {rel: _sha(ws / rel) for rel in FILES}
    config = copy.deepcopy(DEFAULTS)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir,
                                        "working_dir": lightrag_engine.working_dir}}
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    host = Host(ws, config=config)
    report = host.ingest(["decks", "pdfs"], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == dict.fromkeys(FILES, "processed"), [
        (i.source_path, i.reason) for i in report.items]

    for query, first, where in (("what was the Q3 value on slide 2", "decks/revenue_review.pptx", "slide"),
                                ("Q3 total on the second slide", "decks/revenue_review.pptx", "slide"),
                                ("which software was popular among legal professionals on page 2",
                                 "pdfs/docling__multi_page.pdf", "page")):
        results = host.search(query).results
        top = results[0]
        assert top.source_root_relative_path == first, [(c.source_root_relative_path, c.diagnostics.score_parts)
                                                        for c in results]
        assert getattr(top.locator, where) == 2 and not top.locator_degraded, top.locator.locator_reason
        # every other file's place on slide/page 2 holds none of the query's words: none is claimed exact there
        exact_elsewhere = [(c.source_root_relative_path, c.locator.locator_reason) for c in results
                           if c.source_root_relative_path != first and getattr(c.locator, where) == 2
                           and not c.locator_degraded]
        assert exact_elsewhere == [], exact_elsewhere
    assert {rel: _sha(ws / rel) for rel in FILES} == before  # never touched
