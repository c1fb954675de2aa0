"""DOCX review comments through the real managed engine: a search in a comment's own words cites the commented
paragraph, with the comment's words (said to be a comment) in the quote; the file is never touched."""

from __future__ import annotations

import copy
import hashlib
import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import DEFAULTS

pytestmark = pytest.mark.integration
NAME = "markitdown__test_with_comment.docx"
#: The table cell "23" the file's second comment is on (plugins/docx_locator/tests/test_docx_comments.py).
CELL = 35


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_search_in_a_comments_words_cites_the_commented_paragraph(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "kb"
    (ws / "review").mkdir(parents=True)
    shutil.copyfile(CORPUS / "docx" / NAME, ws / "review" / NAME)
    (ws / "review" / "other.md").write_text(
        "# Agents\n\nMulti-agent conversation frameworks let several language models talk to each other.\n",
        encoding="utf-8")
    before = _sha(ws / "review" / NAME)
    config = copy.deepcopy(DEFAULTS)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir,
                                        "working_dir": lightrag_engine.working_dir}}
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    host = Host(ws, config=config)
    report = host.ingest(["review"], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == {
        f"review/{NAME}": "processed", "review/other.md": "processed"}, [
        (i.source_path, i.reason) for i in report.items]
    entry = next(e for e in host.registry().entries.values() if e.source_root_relative_path.endswith(NAME))
    assert (entry.kind, entry.reading) == ("document", "lightrag+notes:3")  # LightRAG's own parser read it

    found = host.search("Yet another comment in the doc")
    first = found.results[0]
    assert (first.source_root_relative_path, first.locator_precision, first.locator.paragraph_index) == (
        f"review/{NAME}", "paragraph", CELL), (first.source_root_relative_path, first.locator)
    assert "[Comment (Unknown Author): Yet another comment in the doc." in first.display_quote, first.display_quote
    assert not found.weak
    # a comment inside the sentence that answers takes none of its quote (a newcomer's search, round 19: the
    # quote stopped at "…build LLM applications [Comment (Unknown Author): …]")
    found = host.search("AutoGen open-source framework agents converse with each other")
    cited = next(c for c in found.results if c.source_root_relative_path.endswith(NAME))
    assert cited.display_quote.startswith("AutoGen is an open-source framework"), cited.display_quote
    assert "via multiple agents that can converse with each other" in cited.display_quote, cited.display_quote
    assert _sha(ws / "review" / NAME) == before  # never touched
