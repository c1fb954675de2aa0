"""The library's word counts (``caches.libwords``): each word's document frequency over the workspace's files,
gathered by ingest's preparation step and kept up to date as files are added, changed and deleted; and the weak
rule that reads them (``noresults.library_common``): an English query whose words held by the passages are common
in this library, and which asks for a word no file holds, is weak."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import docx
import msgspec
import pytest
from docx.oxml.ns import qn
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.app.host import Host
from mnote_kr.citations.caches import libwords
from mnote_kr.citations.render.noresults import weak_reason
from mnote_kr.core import atomic
from mnote_kr.sync.reconcile import reconcile_and_apply
from tests.test_weak_variants import place


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    ws = tmp_path / "ws"
    write(ws / "kb" / "cricket.md", "The cricket report: the county won the cup. Reports follow.\n")
    write(ws / "kb" / "annual.md", "Annual report of the school.\n")
    host, _ = fake_host(ws, FakeProvider(suffixes=frozenset({".md"}), delete_status="delete_completed"))
    host.roots_add("kb")
    yield host


def counts(host: Host) -> dict[str, int]:
    lib = libwords.load(host.workspace.index_dir)
    assert lib is not None
    return {"files": lib.files, **{w: lib.df.get(w, 0) for w in ("report", "cricket", "annual", "school", "table")}}


def test_ingest_counts_each_file_once_per_word_and_leaves_the_files_as_they_were(kb: Host) -> None:
    before = digest_tree(kb.root / "kb")
    kb.ingest(["kb"])
    # "report" twice in cricket.md ("report", "Reports") and once in annual.md: two files
    assert counts(kb) == {"files": 2, "report": 2, "cricket": 1, "annual": 1, "school": 1, "table": 0}
    assert digest_tree(kb.root / "kb") == before


def test_a_changed_file_s_old_words_leave_and_its_new_ones_come(kb: Host) -> None:
    kb.ingest(["kb"])
    write(kb.root / "kb" / "annual.md", "A table of cricket scores.\n")
    reconcile_and_apply(kb)
    assert counts(kb) == {"files": 2, "report": 1, "cricket": 2, "annual": 0, "school": 0, "table": 1}


def test_a_deleted_file_leaves_the_counts(kb: Host) -> None:
    kb.ingest(["kb"])
    (kb.root / "kb" / "cricket.md").unlink()
    reconcile_and_apply(kb)
    assert counts(kb) == {"files": 1, "report": 1, "cricket": 0, "annual": 1, "school": 1, "table": 0}
    kb.delete(["kb/annual.md"])  # the user's delete of the index (the file stays)
    assert counts(kb)["files"] == 0 and (kb.root / "kb" / "annual.md").exists()


def test_a_write_killed_half_way_leaves_the_old_counts_readable(kb: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    kb.ingest(["kb"])
    real = os.write

    def killed(fd: int, data: bytes | memoryview) -> int:
        real(fd, bytes(data[: len(data) // 2]))
        raise KeyboardInterrupt  # the process stopped with half the bytes written

    monkeypatch.setattr(atomic.os, "write", killed)
    with pytest.raises(KeyboardInterrupt):
        libwords.note(kb.workspace.index_dir, {"kb/new.md": ("sha256:x", ["a table"])})
    monkeypatch.setattr(atomic.os, "write", real)
    libwords._memo.clear()  # as a new process reads it
    assert counts(kb) == {"files": 2, "report": 2, "cricket": 1, "annual": 1, "school": 1, "table": 0}
    index = kb.workspace.index_dir
    assert sorted(p.name for p in index.iterdir() if "libwords" in p.name) == [
        "libwords", "libwords.dirty", "libwords.msgpack"]  # the mark: the next update counts again
    assert len(os.listdir(index / "libwords")) == 2  # each file's words; no half-written file left beside them


#: English files of the repo's corpus: five hold "report" (a text box, three Tika letters, the Bangalore article).
LIBRARY = ["docling__word_sample", "docling__textbox", "kotaemon__dummy", "markitdown__test_with_comment",
           "poi__stress007", "poi__stress009", "poi__stress014", "poi__stress023", "tika__017091", "tika__017097",
           "tika__018367", "unstructured__tables-with-incomplete-rows", "python-docx__par-rendered-page-breaks",
           "khoj__bangalore"]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[libwords.LibraryWords]:
    """The counts of a library of these files, as ingest's preparation gathers them (the locators' places)."""
    tmp = tmp_path_factory.mktemp("reports")
    old = os.environ.get("MNOTE_KR_HOME")
    os.environ["MNOTE_KR_HOME"] = str(tmp / "home")
    try:
        ws = tmp / "ws"
        (ws / "docs").mkdir(parents=True)
        for name in LIBRARY:
            shutil.copyfile(CORPUS / "docx" / f"{name}.docx", ws / "docs" / f"{name}.docx")
        host = Host(ws)
        host.roots_add("docs")
        host._prepare_locate([(str(ws / "docs" / f"{n}.docx"), f"docs/{n}.docx") for n in LIBRARY])
        lib = libwords.load(host.workspace.index_dir)
        assert lib is not None
        yield lib
    finally:
        if old is None:
            os.environ.pop("MNOTE_KR_HOME", None)
        else:
            os.environ["MNOTE_KR_HOME"] = old


def paragraph_with(name: str, word: str) -> str:
    """The first paragraph (``w:p``: in the body, a table or a text box) of the corpus file ``name`` holding ``word``,
    read here with python-docx's XML."""
    body = docx.Document(str(CORPUS / "docx" / f"{name}.docx")).element.body
    for p in body.iter(qn("w:p")):
        text = "".join(t.text or "" for t in p.iter(qn("w:t")))
        if word in text.lower():
            return text
    raise AssertionError(f"no paragraph of {name} holds {word}")


