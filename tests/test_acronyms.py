"""A term the document abbreviates meets its abbreviation at place-ranking time: the file's own definitions
("定期安全评价" listed as "PSR", "angle of attack (AOA)") let a question's full term count for the acronym in a
place's text and the acronym for the full term (``mnote_kr.citations.text.acronyms``). An acronym the file
does not define meets nothing, and the other form alone makes no exact match."""

from __future__ import annotations

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.locate.textdoc import TextDocument, TextParagraph
from mnote_kr.citations.locate.textmatch import QUERY_SHARE
from mnote_kr.citations.text.acronyms import Definition, defined_in
from mnote_kr.citations.text.queryterms import QueryTerms
from mnote_kr.citations.text.textnorm import normalize

PSR_DOCX = CORPUS / "docx" / "chatchat__核电厂定期安全审查指南 第1部分：通用要求（征求意见稿）.docx"
PSR_QUESTION = "核电厂定期安全评价多久开展一次？每次持续多长时间？"
PSR_ANSWER = "PSR通常每10年左右开展一次"


def test_a_file_defines_acronyms_inline_and_in_an_abbreviation_list() -> None:
    texts = [
        "Save it as a Portable Document Format (PDF) file.",
        "图卷积网络（GCN）在节点分类上表现很好。",
        "我们比较了图卷积网络与其他模型。",
        "PSR 定期安全评价",
        "FAA - Federal Aviation Administration",
        "reported by the Office of Management and Budget (OMB) in 2020",
        "and Social Security Administration (SSA) Statement",
        "Large language models (LLMs) answer questions.",
    ]
    assert set(defined_in(texts)) == {
        Definition("PDF", "portable document format", False),
        Definition("GCN", "图卷积网络", True),
        Definition("PSR", "定期安全评价", True),
        Definition("FAA", "federal aviation administration", False),
        Definition("OMB", "office of management and budget", False),
        Definition("SSA", "social security administration", False),
        Definition("LLM", "large language models", False),
    }


@pytest.mark.parametrize("texts", [
    ["the denotation accuracy for all questions (ALL)", "all of them"],  # "all" is a word here too
    ["cell selection accuracy for all sequences (SEQ)"],  # letters inside one word, no capitals spelling it
    ["Redhill (NSW)"],  # letters the words do not hold
    ["本标准所称的（PSR）"],  # "的" is no term of three characters
    ["核电厂PSR通常每10年左右开展一次"],  # used, never defined
])
def test_no_definition_where_the_text_defines_none(texts: list[str]) -> None:
    assert defined_in(texts) == ()


def _psr_document(*, with_list: bool = True) -> TextDocument[TextParagraph]:
    from mnote_kr_docx_locator.cache import load_docx

    texts = [p.text for p in load_docx(PSR_DOCX).paragraphs]
    if not with_list:  # the file without its 缩略语 list: "PSR" is used and never defined
        texts = [t for t in texts if t.strip() != "PSR 定期安全评价"]
    return TextDocument([TextParagraph(index=i, text=t) for i, t in enumerate(texts)])


def test_the_full_term_meets_the_acronym_only_where_the_file_defines_it() -> None:
    doc = _psr_document()
    assert Definition("PSR", "定期安全评价", True) in doc.defined
    answer = next(p for p in doc.paragraphs if PSR_ANSWER in p.text)
    defined = QueryTerms(PSR_QUESTION, doc.df, len(doc.paragraphs), doc.defined)
    plain = QueryTerms(PSR_QUESTION, doc.df, len(doc.paragraphs))
    assert defined.score(answer.norm) > plain.score(answer.norm) + 0.1
    undefined = _psr_document(with_list=False)
    assert not any(d.short == "PSR" for d in undefined.defined)
    qt = QueryTerms(PSR_QUESTION, undefined.df, len(undefined.paragraphs), undefined.defined)
    alone = QueryTerms(PSR_QUESTION, undefined.df, len(undefined.paragraphs))
    assert qt.score(answer.norm) == pytest.approx(alone.score(answer.norm))


def test_the_acronym_alone_is_no_exact_match_but_counts_beside_the_querys_other_words() -> None:
    defined = (Definition("PSR", "定期安全评价", True),)
    df = {"定期": 3, "期安": 3, "安全": 9, "全评": 3, "评价": 9, "大纲": 2}
    place = normalize("PSR大纲是PSR项目团队开展工作的依据。")
    only_term = QueryTerms("定期安全评价", df, 20, defined)
    assert 0 < only_term.score(place) < QUERY_SHARE and not only_term.holds_all(place)
    with_word = QueryTerms("定期安全评价大纲", df, 20, defined)
    assert with_word.holds_all(place)
    assert not QueryTerms("定期安全评价大纲", df, 20).holds_all(place)
    # the other way: the query's acronym meets the full term the place writes
    back = QueryTerms("PSR大纲", {"psr": 5, "大纲": 2}, 20, defined)
    assert back.holds_all(normalize("定期安全评价大纲的一般内容"))


def test_the_paragraph_writing_the_acronym_answers_the_full_term_question() -> None:
    """The newcomer's question over the PSR standard, its passage the paragraphs around the answer (109-124): by
    words and meaning the paragraph naming 定期安全评价 three times (109) led, not the one answering in the
    file's short form (120)."""
    from mnote_kr.citations.locate.placing import with_meaning
    from mnote_kr.citations.locate.textmatch import match_evidence
    from mnote_kr.citations.rank import meaning
    from mnote_kr_docx_locator.cache import load_docx

    meaning._memo.clear()
    doc = load_docx(PSR_DOCX)
    texts = [p.text for p in doc.paragraphs]
    assert meaning.embed_places(texts) is True
    start = next(i for i, t in enumerate(texts) if t.startswith("5.1.5 核电厂不同寿期阶段"))
    passage = "\n\n".join(t for t in texts[start:start + 16] if t.strip())
    placed = with_meaning(doc, match_evidence(doc, passage, PSR_QUESTION), passage, PSR_QUESTION)
    assert placed.paragraph is not None and PSR_ANSWER in placed.paragraph.text, placed


def test_a_pdf_block_writing_the_acronyms_answers_the_full_terms_question() -> None:
    """The Federal Register's 737 MAX notice defines "maneuvering characteristics augmentation system (MCAS)"
    and "angle of attack (or AOA)", then writes the short forms: the block limiting "MCAS activations to one per
    high AOA event" answers the question asked in full words (without the definitions no block held enough of
    its words: the passage was cited for want of one)."""
    from mnote_kr_pdf_bbox import answer
    from mnote_kr_pdf_bbox import blocks as pdf_blocks
    from mnote_kr_pdf_bbox.model import load_document

    doc = load_document(CORPUS / "pdf" / "pdfplumber__federal-register-2020-17221.pdf")
    texts = pdf_blocks.place_texts(doc)
    _, starts = pdf_blocks.places(doc)
    at = next(i for i, t in enumerate(texts) if "limit the number of MCAS activations to one per high AOA" in t)
    blocks = [(pi, n - starts[pi]) for n in range(at - 3, at + 4)
              for pi in range(len(doc.pages)) if starts[pi] <= n < starts[pi + 1]]
    chosen = answer.choose(doc, blocks, "how many maneuvering characteristics augmentation system activations are "
                                        "allowed per high angle of attack event")
    assert chosen.block is not None and starts[chosen.block[0]] + chosen.block[1] == at, chosen
    assert chosen.rule == "terms"
