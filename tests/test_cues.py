"""What kind of passage, what kind of answer (mnote_kr.citations.rank.cues)."""

from __future__ import annotations

import pytest

from mnote_kr.citations.rank.cues import answer_types, holds_type, is_apparatus, is_notice, type_counts
from mnote_kr.citations.rank.ranking import fold

WIKI_REFERENCES = (
    "Retrieved 27 March 2017.\n"
    '\uf0b7 \uf0b7 Broder, Jonathan (5 October 2018). "Can it maintain strong economic growth?". India Today:CQR. '
    "Sage Publications. doi:10.4135/cqresrre20181005. S2CID 267331042. Archived from the original on 5 October "
    "2018. Retrieved 4 October 2018.\n"
    '\uf0b7 \uf0b7 Canton, Naomi (6 December 2012). "How the \'Silicon Valley of India\' is bridging the digital '
    'divide". CNN. Archived from the original on 18 December 2012.'
)
PAPER_REFERENCES = (
    "[12] C. Garrett, J. Dean, D. Grove, and C. Chambers. Measurement and\n"
    "Application of Dynamic Receiver Class Distributions. 1994.\n"
    "[13] J. Ha, M. R. Haghighat, S. Cong, and K. S. McKinley. A concurrent\n"
    "trace-based just-in-time compiler for javascript. In Proceedings of the\n"
    "International Conference on Virtual Execution Environments, pages 144–153."
)
CHINESE_REFERENCES = (
    "[1] 张津. 民用航空发动机状态监视和故障诊断系统研究[J]. 航空动力学报, 1994, 9(4): 1-5.\n"
    "[2] 李明, 王强. 发动机健康管理技术[M]. 北京: 航空工业出版社, 2001."
)
PROSE_WITH_CITATIONS = (
    "As a result, any open-domain QA system needs to include an efficient retriever component that can "
    "select a small set of relevant texts, before applying the reader to extract the answer (Chen et al., "
    "2017). Dense retrieval methods have thus never been shown to outperform TF-IDF/BM25 (Lee et al., 2019)."
)
CONTENTS = "Contents\n1 Introduction ........ 1\n2 Overview ........ 3\n3 Trace Trees ........ 5\n4 Loops ........ 8"
# A handbook's contents as LightRAG's DOCX parser gives them: chapter-page numbers glued to the titles
# (a newcomer's Chinese question was first cited at "CLASSIFICATION AND PAYMENT OF CLAIMS3-32").
CHAPTER_CONTENTS = ("THE DEBTOR3-13\n10. LANGUAGE INTERPRETERS3-13\n11. DISABILITY OF DEBTOR3-14\n"
                    "12. RECORD OF MEETING3-14\nD. CLAIMS 3-20\n2. REVIEW, POSTING, AND OBJECTION – MORTGAGE PROOFS\n"
                    "OF CLAIM3-22\n3. UNTIMELY CLAIMS3-23")


@pytest.mark.parametrize("text", [WIKI_REFERENCES, PAPER_REFERENCES, CHINESE_REFERENCES, CONTENTS, CHAPTER_CONTENTS])
def test_reference_lists_and_contents_are_apparatus_by_their_text(text: str) -> None:
    assert is_apparatus(text)


@pytest.mark.parametrize("heading", ["参考文献", "5 参考文献", "第5章 参考文献", "附\u3000录\u3000A 参考文献",
                                     "一、参考文献", "Chapter 7 Notes", "Appendix B. References", "6.2 Bibliography"])
def test_a_numbered_section_heading_is_known_by_its_words(heading: str) -> None:
    # a DOCX heading path shows Word's numbers ("第5章 参考文献"): the section is still the reference list
    assert is_apparatus("Smith, J. A history of the harbour.", [heading])
    assert not is_apparatus("Smith, J. A history of the harbour.", ["第5章 " + "设计要求"])


def test_prose_with_in_text_citations_is_not_apparatus() -> None:
    assert not is_apparatus(PROSE_WITH_CITATIONS)
    one_reference_in_prose = ("The sewerage system, constructed in 1922, covers 215 km2 of the city (Retrieved "
                              "4 October 2018 from the municipal report) and connects five treatment centres "
                              "located in the city's periphery, which together treat most of its sewage.")
    assert not is_apparatus(one_reference_in_prose)


