"""The managed engine's vector storage: Faiss for new indexes, an older index kept as it was built,
and LightRAG's whole-file JSON writes through the C encoder."""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr_lightrag.engine import jsonwrites, storage


def _nano_file(space: Path, rows: int) -> None:
    space.mkdir(parents=True, exist_ok=True)
    data = [{"__id__": f"chunk-{i}", "content": "x"} for i in range(rows)]
    (space / "vdb_chunks.json").write_text(json.dumps({"embedding_dim": 4, "data": data, "matrix": ""}))


def test_lr_a_new_namespace_gets_faiss_and_keeps_it(tmp_path: Path) -> None:
    name, note = storage.vector_storage(tmp_path, "mnote_abc")
    assert (name, note) == (storage.FAISS, None)
    assert storage.recorded(tmp_path / "mnote_abc") == storage.FAISS
    _nano_file(tmp_path / "mnote_abc", 3)  # vectors appearing later do not change a recorded choice
    assert storage.vector_storage(tmp_path, "mnote_abc")[0] == storage.FAISS


def test_lr_an_unrecorded_index_of_nanovectordb_keeps_it_with_a_note(tmp_path: Path) -> None:
    _nano_file(tmp_path, 2)  # the default namespace, as LightRAG's default storage left it
    name, note = storage.vector_storage(tmp_path, None)
    assert name == storage.NANO and note is not None and "reembed" in note
    assert storage.recorded(tmp_path) == storage.NANO


def test_lr_an_empty_nano_file_or_faiss_files_decide_as_their_content_says(tmp_path: Path) -> None:
    _nano_file(tmp_path / "empty", 0)  # LightRAG writes empty vdb files for unused stores
    assert storage.vector_storage(tmp_path, "empty")[0] == storage.FAISS
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "faiss_index_chunks.index").write_bytes(b"\0")
    assert storage.detect(tmp_path / "f") == storage.FAISS


def test_lr_fast_json_dump_writes_the_same_value_and_keeps_the_fallbacks() -> None:
    value = {"doc-1": {"content": "naïve 中文 \"quoted\"", "n": [1, 2.5, None, True]}, "": {}}
    fast, slow = io.StringIO(), io.StringIO()
    jsonwrites.FAST_JSON.dump(value, fast, indent=2, ensure_ascii=False)
    json.dump(value, slow, indent=2, ensure_ascii=False)
    assert json.loads(fast.getvalue()) == json.loads(slow.getvalue()) == value
    assert "\n" not in fast.getvalue() and "中文" in fast.getvalue()  # compact, UTF-8 as asked
    odd = io.StringIO()
    jsonwrites.FAST_JSON.dump({"t": (1, 2)}, odd, sort_keys=True)  # options msgspec lacks: the stdlib's C encoder
    assert odd.getvalue() == '{"t": [1, 2]}'
    assert jsonwrites.FAST_JSON.loads("[1]") == [1]  # every other name is the real module's

    class Upper(json.JSONEncoder):
        def encode(self, o: object) -> str:
            return super().encode(o).upper()

        def iterencode(self, o: object, _one_shot: bool = False):  # type: ignore[no-untyped-def]
            return (chunk.upper() for chunk in super().iterencode(o, _one_shot))

    custom = io.StringIO()
    jsonwrites.FAST_JSON.dump({"a": "b"}, custom, cls=Upper)
    assert custom.getvalue() == '{"A": "B"}'  # a custom encoder still goes through the stdlib


def test_lr_lightrag_write_json_through_the_fast_dump_still_sanitises(tmp_path: Path) -> None:
    import lightrag.utils as lr_utils

    original = lr_utils.json
    try:
        lr_utils.json = jsonwrites.FAST_JSON  # what install() does in the engine's process
        path = tmp_path / "kv.json"
        assert lr_utils.write_json({"k": {"v": "ok é"}}, str(path)) is False
        assert json.loads(path.read_text(encoding="utf-8")) == {"k": {"v": "ok é"}}
        # A lone surrogate cannot be written as UTF-8: LightRAG's sanitising fallback takes over.
        assert lr_utils.write_json({"k": "bad \ud800"}, str(path)) is True
        assert json.loads(path.read_text(encoding="utf-8")) == {"k": "bad "}
    finally:
        lr_utils.json = original


