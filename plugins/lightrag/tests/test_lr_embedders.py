"""The offline embedders (real model, no network) and the record of which one built an index."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import numpy as np
import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.errors import ProviderError
from mnote_kr_lightrag.engine import embedders, indexrecord
from mnote_kr_lightrag.engine import modelservice as ms
from mnote_kr_lightrag.engine.managed import free_port


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


# --- the learned model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hybrid() -> object:
    return embedders.make_embedder("hybrid", ms.embed)


def test_lr_hybrid_matches_a_paraphrase_that_shares_no_content_word(hybrid) -> None:  # type: ignore[no-untyped-def]
    q, near, far = hybrid(["who came up with the typing machine",
                           "The typewriter was patented in 1868 by Christopher Latham Sholes.",
                           "Bangalore lies on the Mysore Plateau at an elevation of 900 m."])
    hq, hnear, hfar = (ms.embed(t) for t in ("who came up with the typing machine",
                                            "The typewriter was patented in 1868 by Christopher Latham Sholes.",
                                            "Bangalore lies on the Mysore Plateau at an elevation of 900 m."))
    assert _cos(q, near) > _cos(q, far) + 0.05
    # the hashing vectors alone cannot tell them apart (no shared word, only 3-gram noise)
    assert abs(_cos(hq, hnear) - _cos(hq, hfar)) < 0.05


def test_lr_hybrid_matches_a_chinese_paraphrase(hybrid) -> None:  # type: ignore[no-untyped-def]
    q, near, far = hybrid(["树林对河水流量有什么影响",
                           "森林通过截留降水和增加土壤入渗来调节河流径流。",
                           "本合同一式四份，自双方签章后生效。"])
    assert _cos(q, near) > _cos(q, far) + 0.03


def test_lr_hybrid_vectors_are_unit_length_with_the_recorded_dim(hybrid) -> None:  # type: ignore[no-untyped-def]
    spec = embedders.spec("hybrid")
    for vec in hybrid(["battery capacity", "", "吡咯烷"]):
        assert len(vec) == spec.dim == embedders.WORDLLAMA_DIM + embedders.HASH_DIM
        assert abs(sum(v * v for v in vec) - 1.0) < 1e-5
    assert spec.record()["version"].startswith("wordllama-0.4.0.post1")
    with pytest.raises(ValueError, match="unknown embedder"):
        embedders.spec("minilm")


@pytest.fixture(scope="module")
def e5hybrid() -> object:
    return embedders.make_embedder("e5hybrid", ms.embed)


def test_lr_e5hybrid_is_e5_and_hashing_in_their_shares(e5hybrid) -> None:  # type: ignore[no-untyped-def]
    """Its cosine is ``E5_SHARE`` x e5's (the host's own model, symmetric use) plus the rest x the
    hashing vectors': unit vectors of the recorded dim, the version naming the e5 weights."""
    from mnote_kr.citations.rank.e5 import model

    texts = ["who came up with the typing machine", "The typewriter was patented in 1868 by Christopher Sholes.",
             "树林对河水流量有什么影响", ""]
    vecs = e5hybrid(texts)
    spec = embedders.spec("e5hybrid")
    for vec in vecs:
        assert len(vec) == spec.dim == embedders.E5_DIM + embedders.HASH_DIM
        assert abs(sum(v * v for v in vec) - 1.0) < 1e-4
    # the same batch as the service's: int8 activations are scaled per batch
    e5 = model().embed(texts, query=True, max_tokens=embedders.E5_TOKENS)
    hashed = [ms.embed(t, embedders.HASH_DIM) for t in texts[:3]]
    want = embedders.E5_SHARE * float(e5[0] @ e5[1]) + (1 - embedders.E5_SHARE) * _cos(hashed[0], hashed[1])
    assert abs(_cos(vecs[0], vecs[1]) - want) < 1e-4
    assert spec.record()["version"].startswith("e5-0.3.0-")


@pytest.fixture(scope="module")
def e5xlang() -> object:
    return embedders.make_embedder("e5xlang", ms.embed)


