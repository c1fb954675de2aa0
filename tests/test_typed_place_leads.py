"""For a question asking a kind of answer (how many years, how fast, when), a file's first place stating none of
it yields to the place behind it that states it beside one of the question's words (``folding.TYPE_LEADS``,
``valuerows.states_type``).

The places are those nc23c's search cited (round 23, ``poi__stress009.docx``, a Chinese SSD product sheet, asked
"这款固态硬盘的数据能保存多少年？"): the first place, chosen by meaning inside LightRAG's passage, was the product's
list of uses (¶6 as the CLI counts); the answer, "数据寿命超过10年" (¶40), came second behind it, its cosine 0.011
below the first's, too little for the lead by meaning (``LEAD_BY_MEANING``)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from mnote_kr.citations.render import folding
from mnote_kr.models import Locator
from tests.test_pipeline_unit import citation

QUESTION = "这款固态硬盘的数据能保存多少年？"
USES = ("利用NANDrive微型固态硬盘作为各种数字产品的存储部件，如：智能手机、移动设备、工控机、PMP、MP3、MP4、"
        "数码播放器、数码相框、MID、移动网络设备、医疗设备、POS机、收款机、基站、全球定位系统等。")
CHIP = ("本方案采用SST NANDrive芯片，集成了ATA接口控制器和内置一块或多块NAND闪存，每一个生产的微型固态硬盘都有"
        "唯一的20字节的ID序列号用于保证数据的安全性，拥有四个存储引导代码保护区")
LIFE = "数据寿命超过10年"


def _place(para: int, words: str, cos: float, query: str, *, first: bool = False) -> Any:
    """A DOCX paragraph as the pipeline leaves it: a file's first place in its quote, a place behind it (a
    runner-up) in its locator's ``place_text``; each placed by meaning (approximate), as nc23c's were."""
    loc = Locator(locator_precision="paragraph", locator_degraded=True, paragraph_index=para, meaning_score=cos,
                  place_text=None if first else words, quote=words)
    return msgspec.structs.replace(citation(f"[p{para}]", words), locator=loc, locator_precision="paragraph",
                                   search_query=query, display_quote=words if first else None)


def _order(query: str, first: tuple[int, str, float], behind: list[tuple[int, str, float]]) -> list[int | None]:
    places = [_place(*first, query, first=True)] + [_place(*p, query) for p in behind]
    return [c.locator.paragraph_index for c in folding.behind_by_meaning(places)]


def test_the_place_stating_how_many_years_leads_the_list_of_uses() -> None:
    got = _order(QUESTION, (5, USES, 0.764), [(4, CHIP, 0.756), (39, LIFE, 0.753)])
    assert got == [39, 5, 4]  # the former first right behind it, as a lead by meaning leaves it


def test_only_a_first_place_stating_none_yields_and_only_to_a_place_beside_the_questions_words() -> None:
    behind = [(4, CHIP, 0.756), (39, LIFE, 0.753)]
    assert _order(QUESTION, (5, USES, 0.764), behind)[0] == 39
    # a first place stating the years itself keeps its lead over another place stating years
    assert _order(QUESTION, (7, "数据保存期限为5年", 0.764), behind)[0] == 7
    # "质保期为3年" (a warranty) states years but shares no word with the question but 年, the unit asked
    assert _order(QUESTION, (5, USES, 0.764), [(4, CHIP, 0.756), (60, "质保期为3年", 0.75)])[0] == 5


def test_a_first_place_holding_every_word_of_the_question_keeps_its_lead() -> None:
    """The place the question names word for word is what was asked for (``valuerows.holds_question``)."""
    query = "how many years of data retention"
    behind = [(39, "NAND flash data retention exceeds 10 years", 0.72)]
    # a first place holding only part of the question yields
    assert _order(query, (5, "Data retention: see the endurance table", 0.70), behind)[0] == 39
    assert _order(query, (5, "Years of data retention: see the endurance table", 0.70), behind)[0] == 5


def test_a_question_asking_no_kind_of_answer_keeps_the_order_by_meaning(monkeypatch: pytest.MonkeyPatch) -> None:
    places = [(4, CHIP, 0.756), (39, LIFE, 0.753)]
    assert _order(QUESTION, (5, USES, 0.764), places)[0] == 39
    for query in ("写保护跳线", "这款固态硬盘用的是什么芯片"):
        assert _order(query, (5, USES, 0.764), places)[0] == 5
    monkeypatch.setattr(folding, "TYPE_LEADS", False)  # switched off: as before round 24
    assert _order(QUESTION, (5, USES, 0.764), places)[0] == 5


def test_across_scripts_the_place_stating_the_sum_asked_leads_without_the_questions_words() -> None:
    """r23's run, tune3's t3_zh23 over tika__017091.docx (a US job notice asked in Chinese): the first place, vacation
    leave, stood 0.0006 below the salary line by cosine. An English place cannot hold a Chinese question's words, so
    the kind of answer alone (money: "84913 USD") speaks for it; within one script the words are still asked."""
    query = "这个天主教牧师职位一年能挣多少钱"
    leave = "You will earn annual vacation leave. More info: http://www.usajobs.gov/jobextrainfo.asp#VACA"
    salary = ("Salary Range: 54494 to 84913 USD Per Year Rates of pay are higher in high cost of living localities | "
              "Open Period: 1/1/2008 to 12/31/2008")
    holidays = ("You will be paid for federal holidays that fall within your regularly scheduled tour of duty. "
                "More info: http://www.usajobs.gov/jobextrainfo.asp#HOLI")
    got = _order(query, (159, leave, 0.69731), [(9, salary, 0.697917), (163, holidays, 0.684631)])
    assert got == [9, 159, 163]
    # a Chinese place stating a sum beside none of the question's words stays behind
    assert _order(query, (159, leave, 0.69731), [(9, "押金为500元", 0.697917)])[0] == 159
    # and "how much does the pastor earn a year", asked in English, asks the place for its words
    assert _order("how much does this chaplain job pay a year", (159, leave, 0.69731),
                  [(9, "Deposit: 500 USD", 0.697917)])[0] == 159


def test_across_languages_a_count_in_the_places_own_words_answers_how_many() -> None:
    """nc25b Q7 (round 25, ``mineru__test_mineru.docx``, in English and Chinese): "How many languages can
    MinerU's OCR recognize?" cited first the English blurb about MinerU (¶30, 0.704), its Chinese twin
    (¶23, 0.639) behind it, and the answer, "OCR支持84种语言的检测与识别" (¶8, 0.624), third: the
    question names its thing in English, "languages", which no Chinese place can write. A Chinese
    place's count of its own thing (84种) states the count; an English place must still name the
    languages."""
    query = "How many languages can MinerU's OCR recognize?"
    blurb = ("MinerU is a tool that converts PDFs into machine-readable formats (e.g., markdown, JSON), allowing for "
             "easy extraction into any format. MinerU was born during the pre-training process of InternLM.")
    twin = "MinerU是一款将PDF转换为机器可读格式的工具，可以很方便的抽取为任意格式。MinerU诞生于书生-葡语的训练过程中"
    ocr = "OCR支持84种语言的检测与识别"
    assert _order(query, (30, blurb, 0.704155), [(23, twin, 0.639288), (8, ocr, 0.623891)]) == [8, 30, 23]
    # a Chinese place stating a date or a sum states no count of anything
    assert _order(query, (30, blurb, 0.704155), [(8, "OCR于2024年发布", 0.623891)])[0] == 30
    assert _order(query, (30, blurb, 0.704155), [(8, "OCR服务收费84元", 0.623891)])[0] == 30
    # an English place stating a count of other things than the languages asked stays behind
    assert _order(query, (30, blurb, 0.704155), [(8, "MinerU's OCR ships 3 models", 0.623891)])[0] == 30


def test_a_japanese_place_is_in_another_language_than_a_chinese_question(monkeypatch: pytest.MonkeyPatch) -> None:
    """nc25b Q10 (``poi__stress019.docx``, a Japanese call for tenders):
    "企划提案书的提交截止时间是什么时候？" cited the heading "８．企画提案書等の提出期限" (¶89); the
    date line under it, "平成３０年１０月１１日（木）午後５時まで" (¶91), holds no word of the
    Chinese question (Japanese writes 提出期限, not 提交截止), and Han and kana read as one script,
    so it was asked for one. Its kana say Japanese: it needs none. A Chinese date line still does."""
    query = "企划提案书的提交截止时间是什么时候？"
    heading = "８．企画提案書等の提出期限"
    date = "平成３０年１０月１１日（木）午後５時まで"
    behind = [(90, "（１）提出期限", 0.700713), (91, date, 0.656656)]
    assert _order(query, (89, heading, 0.732329), behind) == [91, 89, 90]
    # asked by the deadline's name alone, the question asks a date too
    assert _order("企划提案书的提交截止时间", (89, heading, 0.762784), behind)[0] == 91
    assert _order(query, (89, heading, 0.732329), [(91, "2018年10月11日下午5点", 0.656656)])[0] == 89
    monkeypatch.setattr(folding, "LANGUAGES_APART", False)  # as before round 25: Han and kana one script
    assert _order(query, (89, heading, 0.732329), behind)[0] == 89


def test_a_decade_answers_when_and_its_place_leads_a_passage_stating_another_date() -> None:
    """nc26b Q4 (round 26, ``pdfplumber__issue-982-example.pdf`` p4): "When was the chatbot ELIZA created and by
    whom?" led with LightRAG's passage on Emily Howell ("David Cope created ... EMI ... in 1984"), cited without a
    cosine, while the ELIZA block, "a bot created by Joseph Weizenbaum in the 1960s", came second at 0.796: a decade
    was no date, so the passage's "1984" beside "created" answered and stayed (``ANSWER_STAYS``), and the ELIZA block
    was called "not the date it asks"."""
    query = "When was the chatbot ELIZA created and by whom?"
    emi = ("David Cope created a project called “Experiments in Musical Intelligence” (short: EMI or Emmy) in 1984 "
           "[Cop87]. He introduces the idea of seeing music as a language which can be analyzed with natural language "
           "processing (NLP) methods.")
    eliza = ("One of the earliest programs in this category is ELIZA, a bot created by Joseph Weizenbaum in the 1960s "
             "[Wei76]. This program had a set of patterns implemented to which it would reply in a seemingly smart "
             "way in a psychologists fashion.")
    bots = ("Chatbots are computer programs which participate in chat rooms as autonomous agents. This means they have "
            "similar permissions and possibilities as usual human users have.")
    first = msgspec.structs.replace(_place(1, emi, 0.0, query, first=True),
                                    locator=Locator(locator_precision="bbox", locator_degraded=True, quote=emi))
    places = [first, _place(2, eliza, 0.795749, query), _place(3, bots, 0.642515, query)]
    got = [c.locator.paragraph_index for c in folding.behind_by_meaning(places)]
    assert got == [2, None, 3]  # the ELIZA block first, the passage right behind it
