"""A citation's ``headingPath`` names the section of the paragraph it lands on.

LightRAG's DOCX blocks can run past a heading into the next section, so the block's own heading
may be another paragraph's ("无" under 六 was shown under 七、参考资料). The locator reads the
file's headings, and the paragraph it lands on gives the path; the block's stays the fallback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.citations import pipeline
from mnote_kr.citations.rank import meaning
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import MappedReference, ProviderReference, SourceEntry
from tests.surfaces import OnePassage as WholeFile
from tests.test_pipeline_replay import AURORA, AURORA_INTRO, AURORA_REL, fresh_caches, make_env

fresh_caches = fresh_caches


def test_a_docx_citation_is_headed_by_its_paragraphs_section_not_its_blocks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = make_env(tmp_path, monkeypatch)
    blocks = next((env.parsed / f"{AURORA}.parsed").glob("*.blocks.jsonl"))
    rows = [json.loads(line) for line in blocks.read_text(encoding="utf-8").splitlines()]
    for row in rows:  # the intro's block labelled with the next section's heading, as LightRAG may
        if row.get("blockid") == AURORA_INTRO:
            row["heading"], row["parent_headings"] = "Results 结果", ["Project Aurora 项目概述"]
    blocks.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    before = (env.ws / AURORA_REL).read_bytes()
    env.replay.sample("POST", "/query/data", "40_query_data_mix.json")
    aurora = env.by_rel(env.search("Hamburg").results, AURORA_REL)[0]
    assert aurora.block_id == AURORA_INTRO and aurora.locator.paragraph_index == 1
    assert aurora.heading_path == ["Project Aurora 项目概述"]  # the paragraph's section, read from the file
    assert aurora.locator.place_headings is None  # read, then cleared: not on the wire
    assert (env.ws / AURORA_REL).read_bytes() == before


NOTE = """The town keeps its records in the library above the post office.

# Harbour

The harbour was dredged in 1911 so that larger ships could berth at the quay.

# Lighthouse

The lighthouse keeper lit the lamp every evening at dusk and logged the weather.

# Market

Fishmongers sell the morning catch at the market on the square every Saturday.
"""


class OnePassage(WholeFile):
    """The fake provider returning each file as one passage (its whole text), in one block whose heading
    is the last section's, as a provider's block that runs on into the next section may be labelled."""

    @hookimpl
    def map_reference(self, ctx: Any, reference: ProviderReference, entries: dict[str, SourceEntry],
                      query: str) -> MappedReference | None:
        mapped = WholeFile.map_reference(self, ctx, reference, entries, query)
        if mapped is None or mapped.block is None:
            return mapped
        block = msgspec.structs.replace(mapped.block, heading="Market **Square**", parent_headings=[])
        return msgspec.structs.replace(mapped, block=block)


def test_each_place_of_a_file_carries_the_heading_of_its_own_section(tmp_path: Path) -> None:
    meaning._memo.clear()
    pipeline.clear_memos()
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "town.md").write_text(NOTE, encoding="utf-8")
    h, _ = fake_host(ws, OnePassage(delete_status="delete_completed"))
    h.roots_add(ws / "docs")
    h.ingest([ws / "docs"], wait=True)
    (c,) = h.search("when did the lighthouse keeper light the lamp", top_k=5).results
    assert "lighthouse keeper" in (c.display_quote or "")
    assert c.heading_path == ["Lighthouse"]
    assert c.alternatives, "the passage's other paragraphs stand behind it"
    for a in c.alternatives:
        words = a.display_quote or ""
        want = next(h for h, w in (("Harbour", "dredged"), ("Market", "Fishmongers"), ("Lighthouse", "lighthouse"),
                                   ("Harbour", "Harbour"), ("Market", "Market")) if w in words)
        assert a.heading_path == [want], (words, a.heading_path)
    (intro,) = h.search("where are the town records kept", top_k=5).results
    assert "library above the post office" in (intro.display_quote or "")
    assert intro.heading_path == []  # before the first heading: under none, not the block's "Market Square"


def test_a_heading_reads_as_text_on_one_line() -> None:
    from mnote_kr.citations.map.sidecar import located_headings
    from mnote_kr.default_plugins.text_locator import split_paragraphs
    from mnote_kr.models import Locator, SidecarBlock

    paras = split_paragraphs("# Guide to **Aurora** and [the links](https://x.example/a)\n\nBody text here.\n")
    assert paras[1].heading_path == ("Guide to Aurora and the links",)
    block = SidecarBlock(blockid="b", content="", heading="收益成本分析的一般方法",
                         parent_headings=["（资料性附录）\n附录 B"])
    assert located_headings(Locator(), block) == ["（资料性附录） 附录 B", "收益成本分析的一般方法"]
    assert located_headings(Locator(place_headings=[]), block) == []  # known: under no heading
