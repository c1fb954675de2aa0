"""A PDF quote shows the words that answer, not a figure's labels, a picture's glyphs or a masthead.

The texts are real: a diagram's row of labels as the text layer of ``mineru__demo3.pdf`` (page 3)
reads it into the block beside it, and the OCR text layer of ``mineru__complex_layout.pdf`` as
LightRAG's PDF reader (pypdf) gives it, with its masthead's garbled title and its drawing's strokes.
Only the display quote loses them: the locator's evidence keeps every glyph the text layer has.
"""

from __future__ import annotations

import logging

import pypdf
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.cleaning import display_text, locator_text
from mnote_kr.citations.cleaning.debris import drop_debris
from mnote_kr.citations.cleaning.quote import place_quote

MAGAZINE = CORPUS / "pdf/mineru__complex_layout.pdf"
# the text block beside TableFormer's figure 2, as the locator reads it (its ``place_text``)
LABELLED = "attention bias scalars. We use g g g g g g segment g g … …"


def _magazine() -> str:
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    return pypdf.PdfReader(str(MAGAZINE)).pages[0].extract_text()


def test_a_figures_lone_letter_labels_leave_the_quote_and_stay_in_the_evidence() -> None:
    shown = display_text(LABELLED)
    assert shown == "attention bias scalars. We use segment"
    assert display_text(shown) == shown
    assert "g g g g g g segment g g" in locator_text(LABELLED)
    assert display_text("p p p p p p per cell position p p … …") == "per cell position"


def test_lone_letters_that_are_words_stay() -> None:
    for text in ("Grades A B C D and F are given.", "Let x y z be the axes.", "x = (a + b) / (c − d) where a b c",
                 "Plan A, B and C.", "他说：“好。”……——然后"):
        assert display_text(text) == text


def test_a_drawings_glyph_debris_leaves_the_quote_and_stays_in_the_evidence() -> None:
    text = _magazine()
    at = text.index("眨 地 守 着 他")
    raw = text[at : text.index("阳 阳 病 愈 后", at) + len("阳 阳 病 愈 后")]
    assert "～ } l" in raw  # the drawing's strokes as the OCR layer reads them
    shown = display_text(raw)
    assert shown == "眨地守着他，也守着我的未来。【生活智慧】阳阳病愈后"
    assert display_text(shown) == shown
    assert "～ } l" in locator_text(raw)


def test_a_quote_at_a_cjk_paragraph_starts_at_it_not_at_the_masthead_before_it() -> None:
    text = _magazine()
    raw = text[: text.index("也 飞 了 起 来 。") + len("也 飞 了 起 来 。")] + "\n" + "回 到 家 ，家 里 人 急 不 可 耐"
    raw = raw.strip()
    assert raw.startswith("l 瓷 堍 甏")  # the masthead's garbled title, as the text layer has it
    # the words of the boxed paragraph as the locator reads them (its lines, one space between)
    place = ("结果出来要7天，我领着阳阳在这个城市的游乐园游 玩，看着他坐在旋转木马上，向我挥手叫“爸爸”时，"
             "我的心 也飞了起来。")
    quote = place_quote(display_text(raw), place, "旋转木马")
    assert quote is not None and quote.startswith("结果出来要 7 天"), quote
    assert quote.endswith("也飞了起来。")


def test_a_lead_in_that_goes_on_into_a_cjk_paragraph_stays() -> None:
    # the chunk's sentence runs on into the place with a comma: not a heading run into it
    text = "根据公司的年度报告，结果出来要七天才能确定最后的名单和时间安排。"
    place = "结果出来要七天才能确定最后的名单和时间安排。"
    assert place_quote(text, place, "名单") == text


# text that looks like a label run or a punctuation run and is not: a quote shows it as it is
NOT_DEBRIS = ("Type a a a to repeat", "The sequence is a b a b a b a.", "Roman numerals I I I and V V V appear",
              "x x x y y y are the coordinates", "运算符：＋、－、×、÷。", "标点符号包括：，。、；：？！",
              "（！）（？）（。）",
              "Press i i i i i i to insert", "Count X X X X X X in the grid", "用～表示范围：1～3、4～6、7～9。")


def test_lone_letters_and_punctuation_that_are_text_stay() -> None:
    for text in NOT_DEBRIS:
        assert drop_debris(text) == text
        assert display_text(text) == text


def test_a_quote_of_punctuation_is_never_emptied() -> None:
    for text in ("（！）（？）（。）", "、、、～ } l 、 I／～，『／，、，‘", "g g g g g g … …"):
        assert drop_debris(text).strip()
        assert display_text(text).strip()