def test_lr_e5xlang_is_e5hybrid_with_the_language_mean_taken_out(e5xlang) -> None:  # type: ignore[no-untyped-def]
    """Its e5 half is e5's vector less ``ALPHA`` x its language's mean, normalised (the hashing half
    as e5hybrid's); its version names the centring, so an index of raw e5 vectors is never mixed in."""
    from mnote_kr.citations.rank import neutral
    from mnote_kr.citations.rank.e5 import model

    texts = ["谁发明了打字机", "The typewriter was patented in 1868 by Christopher Sholes.", "混合 text 文本"]
    vecs = np.asarray(e5xlang(texts))
    e5 = model().embed(texts, query=True, max_tokens=embedders.E5_TOKENS)
    half = vecs[:, : embedders.E5_DIM] / math.sqrt(embedders.E5_SHARE)
    assert np.allclose(half, neutral.neutral(e5, texts), atol=1e-5)
    assert not np.allclose(half, e5, atol=1e-2)  # the centring really moved them
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert neutral.han_share(texts[0]) == 1.0 and neutral.han_share(texts[1]) == 0.0
    assert 0 < neutral.han_share(texts[2]) < 1
    spec = embedders.spec("e5xlang")
    assert spec.dim == embedders.spec("e5hybrid").dim and "neutral-" in spec.version
    assert spec.version != embedders.spec("e5hybrid").version


@pytest.mark.parametrize("question, answer, other", [
    ("谁发明了打字机", "The typewriter was patented in 1868 by Christopher Latham Sholes.",
     "森林通过截留降水和增加土壤入渗来调节河流径流。"),
    ("飞机失速警告是靠什么传感器触发的",
     "The stall warning is triggered by the angle of attack sensor mounted on the fuselage.",
     "核电厂应每十年进行一次定期安全审查。"),
])
def test_lr_e5xlang_puts_a_chinese_question_nearer_its_english_answer(e5hybrid, e5xlang, question: str, answer: str,
                                                                      other: str) -> None:  # type: ignore[no-untyped-def]
    """A Chinese question is nearer an unrelated Chinese text than its English answer under e5hybrid
    (the language's offset outweighs the meaning); with the offset taken out the answer is nearer."""
    q, near, far = e5hybrid([question, answer, other])
    assert _cos(q, near) < _cos(q, far)
    q, near, far = e5xlang([question, answer, other])
    assert _cos(q, near) > _cos(q, far) + 0.05


def test_lr_e5hybrid_matches_paraphrases_in_english_and_chinese(e5hybrid) -> None:  # type: ignore[no-untyped-def]
    q, near, far = e5hybrid(["who came up with the typing machine",
                             "The typewriter was patented in 1868 by Christopher Latham Sholes.",
                             "Bangalore lies on the Mysore Plateau at an elevation of 900 m."])
    assert _cos(q, near) > _cos(q, far) + 0.05
    q, near, far = e5hybrid(["树林对河水流量有什么影响", "森林通过截留降水和增加土壤入渗来调节河流径流。",
                             "本合同一式四份，自双方签章后生效。"])
    assert _cos(q, near) > _cos(q, far) + 0.05


_GUARD = textwrap.dedent("""
    import socket, sys
    def _refuse(*args, **kwargs):
        raise OSError("network disabled by the test's socket guard")
    _real_connect = socket.socket.connect
    def _connect(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if host not in ("127.0.0.1", "::1", "localhost"):
            _refuse()
        return _real_connect(self, address)
    socket.socket.connect = _connect
    socket.socket.connect_ex = lambda self, address: _refuse()
    socket.getaddrinfo = _refuse
    socket.create_connection = _refuse
    from mnote_kr_lightrag.engine import modelservice
    sys.exit(modelservice.main(sys.argv[1:]))
""")


