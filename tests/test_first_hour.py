"""The first hour of a new user: every answer says what happened to *their* file or input and
what to do, in words (one rule per test, checked over every case we know, not one example)."""

from __future__ import annotations

import json
import re
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import SAMPLES

from mnote_kr.app.host import Host
from mnote_kr.citations.map import notindexed
from mnote_kr.citations.pipeline import check_query_text, retrieval_depth
from mnote_kr.citations.render.cards import render_search
from mnote_kr.citations.render.noresults import why_no_results
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.citations.render.synctext import render_sync
from mnote_kr.cli.main import _DEFAULT_HINTS, command_path, error_line
from mnote_kr.core.config import load_config
from mnote_kr.core.registry import Registry
from mnote_kr.errors import MnoteKrError, UsageError
from mnote_kr.models import IndexedRoot, RegistrySnapshot, SearchResults, SourceEntry
from mnote_kr_lightrag.client.failures import explain_failure
from tests.cli_helpers import start_serve
from tests.surfaces import changed_note_host

LINK = "mineru__scanned.cafbc825-76a0ecf6.pdf"
DOC_ID = re.compile(r"\bdoc-[0-9a-f]{32}\b")
# Python dict reprs, raw JSON, and Python/JSON constants shown as values ("busy=False", "model=None").
REPR = re.compile(r"\{'|': |\[\{|\"\w+\": |\b(None|True|False|null|true|false)\b")


def _recorded_errors() -> list[str]:
    """Every ``error_msg`` LightRAG sent in the recorded payloads."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k in ("error_msg", "content_summary") and isinstance(v, str) and v:
                    found.add(v)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in SAMPLES.rglob("*.json"):
        try:
            walk(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, UnicodeDecodeError):
            continue
    return sorted(found)


# LightRAG 1.5.7's texts for the causes the issue reproduced (from its parsers' source).
_KNOWN = [
    f"[File Extraction]extracted no usable text from {LINK} (doc_id=doc-0123456789abcdef0123456789abcdef)",
    f"native parser returned empty content for /srv/inputs/{LINK}",
    # LightRAG 1.5.7's texts for a truncated DOCX and a Word template quote the link name.
    f"File is not a valid DOCX document: The file at '/srv/inputs/{LINK}' starts like a ZIP archive "
    "but is truncated or corrupt, so it cannot be opened as a DOCX package.",
    # LightRAG 1.5.7's own banner text for a truncated DOCX, as its doc status recorded it.
    "\n" + "=" * 68 + "\nERROR: File is not a valid DOCX document\n" + "=" * 68 + "\n\nThe file at "
    f"'/srv/engine/inputs/mnote_76dbe1c0/{LINK}' starts like a ZIP archive but is truncated or corrupt, so it "
    "cannot be opened as a DOCX package.\n\nSOLUTION:\n  1. Check the original document opens correctly\n"
    "  2. Re-upload a complete, uncorrupted copy to LightRAG\n\n" + "=" * 68 + "\n",
    # The managed engine's input dir on macOS (a space) and Windows (backslashes).
    f"File is not a valid DOCX document: The file at '/Users/ann/Library/Application Support/mnote-kr/"
    f"engine/inputs/{LINK}' starts like a ZIP archive but is truncated or corrupt.",
    f"File is not a valid DOCX document: The file at 'C:\\Users\\Ann Lee\\AppData\\Local\\mnote-kr\\"
    f"engine\\inputs\\{LINK}' starts like a ZIP archive but is truncated or corrupt.",
    f"file '{LINK}' is not a Word file, content type is "
    "'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml'",
]


@pytest.mark.parametrize("error", _recorded_errors() + _KNOWN)
def test_failure_reasons_name_the_users_file_never_a_link_name_or_doc_id(error: str) -> None:
    link = re.search(r"[\w\-.]+\.[0-9a-f]{8}-[0-9a-f]{8}\.\w+", error)
    link_name = link.group(0) if link else "broken.docx"
    user = "papers/" + re.sub(r"\.[0-9a-f]{8}-[0-9a-f]{8}", "", link_name)
    line = explain_failure(error, link_name=link_name, file_name=user)
    assert "\n" not in line and "====" not in line
    assert "'the file'" not in line and '"the file"' not in line  # the link's quotes go with it
    assert not re.search(r"[\\/]the file|inputs|Application|AppData", line), line  # and its folder
    assert "file at the file" not in line.lower(), line  # "The file at '<link>'" is "the file"
    assert link_name not in line or link_name == user.split("/")[-1]
    assert not DOC_ID.search(line) and "doc_id" not in line
    headline, _, advice = line.rpartition(": ")
    assert headline and advice, line  # every reason ends with what to do, after its headline
    assert "LightRAG" not in advice or "parser" in advice  # advice is mnote-kr's, not "re-upload"
    assert "Re-upload" not in line and "re-upload" not in line
    assert line.count("(") == line.count(")")  # no aside cut open
    words = re.findall(r"\w+…", line)
    assert words == [] or all(len(w) > 1 for w in words)


def test_a_scanned_pdf_is_told_it_needs_ocr() -> None:
    line = explain_failure(_KNOWN[0], link_name=LINK, file_name="papers/mineru__scanned.pdf")
    # The caller prints "papers/mineru__scanned.pdf: <reason>": the reason does not name it again.
    assert line.startswith("extracted no usable text from the file: ")
    assert "no text layer" in line and "OCR" in line and "ocrmypdf" in line
    assert line.count("(") == 0  # no nested asides in a line the CLI wraps in a sentence


def test_long_detail_is_cut_between_words() -> None:
    detail = "The parser " + " ".join(["stopped"] * 80) + " early."
    line = explain_failure(detail, link_name=None, file_name="a.docx")
    head = line.split(": 'mnote-kr")[0]
    assert head.endswith("…") and head[:-1].endswith("stopped")


def _make(cls: type[MnoteKrError], message: str) -> MnoteKrError:
    """An instance with just a message, whatever extra context the class's constructor wants."""
    exc = cls.__new__(cls)
    MnoteKrError.__init__(exc, message)
    return exc


