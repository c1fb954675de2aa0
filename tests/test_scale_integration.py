"""Libraries of any size, and a watcher that follows its own work (real lightrag-server)."""

from __future__ import annotations

import os
import re
import time
import uuid
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config

pytestmark = pytest.mark.integration
#: The acceptance size is 1,000 files. On a loaded 2-core machine LightRAG itself processes about
#: 0.5 small documents per second (measured: 414 of 1,000 in 15 min), so the size can be lowered
#: for a quick local run; CI runs the default.
LIBRARY_FILES = int(os.environ.get("MNOTE_KR_TEST_LIBRARY_FILES", "1000"))
WORDS = "anode cathode turbine gearbox lantern saffron cobalt nitrogen diesel bearing valve piston".split()


def _wait_until_engine_idle(engine, timeout_s: float = 600) -> None:  # noqa: ANN001
    """The shared session engine may still digest earlier tests' documents (the 1,000-file test
    leaves none of its own, but others do); a busy pipeline makes LightRAG refuse scans, which is
    its own tested path (test_integration_flows), not what these tests are about."""
    deadline = time.monotonic() + timeout_s
    with httpx.Client(base_url=engine.url, headers={"X-API-Key": engine.api_key}, trust_env=False,
                      timeout=10) as client:
        while time.monotonic() < deadline:
            status = client.get("/documents/pipeline_status").json()
            if not status.get("busy"):
                return
            time.sleep(1)
    raise AssertionError(f"the session engine stayed busy for {timeout_s:.0f} s")


@pytest.fixture
def host(tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> Host:  # noqa: F811, ANN001
    _wait_until_engine_idle(lightrag_engine)
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    ws = tmp_path / "kb"
    ws.mkdir()
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir}}
    return Host(ws, config=config)


@pytest.mark.timeout(3900)
def test_one_ingest_call_takes_a_1000_file_folder_to_processed(host: Host, capsys: pytest.CaptureFixture[str]) -> None:
    n = LIBRARY_FILES
    token = uuid.uuid4().hex[:8]
    lib = host.root / "lib"
    for i in range(n):
        folder = lib / f"shelf{i // 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        w = WORDS[i % len(WORDS)]
        (folder / f"note{i:04d}.md").write_text(
            f"# Note {i} {token}\n\nThe {w} record number {i} of batch {token}: {uuid.uuid4().hex}.\n",
            encoding="utf-8")
    lines: list[str] = []
    host.progress = lines.append
    t0 = time.monotonic()
    report = host.ingest(["lib"], wait=True, wait_s=3600)
    took = time.monotonic() - t0
    statuses = [i.status for i in report.items]
    assert len(statuses) == n and report.remaining == 0 and report.next_call is None
    assert statuses.count("processed") == n, report.counts
    assert host.registry().counts() == {"processed": n}
    sent = [line for line in lines if line.startswith("sent ")]
    # batches of 200; a batch a busy LightRAG refused is said queued, not sent (and sent by the wait)
    assert len(sent) >= -(-n // 200), sent
    last = re.match(rf"sent (\d+)/{n} files \((?:(\d+) queued until LightRAG is free, then sent; )?", sent[-1])
    assert last and int(last[1]) + int(last[2] or 0) == n, sent
    with capsys.disabled():
        print(f"\n{n}-file ingest (real engine, offline models): {took:.1f} s, {n / took:.2f} files/s")
    # An unchanged second call sends nothing.
    assert {i.status for i in host.ingest(["lib"]).items} == {"already_registered"}


def test_capped_ingest_says_how_many_are_left_and_the_next_call_continues(host: Host) -> None:
    token = uuid.uuid4().hex[:8]
    for i in range(7):
        (host.root / f"c{i}.md").write_text(f"# Capped {i} {token}\n\nrow {i} {uuid.uuid4().hex}\n", encoding="utf-8")
    first = host.ingest(["."], limit=3)
    assert len([i for i in first.items if i.status != "already_registered"]) == 3
    assert first.remaining == 4 and "call ingest again" in (first.next_call or "")
    # Each next call continues (a file LightRAG was too busy to take is retried first).
    calls, report = 1, first
    while report.remaining and calls < 30:  # a call may first retry files LightRAG was busy for
        time.sleep(1)
        report = host.ingest(["."], limit=3)
        calls += 1
        assert len([i for i in report.items if i.status != "already_registered"]) <= 3
    assert report.remaining == 0 and report.next_call is None and calls >= 3
    assert len(host.registry().entries) == 7


def test_watcher_follows_a_rename_to_a_citation_under_the_new_name_without_sync(
        host: Host, lightrag_engine) -> None:  # noqa: F811, ANN001
    from mnote_kr.sync.watch import Watcher

    token = uuid.uuid4().hex[:10]
    old = host.root / "w" / "old" / "mover.md"
    old.parent.mkdir(parents=True)
    old.write_text(f"# Mover {token}\n\nThe jade lantern of {token} travels far.\n", encoding="utf-8")
    host.roots_add("w", run_on_change=True)
    host.ingest(["w"], wait=True, wait_s=120)
    query = f"jade lantern travels {token}"
    # The periodic sync is set past the test's whole deadline: only the watcher's following of
    # its own work can make the renamed file citable here (a condition, not a time bound).
    with Watcher(host, debounce_s=0.3, sync_interval_s=3600) as watcher:
        assert watcher.wait_idle(30)
        (host.root / "w" / "new").mkdir()
        old.rename(host.root / "w" / "new" / "mover.md")
        deadline = time.monotonic() + 120
        processed_at = cited_at = None
        with httpx.Client(base_url=lightrag_engine.url, headers={"X-API-Key": lightrag_engine.api_key},
                          trust_env=False, timeout=10) as lr:
            while time.monotonic() < deadline and cited_at is None:
                entry = host.registry().entries.get("w/new/mover.md")
                if processed_at is None and entry is not None and entry.track_id:
                    docs = lr.get(f"/documents/track_status/{entry.track_id}").json().get("documents") or []
                    if any(d.get("file_path") == entry.light_rag_file_path and d.get("status") == "processed"
                           for d in docs):
                        processed_at = time.monotonic()
                if processed_at is not None:
                    rels = {c.source_root_relative_path for c in host.search(query, mode="naive").results}
                    if "w/new/mover.md" in rels:
                        assert "w/old/mover.md" not in rels
                        cited_at = time.monotonic()
                        break
                time.sleep(0.5)
    final = host.registry().entries.get("w/new/mover.md")
    assert processed_at is not None, ("LightRAG never reported the renamed file processed", final, watcher.last_error)
    assert cited_at is not None, ("never cited under the new name without a periodic sync", final, watcher.last_error)
    print(f"renamed file cited {cited_at - processed_at:.1f} s after LightRAG reported it processed")