@pytest.mark.parametrize("text", [
    "Revenue grew in FY 2019-20\nCosts fell in FY 2020-21\nMargins held in FY 2021-22",
    "Children aged 5-12\nTeenagers aged 13-17\nAdults aged 18-65",
    "Opening hours\nMonday to Friday 9-17\nSaturday 10-14\nSunday closed",
    "Arsenal 2-1\nChelsea 0-0\nLiverpool 3-2",
    "工作温度范围为20-30\n相对湿度为40-60\n额定电压为220-240",
])
def test_tables_of_ranges_are_not_contents(text: str) -> None:
    assert not is_apparatus(text)


def test_prose_and_tables_ending_in_ranges_are_not_contents() -> None:
    assert not is_apparatus("The survey covered children aged 5-12\nand adults aged 18-65.\n"
                            "Responses were scored on a scale of 1 to 10 by two raters.")
    assert not is_apparatus("Meetings run from 9-11 on Mondays.")  # one line is not a list


def test_a_section_heading_says_apparatus_whatever_the_text() -> None:
    see_also = "History of Bengaluru\nList of people from Bangalore\nTourism in Karnataka"
    assert is_apparatus(see_also, ("Bangalore", "See also"))
    assert is_apparatus("Official website of Bangalore Development Authority", ("Bangalore", "External links"))
    assert is_apparatus("张津. 民用航空发动机", ("参考文献",))
    assert is_apparatus("1 概述", ("目录",))
    assert is_apparatus("anything", ("7. References:",))  # numbering and a colon are not part of the name
    assert not is_apparatus(see_also, ("Bangalore", "History"))
    assert not is_apparatus("Notes on the design of the fort", ("Bangalore", "Notes on the fort"))


@pytest.mark.parametrize(
    ("question", "types"),
    [
        ("When was the typewriter patented", ("date",)),
        ("who founded Bangalore and when did it happen", ("date",)),
        ("in what year did the plague reach the city", ("date",)),
        ("这次标准修改要在什么时候之前做完", ("date",)),
        ("how many engines were monitored", ("count:engine",)),
        ("这个系统在多少架飞机上试过", ("count:架",)),
        # 哪几家 / 哪几类 ask which ones (a list of names, as 哪些 does), not how many
        ("哪几家单位参加了修改", ()),
        ("核查反担保时翻阅了哪几类材料", ()),
        ("这次修改有几家单位参加", ("count:家",)),
        ("用了哪几个国家的多少个流域的数据", ("count:个",)),
        ("MinerU 需要多少内存", ("count:",)),
        ("高测股份新建工厂第一期要花多少钱", ("money",)),
        ("how much did the new plant cost", ("money",)),
        ("what share of residents speak Kannada", ("percent",)),
        ("how far is the airport from the city centre", ("distance",)),
        ("需要多大的运行内存", ("size",)),
        ("how much faster is the traced code", ("ratio",)),
        ("how long does the recording take", ("duration",)),
        ("who invented the typewriter", ()),
        ("How often is the periodic safety review done", ("frequency",)),
        ("核电厂定期安全评价每隔多久开展一次", ("frequency", "duration")),
        ("设备的检查频率是什么", ("frequency",)),
        ("每次评价持续多长时间", ("duration",)),  # 多长时间 is a duration, not a distance (多长)
        # nc23b: a 周期 asked is how often or how long a turn takes (检测周期: 15个工作日), no count of a thing
        ("遗传性乳腺癌的检测周期是多少？", ("frequency", "duration")),
        ("合同期限是多少", ("duration",)),
        ("分成好几列的页面导出后顺序对吗", ()),  # 好几 is "several", not a question
        ("why is static type inference too slow", ()),
        # nc23a Q4: "how fast" asks a speed or rate ("Must type 40 words per minute")
        ("how fast must applicants for the program support assistant job be able to type?", ("speed",)),
        ("at what speed does the train run", ("speed",)),
        ("打字速度要求是多少", ("speed",)),
    ],
)
def test_the_question_words_say_what_the_answer_holds(question: str, types: tuple[str, ...]) -> None:
    assert answer_types(fold(question)) == types


