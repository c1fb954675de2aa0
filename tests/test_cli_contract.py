"""The ``mnote-kr`` command line as a user and the acceptance checks run it.

Every test runs the real CLI as a subprocess (``python -m mnote_kr``) with its own
``MNOTE_KR_HOME`` and a workspace configured through ``<ws>/.mnote/config.toml``, against
the session's real LightRAG engine. The API key only travels in the environment. Files get
unique content (a uuid) because LightRAG refuses identical content under a second name.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from tests.cli_helpers import cli_env, turbine_pdf

pytestmark = pytest.mark.integration

CITATION_KEYS = {
    "schema", "provider", "citationId", "sourceId", "sourcePath", "sourceRootRelativePath", "lightRagDocId",
    "lightRagFilePath", "lightRagChunkId", "blockId", "headingPath", "rawQuote", "displayQuote",
    "locatorEvidenceText", "quoteSource", "searchQuery", "locatorPrecision", "locatorDegraded", "locator",
    "citationUrl", "citationMarkdown", "relevanceScore", "diagnostics",
}
CITATION_DIAGNOSTICS_KEYS = {"quoteSource", "rawReferenceMapped", "sidecarBlockMapped", "displayCleaned",
                             "locatorTextSource"}
LOCATOR_KEYS = {"locatorPrecision", "locatorDegraded", "page", "bbox", "bboxUnit", "bboxOrigin", "paragraphIndex",
                "paraId", "blockId", "highlight"}
CITATION_ID = re.compile(r"^\[(IMG-)?[0-9a-z]{4,}\]$")


# ----------------------------------------------------------------------------- running the CLI




@dataclass
class Cli:
    """``mnote-kr`` bound to one workspace (its cwd) and one home."""

    ws: Path
    home: Path
    api_key: str | None

    def run(self, *args: str, code: int = 0, stdin: str | None = None,
            timeout: float = 180) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([sys.executable, "-m", "mnote_kr", *args], cwd=self.ws,
                              env=cli_env(self.home, self.api_key), input=stdin, capture_output=True, text=True,
                              encoding="utf-8", timeout=timeout)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert proc.returncode == code, f"mnote-kr {' '.join(args)} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        return proc

    def json(self, *args: str, code: int = 0) -> Any:
        proc = self.run(*args, "--json", code=code)
        return json.loads(proc.stdout)


def make_workspace(base: Path, engine: Any) -> Cli:  # noqa: ANN401
    ws, home = base / "ws", base / "home"
    (ws / ".mnote").mkdir(parents=True)
    home.mkdir()
    (ws / ".mnote" / "config.toml").write_text(
        f'[providers.lightrag]\nurl = "{engine.url}"\ninput_dir = "{engine.input_dir}"\n', encoding="utf-8")
    return Cli(ws, home, engine.api_key)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ----------------------------------------------------------------------------- the knowledge base


def chem_docx(token: str) -> tuple[bytes, int]:
    b = DocxBuilder()
    b.heading("Reagents " + token, 1)
    b.para("This report lists reagents used in the lab, run " + token + ".")
    b.heading("Amines", 2)
    b.para("Morpholine is stored in the cold room and used as a base.")
    target = b.para("Pyrrolidine is a cyclic secondary amine; we add five parts per thousand to the electrolyte.")
    b.para("Triethylsilyl protecting groups come off in acid.")
    return b.build(), target




@dataclass
class KB:
    cli: Cli
    token: str
    report: dict[str, Any]
    docx_target: int
    sources: dict[Path, str]


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, lightrag_engine: Any) -> KB:  # noqa: F811
    """One workspace: root ``kb`` (``draft.md`` excluded) with Markdown, DOCX, PDF and a broken PDF."""
    cli = make_workspace(tmp_path_factory.mktemp("cli-contract"), lightrag_engine)
    token = uuid.uuid4().hex[:10]
    kbdir = cli.ws / "kb"
    (kbdir / "notes").mkdir(parents=True)
    (kbdir / "papers").mkdir()
    (kbdir / "notes" / "zebra.md").write_text(
        f"# Zebra field notes {token}\n\n## Habitat\n\nThe zebra herd grazes beside the obsidian river.\n",
        encoding="utf-8")
    (kbdir / "notes" / "draft.md").write_text(f"# Draft {token}\n\nUnfinished thoughts on basalt.\n", encoding="utf-8")
    docx, target = chem_docx(token)
    (kbdir / "papers" / "reagents.docx").write_bytes(docx)
    (kbdir / "papers" / "icing.pdf").write_bytes(turbine_pdf(token))
    (kbdir / "papers" / "broken.pdf").write_bytes(b"%PDF-1.4\n" + uuid.uuid4().bytes * 8 + b"\ngarbage")
    sources = {p: sha(p) for p in kbdir.rglob("*") if p.is_file()}

    root = cli.json("roots", "add", "kb", "--exclude", "draft.md")
    assert root == {"rootRelativePath": "kb", "recursive": True, "excludePatterns": ["draft.md"],
                    "runOnChange": True, "runOnChangeSet": True, "updatedAtMs": root["updatedAtMs"]}
    # broken.pdf fails to index: the report is still printed, and the exit code says so.
    report = cli.json("ingest", "kb", "--wait", "--timeout", "120", code=1)
    (kbdir / "notes" / "later.md").write_text(f"# Later {token}\n\nWritten after the ingest.\n", encoding="utf-8")
    return KB(cli, token, report, target, sources)


def search(kb: KB, query: str, *extra: str) -> dict[str, Any]:
    return kb.cli.json("search", query, "--top-k", "10", *extra)


def check_citation(c: dict[str, Any], ws: Path, query: str) -> None:
    assert CITATION_KEYS <= set(c), CITATION_KEYS - set(c)
    assert c["schema"] == "mnote.knowledge_rag.citation.v1" and c["provider"] == "lightrag"
    assert CITATION_ID.match(c["citationId"]), c["citationId"]
    assert Path(c["sourcePath"]) == ws / c["sourceRootRelativePath"]
    assert c["sourceId"].startswith("src-") and c["lightRagDocId"].startswith("doc-")
    assert c["lightRagChunkId"] and isinstance(c["headingPath"], list)
    assert c["searchQuery"] == query
    assert isinstance(c["displayQuote"], str) and c["displayQuote"].strip()
    assert not re.search(r"</?(equation|drawing|table|cite)\b", c["displayQuote"])
    assert c["quoteSource"] in ("sidecar", "chunk")
    assert c["locatorPrecision"] == c["locator"]["locatorPrecision"] in ("bbox", "paragraph", "file")
    assert c["locatorDegraded"] == c["locator"]["locatorDegraded"]
    assert LOCATOR_KEYS <= set(c["locator"])
    assert c["locator"]["bboxUnit"] == "pt" and c["locator"]["bboxOrigin"] == "top-left"
    if c["locatorPrecision"] == "file":
        assert c["locatorDegraded"] is True and c["locator"]["page"] is None and c["locator"]["bbox"] is None
    name = Path(c["sourceRootRelativePath"]).name
    assert c["citationMarkdown"].startswith(f"[{name}") and c["citationUrl"] in c["citationMarkdown"]
    assert isinstance(c["relevanceScore"], float)
    assert CITATION_DIAGNOSTICS_KEYS <= set(c["diagnostics"])
    assert c["diagnostics"]["quoteSource"] == c["quoteSource"] and c["diagnostics"]["rawReferenceMapped"] is True
    # the quote is the answering sentences of the passage; the passage is the context
    assert isinstance(c["contextQuote"], str) and c["displayQuote"].strip("…") in c["contextQuote"]
    assert isinstance(c["alternatives"], list) and len(c["alternatives"]) <= 2
    for alt in c["alternatives"]:  # each a full locator of the same file, with its own ID and quote
        assert CITATION_ID.match(alt["citationId"]) and alt["citationId"] != c["citationId"]
        assert alt["locatorPrecision"] == alt["locator"]["locatorPrecision"] and LOCATOR_KEYS <= set(alt["locator"])
        assert isinstance(alt["displayQuote"], str) and isinstance(alt["relevanceScore"], float)
        assert alt["relevanceScore"] <= c["relevanceScore"]


# ----------------------------------------------------------------------------- roots


def test_roots_add_list_remove_json_round_trip(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws", tmp_path / "home", None)
    (cli.ws / "papers" / "old").mkdir(parents=True)
    (cli.ws / "books").mkdir()
    cli.home.mkdir()
    assert cli.json("roots", "list") == {"indexedRoots": []}
    added = cli.json("roots", "add", "papers", "--exclude", "old", "--exclude", "*.tmp", "--run-on-change")
    assert added["rootRelativePath"] == "papers" and added["excludePatterns"] == ["old", "*.tmp"]
    assert added["runOnChange"] is True and added["recursive"] is True
    flat = cli.json("roots", "add", "books", "--no-recursive")
    assert flat["recursive"] is False
    listed = cli.json("roots", "list")["indexedRoots"]
    assert [r["rootRelativePath"] for r in listed] == ["books", "papers"]
    assert "papers  (recursive) exclude=old,*.tmp" in cli.run("roots", "list").stdout
    # Following is the default (a bare 'roots add' follows); --no-follow opts out and is listed.
    assert flat["runOnChange"] is True
    assert cli.json("roots", "add", "papers", "--exclude", "old", "--exclude", "*.tmp", "--no-follow")[
        "runOnChange"] is False
    assert "papers  (recursive, no-follow) exclude=old,*.tmp" in cli.run("roots", "list").stdout
    assert cli.json("roots", "add", "papers", "--exclude", "old", "--exclude", "*.tmp")["runOnChange"] is True
    # Adding a root again replaces its rules: the human output says so, with what was there.
    assert cli.run("roots", "add", "books", "--no-recursive").stdout.strip() == (
        "Root books was indexed already, with the same rules (flat)")
    assert cli.run("roots", "add", "books").stdout.strip() == "Updated root books: now (recursive), was (flat)"
    cli.run("roots", "add", "books", "--no-recursive")
    assert cli.json("roots", "remove", "books")["rootRelativePath"] == "books"
    assert [r["rootRelativePath"] for r in cli.json("roots", "list")["indexedRoots"]] == ["papers"]
    again = cli.run("roots", "remove", "books", "--json", code=1)
    assert again.stderr.startswith("Error: Not an indexed root: books")
    assert json.loads(again.stdout)["error"]["message"] == "Not an indexed root: books"  # --json: one error object
    assert (cli.ws / "books").is_dir() and (cli.ws / "papers" / "old").is_dir()  # folders untouched


# ----------------------------------------------------------------------------- ingest, status


def test_roots_add_says_which_folder_it_added_as_an_absolute_path(tmp_path: Path) -> None:
    # 'roots add .' printed "Added root . (recursive)": the reader could not see which folder that was.
    cli = Cli(tmp_path / "ws", tmp_path / "home", None)
    (cli.ws / "papers").mkdir(parents=True)
    (cli.ws / ".mnote").mkdir()
    cli.home.mkdir()
    ws = cli.ws.resolve()
    assert cli.run("roots", "add", ".").stdout.strip() == f"Added root {ws} (recursive)"
    assert cli.run("roots", "add", "papers", "--no-recursive").stdout.strip() == f"Added root {ws / 'papers'} (flat)"
    # stored relative to the workspace, as before
    assert [r["rootRelativePath"] for r in cli.json("roots", "list")["indexedRoots"]] == ["", "papers"]


def test_ingest_json_reports_every_file_with_its_status(kb: KB) -> None:
    report = kb.report
    assert set(report) == {"items", "skipped", "counts", "remaining", "nextCall", "waitTimedOut", "wordsOnly",
                           "providerError", "providerStopped"}
    assert report["providerError"] is None  # the provider answered throughout: no error to carry
    assert report["remaining"] == 0 and report["nextCall"] is None  # no cap asked for: every file was taken
    assert report["waitTimedOut"] is None  # every file indexed before the wait ended
    assert report["wordsOnly"] is None  # a waiting ingest embeds the places it looked at: none left by words
    items = {i["sourcePath"]: i for i in report["items"]}
    for item in report["items"]:
        assert set(item) == {"sourcePath", "status", "reason", "lightRagDocId"}
    assert items["kb/notes/draft.md"]["status"] == "excluded" and "draft.md" in items["kb/notes/draft.md"]["reason"]
    for rel in ("kb/notes/zebra.md", "kb/papers/reagents.docx", "kb/papers/icing.pdf"):
        assert items[rel]["status"] == "processed" and items[rel]["lightRagDocId"].startswith("doc-")
    assert items["kb/papers/broken.pdf"]["status"] == "failed" and items["kb/papers/broken.pdf"]["reason"]
    assert report["counts"] == {"excluded": 1, "failed": 1, "processed": 3}
    again = kb.cli.json("ingest", "kb/notes/zebra.md", "kb/papers/reagents.docx", "kb/papers/icing.pdf")
    assert {i["sourcePath"]: i["status"] for i in again["items"]} == {
        "kb/notes/zebra.md": "already_registered", "kb/papers/reagents.docx": "already_registered",
        "kb/papers/icing.pdf": "already_registered"}
    assert again["counts"] == {"already_registered": 3}
    human = kb.cli.run("ingest", "kb/notes/zebra.md").stdout
    assert "already_registered" in human and "kb/notes/zebra.md" in human
    assert human.strip().endswith("already_registered: 1")


def test_status_json_has_registry_counts_provider_health_rerank_and_unmapped(kb: KB, lightrag_engine: Any) -> None:  # noqa: F811
    status = kb.cli.json("status")
    reg = status["registry"]
    assert reg["entries"] == 4 and reg["byStatus"] == {"failed": 1, "processed": 3}
    assert Path(reg["path"]).parent == kb.cli.ws / ".mnote" / "index"
    assert [r["rootRelativePath"] for r in status["indexedRoots"]] == ["kb"]
    prov = status["provider"]
    assert prov["provider"] == "lightrag" and prov["reachable"] is True and prov["error"] is None
    assert prov["url"] == lightrag_engine.url and prov["coreVersion"] == "1.5.7"
    assert prov["pipelineBusy"] in (True, False) and prov["llmModel"] and prov["embeddingModel"]
    assert {"enabled", "binding", "model", "queue"} <= set(prov["rerank"]) and prov["rerank"]["enabled"] is False
    assert prov["documentsByStatus"]["processed"] >= 3
    assert isinstance(prov["unmapped"], list)
    assert Path(reg["path"]).is_file()
    registry = json.loads(kb.cli.run("registry", "export").stdout)  # the file is packed; export is JSON
    ours = {e["lightRagFilePath"] for e in registry["entries"]}
    assert len(ours) == 4 and not ours & {u.get("filePath") for u in prov["unmapped"]}
    human = kb.cli.run("status").stdout
    assert "Registry:  4 entries" in human and "Rerank:    disabled" in human
    assert f"at {lightrag_engine.url}" in human and "1.5.7" in human


# ----------------------------------------------------------------------------- search


def test_search_json_is_exactly_the_search_results_contract(kb: KB) -> None:
    query = "pyrrolidine"  # one word: see the report about multi-word DOCX queries
    result = kb.cli.json("search", query, "--scope", "kb", "--top-k", "5", "--mode", "naive")
    assert list(result) == ["schema", "query", "mode", "provider", "rerank", "results", "notIndexed", "diagnostics",
                            "weak", "weakReason"]
    assert result["weak"] is False and result["weakReason"] is None  # the query's word is in the passages
    assert result["schema"] == "mnote.knowledge_rag.search_results.v1"
    assert result["query"] == query and result["mode"] == "naive" and result["provider"] == "lightrag"
    assert result["rerank"] == {"requested": False, "enabled": result["rerank"]["enabled"], "model": None}
    assert isinstance(result["diagnostics"], dict)
    # The scope's one file that cannot be cited is named with its status (a scope is never silently short).
    # the failed file, and the file written after the ingest (every search names a file never ingested)
    assert [(n["sourcePath"], n["status"]) for n in result["notIndexed"]] == [("kb/papers/broken.pdf", "failed"),
                                                                              ("kb/notes/later.md", "not_indexed")]
    assert 1 <= len(result["results"]) <= 5
    for c in result["results"]:
        check_citation(c, kb.cli.ws, query)
    docx = [c for c in result["results"] if c["sourceRootRelativePath"] == "kb/papers/reagents.docx"]
    assert docx, result["diagnostics"]
    c = docx[0]
    assert c["locatorPrecision"] == "paragraph" and c["locator"]["paragraphIndex"] == kb.docx_target
    assert c["locator"]["page"] is None and c["locator"]["bbox"] is None and "Pyrrolidine" in c["displayQuote"]
    assert "p." not in c["citationMarkdown"]  # a DOCX has no pages
    # a degraded place said so only when the locator says so: "approximate", or how it was placed (round 28)
    said = any(w in c["citationMarkdown"] for w in ("approximate", "placed by meaning", "where the search found it"))
    assert said == c["locatorDegraded"], c["citationMarkdown"]
    assert len({c["citationId"] for c in result["results"]}) == len(result["results"])


def test_search_for_nothing_in_the_library_is_weak_in_json_and_in_words(kb: KB) -> None:
    # The real engine returns its nearest chunks for any query; none holds these words.
    nonsense = "zzzzqqqxx nonexistentterm"
    result = search(kb, nonsense)
    assert result["results"] and result["weak"] is True
    assert result["weakReason"].startswith("none of the query's words")
    text = kb.cli.run("search", nonsense, "--top-k", "10").stdout
    assert text.splitlines()[0] == f"Weak result: {result['weakReason']}."
    real = search(kb, f"zebra herd obsidian river {kb.token}")
    assert real["weak"] is False and real["weakReason"] is None


def test_search_pdf_citation_has_page_and_box_and_rerank_request_is_echoed(kb: KB) -> None:
    query = f"blade heating power loss {kb.token}"
    result = search(kb, query, "--rerank", "--mode", "mix")
    assert result["rerank"]["requested"] is True and result["mode"] == "mix"
    pdf = [c for c in result["results"] if c["sourceRootRelativePath"] == "kb/papers/icing.pdf"]
    assert pdf, result["diagnostics"]
    c = pdf[0]
    check_citation(c, kb.cli.ws, query)
    loc = c["locator"]
    assert c["locatorPrecision"] == "bbox" and c["locatorDegraded"] is False and loc["page"] == 1
    x0, y0, x1, y1 = loc["bbox"]
    assert 0 <= x0 < x1 <= 612 and 0 <= y0 < y1 <= 792
    assert "p.1" in c["citationMarkdown"] and c["citationMarkdown"].startswith("[icing.pdf")


def test_search_scope_keeps_only_citations_inside_it(kb: KB) -> None:
    query = f"zebra obsidian river pyrrolidine blade heating {kb.token}"
    everything = search(kb, query)["results"]
    assert {c["sourceRootRelativePath"] for c in everything} >= {"kb/notes/zebra.md"}
    scoped = search(kb, query, "--scope", "kb/notes")["results"]
    assert scoped and all(c["sourceRootRelativePath"].startswith("kb/notes/") for c in scoped)
    two = search(kb, query, "--scope", "kb/notes/zebra.md", "--scope", "kb/papers/icing.pdf")["results"]
    assert {c["sourceRootRelativePath"] for c in two} <= {"kb/notes/zebra.md", "kb/papers/icing.pdf"}


def test_search_reports_named_files_that_are_excluded_failed_or_not_ingested(kb: KB) -> None:
    result = search(kb, f"draft.md broken.pdf later.md zebra.md {kb.token}")
    not_indexed = {n["sourcePath"]: n for n in result["notIndexed"]}
    assert set(not_indexed) == {"kb/notes/draft.md", "kb/papers/broken.pdf", "kb/notes/later.md"}
    assert not_indexed["kb/notes/draft.md"]["status"] == "excluded"
    assert "draft.md" in not_indexed["kb/notes/draft.md"]["reason"]
    assert not_indexed["kb/papers/broken.pdf"]["status"] == "failed" and not_indexed["kb/papers/broken.pdf"]["reason"]
    assert not_indexed["kb/notes/later.md"]["status"] == "not_indexed"
    assert all(set(n) == {"sourcePath", "status", "reason"} for n in result["notIndexed"])
    human = kb.cli.run("search", f"draft.md {kb.token}").stdout
    assert "not indexed: kb/notes/draft.md (excluded: " in human


def _card(out: str, head: str) -> str:
    """One source card of plain ``search`` output: from its head line to the next card or the weaker list."""
    return re.split(r"\n\[|\nWeaker matches", out[out.index(head):], maxsplit=1)[0]


def test_search_human_output_shows_source_cards(kb: KB) -> None:
    pdf_query = f"blade heating power loss {kb.token}"
    pdf_hit = next(c for c in search(kb, pdf_query)["results"] if c["sourceRootRelativePath"] == "kb/papers/icing.pdf")
    out = kb.cli.run("search", pdf_query, "--top-k", "10").stdout
    card = _card(out, f"{pdf_hit['citationId']} kb/papers/icing.pdf")
    assert "located: exact box, p.1" in card
    assert "quote:" in card and "Blade heating" in card

    md_query = f"zebra herd obsidian river {kb.token}"
    md_hit = next(c for c in search(kb, md_query, "--mode", "naive")["results"]
                  if c["sourceRootRelativePath"] == "kb/notes/zebra.md")
    out = kb.cli.run("search", md_query, "--top-k", "10", "--mode", "naive").stdout
    card = _card(out, f"{md_hit['citationId']} kb/notes/zebra.md")
    assert "heading: " + " > ".join(md_hit["headingPath"]) in card and md_hit["headingPath"]
    assert "located: " in card and "p." not in card  # no page for a file without pages
    assert "quote:" in card and "obsidian river" in card


# ----------------------------------------------------------------------------- ask, open


def test_ask_json_is_the_agent_query_result_contract(kb: KB) -> None:
    query = f"where does the zebra herd graze {kb.token}"
    result = kb.cli.json("ask", query, "--mode", "naive")
    keys = list(result)
    assert set(keys) >= {"schema", "answer", "citations", "notes"}
    assert keys.index("answer") < keys.index("citations") < keys.index("notes")
    assert result["schema"] == "mnote.knowledge_rag.agent_query_result.v1"
    assert result["answer"] is None  # the offline engine has no LLM
    assert any("No LLM" in n for n in result["notes"])
    assert result["citations"]
    for c in result["citations"]:
        check_citation(c, kb.cli.ws, " ".join(query.split()))
    human = kb.cli.run("ask", query, "--mode", "naive").stdout
    assert human.startswith("No answer:\n  No LLM is configured") and result["citations"][0]["citationId"] in human


def test_open_json_gives_a_plan_inside_the_workspace(kb: KB) -> None:
    query = f"blade heating power loss pyrrolidine zebra {kb.token}"
    results = search(kb, query)["results"]
    kinds = {"icing.pdf": "pdf", "reagents.docx": "office", "zebra.md": "markdown"}
    assert {Path(c["sourceRootRelativePath"]).name for c in results} & set(kinds)
    for c in results:
        plan = kb.cli.json("open", c["citationId"])
        assert plan["schema"] == "mnote.knowledge_rag.open_plan.v1" and plan["citationId"] == c["citationId"]
        path = Path(plan["resourcePath"])
        assert path.is_file() and path.resolve().is_relative_to(kb.cli.ws.resolve())
        assert plan["resourceRootRelativePath"] == c["sourceRootRelativePath"]
        assert plan["resourceKind"] == kinds[path.name]
        assert plan["locator"] == c["locator"] and plan["citationUrl"] == c["citationUrl"]
        assert plan["openAction"] == {"provider": "lightrag", "chunkId": c["lightRagChunkId"], "searchQuery": query,
                                      "evidenceText": c["locatorEvidenceText"], "displayQuote": c["displayQuote"]}
    bare = results[0]["citationId"].strip("[]")
    human = kb.cli.run("open", bare).stdout
    assert human.startswith(results[0]["citationId"] + " " + results[0]["sourcePath"])
    assert results[0]["citationUrl"] in human
    assert {p: sha(p) for p in kb.sources} == kb.sources


# ----------------------------------------------------------------------------- delete, sync, prune


def test_delete_sync_prune_json_and_the_source_stays_byte_identical(tmp_path: Path, lightrag_engine: Any) -> None:  # noqa: F811
    cli = make_workspace(tmp_path, lightrag_engine)
    token = uuid.uuid4().hex[:10]
    note = cli.ws / "d" / "gone.md"
    note.parent.mkdir()
    note.write_text(f"# Gone {token}\n\nThe tungsten filament glows amber.\n", encoding="utf-8")
    digest = sha(note)
    cli.json("roots", "add", "d")
    assert cli.json("ingest", "d", "--wait", "--timeout", "120")["counts"] == {"processed": 1}

    deleted = cli.json("delete", "d/gone.md")["entries"]
    assert [e["sourceRootRelativePath"] for e in deleted] == ["d/gone.md"]
    assert deleted[0]["status"] in ("delete_submitted", "delete_completed") and deleted[0]["stale"] is True
    found = cli.json("search", f"tungsten filament gone.md {token}", "--mode", "naive")
    assert not any(c["sourceRootRelativePath"] == "d/gone.md" for c in found["results"])
    assert [(n["sourcePath"], n["status"]) for n in found["notIndexed"]] == [("d/gone.md", "stale")]

    deadline = time.monotonic() + 60
    while True:
        synced = cli.json("sync", "--wait", "2")
        assert set(synced) == {"reconcile", "provider"}
        assert set(synced["provider"]) == {"before", "after", "followed", "failed", "stillFailed", "waitTimedOut",
                                           "notSent", "movedFollowed", "inFlightNotes"}  # added since: notSent,
        # movedFollowed, inFlightNotes (a file still in flight the provider has a new word on: sent again after a stop)
        assert synced["provider"]["failed"] == [] == synced["provider"]["stillFailed"] == synced["provider"]["notSent"]
        assert synced["provider"]["inFlightNotes"] == []  # nothing was interrupted here
        assert synced["provider"]["waitTimedOut"] is None
        status = cli.json("status")["registry"]
        if status["byStatus"].get("stale") == 1 and not status["waiting"]:
            break
        assert time.monotonic() < deadline, status
    pruned = cli.json("prune")
    assert set(pruned) == {"removed", "byKind", "keptFailed", "deletesWaiting", "keptDeleted"}  # added: all but removed
    # The file is on disk: the record that keeps it out stays (keptDeleted); once the file is gone it goes.
    assert pruned["removed"] == [] and pruned["keptDeleted"] == ["d/gone.md"] and pruned["keptFailed"] == []
    assert cli.json("status")["registry"]["entries"] == 1
    assert note.exists() and sha(note) == digest
    note.rename(tmp_path / "gone.md")  # out of the workspace (this test's own file)
    pruned = cli.json("prune")
    assert pruned["removed"] == ["d/gone.md"] == pruned["byKind"]["stale"] and pruned["keptDeleted"] == []
    assert cli.json("status")["registry"]["entries"] == 0
    assert cli.json("prune")["removed"] == []
    assert sha(tmp_path / "gone.md") == digest


# ----------------------------------------------------------------------------- locate


def test_locate_json_prints_every_locator_key(tmp_path: Path) -> None:
    cli = Cli(tmp_path, tmp_path / "home", None)
    token = uuid.uuid4().hex[:8]
    pdf = tmp_path / "icing.pdf"
    pdf.write_bytes(turbine_pdf(token))
    docx_bytes, target = chem_docx(token)
    docx = tmp_path / "reagents.docx"
    docx.write_bytes(docx_bytes)

    loc = cli.json("locate", str(pdf), "--evidence", "Blade heating kept the power loss below five percent",
                   "--query", "blade heating")
    assert LOCATOR_KEYS <= set(loc)
    assert loc["locatorPrecision"] == "bbox" and loc["locatorDegraded"] is False and loc["page"] == 1
    assert loc["bboxUnit"] == "pt" and loc["bboxOrigin"] == "top-left" and len(loc["bbox"]) == 4
    x0, y0, x1, y1 = loc["bbox"]
    # top-left origin: the box holds the third line (baseline 792 - 680 = 112), boxed with the paragraph the
    # layout reads it in (the lines drawn evenly below the title), never the whole page
    assert 60 <= x0 < x1 <= 612 and y0 < 792 - 720 + 40 < y1 < 792 - 720 + 80
    assert loc["paragraphIndex"] is None and loc["paraId"] is None

    loc = cli.json("locate", str(docx), "--evidence", "Pyrrolidine is a cyclic secondary amine", "--query",
                   "pyrrolidine")
    assert LOCATOR_KEYS <= set(loc)
    assert loc["locatorPrecision"] == "paragraph" and loc["paragraphIndex"] == target
    assert loc["page"] is None and loc["bbox"] is None
    assert loc["highlight"] and 0 <= loc["highlight"]["start"] < loc["highlight"]["end"]

    text = tmp_path / "plain.rtf"  # no locator plugin knows .rtf
    text.write_text("{\\rtf1 Nothing to locate precisely.}", encoding="utf-8")
    loc = cli.json("locate", str(text), "--evidence", "Nothing to locate")
    assert loc["locatorPrecision"] == "file" and loc["locatorDegraded"] is True and loc["page"] is None

    human = cli.run("locate", str(pdf), "--evidence", "Blade heating kept the power loss").stdout
    assert human.startswith("exact box, p.1 at (") and "pt from the top-left" in human and "None" not in human


def test_locate_writes_only_the_per_user_cache_as_its_help_says(tmp_path: Path) -> None:
    """Decided (nc26c): locate is a stateless tool over the file it names, inside a workspace or not. It said
    "nothing is written", but it fills the per-user cache (review r27): the help says what is written and
    what is not, and a locate writes nothing beside FILE or in its folder, only under the home's cache/."""
    cli = Cli(tmp_path / "folder", tmp_path / "home", None)
    cli.ws.mkdir()
    docx_bytes, _ = chem_docx(uuid.uuid4().hex[:8])
    (cli.ws / "reagents.docx").write_bytes(docx_bytes)
    shown = " ".join(cli.run("locate", "--help").stdout.split())
    assert ("FILE may be any readable file; it is only read: nothing is written beside it or in a workspace. "
            "Only the per-user cache is written") in shown, shown
    assert "MNOTE_KR_LOCATE_CACHE=0" in shown, shown
    loc = cli.json("locate", "reagents.docx", "--evidence", "Pyrrolidine is a cyclic secondary amine", "--query",
                   "pyrrolidine")
    assert loc["locatorPrecision"] == "paragraph", loc
    assert sorted(p.name for p in cli.ws.iterdir()) == ["reagents.docx"]
    assert sha(cli.ws / "reagents.docx") == hashlib.sha256(docx_bytes).hexdigest()
    written = [p.relative_to(cli.home) for p in cli.home.rglob("*") if p.is_file()]
    assert written and all(p.parts[0] == "cache" for p in written), written
    assert any(p.parts[:2] == ("cache", "locate") for p in written), written  # what it read of the file


