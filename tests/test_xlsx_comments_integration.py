"""A workbook's cell comments through the real lightrag-server: LightRAG 1.5.7's XLSX parser never reads
a comment, so the newcomer's "Minimum number of saltwater ducks" (a comment on docling's commented
workbook) found another place. A workbook holding comments is sent as the text mnote-kr reads in it, and
the comment's words cite its cell first, in the comment's own words; a workbook without comments beside
it is linked as before. The workbooks stay as they were."""

from __future__ import annotations

import hashlib
import shutil
import uuid
from pathlib import Path

import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config

pytestmark = pytest.mark.integration

CORPUS = Path(__file__).resolve().parent / "data" / "corpus" / "xlsx"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_comments_words_cite_the_commented_cell_first(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = f"birds-{uuid.uuid4().hex[:8]}"  # the session engine keeps other tests' documents
    ws = tmp_path / "kb"
    commented, titled = f"{folder}/docling__xlsx_comments.xlsx", f"{folder}/docling__xlsx_05_table_with_title.xlsx"
    (ws / folder).mkdir(parents=True)
    for rel in (commented, titled):
        shutil.copyfile(CORPUS / Path(rel).name, ws / rel)
    digests = {rel: _sha(ws / rel) for rel in (commented, titled)}
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir}}
    host = Host(ws, config=config)

    report = host.ingest([folder], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == {commented: "processed", titled: "processed"}, \
        [(i.source_path, i.reason) for i in report.items]
    entries = host.registry().entries
    assert entries[commented].kind == "text_fallback" and (entries[commented].light_rag_file_path or "").endswith(
        ".xlsx.md")
    assert "LightRAG's parser leaves out cell comments (4 cell(s) on 1 sheet(s));" in (entries[commented].last_error
                                                                                       or "")
    assert entries[titled].kind == "document" and (entries[titled].light_rag_file_path or "").endswith(".xlsx")

    results = host.search("Minimum number of saltwater ducks", top_k=10).results
    assert results, "nothing found"
    first = results[0]
    assert first.source_root_relative_path == commented, [(c.source_root_relative_path, c.display_quote[:60])
                                                          for c in results]
    loc = first.locator
    assert (first.locator_precision, loc.locator_degraded, loc.sheet, loc.range) == ("cell", False, "Sheet1", "F7")
    assert first.display_quote == "Minimum number of saltwater ducks"  # the comment's words, no line marks
    assert "the comment on Sheet1!F7 (Jane Smith (JS))" in (loc.locator_reason or "")
    assert "precision=cell&" in first.citation_url and first.citation_url.endswith("&sheet=Sheet1&range=F7")
    assert {rel: _sha(ws / rel) for rel in digests} == digests