def test_a_passage_holds_a_type_where_its_pattern_occurs() -> None:
    def counts(types: tuple[str, ...], text: str) -> dict[str, int]:
        return type_counts(types, fold(text))

    assert counts(("date",), "Patented in 1868 by Christopher Latham Sholes") == {"date": 1}
    assert counts(("date",), "started broadcasting on 2 November 1955") == {"date": 2}
    assert counts(("date",), "这项修订任务应在2023年底前完成") == {"date": 1}
    assert counts(("count:架",), "已在 13 架大型客机的 40 台发动机上试用") == {"count:架": 1}
    assert counts(("count:架",), "其中包括同一架飞机上各发动机的数据") == {}  # 同一架: "the same", no count
    assert counts(("count:engine",), "monitoring 40 jet engines of 13 airliners") == {"count:engine": 1}
    assert counts(("money",), "项目总投资 6.66 亿元，建设期 2 年") == {"money": 1}
    assert counts(("money",), "当前价格(元)：82.42") == {}  # a unit in a label, no amount
    assert counts(("money",), "it cost $4.5 million") == {"money": 1}
    assert counts(("percent",), "spoken by 42.05% of the population") == {"percent": 1}
    assert counts(("distance",), "about 40 km (25 mi) from the city centre") == {"distance": 2}
    assert counts(("distance",), "2 more stations") == {}  # "m" of "more" is no metre
    assert counts(("size",), "内存：大于等于16GB，推荐32GB以上") == {"size": 2}
    assert counts(("ratio",), "we have measured speedups of 10x and more") == {"ratio": 1}
    assert counts(("ratio",), "a 2x-20x speedup, three times faster than V8") == {"ratio": 3}
    assert counts(("ratio",), "loads and runs each program 10 times") == {}  # a repetition, no ratio
    assert counts(("date", "percent"), "no figures here") == {}
    assert counts(("frequency",), "核电厂PSR通常每10年左右开展一次，每次持续4年左右时间") == {"frequency": 1}
    assert counts(("frequency",), "PSR一般每十年左右时间开展一次") == {"frequency": 1}
    assert counts(("frequency",), "inspected twice a year and audited every 5 years, reported annually") \
        == {"frequency": 3}
    assert counts(("frequency",), "定期安全评价 periodic safety review") == {}
    assert counts(("frequency",), "the review took 4 years") == {}  # a duration, no frequency
    assert counts(("count:day",), "act on all required permits within sixty days of receipt") == {"count:day": 1}
    assert counts(("duration",), "a term of forty-nine years, renewed after seventeen months") == {"duration": 2}
    # a year and a day of the month are dates, no durations (nc22a Q6: "2004年发布的" held "the duration asked")
    assert counts(("duration",), "本稿完成日期：2023年3月9日；2004年发布") == {}
    assert counts(("duration",), "每次持续4年左右时间，历时两年，应在30日内完成，建设期 2 年") == {"duration": 4}
    # a number of working days is a duration (nc23b: the 周期 cell "15个工作日"); a date written 工作日期 is not
    assert counts(("duration",), "检测周期：15个工作日；results in 10 working days") == {"duration": 2}
    assert counts(("duration",), "工作日期：3月9日") == {}


def test_a_speed_is_a_number_per_unit_of_time_or_a_speed_unit() -> None:
    def counts(text: str) -> dict[str, int]:
        return type_counts(("speed",), fold(text))

    assert counts("BASIC REQUIREMENT: Must type 40 words per minute") == {"speed": 1}
    assert counts("trains run at 120 km/h on a 10 Mbps link") == {"speed": 2}
    assert counts("每分钟40字，时速60公里/小时") == {"speed": 2}
    assert counts("A full year of work is 35-40 hours of work per week.") == {}  # a week is no speed's time
    assert counts("taken 3 times a day") == {}  # a frequency
    assert counts("Salary Range: 32,534.00 - 42,290.00 USD per year") == {}
    assert answer_types(fold("which catchments responded fastest")) == ()  # which ones, not how fast


