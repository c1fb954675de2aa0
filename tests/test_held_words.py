"""A sentence copied from a file finds that file though the provider did not return it (``map.heldwords``), and the
messages say what the library's words say: a phrase held by a file the search did not cite is weak, and a scoped
search is sent to a wider one only when that would find more of the query (nc26b finding 1)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.app.host import Host
from mnote_kr.citations import pipeline
from mnote_kr.citations.caches import libwords
from mnote_kr.citations.map import heldwords
from mnote_kr.citations.render.noresults import why_no_results
from mnote_kr.citations.render.weakabsent import held_reason
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import ProviderQueryResult, ProviderReference, QueryRequest
from tests.test_weak_variants import place

RECORDED = json.loads((Path(__file__).parent / "data" / "heldwords" / "nc26b_q10.json").read_text(encoding="utf-8"))
QUERY = RECORDED["query"]  # "A software module for extracting text from binary files"
ENDNOTES = "docs/poi__endnotes.docx"
NOTES = "docs/notes.md"


class Recorded(FakeProvider):
    """The fake provider answering every query with the recorded passages' files, in the recorded order, and never
    with a file it was not given a passage for (as LightRAG never returned ``poi__endnotes.docx``)."""

    passages: dict[str, str] = {}

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        refs = [ProviderReference(provider="fake", file_path=self.name_for(rel), chunk_id=f"chunk-{k}",
                                  doc_id=f"doc-{k}", content=text, rank=k)
                for k, (rel, text) in enumerate(self.passages.items())]
        return ProviderQueryResult(provider="fake", references=refs)


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    """The recorded passages' files (their passage as a Markdown file each), ``poi__endnotes.docx`` and a note holding
    two of the query's words, ingested."""
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    pipeline.clear_memos()
    ws = tmp_path / "ws"
    provider = Recorded(delete_status="delete_completed")
    provider.passages = {}
    for p in RECORDED["passages"]:
        rel = f"docs/{Path(p['file']).stem}.md"
        write(ws / rel, p["text"] + "\n")
        provider.passages[rel] = p["text"]
    shutil.copyfile(CORPUS / "docx" / "poi__endnotes.docx", ws / ENDNOTES)
    write(ws / NOTES, "Tilaka is a Nepalese name; a module of the course is on binary numbers.\n")  # never returned
    host, _ = fake_host(ws, provider)
    host.roots_add("docs")
    host.ingest(["docs"], wait=True)
    yield host


def test_a_phrase_copied_from_a_file_the_provider_did_not_return_is_cited_first_on_its_paragraph(kb: Host) -> None:
    before = digest_tree(kb.root / "docs")
    result = kb.search(QUERY, scope=[])
    first = result.results[0]
    assert first.source_root_relative_path == ENDNOTES
    assert first.locator.paragraph_index == 11 and not first.locator_degraded  # ¶12 to a reader, exact
    assert "extracting text from binary files" in (first.display_quote or "")
    assert not result.weak
    held = result.diagnostics["heldWords"]
    assert held["cited"] == [ENDNOTES] and held["terms"] == ["binary", "extract", "file", "module", "software", "text"]
    # the provider's files are still cited, behind it
    assert {c.source_root_relative_path for c in result.results[1:]} >= {"docs/pdfjs__tracemonkey.md"}
    assert digest_tree(kb.root / "docs") == before


def test_switched_off_the_file_is_missing_and_its_words_are_not_read(kb: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heldwords, "HELD_WORDS", False)
    result = kb.search(QUERY, scope=[])
    assert ENDNOTES not in {c.source_root_relative_path for c in result.results}
    assert "heldWords" not in result.diagnostics


def test_a_search_scoped_to_the_file_holding_the_phrase_cites_it(kb: Host) -> None:
    result = kb.search(QUERY, scope=[ENDNOTES])
    assert [c.source_root_relative_path for c in result.results] == [ENDNOTES]
    assert result.results[0].locator.paragraph_index == 11
    assert "noResults" not in result.diagnostics


def test_the_shorter_phrase_is_found_too_and_not_said_weak(kb: Host) -> None:
    result = kb.search("extracting text from binary files", scope=[])
    assert result.results[0].source_root_relative_path == ENDNOTES and not result.weak


def test_a_passage_found_holding_every_word_leaves_the_search_to_the_provider(kb: Host) -> None:
    # the recorded tracemonkey passage holds "integer arithmetic substantially improves performance"
    result = kb.search("integer arithmetic substantially improves performance", scope=[])
    assert "heldWords" not in result.diagnostics
    assert ENDNOTES not in {c.source_root_relative_path for c in result.results}


def test_a_scope_whose_files_lack_the_words_names_the_file_outside_it_that_holds_them(kb: Host) -> None:
    result = kb.search(QUERY, scope=[NOTES])
    assert not result.results
    assert result.diagnostics["noResults"]["message"].endswith(
        "docs/poi__endnotes.docx, not among the files searched, holds every word of the query: search it or the whole "
        "workspace")


def test_a_scope_is_not_sent_to_a_wider_search_when_no_file_and_no_passage_holds_the_words(kb: Host) -> None:
    result = kb.search("software module for extracting text from binary Lucene quasars", scope=[NOTES])
    assert not result.results
    message = result.diagnostics["noResults"]["message"]
    assert "search a wider folder" not in message and "a wider search finds no more of it; try other words" in message


