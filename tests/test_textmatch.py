"""The shared evidence matcher (``mnote_kr.citations.locate.textmatch``) on small synthetic documents."""

from __future__ import annotations

import pytest

from mnote_kr.citations.locate.textmatch import (
    THRESHOLD,
    Scope,
    TextDocument,
    TextParagraph,
    match_evidence,
    normalize,
    query_occurrences,
    sections_under,
    shingles,
    standalone_occurrence,
    token_set,
)

FILLER = [
    "本章介绍实验的总体安排，包括人员分工和时间计划。",
    "The weather during the field campaign was mostly dry and windy.",
    "所有样品在收到后立即编号并冷藏保存，直到分析为止。",
    "Safety briefings were held every Monday morning before work started.",
]


def _doc(*texts: str, toc: tuple[int, ...] = (), headings: dict[int, int] | None = None) -> TextDocument[TextParagraph]:
    headings = headings or {}
    path: list[tuple[int, str]] = []
    paras = []
    for i, text in enumerate(texts):
        level = headings.get(i, 0)
        if level:
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, text))
        paras.append(
            TextParagraph(
                index=i,
                text=text,
                heading_path=tuple(h for _, h in path),
                heading_level=level,
                in_toc=i in toc,
            )
        )
    return TextDocument(paras)


def test_normalize_keeps_one_character_per_input_character() -> None:
    text = "Ｆｕｌｌ宽度 ﬁle Ⅻ ①"
    norm = normalize(text)
    assert len(norm) == len(text)
    assert norm.startswith("full宽度")


def test_cjk_tokens_are_bigrams_and_latin_words_are_whole() -> None:
    assert token_set("吡咯烷 nmp") == frozenset({"吡咯", "咯烷", "nmp"})
    assert token_set("酮") == frozenset({"酮"})
    assert shingles("吡咯烷是一种") != shingles("一种是吡咯烷")


def test_paragraph_index_must_equal_list_position() -> None:
    with pytest.raises(ValueError, match="index must equal list position"):
        TextDocument([TextParagraph(index=1, text="a")])


def test_short_cjk_query_does_not_jump_to_longer_word_that_contains_it() -> None:
    doc = _doc(
        FILLER[0],
        "反应在N-甲基吡咯烷酮中进行，温度保持在八十度。",
        FILLER[2],
        "随后加入吡咯烷并在室温搅拌过夜，得到粗产物。",
        FILLER[1],
    )
    m = match_evidence(doc, "随后加入吡咯烷并在室温搅拌过夜", "吡咯烷")
    assert m.paragraph is not None and m.paragraph.index == 3
    assert m.score >= THRESHOLD
    assert m.highlight is not None
    start, end = m.highlight
    assert "吡咯烷" in doc.paragraphs[3].text[start:end]


def test_toc_line_loses_to_the_heading_and_body_it_names() -> None:
    doc = _doc(
        "目录",
        "3 电解液添加剂的筛选\t12",
        FILLER[0],
        "电解液添加剂的筛选",
        "我们比较了六种电解液添加剂，在四十五度循环五百次后容量保持率最高的是第三种。",
        FILLER[2],
        toc=(1,),
        headings={0: 1, 3: 1},
    )
    m = match_evidence(doc, "电解液添加剂的筛选", "电解液添加剂的筛选")
    assert m.paragraph is not None and m.paragraph.index == 3
    evidence = "# 电解液添加剂的筛选\n我们比较了六种电解液添加剂，在四十五度循环五百次后"
    body = match_evidence(doc, evidence, "电解液添加剂")
    assert body.paragraph is not None and body.paragraph.index == 4


def test_toc_only_document_is_not_a_confident_match() -> None:
    doc = _doc("1 引言\t1", "2 电解液添加剂的筛选\t12", "3 结论\t30", toc=(0, 1, 2))
    m = match_evidence(doc, "电解液添加剂的筛选", "")
    assert m.paragraph is None and m.score < THRESHOLD


def test_evidence_from_another_document_gives_no_paragraph() -> None:
    doc = _doc(*FILLER)
    m = match_evidence(doc, "量子点发光二极管的外量子效率在本工作中提高到百分之二十", "量子点")
    assert m.paragraph is None
    assert m.reason in ("no paragraph above confidence threshold", "no paragraph shares a word with the evidence")


def test_bag_of_the_same_words_is_not_a_verbatim_quote() -> None:
    doc = _doc(*FILLER, "the rotor blade was inspected after the storm by the night crew")
    m = match_evidence(doc, "crew night the by storm the after inspected was blade rotor the", "")
    verbatim = match_evidence(doc, "the rotor blade was inspected after the storm by the night crew", "")
    assert verbatim.paragraph is not None and verbatim.score == 1.0
    assert m.paragraph is None or m.score < verbatim.score


def test_scope_prefers_paragraphs_inside_the_given_ranges() -> None:
    same = "样品在八十度下干燥十二小时，然后称重并记录。"
    doc = _doc(FILLER[0], same, FILLER[1], FILLER[2], same, FILLER[3])
    assert match_evidence(doc, same).paragraph.index == 1  # type: ignore[union-attr]
    scoped = match_evidence(doc, same, scope=Scope(((3, 5),), outside=0.7))
    assert scoped.paragraph is not None and scoped.paragraph.index == 4
    assert 4 in Scope(((3, 5),)) and 2 not in Scope(((3, 5),))


