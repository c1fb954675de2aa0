"""A PDF citation's rectangles mark only what its quote shows; a quote reads its lines in reading order.

nc18a problem 5: the first citation's ``rects`` held, besides the box on the answer, every other block the
evidence window touched, and the viewer drew them all: Q12 "金刚线项目一期总投资额是多少？" boxed the 事件 bullet
(6.66 亿元) and also the report title, the "投资要点" label, the next bullet and the sidebar's 相关研究 items 4-5;
Q9 the FUNCTION_USAGE header row and also the last two lines of §2.2 below the table; Q4 the DPR paragraph and
also the paragraph before it and the heading "3 Dense Passage Retriever"; Q6 the title and also the author line
and the address block. nc18a problem 6, Q11: chatchat__1.pdf p.3 §3.2's first two lines are each cut in two
where a Δ the text layer lacks stands; the quote took the four pieces in line-number order, interleaving the
two lines ("…偏差向量气路分析技术是已知Y,…隔离到和 Y变化。故障诊断的 X"), text that is nowhere on the page.

Evidence and passage are the trial's own (its citation store: ``locatorEvidenceText`` and ``contextQuote``).
Truth is what PDFium reads inside each rectangle (``get_text_bounded``), never the locator's own geometry.
"""

from __future__ import annotations

import hashlib
import unicodedata
from pathlib import Path

import pytest
from mnote_kr_testkit.pdfwords import text_in

from mnote_kr.citations.pipeline import _place_quote
from mnote_kr.models import LocateRequest, Locator
from mnote_kr.plugins import load_plugins

PDF = Path(__file__).resolve().parent / "data" / "corpus" / "pdf"

REPORT = PDF / "mineru__test_rearch_report.pdf"
Q12 = "金刚线项目一期总投资额是多少？"
Q12_EVIDENCE = (
    "艺进\n步》，2022.3.9\n5.《高测股份（688556.SH）： 21 年业\n绩预告超市场预期，关注切片代工利\n润释放》，202"
    "2.1.24\n高测股份（688556.SH）：扩产 4000 万公\n里金刚线，强化光伏硅片切割三元布局\n投资要点\n\uf06c 事件："
    "公司拟与壶关县人民政府签署的《壶关年产 12000 万千米金刚线项目投资\n协议书》，项目一期计划建设年产 4,000 万"
    "千米金刚线产能，预计一期总投资额约\n6.66 亿元；后续年产 8,000 万千米金刚线项目尚未具体约定，存在较大不确定"
    "性。\n\uf06c 顺应下游需求扩张，金刚线产能快速扩产，保证公司内供+外销。光伏金刚线需求\n22 年提升源于两方面"
    "：1）2022 年光伏产业链景气度高涨，1-5 月光伏装机同比\n+24.4%，带动产业链各环节开工率提升，硅片前期扩产产能"
    "逐步落地，金刚线需\n求释放；")

REDBOOK = PDF / "docling__redp5110_sampled.pdf"
Q9 = "data type of the USER_NAME column in the FUNCTION_USAGE view"
Q9_EVIDENCE = (
    "administrative functions to be divided across individuals without overlapping responsibilities,\nso that "
    "one user does not possess unlimited authority, such as with the *ALLOBJ authority.\nColumn name Data type "
    "Description\nFUNCTION_ID VARCHAR(30) ID of the function.\nUSER_NAME VARCHAR(10) Name of the user profile "
    "that has a usage setting for this\nfunction.\nUSAGE VARCHAR(7) Usage setting:")

DPR = PDF / "unstructured__multi-column-2p.pdf"
Q4 = "How much does the dense retriever beat BM25 on top-20 passage retrieval accuracy?"
Q4_EVIDENCE = (
    "is a function that takes as input a question q and a\ncorpus C and returns a much smaller \ufb01lter set of\n"
    "texts CF \u2282C, where |CF| = k \u226a|C|. For a \ufb01xed\nk, a retriever can be evaluated in isolation on "
    "top-k\nretrieval accuracy, which is the fraction of ques-\ntions for which CF contains a span that answers "
    "the\nquestion.\n3 Dense Passage Retriever (DPR)\nWe focus our research in this work on improv-\ning the "
    "retrieval component in open-domain QA.")