def test_the_library_s_files_holding_every_term_are_read_from_their_words(tmp_path: Path) -> None:
    libwords.note(tmp_path, {"a.md": ("h1", ["A software module for extracting text from binary files."]),
                             "b.md": ("h2", ["Binary trees: a module of the software."]),
                             "c.md": ("h3", ["Extracting text."])})
    got = libwords.holding(tmp_path, ["software", "module", "binary"])
    assert sorted(rel for rel, _, _ in got) == ["a.md", "b.md"]
    assert [rel for rel, _, _ in libwords.holding(tmp_path, ["extract", "binary", "software"])] == ["a.md"]
    assert libwords.holding(tmp_path, ["extract", "nowhere"]) == []
    assert libwords.counted(tmp_path, ["a.md", "c.md"]) and not libwords.counted(tmp_path, ["a.md", "d.md"])


# ----------------------------------------------------------------------------- the messages, on recorded places

TRACEMONKEY = place("c1", "In particular, the bitops benchmarks are short programs that perform many bitwise "
                    "operations, so TraceMonkey can cover the entire program with 1 or 2 traces that operate on "
                    "integers.", "pdfjs__tracemonkey.pdf", lexical=0.14)
HELD = {"terms": ["binary", "extract", "file", "module", "software", "text"], "files": ["poi__endnotes.docx"],
        "count": 1, "located": ["poi__endnotes.docx"], "cited": [], "elsewhere": False}


def test_a_phrase_whose_first_card_holds_none_of_its_words_is_weak_when_a_file_not_cited_holds_them_all() -> None:
    reason = held_reason([TRACEMONKEY], QUERY, HELD, None)
    assert reason is not None and reason.startswith("no passage found holds every word of the query, while "
                                                    "poi__endnotes.docx holds them all")
    assert "no one place in it holds them together" in reason


def test_a_file_not_located_is_named_without_saying_where_its_words_stand() -> None:
    reason = held_reason([TRACEMONKEY], QUERY, {**HELD, "located": [], "count": 4}, None)
    assert reason is not None and "poi__endnotes.docx (and 3 more file(s)) holds them all" in reason
    assert "together" not in reason


def test_the_weak_rule_s_nothing_answers_it_gives_way_to_the_file_holding_the_words() -> None:
    before = "only common words of the query (text) are in the passages found: nothing in your files clearly answers it"
    reason = held_reason([TRACEMONKEY], "what extracts text from binary files in a software module?", HELD, before)
    assert reason is not None and "poi__endnotes.docx holds them all" in reason


def test_a_question_or_a_first_card_holding_a_word_of_the_phrase_is_not_made_weak() -> None:
    assert held_reason([TRACEMONKEY], "which software module extracts text from binary files?", HELD, None) is None
    worded = msgspec.structs.replace(TRACEMONKEY, display_quote="a binary file")
    assert held_reason([worded], QUERY, HELD, None) is None
    assert held_reason([TRACEMONKEY], QUERY, {**HELD, "files": []}, None) is None
    cited = place("c2", "A software module for extracting text from binary files.", "poi__endnotes.docx")
    assert held_reason([TRACEMONKEY, cited], QUERY, {**HELD, "cited": ["poi__endnotes.docx"]}, None) is None


class _Reg:
    entries = {"a.md": object()}

    @staticmethod
    def counts() -> dict[str, int]:
        return {"processed": 1}


@pytest.mark.parametrize(("held", "wider"), [
    (None, True),  # nothing known of the words: as before
    ({**HELD, "files": [], "scopeCounted": True, "elsewhere": True}, True),  # a passage outside holds them
    ({**HELD, "files": [], "scopeCounted": False}, True),  # a file searched has no words counted
    ({**HELD, "files": [], "scopeCounted": True}, False),  # nowhere: a wider search finds no more
    ({**HELD, "files": [], "scopeCounted": True, "outside": ["b.md"]}, False),  # named: "search it or the whole ..."
    ({**HELD, "scopeCounted": True}, False),  # the file searched holds them, in no one place
])
def test_a_scoped_search_is_sent_wider_only_when_that_finds_more_of_the_query(held: dict[str, Any] | None,
                                                                             wider: bool) -> None:
    message = why_no_results(_Reg(), {"outOfScope": 20}, True, (), held)["message"]  # type: ignore[arg-type]
    assert message.startswith("passages were found only in sources that cannot be cited (20 outside the files")
    assert ("search a wider folder or the whole workspace" in message) is wider


def test_the_cli_and_the_agent_tool_say_the_file_was_found_by_its_words(kb: Host) -> None:
    from mnote_kr.agents.contracts import QueryInput
    from mnote_kr.agents.tools import tool_query
    from tests.surfaces import cli_search

    text = cli_search(kb, QUERY, False)
    assert text.startswith("[") and "docs/poi__endnotes.docx" in text.splitlines()[0]
    assert ("found by its words: docs/poi__endnotes.docx holds every word of the query, and LightRAG returned no "
            "passage of it") in text
    notes = tool_query(kb, QueryInput(query=QUERY)).notes
    assert any(n.startswith("found by its words: docs/poi__endnotes.docx") for n in notes)