def test_default_hints_name_the_command_that_ran_not_a_placeholder() -> None:
    assert command_path(["-w", "x", "roots", "add", "kb", "--json"]) == "mnote-kr roots add"
    assert command_path(["--workspace", "search", "search", "q"]) == "mnote-kr search"
    assert command_path(["nosuch"]) == "mnote-kr"
    for cls in _DEFAULT_HINTS:
        line = error_line(_make(cls, "boom"), "mnote-kr search")
        assert not re.search(r"\b[A-Z]{4,}\b", line), line  # no COMMAND, PATH, FILE
    assert error_line(UsageError("bad"), "mnote-kr search") == "Error: bad (see 'mnote-kr search --help')"


@pytest.mark.parametrize("query", ["x \udce7", "\ud800", "ok \udcff words"])
def test_a_query_with_bytes_that_are_not_utf8_is_a_usage_error(query: str) -> None:
    with pytest.raises(UsageError) as info:
        check_query_text(query)
    assert info.value.exit_code == 2 and info.value.hint and "UTF-8" in info.value.message
    info.value.message.encode("utf-8")  # the message itself can be printed


def test_top_k_is_the_number_of_citations_and_depth_is_separate() -> None:
    assert retrieval_depth({}, 1) == (20, 20)
    assert retrieval_depth({}, 50) == (20, 50)
    assert retrieval_depth({"query": {"retrieval_top_k": 60, "retrieval_chunk_top_k": 30}}, 5) == (60, 30)


def _reg(*entries: SourceEntry) -> Registry:
    return Registry(RegistrySnapshot(entries=list(entries)))


def _entry(rel: str, status: str, **kw: Any) -> SourceEntry:
    return SourceEntry(source_id=rel, source_path="/x/" + rel, source_root_relative_path=rel, status=status, **kw)


