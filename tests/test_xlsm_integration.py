"""A macro-enabled workbook through the real lightrag-server: LightRAG 1.5.7 takes no ``.xlsm``, so a
newcomer's ``ingest . --wait`` skipped docling's sales workbook and a question about one of its cells
("Widget C 在2024年1月7日的收入是多少？") was answered from another workbook. An ``.xlsm`` goes to LightRAG
as the text mnote-kr reads in it (its macros never run nor read), and the question cites its cell first
under the user's own ``.xlsm`` path. Then the newcomer's own questions, the date written otherwise than the
cell's ``2024-01-07 00:00:00`` (once cited as Widget A's row of 2024-01-05 and Widget C's revenue of
2024-01-15): the row of Widget C on 2024-01-07 first (the XLSX locator compares dates as values). The
workbooks stay as they were."""

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


def test_a_question_about_an_xlsm_cell_cites_that_cell_first(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    folder = f"sales-{uuid.uuid4().hex[:8]}"  # the session engine keeps other tests' documents
    ws = tmp_path / "kb"
    sales, other = f"{folder}/docling__xlsx_02_sample_sales_data.xlsm", f"{folder}/docling__xlsx_01.xlsx"
    (ws / folder).mkdir(parents=True)
    for rel in (sales, other):
        shutil.copyfile(CORPUS / Path(rel).name, ws / rel)
    digests = {rel: _sha(ws / rel) for rel in (sales, other)}
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir}}
    host = Host(ws, config=config)

    report = host.ingest([folder], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == {sales: "processed", other: "processed"}, \
        [(i.source_path, i.reason) for i in report.items]
    entry = host.registry().entries[sales]
    assert entry.kind == "text_fallback" and (entry.light_rag_file_path or "").endswith(".xlsm.md"), entry
    assert "LightRAG does not take '.xlsm' files" in (entry.last_error or "")

    results = host.search("Widget C 2024-01-07 的收入是多少？", top_k=10).results
    assert results, "nothing found"
    first = results[0]
    assert first.source_root_relative_path == sales, [(c.source_root_relative_path, c.display_quote[:60])
                                                      for c in results]
    assert first.source_path == str(ws / sales) and first.light_rag_file_path == entry.light_rag_file_path
    loc = first.locator
    assert (first.locator_precision, loc.locator_degraded, loc.sheet) == ("cell", False, "SalesData"), loc
    assert loc.range == "A8:D8", loc  # Widget C | 2024-01-07 | 12 | 15000
    assert "2024-01-07" in first.display_quote and "15000" in first.display_quote, first.display_quote
    assert first.citation_markdown.startswith(r"[docling\_\_xlsx\_02\_sample\_sales\_data.xlsm · SalesData!A8:D8](")
    assert f"path={sales}&precision=cell&" in first.citation_url
    assert host.open(first.citation_id).resource_kind == "office"
    for query, place in (("Widget C 在2024年1月7日的收入是多少？", "A8:D8"),
                         ("What was the revenue of Widget C on 2024-01-07?", "D8")):
        first = host.search(query, top_k=10).results[0]
        assert (first.source_root_relative_path, first.locator.sheet, first.locator.range,
                first.locator.locator_degraded) == (sales, "SalesData", place, False), (query, first.locator)
    assert {rel: _sha(ws / rel) for rel in digests} == digests
