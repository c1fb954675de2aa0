"""Pure citation contract: precision, de-duplication, URLs, Markdown, ranking."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, unquote, urlsplit

import msgspec
import pytest
from mnote_kr_testkit.data import SAMPLES as SAMPLES_DIR

from mnote_kr.citations.cleaning import clean_citation_text
from mnote_kr.citations.render.ids import (
    citation_markdown,
    citation_url,
    classify_block_precision,
    dedupe_key,
    query_terms,
    score,
)
from mnote_kr.errors import UsageError
from mnote_kr.models import Highlight, Locator, SidecarBlock, SidecarPosition

SIDECARS = SAMPLES_DIR / "sidecars"


def _blocks(name: str) -> list[SidecarBlock]:
    path = next(SIDECARS.glob(f"{name}*/*.blocks.jsonl"))
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [msgspec.convert(r, SidecarBlock) for r in rows if r.get("type") == "content"]


# --------------------------------------------------------------------------- precision


def test_bbox_block_keeps_bbox_locator() -> None:
    block = _blocks("study.pdf")[0]
    assert classify_block_precision(block) == "bbox"


def test_bbox_position_without_range_is_not_bbox() -> None:
    # MinerU items without a bbox carry an anchor-only position: page known, rectangle not.
    block = SidecarBlock(blockid="b1", positions=[SidecarPosition(type="bbox", anchor="2")])
    assert classify_block_precision(block) == "paragraph"
    no_anchor = SidecarBlock(blockid="b1", positions=[SidecarPosition(type="bbox", range=[1, 2, 3, 4])])
    assert classify_block_precision(no_anchor) == "paragraph"


def test_docx_paraid_block_returns_paragraph_precision() -> None:
    aurora = _blocks("aurora_报告.docx")[1]
    assert aurora.positions[0].type == "paraid"
    assert classify_block_precision(aurora) == "paragraph"
    nopara = _blocks("nopara.docx")[0]  # paraid range [null, null]: still a paragraph anchor
    assert nopara.positions[0].range == [None, None]
    assert classify_block_precision(nopara) == "paragraph"
    markdown = _blocks("notes.md")[0]  # heading position
    assert classify_block_precision(markdown) == "paragraph"


def test_missing_block_degrades_to_file_precision() -> None:
    assert classify_block_precision(None) == "file"


# --------------------------------------------------------------------------- de-duplication


def test_same_block_same_fingerprint_deduplicates() -> None:
    block = _blocks("aurora_报告.docx")[1]
    a = clean_citation_text("## Results 结果\nThe energy formula is <equation>E=m{c}^{2}</equation>", "energy")
    b = clean_citation_text("## Results 结果\n\nThe  energy formula is E=mc^2", "energy")
    assert a.normalized_fingerprint == b.normalized_fingerprint
    assert dedupe_key("src-1", block.blockid, "chunk-1", a.normalized_fingerprint) == dedupe_key(
        "src-1", block.blockid, "chunk-2", b.normalized_fingerprint
    )
    # without a block: same chunk and same fingerprint is the same passage
    assert dedupe_key("src-1", None, "chunk-1", a.normalized_fingerprint) == dedupe_key(
        "src-1", None, "chunk-1", b.normalized_fingerprint
    )


def test_same_file_different_block_is_not_deduplicated() -> None:
    first, second = _blocks("aurora_报告.docx")
    fp = "0123456789abcdef"
    assert dedupe_key("src-1", first.blockid, "c", fp) != dedupe_key("src-1", second.blockid, "c", fp)
    # same chunk, different passage text
    assert dedupe_key("src-1", None, "c", "aaaa") != dedupe_key("src-1", None, "c", "bbbb")
    # same-named files in different folders are different sources
    assert dedupe_key("src-a/report.docx", "blk", "c", fp) != dedupe_key("src-b/report.docx", "blk", "c", fp)


# --------------------------------------------------------------------------- URL


def _query(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    assert parts.scheme == "mnote-kr" and parts.netloc == "open"
    return {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}


def test_citation_url_bbox_has_page_and_rectangle() -> None:
    loc = Locator(locator_precision="bbox", locator_degraded=False, page=1, bbox=[72.0, 100.5, 540.125, 130.0])
    url = citation_url("papers/scan.pdf", loc, workspace_id="ws 1")
    q = _query(url)
    assert q == {
        "path": "papers/scan.pdf",
        "ws": "ws 1",
        "precision": "bbox",
        "page": "1",
        "bbox": "72,100.5,540.12,130",
    }


def test_citation_url_paragraph_has_no_page() -> None:
    loc = Locator(
        locator_precision="paragraph",
        page=3,
        paragraph_index=11,
        para_id="1A2B0004",
        block_id="c550ce08",
        highlight=Highlight(start=0, end=4),
    )
    q = _query(citation_url("资料/保护基 v2.docx", loc))
    assert q == {
        "path": "资料/保护基 v2.docx",
        "precision": "paragraph",
        "block": "c550ce08",
        "para": "1A2B0004",
        "paragraph": "11",
    }
    assert "page" not in q and "bbox" not in q


def test_citation_url_file_locator_has_only_path() -> None:
    q = _query(citation_url("notes.md", Locator()))
    assert q == {"path": "notes.md", "precision": "file"}


def test_citation_url_percent_encodes_path() -> None:
    url = citation_url("a b/c&d=e?#.pdf", Locator())
    assert " " not in url and "#" not in url and "&d=" not in url
    assert unquote(url.split("path=", 1)[1].split("&", 1)[0]) == "a b/c&d=e?#.pdf"


def test_same_named_files_in_different_folders_get_different_urls() -> None:
    loc = Locator()
    assert citation_url("2023/report.docx", loc) != citation_url("2024/report.docx", loc)


@pytest.mark.parametrize("bad", ["/etc/passwd", "../outside.pdf", "a/../../b.pdf", "C:/x.pdf", ""])
def test_citation_url_refuses_paths_leaving_the_workspace(bad: str) -> None:
    with pytest.raises(UsageError):
        citation_url(bad, Locator())


# --------------------------------------------------------------------------- Markdown


def test_citation_markdown_names_page_only_when_known() -> None:
    url = "mnote-kr://open?path=scan.pdf&precision=bbox&page=1"
    loc = Locator(locator_precision="bbox", locator_degraded=False, page=1, bbox=[1, 2, 3, 4])
    assert citation_markdown("scan.pdf", loc, url) == f"[scan.pdf · p.1]({url})"
    para = Locator(locator_precision="paragraph", page=7, paragraph_index=11)
    md = citation_markdown("report.docx", para, "u")
    assert md == "[report.docx · paragraph 12 (approximate location)](u)"  # degraded: approximate
    assert "p.7" not in md
    exact = Locator(locator_precision="paragraph", locator_degraded=False, paragraph_index=91)
    assert citation_markdown("report.docx", exact, "u") == "[report.docx · paragraph 92](u)"  # located exactly
    assert citation_markdown("report.docx", Locator(locator_precision="paragraph"), "u") == (
        "[report.docx (paragraph; location approximate)](u)"
    )
    assert citation_markdown("notes.md", Locator(page=2), "u") == "[notes.md (file; location approximate)](u)"


def test_citation_markdown_escapes_file_name() -> None:
    md = citation_markdown("a_[b]*(c).pdf", Locator(locator_precision="bbox", locator_degraded=False, page=2), "u")
    assert md == r"[a\_\[b\]\*\(c\).pdf · p.2](u)"


def test_citation_markdown_wraps_url_with_spaces() -> None:
    assert citation_markdown("x.md", Locator(), "mnote-kr://open?path=a b") == (
        "[x.md (file; location approximate)](<mnote-kr://open?path=a b>)"
    )


# --------------------------------------------------------------------------- ranking


def test_query_terms_split_cjk_and_latin() -> None:
    assert query_terms("吡咯烷 NMP solvent") == ["吡咯烷", "nmp", "solvent"]
    assert query_terms("三乙基硅基保护") == ["三乙", "乙基", "基硅", "硅基", "基保", "保护"]
    # a lower-case letter alone is a word (dropped); a capital standing alone is a symbol, as the matcher reads it
    # (``queryterms.symbol_letters``: N-甲基's locant, "Q 代表什么"), but "I" and a sentence's opening "A"
    assert query_terms("N-甲基 a") == ["n", "甲基"]
    assert query_terms("Q 代表什么") == ["q", "代表什么"]
    assert query_terms("what does \U0001d444 mean") == ["what", "does", "q", "mean"]
    assert query_terms("A dog I saw") == ["dog", "saw"]


def test_score_provider_order_and_parts() -> None:
    top, parts = score(0, 5, "x.pdf", "unrelated", "吡咯烷")
    second, _ = score(1, 5, "x.pdf", "unrelated", "吡咯烷")
    assert top > second
    assert parts == {"provider": 1.0, "fileName": 0.0, "terms": 0.0, "phrase": 0.0}


def test_score_lexical_boosts() -> None:
    base, _ = score(2, 5, "other.docx", "无关", "吡咯烷")
    hit, parts = score(2, 5, "other.docx", "吡咯烷 是一种环状仲胺", "吡咯烷")
    assert hit > base and parts["terms"] == pytest.approx(0.3) and parts["phrase"] == pytest.approx(0.2)
    named, parts = score(2, 5, "资料/吡咯烷.docx", "无关", "吡咯烷")
    assert parts["fileName"] == pytest.approx(0.5) and named > base
    half, parts = score(0, 1, "x", "Aurora uses it", "Aurora battery")
    assert parts["terms"] == pytest.approx(0.15) and parts["phrase"] == 0.0


def test_score_clamps_rank_to_result_size() -> None:
    assert score(99, 3, "x", "", "q")[1]["provider"] == pytest.approx(1 / 3)
    assert score(-4, 3, "x", "", "q")[1]["provider"] == pytest.approx(1.0)


# --------------------------------------------------------------------------- text bundle


def test_citation_text_bundle_strips_equation_and_drawing_for_display() -> None:
    block = _blocks("aurora_报告.docx")[1]
    bundle = clean_citation_text(block.content, "test rig", block.content)
    display = bundle.display_quote
    for junk in ("<equation", "</equation>", "<drawing", "<table", "latex", "image1.png", "\\frac", "##"):
        assert junk not in display
    assert "E=mc^2" in display and "(a+b)/2" in display
    assert "Cell | 容量 (mAh) | Cycles; A1 | 3200 | 800" in display
    assert bundle.display_cleaned is True
    assert bundle.raw_quote == block.content  # raw kept for diagnostics only


def test_citation_text_bundle_preserves_query_for_locator() -> None:
    chunk = (
        '目录 保护基 ........ 3\nN-甲基吡咯烷酮 (NMP) 是溶剂。<equation format="latex">\\frac{a}{b}</equation> '
        '吡咯烷 是一种环状仲胺。<drawing id="im-1" format="png" path="x.png" src="" />'
    )
    block = '## 胺类\n吡咯烷 是一种环状仲胺，沸点 87 °C。<equation format="latex">{c}^{2}</equation>'
    bundle = clean_citation_text(chunk, " 吡咯烷 ", block)
    assert bundle.search_query == "吡咯烷"
    assert "吡咯烷" in bundle.display_quote
    assert bundle.locator_text_source == "sidecar"
    assert bundle.locator_evidence_text == "胺类\n吡咯烷 是一种环状仲胺，沸点 87 °C。 c^2"
    # without the block the chunk itself is the evidence, still centred on the query
    alone = clean_citation_text(chunk, "吡咯烷", None)
    assert alone.locator_text_source == "chunk"
    assert "吡咯烷 是一种环状仲胺" in alone.locator_evidence_text
    assert "<" not in alone.locator_evidence_text
