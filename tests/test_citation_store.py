"""Issued citation IDs keep working and never change place (``citations.caches.citecache``, ``idstore``).

The store keeps one record per ID in ``<state_dir>/citations/<workspace>/ids.sqlite3``: the latest issue
of an ID wins, the latest ``MAX_IDS`` issues are kept, an ID held for one place is never given to another
(the newcomer is renamed), a crash never leaves a wrong record, and several processes write safely.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from mnote_kr.app.host import Host
from mnote_kr.citations.caches import citecache, idrecord, idstore
from mnote_kr.citations.render import openplan
from mnote_kr.citations.render.ids import issue_key
from mnote_kr.core import paths
from mnote_kr.core.config import load_config
from mnote_kr.errors import ConfigError, NotFoundError
from mnote_kr.models import Citation, CitationDiagnostics, GroundedSentence, Locator, Place
from tests.test_pipeline_unit import host  # noqa: F401  (the fixture)


def cite(cid: str, paragraph: int = 0, quote: str = "q", rel: str = "kb/ok.md",
         alternatives: list[Place] | None = None) -> Citation:
    """A citation of paragraph ``paragraph`` of ``rel`` (another paragraph or file is another place)."""
    loc = Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=paragraph)
    return Citation(provider="lightrag", citation_id=cid, source_id=f"src-{rel}", source_path=f"/ws/{rel}",
                    source_root_relative_path=rel, light_rag_doc_id=None, light_rag_file_path=rel,
                    light_rag_chunk_id="chunk-1", block_id=None, heading_path=["H"], raw_quote=quote * 3,
                    display_quote=quote, context_quote=f"before. {quote} after.", locator_evidence_text=quote,
                    quote_source="chunk", search_query=f"query for {quote}", locator_precision="paragraph",
                    locator_degraded=False, locator=loc, citation_url=f"mnote-kr://open?path={rel}&paragraph={paragraph}",
                    citation_markdown=f"[ok.md · paragraph {paragraph + 1}](x)", relevance_score=1.0,
                    alternatives=alternatives or [],
                    diagnostics=CitationDiagnostics(quote_source="chunk", raw_reference_mapped=True,
                                                    sidecar_block_mapped=False, display_cleaned=True,
                                                    locator_text_source="chunk"))


def another_process() -> None:
    """What a new CLI process knows: only the store on disk."""
    citecache._memory.clear()


def test_an_id_issued_1000_searches_ago_still_opens_in_another_process(host: Host) -> None:  # noqa: F811
    kept = cite("[keep]", 7, "the quote a note cites")
    # as issued: the same citation, with the key of the search that issued it (its query's: the default mode)
    assert citecache.remember(host, [kept]) == [msgspec.structs.replace(kept, issue=issue_key(kept.search_query),
                                                                        search_mode="mix", search_scope=[])]
    for search in range(1000):  # 1,000 later searches of 12 other places each
        citecache.remember(host, [cite(f"[{search:03d}{k:x}]", 100 + k, f"s{search}") for k in range(12)])
    another_process()
    found = citecache.issued(host, "[keep]")
    assert found is not None and found[0].display_quote == "the quote a note cites"
    assert found[0].locator.paragraph_index == 7 and found[0].search_query == "query for the quote a note cites"
    assert found[0].source_path == str(host.workspace.rel_to_abs("kb/ok.md"))


def test_the_latest_issue_of_an_id_wins_and_the_store_keeps_the_latest_issues(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(citecache, "MAX_IDS", 10)
    citecache.remember(host, [cite("[aaaa]", 1, "old")])
    citecache.remember(host, [cite("[aaaa]", 1, "new")])  # the same place: re-issued, its latest record kept
    another_process()
    assert citecache.find(host, "[aaaa]").display_quote == "new"  # type: ignore[union-attr]
    for i in range(9):
        citecache.remember(host, [cite(f"[b00{i}]", 10 + i)])
    citecache.remember(host, [cite("[aaaa]", 1, "newest")])  # issued again: the least recently issued is [b000]
    citecache.remember(host, [cite("[last]", 50)])
    rows = [cid for cid, _, _ in idstore.every(citecache.store_path(host))]
    assert len(rows) == 10 and "[b000]" not in rows and rows[-2:] == ["[aaaa]", "[last]"]
    assert citecache.find(host, "[aaaa]").display_quote == "newest"  # type: ignore[union-attr]


def test_an_expired_id_is_refused_in_one_line_saying_to_search_again(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(citecache, "MAX_IDS", 5)
    citecache.remember(host, [cite("[gone]", 1)])
    citecache.remember(host, [cite(f"[n00{i}]", 10 + i) for i in range(5)])
    another_process()
    with pytest.raises(NotFoundError) as caught:
        openplan.open_plan(host, "gone")
    assert caught.value.message == ("Citation [gone] has expired: it was issued more than 5 citations ago "
                                    "and is no longer kept")
    assert caught.value.hint is not None and caught.value.hint.startswith("search again")
    with pytest.raises(NotFoundError) as never:
        openplan.open_plan(host, "nevr")
    assert never.value.message == "Unknown citation [nevr]: never issued in this workspace, or expired"


def test_an_evicted_id_is_never_issued_for_another_place_and_comes_back_for_its_own(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(citecache, "MAX_IDS", 3)
    citecache.remember(host, [cite("[gone]", 1, "a note cites this")])
    citecache.remember(host, [cite(f"[n00{i}]", 10 + i) for i in range(3)])
    another_process()
    assert citecache.expired(host, "[gone]") and citecache.find(host, "[gone]") is None
    elsewhere = citecache.remember(host, [cite("[gone]", 2, "another place hashing to the same ID")])[0]
    assert elsewhere.citation_id != "[gone]" and citecache.find(host, "[gone]") is None  # the note's ID opens nothing
    back = citecache.remember(host, [cite("[gone]", 1, "its own place, searched again")])[0]
    assert back.citation_id == "[gone]" and not citecache.expired(host, "[gone]")
    assert citecache.find(host, "[gone]").locator.paragraph_index == 1  # type: ignore[union-attr]


def test_an_id_held_for_another_place_is_never_taken_over_the_newcomer_is_renamed(host: Host) -> None:  # noqa: F811
    citecache.remember(host, [cite("[0zpw]", 3, "the first place")])
    other = cite("[0zpw]", 9, "another place, same hash")  # a forced collision: same ID, another paragraph
    main = cite("[main]", 1, "a place whose alternative collides",
                alternatives=[Place(citation_id="[0zpw]", locator=other.locator, display_quote="alt")])
    issued = citecache.remember(host, [main, other])
    renamed = issued[1].citation_id
    assert renamed != "[0zpw]" and len(renamed) == 7  # [xxxxx]: five characters, never a fresh hash
    assert issued[0].alternatives[0].citation_id == renamed  # the alternative follows its place
    another_process()
    assert citecache.find(host, "[0zpw]").display_quote == "the first place"  # type: ignore[union-attr]
    assert citecache.find(host, renamed).locator.paragraph_index == 9  # type: ignore[union-attr]
    assert citecache.find(host, "[main]").alternatives[0].citation_id == renamed  # type: ignore[union-attr]
    # the same newcomer issued again gets the same renamed ID; another file is another place too
    assert citecache.remember(host, [cite("[0zpw]", 9, "again")])[0].citation_id == renamed
    assert citecache.remember(host, [cite("[0zpw]", 3, "x", rel="kb/new.md")])[0].citation_id not in ("[0zpw]", renamed)
    assert citecache.remember(host, [cite("[0zpw]", 3, "latest")])[0].citation_id == "[0zpw]"  # its own place


def test_an_answer_citing_a_renamed_place_names_the_renamed_id(host: Host) -> None:  # noqa: F811
    citecache.remember(host, [cite("[0zpw]", 3)])
    sentences = [GroundedSentence(text="It is so.", supported=True, citation_id="[0zpw]"),
                 GroundedSentence(text="And this.", supported=True, citation_id="[kkkk]")]
    answer, out = citecache.remember_grounded(host, [cite("[0zpw]", 4), cite("[kkkk]", 5)],
                                              "It is so [0zpw]. And this [kkkk].", sentences)
    renamed = out[0].citation_id
    assert renamed != "[0zpw]" and answer == f"It is so {renamed}. And this [kkkk]." and out[1] == sentences[1]


def test_the_store_is_private_in_the_state_dir_and_apart_per_workspace(host: Host, tmp_path: Path) -> None:  # noqa: F811
    old = os.umask(0o022)
    try:
        citecache.remember(host, [cite("[aaaa]", 1, "quote of the first workspace")])
        path = citecache.store_path(host)
        with idstore.writing(path) as tx:  # while a writer is at it, its write-ahead log is there too
            tx.upsert([("[bbbb]", 1, b"")])
            made = [p for p in path.parent.iterdir() if p.name.startswith(idstore.STORE_FILE)]
            assert {p.name for p in made} == {"ids.sqlite3", "ids.sqlite3-wal", "ids.sqlite3-shm"}
            assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in made)
    finally:
        os.umask(old)
    assert paths.state_dir() in path.parents and host.root not in path.parents
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    other_ws = tmp_path / "other"
    other_ws.mkdir()
    other = Host(other_ws, config=load_config(other_ws))
    assert citecache.store_path(other) != path
    another_process()
    assert openplan.find_citation(other, "[aaaa]") is None  # another workspace's ID is unknown there
    assert openplan.find_citation(host, "aaaa") is not None


def test_with_the_log_off_nothing_is_written_and_the_process_still_opens_its_own(host: Host) -> None:  # noqa: F811
    host.config["citations"] = {"log": False}
    citecache.remember(host, [cite("[offf]", 1, "not written")])
    renamed = citecache.remember(host, [cite("[offf]", 2)])[0].citation_id  # its own issues never collide either
    assert renamed != "[offf]"
    assert [p.name for p in citecache.store_path(host).parent.iterdir()] == []
    assert openplan.find_citation(host, "[offf]").display_quote == "not written"  # type: ignore[union-attr]
    another_process()
    assert openplan.find_citation(host, "[offf]") is None
    assert [p.name for p in citecache.store_path(host).parent.iterdir()] == []
    host.config["citations"] = {"log": "no"}
    with pytest.raises(ConfigError, match=r"\[citations\] log must be true or false"):
        citecache.remember(host, [cite("[offf]", 1)])


def _old_logs(host: Host) -> list[Path]:  # noqa: F811
    old_dir = host.workspace.index_dir
    old_dir.mkdir(parents=True, exist_ok=True)
    legacy = old_dir / citecache.LEGACY_CITATION_CACHE
    legacy.write_bytes(msgspec.json.encode({"version": 1, "citations": {"[lgcy]": cite("[lgcy]", 1, "legacy")}}))
    (old_dir / citecache.CITATION_LOG).write_bytes(msgspec.json.encode(cite("[oldl]", 2, "old place")) + b"\n")
    log = citecache.log_path(host)
    citecache.previous_path(log).write_bytes(msgspec.json.encode(cite("[prev]", 3, "first")) + b"\n")
    lines = [msgspec.json.encode(cite("[prev]", 3, "later line wins")), msgspec.json.encode(cite("[held]", 4, "log")),
             b'{"torn line']
    log.write_bytes(b"\n".join(lines))
    return [legacy, old_dir / citecache.CITATION_LOG, citecache.previous_path(log), log]


def test_the_former_logs_are_read_into_the_store_once_and_deleted(host: Host) -> None:  # noqa: F811
    citecache.remember(host, [cite("[held]", 4, "the store's own, later")])  # a store already holding an ID
    old = _old_logs(host)
    another_process()
    found = citecache.load(host)
    assert {"[lgcy]", "[oldl]", "[prev]", "[held]"} <= set(found)
    assert found["[prev]"].display_quote == "later line wins"
    assert found["[held]"].display_quote == "the store's own, later"
    assert not any(p.exists() for p in old)  # out of the user's folder and the state dir: only the store
    assert citecache.find(host, "[lgcy]").display_quote == "legacy"  # type: ignore[union-attr]


def test_with_the_log_off_the_former_logs_are_read_where_they_lie(host: Host) -> None:  # noqa: F811
    host.config["citations"] = {"log": False}
    old = _old_logs(host)
    another_process()
    assert citecache.find(host, "[oldl]").display_quote == "old place"  # type: ignore[union-attr]
    assert all(p.exists() for p in old) and not citecache.store_path(host).exists()


def test_a_damaged_or_misplaced_record_is_never_a_wrong_citation(host: Host) -> None:  # noqa: F811
    citecache.remember(host, [cite("[aaaa]", 1, "a"), cite("[bbbb]", 2, "b")])
    another_process()
    path = citecache.store_path(host)
    with sqlite3.connect(path) as con:
        record = con.execute("SELECT record FROM ids WHERE id = '[aaaa]'").fetchone()[0]
        con.execute("UPDATE ids SET record = ? WHERE id = '[bbbb]'", (record,))  # [aaaa]'s record under [bbbb]
        con.execute("UPDATE ids SET record = ? WHERE id = '[aaaa]'", (record[:-9],))  # torn
    con.close()
    assert citecache.find(host, "[bbbb]") is None and citecache.find(host, "[aaaa]") is None


_WRITER = """
import sys
from pathlib import Path
from types import SimpleNamespace
from mnote_kr.citations.caches import citecache
from tests.test_citation_store import cite
name, count = sys.argv[1], int(sys.argv[2])
ws = Path(sys.argv[3])
host = SimpleNamespace(workspace=SimpleNamespace(index_dir=ws / ".mnote", workspace_id="ws-many",
                                                 rel_to_abs=lambda rel: ws / rel), config={})
