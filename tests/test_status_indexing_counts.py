"""``status`` while LightRAG indexes tells one story of the files (nc22b item 6: "Documents: 1 processing, 13
processed" beside "Places: 12 file(s) citable now ... 2 still being indexed").

The two lines read two sources: LightRAG's documents, and the registry, which records a file as indexed only when a
sync (or a wait) follows it; while LightRAG is busy no status catches the registry up. Replayed here with the
recorded documents listing (sample 34) and pipeline status and health of a busy LightRAG (samples 18, 19d), with
one row added by hand: study.pdf being processed. The registry records notes.md and study.pdf as sent; LightRAG has
processed notes.md (a search cites it already) and is still processing study.pdf."""

from __future__ import annotations

import copy
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.files import digest_tree
from mnote_kr_testkit.replay import load_sample

from mnote_kr.citations.render.statustext import render_status
from mnote_kr_lightrag.client import naming
from tests.test_pipeline_replay import NOTES_REL, SAMPLES, Env, make_env

STUDY_REL = "papers/study.pdf"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    env = make_env(tmp_path, monkeypatch)
    with env.host.store.transaction() as reg:
        for rel in (NOTES_REL, STUDY_REL):
            reg.put(msgspec.structs.replace(reg.entries[rel], status="submitted"))
    _, listing = load_sample(SAMPLES, "34_documents_paginated_all.json")
    listing = copy.deepcopy(listing)
    study = {**copy.deepcopy(listing["documents"][0]), "id": naming.doc_id_for("study.pdf"),
             "file_path": "study.pdf", "status": "processing", "chunks_count": None}
    listing["documents"].append(study)
    listing["status_counts"].update(processing=1, all=7)
    listing["pagination"].update(total_count=7)
    env.replay.routes.pop(("GET", "/health"))
    env.replay.sample("GET", "/health", "19d_health_while_processing.json")
    env.replay.sample("GET", "/documents/pipeline_status", "18_pipeline_status_busy_processing.json")
    env.replay.json("POST", "/documents/paginated", listing)
    return env


def test_status_counts_a_file_lightrag_has_processed_as_citable_while_the_registry_has_not_heard(env: Env) -> None:
    before = digest_tree(env.ws)
    info = env.host.status()
    assert info["provider"]["pipelineBusy"] is True
    assert info["provider"]["documentsByStatus"]["processing"] == 1
    # LightRAG's word on each sent file, beside the registry's record of it
    assert info["registry"]["byStatus"] == {"processed": 1, "submitted": 2}
    assert info["registry"]["indexedUnrecorded"] == {"count": 1, "paths": [NOTES_REL]}
    text = render_status(info)
    places = next(line for line in text.splitlines() if line.startswith("Places:"))
    # aurora (recorded) and notes.md (LightRAG processed it): 2 citable; study.pdf (processing): 1 being indexed
    assert places.startswith("Places:    2 file(s) citable now (1 indexed by LightRAG since the registry last "
                             "followed it: 'mnote-kr sync' records it), "), places
    assert places.endswith("; 1 file(s) still being indexed (cited once LightRAG has indexed them)"), places
    assert digest_tree(env.ws) == before  # status reads; the user's files untouched
    assert not env.replay.sent("POST", "/documents/scan")  # and it sends nothing to LightRAG


def test_a_sent_file_lightrag_has_not_finished_stays_being_indexed(env: Env) -> None:
    """The same look, with notes.md's document failed in LightRAG: neither citable nor counted as indexed."""
    listing = env.replay.routes[("POST", "/documents/paginated")]
    body = listing[0](None).json()
    for row in body["documents"]:
        if row["file_path"] == "notes.md":
            row["status"] = "failed"
    env.replay.routes[("POST", "/documents/paginated")] = []
    env.replay.json("POST", "/documents/paginated", body)
    info = env.host.status()
    assert info["registry"]["indexedUnrecorded"] == {"count": 0, "paths": []}
    places = next(line for line in render_status(info).splitlines() if line.startswith("Places:"))
    assert places.startswith("Places:    1 file(s) citable now, ") and "(1 indexed by" not in places, places
    assert places.endswith("; 2 file(s) still being indexed (cited once LightRAG has indexed them)"), places


def test_documents_line_counts_a_failed_file_whose_document_lightrag_no_longer_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a full sync, LightRAG holds nothing of a failed file (``syncing.clean_held`` deletes its document), so
    its own counts drop it while the registry keeps it failed (nc24c problem 5: "Documents: 37 processed (37 in
    all)" beside "Registry: ... 1 failed"). The Documents line says the failed file is not among LightRAG's."""
    env = make_env(tmp_path, monkeypatch)
    with env.host.store.transaction() as reg:
        reg.put(msgspec.structs.replace(reg.entries[STUDY_REL], status="failed", last_error="truncated or corrupt"))
    _, listing = load_sample(SAMPLES, "34_documents_paginated_all.json")
    listing = copy.deepcopy(listing)
    listing["documents"] = [d for d in listing["documents"] if d["status"] != "failed"]  # what clean_held leaves
    listing["status_counts"].update(failed=0, all=len(listing["documents"]))
    listing["pagination"].update(total_count=len(listing["documents"]))
    env.replay.json("POST", "/documents/paginated", listing)
    before = digest_tree(env.ws)
    info = env.host.status()
    assert info["registry"]["byStatus"]["failed"] == 1
    lines = render_status(info).splitlines()
    docs = next(line for line in lines if line.startswith("Documents:"))
    assert docs.startswith(f"Documents: {len(listing['documents'])} processed ({len(listing['documents'])} in all)")
    assert docs.endswith("; LightRAG holds no document of 1 failed file (see 'Failed:')"), docs
    assert any(line.startswith(f"Failed:    {STUDY_REL}: truncated or corrupt") for line in lines), lines
    assert digest_tree(env.ws) == before

