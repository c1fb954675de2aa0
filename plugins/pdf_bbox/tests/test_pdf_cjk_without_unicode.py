"""A PDF whose Chinese fonts are not embedded: PDFium reads only its Latin letters and digits.

``chatchat__1.pdf`` (a 1994 journal paper) is such a file. LightRAG's parser (pypdf) reads its
Chinese text, so the evidence of its chunks is Chinese PDFium's text layer cannot match; the
locator reads those pages again through the fonts' CMaps (``cidtext``), so the evidence is found
and boxed on its page. The evidence strings below are pypdf's reading of the pages (another
reader than the locator's), checked against the printed pages.
"""

from __future__ import annotations

import hashlib

from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest
from mnote_kr_pdf_bbox import locate

PAPER = CORPUS / "pdf/chatchat__1.pdf"

PAGE_1 = (
    "第 9 卷　第 4 期 航空动力学报 V o l19 N o14\n1994 年 10 月 Journa l of Aerospace Power O ct. 　1994\n"
    "民用航空发动机状态监视\n和故障诊断系统研究\n北京航空航天大学　　张　津执笔3 3\n"
    "【摘要】　北京飞机维修工程公司、北京航空航天大学、中国民航学院、东方航空公司联合发展了用\n"
    "计算机进行发动机状态监视和故障诊断的系统 EM D , 已在国内最大的两家航空公司试用成功。对\n"
    "B 767、B 747、A 310 共 13 架大型客机的 40 台发动机进行状态监视和故障诊断, 取得良好的经济效\n"
)
PAGE_3 = (
    "行, 将其输出数据作为 EM D 系统的输\n入。 EM D 系 统 发 展 了 ECM ˚ 或\n"
    "AD EPT 系统所不具备的下述新功能\n(图 1 虚线框所示) : (1) 发动机健康检\n"
    "查。 (2) 发动机气路故障诊断, EM D 系\n统可诊断 28 种气路故障, 包括测量参数\n"
    "N 1、N 2、EGT、F F、E PR、TA T 等指示\n系统故障, 风扇、压气机、涡轮、喷管故\n"
)
# Chinese from another document (the research report): nothing of it is in this paper.
ELSEWHERE = (
    "事件：公司拟与壶关县人民政府签署的《壶关年产 12000 万千米金刚线项目投资协议书》，项目一期计划建设"
    "年产 4,000 万千米金刚线产能，预计一期总投资额约 6.66 亿元；后续年产 8,000 万千米金刚线项目尚未具体约定。"
)


def _loc(evidence: str):
    return locate(LocateRequest(file=str(PAPER), evidence=evidence, query=""))


def _on_page(loc, page: int) -> bool:
    """Boxed on ``page``, inside the paper's page (489 x 700 pt)."""
    x0, y0, x1, y1 = loc.bbox
    return loc.locator_precision == "bbox" and loc.page == page and 0 <= x0 < x1 <= 489 and 0 <= y0 < y1 <= 700


def test_cjk_evidence_in_fonts_not_embedded_is_boxed_on_its_page():
    before = hashlib.sha256(PAPER.read_bytes()).hexdigest()
    for evidence, page in ((PAGE_1, 1), (PAGE_3, 3)):
        loc = _loc(evidence)
        assert _on_page(loc, page) and not loc.locator_degraded, loc
    assert hashlib.sha256(PAPER.read_bytes()).hexdigest() == before


def test_cjk_evidence_from_another_document_gets_no_page():
    loc = _loc(ELSEWHERE)
    assert loc.page is None and loc.locator_precision == "file"
    assert "not found" in loc.reason


