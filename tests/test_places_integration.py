"""Several places per file and the weak flag through the real LightRAG server.

A Markdown file long enough for LightRAG to cut into several chunks, with the answer's words in
paragraphs far apart: the search cites the file once, at its best paragraph, and carries the next
ones as ``alternatives`` (each located by the real text locator, each opening by its own ID). A
query on nothing in the file offers no card as an answer: ``weak``, or no citation. The source is
never touched.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config

pytestmark = pytest.mark.integration


def test_a_long_file_is_cited_once_with_its_next_places_and_nonsense_is_weak(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    engine = lightrag_engine
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", engine.api_key)
    token = uuid.uuid4().hex[:10]
    root = tmp_path / "kb"
    root.mkdir()
    paragraphs = [f"Paragraph {i} of the harbour ledger {token}: the quay handled grain, cloth and salt on day {i}, "
                  f"and the tide carried barges of timber out to sea." for i in range(90)]
    for i in (12, 47, 81):
        paragraphs[i] = f"In year {1700 + i} the lighthouse keeper {token} relit the copper lantern after a storm."
    source = root / "ledger.md"
    source.write_text(f"# Harbour ledger {token}\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
    before = source.read_bytes()
    config = load_config(root)
    config["providers"] = {"lightrag": {"url": engine.url, "input_dir": engine.input_dir}}
    host = Host(root, config=config)
    host.roots_add(root)
    assert [i.status for i in host.ingest(["."], wait=True, wait_s=240).items] == ["processed"]

    found = host.search(f"lighthouse keeper relit the copper lantern {token}", top_k=10, mode="naive")
    assert found.weak is False and found.weak_reason is None
    cited = [c for c in found.results if c.source_root_relative_path == "ledger.md"]
    assert len(cited) == 1, [c.source_root_relative_path for c in found.results]  # one citation per file
    c = cited[0]
    assert found.diagnostics["citable"] >= 2, found.diagnostics  # LightRAG returned several chunks of it
    assert c.alternatives, found.diagnostics
    places = [c.locator.paragraph_index] + [a.locator.paragraph_index for a in c.alternatives]
    assert len(set(places)) == len(places)  # each another place
    assert c.locator.paragraph_index in (13, 48, 82) and "lighthouse keeper" in (c.display_quote or "")
    for a in c.alternatives:
        assert a.locator_precision == a.locator.locator_precision and a.display_quote
        assert host.open(a.citation_id).resource_root_relative_path == "ledger.md"
    assert c.context_quote and len(c.display_quote or "") < len(c.context_quote)

    # The floor: no card is offered as an answer. LightRAG returns its nearest chunks (then the
    # result says it is weak) or, below its own cosine threshold, none (then it says why).
    weak = host.search("zzzzqqqxx nonexistentterm", top_k=10)
    if weak.results:
        assert weak.weak is True and weak.weak_reason
    else:
        # (the session's engine also holds other tests' documents, which no file here maps to)
        assert weak.diagnostics["noResults"]["reason"] in ("no_match", "only_unusable_sources"), weak.diagnostics
        assert weak.weak is False
    assert source.read_bytes() == before
