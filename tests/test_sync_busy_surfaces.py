"""The busy state a plain ``mnote-kr sync`` reports (``sync/busy.py``), said the same way by the HTTP API's
sync and by the MCP status tool.

Only the CLI's ``sync`` named the files LightRAG refused as busy (``provider.notSent``, with the refusal);
``POST /api/knowledge-rag/sync`` answered without them, and ``mnote_knowledge_rag_status`` gave an agent
only a count of queued actions. The provider is ``test_sync_busy``'s in-process fake that refuses sends as
LightRAG does while its pipeline is busy."""

from __future__ import annotations

import msgspec

from mnote_kr.agents.contracts import StatusInput
from mnote_kr.agents.tools import tool_status
from mnote_kr.server.route import Api
from mnote_kr.server.routes import SyncRequest, sync
from tests.test_sync_busy import BUSY, KB, kb  # noqa: F401  (fixture)


def _http_sync(k: KB, wait_s: float = 0.0) -> dict:
    status, body = sync(Api(host=k.host, jobs=None), SyncRequest(wait_s=wait_s))  # type: ignore[arg-type]
    assert status == 200
    return msgspec.to_builtins(body)


def _refused(k: KB) -> None:
    """a.md edited while LightRAG is busy, and the disk step of a sync queued it (refused as busy)."""
    k.edited()
    k.fake.idle_after_wait = False
    k.run("sync")  # its busy step waits (1 s here) and leaves a.md queued


def test_http_sync_names_the_files_a_busy_provider_did_not_take_as_the_cli_does(kb: KB) -> None:  # noqa: F811
    _refused(kb)
    answer = _http_sync(kb)
    assert answer["provider"]["notSent"] == [{"path": "kb/a.md", "reason": BUSY}], answer
    kb.fake.idle_after_wait = True
    answer = _http_sync(kb, wait_s=1)  # asked to wait: the provider takes it, nothing is left unsent
    assert answer["provider"]["notSent"] == [], answer
    assert kb.host.registry().entries["kb/a.md"].status == "processed"


def test_mcp_status_names_each_queued_file_with_why_as_status_does(kb: KB) -> None:  # noqa: F811
    _refused(kb)
    status = msgspec.to_builtins(tool_status(kb.host, StatusInput()))
    assert status["registry"]["waiting"] == 1
    [item] = status["registry"]["waitingFiles"]
    assert item["sourcePath"] == "kb/a.md" and item["action"] == "ingest", item
    assert "Pipeline is currently busy" in item["reason"], item
    # the same words as 'mnote-kr status' prints for it
    out = kb.run("status")
    assert f"ingest kb/a.md: {item['reason']}" in out, out