# Two of LightRAG's chunks of the paper as a search returned them (pypdf's reading): one runs
# from the foot of page 2 over page 3's running header ("043 航 空 动 力 学 报 第 9 卷") into
# page 3, one is the middle of page 1. Their Latin skeletons match the text layer with a
# coverage of about 0.6-0.7 (the header and spacing differ), below the former 0.8 cut.
CHUNK_PAGES_2_3 = (
    "检查和采取维修措施的重要依据。\n为适应AM ECO 和 EAL 的机群和开发环境的不同要求, 以相同的监视和故障诊断技术\n"
    "为基础, 分别建立了不同的系统, 如图 1。它们都利用了飞机上现有的测量参数, 即有限监视系\n"
    "043 航 空 动 力 学 报 第 9 卷\n图 1 状态监视和故障诊断系统功能\n(东方航空公司)\n统 ECM ˚ 或AD EPT 的测量参数 (见表\n"  # noqa: E501
    "1) , 经过 ECM ˚ 或 AD EPT 系统的运\n行, 将其输出数据作为 EM D 系统的输\n入。 EM D 系 统 发 展 了 ECM ˚ 或\n"
    "AD EPT 系统所不具备的下述新功能\n(图 1 虚线框所示) : (1) 发动机健康检\n查。 (2) 发动机气路故障诊断, EM D 系\n"
    "统可诊断 28 种气路故障, 包括测量参数\nN 1、N 2、EGT、F F、E PR、TA T 等指示\n系统故障, 风扇、压气机、涡轮、喷管故\n"  # noqa: E501
    "障, 以及引气、可"
)
CHUNK_PAGE_1 = (
    "显著提高发动机运行可靠性, 并可从保证发动机性能、避免过多增加轮档燃油、节省地\n面试车的燃油消耗、缩短维修时间、"
    "减少备件等方面获得显著经济效益。该系统还为实现维修\n策略从经验性的定期维修改变到更科学的视情维修提供了重要的基础。"
    "近 20 年来, 国外发动\n机制造厂和航空公司都发展和应用了适合于自己机群的, 不同水平的发动机监视和故障诊断\n系统\n"
    "[1～ 10 ]\n。这些系统的功能可分为两个水平等级: 第 1 级为有限监视系统, 用来监视发动机健\n"
    "康状况, 如普惠公司发展的 ECM ˚ 和通用电气公司发展的AD EPT 系统, 我国民航已使用这\n"
    "两种软件系统。第 2 级为扩展的监视系统, 增加了故障诊断能力, 可将故障准确地隔离到发动\n"
    "机部件和子系统, 定量分析部件和发动机性能的衰退程度, 如普惠公司的 T EAM ÷ 、通用电气\n"
    "公司的 GEM 和罗·罗公司的 COM PA SS 系统。为实现不同水平的功能要求, 系统的测量参"
)


def test_a_retrieved_chunk_across_a_page_break_gets_the_page_holding_most_of_it():
    for evidence, page in ((CHUNK_PAGES_2_3, 3), (CHUNK_PAGE_1, 1)):
        loc = _loc(evidence)
        assert _on_page(loc, page), loc


def test_a_page_known_without_its_place_is_said_as_a_file_citation_not_a_page(tmp_path):
    """The evidence's Latin letters and digits stand on page 2, its Chinese nowhere in the text layer (a
    font without a Unicode map, as on a scan's OCR layer): a ``file`` citation with page 2 as its hint.
    Its reason says what the precision says (whole file, page known, place not found), not "page only"."""
    from mnote_kr_testkit.pdfs import PdfBuilder

    from mnote_kr.citations.render.precision import precision_words

    b = PdfBuilder()
    b.text(b.add_page(), 72, 700, "Cover page of the annual report", 12)
    page = b.add_page()
    b.text(page, 72, 700, "2015 11 14 3,805.07 2015 12 18 4,804.45", 11)
    b.text(page, 72, 680, "2016 1 GB-7731 A4 ZX200", 11)
    path = tmp_path / "scan-ocr.pdf"
    path.write_bytes(b.build())
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    evidence = ("2015年11月，神鹰集团将14间商铺(共计建筑面积3,805.07平米)设定抵押。2015年12月，神鹰集团将18间商铺"
                "(共计建筑面积4,804.45平米)设定抵押，并于2016年1月办理完毕。编号GB-7731，规格A4，型号ZX200。")
    loc = locate(LocateRequest(file=str(path), evidence=evidence, query="第2页的公司为神鹰集团提供的担保明细"))
    assert loc.locator_precision == "file" and loc.page is None and loc.page_hint == 2, loc
    assert loc.locator_reason == loc.reason
    assert loc.reason.startswith(precision_words(loc)), loc.reason  # "whole file (page 2 known, place not found)"
    assert "page only" not in loc.reason
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
