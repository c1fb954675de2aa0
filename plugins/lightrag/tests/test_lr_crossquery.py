"""The translated second query: only when the workspace holds the other language, only adding files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from mnote_kr.models import ProviderReference
from mnote_kr_lightrag.client import crossquery, naming


def _ref(file: str, n: int, text: str = "text") -> ProviderReference:
    return ProviderReference(provider="lightrag", file_path=file, chunk_id=f"doc-{file}-chunk-{n:03d}",
                             doc_id=f"doc-{file}", content=text, rank=n)


def test_the_translation_only_adds_files_the_question_lacks_and_its_files_keep_their_places() -> None:
    first = [_ref("a.pdf", 0), _ref("b.pdf", 0), _ref("a.pdf", 1), _ref("c.pdf", 0)]
    # the translation finds a.pdf again (another chunk), then four files the question's slots lack
    second = [_ref("x.pdf", 0), _ref("a.pdf", 7), _ref("y.pdf", 0), _ref("x.pdf", 1), _ref("z.pdf", 0),
              _ref("w.pdf", 0)]
    groups = crossquery.added(first, second, wanted=6)
    assert [[r.chunk_id for r in g] for g in groups] == [
        ["doc-x.pdf-chunk-000", "doc-x.pdf-chunk-001"], ["doc-y.pdf-chunk-000"], ["doc-z.pdf-chunk-000"]]
    best = {"a.pdf": 0.80, "b.pdf": 0.50, "c.pdf": 0.30}
    # z matches its translation better than a.pdf matches the question, x better than b only, y worse than
    # all: left out (it would follow every file shown)
    out = crossquery.place(first, [(groups[0][1], 0.60), (groups[1][0], 0.20), (groups[2][0], 0.90)], best, wanted=7)
    assert [r.chunk_id for r in out] == ["doc-z.pdf-chunk-000", "doc-a.pdf-chunk-000", "doc-x.pdf-chunk-001",
                                         "doc-b.pdf-chunk-000", "doc-a.pdf-chunk-001", "doc-c.pdf-chunk-000"]
    assert [r.rank for r in out] == [1, 2, 3, 4, 5, 6]
    # the question's own references, in their order and with their chunks, whatever was added
    assert [r.chunk_id for r in out if r.file_path in best] == [r.chunk_id for r in first]
    # without scores, added files only follow the question's own
    plain = crossquery.place(first, [(g[0], 0.0) for g in groups], None, wanted=6)
    assert [r.file_path for r in plain] == ["a.pdf", "b.pdf", "a.pdf", "c.pdf", "x.pdf", "y.pdf"]


def test_a_chunks_language_is_read_from_its_letters() -> None:
    assert crossquery.language("Norway won two silver medals.") == "en"
    assert crossquery.language("核电厂定期安全审查 (PSR) 第12部分") == "zh"
    assert crossquery.language("The 安全 review of the plant, section 12") == "en"
    assert crossquery.language("12.5 %") is None


def _chunks(*found: tuple[str, str]) -> dict[str, object]:
    return {"status": "success", "data": {
        "chunks": [{"reference_id": str(i), "file_path": f, "content": t, "chunk_id": f"doc-{f}-chunk-000"}
                   for i, (f, t) in enumerate(found)],
        "references": [{"reference_id": str(i), "file_path": f} for i, (f, _) in enumerate(found)]}}


@pytest.fixture
def chinese_workspace(tmp_path, monkeypatch: pytest.MonkeyPatch):
    from mnote_kr_testkit.data import SAMPLES
    from mnote_kr_testkit.replay import replayed_provider

    from mnote_kr.citations.text import crosslang
    from mnote_kr_lightrag.client import settings

    crosslang.dictionary()
    monkeypatch.setattr(crossquery, "TRANSLATE", True)
    settings.clear_cache()
    env = replayed_provider(tmp_path, SAMPLES)
    env["replay"].sample("GET", "/health", "02_health_auth.json")
    env["replay"].add("POST", "/query/data", lambda request: httpx.Response(200, json=_chunks(
        ("report.docx", "挪威在冬奥会上获得了两枚银牌。"),
        ("minutes.pdf", "董事会周二开会并批准了预算。"))))
    return env


def _asked(env, question: str) -> list[str]:
    import mnote_kr_lightrag as plugin
    from mnote_kr.models import QueryRequest

    before = len(env["replay"].sent("POST", "/query/data"))
    plugin.query(ctx=env["ctx"], request=QueryRequest(query=question, mode="naive"))
    return [json.loads(r.content)["query"] for r in env["replay"].sent("POST", "/query/data")[before:]]


def test_a_workspace_of_one_language_sends_one_query(chinese_workspace) -> None:
    """Once CLOSE_AFTER searches that sent a translation found only Chinese files, a Chinese question
    is asked once (nothing English to find); until then it is asked in English too."""
    for question in ("哪个国家拿了两枚银牌", "董事会批准了预算吗", "冬奥会在哪里举行")[:crossquery.CLOSE_AFTER]:
        asked = _asked(chinese_workspace, question)
        assert len(asked) == 2 and asked[0] == question and asked[1] != question
    assert _asked(chinese_workspace, "董事会什么时候开会") == ["董事会什么时候开会"]


def test_the_result_says_what_the_translation_did_or_why_none_was_sent(chinese_workspace) -> None:
    """``diagnostics.translation``: sent, its text and the files it added; once the workspace is known to hold
    one language, why none is sent."""
    import mnote_kr_lightrag as plugin
    from mnote_kr.models import QueryRequest

    chinese_workspace["replay"].add("POST", "/query/data", _by_query)
    ctx = chinese_workspace["ctx"]
    told = plugin.query(ctx=ctx, request=QueryRequest(query="哪个国家拿了两枚银牌", mode="naive")).diagnostics
    sent = json.loads(chinese_workspace["replay"].sent("POST", "/query/data")[-1].content)["query"]
    assert told == {"translation": {"sent": True, "text": sent, "addedFiles": 1, "added": ["results.docx"],
                                    "reason": None}}
    # a workspace whose translated searches found no English file (the record of the one above forgotten):
    # the gate closes, and says so
    from mnote_kr_lightrag.client import naming

    chinese_workspace["replay"].add("POST", "/query/data", lambda request: httpx.Response(200, json=_chunks(
        ("report.docx", "挪威在冬奥会上获得了两枚银牌。"))))
    (Path(ctx.state_dir) / "crosslang" / f"{naming.workspace_tag(ctx.workspace_root)}.json").unlink()
    answers = [plugin.query(ctx=ctx, request=QueryRequest(query="董事会批准了预算吗", mode="naive")).diagnostics
               for _ in range(crossquery.CLOSE_AFTER + 1)]
    assert [a["translation"]["sent"] for a in answers] == [True] * crossquery.CLOSE_AFTER + [False]
    assert answers[0]["translation"]["addedFiles"] == 0 and answers[0]["translation"]["added"] == []
    assert answers[-1]["translation"]["reason"] == "workspace holds one language"


def _by_query(request: httpx.Request) -> httpx.Response:
    """A workspace of two Chinese files and one English one that only the English question finds."""
    if "silver" in json.loads(request.content)["query"]:
        return httpx.Response(200, json=_chunks(("results.docx", "Norway won two silver medals.")))
    return httpx.Response(200, json=_chunks(("report.docx", "挪威在冬奥会上获得了两枚银牌。"),
                                            ("minutes.pdf", "董事会周二开会并批准了预算。")))


def test_a_fresh_install_translates_once_the_dictionary_is_ready(chinese_workspace,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The first searches of a fresh install send no translation (the dictionary is being parsed) and
    find only Chinese files: that closes nothing, so once it is ready the English file is found."""
    from mnote_kr.citations.text import crosslang

    chinese_workspace["replay"].add("POST", "/query/data", _by_query)
    started: list[bool] = []
    with monkeypatch.context() as parsing:
        parsing.setattr(crosslang, "ready", lambda: False)
        parsing.setattr(crosslang, "prepare", lambda background=True: started.append(background))
        for _ in range(crossquery.CLOSE_AFTER + 1):
            assert _asked(chinese_workspace, "哪个国家拿了两枚银牌") == ["哪个国家拿了两枚银牌"]
    assert started and all(started)
    asked = _asked(chinese_workspace, "哪个国家拿了两枚银牌")
    assert len(asked) == 2 and "silver" in asked[1]
    # the English file seen keeps the gate open however many translated searches follow
    for _ in range(crossquery.CLOSE_AFTER + 1):
        assert len(_asked(chinese_workspace, "董事会什么时候开会")) == 2


