"""The offline model service under LightRAG's embedding load: several requests of chunk batches at once.

LightRAG 1.5.7 embeds a document's chunks in batches of 10 texts with up to 8 requests in flight;
the service's memory must not grow with the requests in flight (``benchmarks/modelservice_memory.py``
measures it), and its vectors must not depend on them."""

from __future__ import annotations

import base64
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr_lightrag.engine import modelservice as ms


def _chunks(n: int, words: int = 300) -> list[str]:
    """``n`` chunk-sized texts of a real paper (about 300 words, as LightRAG's 400-token chunks)."""
    import pypdf

    pages = pypdf.PdfReader(CORPUS / "pdf" / "pdfjs__tracemonkey.pdf").pages
    tokens = " ".join((page.extract_text() or "") for page in pages).split()
    return [" ".join(tokens[i * words:(i + 1) * words]) for i in range(n)]


def _vectors(client: httpx.Client, url: str, texts: list[str]) -> np.ndarray:
    r = client.post(url, json={"input": texts, "encoding_format": "base64"})
    assert r.status_code == 200, r.text
    return np.stack([np.frombuffer(base64.b64decode(row["embedding"]), "<f4") for row in r.json()["data"]])


def test_lr_model_service_gives_requests_sent_at_once_the_vectors_each_gets_alone() -> None:
    texts = _chunks(24)
    assert all(len(t.split()) == 300 for t in texts)
    batches = [texts[i:i + 4] for i in range(0, len(texts), 4)]  # 6 requests in flight, as LightRAG sends them
    with ms.running("e5xlang") as srv, httpx.Client(trust_env=False, timeout=600,
                                                    headers=ms.auth_headers(srv.api_key)) as client:
        url = f"http://127.0.0.1:{srv.server_address[1]}/v1/embeddings"
        alone = np.concatenate([_vectors(client, url, b) for b in batches])
        with ThreadPoolExecutor(len(batches)) as pool:
            together = np.concatenate(list(pool.map(lambda b: _vectors(client, url, b), batches)))
    cos = (alone * together).sum(1) / np.linalg.norm(alone, axis=1) / np.linalg.norm(together, axis=1)
    assert cos.min() >= 0.999, cos
    assert float(alone[0] @ alone[1]) < 0.99  # not one vector for every chunk


def _proc_memory(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (the peak) of ``pid`` in MiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) // 1024
    return out


@pytest.mark.integration
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the model service's peak RSS from /proc")
def test_lr_engine_ingests_a_long_document_with_its_model_service_under_300_mib_and_500_a_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 104-chunk document (LightRAG sends 8 requests of 10 chunks at once for it): the model
    service the workspace engine uses (the shared engine's; the default, e5usexlang: e5 and USE) peaks under its
    model and one forward pass of 0.5 GB per place (``e5_onnx.passes()``: one per core, at most 4;
    0.9 GB measured on 2 cores, where every request running its own passes took 1.7 GB): a bigger
    machine runs more passes at once."""
    from mnote_kr_testkit.engine import seed_tiktoken

    from mnote_kr.app.host import Host
    from mnote_kr.citations.rank import e5_onnx
    from mnote_kr_lightrag.engine import embedders, managed

    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    dirs = managed.default_engine_dirs()
    seed_tiktoken(dirs["cache_dir"])
    ws = tmp_path / "kb"
    (ws / "docs").mkdir(parents=True)
    source = ws / "docs" / "bangalore.docx"
    shutil.copyfile(CORPUS / "docx" / "khoj__bangalore.docx", source)
    before = source.read_bytes()
    managed.start_engine(**dirs, wait_s=300)
    try:
        host = Host(ws)
        host.roots_add("docs")
        report = host.ingest(["docs"], wait=True, wait_s=900)
        assert [i.status for i in report.items] == ["processed"]
        (state,) = managed.workspace_state_dirs(dirs["state_dir"])
        info = managed.engine_status(state)
        assert info is not None and info.embedder and info.embedder["name"] == embedders.DEFAULT_EMBEDDER
        pid = info.shared_models_pid or info.pids["models"]  # the engine's service, which it uses
        assert info.models_url and info.models_key
        stats = httpx.get(f"{info.models_url}/stats", headers=ms.auth_headers(info.models_key), trust_env=False)
        assert stats.json()["requests"]["embeddings"] >= 11  # its 104 chunks, 10 a request: 8 of them at once
        peak = _proc_memory(pid)["VmHWM"]
        limit = 300 + 500 * e5_onnx.passes()  # 1,300 MiB on 2 cores
        assert peak < limit, f"the model service peaked at {peak} MiB (at most {limit})"
        assert b"MALLOC_ARENA_MAX=2" in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    finally:
        managed.stop_engine(dirs["state_dir"])
    assert source.read_bytes() == before
