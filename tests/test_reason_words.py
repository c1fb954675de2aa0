"""A place's reason names as missing only words of the question a reader sees, and never a word the place holds.

nc28b surprise 4, the newcomer's recorded search JSON (``locatorEvidenceText`` and ``rawQuote`` given to the DOCX
locator, the corpus copies of the two files):

- "核安全法第十六条规定了什么" on paragraph 63 of the chatchat 编制说明, which quotes the law's 第十六条 verbatim, said
  ``not “条规”``: the dictionary's left-to-right longest cut (第|十六|条规|定) straddles 第十六条|规定; read from the
  right (第|十六|条|规定) the paragraph holds every word;
- "How many calories per portion do berries have?" said ``not “berries”`` on the Berries row: the words were asked of
  the header row the evidence matched ("Calories per portion"), then the place moved to the row asked about, which
  holds "Berries", and kept the header's reason.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mnote_kr.citations.text import cjkwords
from mnote_kr.citations.text.textnorm import normalize
from mnote_kr.models import LocateRequest
from mnote_kr_docx_locator import locate_docx

CORPUS = Path(__file__).parent / "data" / "corpus" / "docx"
CHATCHAT = "chatchat__行标编制说明（核电厂定期安全审查 第12部分：设计）.docx"

LAW_QUERY = "核安全法第十六条规定了什么"
LAW_EVIDENCE = (
    "五、与现行法律、标准的关系\n2017年发布的《中华人民共和国核安全法》第十六条明确规定：“核设施运营单位应当对核设施"
    "进行定期安全评价，并接受国务院核安全监督管理部门的审查。”\n2004和2022版《核动力厂运行安全规定》（HAF103）都对定期"
    "安全评价提出了明确的要求，在运行许可证有效期内，营运单位必须开展核电厂定期安全评价工作。\n2006年发布的核安全导则"
    "《核动力厂定期安全审查》（HAD103/11，2006），提出了核电厂开展定期安全审查的整体策略、相关单位的组织方式和各自职责、"
    "审查内容和要点、工作步骤等。"
)
BERRIES_QUERY = "How many calories per portion do berries have?"
BERRIES_EVIDENCE = (
    "Let’s eat\nAfter we had a good day of swimming in the lake, it’s important to eat something nice\nI like to eat "
    "leaves\nHere are some interesting things a respectful duck could eat:\nFood Calories per portion\nLeaves Ash, "
    "Elm, Maple 50\nBerries Blueberry, Strawberry, Cranberry 150\nGrain Corn, Buckwheat, Barley 200\nAnd let’s add "
    "another list in the end:\n1. Leaves\n2. Berries\n3. Grain"
)


def _locate(tmp_path: Path, name: str, query: str, evidence: str):
    path = tmp_path / name
    shutil.copyfile(CORPUS / name, path)
    before = path.read_bytes()
    loc = locate_docx(LocateRequest(file=str(path), evidence=evidence, query=query))
    assert path.read_bytes() == before  # the user's file is read, never written
    return loc


def test_a_chinese_word_named_lacking_is_no_cut_straddling_two_words() -> None:
    held = normalize("2017年发布的《中华人民共和国核安全法》第十六条明确规定：“核设施运营单位应当对核设施进行定期"
                     "安全评价”")
    assert cjkwords.lacked_words(LAW_QUERY, held) == []
    # a place really lacking 规定 is told so by that word, never by the cut 条规
    lacking = normalize("《核安全法》第十六条：核设施运营单位应当进行定期安全评价")
    assert cjkwords.lacked_words(LAW_QUERY, lacking) == ["规定"]
    # words both readings agree on are still asked (nc24a)
    assert cjkwords.lacked_words("收益成本分析", normalize("每股收益: 2021: 1.07 营业成本: 2021: 1,038")) == ["分析"]


def test_a_word_starting_with_a_particle_character_is_named_not_the_cut_beside_it() -> None:
    """review r29 finding 1: 了解, 着手, 目的, 过程 start or end with 的地得了着过 like the cut 家的 does; the tie
    between the two readings went to the reading holding the mis-cut (解和, 手下). A particle stands alone only after
    a word it can follow: "如何|了" and "如何|着" are no reader's cut."""
    training = normalize("员工可以通过培训使用安全系统")
    assert cjkwords.lacked_words("员工如何了解和使用安全系统", training) == ["了解"]
    assert cjkwords.lacked_words("员工了解和使用安全系统吗", training) == ["了解"]
    assert cjkwords.lacked_words("如何着手下一阶段的工作", normalize("下一阶段的工作包括")) == ["着手"]
    assert cjkwords.lacked_words("研究过程中发现了什么", normalize("研究中发现")) == ["过程"]
    # a particle after a word it follows stands alone: "讨论|了|解决方案", not 了解 and a lone 决
    assert cjkwords.lacked_words("讨论了解决方案吗", normalize("会议讨论了很多")) == ["解决", "方案"]
    # the cut 家的 stays unnamed (test_markdown_units), as does 条规 (above)
    assert cjkwords.lacked_words("用了哪几个国家的多少个流域的数据", normalize("流域面积的数据")) == ["国家"]


def test_the_law_paragraph_holding_the_question_is_not_said_to_lack_a_cut(tmp_path: Path) -> None:
    loc = _locate(tmp_path, CHATCHAT, LAW_QUERY, LAW_EVIDENCE)
    assert loc.paragraph_index == 63, loc.reason
    assert "条规" not in (loc.reason or "")
    assert loc.locator_degraded is False, loc.reason


def test_the_row_asked_about_is_not_said_to_lack_the_word_it_holds(tmp_path: Path) -> None:
    loc = _locate(tmp_path, "docling__word_sample.docx", BERRIES_QUERY, BERRIES_EVIDENCE)
    assert loc.paragraph_index == 27 and (loc.quote or "").startswith("Berries"), loc.reason
    assert "berries" not in (loc.reason or "").lower()
    assert loc.locator_degraded is False, loc.reason
    assert "the table's row holding the query's words beside its header's" in (loc.reason or "")


def test_the_row_asked_about_still_names_a_word_it_lacks(tmp_path: Path) -> None:
    """The header row's reason is asked again of the row it moved to: a word neither holds stays named."""
    loc = _locate(tmp_path, "docling__word_sample.docx", "How many calories per portion do berries give a duck?",
                  BERRIES_EVIDENCE)
    assert loc.paragraph_index == 27, loc.reason
    assert "berries" not in (loc.reason or "").lower()
    assert "“duck”" in (loc.reason or "") and loc.locator_degraded is True, loc.reason