def test_a_damaged_language_record_is_one_warning_and_read_as_nothing_known(chinese_workspace) -> None:
    """A record whose file lists a bare string ("en", not ["en"]) is not read as the letters e, n:
    the search warns once, translates, and rewrites the record whole."""
    import mnote_kr_lightrag as plugin
    from mnote_kr.models import QueryRequest
    from mnote_kr_lightrag.client import naming

    ctx = chinese_workspace["ctx"]
    record = Path(ctx.state_dir) / "crosslang" / f"{naming.workspace_tag(ctx.workspace_root)}.json"
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"version": 1, "files": {"doc-a": "zh"}, "translatedSearches": 9}))
    result = plugin.query(ctx=ctx, request=QueryRequest(query="哪个国家拿了两枚银牌", mode="naive"))
    assert [n for n in result.notes if "unreadable" in n and str(record) in n]
    assert len(chinese_workspace["replay"].sent("POST", "/query/data")) == 2
    assert json.loads(record.read_text())["files"] == {"doc-report.docx": ["zh"], "doc-minutes.pdf": ["zh"]}
    again = plugin.query(ctx=ctx, request=QueryRequest(query="董事会什么时候开会", mode="naive"))
    assert not [n for n in again.notes if "unreadable" in n]


SCRIPT = """
import json, sys, threading
from pathlib import Path
import httpx
from mnote_kr_testkit.data import SAMPLES
from mnote_kr_testkit.replay import replayed_provider
import mnote_kr_lightrag as plugin
from mnote_kr.citations.text import crosslang
from mnote_kr.models import QueryRequest
from mnote_kr_lightrag.client import crossquery

QUESTION = "哪个国家拿了两枚银牌"
crossquery.TRANSLATE = True
env = replayed_provider(Path(sys.argv[1]), SAMPLES)
env["replay"].sample("GET", "/health", "02_health_auth.json")
events = []  # one ordered list: the dictionary's load and the queries LightRAG receives
own_sent = threading.Event()
real_load = crosslang._load
def load():
    events.append("load starts")
    # the load holds until the question's own query arrives: a search that waited for the dictionary
    # before sending it would only get here after giving up (the guard keeps a broken search from hanging)
    events.append("load saw the question" if own_sent.wait(120) else "load gave up waiting")
    book = real_load()
    events.append("loaded")
    return book
crosslang._load = load
def answer(request):
    query = json.loads(request.content)["query"]
    events.append(query)
    if query == QUESTION:
        own_sent.set()
    if "silver" in query:
        return httpx.Response(200, json={"status": "success", "data": {"chunks": [{"reference_id": "1",
            "file_path": "results.docx", "content": "Norway won two silver medals.", "chunk_id": "doc-r-chunk-000"}]}})
    return httpx.Response(200, json={"status": "success", "data": {"chunks": [{"reference_id": "1",
        "file_path": "other.docx", "content": "会议纪要", "chunk_id": "doc-o-chunk-000"}]}})
env["replay"].add("POST", "/query/data", answer)
result = plugin.query(ctx=env["ctx"], request=QueryRequest(query=QUESTION, mode="naive"))
print(json.dumps({"events": events, "files": [r.file_path for r in result.references]}))
"""


