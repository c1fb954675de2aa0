"""A question asking what a term is, answered where the text names the term (``text.definitions``).

nc26b Q6 (round 26): "What is the oracle in TraceMonkey?" over ``pdfjs__tracemonkey.pdf`` was cited on p5's block after
the defining sentence ("When compiling loops, we consult the oracle ... Whenever we accidentally compile ...": the
word "oracle" three times), while the block before it ends "... in an advisory data structure which we call the
“oracle”." and was not among the places shown. ``locate.terms`` reads only a standard's term lines; a paper names its
terms in prose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.text.definitions import asked_setting, asked_term, keeps_setting, names_term
from mnote_kr.default_plugins.text_locator import clear_cache, locate
from mnote_kr.models import LocateRequest
from tests.surfaces import one_passage_host

PDF = CORPUS / "pdf" / "pdfjs__tracemonkey.pdf"
QUESTION = "What is the oracle in TraceMonkey?"
#: LightRAG's chunk as nc26b's index held it (its start: the chunk begins inside p5's defining paragraph).
CHUNK = (
    "as been observed\nto sometimes hold non-integer values in an advisory data structure\nwhich we call the "
    "“oracle”.\nWhen compiling loops, we consult the oracle before specializ-\ning values to integers. Speculation "
    "towards integers is performed\nonly if no adverse information is known to the oracle about that\nparticular "
    "variable. Whenever we accidentally compile a loop that\nis type-unstable due to mis-speculation of a "
    "Number-typed vari-\nable, we immediately trigger the recording of a new trace, which\nbased on the now updated "
    "oracle information will start with a dou-\nble value and thus become type stable.\nExtending a tree. Side "
    "exits lead to different paths through\nthe loop, or paths with different types or representations. Thus, to\n"
    "completely cover the loop, the VM must record traces starting at all\nside exits. These traces are recorded "
    "much like root traces: there is\na counter for each side exit, and when the counter reaches a hotness\n"
    "threshold, recording starts."
)


@pytest.mark.parametrize(("question", "names"), [
    (QUESTION, ("oracle in tracemonkey", "oracle")),
    ("What is an elastic stop nut?", ("elastic stop nut",)),
    ("what are trace trees", ("trace trees",)),
    ("What does PSR mean?", ("psr",)),
    ("Define the angle of attack", ("angle of attack", "angle")),
    ("What is meant by tree nesting?", ("tree nesting",)),
    ("什么是迎角？", ("迎角",)),
    ("迎角是什么意思", ("迎角",)),
    ("TraceMonkey中的oracle是什么？", ("tracemonkey中的oracle", "oracle")),
    ("How long must a trustee keep the general ledgers?", ()),  # no definition asked
    ("What is the minimum distance between buildings on the same lot?", ()),  # an attribute's value, no term
    ("What is done about matters the contract does not settle?", ()),
])
def test_the_term_a_question_asks_the_meaning_of(question: str, names: tuple[str, ...]) -> None:
    assert asked_term(question) == names


@pytest.mark.parametrize("text", [
    "in an advisory data structure which we call the “oracle”.",
    "We call this structure the oracle.",
    "a structure known as the oracle keeps them",
    "the structure, referred to as the oracle, keeps them",
    "The oracle is a data structure that records the types observed.",
    "We define the oracle as the set of variables seen to hold doubles.",
    "这种结构称为oracle。",
    "oracle是指一种记录变量类型的数据结构。",
])
def test_a_text_naming_the_term_defines_it(text: str) -> None:
    assert names_term(text, ("oracle in tracemonkey", "oracle"))


@pytest.mark.parametrize("text", [
    "When compiling loops, we consult the oracle before specializing values to integers.",
    "based on the now updated oracle information",
    "The oracle was consulted twice.",  # a sentence about it, no definition
    "we call the oracles of the loop",  # another word
    "an oracle-based analysis",
])
def test_a_text_using_the_term_does_not_define_it(text: str) -> None:
    assert not names_term(text, ("oracle in tracemonkey", "oracle"))


def test_a_pdf_definition_question_is_cited_on_the_block_naming_the_term(tmp_path: Path) -> None:
    h = one_passage_host(tmp_path, PDF, CHUNK)[0]
    (c, *_others) = h.search(QUESTION, top_k=5).results
    assert c.locator.page == 5, (c.locator.page, c.locator.bbox, c.locator.reason)
    assert "which we call the “oracle”" in " ".join((c.display_quote or "").split()), c.display_quote
    assert not c.locator_degraded, c.locator.reason
    # with its cosine, as every place the host orders by meaning
    assert c.locator.meaning_score is not None


NOTE = (
    "# Type speculation\n\n"
    "When compiling loops, we consult the oracle before specializing values to integers. Speculation towards "
    "integers is performed only if no adverse information is known to the oracle about that particular variable. "
    "Whenever we compile a loop that is type-unstable, we record a new trace, which based on the updated oracle "
    "information will start with a double value.\n\n"
    "To obtain a type-stable trace we note that the variable has been observed to sometimes hold non-integer values "
    "in an advisory data structure which we call the oracle.\n"
)


@pytest.fixture
def _fresh() -> Any:
    clear_cache()
    yield
    clear_cache()


@pytest.mark.usefixtures("_fresh")
def test_a_text_definition_question_is_cited_on_the_paragraph_naming_the_term(tmp_path: Path) -> None:
    path = tmp_path / "tracing.md"
    path.write_text(NOTE, encoding="utf-8")
    loc = locate(LocateRequest(file=str(path), evidence=NOTE, query=QUESTION, passage=NOTE))
    assert loc.paragraph_index == 2, (loc.paragraph_index, loc.reason)
    assert not loc.locator_degraded, loc.reason
    # another question about the oracle keeps the paragraph its words choose
    other = locate(LocateRequest(file=str(path), evidence=NOTE, query="When do we consult the oracle?", passage=NOTE))
    assert other.paragraph_index == 1, (other.paragraph_index, other.reason)


ASPIRIN = (
    "# Aspirin\n\n"
    "Aspirin side effects include stomach upset, heartburn and bleeding in the gut. Rarely aspirin causes ringing in "
    "the ears.\n\n"
    "Unwanted reactions to any medicine are called side effects. Tell your doctor about them.\n\n"
    "Store the tablets below 25 degrees.\n"
)


@pytest.mark.parametrize(("question", "setting"), [
    ("What are the side effects of aspirin?", ("aspirin",)),
    ("What is the oracle in TraceMonkey?", ("tracemonkey",)),
    ("Define the angle of attack", ("attack",)),
    ("阿司匹林的副作用是什么？", ("阿司匹林",)),
    ("TraceMonkey中的oracle是什么？", ("tracemonkey",)),
    ("What are side effects?", ()),
    ("How long must a trustee keep the general ledgers?", ()),
])
def test_the_setting_a_term_is_asked_in(question: str, setting: tuple[str, ...]) -> None:
    assert asked_setting(question) == setting


def test_a_move_keeps_the_setting_the_chosen_text_holds() -> None:
    q = "What are the side effects of aspirin?"
    answer, general = ASPIRIN.split("\n\n")[1:3]
    assert not keeps_setting(q, answer, general)  # "aspirin" lost
    assert keeps_setting(q, general, answer)
    assert keeps_setting("What are side effects?", answer, general)  # no setting to lose
    # the paper's subject, written in neither text: the text naming the term may be chosen
    assert keeps_setting("What is the oracle in TraceMonkey?", "we consult the oracle", "which we call the oracle")
    assert not keeps_setting("阿司匹林的副作用是什么？", "阿司匹林的副作用包括胃部不适。", "药物的不良反应称为副作用。")


@pytest.mark.usefixtures("_fresh")
@pytest.mark.parametrize(("question", "index"), [
    ("What are the side effects of aspirin?", 1),  # the setting's paragraph, not the general definition
    ("What are side effects?", 2),  # no setting: the paragraph naming the term
])
def test_a_text_definition_question_of_a_setting_keeps_the_paragraph_holding_it(
        tmp_path: Path, question: str, index: int) -> None:
    path = tmp_path / "aspirin.md"
    path.write_text(ASPIRIN, encoding="utf-8")
    loc = locate(LocateRequest(file=str(path), evidence=ASPIRIN, query=question, passage=ASPIRIN))
    assert loc.paragraph_index == index, (loc.paragraph_index, loc.reason)