def test_locate_batch_answers_one_line_per_request_in_order(tmp_path: Path) -> None:
    cli = Cli(tmp_path, tmp_path / "home", None)
    token = uuid.uuid4().hex[:8]
    pdf = tmp_path / "icing.pdf"
    pdf.write_bytes(turbine_pdf(token))
    docx_bytes, target = chem_docx(token)
    docx = tmp_path / "reagents.docx"
    docx.write_bytes(docx_bytes)
    requests = [
        json.dumps({"file": str(pdf), "evidence": "Unheated blades lost up to forty percent", "query": "unheated"}),
        json.dumps({"file": str(tmp_path / "missing.pdf"), "evidence": "x", "query": "x"}),
        "{this is not json",
        json.dumps({"file": str(docx), "evidence": "Pyrrolidine is a cyclic secondary amine", "query": "pyrrolidine"}),
        json.dumps({"evidence": "no file"}),
        json.dumps({"file": str(pdf), "evidence": "Small wind turbines lose output", "query": "ice",
                    "sidecar": str(tmp_path / "absent.blocks.jsonl")}),
        json.dumps({"file": str(pdf), "evidence": "Wind turbine icing study", "query": "icing"}),
    ]
    batch = tmp_path / "requests.jsonl"
    batch.write_text("\n".join(requests) + "\n", encoding="utf-8")
    out = cli.run("locate", "--batch", str(batch), "--json").stdout.splitlines()
    assert len(out) == len(requests)
    answers = [json.loads(line) for line in out]
    assert answers[0]["locatorPrecision"] == "bbox" and answers[0]["page"] == 1
    assert set(answers[1]) == {"error"} and "missing.pdf" in answers[1]["error"]
    assert set(answers[2]) == {"error"} and "invalid request line" in answers[2]["error"]
    assert answers[3]["locatorPrecision"] == "paragraph" and answers[3]["paragraphIndex"] == target
    assert set(answers[4]) == {"error"} and "file" in answers[4]["error"]
    assert set(answers[5]) == {"error"} and "absent.blocks.jsonl" in answers[5]["error"]
    assert answers[6]["locatorPrecision"] == "bbox" and answers[6]["bbox"][1] < answers[0]["bbox"][1]
    piped = cli.run("locate", "--batch", "-", "--json", stdin=requests[3] + "\n" + requests[0] + "\n").stdout
    assert [json.loads(line)["locatorPrecision"] for line in piped.splitlines()] == ["paragraph", "bbox"]


