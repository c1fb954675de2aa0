"""A line wrapped between two Chinese characters is no space in a quote (nc25c: WeKnora p.5 quoted
"这意味着系统配置 了重排序步骤"): the place text the locator hands the host for the quote joins such
lines; the places embedded for ranking by meaning keep their text (their vectors are stored by it)."""

from __future__ import annotations

import re

from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate
from mnote_kr_pdf_bbox.blocks import place_texts
from mnote_kr_pdf_bbox.model import load_document

PDF = CORPUS / "pdf" / "weknora__WeKnora.pdf"
#: LightRAG's chunk around the answer, as nc25c's search got it (its line breaks are the PDF's).
EVIDENCE = ("⽬的: 使⽤⼀个更强⼤的模型对初步检索出的结果进⾏更精细的排序，以提⾼最终答案的质量。 \n"
            "操作: ⽇志显示  Rerank model ID is empty, skipping reranking 。这意味着系统配置\n"
            "了重排序步骤，但没有指定具体的重排序模型，因此跳过了此步骤。\n")
HAN_GAP = re.compile(r"[\u4e00-\u9fff] [\u4e00-\u9fff]")


def test_pdf_quote_place_joins_a_line_wrapped_between_han_characters() -> None:
    before = PDF.read_bytes()
    loc = locate(LocateRequest(file=str(PDF), evidence=EVIDENCE, query="日志里为什么跳过了重排序这一步？"))
    assert loc.page == 5 and loc.locator_precision == "bbox", loc
    assert loc.place_text is not None and "系统配置了重排序步骤" in loc.place_text, loc.place_text
    assert not HAN_GAP.search(loc.place_text), loc.place_text
    assert "Rerank model ID is empty" in loc.place_text  # a space beside a Latin word stays
    # the places embedded for ranking by meaning are unchanged: the vectors stored by their text still fit
    assert any("系统配置 了重排序步骤" in t for t in place_texts(load_document(PDF)))
    assert PDF.read_bytes() == before


#: The text layer of WeKnora p.12 around the answer (PDFium's lines): "…去重后总共还是2" breaks before "个）".
MERGED = ("最终，系统将这两次搜索的结果进行去重和合并（日志中显示每次都找到2个结果，去重后总共还是2\n"
          "个），从而得到一个更可靠的知识集合，用于后续的答案生成。\n")


def test_pdf_quote_place_joins_a_line_wrapped_between_a_figure_and_han() -> None:
    """A line wrapped between a figure set inside Chinese text and the Chinese character after it ("还是2 / 个）")
    is no space either (round 25: "去重后总共还是2 个"); a figure the writer spaces from the Chinese text on its
    own line keeps the break's space ("约 / 6.66 亿元" stays "约 6.66 亿元")."""
    from mnote_kr_pdf_bbox.blocks import figure_break

    before = PDF.read_bytes()
    loc = locate(LocateRequest(file=str(PDF), evidence=MERGED, query="两次搜索去重后总共还剩几个结果？"))
    assert loc.page == 12 and loc.place_text is not None, loc
    assert "去重后总共还是2个），从而得到" in loc.place_text, loc.place_text
    assert figure_break("总共还是2", "个），从而") and figure_break("详见表", "1，共")
    assert figure_break("1994年", "10月")
    assert not figure_break("计一期总投资额约", "6.66 亿元；") and not figure_break("动公司 22Q1", "业绩大超预期")
    assert not figure_break("二", "2.1333") and not figure_break("境内非国有法人", "9.33%")
    assert PDF.read_bytes() == before
