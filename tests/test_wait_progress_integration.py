"""``ingest --wait``'s progress lines on the real lightrag-server: a long document among short ones
(a newcomer's handbook among notes). Each line says the time so far and names files; none repeats;
the wait ends with how long it took; what LightRAG said it was doing reads as a stage of its own."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr_lightrag.client import syncing
from mnote_kr_lightrag.client.activity import model_calls
from tests.test_integration_flows import make_host, write_md

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]
WORDS = "anode cathode turbine gearbox lantern saffron cobalt nitrogen diesel bearing valve piston".split()


def test_a_long_wait_names_files_says_the_time_and_never_repeats_a_line(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    host = make_host(tmp_path / "kb", lightrag_engine, monkeypatch)
    token = uuid.uuid4().hex[:8]
    sections = [f"## Section {i}\n\n" + " ".join(f"The {WORDS[(i + j) % len(WORDS)]} unit {i}-{j} of handbook "
                                               f"{token} is checked monthly." for j in range(40))
                for i in range(60)]
    write_md(host.root / "lib" / "handbook.md", f"# Handbook {token}\n\n" + "\n\n".join(sections) + "\n")
    for i in range(5):
        write_md(host.root / "lib" / f"note{i}.md", f"# Note {i} {token}\n\nThe {WORDS[i]} note {i} of {token}.\n")
    lines: list[str] = []
    host.progress = lines.append
    healths: list[dict | None] = []  # each /health the wait read (its model calls: the pulse)
    read_health = syncing._model_calls_read
    monkeypatch.setattr(syncing, "_model_calls_read", lambda prov: healths.append(read_health(prov)) or healths[-1])
    report = host.ingest(["lib"], wait=True, wait_s=600)
    assert report.wait_timed_out is None and report.counts == {"processed": 6}, report.counts
    waits = [line for line in lines if line.startswith("waiting for ")]
    assert waits, lines
    for line in waits:
        assert re.search(r"; indexed \d/6 files; (\d+ s|\d+m \d\ds) so far; ", line), line
        assert "files/s" not in line and re.search(r"lib/(handbook|note\d)\.md", line), line
    assert len(set(waits)) == len(waits), waits
    done = next(x for x in lines if x.startswith("indexed "))
    assert re.fullmatch(r"indexed 6/6 files in (\d+ s|\d+m \d\ds)", done), lines
    for line in waits:  # what LightRAG said it does, when a round caught it at work
        for now in re.findall(r"indexing now: (.*?)(?:; \d+ queued in LightRAG|; still waiting|$)", line):
            assert re.match(r"lib/[\w.]+ \((parsing|analyzing|processing) for ", now), line
    # the long file's chunks take LightRAG tens of seconds (45 s for 130 on a quiet machine): a round sees it,
    # named as worked on (not merely waiting) with its chunks, as long as it was since it was taken up; without an
    # LLM (the engine's rules end in '!') LightRAG embeds them in one write after chunking: the step says so
    handbook = r"indexing now: .*lib/handbook\.md \(processing for \d+[^)]*: embedding \d+ chunks\)"
    assert any(re.search(handbook, w) for w in waits), waits
    # what made that write's minutes count as progress (nc27b): the real server's /health counts the calls done, and
    # how many wait in its queue (a flush's batches: ``activity.model_calls``); none wait once it is done
    health = httpx.get(f"{lightrag_engine.url}/health", headers={"X-API-Key": lightrag_engine.api_key},
                       timeout=30).json()
    queue = health.get("embedding_queue_status") or {}
    assert queue.get("completed_total", 0) >= 1 and queue.get("queued") == 0, queue
    assert model_calls(health) is not None and model_calls(health)[1] is None, queue  # type: ignore[index]
    # and the wait read it with each round's pipeline status while the flush ran, not only before the row stood still
    # (round 27's wait read it twice in a wait of over a minute, 24 rounds of them saying "embedding 130 chunks")
    embedding = [w for w in waits if re.search(handbook, w)]
    assert len(healths) >= len(embedding) // 2, (len(healths), len(embedding))
    print("embedding queue (queued, done) at each read:", [  # noqa: T201
        ((h or {}).get("embedding_queue_status") or {}).get("queued") for h in healths],
        [model_calls(h) for h in healths])
    print("\n".join(waits))  # noqa: T201 - shown with -s: what a person reads


def test_a_file_lightrag_fails_is_named_in_the_waits_last_line_not_counted_indexed(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    """nc24a: ``ingest --wait`` of 12 files, one a truncated DOCX, ended "indexed 12/12 files in 1m 55s"."""
    import shutil

    from mnote_kr_testkit.data import CORPUS
    from mnote_kr_testkit.files import digest_tree

    host = make_host(tmp_path / "kb", lightrag_engine, monkeypatch)
    token = uuid.uuid4().hex[:8]
    for i in range(2):
        write_md(host.root / "lib" / f"note{i}.md", f"# Note {i} {token}\n\nThe {WORDS[i]} note {i} of {token}.\n")
    shutil.copyfile(CORPUS / "bad" / "poi__truncated62886.docx", host.root / "lib" / "poi__truncated62886.docx")
    before = digest_tree(host.root / "lib")
    lines: list[str] = []
    host.progress = lines.append
    healths: list[dict | None] = []  # each /health the wait read (its model calls: the pulse)
    read_health = syncing._model_calls_read
    monkeypatch.setattr(syncing, "_model_calls_read", lambda prov: healths.append(read_health(prov)) or healths[-1])
    report = host.ingest(["lib"], wait=True, wait_s=600)
    assert report.counts == {"processed": 2, "failed": 1}, report.counts
    done = next(x for x in lines if x.startswith("indexed ") and " files in " in x)
    said = r"indexed 2 of 3 files in (\d+ s|\d+m \d\ds); 1 failed: lib/poi__truncated62886\.docx$"
    assert re.match(said, done), lines  # its reason: in the report (nc29b read it three times)
    broken = next(i for i in report.items if i.source_path == "lib/poi__truncated62886.docx")
    assert "truncated or corrupt" in (broken.reason or "")
    assert done.detail["indexed"] == 2
    assert [f["path"] for f in done.detail["failed"]] == ["lib/poi__truncated62886.docx"]
    assert digest_tree(host.root / "lib") == before
