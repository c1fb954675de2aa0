"""An engine stopped in the middle of a file, end to end on the real lightrag-server (nc26c surprise 1): the file
is not lost behind "still being indexed". A multi-chunk DOCX is sent, the engine is stopped while LightRAG
embeds its chunks, and started again: LightRAG lists the file ``processing`` beside an idle pipeline. ``status``
names it interrupted, ``sync`` sends it again (LightRAG's own way: a scan, whose run takes it up anew), and
the file becomes searchable. Its bytes are never touched.

Waits are on conditions (LightRAG's document status, the registry), bounded only so that a failure ends."""

from __future__ import annotations

import hashlib
import random
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from mnote_kr_testkit.docx_docs import DocxBuilder
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.citations.render.statustext import render_status
from mnote_kr_lightrag.engine.managed import EngineInfo, start_engine, stop_engine
from tests.surfaces import engine_host, own_engine

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]
REL = "kb/manual.docx"
#: Paragraphs of the manual: ~9,000 words, some 30 chunks of the engine's 400 tokens. LightRAG embeds them for
#: seconds (tens under load), time enough to stop it in the middle; the recovery is as long again.
PARAGRAPHS = 220
WORDS = ("valve", "gasket", "torque", "bracket", "spindle", "lever", "flange", "rotor", "sleeve", "piston",
         "coupling", "bearing", "washer", "rivet", "hinge", "pulley", "sprocket", "chain", "shaft", "nozzle",
         "inspect", "tighten", "loosen", "replace", "measure", "align", "clean", "lubricate", "record", "check")


def manual_docx(token: str) -> bytes:
    rng = random.Random(33)
    b = DocxBuilder()
    b.heading("Maintenance manual", 1)
    for i in range(PARAGRAPHS):
        if i % 20 == 0:
            b.heading(f"Section {i // 20 + 1}", 2)
        b.para(" ".join(rng.choice(WORDS) for _ in range(40)) + ".")
        if i == PARAGRAPHS // 2:
            b.para(f"The heron calibration {token} sets the copper spindle at eleven degrees.")
    return b.build()


def _row(info: EngineInfo, doc_id: str) -> dict[str, Any] | None:
    """LightRAG's own row of the document (its status), or None."""
    answer = httpx.post(f"{info.url}/documents/paginated", headers={"X-API-Key": info.api_key}, timeout=30,
                        json={"page": 1, "page_size": 50})
    return next((r for r in answer.json()["documents"] if r["id"] == doc_id), None)


def _idle(info: EngineInfo) -> bool:
    answer = httpx.get(f"{info.url}/documents/pipeline_status", headers={"X-API-Key": info.api_key}, timeout=30)
    body = answer.json()
    return not (body.get("busy") or body.get("scanning") or body.get("pending_enqueues"))


def test_a_file_the_engine_stopped_in_the_middle_of_is_named_and_indexed_again_by_sync(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = own_engine(tmp_path, 180)
    state_dir = engine["state_dir"]
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    token = uuid.uuid4().hex[:10]
    (ws / REL).write_bytes(manual_docx(token))
    before = hashlib.sha256((ws / REL).read_bytes()).hexdigest()

    info = start_engine(**engine)
    try:
        host = engine_host(ws, info, monkeypatch)
        host.add_root("kb")
        host.ingest(["kb"])  # sent; no wait
        doc_id = host.registry().entries[REL].light_rag_doc_id
        assert doc_id
        # LightRAG embeds its chunks: stop the engine now, as 'mnote-kr engine stop' does
        wait_until(lambda: (_row(info, doc_id) or {}).get("status") == "processing", timeout_s=300, poll_s=0.05,
                   what=lambda: f"LightRAG never listed it processing: {_row(info, doc_id)}")
    finally:
        stop_engine(state_dir)

    info = start_engine(**engine)
    try:
        row = _row(info, doc_id)
        assert row is not None and row["status"] == "processing" and _idle(info), row  # what nc26c met
        host = engine_host(ws, info, monkeypatch)
        status = host.status()
        assert status["registry"]["interrupted"]["paths"] == [REL], status["registry"]
        text = render_status(status)
        assert f"Interrupted: {REL}: the engine stopped while indexing it; 'mnote-kr sync' indexes it again" in text
        assert "still being indexed" not in text, text
        found = host.search(f"heron calibration {token}", mode="naive")
        assert [(n.source_path, n.status) for n in found.not_indexed] == [(REL, "interrupted")], found.not_indexed

        result = host.sync()  # one look: sends it again
        assert result["inFlightNotes"] and result["inFlightNotes"][0]["path"] == REL, result
        host.sync(wait_s=900, wait_idle=False)  # follows it until LightRAG has indexed it
        entry = host.registry().entries[REL]
        assert entry.status == "processed" and entry.light_rag_doc_id == doc_id, entry
        assert _row(info, doc_id)["status"] == "processed"  # type: ignore[index]
        found = host.search(f"heron calibration {token}", mode="naive")
        hits = [c for c in found.results if c.source_root_relative_path == REL]
        assert hits and any(token in (c.display_quote or "") for c in hits), [c.display_quote for c in found.results]
        assert "interrupted" not in host.status()["registry"] or not host.status()["registry"]["interrupted"]["count"]
    finally:
        stop_engine(state_dir)
    assert hashlib.sha256((ws / REL).read_bytes()).hexdigest() == before  # never touched