def test_a_query_holding_only_a_word_common_in_the_library_and_one_it_lacks_is_weak(
        reports: libwords.LibraryWords) -> None:
    letter = place("r1", paragraph_with("tika__017097", "report"), "docs/tika__017097.docx", lexical=0.15)
    query = "how to report a lost passport"  # an off-topic tuning query (offtopic_queries.json)
    assert weak_reason([letter], query) is None  # without the library's counts: "report" clears it
    reason = weak_reason([letter], query, lambda: reports)
    assert reason is not None and "(report)" in reason and "passport" in reason


@pytest.mark.parametrize("query", [
    "which report describes the Bangalore cricket ground",  # "cricket" is in one file of 14: it says something
    "how to report the weather",  # no word the library lacks: the rule does not judge
])
def test_a_word_rare_in_the_library_or_none_lacking_keeps_it_answered(
        reports: libwords.LibraryWords, query: str) -> None:
    passage = paragraph_with("khoj__bangalore", "cricket") + " " + paragraph_with("tika__017097", "report")
    assert weak_reason([place("b1", passage, "docs/khoj__bangalore.docx", lexical=0.3)], query, lambda: reports) is None


def test_two_files_counts_do_not_judge_and_three_s_judge_a_query_most_of_whose_words_none_holds(tmp_path: Path) -> None:
    lib = libwords.LibraryWords()
    for i in range(3):
        lib.put(f"docs/{i}.md", "", [f"report number {i}"])
    letter = place("r1", "A report of the meeting.", "docs/0.md", lexical=0.15)
    assert weak_reason([letter], "how to train for a report", lambda: lib) is None  # one word in no file: no judging
    # most of its words in no file of the three (``weakmore.library_lacks``) it is weak; in two files nothing judges
    reason = weak_reason([letter], "how to report a lost passport", lambda: lib)
    assert reason is not None and "(lost, passport) are in no file" in reason
    lib.drop("docs/2.md")
    assert weak_reason([letter], "how to report a lost passport", lambda: lib) is None


def test_counts_of_a_few_of_the_indexed_files_are_not_read(kb: Host) -> None:
    """A workspace indexed before the counts were kept has them only for the files prepared since: the others'
    words would look lacking."""
    kb.ingest(["kb"])
    assert libwords.for_search(kb.workspace.index_dir, indexed=2) is not None
    assert libwords.for_search(kb.workspace.index_dir, indexed=10) is None


def older_format(host: Host) -> None:
    """The counts and each file's words rewritten as an older ``libwords.VERSION`` kept them (read as none)."""
    index = host.workspace.index_dir
    for path in [libwords.path_in(index), *(index / libwords.WORDS_DIR).glob("*.msgpack")]:
        raw = msgspec.msgpack.decode(path.read_bytes())
        path.write_bytes(msgspec.msgpack.encode([libwords.VERSION - 1, *raw[1:]]))


@pytest.mark.parametrize("how", ["sync", "ingest"])
def test_counts_of_an_older_format_are_made_again_by_sync_or_ingest_without_sending_a_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    write(tmp_path / "ws" / "kb" / "cricket.md", "The cricket report: the county won the cup. Reports follow.\n")
    write(tmp_path / "ws" / "kb" / "annual.md", "Annual report of the school.\n")
    host, provider = fake_host(tmp_path / "ws", FakeProvider(suffixes=frozenset({".md"}),
                                                             delete_status="delete_completed"))
    host.roots_add("kb")
    host.ingest(["kb"], embed=True)  # the places' vectors made: no later sync prepares these files again for them
    before = digest_tree(host.root / "kb")
    want = counts(host)
    older_format(host)
    assert libwords.load(host.workspace.index_dir) is None  # what an old workspace had: no library rule
    sent = list(provider.ingested)
    if how == "sync":
        reconcile_and_apply(host)
    else:
        host.ingest(["kb"])  # nothing changed: nothing to send
    assert counts(host) == want
    assert provider.ingested == sent
    assert digest_tree(host.root / "kb") == before