def test_lr_install_patches_only_the_storage_in_use() -> None:
    import lightrag.utils as lr_utils
    import nano_vectordb.dbs as nano

    saved = (lr_utils.json, nano.json)
    try:
        lr_utils.json, nano.json = json, json
        assert jsonwrites.install(storage.NANO) == ["lightrag.utils", "nano_vectordb.dbs"]
        assert lr_utils.json is jsonwrites.FAST_JSON and nano.json is jsonwrites.FAST_JSON
    finally:
        lr_utils.json, nano.json = saved


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.integration
def test_lr_an_engine_built_with_nanovectordb_keeps_its_index_until_reembed(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A workspace indexed with LightRAG's default storage (before mnote-kr chose Faiss) still
    answers from that index after the upgrade; 'engine reembed' moves it to Faiss, keeping the old one."""
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.app.host import Host
    from mnote_kr_lightrag import commands
    from mnote_kr_lightrag.client import naming
    from mnote_kr_lightrag.client.workspaces import PREFIX
    from mnote_kr_lightrag.engine import managed as engine

    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    dirs = engine.default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    ws = tmp_path / "kb"
    (ws / "docs").mkdir(parents=True)
    source = ws / "docs" / "multi_page.pdf"
    shutil.copyfile(CORPUS / "pdf" / "docling__multi_page.pdf", source)
    before = _sha(source)
    host = Host(ws)
    space = dirs["data_dir"] / "engine" / "rag_storage" / (PREFIX + naming.workspace_tag(host.root))
    # The old build: what an mnote-kr before this change ran (LightRAG's default vector storage).
    storage.write_record(space, storage.NANO)
    engine.start_engine(**dirs, wait_s=120)
    try:
        host.roots_add("docs")
        report = host.ingest(["docs"], wait=True, wait_s=180)
        assert [i.status for i in report.items] == ["processed"]
    finally:
        engine.stop_engine(dirs["state_dir"])
    assert (space / "vdb_chunks.json").is_file() and not list(space.glob("faiss_index_*"))
    (space / storage.RECORD).unlink()  # that build wrote no record

    # The upgrade: the unrecorded index is recognised and kept, with a note; search still finds it.
    engine.start_engine(**dirs, wait_s=120)
    try:
        found = Host(ws).search("who invented the typewriter", top_k=5)
        assert found.results and found.results[0].source_root_relative_path == "docs/multi_page.pdf"
        ws_info = engine.engine_status(engine.workspace_state_dir(dirs["state_dir"], space.name))
        assert ws_info is not None and ws_info.vector_storage == storage.NANO
        assert ws_info.storage_note and "reembed" in ws_info.storage_note
        assert storage.recorded(space) == storage.NANO
    finally:
        engine.stop_engine(dirs["state_dir"])

    # The explicit migration: reembed sets the namespace aside (kept) and rebuilds it with Faiss.
    try:
        out = commands.reembed(str(ws), wait_s=180)
        assert out["previousIndex"] and (Path(out["previousIndex"]) / "vdb_chunks.json").is_file()
        assert [i["status"] for i in out["report"]["items"]] == ["processed"]
        assert storage.recorded(space) == storage.FAISS and list(space.glob("faiss_index_chunks.index*"))
        found = Host(ws).search("who invented the typewriter", top_k=5)
        assert found.results and found.results[0].source_root_relative_path == "docs/multi_page.pdf"
    finally:
        engine.stop_engine(dirs["state_dir"])
    assert _sha(source) == before


def test_lr_default_tls_contexts_are_built_once_and_others_as_before() -> None:
    from mnote_kr_lightrag.engine import sslreuse

    built: list[object] = []

    def create(verify: object = True, cert: object = None, trust_env: bool = True) -> object:
        built.append((verify, cert, trust_env))
        return object()

    reuse = sslreuse.reusing(create)  # type: ignore[arg-type]
    a, b = reuse(verify=True, cert=None, trust_env=True), reuse(verify=True, cert=None, trust_env=True)
    assert a is b and built == [(True, None, True)]
    assert reuse(verify=True, trust_env=False) is not a  # another trust_env: its own context
    assert reuse(verify=False) is not reuse(verify=False)  # anything but the default: fresh every time
    assert reuse(verify=True, cert="c.pem") is not a


def test_lr_reused_context_serves_real_httpx_clients() -> None:
    import httpx

    from mnote_kr_lightrag.engine import sslreuse

    module = importlib.import_module("httpx._transports.default")
    original = module.create_ssl_context
    try:
        assert "httpx._transports.default" in sslreuse.install()
        one, two = httpx.AsyncHTTPTransport(), httpx.AsyncHTTPTransport()
        assert one._pool._ssl_context is two._pool._ssl_context
        assert one._pool._ssl_context.verify_mode == original().verify_mode  # the library's own context
        assert httpx.AsyncHTTPTransport(verify=False)._pool._ssl_context is not one._pool._ssl_context
    finally:
        module.create_ssl_context = original