Q4_PASSAGE = (
    "Formally speaking, a retriever R : (q,C) \u2192CF is a function that takes as input a question q and a "
    "corpus C and returns a much smaller filter set of texts CF \u2282C, where |CF| = k \u226a|C|. For a fixed k, "
    "a retriever can be evaluated in isolation on top-k retrieval accuracy, which is the fraction of questions "
    "for which CF contains a span that answers the question. 3 Dense Passage Retriever (DPR) We focus our "
    "research in this work on improving the retrieval component in open-domain QA. Given a collection of M text "
    "passages, the goal of our dense passage retriever (DPR) is to index all the passages in a low-dimensional "
    "and continuous space, such that it can retrieve efficiently the top k passages relevant to the input "
    "question for the reader at run-time.")

NAACL = PDF / "pdfminer__naacl06-shinyama.pdf"
Q6 = "Unrestricted Relation Discovery"
Q6_EVIDENCE = (
    "Preemptive Information Extraction using Unrestricted Relation Discovery\nYusuke Shinyama Satoshi Sekine\n"
    "New York University\n715, Broadway, 7th Floor\nNew York, NY, 10003\n{yusuke,sekine}@cs.nyu.edu\nAbstract\n"
    "We are trying to extend the boundary of\nInformation Extraction (IE) systems. Ex-")

ENGINE = PDF / "chatchat__1.pdf"
Q11 = "多工作点气路分析 发动机故障诊断"
Q11_EVIDENCE = (
    "3 关键技术\n3. 1 发动机健康检查和指示系统故障识别\n当发动机有故障时, 其测量参数将偏离正常工作的基线值。故"
    "障程度越严重, 偏差值越大,\n可以用恰当的阈值来判断发动机是否健康。任何一个偏差值超出规定阈值则认为发动机参"
    "数\n有趋势变化, 可能有故障, 应进行故障诊断。为节省计算时间, EM D 系统把发动机状态监视和\n故障诊断分两级进"
    "行: 健康检查、故障诊断, 对于健康的发动机不进入故障诊断。指示系统故障\n造成错误的测量参数信息, 将导致误诊, "
    "所以在进行故障诊断前必须进行指示系统故障识别,\n其中包括同一架飞机上各发动机的偏差值变化对比和依据各测量参"
    "数偏差值的不同变化识别\n指示系统故障。\n3. 2 气路故障诊断\n如果发动机气路部件和子系统发生故障, 将导致测量"
    "参数偏差向量 \u2203Y 变化。故障诊断的\n气路分析技术是已知 \u2203Y , 求解部件和子系统的特征参数"
    "向量 \u2203X , 据此可将故障"
    "隔离到和 \u2203X\n143第 4 期 民用航空发动机状态监视和故障诊断系统研究\n有关的部件和子系统, 典型的特")


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNOTE_KR_LOCATE_CACHE", "0")


