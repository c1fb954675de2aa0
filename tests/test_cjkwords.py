"""A Chinese query's words by the dictionary, and those a file lacks: asked all the same (``cjkwords``)."""

from __future__ import annotations

from mnote_kr.citations.text import cjkwords
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize

QUERY = "遗传性卵巢癌 检测方法"


def test_the_words_a_file_lacks_are_the_dictionarys_not_the_cuts_across_them() -> None:
    assert cjkwords.absent_words(QUERY, {"方法", "结构"}) == ["遗传性", "卵巢", "检测"]
    assert cjkwords.absent_words(QUERY, {"卵巢", "遗传", "检测", "方法"}) == []
    # question words and cuts across function characters ask nothing: 讲了, 了什
    assert cjkwords.query_words("第3页讲了什么") == ()
    assert cjkwords.query_words("这份报告的主要结论是什么") == ("报告", "结论")


def test_a_paragraph_holding_half_the_words_of_a_chinese_query_is_not_a_whole_match() -> None:
    para = normalize("遗传性卵巢癌患者的遗传咨询")
    df = {t: 1 for t in ("遗传", "传性", "性卵", "卵巢", "巢癌", "患者", "咨询")} | {"方法": 3}
    plain = QueryTerms(QUERY, df, 10)
    worded = QueryTerms(QUERY, df, 10, words=cjkwords.query_words(QUERY))
    assert plain.score(para) >= 1.0  # 检测 dropped as a cut: the paragraph looked like the whole query
    # 检测 weighs as an absent Latin word would (the most: no paragraph holds it), 方法 by its rarity
    assert worded.score(para) < plain.score(para) - 0.2 and not worded.holds_all(para)
    assert worded.holds_all(normalize("遗传性卵巢癌的检测方法"))


def test_a_named_place_is_asked_the_dictionarys_words_the_file_lacks_not_the_cuts() -> None:
    # namedplaces.asked_of_place read the same words (r19 counted every Chinese bigram a file lacks as not asked)
    from mnote_kr.citations.text.namedplaces import asked_of_place

    rest = "关于遗传性卵巢癌说了什么"  # "第1页关于遗传性卵巢癌说了什么" without its page
    cut = {rest[i:i + 2] for i in range(len(rest) - 1)}  # the bigrams a matcher cuts it into
    assert asked_of_place(cut, {"方法", "结构"}, rest) == {"遗传性", "卵巢"}
    assert asked_of_place(cut, {"方法", "遗传", "卵巢"}, rest) == {"遗传", "卵巢"}  # held: asked as held
    assert asked_of_place({"讲了", "了什"}, {"方法"}, "讲了什么") == set()  # cuts of question words: nothing asked
    assert asked_of_place(cut - {"遗传", "传性", "性卵", "卵巢"}, {"方法"}, rest) == set()  # set aside by the caller


def test_a_place_lacks_each_word_of_a_chinese_query_it_does_not_hold_as_written() -> None:
    """nc24a: a share of the query's bigrams is no exact claim; each of its words, its characters together, is."""
    # 收益 and 成本 in two cells of a row, 分析 nowhere: the row lacks 分析
    assert cjkwords.lacked_words("收益成本分析", normalize("每股收益: 2021: 1.07 营业成本: 2021: 1,038")) == ["分析"]
    # a word wrapped across a PDF's lines is held; words asking (多久) are asked with, never lacked
    assert cjkwords.lacked_words("神鹰集团在诸暨市排名第几", normalize("神鹰集团在诸暨\n市企业集团中排名第17位")) == []
    assert cjkwords.lacked_words("安全复查多久一次", normalize("安全复查每十年一次")) == []
    assert cjkwords.lacked_words("安全复查多久一次", normalize("安全评价每十年一次")) == ["复查"]