def test_lr_model_service_embeds_with_the_real_model_while_python_has_no_network(tmp_path: Path) -> None:
    """The default service (e5xlang) loads e5 from the installed package with every outward socket refused."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE"))}
    env["HOME"] = str(tmp_path)  # no user-level model cache to fall back on
    env[ms.KEY_ENV] = "test-models-key"
    log = tmp_path / "models.out"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", _GUARD, "--port", str(port)], stdout=out,
                                stderr=subprocess.STDOUT, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        health = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", trust_env=False).json()
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        assert health is not None, log.read_text()
        assert embedders.DEFAULT_EMBEDDER == "e5usexlang"
        assert health["embedder"]["name"] == "e5usexlang" and health["dim"] == embedders.spec("e5usexlang").dim
        texts = ["who invented the typewriter", "Christopher Latham Sholes patented the typewriter in 1868.",
                 "The coolest month is January."]
        r = httpx.post(f"http://127.0.0.1:{port}/v1/embeddings", json={"input": texts}, trust_env=False,
                       headers=ms.auth_headers("test-models-key"))
        assert r.status_code == 200, r.text
        vecs = [row["embedding"] for row in r.json()["data"]]
        learned = [v[: embedders.E5_DIM] for v in vecs]
        assert all(any(abs(x) > 1e-6 for x in v) for v in learned)  # the model's half is really there
        assert _cos(vecs[0], vecs[1]) > _cos(vecs[0], vecs[2])
        assert "network disabled" not in log.read_text()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_lr_model_service_refuses_another_dim_for_the_learned_model() -> None:
    with ms.running(embedder="wordllama") as srv:
        url = f"http://127.0.0.1:{srv.server_address[1]}/v1/embeddings"
        auth = ms.auth_headers(srv.api_key)
        assert httpx.post(url, json={"input": "x", "dimensions": 16}, trust_env=False, headers=auth).status_code == 400
        ok = httpx.post(url, json={"input": ["x y"]}, trust_env=False, headers=auth)
        assert len(ok.json()["data"][0]["embedding"]) == embedders.WORDLLAMA_DIM


# --- the index record ------------------------------------------------------------------------


def _fake_index(engine_dir: Path) -> None:
    storage = engine_dir / "rag_storage"
    storage.mkdir(parents=True)
    (storage / "kv_store_doc_status.json").write_text(json.dumps({"doc-1": {"status": "processed"}}))


def test_lr_index_record_mismatch_is_never_silent(tmp_path: Path) -> None:
    engine_dir = tmp_path / "engine"
    new = embedders.spec("hybrid").record()
    indexrecord.check_index_embedder(engine_dir, new)  # no index yet: anything goes
    _fake_index(engine_dir)
    # an index from before the records existed was built by the hashing embedder
    assert indexrecord.read_index_record(engine_dir) == indexrecord.LEGACY_RECORD
    with pytest.raises(ProviderError) as err:
        indexrecord.check_index_embedder(engine_dir, new)
    assert "built by embedder hashing" in err.value.message and "uses hybrid" in err.value.message
    assert "mnote-kr engine reembed" in (err.value.hint or "")
    endpoint = indexrecord.endpoint_record({"host": "http://127.0.0.1:8000/v1", "model": "bge-m3", "dim": 1024})
    indexrecord.check_index_embedder(engine_dir, endpoint)  # a configured endpoint starts as before
    indexrecord.write_index_record(engine_dir, new)
    indexrecord.check_index_embedder(engine_dir, new)  # same embedder: fine
    with pytest.raises(ProviderError, match="uses endpoint:bge-m3 \\(dim 1024"):
        indexrecord.check_index_embedder(engine_dir, endpoint)  # recorded, then changed: never silent
    moved = indexrecord.set_index_aside(tmp_path)
    assert moved is not None and (moved / "kv_store_doc_status.json").is_file()  # kept, not deleted
    assert not (engine_dir / "rag_storage").exists() and not (engine_dir / indexrecord.INDEX_RECORD).exists()
    indexrecord.check_index_embedder(engine_dir, embedders.spec("hashing").record())


def test_lr_an_index_keeps_its_embedder_until_one_is_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new default never stops an index another offline embedder built: with nothing chosen the
    index's own is used; a choice (argument or environment) wins, and then a mismatch is an error."""
    monkeypatch.delenv(indexrecord.EMBEDDER_ENV, raising=False)
    built = embedders.spec("hybrid").record()
    assert indexrecord.resolve_embedder(None).name == embedders.DEFAULT_EMBEDDER == "e5usexlang"
    assert indexrecord.resolve_embedder(None, built).name == "hybrid"
    assert indexrecord.resolve_embedder(None, indexrecord.LEGACY_RECORD).name == "hashing"
    assert indexrecord.resolve_embedder("e5hybrid", built).name == "e5hybrid"
    assert indexrecord.resolve_embedder(None, {"name": "endpoint:bge-m3"}).name == "e5usexlang"
    # an index a former default built keeps it: its vectors are not the new default's
    assert indexrecord.resolve_embedder(None, embedders.spec("e5hybrid").record()).name == "e5hybrid"
    assert indexrecord.resolve_embedder(None, embedders.spec("e5xlang").record()).name == "e5xlang"
    monkeypatch.setenv(indexrecord.EMBEDDER_ENV, "wordllama")
    assert indexrecord.resolve_embedder(None, built).name == "wordllama"


