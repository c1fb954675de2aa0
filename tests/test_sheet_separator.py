"""LightRAG's sheet separator never reaches a person: LightRAG 1.5.7 writes a workbook's text with a
``==================== Sheet: <title> ====================`` line before each sheet and a bare rule after
the last; the viewer's "the whole passage" of a workbook citation showed those rules raw. The one cleaning
step (``mnote_kr.citations.cleaning``) turns the line into the sheet's heading, ``Sheet: <title>``, and drops
the bare rule, so every quote (cards, the viewer, agents) reads it the same way."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import FakeProvider, fake_host

from mnote_kr.citations.cleaning import clean_citation_text, display_text, locator_text
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web, webpages

RULE = "=" * 20


def lightrag_reads(path: Path) -> str:
    """The text LightRAG 1.5.7's own XLSX parser takes from a workbook (its legacy engine's extractor)."""
    from lightrag.parser.legacy.extractors import _extract_xlsx

    return _extract_xlsx(path.read_bytes())


def test_the_separator_is_the_sheets_heading_in_the_display_and_the_locator_text() -> None:
    raw = (f"{RULE} Sheet: Duck Observations {RULE}\nYear\tDucks\n2019\t120\n\n"
           f"{RULE} Sheet: Totals {RULE}\nAll\t310\n{RULE}")
    assert display_text(raw) == "Sheet: Duck Observations Year Ducks 2019 120 Sheet: Totals All 310"
    assert locator_text(raw).splitlines() == ["Sheet: Duck Observations", "Year Ducks", "2019 120",
                                              "Sheet: Totals", "All 310"]
    bundle = clean_citation_text(raw, "Ducks 2019", None)
    assert "=" not in bundle.display_quote and "=" not in bundle.locator_evidence_text


@pytest.mark.parametrize("raw, shown", [
    (f"====== Sheet: Duck Observations {RULE}\n2019\t120", "Sheet: Duck Observations 2019 120"),  # a chunk's cut
    (f"2024\t310\n{RULE} Sheet: Duck Obs", "2024 310 Sheet: Duck Obs"),  # cut in the title
    ("2024\t310\n=====", "2024 310"),  # the closing rule, cut
    (f"{RULE} Sheet: A = B {RULE}\nx", "Sheet: A = B x"),  # a title holding "="
    ("E = mc2 and a == b\nSheet: plain words", "E = mc2 and a == b Sheet: plain words"),  # no rule: untouched
])
def test_a_cut_or_odd_separator_reads_the_same(raw: str, shown: str) -> None:
    assert display_text(raw) == shown


def test_cleaning_again_gives_the_same_text() -> None:
    once = display_text(f"{RULE} Sheet: Ducks {RULE}\n2019\t120\n{RULE}")
    assert display_text(once) == once


def test_the_viewers_whole_passage_shows_the_sheet_heading_not_the_rule(tmp_path: Path) -> None:
    book = CORPUS / "xlsx" / "docling__xlsx_comments.xlsx"
    ws = tmp_path / "ws"
    (ws / "birds").mkdir(parents=True)
    (ws / "birds" / "ducks.xlsx").write_bytes(book.read_bytes())
    host, provider = fake_host(ws)
    host.roots_add(ws / "birds")
    host.ingest([ws / "birds"])
    text = lightrag_reads(book)  # what LightRAG indexes of it, the separator rules with it
    assert text.startswith(f"{RULE} Sheet: Sheet1 {RULE}\n") and text.endswith(f"\n{RULE}")
    provider.texts[FakeProvider.name_for("birds/ducks.xlsx")] = text
    [cite] = host.search("Saltwater Ducks 2021", top_k=1).results
    assert cite.context_quote is not None and cite.context_quote.startswith("Sheet: Sheet1 ")
    assert "=" not in cite.context_quote
    with ApiServer(host, write_token_file=False) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get(web.entry_url(server)).status_code == 303
        page = client.get(webpages.view_url(cite.citation_id))
    assert page.status_code == 200, page.text
    passage = re.search(r'<details class="context"><summary>the whole passage</summary><p>(.*?)</p></details>',
                        page.text)
    assert passage is not None, page.text
    words = unescape(re.sub(r"<[^>]+>", "", passage.group(1)))
    assert words.startswith("Sheet: Sheet1 Python is great") and "====" not in words, words