def test_no_results_says_why() -> None:
    assert why_no_results(_reg(), {}, False)["reason"] == "nothing_ingested"
    waiting = why_no_results(_reg(_entry("a.md", "submitted"), _entry("b.md", "pending")), {}, False)
    assert waiting["reason"] == "still_indexing" and "2 file(s)" in waiting["message"]
    live = _reg(_entry("a.md", "processed"))
    scoped = why_no_results(live, {"outOfScope": 3}, True)
    assert scoped["reason"] == "only_unusable_sources"
    assert "3 outside the files and folders searched" in scoped["message"]
    # the same words on every surface: the CLI's --scope is sourcePaths over HTTP and MCP, a folder on the web page
    assert "--scope" not in scoped["message"] and "sourcePaths" not in scoped["message"]
    stale = why_no_results(live, {"changedOnDisk": 1, "notLive": 1}, False)
    assert stale["reason"] == "only_unusable_sources" and "2 in files changed" in stale["message"]
    assert why_no_results(live, {}, False)["reason"] == "no_match"
    empty = SearchResults(query="q", mode="mix", provider="lightrag", results=[], not_indexed=[],
                          diagnostics={"noResults": why_no_results(_reg(), {}, False)})
    assert render_search(empty) == ("No citable results: nothing is ingested yet;"
                                    " add files with 'mnote-kr ingest FOLDER'.")


_CAUSES = {  # dropped reason -> (words naming the cause, the fix that fits it)
    "outOfScope": ("outside the files and folders searched", "search a wider folder or the whole workspace"),
    "changedOnDisk": ("changed, moved or deleted", "'mnote-kr ingest FILE' re-indexes a changed file"),
    "unmapped": ("no file of this workspace maps to", "counts them under Unmapped"),
    "unmappedWaiting": ("not recorded as indexed yet, with 1 file(s) sent", "'mnote-kr sync --wait 60' records"),
}


@pytest.mark.parametrize("causes", [{"outOfScope"}, {"changedOnDisk"}, {"unmapped"}, {"unmappedWaiting"},
                                    {"outOfScope", "unmappedWaiting"}, {"changedOnDisk", "unmapped"},
                                    {"outOfScope", "changedOnDisk", "unmappedWaiting"}])
def test_no_results_names_each_cause_with_the_fix_that_fits_it(causes: set[str]) -> None:
    """Passages found only where they cannot be cited: every cause is named with its own fix, and no
    fix is offered for a cause that is not there (a file sent without --wait is not 'unknown')."""
    entries = [_entry("a.md", "processed")] + ([_entry("b.md", "submitted")] if "unmappedWaiting" in causes else [])
    dropped = {("unmapped" if c == "unmappedWaiting" else c): 2 for c in causes}
    why = why_no_results(_reg(*entries), dropped, "outOfScope" in causes)
    assert why["reason"] == "only_unusable_sources"
    for cause, (named, fix) in _CAUSES.items():
        assert (named in why["message"], fix in why["message"]) == ((cause in causes,) * 2), (cause, why["message"])


def test_human_status_and_sync_show_words_not_python_or_json() -> None:
    info = {"workspace": "/w", "registry": {"entries": 3, "byStatus": {"processed": 2, "failed": 1}, "waiting": [],
                                            "failed": [{"sourcePath": "kb/b.docx", "reason": "not a DOCX (fix)"}]},
            "provider": {"provider": "lightrag", "url": "http://x", "documentsByStatus": {"processed": 2},
                         "pipelineBusy": False, "llmModel": None, "embeddingModel": "mnote-offline-embed",
                         "rerank": {"enabled": False, "binding": "null", "model": None,
                                    "queue": {"available": False}}}}
    text = render_status(info)
    assert "3 entries (2 indexed, 1 failed)" in text and "Failed:    kb/b.docx: not a DOCX (fix)" in text
    assert "(idle)" in text and "Rerank:    disabled\n" in text  # no details of a rerank that is off
    assert not REPR.search(text), text
    on = {**info, "provider": {**info["provider"], "rerank": {"enabled": True, "binding": "cohere", "model": "m",
                                                             "queue": {"available": True}}}}
    assert "Rerank:    enabled (binding cohere, model m, queue available)" in render_status(on)
    sync = {"reconcile": {"changed": {"count": 1, "paths": ["kb/a.md"]}, "moved": {"count": 0, "paths": []},
                          "missing": {"count": 0, "paths": []}, "new": {"count": 0, "paths": [], "notIngested": []},
                          "restored": {"count": 0, "paths": []}, "scanned": 4},
            "provider": {"before": {"pending": 1}, "after": {"processed": 1}, "followed": 1}}
    text = render_sync(sync)
    assert "changed on disk:" in text and "kb/a.md" in text and "Registry: 1 indexed\n" in text + "\n"
    assert not REPR.search(text), text
    failed = {**sync, "provider": {**sync["provider"], "after": {"failed": 1},
                                   "failed": [{"path": "kb/b.docx", "reason": "the file is damaged; restore it"}]}}
    text = render_sync(failed)
    assert "failed:                 kb/b.docx (the file is damaged; restore it)" in text, text
    sent = {**failed, "reconcile": {**sync["reconcile"], "ingest": {"failed": ["kb/c.pdf"],
                                                                   "failedReasons": {"kb/c.pdf": "the file is empty"}}}}
    assert "failed:                 kb/c.pdf (the file is empty)" in render_sync(sent)
    assert not REPR.search(text), text


