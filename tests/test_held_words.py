"""A sentence copied from a file the provider did not return is not cited from it (DESIGN principle 2: LightRAG does
retrieval), but the search names that file and the ``mnote-kr locate`` command that finds the place in it
(``map.heldwords``), in every surface: a phrase held by a file the search did not cite is weak, and a scoped search is
sent to a wider one only when that would find more of the query (nc26b finding 1, review r27 finding 7)."""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.agents.tools import weak_note
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
        return ProviderQueryResult(provider="fake", references=refs,
                                   answer="Text is extracted by a module [1]." if request.want_answer else None)


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


def locate_command(host: Host, rel: str, query: str) -> str:
    """The command the search names for a file holding the query's words."""
    return f"mnote-kr locate {shlex.quote(str(host.root / rel))} --query {shlex.quote(query)}"


def files_of(result: Any) -> list[str]:
    return [c.source_root_relative_path for c in result.results]


def test_a_phrase_copied_from_a_file_the_provider_did_not_return_is_named_with_its_locate_command_not_cited(
        kb: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    before = digest_tree(kb.root / "docs")
    result = kb.search(QUERY, scope=[])
    assert ENDNOTES not in files_of(result)
    held = result.diagnostics["heldWords"]
    assert held["files"] == [ENDNOTES] and held["terms"] == ["binary", "extract", "file", "module", "software", "text"]
    assert "cited" not in held and "located" not in held  # nothing of it is cited, nothing located
    assert held["locate"] == {ENDNOTES: locate_command(kb, ENDNOTES, QUERY)}
    # the provider named as status names it (review r28 finding 11), the command last, whole, to be copied
    assert held["note"] == (f"{ENDNOTES} holds every word of the query, and {kb.plugins.provider_name} returned no "
                            f"passage of it, so it is not cited; this finds the place in it: "
                            f"{locate_command(kb, ENDNOTES, QUERY)}")
    # the results are LightRAG's references, as with the pass off (the first card's quote holds "binary": not weak)
    monkeypatch.setattr(heldwords, "HELD_WORDS", False)
    off = kb.search(QUERY, scope=[])
    assert [(c.citation_id, c.locator) for c in result.results] == [(c.citation_id, c.locator) for c in off.results]
    assert not result.weak and not off.weak
    assert digest_tree(kb.root / "docs") == before


def test_the_named_locate_command_finds_the_paragraph_holding_the_phrase(kb: Host) -> None:
    from click.testing import CliRunner

    from mnote_kr.cli.main import cli

    command = kb.search(QUERY, scope=[]).diagnostics["heldWords"]["locate"][ENDNOTES]
    words = shlex.split(command)
    assert words[:2] == ["mnote-kr", "locate"]
    out = CliRunner().invoke(cli, [*words[1:], "--json"])
    assert out.exit_code == 0, out.output
    locator = json.loads(out.output)
    assert locator["paragraphIndex"] == 11 and not locator["locatorDegraded"]  # ¶12 to a reader, exact


GARDEN = """# Garden handbook

## Watering

Tomatoes need deep watering twice a week in dry summers; shallow daily watering weakens their roots.

## Pests

Aphids cluster under young leaves in spring. A strong jet of water or a soap spray removes most of them.

## Soil

Compost worked into the bed each autumn keeps clay soil loose and feeds the next season's crops.
"""


@pytest.mark.parametrize(("question", "paragraph", "why"), [
    ("Why work compost into clay soil each autumn?", 6, "every word of the query"),  # all in one paragraph
    # a "!" and a "'" pasted into bash ("read" is not in the file)
    ("Does compost keep clay soil loose in autumn? It's what I read!", 6, "6 of the query's 7 words"),
    # "pests" only in its heading: the paragraph holding the most, said so and degraded
    ("Which pests cluster under young leaves in spring?", 4, "4 of the query's 5 words"),
])
def test_the_named_locate_command_puts_a_question_on_the_paragraph_holding_its_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, question: str, paragraph: int, why: str) -> None:
    """review r28 finding 2: the question as typed was the evidence, and a question answered ``file``."""
    from click.testing import CliRunner

    from mnote_kr.cli.main import cli
    from mnote_kr.core.pending import locate_command

    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    path = tmp_path / "my notes" / "g.md"
    write(path, GARDEN)
    before = digest_tree(path.parent)
    command = locate_command(str(path), question)
    # one shell word each, the query in single quotes: nothing in it is expanded by a shell ("!", "$", "`")
    assert command == f"mnote-kr locate {shlex.quote(str(path))} --query {shlex.quote(question)}"
    words = shlex.split(command)
    assert words == ["mnote-kr", "locate", str(path), "--query", question]
    out = CliRunner().invoke(cli, [*words[1:], "--json"])
    assert out.exit_code == 0, out.output
    locator = json.loads(out.output)
    assert locator["locatorPrecision"] == "paragraph" and locator["paragraphIndex"] == paragraph
    assert locator["locatorReason"] == f"the place holding {why}"
    assert locator["locatorDegraded"] is (why != "every word of the query")
    assert digest_tree(path.parent) == before


