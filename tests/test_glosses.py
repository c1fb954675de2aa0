"""A query's words in the other language (``mnote_kr.citations.text.glosses``, CC-CEDICT)."""

from __future__ import annotations

from mnote_kr.citations.text.glosses import gloss_groups, glosses, query_glosses


def test_chinese_words_are_cut_into_headwords_and_glossed_in_english() -> None:
    assert gloss_groups("电池寿命是多少") == (("电池", ("battery",)), ("寿命", ("life", "span", "expectancy")))


def test_english_words_give_chinese_headwords_plain_forms_and_two_word_senses_included() -> None:
    assert glosses("batteries")[0] == "电池"  # the plural's plain form, the first sense's headword first
    groups = dict(gloss_groups("credit card"))
    assert groups["credit card"] == ("信用卡",) and "信用" in groups["credit"]


def test_question_words_stop_words_and_numbers_give_no_gloss() -> None:
    assert gloss_groups("When was it 2023") == ()
    assert [w for w, _ in gloss_groups("电池是什么")] == ["电池"]


def test_query_glosses_leave_out_the_query_own_words_and_take_each_word_first_when_capped() -> None:
    assert "battery" not in query_glosses("电池 battery")
    assert query_glosses("电池寿命") == ["battery", "life", "span", "expectancy"]
    assert query_glosses("电池寿命", 2) == ["battery", "life"]  # each word's first gloss before any second
    assert query_glosses("寿命电池", 3) == ["life", "battery", "span"]
