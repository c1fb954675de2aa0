"""Each found file's best chunk first, through the real managed engine (offline models).

With ``[providers.lightrag] rank_passages = true``, a search on the managed engine asks the
engine's own offline model service to score the deeper chunk list (``/v1/rerank``); by default
(off) it does not. The ordering itself is unit-tested (plugins/lightrag/tests/test_lr_passages.py)
and measured (benchmarks/retrieval.py, ``hybrid-plain`` against ``hybrid``).
"""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config
from mnote_kr_lightrag.client.settings import resolve_settings

pytestmark = pytest.mark.integration


def _host(root: Path, **lightrag: object) -> Host:
    config = load_config(root)
    config["providers"] = {"lightrag": dict(lightrag)}  # no URL: the managed engine decides
    return Host(root, config=config)


def _reranks(models_url: str, models_key: str | None) -> int:
    return int(httpx.get(f"{models_url}/stats", trust_env=False, timeout=10,
                         headers={"Authorization": f"Bearer {models_key}"}).json()["requests"].get("rerank", 0))


def test_a_managed_search_ranks_the_found_files_chunks_with_the_model_service(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    monkeypatch.setenv("MNOTE_KR_HOME", str(Path(lightrag_engine.working_dir).parents[2]))
    token = uuid.uuid4().hex[:10]
    root = tmp_path / "kb"
    root.mkdir()
    paragraphs = [f"Paragraph {i} of the town record {token}: the market sold grain, cloth and salt "
                  f"on day {i}, and the river carried boats of timber downstream." for i in range(60)]
    paragraphs[41] = f"In 1537 the chieftain Kempegowda built a mud fort and founded the town {token}."
    source = root / "town.md"
    source.write_text(f"# Town record {token}\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
    before = source.read_bytes()
    host = _host(root, rank_passages=True)
    assert [i.status for i in host.ingest(["."], wait=True, wait_s=180).items] == ["processed"]
    settings = resolve_settings(host.context())
    assert settings.models_url, "with rank_passages on, the managed engine's model service ranks passages"

    n0 = _reranks(settings.models_url, settings.models_key)
    hits = host.search(f"who founded the town {token} and built its fort", top_k=5).results
    assert hits and {c.source_root_relative_path for c in hits} == {"town.md"}
    assert _reranks(settings.models_url, settings.models_key) == n0 + 1

    for plain in (_host(root), _host(root, rank_passages=False)):  # the default is off
        assert resolve_settings(plain.context()).models_url is None
        assert plain.search(f"who founded the town {token} and built its fort", top_k=5).results
        # off: LightRAG's own first chunks, no call
        assert _reranks(settings.models_url, settings.models_key) == n0 + 1
    assert source.read_bytes() == before
