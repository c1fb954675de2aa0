"""A located paragraph's ``displayQuote`` reads as the document does: one paragraph, whole sentences.

The chunks are LightRAG's own, recorded from the retrieval benchmark's run over
``tests/data/corpus`` (``chatchat__核电厂定期安全审查指南 第1部分``: chunk 3, cut by its token window at
both ends; ``第12部分：设计``: a run of numbered list items). The paragraphs are the DOCX's, as the
locator's reader reads them from the corpus file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.docx_docs import DocxBuilder

from mnote_kr.citations import pipeline
from mnote_kr.citations.cleaning import clean_citation_text
from mnote_kr.citations.cleaning.quote import paragraph_quote, sentences
from mnote_kr.models import Locator
from mnote_kr.plugins import load_plugins
from mnote_kr_docx_locator.reader import parse_file

PART1 = CORPUS / "docx" / "chatchat__核电厂定期安全审查指南 第1部分：通用要求（征求意见稿）.docx"
PART12 = CORPUS / "docx" / "chatchat__核电厂定期安全评价 第12部分：设计（征求意见稿20230317）.docx"
STRESS023 = CORPUS / "docx" / "poi__stress023.docx"
BANGALORE = CORPUS / "docx" / "khoj__bangalore.docx"

#: LightRAG's chunk 3 of PART1: starts inside "要素" and ends inside "高于现行安全标准".
PART1_CHUNK = (
    "素定期安全评价工作的具体实施。《核电厂定期安全评价》由15个部分组成，除通用要求外，每一部分对应于HAD103/11"
    "规定的一个安全要素，分别给出了每一要素评价的实施指南。\n"
    "《核电厂定期安全评价 第1部分：通用要求》为上述15项标准之一，"
    "可为核电厂定期安全评价策划与准备、评价执行等各阶段的工作提供指导。\n\n# 核电厂定期安全评价 第1部分：通用要求\n\n"
    "## 1\u3000 范围\n本部分规定了核电厂定期安全评价的策划准备、评价执行等各阶段的工作内容和方法。\n"
    "本部分适用于核电厂的定期安全评价。本部分规定的内容以压水堆核电厂为例，其他堆型核电厂可参照使用。\n\n"
    "## 2\u3000 规范性引用文件\n本文件没有规范性引用文件。\n\n## 3\u3000 术语和定义\n下列术语和定义适用于本标准。\n"
    "定期安全评价 periodic safety review\n以规定的时间间隔对运行核电厂的安全性进行的系统性的再评价，以应对老化、修改、"
    "运行经验、技术更新和厂址方面的积累效应，目的是确保核电厂在整个运行寿期内具有高的安全水平。\n总体评价 global "
    "assessment\n对在定期安全评价的全部安全要素评价中发现的所有未解决的弱项、纠正行动和安全改进以及核电厂的强项进行平衡"
    "考虑之后对核电厂安全作出的综合评价。\n差异项 difference\n电厂现状与安全基准、现行安全标准或实践之间存在的不一致，"
    "包含强项和弱项。强项是指高于现行安全"
)
#: Part of LightRAG's chunk of PART12 over 6.3.2.3 (numbered list items, each a paragraph of its own).
PART12_CHUNK = (
    "e) 整理SSCs安全分级相关的差异项。\n\n##### 6.3.2.3\u3000 设计修改评价\n设计修改评价方法如下：\n"
    "a) 审查安全重要SSCs的修改，评价设计修改技术方案是否满足安全基准要求；\nb) 评价修改实施后安全风险是否消除；\n"
    "c) 审查修改实施后受影响的设计文件是否已及时正确升版；\n"
    "d) 对于电厂计划实施的修改，审查电厂是否在修改前采取必要的运维措施对潜在的风险进行控制。\n\n"
    "##### 6.3.2.4\u3000 安全基准和现行安全标准的符合性审查\n新旧安全标准符合性评价方法如下：\n"
)


@pytest.fixture(scope="module")
def docs() -> dict[Path, list[str]]:
    """The paragraphs' texts of the corpus files, read as the DOCX locator reads them; nothing written."""
    out = {}
    for path in (PART1, PART12, STRESS023, BANGALORE):
        before = (path.stat().st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
        out[path] = [p.text for p in parse_file(str(path), os.stat(path)).paragraphs]
        assert (path.stat().st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest()) == before
    return out


def _paragraph(docs: dict[Path, list[str]], path: Path, opening: str) -> str:
    found = [t for t in docs[path] if " ".join(t.split()).startswith(" ".join(opening.split()))]
    assert len(found) == 1, (opening, len(found))
    return found[0]


def _shown(chunk: str, place: str, query: str, headings: list[str] | None = None) -> tuple[str, str | None]:
    """The quote the pipeline shows for a DOCX paragraph located in ``chunk`` (as ``build_citations``)."""
    pipeline.clear_memos()
    plugins = load_plugins({"provider": "lightrag", "locators": {}, "disabled_plugins": []})
    bundle = pipeline._clean(plugins, chunk, query, None)
    locator = Locator(locator_precision="paragraph", paragraph_index=1, place_text=place, place_headings=headings)
    context = pipeline._display_quote(plugins, bundle, chunk, query, None, locator)
    return pipeline._place_quote(plugins, locator, context, query)


def test_a_paragraph_the_chunk_cut_short_is_quoted_whole_from_the_file(docs: dict[Path, list[str]]) -> None:
    """The chunk ends inside "强项是指高于现行安全标准": the quote is the paragraph's own sentences, not the
    chunk's cut copy, and the term line before it ("差异项 difference") is not run into it."""
    place = _paragraph(docs, PART1, "电厂现状与安全基准")
    quote, own = _shown(PART1_CHUNK, place, "强项是指什么")
    assert quote == place.strip()
    assert quote.endswith("。") and not quote.endswith("高于现行安全")
    assert own is None  # the paragraph is the passage's (rawQuote stays the chunk)
    for s, e in sentences(quote):  # whole sentences of the paragraph
        assert quote[s:e] in place


def test_a_paragraph_the_chunk_starts_inside_is_never_quoted_from_mid_word(docs: dict[Path, list[str]]) -> None:
    place = _paragraph(docs, PART1, "HAF103和HAD103/11虽提出了")
    assert "要素定期安全评价工作的具体实施" in place  # the chunk's "素定期..." is the end of this paragraph
    quote, own = _shown(PART1_CHUNK, place, "定期安全评价工作的具体实施")
    assert not quote.startswith("素") and quote in place and own is None
    s, e = sentences(place)[-1]
    assert place[s:e] in quote  # the answering sentence, whole


def test_a_heading_is_not_glued_to_the_paragraph_after_it(docs: dict[Path, list[str]]) -> None:
    """The chunk reads "## 3　 术语和定义\\n下列术语..."; the quote is that one paragraph."""
    place = _paragraph(docs, PART1, "下列术语和定义适用于本标准")
    quote, _ = _shown(PART1_CHUNK, place, "术语和定义")
    assert quote == "下列术语和定义适用于本标准。"


def test_a_paragraph_the_chunk_holds_whole_is_quoted_in_the_chunks_words(docs: dict[Path, list[str]]) -> None:
    """Inside the chunk, the paragraph is read there (the chunk's cleaned words), bounded by it:
    neither the term line before it nor the next term run in."""
    place = _paragraph(docs, PART1, "以规定的时间间隔对运行核电厂")
    context = clean_citation_text(PART1_CHUNK, "定期安全评价").display_quote
    quote = paragraph_quote(context, place, "定期安全评价")
    assert quote == place.strip()
    assert paragraph_quote(context, _paragraph(docs, PART1, "本部分规定了核电厂定期"), "范围") == \
        "本部分规定了核电厂定期安全评价的策划准备、评价执行等各阶段的工作内容和方法。"
    # a paragraph outside the chunk is not read there
    assert paragraph_quote(context, _paragraph(docs, PART1, "本文件采用下列缩略语"), "缩略语") is None


def test_a_list_items_number_is_shown_with_its_own_item(docs: dict[Path, list[str]]) -> None:
    """Automatic numbering: the chunk shows "c)" before its item; the quote keeps it there, and the
    next item's "d)" does not hang off its end."""
    place = _paragraph(docs, PART12, "审查修改实施后受影响的设计文件")
    quote, _ = _shown(PART12_CHUNK, place, "设计文件升版")
    assert quote == "c) " + place.strip()
    first = _paragraph(docs, PART12, "审查安全重要SSCs的修改")
    quote, _ = _shown(PART12_CHUNK, first, "设计修改技术方案")
    assert quote.startswith("a) 审查安全重要SSCs") and quote.endswith("满足安全基准要求；")
    # a closing parenthesis of a reference is no list marker
    assert paragraph_quote("as the law (ibid. 386) Kant would say it now.", "Kant would say it now.", "") == \
        "Kant would say it now."


def test_a_list_number_opens_its_item_and_never_ends_a_quote(docs: dict[Path, list[str]]) -> None:
    """"1.    Notwithstanding ..." (a paragraph numbered by hand) was quoted as "1."; after a colon,
    "include: 1." left the number on the sentence before its item."""
    place = _paragraph(docs, STRESS023, "1.    Notwithstanding the above")
    spans = sentences(" ".join(place.split()))
    assert " ".join(place.split())[slice(*spans[0])].startswith("1. Notwithstanding the above")
    quote, _ = _shown(place, place, "what should you bring to protect yourself from the sun")
    assert quote.startswith("1. Notwithstanding") and quote != "1."
    text = "Some of these transformative features include: 1. Undo/Redo: Introduced in the 1980s. 2. Spell check."
    assert [text[a:b] for a, b in sentences(text)] == [
        "Some of these transformative features include:", "1. Undo/Redo: Introduced in the 1980s.", "2. Spell check."]


def test_footnote_marks_end_their_sentence_and_a_page_number_stays_with_its_p(docs: dict[Path, list[str]]) -> None:
    place = _paragraph(docs, BANGALORE, "The Bangalore fort was captured by British forces")
    text = " ".join(place.split())
    got = [text[a:b] for a, b in sentences(text)]
    assert got[0].endswith("against Tipu Sultan.[48]") and got[1].startswith("Following Tipu's death")
    text = "the categorical imperative would tell us how this law shall be valid for us. (Rawls (2002) p. 230) Kant"
    assert [text[a:b] for a, b in sentences(text)][-1] == "(Rawls (2002) p. 230) Kant"


def test_a_time_or_a_verse_before_a_full_stop_is_no_list_number() -> None:


    text = "The meeting starts at 10:30. Bring the signed forms. Read John 3:16. Then the list: 1. Coffee."
    said = [text[a:b] for a, b in sentences(text)]
    assert said[:3] == ["The meeting starts at 10:30.", "Bring the signed forms.", "Read John 3:16."], said
    assert said[-1] == "1. Coffee."  # a list's number after a colon and a space still starts its item


def test_a_paragraph_opening_with_the_words_of_the_one_before_is_quoted_alone() -> None:
    before = "The Supplier shall ensure that the goods are packed."
    para = ("The Supplier shall ensure that the goods are packed safely in crates of wood and labelled with the "
            "order number and the name of the buyer before dispatch from the warehouse.")
    chunk = f"Delivery terms. {before} {para} Payment follows within 30 days."
    assert paragraph_quote(chunk, para, "how are the goods labelled") == para


def test_a_list_number_after_a_heading_or_an_item_without_a_full_stop_stays_in_the_quote(tmp_path: Path) -> None:
    """Word numbers the items of "Setup steps" itself; LightRAG's chunk writes each number before its
    item, and the cleaned chunk runs the heading line, or the item before (no full stop), into it."""
    b = DocxBuilder()
    b.heading("Guide")
    b.heading("Setup steps", level=2)
    b.list_item("Download the archive from the project site", ordered=True)
    at = b.list_item("Install the package with pip and restart the shell", ordered=True)
    b.list_item("Run the tests", ordered=True)
    path = tmp_path / "guide.docx"
    path.write_bytes(b.build())
    para = parse_file(str(path), os.stat(path)).paragraphs[at]
    place, headings = para.text, list(para.heading_path)
    assert headings == ["Guide", "Setup steps"] and not place.startswith("2")  # the number is Word's
    query = "how do I install the package"
    items = ["Download the archive from the project site", place, "Run the tests"]
    for chunk, number in [
        ("## Setup steps\n" + "\n".join(f"{n}) {t}" for n, t in enumerate(items, 1)), "2)"),
        ("## Setup steps\n\n" + "\n".join(f"{n}. {t}" for n, t in enumerate(items, 1)), "2."),
        (f"# Guide\n\n## Setup steps\n2) {place}\n3) Run the tests", "2)"),  # the chunk starts at item 2
    ]:
        assert _shown(chunk, place, query, headings)[0] == f"{number} {place}", chunk
    # no number is taken from a sentence before the paragraph that is neither its heading nor its list
    assert paragraph_quote(f"Setup differs in release 2) {place}", place, query, headings=headings) == place
    assert paragraph_quote(f"Notes 1) {place}", place, query, headings=headings) == place


#: LightRAG's chunk of ``poi__stress009.docx`` over its 技术规格 list (recorded from the newcomer's index, nc23b
#: problem 5): each item a paragraph of the file, none ending with a full stop.
STRESS009_CHUNK = (
    "机械运动完全静音，杜绝了传统硬盘带来的运行噪声。\n\n### 技术规格\n\uf0b7 传输接口\no 工业标准IDE/ATA总线接口\n"
    "o 16位宽主机接口\n\uf0b7 设备功能\no 写保护跳线\no 主/从设备切换跳线\no 电源指示灯\no 读写状态指示灯\n"
    "o IDE标准数据传输接口\no 软驱标准供电接口\n\uf0b7 产品尺寸\no 长：5cm\no 宽：5cm\no 高：0.9cm\n\uf0b7 电源管理\n"
    "o 3.3V 低电压供电\n\uf0b7 数据安全\no 内置ECC(Error Correction Code)纠错功能\n"
    "o 数据写保护功能，可通过跳线禁止数据写入"
)
STRESS009_HEADINGS = ["NANDrive 微型固态硬盘设计方案", "技术规格"]


def test_a_list_item_that_is_only_the_query_is_quoted_alone_not_with_the_items_after_it() -> None:
    """nc23b problem 5: ``search "写保护跳线"`` cited the list item of that name (right place) and quoted it with about
    twenty items after it, up to "内置ECC": the quote of a heading that is only the query goes on to the first
    sentence after it, and items without full stops made one sentence. An item of the body is its own answer."""
    path = CORPUS / "docx" / "poi__stress009.docx"
    item = next(p.text for p in parse_file(str(path), os.stat(path)).paragraphs if p.text.strip() == "写保护跳线")
    shown, _own = _shown(STRESS009_CHUNK, item, "写保护跳线", STRESS009_HEADINGS)
    assert shown.strip() == "写保护跳线", shown
    # the heading of that list, searched by its words, still opens onto what it heads
    shown, _own = _shown(STRESS009_CHUNK, "技术规格", "技术规格", STRESS009_HEADINGS)
    assert shown.startswith("技术规格\n") and "传输接口" in shown, shown