@pytest.mark.parametrize("text,names", [
    ("what does 3.2 say, e.g. in the U.S. report", set()),
    ("compare Node.js and report.PDF", {"report.pdf"}),
    ("见 核电厂指南.docx 第3.2节", {"核电厂指南.docx"}),
    ("i.e. the notes.md file", {"notes.md"}),
])
def test_file_names_are_the_users_words_for_files(text: str, names: set[str]) -> None:
    assert notindexed.file_names(text) == names


@pytest.fixture
def host(tmp_path: Path) -> Host:
    ws = tmp_path / "ws"
    for rel in ("kb/target/built.md", "kb/drafts/wip.md", "kb/new.md", "kb/node_modules/x/dep.md"):
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(rel, encoding="utf-8")
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": "http://127.0.0.1:9"}}
    h = Host(ws, config=config)
    with h.store.transaction() as reg:
        reg.roots["kb"] = IndexedRoot(root_relative_path="kb", exclude_patterns=["drafts"])
    return h


def test_not_indexed_follows_the_rules_ingest_follows(host: Host) -> None:
    def named(query: str) -> list[tuple[str, str]]:
        return [(n.source_path, n.status) for n in notindexed.not_indexed(host, host.registry(), query)]

    planned = {rel for _, rel in host.workspace.expand(["kb"]).files}
    assert "kb/target/built.md" not in planned  # ingest never takes tool folders...
    # ...so they are not "not ingested yet": no such file among those the library indexes
    assert named("built.md") == [("built.md", "not_found")]
    assert named("dep.md") == [("dep.md", "not_found")]
    assert {n.reason for n in notindexed.not_indexed(host, host.registry(), "built.md")} == {
        "no file of this name among those the library indexes"}
    assert named("wip.md") == [("kb/drafts/wip.md", "excluded")]  # inside an excluded folder
    assert named("new.md") == [("kb/new.md", "not_indexed")]
    assert named("see 3.2 e.g. U.S") == []


def test_ingest_the_watcher_and_not_indexed_take_the_same_files(tmp_path: Path) -> None:
    """One rule for which files of a root are taken: what ``ingest`` sends is what reconcile (the
    watcher, ``sync``) sees and what ``notIndexed`` calls "not ingested yet"; what ingest excludes
    it calls excluded; what ingest skips (a symlink leaving the workspace) is never "not ingested yet"."""
    from mnote_kr.core.scan import scan_tree

    ws = tmp_path / "ws"
    outside = tmp_path / "elsewhere.md"
    outside.write_text("outside", encoding="utf-8")
    files = ["kb/take1.md", "kb/sub/take2.md", "kb/drafts/ex1.md", "kb/drafts/deep/ex2.md", "kb/ex3.tmp.md",
             "kb/old/ex4.md", "kb/sub/drafts/ex5.md", "kb/target/never1.md", "kb/.git/never2.md"]
    for rel in files:
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(rel, encoding="utf-8")
    (ws / "kb" / "skip1.md").symlink_to(outside)
    (ws / "kb" / "take3.md").symlink_to(ws / "kb" / "take1.md")  # a link inside the workspace is taken
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": "http://127.0.0.1:9"}}
    host = Host(ws, config=config)
    with host.store.transaction() as reg:
        reg.roots["kb"] = IndexedRoot(root_relative_path="kb", exclude_patterns=["drafts", "*.tmp.md", "old/*"])
    reg = host.registry()

    to_send, report = host.plan_ingest(["kb"])
    by_ingest = {s.rel_path: "take" for s in to_send}
    by_ingest |= {i.source_path: i.status for i in report.items}
    by_ingest |= {s.path: "skipped" for s in report.skipped}
    seen: dict[str, tuple[int, int]] = {}
    scan_tree(host.root, "kb", reg.roots, seen)
    claims = {}
    for rel in [*files, "kb/skip1.md", "kb/take3.md"]:
        name = rel.rsplit("/", 1)[1]
        claims[rel] = [n.status for n in notindexed.not_indexed(host, reg, f"what is in {name}")]

    for rel in [*files, "kb/skip1.md", "kb/take3.md"]:
        kind = re.match(r"[a-z]+", rel.rsplit("/", 1)[1]).group(0)  # type: ignore[union-attr]
        expected = {"take": ("take", True, ["not_indexed"]), "ex": ("excluded", False, ["excluded"]),
                    "skip": ("skipped", False, ["skipped"]), "never": (None, False, ["not_found"])}[kind]
        assert (by_ingest.get(rel), rel in seen, claims[rel]) == expected, rel


