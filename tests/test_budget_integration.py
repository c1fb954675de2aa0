"""One budget for the whole path, against the real lightrag-server.

A 30 MB DOCX of ordinary text (135 MB of XML) is refused before LightRAG sees it: no link in its
input dir, no document in its list, its memory unchanged. A document LightRAG holds that the
registry says failed is deleted from LightRAG at ``sync`` (``delete_file=false``).
"""

from __future__ import annotations

import hashlib
import shutil
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_docs import ordinary_text_docx
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config
from tests.test_cli_errors import Cli

pytestmark = pytest.mark.integration

#: What LightRAG's memory may move by while it is asked nothing but its document list (its
#: own bookkeeping); sending the 30 MB DOCX grew it by gigabytes before the budgets.
RSS_SLACK_MB = 50


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def _documents(engine: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    page = 1
    while True:
        body = httpx.post(f"{engine.url}/documents/paginated", headers={"X-API-Key": engine.api_key}, timeout=30,
                          json={"page": page, "page_size": 200}).json()
        rows += body.get("documents") or []
        if not (body.get("pagination") or {}).get("has_next"):
            return rows
        page += 1


def test_30mb_docx_is_refused_before_lightrag_sees_it(tmp_path: Path, lightrag_engine: Any) -> None:  # noqa: F811
    cli = Cli(tmp_path / "ws", url=lightrag_engine.url, input_dir=lightrag_engine.input_dir,
              api_key=lightrag_engine.api_key)
    stem = f"annual-report-{uuid.uuid4().hex[:8]}"
    big = cli.ws / f"{stem}.docx"
    size = ordinary_text_docx(big)  # the reader's real default limits
    assert size > 25 << 20
    digest = _sha(big)
    pid = lightrag_engine.pids["server"]
    _documents(lightrag_engine)  # the listing's own first-call memory is not the file's
    before = _rss_mb(pid)

    proc = cli.run("ingest", big.name, "--wait", "--timeout", "60")

    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if big.name in ln]
    assert len(lines) == 1 and lines[0].startswith("refused "), proc.stdout
    assert "word/document.xml" in lines[0] and "XML part size 64 MiB" in lines[0], lines[0]
    assert not any(stem in str(row.get("file_path", "")) for row in _documents(lightrag_engine))
    assert not any(stem in p.name for p in Path(lightrag_engine.input_dir).rglob("*"))
    grown = _rss_mb(pid) - before
    assert grown < RSS_SLACK_MB, f"LightRAG grew by {grown:.0f} MB"
    assert _sha(big) == digest


def test_document_lightrag_holds_for_a_failed_entry_is_deleted_at_sync(
        tmp_path: Path, lightrag_engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    ws = tmp_path / "kb"
    (ws / "docs").mkdir(parents=True)
    scan = ws / "docs" / f"scan-{uuid.uuid4().hex[:8]}.pdf"
    shutil.copyfile(CORPUS / "pdf" / "mineru__scanned.pdf", scan)  # no text layer: LightRAG fails it
    digest = _sha(scan)
    config = load_config(ws)
    config["disabled_plugins"] = ["ocr"]  # OCR off, as a user may set it: nothing reads the scan
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir}}
    host = Host(ws, config=config)
    rel = f"docs/{scan.name}"

    [item] = host.ingest(["docs"], wait=True, wait_s=180).items
    assert item.status == "failed", item
    entry = host.registry().entries[rel]
    name = entry.light_rag_file_path
    assert name and [r["status"] for r in _documents(lightrag_engine) if r.get("file_path") == name] == ["failed"]

    host.sync()

    # LightRAG deletes in the background: wait for the row to go
    wait_until(lambda: not any(r.get("file_path") == name for r in _documents(lightrag_engine)), timeout_s=60,
               what="LightRAG still lists the failed document after sync", poll_s=0.5)
    after = host.registry().entries[rel]
    assert after.status == "failed" and after.last_error == entry.last_error  # the registry's record stays
    assert not any(p.name == name for p in Path(lightrag_engine.input_dir).rglob("*"))  # no link a scan could take
    assert _sha(scan) == digest