def test_how_often_said_in_words_is_a_frequency_only_when_asked_for_worded() -> None:
    said = fold("定期安全评价以规定的时间间隔对运行核电厂的安全性进行系统性的再评价")
    assert holds_type("frequency", said, worded=True)
    assert holds_type("frequency", fold("the plant is inspected at regular intervals"), worded=True)
    assert not holds_type("frequency", said)  # ranking counts a frequency with its number only
    assert not holds_type("frequency", fold("定期安全评价 periodic safety review"), worded=True)


def test_answer_types_and_apparatus_take_linear_time_on_long_runs_of_digits_and_spaces() -> None:
    """A CSV chunk or a table of figures holds long runs of digits: a number pattern that can start
    anywhere inside a run rescans it to its end (0.66 s at 5,000 digits, 59 s at 20,000)."""
    import time

    types = ("date", "money", "percent", "duration", "distance", "size", "ratio", "count:engine")
    for text in ("1" * 40_000, "0.1," * 10_000, "12 " + " " * 20_000 + "34", "title" + " " * 20_000 + "\n7"):
        t0 = time.process_time()
        type_counts(types, text)
        is_apparatus("contents ...\n" + text)
        assert time.process_time() - t0 < 2.0, text[:12]
    # The anchored pattern still finds every percentage of ordinary text.
    assert type_counts(("percent",), "a rate of 88% and 12.5 percent, 3 times faster") == {"percent": 2}


# The notice at the end of the corpus's broker report (mineru__test_rearch_report.pdf, page 4), as cited.
REPORT_NOTICE = (
    "不同时期，本公司可发出与本报告所载资料、意见及推测不一致的报告。\n市场有风险，投资需谨慎。本报告所载的信息、材料及结论"
    "只提供特定客户作参考，不构成投资建议，也没有考虑到个别客户特殊\n的投资目标、财务状况或需要。客户应考虑本报告中的任何意见"
    "或建议是否符合其特定状况。在法律许可的情况下，德邦证券及其\n所属关联机构可能会持有报告中提到的公司所发行的证券并进行交易，"
    "还可能为这些公司提供投资银行服务或其他服务。"
)
ANALYST_STATEMENT = (
    "分析师声明\n本人具有中国证券业协会授予的证券投资咨询执业资格，以勤勉的职业态度，独立、客观地出具本报告。本报告所采用的"
    "数据和信\n息均来自市场公开信息，本人不保证该等信息的准确性或完整性。分析逻辑基于作者的职业理解，清晰准确地反映了作者的"
    "研究观\n点，结论不受任何第三方的授意或影响，特此声明。"
)
LICENSE_HEADER = (
    "/*\n * Copyright (c) 2006-2010, Intel Mobile Communications. All rights reserved.\n *\n"
    " * This program is free software; you can redistribute it and/or modify it"
)


@pytest.mark.parametrize("text", [REPORT_NOTICE, ANALYST_STATEMENT, LICENSE_HEADER])
def test_a_documents_notice_to_its_reader_is_a_notice_by_its_text(text: str) -> None:
    assert is_notice(text)
    assert not is_apparatus(text)  # a notice, not a list of sources: the ranking treats the two apart


def test_content_beside_one_notice_phrase_or_the_notices_running_footer_is_no_notice() -> None:
    # every page of the report ends with a pointer to the notice
    page = ("公司点评 高测股份（688556.SH） 2 / 4 请务必阅读正文之后的信息披露和法律声明\n[Table_Base] 股票数据\n"
            "总股本(百万股)： 227.92 流通 A 股(百万股)： 167.01")
    assert not is_notice(page)
    # mineru__demo1.pdf: Elsevier prints its copyright line twice under the abstract
    abstract = ("This approach provides a methodology for understanding catchment response to afforestation, where "
                "paired catchment data is not available.\nq 2005 Elsevier B.V. All rights reserved.\nKeywords: "
                "Afforestation; Flow duration curves; Flow reduction; Paired catchments\n0022-1694/$ - see front "
                "matter q 2005 Elsevier B.V. All rights reserved.\ndoi:10.1016/j.jhydrol.2005.01.006")
    assert not is_notice(abstract)
    # a contract's clauses are its content
    clause = ("本合同一式四份，自双方签章并经省政府采购中心审核编号后生效。未经甲方书面许可，乙方不得将本合同项下的"
              "权利转让给第三方。The Supplier shall not be liable for delays caused without its prior written consent.")
    assert not is_notice(clause)
    # one notice phrase in a long passage of content
    assert not is_notice(REPORT_NOTICE[:40] + PROSE_WITH_CITATIONS * 3)