def test_a_changed_file_is_told_what_re_indexes_it(tmp_path: Path) -> None:
    """In a root added with --no-follow neither watch nor sync re-indexes a changed file: what they
    print says so and names the commands that do; no message claims 'sync' re-indexes it."""
    from mnote_kr.citations.render.synctext import render_sync
    from mnote_kr.sync.reconcile import reconcile_and_apply

    host, note = changed_note_host(tmp_path, IndexedRoot(root_relative_path="kb", run_on_change=False,
                                                          run_on_change_set=True))
    said: list[tuple[str, str, str]] = []
    summary = reconcile_and_apply(host, on_action=lambda kind, rel, why: said.append((kind, rel, why)))
    assert [(k, r) for k, r, _ in said] == [("stale", "kb/a.md")]
    assert "'mnote-kr ingest kb/a.md' re-indexes it" in said[0][2]
    assert "'mnote-kr roots add kb' makes the root follow" in said[0][2]
    text = render_sync({"reconcile": summary, "provider": {}})
    assert "1 changed file(s) not re-indexed" in text and "'mnote-kr ingest kb/a.md' re-indexes it" in text
    reg = host.registry()
    assert reg.entries["kb/a.md"].stale_reason == "content changed on disk"  # the record keeps the plain reason
    for message in (render_status(host.status()), why_no_results(reg, {"changedOnDisk": 1}, False)["message"]):
        assert "'mnote-kr sync' re-indexes" not in message and "'mnote-kr ingest FILE' re-indexes" in message
    # A root that follows (the default) re-indexes it: sync does not tell the user to.
    sent = {**summary, "changed": {**summary["changed"], "notReindexed": []}, "ingest": {"ingested": ["kb/a.md"]}}
    assert "not re-indexed" not in render_sync({"reconcile": sent, "provider": {}})


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_serve_removes_its_token_files_on_sigterm_and_sighup(tmp_path: Path, signum: int) -> None:
    home = tmp_path / "home"
    proc = start_serve(home, tmp_path / "ws")
    state = home / "state"
    assert (state / "server.json").exists() and (state / "server-token").exists()
    proc.send_signal(signum)
    proc.communicate(timeout=30)
    assert not (state / "server.json").exists() and not (state / "server-token").exists()