def test_switched_off_the_file_is_missing_and_its_words_are_not_read(kb: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heldwords, "HELD_WORDS", False)
    result = kb.search(QUERY, scope=[])
    assert ENDNOTES not in files_of(result)
    assert "heldWords" not in result.diagnostics


def test_a_search_scoped_to_the_file_holding_the_phrase_cites_nothing_and_says_how_to_find_the_place(kb: Host) -> None:
    result = kb.search(QUERY, scope=[ENDNOTES])
    assert not result.results
    message = result.diagnostics["noResults"]["message"]
    assert result.diagnostics["heldWords"]["note"] in message
    assert locate_command(kb, ENDNOTES, QUERY) in message and "search a wider folder" not in message


def test_the_shorter_phrase_names_the_file_too(kb: Host) -> None:
    short = "extracting text from binary files"
    result = kb.search(short, scope=[])
    assert ENDNOTES not in files_of(result)
    assert result.diagnostics["heldWords"]["locate"] == {ENDNOTES: locate_command(kb, ENDNOTES, short)}


def test_a_file_changed_since_indexed_is_named_with_sync(kb: Host) -> None:
    path = kb.root / ENDNOTES  # the test's own copy in tmp_path
    path.write_bytes(path.read_bytes() + b"\0" * 16)  # changed since indexed (its size), no sync
    held = kb.search(QUERY, scope=[]).diagnostics["heldWords"]
    assert held["changed"] == [ENDNOTES]
    assert "'mnote-kr sync' re-indexes it" in held["note"] and locate_command(kb, ENDNOTES, QUERY) in held["note"]


def test_ask_cites_only_what_lightrag_returned_and_names_the_file(kb: Host) -> None:
    asked = kb.ask(QUERY, scope=[])
    assert asked.citations and ENDNOTES not in {c.source_root_relative_path for c in asked.citations}
    assert any(locate_command(kb, ENDNOTES, QUERY) in n for n in asked.notes)


def test_a_passage_found_holding_every_word_leaves_the_search_to_the_provider(kb: Host) -> None:
    # the recorded tracemonkey passage holds "integer arithmetic substantially improves performance"
    result = kb.search("integer arithmetic substantially improves performance", scope=[])
    assert "heldWords" not in result.diagnostics
    assert ENDNOTES not in {c.source_root_relative_path for c in result.results}


def test_a_scope_whose_files_lack_the_words_names_the_file_outside_it_that_holds_them(kb: Host) -> None:
    result = kb.search(QUERY, scope=[NOTES])
    assert not result.results
    assert result.diagnostics["noResults"]["message"].endswith(
        f"{ENDNOTES}, not among the files searched, holds every word of the query, and {kb.plugins.provider_name} "
        f"returned no passage of it, so it is not cited; this finds the place in it: "
        f"{locate_command(kb, ENDNOTES, QUERY)}")


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
CMD = "mnote-kr locate /kb/poi__endnotes.docx --query 'A software module for extracting text from binary files'"
NOTE = ("poi__endnotes.docx holds every word of the query, and lightrag returned no passage of it, so it is not "
        f"cited; this finds the place in it: {CMD}")
HELD = {"terms": ["binary", "extract", "file", "module", "software", "text"], "files": ["poi__endnotes.docx"],
        "count": 1, "elsewhere": False, "locate": {"poi__endnotes.docx": CMD}, "changed": [], "note": NOTE}


def test_a_phrase_whose_first_card_holds_none_of_its_words_is_weak_and_told_the_locate_command() -> None:
    reason = held_reason([TRACEMONKEY], QUERY, HELD, None)
    assert reason == ("no passage found holds every word of the query, and the passages shown are only the nearest by "
                      f"meaning; {NOTE}")
    assert weak_note(reason).endswith("tell the user which file holds the query's words, that it is not cited, and "
                                      "the command that finds the place in it.")


