"""Small pipeline helpers: precision honesty, scope, badges, citation IDs, not-indexed, memos."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from mnote_kr.app.host import Host
from mnote_kr.citations import answering, pipeline
from mnote_kr.citations.map import notindexed
from mnote_kr.citations.render import claims, openplan
from mnote_kr.core.config import load_config
from mnote_kr.core.workspace import source_id_for
from mnote_kr.errors import LocatorError, UsageError
from mnote_kr.models import (
    Citation,
    CitationDiagnostics,
    Highlight,
    IndexedRoot,
    LocateRequest,
    Locator,
    SourceEntry,
)

PARAGRAPH = Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=3, para_id="1A2B0004",
                    block_id="blk", highlight=Highlight(start=0, end=5), locator_plugin="docx_locator")


# ----------------------------------------------------------------------------- honest


def test_honest_turns_an_unbacked_approximate_paragraph_into_a_degraded_file_locator() -> None:
    approximate = msgspec.structs.replace(PARAGRAPH, locator_degraded=True)
    out = claims.honest(approximate, "file")
    assert out.locator_precision == "file" and out.locator_degraded
    assert out.paragraph_index is None and out.para_id is None and out.highlight is None
    assert out.block_id == "blk" and out.reason == "no sidecar block confirms the paragraph"


def test_honest_keeps_a_paragraph_the_locator_matched_in_the_file_without_a_block() -> None:
    # .txt, .log, .csv: LightRAG writes no blocks; the locator found the evidence in the file's own text
    assert claims.honest(PARAGRAPH, "file") is PARAGRAPH


def test_honest_turns_a_paragraph_claim_without_a_place_into_a_file_locator() -> None:
    placeless = msgspec.structs.replace(PARAGRAPH, paragraph_index=None, para_id=None)
    assert claims.honest(placeless, "file").locator_precision == "file"


@pytest.mark.parametrize("cap", ["paragraph", "bbox"])
def test_honest_keeps_a_paragraph_backed_by_a_block(cap: str) -> None:
    assert claims.honest(PARAGRAPH, cap) is PARAGRAPH


def test_honest_leaves_bbox_and_file_locators_alone() -> None:
    bbox = Locator(locator_precision="bbox", locator_degraded=False, page=2, bbox=[1.0, 2.0, 3.0, 4.0])
    file = Locator(locator_precision="file", locator_degraded=True)
    assert claims.honest(bbox, "file") is bbox and claims.honest(file, "file") is file


# ----------------------------------------------------------------------------- scope


@pytest.mark.parametrize(("rel", "scope", "inside"), [
    ("docs/a.md", [], True),
    ("docs/a.md", [""], True),  # the workspace root
    ("docs/a.md", ["docs"], True),
    ("docs/a.md", ["docs/a.md"], True),
    ("docs/sub/b.md", ["docs"], True),
    ("docs2/a.md", ["docs"], False),  # a prefix of the name is not a parent folder
    ("docs/a.md.bak", ["docs/a.md"], False),
    ("other/a.md", ["docs", "papers"], False),
    ("papers/x.pdf", ["docs", "papers"], True),
])
def test_in_scope_matches_files_and_folders_by_path_segment(rel: str, scope: list[str], inside: bool) -> None:
    assert pipeline._in_scope(rel, scope) is inside


# ----------------------------------------------------------------------------- citation IDs and badges


@pytest.mark.parametrize(("raw", "expected"), [
    ("[a3z1]", "[a3z1]"), ("a3z1", "[a3z1]"), ("  [a3z1] ", "[a3z1]"), ("IMG-p4f2", "[IMG-p4f2]"),
    ("a3z1]", "[a3z1]"),
])
def test_normalize_citation_id(raw: str, expected: str) -> None:
    assert openplan.normalize_citation_id(raw) == expected


@pytest.mark.parametrize("raw", ["", "   ", "\n"])
def test_normalize_citation_id_refuses_empty(raw: str) -> None:
    with pytest.raises(UsageError, match="citation ID"):
        openplan.normalize_citation_id(raw)


def test_the_references_tail_is_dropped_in_english_and_chinese_but_not_a_body_heading() -> None:
    # ask drops LightRAG's references list before grounding (each sentence then gets its place's ID)
    for heading in ("### References", "References:", "参考文献", "Sources"):
        text = f"Answer [1].\n\n{heading}\n- [1] report.docx\n- [2] notes.md\n"
        assert answering._REFERENCES_TAIL_RE.sub("", text) == "Answer [1]."
    body = "See [a3z1] and [note].\n\n## References to prior work\nBody [1]."
    assert answering._REFERENCES_TAIL_RE.sub("", body) == body


def test_resource_kind_by_extension() -> None:
    kinds = {p: openplan.resource_kind(p) for p in ("a.PDF", "b.docx", "c.pptx", "d.md", "e.JPG", "f.txt", "g")}
    assert kinds == {"a.PDF": "pdf", "b.docx": "office", "c.pptx": "office", "d.md": "markdown",
                     "e.JPG": "image", "f.txt": "text", "g": "text"}


# ----------------------------------------------------------------------------- not_indexed


@pytest.fixture
def host(tmp_path: Path) -> Host:
    ws = tmp_path / "ws"
    (ws / "kb" / "sub").mkdir(parents=True)
    (ws / "outside").mkdir()
    for rel in ("kb/ok.md", "kb/failed.pdf", "kb/stale.docx", "kb/new.md", "kb/sub/skip.tmp.md", "outside/far.md"):
        (ws / rel).write_text(rel, encoding="utf-8")
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": "http://127.0.0.1:9"}}
    h = Host(ws, config=config)
    with h.store.transaction() as reg:
        reg.roots["kb"] = IndexedRoot(root_relative_path="kb", exclude_patterns=["*.tmp.md"])
        for rel, changes in (("kb/ok.md", {"status": "processed"}),
                             ("kb/failed.pdf", {"status": "failed", "last_error": "parser crashed"}),
                             ("kb/stale.docx", {"status": "processed", "stale": True,
                                                "stale_reason": "changed on disk"})):
            reg.put(SourceEntry(source_id=source_id_for(rel), source_path=str(ws / rel),
                                source_root_relative_path=rel, **changes))
    return h


def _not_indexed(host: Host, query: str) -> list[tuple[str, str, str]]:
    return [(n.source_path, n.status, n.reason) for n in notindexed.not_indexed(host, host.registry(), query)]


def test_not_indexed_is_empty_when_the_query_names_no_file(host: Host) -> None:
    assert _not_indexed(host, "what about the turbines") == []


def test_not_indexed_says_why_a_named_file_is_not_citable(host: Host) -> None:
    assert _not_indexed(host, "summarise failed.pdf") == [("kb/failed.pdf", "failed", "parser crashed")]
    assert _not_indexed(host, "STALE.DOCX please") == [("kb/stale.docx", "stale", "changed on disk")]
    assert _not_indexed(host, "open ok.md") == []  # live and processed: nothing to report


def test_not_indexed_finds_files_in_roots_that_were_never_ingested_or_are_excluded(host: Host) -> None:
    assert _not_indexed(host, "new.md") == [("kb/new.md", "not_indexed", "in an indexed root but not ingested yet")]
    assert _not_indexed(host, "skip.tmp.md") == [("kb/sub/skip.tmp.md", "excluded", "excluded by pattern '*.tmp.md'")]
    # outside every indexed root: not part of the knowledge base, and said so (not silently answered from others)
    assert _not_indexed(host, "far.md") == [
        ("far.md", "not_found", "no file of this name among those the library indexes")]
    # a name that ends an indexed file's name after a separator is that file as a person types it
    with host.store.transaction() as reg:
        rel = "kb/unstructured__tables-with-incomplete-rows.docx"
        reg.put(SourceEntry(source_id=source_id_for(rel), source_path=str(host.root / rel),
                            source_root_relative_path=rel, status="processed"))
    assert _not_indexed(host, "what is in tables-with-incomplete-rows.docx?") == []
    assert _not_indexed(host, "what is in incomplete-rows.docx?") == []
    # ... and a file so named that cannot be cited says why, as one typed in full does
    with host.store.transaction() as reg:
        rel = "kb/2024_budget.pdf"
        reg.put(SourceEntry(source_id=source_id_for(rel), source_path=str(host.root / rel),
                            source_root_relative_path=rel, status="failed", last_error="parser crashed"))
    assert _not_indexed(host, "what does budget.pdf say") == [("kb/2024_budget.pdf", "failed", "parser crashed")]
    # a file with the typed name in full answers for it: a failed "old/2019_ok.md" is not that file
    with host.store.transaction() as reg:
        rel = "kb/old/2019_ok.md"
        reg.put(SourceEntry(source_id=source_id_for(rel), source_path=str(host.root / rel),
                            source_root_relative_path=rel, status="failed", last_error="parser crashed"))
    assert _not_indexed(host, "summarise ok.md") == []
    # of two typed names that end one file's name, the longer is the one meant, whatever the set order
    with host.store.transaction() as reg:
        rel = "kb/q3_final_plan.pdf"
        reg.put(SourceEntry(source_id=source_id_for(rel), source_path=str(host.root / rel),
                            source_root_relative_path=rel, status="failed", last_error="parser crashed"))
    assert notindexed._tail_of("q3_final_plan.pdf", {"plan.pdf", "final_plan.pdf"}) == "final_plan.pdf"
    assert notindexed._tail_of("q3_final_plan.pdf", {"final_plan.pdf", "plan.pdf"}) == "final_plan.pdf"
    # ... but not a name glued to other letters: "rows.docx" is not "tablerows.docx"
    assert _not_indexed(host, "what is in ows.docx?") == [
        ("ows.docx", "not_found", "no file of this name among those the library indexes")]


# ----------------------------------------------------------------------------- memos


class CountingPlugins:
    """Just the two calls the memos wrap."""

    def __init__(self, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail

    def locate(self, request: LocateRequest) -> Locator:
        self.calls += 1
        if self.fail:
            raise LocatorError("broken file")
        return Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=self.calls)

    def clean_text(self, raw: str, query: str, block_text: str | None) -> Any:
        self.calls += 1
        return (raw, query, block_text, self.calls)


def test_locator_memo_reuses_answers_until_the_file_changes(tmp_path: Path) -> None:
    pipeline.clear_memos()
    f = tmp_path / "a.docx"
    f.write_bytes(b"one")
    plugins = CountingPlugins()
    request = LocateRequest(file=str(f), evidence="ev", query="q")
    first = pipeline._locate(plugins, request, os.stat(f), None)  # type: ignore[arg-type]
    again = pipeline._locate(plugins, request, os.stat(f), None)  # type: ignore[arg-type]
    assert first is again and plugins.calls == 1
    other_query = LocateRequest(file=str(f), evidence="ev", query="other")
    assert pipeline._locate(plugins, other_query, os.stat(f), None).paragraph_index == 2  # type: ignore[arg-type]
    f.write_bytes(b"changed!")
    os.utime(f, ns=(1, 1))
    assert pipeline._locate(plugins, request, os.stat(f), None).paragraph_index == 3  # type: ignore[arg-type]
    pipeline.clear_memos()
    assert pipeline._locate(plugins, request, os.stat(f), None).paragraph_index == 4  # type: ignore[arg-type]


def test_locator_failures_degrade_to_file_and_are_not_remembered(tmp_path: Path) -> None:
    pipeline.clear_memos()
    f = tmp_path / "bad.pdf"
    f.write_bytes(b"%PDF-broken")
    plugins = CountingPlugins(fail=True)
    request = LocateRequest(file=str(f), evidence="ev", query="q", block_id="b1")
    for _ in range(2):
        out = pipeline._locate(plugins, request, os.stat(f), None)  # type: ignore[arg-type]
        assert out.locator_precision == "file" and out.locator_degraded and out.block_id == "b1"
        assert out.reason == "locator failed: broken file"
    assert plugins.calls == 2


def test_clean_memo_is_per_plugin_set_and_keyed_by_chunk_query_and_block() -> None:
    pipeline.clear_memos()
    a, b = CountingPlugins(), CountingPlugins()
    assert pipeline._clean(a, "chunk", "q", None) is pipeline._clean(a, "chunk", "q", None)  # type: ignore[arg-type]
    pipeline._clean(a, "chunk", "q", "block")  # type: ignore[arg-type]
    pipeline._clean(a, "chunk", "q2", None)  # type: ignore[arg-type]
    pipeline._clean(b, "chunk", "q", None)  # type: ignore[arg-type]
    assert (a.calls, b.calls) == (3, 1)


# ----------------------------------------------------------------------------- citation cache


def citation(cid: str, quote: str = "q") -> Citation:
    return Citation(provider="lightrag", citation_id=cid, source_id="src-1", source_path="/ws/kb/ok.md",
                    source_root_relative_path="kb/ok.md", light_rag_doc_id=None, light_rag_file_path="ok.md",
                    light_rag_chunk_id=None, block_id=None, heading_path=[], raw_quote=quote, display_quote=quote,
                    locator_evidence_text=quote, quote_source="chunk", search_query="q", locator_precision="file",
                    locator_degraded=True, locator=Locator(locator_precision="file", locator_degraded=True),
                    citation_url="mnote-kr://open?path=kb/ok.md&precision=file", citation_markdown="[ok.md](x)",
                    relevance_score=1.0, diagnostics=CitationDiagnostics(
                        quote_source="chunk", raw_reference_mapped=True, sidecar_block_mapped=False,
                        display_cleaned=True, locator_text_source="chunk"))


class CrashingPlugins(CountingPlugins):
    """A locator that fails with something other than ``LocatorError`` (a plugin bug)."""

    def locate(self, request: LocateRequest) -> Locator:
        self.calls += 1
        raise RecursionError("maximum recursion depth exceeded")


def test_any_locator_failure_degrades_that_citation_to_file(tmp_path: Path) -> None:
    pipeline.clear_memos()
    f = tmp_path / "deep.docx"
    f.write_bytes(b"PK")
    plugins = CrashingPlugins()
    request = LocateRequest(file=str(f), evidence="ev", query="q", block_id="b2")
    out = pipeline._locate(plugins, request, os.stat(f), None)  # type: ignore[arg-type]
    assert (out.locator_precision, out.locator_degraded, out.block_id) == ("file", True, "b2")
    assert out.reason == "locator failed: RecursionError: maximum recursion depth exceeded"
    assert out.locator_reason == out.reason


@pytest.mark.parametrize("query, quotes, weak", [
    # no word of the query in any passage, same script: weak (the floor)
    ("how do I bake sourdough bread", ["The reactor coolant pump seals are inspected yearly."], True),
    ("怎样在家烤酸面包", ["核电厂应每十年进行一次定期安全审查。"], True),
    # a Chinese question over English passages only (or the reverse): words cannot judge it
    ("这个职位一年的薪水是多少", ["The salary ranges from $58,000 to $75,000 per year."], False),
    ("what is the annual salary", ["本职位年薪为五万八千元至七万五千元。"], False),
    # one passage in the query's script: words judge again
    ("这个职位一年的薪水是多少", ["The salary is $58,000.", "核电厂应每十年进行一次定期安全审查。"], True),
    # a query without a content word has no word to look for: words cannot judge it
    ("C", ["C 12 14 18", "The reactor coolant pump seals are inspected yearly."], False),
])
def test_weak_reason_does_not_judge_by_words_across_scripts(query: str, quotes: list[str], weak: bool) -> None:
    from mnote_kr.citations.render.noresults import weak_reason

    cits = [citation(f"c{i}", q) for i, q in enumerate(quotes)]  # no word part in their scores
    assert (weak_reason(cits, query) is not None) is weak


def test_a_cited_file_does_not_hide_another_file_of_its_name(host: Host) -> None:
    """kb/new.md is not cited because a file of the same name elsewhere is; a typed name with no file is
    answered by a cited file of that name (in another Unicode form: a file copied from a Mac)."""
    missing = notindexed.uncitable(host, host.registry(), "what is in new.md and gone.md", [],
                                   {"kb/sub/new.md", "kb/re\u0301sume\u0301.md"}, {})
    assert [(m.source_path, m.status) for m in missing] == [("kb/new.md", "not_indexed"), ("gone.md", "not_found")]
    typed = notindexed.uncitable(host, host.registry(), "what is in r\u00e9sum\u00e9.md", [],
                                 {"kb/re\u0301sume\u0301.md"}, {})
    # no "not_found" for the typed name; kb/new.md, never ingested, is named by every search
    assert [(m.source_path, m.status) for m in typed] == [("kb/new.md", "not_indexed")]


def test_a_query_naming_a_slide_or_page_cited_there_is_not_weak() -> None:
    """"第三张幻灯片的备注" over an English deck and a Chinese report: no passage holds "备注", and the report
    is in the query's script, so words alone call it weak; the deck's citation on slide 3, not approximate,
    answers the slide it names."""
    from mnote_kr.citations.render.noresults import weak_reason

    def placed(cid: str, quote: str, locator: Locator) -> Citation:
        return msgspec.structs.replace(citation(cid, quote), locator=locator,
                                       locator_precision=locator.locator_precision,
                                       locator_degraded=locator.locator_degraded)

    report = citation("c0", "核电厂应每十年进行一次定期安全审查。")
    notes = "Final notes on the third slide."
    on3 = placed("c1", notes, Locator(locator_precision="slide", locator_degraded=False, slide=3, speaker_notes=True))
    assert weak_reason([report, on3], "第三张幻灯片的备注") is None
    assert weak_reason([report, on3], "what do the notes on slide 3 say") is None
    # elsewhere, or only approximately there: words judge as before
    on2 = placed("c2", notes, Locator(locator_precision="slide", locator_degraded=False, slide=2, speaker_notes=True))
    assert weak_reason([report, on2], "第三张幻灯片的备注") is not None
    guess = placed("c3", notes, Locator(locator_precision="slide", locator_degraded=True, slide=3))
    assert weak_reason([report, guess], "第三张幻灯片的备注") is not None
    assert weak_reason([report, on3], "备注") is not None  # no slide named
    page3 = placed("c4", "Hello, here is some text", Locator(locator_precision="bbox", locator_degraded=False, page=3,
                                                             bbox=[1.0, 2.0, 3.0, 4.0]))
    assert weak_reason([report, page3], "第3页的备注") is None
    sheet = placed("c5", "Sales 12", Locator(locator_precision="cell", locator_degraded=False, sheet="Sales",
                                             range="B2"))
    assert weak_reason([report, sheet], "工作表「Sales」的备注") is None