def test_a_killed_servers_files_are_recognised_as_stale_and_replaced(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = start_serve(home, tmp_path / "ws")
    first.kill()
    first.communicate(timeout=30)
    state = home / "state"
    assert json.loads((state / "server.json").read_text(encoding="utf-8"))["pid"] == first.pid
    second = start_serve(home, tmp_path / "ws")
    try:
        assert json.loads((state / "server.json").read_text(encoding="utf-8"))["pid"] == second.pid
    finally:
        second.terminate()
        _, err = second.communicate(timeout=30)
    assert f"stale files of stopped server (pid {first.pid})" in err
    assert not (state / "server.json").exists()


def test_every_error_class_has_a_hint_and_the_right_exit_code() -> None:
    seen: set[type[MnoteKrError]] = set()

    def walk(cls: type[MnoteKrError]) -> None:
        seen.add(cls)
        for sub in cls.__subclasses__():
            walk(sub)

    walk(MnoteKrError)
    for cls in seen:
        line = error_line(_make(cls, "something failed"), "mnote-kr ingest")
        assert re.match(r"^Error: something failed \(.+\)$", line), (cls, line)
        assert cls.exit_code == 2 if issubclass(cls, UsageError) else cls.exit_code in (1, 2)


def test_a_query_over_lightrags_limit_is_a_usage_error_before_sending() -> None:
    from mnote_kr.models import QueryRequest
    from mnote_kr_lightrag.client.http import _detail
    from mnote_kr_lightrag.client.querying import MAX_QUERY_CHARS, check_query

    with pytest.raises(UsageError) as info:
        check_query(QueryRequest(query="x" * (MAX_QUERY_CHARS + 1)))
    assert str(MAX_QUERY_CHARS) in info.value.message and info.value.hint
    check_query(QueryRequest(query="x" * MAX_QUERY_CHARS))  # at the limit: fine
    # A 422 from LightRAG reads as words, not JSON.
    detail = _detail({"detail": [{"type": "string_too_long", "loc": ["body", "query"],
                                  "msg": "String should have at most 65536 characters"}]})
    assert detail == "query: String should have at most 65536 characters"


def test_text_output_says_approximate_only_for_degraded_locators() -> None:
    from mnote_kr.citations.render.cards import source_card
    from mnote_kr.models import Citation, CitationDiagnostics, Locator

    def card(precision: str, degraded: bool) -> str:
        loc = Locator(locator_precision=precision, locator_degraded=degraded, paragraph_index=3)
        c = Citation(provider="lightrag", citation_id="[a1b2]", source_id="s", source_path="/w/a.docx",
                     source_root_relative_path="a.docx", light_rag_doc_id=None, light_rag_file_path="a.docx",
                     light_rag_chunk_id=None, block_id=None, heading_path=[], raw_quote="q", display_quote="q",
                     locator_evidence_text="q", quote_source="chunk", search_query="q",
                     locator_precision=precision, locator_degraded=degraded, locator=loc, citation_url="u",
                     citation_markdown="m", relevance_score=None,
                     diagnostics=CitationDiagnostics(quote_source="chunk", raw_reference_mapped=True,
                                                     sidecar_block_mapped=False, display_cleaned=True,
                                                     locator_text_source="chunk"))
        return source_card(c)

    assert "located: paragraph 4" in card("paragraph", False)  # paragraphIndex 3, counted from 1
    assert "(approximate)" not in card("paragraph", False)
    assert "(approximate)" in card("paragraph", True)
    # A degraded box (a semantic match cites the passage) is never labelled exact.
    assert "exact" not in card("bbox", True) and "(approximate)" in card("bbox", True)
    assert "exact box" in card("bbox", False)


_LOCATORS = [
    {"locator_precision": "bbox", "locator_degraded": False, "page": 6, "bbox": [317.01, 223.45, 556.14, 261.47]},
    {"locator_precision": "bbox", "locator_degraded": True, "page": 2, "bbox": [1.0, 2.0, 3.0, 4.0]},
    {"locator_precision": "paragraph", "locator_degraded": False, "paragraph_index": 12,
     "highlight": {"start": 0, "end": 67}},
    {"locator_precision": "paragraph", "locator_degraded": True, "paragraph_index": 0},
    {"locator_precision": "file", "locator_degraded": True},
]


@pytest.mark.parametrize("fields", _LOCATORS)
def test_every_human_rendering_of_a_locator_is_words_with_its_numbers(fields: dict[str, Any]) -> None:
    """``locate`` and the demo print a locator as the source cards do: its precision in words and
    the page, box or paragraph a person can check, never ``page=None bbox=None``."""
    from mnote_kr.citations.render.cards import locator_text
    from mnote_kr.models import Highlight, Locator

    span = fields.get("highlight")
    loc = Locator(**{**fields, "highlight": Highlight(**span) if span else None})
    text = locator_text(loc)
    assert not REPR.search(text), text
    assert ("(approximate)" in text) == (loc.locator_degraded and loc.locator_precision != "file"), text
    if loc.page is not None:
        assert f"p.{loc.page}" in text and all(f"{v:g}" in text for v in loc.bbox or []), text
    if loc.paragraph_index is not None:
        assert f"paragraph {loc.paragraph_index + 1}" in text, text  # people count paragraphs from 1
    if loc.highlight is not None:
        assert f"{loc.highlight.start}-{loc.highlight.end}" in text, text


def test_engine_status_and_reembed_print_words_not_python_values() -> None:
    from mnote_kr_lightrag.commands import engine_status_text
    from mnote_kr_lightrag.engine.managed import EngineInfo

    for healthy in (True, False):
        info = EngineInfo(url="http://127.0.0.1:5", api_key="sk-never-shown", input_dir="/i", working_dir="/w",
                          pids={"models": 7613, "server": 7618}, offline_models=True, healthy=healthy,
                          server_log="/s/server.out")
        text = engine_status_text(info)
        assert not REPR.search(text) and "server pid 7618" in text and "sk-never-shown" not in text
        assert ("healthy" in text) == healthy and ("/s/server.out" in text) != healthy


@pytest.mark.parametrize("status", ["not_indexed", "excluded", "skipped", "failed", "stale", "submitted",
                                    "delete_submitted", "duplicate"])
def test_search_text_names_a_files_state_in_words(status: str) -> None:
    from mnote_kr.models import NotIndexed

    result = SearchResults(query="q", mode="mix", provider="lightrag", results=[],
                           not_indexed=[NotIndexed(source_path="kb/x.pdf", status=status, reason="why")],
                           diagnostics={})
    line = render_search(result).splitlines()[0]  # first: before the cards (and "No citable results.")
    assert line.startswith("not indexed: kb/x.pdf (") and line.endswith("why)"), line
    assert "_" not in line and line.count("not indexed") == 1, line


def test_engine_status_says_where_this_workspaces_own_server_is(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Each workspace gets its own LightRAG server; 'engine status' in a workspace says whether it runs
    (the shared engine's URL alone is not the one 'status' and 'search' talk to), and outside any
    workspace says nothing of one."""
    from mnote_kr_lightrag.commands import _workspace_server_line

    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "papers"
    (ws / ".mnote").mkdir(parents=True)
    line = _workspace_server_line(str(ws))
    assert line == f"This workspace ({ws.resolve()}): its own server starts on first use (ingest, search, status)"
    assert _workspace_server_line(str(tmp_path)) is None  # not a workspace: no .mnote


def test_status_names_each_stale_file_with_its_reason_and_what_to_do(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    config["providers"] = {"lightrag": {"url": "http://127.0.0.1:9"}}
    host = Host(tmp_path, config=config)
    with host.store.transaction() as reg:
        for i in range(25):
            reg.put(_entry(f"m{i:02}.pdf", "processed", stale=True, stale_reason=f"moved to n{i:02}.pdf"))
            reg.put(_entry(f"n{i:02}.pdf", "processed"))  # the new path, cited: the move was followed
        reg.put(_entry("live.pdf", "processed"))
    info = host.status()
    shown = info["registry"]["staleEntries"]
    assert [s["sourcePath"] for s in shown] == [f"m{i:02}.pdf" for i in range(20)]  # the first 20, in order
    assert all(s["reason"] == f"moved to n{s['sourcePath'][1:3]}.pdf" for s in shown)
    text = render_status(info)
    # a followed rename is said as such, not as something to repair (a newcomer read it as broken)
    assert "Moved:     m00.pdf -> n00.pdf" in text and "Stale:     m00.pdf" not in text
    assert "cited under the new path; 'mnote-kr prune' drops the old records" in text
    # the 5 not listed are moves followed too: counted as such, not as stale (nc18b problem 7)
    assert "(and 5 more; followed: cited under the new path" in text and "more stale" not in text
    assert "Registry:  51 entries (26 indexed, 25 moved and followed)" in text
    assert not REPR.search(text), text
    (tmp_path / "other").mkdir()
    other = Host(tmp_path / "other", config=config)
    with other.store.transaction() as reg:
        reg.put(_entry("gone.pdf", "processed", stale=True, stale_reason="source missing on disk"))
        reg.put(_entry("old.pdf", "processed", stale=True, stale_reason="moved to new.pdf"))
        reg.put(_entry("new.pdf", "processed"))
    text = render_status(other.status())
    assert "Stale:     gone.pdf: source missing on disk" in text and "adds one back" in text
    assert "Moved:     old.pdf -> new.pdf" in text and "more stale" not in text


def test_a_fallback_note_says_why_without_advice_or_link_name() -> None:
    from mnote_kr_lightrag.client.fallback import note

    error = f"file '/srv/inputs/{LINK}' is not a Word file, content type is 'template.main+xml'"
    line = note(error, LINK)
    assert "a Word template" in line and "indexed from the text mnote-kr reads" in line
    assert LINK not in line and "/srv/inputs" not in line and "'the file'" not in line
    assert "--force" not in line and "save as" not in line  # indexed: nothing is left to do


def test_a_file_sent_and_not_yet_recorded_as_processed_is_cited_from_the_providers_answer(tmp_path: Path) -> None:
    """Seen as a newcomer: after 'ingest .' without --wait, LightRAG had indexed the file and
    answered from it, but search said "not recorded as indexed yet". A passage the provider
    returns for a file it was sent is citable (the provider's file name is per content); one
    whose file changed since it was sent, or whose entry is stale or failed, still is not."""
    from mnote_kr_testkit.fakes import FakeProvider, fake_host

    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    for name, text in (("fox.md", "The quick brown fox jumps over the lazy dog."),
                       ("owl.md", "The owl hunts at night."), ("bat.md", "The bat sleeps by day.")):
        (ws / "docs" / name).write_text(text, encoding="utf-8")
    before = {p.name: p.read_bytes() for p in (ws / "docs").iterdir()}
    host, _ = fake_host(ws, FakeProvider(ingest_status="submitted"))
    host.ingest(["docs"])  # no --wait: every entry stays "submitted" until a sync or watch follows it
    assert {e.status for e in host.registry().entries.values()} == {"submitted"}
    found = host.search("fox owl bat")
    assert {c.source_root_relative_path for c in found.results} == {"docs/fox.md", "docs/owl.md", "docs/bat.md"}
    opened = host.open(found.results[0].citation_id)  # what search cites, open opens
    assert opened.resource_path.endswith(found.results[0].source_root_relative_path)
    scoped = host.search("fox", scope=["docs/fox.md"])  # a cited file is not also "not indexed"
    assert [c.source_root_relative_path for c in scoped.results] == ["docs/fox.md"] and scoped.not_indexed == []

    with host.store.transaction() as reg:
        reg.update("docs/owl.md", stale=True, stale_reason="moved")
        reg.update("docs/bat.md", status="failed", last_error="parser crashed")
    (ws / "docs" / "fox.md").write_text("The fox moved away.", encoding="utf-8")
    before["fox.md"] = (ws / "docs" / "fox.md").read_bytes()
    result = host.search("fox owl bat")
    assert result.results == []
    # The stale and the failed entry map to nothing citable; the changed file is named as changed,
    # not as "still indexing" (it was sent, but that version is gone).
    assert result.diagnostics["dropped"] == {"unmapped": 2, "changedOnDisk": 1}
    assert result.diagnostics["noResults"]["reason"] == "only_unusable_sources"
    assert "1 in files changed" in result.diagnostics["noResults"]["message"]
    assert {p.name: p.read_bytes() for p in (ws / "docs").iterdir()} == before


@pytest.mark.parametrize("error", [
    # (what LightRAG 1.5.7's native DOCX parser says of a DOCX holding XML comments is said in words of its own:
    # tests/test_fallback_reasons.py)
    "'NoneType' object is not subscriptable",
    "'list' object has no attribute 'get'",
])
def test_a_fault_inside_lightrags_parser_is_told_as_such_not_in_python_words(error: str) -> None:
    from mnote_kr_lightrag.client.fallback import note

    said = note(error, None)
    assert "an internal error of LightRAG's parser" in said
    assert "object" not in said and "cython" not in said and "NoneType" not in said
    line = explain_failure(error, link_name=None, file_name="a.docx")
    assert line.startswith("an internal error of LightRAG's parser: ") and "'mnote-kr ingest a.docx'" in line