def test_sections_under_runs_to_the_next_heading_of_same_or_higher_level() -> None:
    doc = _doc("A", "a1", "B", "b1", "B.1", "b2", "C", "c1", headings={0: 1, 2: 1, 4: 2, 6: 1})
    assert sections_under(doc, "B") == ((2, 5),)
    assert sections_under(doc, "## B.1") == ((4, 5),)
    assert sections_under(doc, "missing") == ()


def test_latin_query_inside_a_longer_word_weighs_little() -> None:
    assert query_occurrences("subtraction and traction", "traction") == [(3, 0.25), (16, 1.0)]


STANDALONE_CASE = [
    "N-甲基吡咯烷酮 (NMP) 是常用的极性溶剂，涂布后需要在烘箱中除去。",
    "N-甲基吗啉 可作为碱使用，但本项目没有采用。",
    "胺类",
    "吡咯烷 是一种环状仲胺，本项目用它合成新的电解液添加剂，添加量为千分之五。",
]


def test_standalone_occurrence_tells_a_word_from_part_of_a_longer_word() -> None:
    assert standalone_occurrence("吡咯烷 是一种", 0, "吡咯烷")
    assert standalone_occurrence("。吡咯烷是一种", 1, "吡咯烷")  # starts a sentence
    assert not standalone_occurrence("N-甲基吡咯烷酮 (NMP)", 5, "吡咯烷")
    assert not standalone_occurrence("加入吡咯烷并在", 2, "吡咯烷")
    # an evidence window's edges may cut a word: unknown, so not standalone
    assert not standalone_occurrence("吡咯烷酮 是溶剂", 0, "吡咯烷", edges=False)


def test_query_standing_alone_in_evidence_wins_over_occurrence_inside_longer_word() -> None:
    doc = _doc(FILLER[0], *STANDALONE_CASE, FILLER[2], headings={3: 1})
    m = match_evidence(doc, "\n".join(STANDALONE_CASE), "吡咯烷")
    assert m.paragraph is not None and m.paragraph.index == 4
    assert m.highlight is not None and m.highlight[0] == 0
    # the weights: the embedded occurrence counts little once one stands alone
    assert query_occurrences("n-甲基吡咯烷酮 是溶剂。\n吡咯烷 是一种", "吡咯烷") == [(4, 0.25), (14, 1.0)]
    # no standalone occurrence: CJK neighbours are ordinary text, all occurrences count fully
    assert query_occurrences("加入吡咯烷并在吡咯烷酮中", "吡咯烷") == [(2, 1.0), (7, 1.0)]


def test_multi_word_query_not_found_verbatim_picks_the_paragraph_with_its_terms() -> None:
    doc = _doc(
        "This report lists reagents used in the lab.",
        "Amines",
        "Morpholine is stored in the cold room and used as a base.",
        "Pyrrolidine is a cyclic secondary amine; we add five parts per thousand to the electrolyte.",
        "Triethylsilyl protecting groups come off in acid.",
    )
    evidence = "\n".join(p.text for p in doc.paragraphs)  # a whole chunk: every paragraph is quoted
    match = match_evidence(doc, evidence, "pyrrolidine cyclic secondary amine")
    assert match.paragraph is not None and match.paragraph.index == 3
    assert match_evidence(doc, evidence, "morpholine base").paragraph.index == 2


def test_question_in_other_words_lands_on_the_list_item_holding_its_rare_word() -> None:
    # docling's word_sample.docx: a passage of short list items. The question shares one word
    # with the answering item ("sun") and one with the long paragraph above it ("swimming");
    # short items align with no evidence line of their own, yet lie inside the quoted passage.
    doc = _doc(
        "Swimming in the lake",
        "Duck",
        "Figure 1: This is a cute duckling",
        "Let’s swim!",
        "To get started with swimming, first lay down in a water and try not to drown:",
        "You can relax and look around",
        "Paddle about",
        "Enjoy summer warmth",
        "Also, don’t forget:",
        "Wear sunglasses",
        "Don’t forget to drink water",
        "Use sun cream",
        "Hmm, what else…",
        "Let’s eat",
        "After we had a good day of swimming in the lake, it’s important to eat something nice",
    )
    evidence = (
        "Let’s swim!\nTo get started with swimming, first lay down in a water and try not to drown:\n"
        "- You can relax and look around\n- Paddle about\n- Enjoy summer warmth\nAlso, don’t forget:\n"
        "1. Wear sunglasses\n2. Don’t forget to drink water\n3. Use sun cream\nHmm, what else…"
    )
    m = match_evidence(doc, evidence, "what should you bring to protect yourself from the sun when swimming")
    assert m.paragraph is not None and m.paragraph.text == "Use sun cream", m.paragraph and m.paragraph.text
    assert m.reason.startswith("semantic match")


def test_evidence_reading_a_table_row_by_row_is_found_at_its_cell() -> None:
    # each cell is its own paragraph (DOCX), the chunk's evidence reads the rows on one line each: the
    # evidence's word order runs across the cells' ends, and over more paragraphs than a few (nc18c problem 7)
    cells = [str(n) for n in range(1, 31)]
    cells[22] = "23 [Comment (Ann): Yet another comment in the doc. 55yiyi-asd09]"
    lead = ["Failing to address these two questions would limit the framework's scope.",
            "Here is a random table for parsing tests:"]
    doc = _doc(*lead, *cells)
    evidence = "\n".join([lead[1], *(" ".join(cells[r * 6:r * 6 + 6]) for r in range(5))])
    match = match_evidence(doc, evidence, "Yet another comment in the doc")
    assert match.paragraph is not None and match.paragraph.index == 24, (match.score, match.reason)