def test_a_one_shot_process_translates_and_asks_before_the_dictionary_is_loaded(tmp_path) -> None:
    """A fresh process (the dictionary's parse cached, not loaded) translates the question, and the
    question's own query goes out without waiting for the dictionary's load (the load, made to hold
    until the question arrives, sees it)."""
    # as an ingest does: the dictionary parsed and cached in this test's MNOTE_KR_HOME, by another process
    prepare = "from mnote_kr.citations.text import crosslang; crosslang.prepare(background=False)"
    subprocess.run([sys.executable, "-c", prepare], env=os.environ.copy(), check=True)
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "child")], capture_output=True,
                         text=True, env=os.environ.copy(), check=True, cwd=Path(__file__).parent)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    events = got["events"]
    translated = [e for e in events if "silver" in e]
    assert "load saw the question" in events and len(translated) == 1
    assert events.index("哪个国家拿了两枚银牌") < events.index("loaded") < events.index(translated[0])
    assert got["files"] == ["other.docx", "results.docx"]


def _language_record(ctx) -> Path:  # a ProviderContext
    return Path(ctx.state_dir) / "crosslang" / f"{naming.workspace_tag(ctx.workspace_root)}.json"


@pytest.mark.parametrize("answer", ["50_delete_document.json", "51_delete_again_immediately.json"])
def test_a_deleted_documents_language_leaves_the_translation_record(tmp_path: Path, answer: str) -> None:
    """The files' languages the searches learned (``crossquery.Languages``) lose a document once its delete is
    sent: a deleted or moved English file no longer keeps the workspace's English open. A delete LightRAG
    refused (busy) keeps it: the document is still there, and the delete is sent again later."""
    from mnote_kr_testkit.data import SAMPLES
    from mnote_kr_testkit.replay import replayed_provider, source_file

    import mnote_kr_lightrag as plugin
    from mnote_kr.models import SourceEntry

    env = replayed_provider(tmp_path, SAMPLES)
    ws, replay, ctx = env["ws"], env["replay"], env["ctx"]
    (ws / "d.md").write_bytes(b"gone soon")
    src = source_file(ws, "d.md")
    name = naming.link_name(src.rel_path, src.sha256, naming.workspace_tag(ws))
    gone, kept = naming.doc_id_for(name), "doc-kept"
    crossquery.Languages(ctx.state_dir, naming.workspace_tag(ws)).learn([
        ProviderReference(provider="lightrag", file_path=name, doc_id=gone, content="Norway won two silver medals."),
        ProviderReference(provider="lightrag", file_path="k.md", doc_id=kept, content="董事会周二开会并批准了预算。")])
    assert json.loads(_language_record(ctx).read_text())["files"] == {gone: ["en"], kept: ["zh"]}
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.sample("DELETE", "/documents/delete_document", answer)
    entry = SourceEntry(source_id=src.source_id, source_path=src.path, source_root_relative_path=src.rel_path,
                        source_hash=src.sha256, size=src.size, status="processed", light_rag_file_path=name,
                        light_rag_doc_id=gone)
    [update] = plugin.delete(ctx=ctx, entries=[entry])
    files = json.loads(_language_record(ctx).read_text())["files"]
    if update.status == "delete_submitted":
        assert files == {kept: ["zh"]}
        assert not crossquery.Languages(ctx.state_dir, naming.workspace_tag(ws)).holds("en")
    else:
        assert update.pending_action == "delete" and files == {gone: ["en"], kept: ["zh"]}
    assert (ws / "d.md").read_bytes() == b"gone soon"
