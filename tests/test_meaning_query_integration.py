"""The question asked a second time for meaning, through the real managed engine (offline models).

A search on the managed engine (default embedder ``e5usexlang``) also sends LightRAG the question marked
for meaning (``mnote_kr_lightrag.client.meaningquery``); LightRAG embeds it through the engine's model
service, which strips the mark and counts it (``/stats`` ``meaning``). The rule that adds files is
unit-tested (plugins/lightrag/tests/test_lr_meaningquery.py) and measured (benchmarks/xlang_meaning.py).
"""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config
from mnote_kr_lightrag.client import meaningquery
from mnote_kr_lightrag.client.settings import resolve_settings

pytestmark = pytest.mark.integration


def _meaning_queries(host: Host) -> int:
    settings = resolve_settings(host.context())
    models = str(getattr(settings, "scorer_url", "") or "")
    reply = httpx.get(f"{models}/stats", trust_env=False, timeout=10,
                      headers={"Authorization": f"Bearer {settings.models_key}"})
    return int(reply.json()["requests"].get("meaning", 0))


def test_a_managed_search_asks_lightrag_again_for_meaning(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    monkeypatch.setenv("MNOTE_KR_HOME", str(Path(lightrag_engine.working_dir).parents[2]))
    token = uuid.uuid4().hex[:10]
    root = tmp_path / "kb"
    root.mkdir()
    source = root / "record.md"
    source.write_text(f"# Record {token}\n\nThe market of {token} sold grain, cloth and salt on Mondays.\n",
                      encoding="utf-8")
    before = source.read_bytes()
    config = load_config(root)
    config["providers"] = {"lightrag": {}}
    host = Host(root, config=config)
    assert [i.status for i in host.ingest(["."], wait=True, wait_s=180).items] == ["processed"]
    assert resolve_settings(host.context()).meaning_query, "the managed engine's embedder is e5usexlang"

    n0 = _meaning_queries(host)
    hits = host.search(f"what did the market of {token} sell", top_k=5).results
    assert {c.source_root_relative_path for c in hits} == {"record.md"}
    assert _meaning_queries(host) == n0 + 1

    monkeypatch.setattr(meaningquery, "MEANING_QUERY", False)  # the benchmark variant's switch
    assert host.search(f"what did the market of {token} sell", top_k=5).results
    assert _meaning_queries(host) == n0 + 1
    assert source.read_bytes() == before
