"""A quote placed on one bullet of a list carries the sibling bullets the question asks about.

nc17b P10: "when were Sentiers Chelsea and SAFE Chelsea met in May 2020" boxed the bullet "• SAFE Chelsea le
27 mai;" on page 7 of the Chelsea PDF and quoted it alone: "Sentiers Chelsea le 25 mai", the bullet before
it in the same list, was left out. A sibling bullet joins the quote when it holds a word of the question the
placed bullet lacks, or when the question asks for a list ("what were ..."), while the quote fits its limit.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mnote_kr.citations.cleaning.quote import QUOTE_CHARS
from mnote_kr.citations.pipeline import _display_quote, _place_quote
from mnote_kr.models import LocateRequest, Locator
from mnote_kr.plugins import load_plugins

# the chunk's cleaned words around the list (LightRAG's text of page 7, a list's lines run together)
CONTEXT = ("Les premières rencontres ont eu lieu en mai 2020, par le biais d’une plateforme virtuelle afin de "
           "respecter les normes d’hygiène mises en place. Les groupes ci-haut mentionnés ont été rencontrés comme "
           "suit : • Sentiers Chelsea le 25 mai; • SAFE Chelsea le 27 mai; • les deux conseillers responsables du "
           "transport actif le 28 mai; • les membres du Comité consultatif des loisirs les 28 mai et 2 juin. Suite "
           "à ces rencontres, un exercice de recoupement des points en commun a été effectué par l’équipe des "
           "loisirs. Les deuxièmes rencontres ont eu lieu en juin 2020 : • le 17 juin avec SAFE; • le 18 juin avec "
           "Sentiers Chelsea; • le 19 juin avec le Comité des loisirs.")
SAFE = "• SAFE Chelsea le 27 mai;"


def _quote(place: str, query: str) -> str:
    loc = Locator(locator_precision="bbox", page=7, bbox=[72.0, 500.0, 300.0, 512.0], place_text=place + "\n")
    return _place_quote(load_plugins(None), loc, CONTEXT, query)[0]


def test_a_sibling_bullet_holding_the_questions_other_words_joins_the_quote() -> None:
    shown = _quote(SAFE, "when were Sentiers Chelsea and SAFE Chelsea met in May 2020")
    assert shown == "• Sentiers Chelsea le 25 mai; • SAFE Chelsea le 27 mai;", shown


def test_a_question_asking_for_a_list_gets_the_lists_bullets_and_no_more() -> None:
    shown = _quote(SAFE, "what were the meetings held in May 2020")
    assert shown.startswith("• Sentiers Chelsea le 25 mai; • SAFE") and shown.endswith("les 28 mai et 2 juin."), shown
    assert "Suite" not in shown and "17 juin" not in shown and len(shown) <= QUOTE_CHARS  # one list, not the next


def test_a_bullet_that_holds_the_answer_alone_or_no_bullet_is_quoted_as_before() -> None:
    assert _quote(SAFE, "when was SAFE Chelsea met") == SAFE
    assert _quote("• le 18 juin avec Sentiers Chelsea;", "when was Sentiers Chelsea met in June") \
        == "• le 18 juin avec Sentiers Chelsea;"  # its list's other bullets hold none of the question's words


# mineru__test_rearch_report.pdf page 1 as LightRAG's chunk 4 reads it (recorded): the last two bullets of 投资要点,
# then the stock chart's axis labels, the page 2 header and the sidebar's 股票数据, one run of text
REPORT = Path(__file__).resolve().parent / "data" / "corpus" / "pdf" / "mineru__test_rearch_report.pdf"
REPORT_CHUNK = (
    "未来随着\n金刚线扩产和切割技术进步，公司光伏硅片切割代工利润弹性有望持续释放。 \n 盈利预测与投资建议：预计公司 20"
    "22-2024 年归母净利润 4.7、7.2、9.3 亿元，\n对应 PE 30、20、15 倍，维持“增持”评级。 \n"
    " 风险提示：硅片扩产不及预期，公司代工业务利润波动风险，市场竞争加剧。 \n \n-60%-40%-20%0%20%40%6"
    "0%80%100%120%140%160%180%200%220%240%260%280%300%320%340%360"
    "%380%\n2021-07 2021-11 2022-03 2022-07\n高测股份 沪深300\n           "
    "                                        公司点评  高测股份（688556.SH"
    "）  \n                                               2 / 4    "
    "         请务必阅读正文之后的信息披露和法律声明 \n \n  \n[Table_Base] 股票数据 \n \n总股本("
    "百万股)： 227.92 \n流通 A 股(百万股)： 167.01 \n52 周内股价区间(元)： 21.60-97.40"
    " \n总市值(")


def test_a_chinese_bullet_ends_at_its_full_stop_not_at_the_charts_labels_after_it() -> None:
    """nc24a problem 5: the 风险提示 bullet was boxed and its quote ran on through the chart's tick labels and the
    sidebar ("…加剧。 -60%-40%…380% 2021-07 … 股票数据总股本"), with the 盈利预测 bullet before it: a bullet's item
    ended only at a Latin full stop, so the Chinese list ran to the end of the chunk."""
    plugins = load_plugins(None)
    before = hashlib.sha256(REPORT.read_bytes()).digest()
    found = plugins.locate(LocateRequest(file=str(REPORT), evidence=REPORT_CHUNK, query="风险提示 市场竞争",
                                         passage=" ".join(REPORT_CHUNK.split())))
    assert found.page == 1 and found.place_text and "风险提示" in found.place_text, found.locator_reason
    query = "高测股份2024年营业收入预测是多少？"  # the 盈利预测 bullet holds 2024 and 预测: it may join
    bundle = plugins.clean_text(REPORT_CHUNK, query, None)
    context = _display_quote(plugins, bundle, REPORT_CHUNK, query, None, found)  # the page furniture dropped
    shown = _place_quote(plugins, found, context, query)[0]
    assert shown.endswith("市场竞争加剧。") and "风险提示" in shown, shown
    assert not any(stray in shown for stray in ("380%", "2021-07", "沪深300", "股票数据")), shown
    assert hashlib.sha256(REPORT.read_bytes()).digest() == before
