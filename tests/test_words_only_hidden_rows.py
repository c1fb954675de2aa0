"""A search leaves a workbook with hidden rows as ingest placed it: by words and meaning.

A newcomer (nc25a, problem 5) read "14 placed by words and meaning" after ingest and, after a dozen
searches and no edit, "1 by words only ... xlsx_04_inflated.xlsx"; ``sync`` then "embedded" it "since its
places changed", though nothing had. The workbook has a hidden sheet: ``locate_xlsx`` places a passage that
no visible row matches among every row, hidden ones included, and asked for those rows' vectors; ingest had
embedded the visible rows only, so the search found none and recorded the file as placed by words only.
Ingest now embeds both. The e5 model is the fake embedder of ``test_words_only.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from mnote_kr_testkit.fakes import fake_host
from mnote_kr_testkit.files import digest_tree

from mnote_kr.citations import pipeline
from mnote_kr.citations.rank import wordsonly
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import ProviderQueryResult, ProviderReference, QueryRequest
from tests.surfaces import BlockProvider
from tests.test_words_only import fake_e5  # noqa: F401  (the fake embedder, autouse there: named here)

CORPUS = Path(__file__).parent / "data" / "corpus" / "xlsx"
REL = "decks/docling__xlsx_04_inflated.xlsx"  # Sheet4 is hidden: its rows are "header" and "1"


class HiddenSheetPassage(BlockProvider):
    """Each query answered with a passage only the hidden sheet's rows hold."""

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        refs = [ProviderReference(provider="fake", file_path=name, reference_id="1", chunk_id="chunk-0",
                                  doc_id=f"doc-{name}", content="Sheet4\nheader\n1", rank=0)
                for name in sorted(self.texts)]
        return ProviderQueryResult(provider="fake", references=refs, answer=None)


def test_searches_leave_a_workbook_with_a_hidden_sheet_placed_by_words_and_meaning(
        tmp_path: Path, fake_e5: list[list[str]]) -> None:  # noqa: F811
    ws = tmp_path / "ws"
    (ws / "decks").mkdir(parents=True)
    shutil.copyfile(CORPUS / "docling__xlsx_04_inflated.xlsx", ws / REL)
    host, _ = fake_host(ws, HiddenSheetPassage(delete_status="delete_completed"))
    host.roots_add("decks")
    host.ingest(["decks"], wait=True)
    before_files = digest_tree(ws / "decks")
    places = host.status()["meaning"]
    assert places["wordsOnly"]["count"] == 0

    for query in ("recipe for sourdough bread starter hydration", "what does the header of sheet 4 say"):
        pipeline.clear_memos()
        (hit,) = host.search(query, top_k=5).results
        assert hit.locator.sheet == "Sheet4"  # the passage only the hidden sheet holds: located there

    assert wordsonly.load(host).files == []  # nothing recorded as placed by words only
    after = host.status()
    assert after["meaning"] == places, after["meaning"]  # status unchanged by searching
    assert "by words only" not in render_status(after)
    assert digest_tree(ws / "decks") == before_files