def _compact(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def _held(text: str, quote: str) -> float:
    """The share of ``text``'s letter 3-grams that the quote holds (1.0: all of it is quoted)."""
    a, q = _compact(text), _compact(quote)
    grams = [a[i:i + 3] for i in range(len(a) - 2)] or [a]
    return sum(g in q for g in grams) / len(grams)


def _cited(file: Path, query: str, evidence: str, passage: str | None = None) -> tuple[Locator, str]:
    """The locator and the quote the host shows for it (``pipeline._place_quote``)."""
    plugins = load_plugins(None)
    passage = passage or " ".join(evidence.split())
    loc = plugins.locate(LocateRequest(file=str(file), evidence=evidence, passage=passage, query=query))
    assert loc.locator_precision == "bbox", loc.locator_reason
    return loc, _place_quote(plugins, loc, passage, query)[0]


def _rect_texts(file: Path, loc: Locator) -> list[str]:
    return [text_in(file, r.page, r.bbox) for r in loc.rects]


def _every_rect_is_quoted(file: Path, loc: Locator, quote: str) -> None:
    """Each rectangle's words are quoted, or it is the block the quote's sentences were taken from (a
    paragraph boxed whole, its answering sentences quoted): no rectangle marks words the quote leaves out alone."""
    for r, text in zip(loc.rects, _rect_texts(file, loc), strict=True):
        assert _held(text, quote) >= 0.8 or _held(quote, text) >= 0.8, (r.page, r.bbox, text, quote)


def test_the_investment_answer_is_boxed_alone_not_the_title_label_next_bullet_or_sidebar() -> None:
    before = hashlib.sha256(REPORT.read_bytes()).digest()
    loc, quote = _cited(REPORT, Q12, Q12_EVIDENCE)
    assert loc.page == 1 and not loc.locator_degraded
    assert loc.bbox == pytest.approx([200.69, 192.94, 571.9, 229.51], abs=1.0)  # the 事件 bullet: it stays
    assert "6.66 亿元" in quote
    _every_rect_is_quoted(REPORT, loc, quote)
    shown = _compact(" ".join(_rect_texts(REPORT, loc)))
    for stray in ("投资要点", "强化光伏硅片切割三元布局", "顺应下游需求扩张", "业绩预告超市场预期"):
        assert _compact(stray) not in shown, (stray, [r.bbox for r in loc.rects])
    assert hashlib.sha256(REPORT.read_bytes()).digest() == before


def test_the_function_usage_citation_boxes_nothing_of_the_separation_of_duties_paragraph() -> None:
    loc, quote = _cited(REDBOOK, Q9, Q9_EVIDENCE)
    assert loc.page == 8
    _every_rect_is_quoted(REDBOOK, loc, quote)
    shown = _compact(" ".join(_rect_texts(REDBOOK, loc)))
    assert _compact("without overlapping responsibilities") not in shown, [r.bbox for r in loc.rects]


def test_the_dpr_citation_boxes_neither_the_paragraph_before_nor_the_section_heading() -> None:
    loc, quote = _cited(DPR, Q4, Q4_EVIDENCE, Q4_PASSAGE)
    assert loc.page == 2 and "Given a collection of M text passages" in quote  # the place itself stays
    _every_rect_is_quoted(DPR, loc, quote)
    shown = _compact(" ".join(_rect_texts(DPR, loc)))
    for stray in ("takes as input a question", "3 Dense Passage Retriever (DPR) We focus"):
        assert _compact(stray) not in shown, (stray, [r.bbox for r in loc.rects])


def test_the_title_citation_boxes_neither_the_authors_nor_their_address() -> None:
    loc, quote = _cited(NAACL, Q6, Q6_EVIDENCE)
    assert loc.page == 1 and "Unrestricted Relation Discovery" in quote
    _every_rect_is_quoted(NAACL, loc, quote)
    assert len(loc.rects) == 1, [(r.bbox, t) for r, t in zip(loc.rects, _rect_texts(NAACL, loc), strict=True)]


def test_a_line_cut_in_two_is_quoted_in_reading_order_not_interleaved_with_the_next() -> None:
    loc, quote = _cited(ENGINE, Q11, Q11_EVIDENCE)
    assert loc.page == 3
    said = _compact(quote)
    # the page: "…偏差向量ΔY变化。故障诊断的 / 气路分析技术是已知ΔY，求解…隔离到和ΔX" (the Δ is not in the layer)
    assert _compact("偏差向量Y变化。故障诊断的气路分析技术是已知Y") in said, quote
    assert _compact("向量气路分析技术") not in said, quote