def test_the_weak_rule_s_nothing_answers_it_gives_way_to_the_file_holding_the_words() -> None:
    before = "only common words of the query (text) are in the passages found: nothing in your files clearly answers it"
    reason = held_reason([TRACEMONKEY], "what extracts text from binary files in a software module?", HELD, before)
    assert reason is not None and NOTE in reason and "nothing in your files" not in reason


def test_a_question_or_a_first_card_holding_a_word_of_the_phrase_is_not_made_weak() -> None:
    assert held_reason([TRACEMONKEY], "which software module extracts text from binary files?", HELD, None) is None
    worded = msgspec.structs.replace(TRACEMONKEY, display_quote="a binary file")
    assert held_reason([worded], QUERY, HELD, None) is None
    assert held_reason([TRACEMONKEY], QUERY, {**HELD, "files": [], "note": None}, None) is None


def test_the_note_is_said_once_a_search_beside_its_weak_verdict() -> None:
    from mnote_kr.citations.render.alsoasked import held_note

    assert held_note({"heldWords": HELD}, None) == f"note: {NOTE}"
    assert held_note({"heldWords": HELD}, held_reason([TRACEMONKEY], QUERY, HELD, None)) is None
    assert held_note({"heldWords": {**HELD, "files": [], "note": None}}, None) is None
    assert held_note({}, None) is None


class _Reg:
    entries = {"a.md": object()}

    @staticmethod
    def counts() -> dict[str, int]:
        return {"processed": 1}


@pytest.mark.parametrize(("held", "wider"), [
    (None, True),  # nothing known of the words: as before
    ({**HELD, "files": [], "note": None, "scopeCounted": True, "elsewhere": True}, True),  # a passage outside has them
    ({**HELD, "files": [], "note": None, "scopeCounted": False}, True),  # a file searched has no words counted
    ({**HELD, "files": [], "note": None, "scopeCounted": True}, False),  # nowhere: a wider search finds no more
    # outside, a passage of it returned (no locate command): "search it or the whole workspace"
    ({**HELD, "files": [], "note": None, "scopeCounted": True, "outside": ["b.md"], "locate": {}}, False),
    ({**HELD, "scopeCounted": True}, False),  # the file searched holds them: its locate command
])
def test_a_scoped_search_is_sent_wider_only_when_that_finds_more_of_the_query(held: dict[str, Any] | None,
                                                                             wider: bool) -> None:
    message = why_no_results(_Reg(), {"outOfScope": 20}, True, (), held)["message"]  # type: ignore[arg-type]
    assert message.startswith("passages were found only in sources that cannot be cited (20 outside the files")
    assert ("search a wider folder or the whole workspace" in message) is wider
    assert (NOTE in message) is bool(held and held.get("note"))


def test_a_search_with_no_passage_names_the_file_holding_the_words() -> None:
    why = why_no_results(_Reg(), {}, False, (), HELD)  # type: ignore[arg-type]
    assert why["reason"] == "no_match" and why["message"] == f"no passage returned matched the query; {NOTE}"


def test_the_cli_the_agent_tool_and_json_name_the_file_and_the_locate_command(kb: Host) -> None:
    from mnote_kr.agents.contracts import QueryInput
    from mnote_kr.agents.tools import tool_query
    from tests.surfaces import cli_search

    note = kb.search(QUERY, scope=[]).diagnostics["heldWords"]["note"]
    text = cli_search(kb, QUERY, False)
    *cards, last = text.rstrip("\n").split("\n")
    assert last == f"note: {note}" and ENDNOTES not in "\n".join(cards)  # named under the cards, no card of it
    data = json.loads(cli_search(kb, QUERY, True))
    assert data["diagnostics"]["heldWords"]["note"] == note
    assert ENDNOTES not in {c["sourceRootRelativePath"] for c in data["results"]}
    notes = tool_query(kb, QueryInput(query=QUERY)).notes
    assert any(note in n for n in notes)
    asked = tool_query(kb, QueryInput(query=QUERY, want_answer=True))
    assert any(note in n for n in asked.notes)
    assert ENDNOTES not in {c.source_root_relative_path for c in asked.citations}


def test_the_web_search_page_names_the_file_and_the_locate_command(kb: Host) -> None:
    from html import escape

    from tests.surfaces import api, web_page

    note = kb.search(QUERY, scope=[]).diagnostics["heldWords"]["note"]
    with api(kb) as (server, _):
        html = web_page(server, f"/?q={QUERY.replace(' ', '+')}")
    assert f'<p class="note">note: {escape(note)}</p>' in html