# ----------------------------------------------------------------------------- plugins, engine


def test_plugins_all_json_lists_every_plugin_with_version_origin_and_hooks(tmp_path: Path) -> None:
    cli = Cli(tmp_path, tmp_path / "home", None)
    listed = cli.json("plugins", "--all")
    by_name = {p["name"]: p for p in listed["plugins"]}
    for name, hooks in (("lightrag", {"ingest", "query", "map_reference", "provider_status"}),
                        ("docx_locator", {"locate"}), ("pdf_bbox", {"locate"})):
        info = by_name[name]
        assert info["origin"] == "entry point" and info["version"] and info["error"] is None
        assert hooks <= set(info["hooks"]) and info["distribution"] == f"mnote-kr-{name.replace('_', '-')}"
    builtin = {p["name"] for p in listed["plugins"] if p["origin"] == "builtin"}
    assert builtin and {"clean_text", "classify_locator"} <= {h for p in listed["plugins"] if p["name"] in builtin
                                                              for h in p["hooks"]}
    assert listed["provider"] == "lightrag"
    assert listed["locators"][".pdf"] == "pdf_bbox" and listed["locators"][".docx"] == "docx_locator"
    without = {p["name"] for p in cli.json("plugins")["plugins"]}
    assert not without & builtin and {"lightrag", "docx_locator", "pdf_bbox"} <= without


def test_engine_status_json_describes_the_engine_without_its_key(lightrag_engine: Any) -> None:  # noqa: F811
    # The session engine keeps its state under <base>/state: that base is a valid MNOTE_KR_HOME.
    home = Path(lightrag_engine.run_dir).parents[1]
    cli = Cli(home, home, None)
    status = cli.run("engine", "status", "--json")
    info = json.loads(status.stdout)
    assert info["running"] is True and info["healthy"] is True and info["url"] == lightrag_engine.url
    assert info["inputDir"] == lightrag_engine.input_dir  # camelCase on the wire, as everywhere
    assert not [key for key in info if "_" in key], info
    assert set(info["pids"]) >= {"server"}
    assert lightrag_engine.api_key not in status.stdout + status.stderr
    assert not {"api_key", "apiKey"} & set(info)
    human = cli.run("engine", "status")
    assert human.stdout.startswith(f"Running at {lightrag_engine.url} (") and ", healthy; processes: " in human.stdout
    assert lightrag_engine.api_key not in human.stdout + human.stderr
    fresh = Cli(home, home.parent / f"no-engine-{uuid.uuid4().hex[:6]}", None)
    fresh.home.mkdir()
    assert fresh.json("engine", "status") == {"running": False}