def test_lr_unknown_embedder_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(indexrecord.EMBEDDER_ENV, "bert")
    with pytest.raises(ProviderError, match="Unknown offline embedder 'bert'"):
        indexrecord.resolve_embedder(None)
    assert indexrecord.resolve_embedder("hashing").name == "hashing"


# --- the real engine: change of embedder, then reembed ------------------------------------------


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.integration
def test_lr_engine_refuses_a_changed_embedder_and_reembed_rebuilds(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.app.host import Host
    from mnote_kr_lightrag import commands
    from mnote_kr_lightrag.engine import managed as engine

    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    dirs = engine.default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    ws = tmp_path / "kb"
    (ws / "docs").mkdir(parents=True)
    source = ws / "docs" / "multi_page.pdf"
    shutil.copyfile(CORPUS / "pdf" / "docling__multi_page.pdf", source)
    before = _sha(source)
    monkeypatch.setenv(indexrecord.EMBEDDER_ENV, "hashing")
    info = engine.start_engine(**dirs, wait_s=120)
    try:
        assert info.embedder == embedders.spec("hashing").record()
        host = Host(ws)
        host.roots_add("docs")
        report = host.ingest(["docs"], wait=True, wait_s=180)
        assert [i.status for i in report.items] == ["processed"]
    finally:
        engine.stop_engine(dirs["state_dir"])
    monkeypatch.delenv(indexrecord.EMBEDDER_ENV)
    # nothing chosen: the index keeps the embedder that built it, and the start says how to move
    kept = engine.start_engine(**dirs, wait_s=120)
    try:
        assert kept.embedder == embedders.spec("hashing").record()
        assert "built by embedder hashing" in (kept.storage_note or "") and "reembed" in (kept.storage_note or "")
    finally:
        engine.stop_engine(dirs["state_dir"])
    monkeypatch.setenv(indexrecord.EMBEDDER_ENV, "e5hybrid")  # chosen: a mismatch is never silent
    with pytest.raises(ProviderError, match="built by embedder hashing") as err:
        engine.start_engine(**dirs, wait_s=120)
    assert "reembed" in (err.value.hint or "")
    assert engine.engine_status(dirs["state_dir"]) is None  # nothing left running
    monkeypatch.delenv(indexrecord.EMBEDDER_ENV)
    try:
        lines: list[str] = []
        out = commands.reembed(str(ws), wait_s=180, progress=lines.append)  # moves the index to the default
        assert out["embedder"]["name"] == "e5usexlang" and out["files"] == 1
        assert any(line.startswith("sent 1/1 files") for line in lines), lines  # what ingest says
        assert out["previousIndex"] and Path(out["previousIndex"]).is_dir()
        assert [i["status"] for i in out["report"]["items"]] == ["processed"]
        found = Host(ws).search("who invented the typewriter", top_k=5)
        assert found.results and found.results[0].source_root_relative_path == "docs/multi_page.pdf"
        assert indexrecord.read_index_record(dirs["data_dir"] / "engine") == embedders.spec("e5usexlang").record()
    finally:
        engine.stop_engine(dirs["state_dir"])
    assert _sha(source) == before
