"""Every file a user gives ends indexed or with a reason they can act on, and the index
follows the scope. Two rules, each checked over every kind of case we know:

* a file found by walking a folder that the provider cannot index is passed over (``skipped``,
  counted, not registered, not sent) by ``ingest``, reconcile (``sync``), the watcher and
  ``notIndexed`` alike; a file the user names is still sent and fails with the provider's reason;
* a registered file that its root's rules now exclude is no longer cited and its index is deleted,
  whether the rules changed through ``roots add`` or reached the registry some other way.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.app.host import Host
from mnote_kr.citations.map import notindexed
from mnote_kr.citations.render.synctext import render_sync
from mnote_kr.cli.main import ingest as ingest_command
from mnote_kr.core.config import load_config
from mnote_kr.core.pending import load_pending_new
from mnote_kr.models import EntryUpdate, IndexedRoot, SourceEntry
from mnote_kr.sync.reconcile import reconcile_and_apply
from mnote_kr.sync.watch import WatchAction, Watcher
from mnote_kr_lightrag.client.failures import explain_failure
from tests.test_first_hour import _KNOWN, LINK, _recorded_errors

INDEXES = frozenset({".md", ".pdf"})
#: Files a folder holds besides documents: none of them is a type the provider indexes.
OTHERS = ["kb/data.bin", "kb/archive.zip", "kb/.DS_Store", "kb/Makefile", "kb/sub/tool.exe", "kb/sub/photo.heic"]
DOCUMENTS = ["kb/notes.md", "kb/sub/paper.pdf"]


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Host, FakeProvider]]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    for rel in DOCUMENTS + OTHERS:
        write(ws / rel, f"content of {rel}\n")
    host, fake = fake_host(ws, FakeProvider(suffixes=INDEXES, delete_status="delete_completed"))
    host.roots_add("kb", run_on_change=False)
    yield host, fake


def test_a_folder_ingest_passes_over_what_the_provider_cannot_index_on_every_run(
        kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    before = digest_tree(host.root)
    for run in (1, 2):
        report = host.ingest(["kb"])
        by_path = {item.source_path: item for item in report.items}
        assert not [i for i in report.items if i.status == "failed"], run  # the CLI exits 0
        for rel in OTHERS:
            assert by_path[rel].status == "skipped", (run, rel)
            assert "not a file type fake indexes" in (by_path[rel].reason or ""), rel
        assert report.counts.get("skipped") == len(OTHERS)
        assert {by_path[r].status for r in DOCUMENTS} == ({"processed"} if run == 1 else {"already_registered"})
        assert set(host.registry().entries) == set(DOCUMENTS)  # never registered
        assert sorted(fake.ingested) == sorted(DOCUMENTS)  # never sent, on no run
    assert digest_tree(host.root) == before


@pytest.mark.parametrize("rel", OTHERS)
def test_a_file_the_user_names_is_sent_and_fails_with_the_providers_reason(kb: tuple[Host, FakeProvider],
                                                                           rel: str) -> None:
    host, fake = kb
    for given in ([rel], ["kb", rel]):  # alone, or named next to its folder
        report = host.ingest(given)
        item = {i.source_path: i for i in report.items}[rel]
        assert item.status == "failed" and "fake cannot index" in (item.reason or "")
        assert host.registry().entries[rel].status == "failed"


def test_a_failed_record_left_by_an_older_version_is_dropped_by_a_folder_ingest(
        kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    with host.store.transaction() as reg:
        for rel, status in (("kb/data.bin", "failed"), ("kb/archive.zip", "pending"), ("kb/notes.md", "failed")):
            reg.put(SourceEntry(source_id=rel, source_path=str(host.root / rel), source_root_relative_path=rel,
                                status=status, last_error="LightRAG cannot index '.bin' files"))
    report = host.ingest(["kb"])
    by_path = {item.source_path: item for item in report.items}
    entries = host.registry().entries
    for rel, was in (("kb/data.bin", "failed"), ("kb/archive.zip", "queued")):  # never indexed: dropped, and said
        assert rel not in entries and by_path[rel].status == "skipped"
        assert f"its {was} record is dropped" in (by_path[rel].reason or "")
    assert "kb/notes.md" in fake.ingested and entries["kb/notes.md"].status == "processed"  # a document: re-sent


def test_sync_and_the_watcher_pass_over_them_too(kb: tuple[Host, FakeProvider], tmp_path: Path) -> None:
    host, fake = kb
    host.ingest(["kb"])
    alone = reconcile_and_apply(host)  # only files it passes over: nothing else to do
    assert alone["skipped"]["count"] == len(OTHERS) and alone["new"]["count"] == 0
    assert load_pending_new(host).files == []
    said: list[tuple[str, str, str]] = []
    write(host.root / "kb" / "fresh.md", "a new note\n")
    summary = reconcile_and_apply(host, on_action=lambda kind, rel, why: said.append((kind, rel, why)))
    assert sorted(r for k, r, _ in said if k == "skipped") == sorted(OTHERS)
    assert [(k, r) for k, r, _ in said if k != "skipped"] == [("new", "kb/fresh.md")]
    assert [f.source_path for f in load_pending_new(host).files] == ["kb/fresh.md"]  # not the others
    assert summary["skipped"]["count"] == len(OTHERS) and summary["new"]["paths"] == ["kb/fresh.md"]
    text = render_sync({"reconcile": summary, "provider": {}})
    assert f"Passed over {len(OTHERS)} file(s) the provider cannot index" in text
    assert "new file(s) not ingested" in text and "1 new" in text

    host.roots_add("kb", run_on_change=True)
    actions: list[WatchAction] = []
    watcher = Watcher(host, debounce_s=0.2, on_action=actions.append)
    watcher.start()
    try:
        assert watcher.wait_idle(30)
        write(host.root / "kb" / "later.bin", "bytes\n")
        write(host.root / "kb" / "later.md", "a later note\n")
        deadline = time.monotonic() + 20
        while "kb/later.md" not in fake.ingested or not any(a.path == "kb/later.bin" for a in actions):
            assert time.monotonic() < deadline, [a.line() for a in actions]
            time.sleep(0.05)
        assert watcher.wait_idle(20)
    finally:
        watcher.stop()
    assert [a.kind for a in actions if a.path == "kb/later.bin"] == ["skipped"]
    assert "kb/later.bin" not in host.registry().entries and "kb/later.bin" not in fake.ingested
    assert "kb/later.bin" not in {f.source_path for f in load_pending_new(host).files}


def test_not_indexed_says_a_passed_over_file_is_not_a_type_that_is_indexed(kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    host.ingest(["kb"])

    def named(query: str) -> list[tuple[str, str, str]]:
        return [(n.source_path, n.status, n.reason) for n in notindexed.not_indexed(host, host.registry(), query)]

    for rel in ("kb/data.bin", "kb/archive.zip", "kb/sub/tool.exe", "kb/sub/photo.heic"):
        found = named(f"what is in {rel.rsplit('/', 1)[1]}")
        assert [(p, s) for p, s, _ in found] == [(rel, "skipped")], rel
        assert "not a file type fake indexes" in found[0][2] and "not ingested yet" not in found[0][2]
    write(host.root / "kb" / "fresh.md", "new\n")
    assert [(p, s) for p, s, _ in named("what is in fresh.md")] == [("kb/fresh.md", "not_indexed")]
    # a word ("Node.js") is not a file's name; a document's name no file has is said to be missing, or its
    # cards would look like that file's (a newcomer asked about quarterly_budget.docx and got others')
    assert named("is Node.js or Config.md a file") == [
        ("Config.md", "not_found", "no file of this name among those the library indexes")]
    # nor a web address's page, a config file, or a name whose file is there in another Unicode form
    assert named("see https://example.org/docs/index.html and C:\\notes\\plan.docx, or tsconfig.json") == []
    write(host.root / "kb" / "re\u0301sume\u0301.md", "cv\n")  # decomposed, as copied from a Mac
    found = named("what is in r\u00e9sum\u00e9.md")
    assert [(p, s) for p, s, _ in found] == [("kb/re\u0301sume\u0301.md", "not_indexed")]
    scoped = notindexed.scope_not_indexed(host, host.registry(), ["kb/data.bin"])
    assert [(n.source_path, n.status) for n in scoped] == [("kb/data.bin", "skipped")]


def test_lightrag_answers_from_its_suffixes_asking_the_server_only_for_other_types(tmp_path: Path) -> None:
    from mnote_kr_lightrag.client import filetypes as lr
    from mnote_kr_lightrag.client import naming

    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return httpx.Response(200, json={"supported_extensions": [*naming.DEFAULT_SUPPORTED_SUFFIXES, ".bin"]})

    config = load_config(tmp_path)
    config["providers"] = {"lightrag": {"url": "http://127.0.0.1:9"}}
    host = Host(tmp_path, config=config, transport=httpx.MockTransport(handler))
    lr._SERVER_SUFFIXES.clear()
    readable = sorted(naming.DEFAULT_SUPPORTED_SUFFIXES | naming.IMAGE_SUFFIXES)
    assert host.unindexable([f"d/file{s}" for s in readable] + [f"d/UPPER{s.upper()}" for s in readable]) == {}
    assert asked == []  # LightRAG's own types and images: no request
    cannot = host.unindexable(["d/a.zip", "d/.DS_Store", "d/Makefile", "d/a.bin", "d/notes.md"])
    assert sorted(cannot) == ["d/.DS_Store", "d/Makefile", "d/a.zip"]  # this server reads .bin
    assert all("not a file type LightRAG indexes" in why for why in cannot.values())
    assert "'.zip' files" in cannot["d/a.zip"] and "no file extension" in cannot["d/Makefile"]
    # nc29a: a folder's skip line gives the hint a named file's failure gives (a plugin can add the type)
    assert cannot["d/a.zip"].endswith("; a plugin adds a type by claiming it in locator_extensions and reading it in "
                                      "extract_text: docs/plugins.md)")
    assert host.unindexable(["d/b.zip"]) == {"d/b.zip": cannot["d/a.zip"].replace("a.zip", "b.zip")}
    assert asked == ["/documents/supported_file_types"]  # once, then kept

    # A server that cannot be asked: nothing is passed over (a skip drops a file's queued record,
    # and this server may read the type); the file is queued, and its type is judged when it is up.
    lr._SERVER_SUFFIXES.clear()
    down = Host(tmp_path, config=config)
    assert down.unindexable(["d/a.bin", "d/b.docx", "d/c.png"]) == {}


# --------------------------------------------------------------------------- the index follows the scope

#: Root ``kb``'s new exclude patterns and, for each, the files it leaves out (and keeps).
EXCLUDES = {
    "drafts": (["kb/drafts/d.md", "kb/drafts/deep/e.md", "kb/sub/drafts/f.md"], ["kb/keep.md"]),
    "*.tmp.md": (["kb/x.tmp.md", "kb/sub/y.tmp.md"], ["kb/keep.md"]),
    "old/*": (["kb/old/o.md"], ["kb/sub/old.md", "kb/keep.md"]),
}


def _kb_with(tmp_path: Path, files: list[str]) -> tuple[Host, FakeProvider]:
    ws = tmp_path / "ws"
    for rel in files:
        write(ws / rel, f"text of {rel}\n")
    host, fake = fake_host(ws, FakeProvider(delete_status="delete_completed"))
    host.roots_add("kb")
    host.ingest(["kb"])
    assert set(host.registry().entries) == set(files)
    return host, fake


def _cited(host: Host) -> set[str]:
    return {c.source_root_relative_path for c in host.search("text of", top_k=100).results}


@pytest.mark.parametrize("pattern", sorted(EXCLUDES))
def test_roots_add_with_a_new_exclude_drops_what_it_now_leaves_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   pattern: str) -> None:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    out, kept = EXCLUDES[pattern]
    host, fake = _kb_with(tmp_path, out + kept)
    doc_ids = {rel: host.registry().entries[rel].light_rag_doc_id for rel in out}
    before = digest_tree(host.root)
    assert _cited(host) == set(out + kept)
    root, dropped, _ = host.add_root("kb", exclude=[pattern])
    assert sorted(dropped) == sorted(out) and all(repr(pattern) in why for why in dropped.values())
    entries = host.registry().entries
    assert all(entries[rel].stale for rel in out) and not any(entries[rel].stale for rel in kept)
    assert sorted(fake.deleted) == sorted(doc_ids.values())  # its index deleted, as for a deleted file
    assert _cited(host) == set(kept)
    assert reconcile_and_apply(host)["excluded"]["count"] == 0  # done already: sync has nothing left
    assert digest_tree(host.root) == before


@pytest.mark.parametrize("pattern", sorted(EXCLUDES))
def test_sync_and_search_follow_rules_that_reached_the_registry_another_way(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pattern: str) -> None:
    """Rules written by an older version (or an edited registry) before the index followed them."""
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    out, kept = EXCLUDES[pattern]
    host, fake = _kb_with(tmp_path, out + kept)
    with host.store.transaction() as reg:
        reg.roots["kb"] = IndexedRoot(root_relative_path="kb", exclude_patterns=[pattern])
    assert _cited(host) == set(kept)  # search never cites them, even before a sync
    summary = reconcile_and_apply(host)
    assert sorted(summary["excluded"]["paths"]) == sorted(out)
    assert not summary["missing"]["count"] and not summary["new"]["count"]
    entries = host.registry().entries
    assert all(entries[rel].stale and repr(pattern) in (entries[rel].stale_reason or "") for rel in out)
    assert len(fake.deleted) == len(out)
    text = render_sync({"reconcile": summary, "provider": {}})
    assert f"{len(out)} excluded file(s) dropped from the index" in text and "no changes" not in text
    assert reconcile_and_apply(host)["excluded"]["count"] == 0  # once


# --------------------------------------------------------------------------- failure advice


def _advice_cases() -> list[tuple[str, str]]:
    # One text for each cause the advice knows, besides LightRAG's recorded and known texts.
    causes = ["extracted no usable text", "the archive is truncated", "the file is password protected",
              "not a valid DOCX document", "a parser bug nobody described"]
    errors = sorted(set(_recorded_errors() + _KNOWN + causes))
    return [(error, name) for error in errors for name in ("kb/b.docx", "kb/scan.pdf", "kb/n.md")]


def test_every_command_a_failure_advises_re_sends_the_file_with_no_option_it_does_not_need(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    advised: dict[str, set[str]] = {}
    for error, name in _advice_cases():
        for command in re.findall(r"'(mnote-kr [^']+)'", explain_failure(error, link_name=LINK, file_name=name)):
            advised.setdefault(name, set()).add(command)
    assert {c.split()[1] for cs in advised.values() for c in cs} <= {"ingest", "status"}
    assert any("ingest" in c for cs in advised.values() for c in cs)

    def resent(name: str, args: list[str]) -> bool:
        """Run ``ingest args`` (parsed as the CLI parses them) where ``name`` failed: is it sent again?"""
        ws = tmp_path / f"ws{len(list(tmp_path.iterdir()))}"
        write(ws / name, "some text\n")
        host, fake = fake_host(ws, FakeProvider())
        host.ingest([name])
        host.apply_updates([_failed(name)])
        params = ingest_command.make_context("ingest", list(args)).params
        fake.ingested.clear()
        with contextlib.chdir(ws):
            report = host.ingest(list(params["paths"]), force=params["force"])
        return fake.ingested == [name] and {i.source_path: i.status for i in report.items}[name] == "processed"

    for name, commands in advised.items():
        for command in commands:
            argv = shlex.split(command)[1:]
            if argv[0] != "ingest":
                continue
            args = argv[1:]
            assert resent(name, args), command
            for option in [a for a in args if a.startswith("-")]:  # each option it names is needed
                assert not resent(name, [a for a in args if a != option]), f"{command}: {option} is not needed"


def _failed(rel: str) -> EntryUpdate:
    return EntryUpdate(source_root_relative_path=rel, status="failed", last_error="the archive is truncated")


# --------------------------------------------------------------------------- status names duplicates


def test_status_names_each_duplicate_and_the_file_holding_its_content(tmp_path: Path) -> None:
    from mnote_kr.citations.render.statustext import render_status

    config = load_config(tmp_path)
    config["providers"] = {"lightrag": {"url": "http://127.0.0.1:9"}}
    host = Host(tmp_path, config=config)

    def entry(rel: str, status: str, **kw: object) -> SourceEntry:
        return SourceEntry(source_id=rel, source_path=str(tmp_path / rel), source_root_relative_path=rel,
                           status=status, **kw)  # type: ignore[arg-type]

    with host.store.transaction() as reg:
        for i in range(25):  # each a copy of its own original
            reg.put(entry(f"orig{i:02}.pdf", "processed", light_rag_doc_id=f"doc-{i:02}"))
            reg.put(entry(f"copy{i:02}.pdf", "duplicate", light_rag_doc_id=f"doc-c{i:02}", duplicate_of=f"doc-{i:02}"))
        reg.put(entry("elsewhere.pdf", "duplicate", light_rag_doc_id="doc-e", duplicate_of="doc-not-ours"))
        reg.put(entry("gone.pdf", "duplicate", light_rag_doc_id="doc-g", duplicate_of="doc-00", stale=True,
                      stale_reason="source missing on disk"))
    info = host.status()
    shown = info["registry"]["duplicateEntries"]
    assert len(shown) == 20 and info["registry"]["byStatus"]["duplicate"] == 26  # the stale one counts as stale
    for note in shown:
        if note["sourcePath"].startswith("copy"):
            assert note["twin"] == "orig" + note["sourcePath"][4:], note
            assert note["twin"] in note["reason"]
    text = render_status(info)
    assert "Duplicate: copy00.pdf: identical content is indexed under orig00.pdf" in text
    assert "(and 6 more duplicate(s))" in text and "Duplicate: gone.pdf" not in text  # stale: listed as stale
    with host.store.transaction() as reg:
        for i in range(25):
            del reg.entries[f"copy{i:02}.pdf"]
    only = host.status()["registry"]["duplicateEntries"]
    assert only == [{"sourcePath": "elsewhere.pdf", "twin": None,
                     "reason": "identical content is indexed under a document that is no file of this workspace"}]


def test_an_unchanged_folder_asks_the_provider_nothing(kb: tuple[Host, FakeProvider]) -> None:
    host, fake = kb
    host.ingest(["kb"])
    fake.calls.clear()
    for rel in DOCUMENTS:  # registered and unchanged: never a candidate
        assert {i.source_path: i.status for i in host.ingest(["kb"]).items}[rel] == "already_registered"
    assert fake.calls.count("unindexable") == len(DOCUMENTS)  # asked about the others only...
    with host.store.transaction() as reg:
        for rel in OTHERS:  # ...so once each has a record (a provider that indexed them), nothing is asked
            src = host.workspace.source_file(host.root / rel, rel)
            reg.put(SourceEntry(source_id=rel, source_path=src.path, source_root_relative_path=rel, status="processed",
                                source_hash=src.sha256, size=src.size, mtime_ns=src.mtime_ns,
                                light_rag_doc_id="doc-" + rel))
    fake.calls.clear()
    to_send, report = host.plan_ingest(["kb"])
    assert "unindexable" not in fake.calls and to_send == []
    assert {i.status for i in report.items} == {"already_registered"}
