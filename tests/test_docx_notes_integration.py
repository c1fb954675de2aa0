"""DOCX footnotes and endnotes through the real managed engine: a search in a note's own words cites the
paragraph holding the note's mark, with the note's words in the quote; the files are never touched."""

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
FILES = ("tika__testWORD_2006ml.docx", "poi__endnotes.docx")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_search_in_a_notes_words_cites_the_paragraph_holding_its_mark(tmp_path: Path, lightrag_engine,  # noqa: F811, ANN001
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "kb"
    (ws / "notes").mkdir(parents=True)
    for name in FILES:
        shutil.copyfile(CORPUS / "docx" / name, ws / "notes" / name)
    before = {name: _sha(ws / "notes" / name) for name in FILES}
    config = copy.deepcopy(DEFAULTS)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir,
                                        "working_dir": lightrag_engine.working_dir}}
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    host = Host(ws, config=config)
    report = host.ingest(["notes"], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == {f"notes/{n}": "processed" for n in FILES}, [
        (i.source_path, i.reason) for i in report.items]
    # LightRAG's own parser read them (no text fallback), so the notes came through its blocks
    assert {e.kind for e in host.registry().entries.values()} == {"document"}

    for query, name, index, words, scope in (
            ("And this is the footnote", FILES[0], 17, "[Footnote 1: And this is the footnote]", ()),
            # the endnote's words are "endnote" and stop words: the other file's endnote label holds that word
            # too (and its chunk is shorter), so the question is asked of its own file
            ("This is an endnote", FILES[0], 158, "[Endnote i: This is an endnote]", (f"notes/{FILES[0]}",)),
            ("the red spot tilaka endnote XXX", FILES[1], 9, "[Endnote i: XXX]", ())):
        first = host.search(query, scope=scope).results[0]
        assert (first.source_root_relative_path, first.locator_precision, first.locator.paragraph_index) == (
            f"notes/{name}", "paragraph", index), (query, first.source_root_relative_path, first.locator)
        assert words in first.display_quote, (query, first.display_quote)
    assert {name: _sha(ws / "notes" / name) for name in FILES} == before  # never touched