reg = SimpleNamespace(entries={})
go = ws / "go"
while not go.exists():
    pass
mine = citecache.remember(host, [cite("[dupe]", 0, name, rel=f"{name}.md")], reg)[0].citation_id
print(mine, flush=True)
for i in range(count):
    citecache.remember(host, [cite(f"[{name}{i:03d}]", i, name, rel=f"{name}.md")], reg)
    print(i, flush=True)
"""


def _writer(name: str, count: int, ws: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", _WRITER, name, str(count), str(ws)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[1])


def _ws_host(ws: Path) -> Host:
    from types import SimpleNamespace
    return SimpleNamespace(workspace=SimpleNamespace(index_dir=ws / ".mnote", workspace_id="ws-many",  # type: ignore[return-value]
                                                     rel_to_abs=lambda rel: ws / rel), config={})


def test_two_processes_write_at_once_and_one_id_keeps_one_place(tmp_path: Path) -> None:
    writers = [_writer(name, 150, tmp_path) for name in ("p", "q")]
    (tmp_path / "go").write_text("")
    outs = [w.communicate(timeout=240) for w in writers]
    assert [w.returncode for w in writers] == [0, 0], [err for _, err in outs]
    given = [out.splitlines()[0] for out, _ in outs]
    assert "[dupe]" in given and given[0] != given[1]  # one holds [dupe], the other was renamed
    kept = _ws_host(tmp_path)
    for name, cid in zip(("p", "q"), given, strict=True):
        assert citecache.find(kept, cid).source_root_relative_path == f"{name}.md"  # type: ignore[union-attr]
    rows = {cid for cid, _, _ in idstore.every(citecache.store_path(kept))}
    assert {f"[{n}{i:03d}]" for n in "pq" for i in range(150)} <= rows


def test_a_writer_killed_mid_write_leaves_only_whole_right_records(tmp_path: Path) -> None:
    writer = _writer("k", 100_000, tmp_path)
    (tmp_path / "go").write_text("")
    assert writer.stdout is not None
    done = []
    for line in writer.stdout:  # until the writer has committed 30 issues: it is writing the next now
        done.append(line)
        if len(done) > 30:
            break
    writer.kill()
    writer.communicate(timeout=60)
    path = citecache.store_path(_ws_host(tmp_path))
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    rows = list(idstore.every(path))
    committed = {f"[k{int(line):03d}]" for line in done[1:] if line.strip().isdigit()}
    assert committed <= {cid for cid, _, _ in rows}  # every issue a writer reported is there
    for cid, place, data in rows:
        record = idrecord.decode(data, cid)
        assert record is not None and record.id == cid
        assert idrecord.place_of(idrecord.to_citation(record, "")) == place


def test_records_are_compact(host: Host) -> None:  # noqa: F811
    big = cite("[bigg]", 1, "A sentence of the cited paragraph, with its words. " * 8)
    line = len(msgspec.json.encode(big))
    data = idrecord.encode(big, "sha256:" + "0" * 64)
    assert len(data) < line / 3
    assert json.loads(msgspec.json.encode(idrecord.decode(data, "[bigg]")))["displayQuote"] == big.display_quote