def test_a_notice_heading_says_notice_whatever_the_text() -> None:
    assert is_notice("Nothing in this section is legal advice.", ("Report", "Disclaimer"))
    assert is_notice("本报告仅供参考。", ("免责声明",))
    assert not is_notice("本报告仅供参考。", ("投资要点",))
    # a section of an article about copyright is content: only a notice's own headings count
    assert not is_notice("Copyright protects original works of authorship.", ("Intellectual property", "Copyright"))


@pytest.mark.parametrize(
    "text",
    [
        # nc26b Q4 (pdfplumber__issue-982-example.pdf p4): "When was the chatbot ELIZA created" is answered by a decade
        "One of the earliest programs in this category is ELIZA, a bot created by Joseph Weizenbaum in the 1960s",
        "search engines appeared in the early 1990s",
        "the music of the '60s",
        "popular in the sixties",
        "steam engines of the 1800s",
        "printing spread in the 15th century",
        "by the late nineteenth century",
        "in the twenty-first century",
        "ELIZA诞生于1960年代",
        "20世纪60年代，魏岑鲍姆编写了ELIZA",
        "造纸术在19世纪传入欧洲",
        "这种做法始于十八世纪",
    ],
)
def test_a_decade_or_a_century_is_a_date(text: str) -> None:
    assert holds_type("date", fold(text))


@pytest.mark.parametrize(
    "text",
    [
        "patients in their sixties",  # an age, not a decade
        "for the 1st time this century",  # a century named, no date
    ],
)
def test_an_age_or_a_figure_is_no_decade(text: str) -> None:
    assert not holds_type("date", fold(text))


def test_a_decade_is_no_duration() -> None:
    """"60年代" names a decade, not sixty years; "60年" still is a duration."""
    assert type_counts(("duration",), "20世纪60年代，魏岑鲍姆编写了ELIZA") == {}
    assert type_counts(("duration",), "保存60年") == {"duration": 1}


@pytest.mark.parametrize("question", ["ELIZA是哪个年代出现的", "造纸术是什么年代传入欧洲的", "这座教堂建于哪个世纪"])
def test_which_decade_or_century_asks_a_date(question: str) -> None:
    assert answer_types(fold(question)) == ("date",)


@pytest.mark.parametrize(("question", "types"), [
    # review30 finding 8: nouns whose kind depends on what they measure name none alone
    ("What is the length of the warranty?", ()),  # a length of time, not a distance
    ("What is the size of the team?", ()),  # a count of people
    ("What is the weight of the evidence?", ()),
    ("Which area of the plant handles packaging?", ()),  # which one: a place, not a surface
    # a quantity noun modifying another noun is not what is asked
    ("What is the cost centre for the Berlin office?", ()),
    ("Which speed setting is the default?", ()),
    # one reading only, as the head of what is asked: asked (nc28a's NANDrive question among them)
    ("What is the sequential write speed of the NANDrive micro SSD?", ("speed",)),
    ("What is the minimum distance between buildings on the same lot?", ("distance",)),
    ("What distance separates the two wells?", ("distance",)),
    ("What is the price of the annual licence?", ("money",)),
    ("What was the cost?", ("money",)),
    ("What is the price charged for a second copy?", ("money",)),
    # a participle that works as a preposition after the head does not make it a modifier (weak30's VAT question)
    ("What is the total contract price including VAT?", ("money",)),
    ("What is the fee excluding shipping?", ("money",)),
    ("What is the expected lifetime of the battery?", ("duration",)),
    ("What is the height of the tower?", ("distance",)),
])
def test_a_named_quantity_asks_its_kind_only_with_one_reading_as_the_head_of_what_is_asked(
        question: str, types: tuple[str, ...]) -> None:
    assert answer_types(fold(question)) == types
