"""A DOCX whose words LightRAG's parser runs together across a break, through the real managed engine: the word
after a page break (LightRAG 1.5.7 reads the break as nothing: "tonnageKittiwake") is found by a search in its own
words and quoted apart from the word before it, cited on its paragraph; the file is never touched."""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path

import pytest
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import DEFAULTS

pytestmark = pytest.mark.integration
NAME = "harbour-report.docx"


def _report(path: Path) -> int:
    """The report, its second paragraph running over a page break; that paragraph's index."""
    b = DocxBuilder()
    b.heading("Harbour report", 1)
    b.para("Quay walls held through the winter storms and the fuel jetty reopened in March.")
    index = b.count
    b.parts.append(b._p(
        '<w:r><w:t xml:space="preserve">Dredging of the outer channel lifted the spring tonnage</w:t>'
        '<w:br w:type="page"/><w:t xml:space="preserve">Kittiwakes nest on the breakwater ledges from May, '
        "so the dredger keeps clear of the north mole until August.</w:t></w:r>"))
    b.para("Pilotage fees rise by four percent next year.")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b.build())
    return index


def test_a_word_after_a_page_break_is_found_and_quoted_apart(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "kb"
    index = _report(ws / "port" / NAME)
    (ws / "port" / "other.md").write_text(
        "# Rail freight\n\nThe container terminal moved its rail freight to night shifts.\n", encoding="utf-8")
    before = hashlib.sha256((ws / "port" / NAME).read_bytes()).hexdigest()
    config = copy.deepcopy(DEFAULTS)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir,
                                        "working_dir": lightrag_engine.working_dir}}
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    host = Host(ws, config=config)
    report = host.ingest(["port"], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == {
        f"port/{NAME}": "processed", "port/other.md": "processed"}, [(i.source_path, i.reason) for i in report.items]
    entry = next(e for e in host.registry().entries.values() if e.source_root_relative_path.endswith(NAME))
    assert (entry.kind, entry.reading) == ("text_fallback", "fallback:4"), entry  # the DOCX reader's text
    assert "page or column breaks (1 paragraph(s))" in (entry.last_error or "")

    found = host.search("Kittiwakes nest on the breakwater ledges")
    first = found.results[0]
    assert (first.source_root_relative_path, first.locator_precision, first.locator.paragraph_index) == (
        f"port/{NAME}", "paragraph", index), (first.source_root_relative_path, first.locator)
    # LightRAG's own reading quoted "the spring tonnageKittiwakes nest on ..."
    assert "the spring tonnage Kittiwakes nest on the breakwater ledges" in first.display_quote, first.display_quote
    assert not found.weak
    assert hashlib.sha256((ws / "port" / NAME).read_bytes()).hexdigest() == before  # never touched
