"""The weak flag's words for Chinese questions (``noresults.content_words``) and its wording when the first
place found is in another script, replayed on the citations of a newcomer's searches (round 16, nc16c:
a Chinese scan of Capital, a Korean card leaflet, a Russian contract, an English deck and workbook)."""

from __future__ import annotations

import pytest

from mnote_kr.citations.render.noresults import _weak, content_words, weak_reason
from mnote_kr.models import Citation
from tests.test_weak_variants import place

GARBLED = place("g1", "K¥“N\x12²£+8B”\x1b\x90{\x8f\x8c±^5)û 2009 c8ÔèÿÁ1 1 U", "mineru__garbled_formula.pdf")
KOREAN = place("k1", "인트 적립\n업종 적립 대상\n할인점 이마트, 이마트 트레이더스",
               "korean-text-with-tables.pdf")
# the scan's passages: the ranking's lexical part is above 0 for 的意 (T2) and 同的 (X2), nothing else of the queries
SCAN_T2 = place("s1", "（7）“任何东西部不可能有内在的交换介值。”"
                "（尼·巴尔本《新币轻铸论。答洛\n克先生关1提高货币价值的意见》第16页）",
                "mineru__small_ocr.pdf", lexical=0.036)
SCAN_X2 = place("s2", "不变的。因此，它\n必定有一种与这些不同的表现相区别的内容。"
                "\n我们再拿两种商品例奶小麦和铁来说。",
                "mineru__small_ocr.pdf", lexical=0.112)
CONTRACT = place("r1", "(одном) экземпляре в бумажном и электронном виде.\nНачальник Управления", "poi__bug65649.docx")
DECK = place("p1", "Open-Source Software\nKey Benefits:\nOpen-source software is cost-effective as it "
             "eliminates license fees, reducing overall expenses.", "docling__powerpoint_issue_2663.pptx")
SCAN_X1 = place("s3", "劳动的产物。例如，空气、天然草地、处女地、等等。"
                "一个物可以有用，而且是人类劳动产品，但不是商品。",
                "mineru__small_ocr.pdf")


def test_a_chinese_querys_function_words_are_not_its_words() -> None:
    assert content_words("最好的意大利面酱配方是什么？") == {"最好", "意大", "大利", "利面", "面酱", "酱配", "配方"}
    # 多少 goes before bigrams are made (少卢 is none), 这份 / 同的 / 的总 / 价是 hold a function character
    assert content_words("这份合同的总价是多少卢布？") == {"份合", "合同", "总价", "卢布"}
    assert content_words("How many handgun checks?") == {"handgun", "check"}  # Latin words as ``terms`` reads them
    assert content_words("这是什么？") == set()


@pytest.mark.parametrize("citations, query", [
    ([GARBLED, KOREAN, SCAN_T2], "最好的意大利面酱配方是什么？"),  # off-topic: the scan holds 的意 (好的意大利)
    ([SCAN_X2, CONTRACT, GARBLED], "这份合同的总价是多少卢布？"),  # the scan holds 同的 (不同的), not 合同
])
def test_a_passage_holding_only_a_chinese_querys_function_words_clears_the_flag_unless_they_are_left_out(
        citations: list[Citation], query: str) -> None:
    """Measured and not kept (``CJK_FUNCTION_WORDS``): today's rule clears the newcomer's two searches, the
    measured variant (``benchmarks/weak_variants.py``, ``cjk_stop``) flags them."""
    assert weak_reason(citations, query) is None
    assert _weak(citations, query, cjk_stop=True, first_script=False) is not None


def test_a_passage_holding_a_content_word_of_a_chinese_query_clears_it_in_the_variant_too() -> None:
    scan = place("s5", "商品的交换价值首先表现为一种使用价值同另一种使用价值相交换的量的关系",
                 "mineru__small_ocr.pdf", lexical=0.4)
    assert _weak([GARBLED, scan], "商品的交换价值是什么？", cjk_stop=True, first_script=False) is None
    # the query verbatim in a passage, or a file it names, needs no content word
    verbatim = place("s6", "这是什么呢", "a.pdf", phrase=0.2)
    assert _weak([verbatim], "这是什么呢？", cjk_stop=True, first_script=False) is None


@pytest.mark.parametrize("citations, query", [
    ([DECK, SCAN_X1, KOREAN], "开源软件为什么能省钱？"),  # the right slide, found by meaning
    # (the newcomer's right row of a catalog, "斯蒂芬·霍金写的是哪本书？", was here: it says 斯蒂芬 and 霍金 in English,
    # "Stephen Hawking", and is not weak since the twenty-first round: tests/test_weak_across.py)
])
def test_a_first_place_in_another_script_is_said_found_across_languages(citations: list[Citation], query: str) -> None:
    """Words cannot judge a Chinese question whose first place is English: the flag stays (the same words are
    nowhere near an off-topic question's first place either), but it says so rather than "nothing answers it".
    Unless that place says two of its words in English, or one close in meaning (``tests/test_weak_across.py``)."""
    reason = weak_reason(citations, query)
    assert reason is not None
    assert "another script" in reason and "across languages" in reason
    assert "nothing in your files clearly answers it" not in reason
    # with the first place in the query's script, the plain wording
    plain = weak_reason([SCAN_X1, DECK], query)
    assert plain is not None and "nothing in your files clearly answers it" in plain


def test_the_agents_note_for_a_place_found_across_languages_asks_to_read_it() -> None:
    from mnote_kr.agents.tools import weak_note

    across = weak_note(weak_reason([DECK, SCAN_X1], "开源软件为什么能省钱？") or "")
    assert "Read the first passage" in across and "Tell the user nothing clearly answers; do not" not in across
    plain = weak_note(weak_reason([SCAN_X1, DECK], "开源软件为什么能省钱？") or "")
    assert "do not present these as the answer" in plain


def test_a_latin_passage_shown_from_a_chinese_chunk_is_not_called_another_script() -> None:
    """nc17b P6: "best hiking trails in Patagonia for winter" over a Chinese DOCX whose card shows the Latin
    "FreeBSD, OpenBSD, NetBSD, Darwin" of a Chinese chunk: the reason said "the first passage found is in
    another script than the query" of the chunk, not of the passage shown. The reason judges the passage shown."""
    import msgspec

    chunk = ("本文介绍操作系统的历史和发展。类 Unix 系统包括以下几种：FreeBSD, OpenBSD, NetBSD, Darwin。"
             "这些系统的内核设计不同，用户空间的工具也各有特点，详细的比较见下一节的表格和说明。")
    shown = msgspec.structs.replace(place("z1", chunk, "poi__stress009.docx"),
                                    display_quote="FreeBSD, OpenBSD, NetBSD, Darwin")
    reason = weak_reason([shown, DECK], "best hiking trails in Patagonia for winter")
    assert reason is not None and "another script" not in reason
    assert "nothing in your files clearly answers it" in reason
    # a passage shown in Chinese still says so
    han = weak_reason([place("z2", chunk, "poi__stress009.docx"), DECK], "best hiking trails in Patagonia for winter")
    assert han is not None and "another script" in han
