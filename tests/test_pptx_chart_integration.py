"""A chart's data through the real lightrag-server: LightRAG 1.5.7's PPTX parser reads only the text of
a slide's top-level shapes, so a deck with a chart is sent as the text mnote-kr reads in it (the chart's
cached values a line per category); a question only a chart value answers cites that deck on the
chart's slide and shape, in the chart's words, and the deck is never touched."""

from __future__ import annotations

import hashlib
import re
import uuid
from pathlib import Path

import pytest
from mnote_kr_testkit.decks import harbour_deck
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config

pytestmark = pytest.mark.integration

DECK = "talks/crossings.pptx"


def _deck(path: Path, token: str) -> dict[str, object]:
    """Two slides: a title slide, then 'Ferry crossings' holding only a clustered column chart of two
    ferries' crossings in 2022 and 2023. Returns the chart frame's id, name and box (EMU)."""
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Emu

    prs, second = harbour_deck(f"Fenwick {token}", "Ferry crossings")
    data = CategoryChartData()
    data.categories = ["2022", "2023"]
    data.add_series(f"Quillmouth {token} ferry", (412, 468))
    data.add_series("Brackenridge ferry", (390, 405))
    x, y, w, h = Emu(914400), Emu(1828800), Emu(7315200), Emu(4114800)
    frame = second.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, x, y, w, h, data)
    frame.chart.has_title = True
    frame.chart.chart_title.text_frame.text = "Crossings per year"
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(path)
    return {"id": frame.shape_id, "name": frame.name, "box": [float(x), float(y), float(x + w), float(y + h)]}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_chart_value_is_found_and_cited_on_the_charts_shape_in_its_words(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    from lightrag.parser.legacy.extractors import _extract_pptx

    token = uuid.uuid4().hex[:8]  # the session engine keeps other tests' documents
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", lightrag_engine.api_key)
    ws = tmp_path / "kb"
    deck = ws / DECK
    frame = _deck(deck, token)
    digest = _sha(deck)
    lightrag_alone = _extract_pptx(deck.read_bytes())
    # (the chart's value as a number of its own: the random token may hold the digits, "2b4fb468")
    assert "Ferry crossings" in lightrag_alone and not re.search(r"(?<![0-9a-f])468(?![0-9a-f])", lightrag_alone)
    assert "Quillmouth" not in lightrag_alone
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": lightrag_engine.url, "input_dir": lightrag_engine.input_dir}}
    host = Host(ws, config=config)

    report = host.ingest(["talks"], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == {DECK: "processed"}, \
        [(i.source_path, i.reason) for i in report.items]
    entry = host.registry().entries[DECK]
    assert entry.kind == "text_fallback" and (entry.light_rag_file_path or "").endswith(".pptx.md")
    assert "LightRAG's parser leaves out chart data (1 slide(s));" in (entry.last_error or ""), entry.last_error

    results = host.search(f"How many crossings did the Quillmouth {token} ferry make in 2023?", top_k=10).results
    mine = [c for c in results if c.source_root_relative_path == DECK]
    assert mine, [(c.source_root_relative_path, c.display_quote[:60]) for c in results]
    c = mine[0]
    loc = c.locator
    assert (c.locator_precision, loc.locator_degraded, loc.slide, loc.speaker_notes) == ("slide", False, 2, False)
    assert (loc.shape_id, loc.shape_name, loc.bbox) == (frame["id"], frame["name"], frame["box"])
    assert loc.paragraph_index == 2  # the chart's lines: its title, 2022, then 2023
    # the asked point's line first, the chart's title after it, not 2022's figures (the PPTX locator's
    # ``chartquote``); the whole chart stays in the chunk (contextQuote)
    assert c.display_quote == f"2023: Quillmouth {token} ferry 468, Brackenridge ferry 405 (Crossings per year)", \
        c.display_quote
    assert "412" in (c.context_quote or ""), c.context_quote
    assert "Chart:" not in c.display_quote and "#" not in c.display_quote
    assert c.source_path == str(deck) and "&slide=2" in c.citation_url
    assert _sha(deck) == digest
