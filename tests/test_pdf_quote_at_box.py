"""A PDF citation quotes the place it boxes, and never glyph soup.

nc20b Q13: tracemonkey's chunk 038 is Figure 11's labels read through a font without letters
(``<//2??.B<AAC0/;#3%4%56#``); every block of the passage is glyph soup, so the locator boxed one of them anyway
and the citation quoted it. nc20b Q4: demo1's chunk 002 (page 1's foot, then the Introduction) was boxed on the
journal header printed once on page 1 ("Journal of Hydrology 310 (2005) 253–265"), which the host leaves out of
every quote as furniture, so the quote was the foot and the Introduction, words nowhere in the box.

The chunks are the trial's own (``tests/data/lightrag/nc20b_chunks.json``); truth is what PDFium reads inside the
box (``get_text_bounded``), never the locator's own reading.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.pdfwords import text_in

from mnote_kr.citations.cleaning.copyable import mostly_glyphs
from mnote_kr_lightrag.client import naming
from tests.test_pipeline_replay import Env, fresh_caches, make_env, query_data
from tests.test_pipeline_replay_pdf import prepared_pdf

CHUNKS = json.loads((Path(__file__).parent / "data" / "lightrag" / "nc20b_chunks.json").read_text("utf-8"))


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    from mnote_kr.citations.rank import meaning

    fresh_caches()  # each test's replay is its own
    yield make_env(tmp_path, monkeypatch)
    meaning._memo.clear()  # the places embedded here are not another module's test's (same corpus file)


def _indexed(env: Env, name: str) -> tuple[Path, str]:
    """The corpus PDF ``name`` copied into the workspace, its places embedded, registered: (source, rel)."""
    src = CORPUS / "pdf" / name
    rel = f"papers/{name}"
    prepared_pdf(env, src, rel)
    return src, rel


def _words(text: str) -> list[str]:
    """The words of ``text``, a word hyphenated at a line's end joined (``vege-`` ``tation``; PDFium reads such a
    hyphen as U+0002), ligatures undone."""
    text = re.sub(r"(?:[-\u00ad\u2010]\s*\r?\n|\x02)\s*", "", text).replace("\ufb01", "fi").replace("\ufb02", "fl")
    return re.findall(r"[^\W_]+", text.casefold())


def test_a_passage_of_glyph_soup_is_never_quoted_and_the_files_words_are(env: Env) -> None:
    name = "pdfjs__tracemonkey.pdf"
    src, rel = _indexed(env, name)
    before = src.read_bytes()
    doc = naming.doc_id_for(name)
    prose = ("TraceMonkey is the fastest VM on 9 of the 26 benchmarks (3d-morph, bitops-3bit-bits-in-byte, "
             "bitops-bitwise-and, crypto-sha1, math-cordic, math-partial-sums, math-spectral-norm, string-base64, "
             "string-validate-input).")
    env.replay.json("POST", "/query/data", query_data(("1", name, f"{doc}-chunk-038", CHUNKS[name]["038"]),
                                                      ("2", name, f"{doc}-chunk-039", prose)))
    result = env.search("组会汇报在哪个会议室？")
    cited = env.by_rel(result.results, rel)
    assert cited, result.diagnostics
    assert not [c.display_quote for c in cited if mostly_glyphs(c.display_quote or "")]
    assert "fastest VM" in (cited[0].display_quote or ""), [c.display_quote for c in cited]
    assert result.diagnostics["dropped"].get("noWords") == 1
    assert src.read_bytes() == before


def test_every_pdf_citation_quotes_words_inside_its_box(env: Env) -> None:
    name = "mineru__demo1.pdf"
    src, rel = _indexed(env, name)
    before = src.read_bytes()
    doc = naming.doc_id_for(name)
    env.replay.json("POST", "/query/data", query_data(("1", name, f"{doc}-chunk-002", CHUNKS[name]["002"])))
    cited = env.by_rel(env.search("水文论文用了哪几个国家的多少个流域的数据？").results, rel)
    assert cited
    for c in cited:
        assert c.locator_precision == "bbox" and c.locator.bbox is not None and c.locator.page
        boxed = set(_words(text_in(env.ws / rel, c.locator.page, c.locator.bbox)))
        shown = _words(c.display_quote or "")
        assert shown and not [w for w in shown if w not in boxed], (c.display_quote, c.locator.bbox)
    assert src.read_bytes() == before
