"""A lead-in and the list after it answer together; a paragraph is exact only when it holds the query's words.

A newcomer (round 19) searched "things not to forget when swimming in the lake" over docling's
``word_sample.docx``: the citation was ¶17 "After we had a good day of swimming in the lake, …", claimed
exact though it holds neither "forget" nor "things", and the list that answers, ¶11-14 ("Also, don't
forget:", "Wear sunglasses", "Don't forget to drink water", "Use sun cream"), was nowhere among the places.

``data/lead_in_lists.json``: the newcomer's evidence, chunk and sidecar block (the DOCX locator's request,
recorded from a search through the managed engine), and for the questions written here before the locator
was run on them (the expected place read in the file first) a window of the file's paragraphs as the chunk;
with the query's cosine with those paragraphs (replayed through ``meaning.cosines`` / ``meaning.nearest``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.switches import docx_lead_in_rules_on

from mnote_kr.citations.rank import meaning
from mnote_kr.models import LocateRequest, Locator, SidecarBlock
from mnote_kr_docx_locator import cache as docx_cache
from mnote_kr_docx_locator import locate
from mnote_kr_docx_locator.cache import load_docx


@pytest.fixture(autouse=True)
def _round_19_rules_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules these tests show are off by default: kept tested for the round that mends them."""
    docx_lead_in_rules_on(monkeypatch)


CASES = {c["query"]: c for c in json.loads((Path(__file__).parent / "data" / "lead_in_lists.json").read_text("utf-8"))}
NEWCOMER = "things not to forget when swimming in the lake"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    docx_cache.clear_cache()


def replay(query: str, monkeypatch: pytest.MonkeyPatch) -> Locator:
    case: dict[str, Any] = CASES[query]
    cos = {int(i): c for i, c in case["cosines"].items()}
    monkeypatch.setattr(meaning, "cosines", lambda key, q, idx: {i: cos[i] for i in idx if i in cos})
    monkeypatch.setattr(meaning, "nearest", lambda key, q, k: dict(sorted(cos.items(), key=lambda t: -t[1])[:k]))
    path = CORPUS / "docx" / case["file"]
    before = path.read_bytes()
    block = msgspec.convert(case["block"], SidecarBlock) if "block" in case else None
    if "chunk" in case:
        evidence, chunk = case["evidence"], case["chunk"]
    else:
        lo, hi = case["window"]
        chunk = evidence = "\n".join(p.text for p in load_docx(str(path)).paragraphs[lo:hi] if p.text.strip())
    loc = locate(LocateRequest(file=str(path), evidence=evidence, query=query, passage=chunk, block=block,
                               block_id=block.blockid if block is not None else None))
    assert path.read_bytes() == before
    assert loc is not None
    return loc


def test_the_newcomers_paragraph_without_forget_is_approximate_and_the_list_is_a_place(
        monkeypatch: pytest.MonkeyPatch) -> None:
    loc = replay(NEWCOMER, monkeypatch)
    # ¶17 (index 16) holds "swimming in the lake", not "forget" nor "things": not the exact place
    assert (loc.paragraph_index, loc.locator_precision, loc.locator_degraded) == (16, "paragraph", True), loc.reason
    assert (loc.reason or "").startswith("semantic match"), loc.reason
    # the lead-in with its list (¶11-14) is the first place behind it, quoted with its three items only: the
    # chunk's paragraph outside the sidecar block the evidence lies in ("Let's eat", ¶16-36)
    lead = loc.runners_up[0]
    assert (lead.paragraph_index, lead.locator_degraded) == (10, True)
    assert lead.place_text == "Also, don’t forget:\nWear sunglasses\nDon’t forget to drink water\nUse sun cream"


def test_a_list_item_holding_the_whole_query_answers_alone_and_a_list_ends_with_its_items(
        monkeypatch: pytest.MonkeyPatch) -> None:
    loc = replay("drink water", monkeypatch)
    assert (loc.paragraph_index, loc.locator_degraded) == (12, False), loc.reason
    # the lead-in's place text takes in its Word list, not the paragraph after the list (¶15, "Hmm, what else…")
    from mnote_kr.citations.locate.placing import lead_in_text

    doc = load_docx(str(CORPUS / "docx" / CASES["drink water"]["file"]))
    assert lead_in_text(doc, doc.paragraphs[10]).splitlines() == [
        "Also, don’t forget:", "Wear sunglasses", "Don’t forget to drink water", "Use sun cream"]
    # a lead-in in a format without marked list items keeps the paragraphs up to an empty one, as before
    from mnote_kr.citations.locate.textdoc import TextDocument, TextParagraph

    plain = TextDocument([TextParagraph(index=i, text=t) for i, t in enumerate(
        ["Bring:", "a towel", "a hat", "", "Later text"])])
    assert lead_in_text(plain, plain.paragraphs[0]) == "Bring:\na towel\na hat"


@pytest.mark.parametrize("query, lead_in", [
    # "Practice Tips:" and its items under "3. BANK ACCOUNTS" (the items say "standing trustee"); the
    # evidence's best paragraph, 1076, holds "bank", "account", "trustee" and was cited exact
    ("practice tips for the bank accounts of a standing trustee", 1099),
    # "Practice Tips:" and "Retain records electronically so they can be searched more easily."
    ("tips for retaining records electronically", 1740),
])
def test_a_lead_in_with_its_list_holding_the_query_is_the_exact_place(query: str, lead_in: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    loc = replay(query, monkeypatch)
    assert (loc.paragraph_index, loc.locator_precision, loc.locator_degraded) == (lead_in, "paragraph", False), (
        loc.paragraph_index, loc.reason)
    assert (loc.place_text or "").startswith("Practice Tips:\n")


CONTRACT = "本合同一式四份 省政府采购中心审核编号后生效"


def test_a_form_whose_label_lines_each_end_with_a_colon_is_placed_on_the_sentence_asked_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the old tuning set's zh13, as the engine's search asked the locator (chunk, evidence, sidecar block): the
    # chunk ends in the contract's signature form, ¶16 "法定代表人（授权代表）：" then "地    址：", "开户银行：", ...
    # each a lead-in whose list is the label lines after it; ¶17 is both a lead-in and an item of ¶16's list.
    # The list rule failed here with KeyError: 17 (53 citations of the whole benchmark, round 19)
    loc = replay(CONTRACT, monkeypatch)
    # ¶5 "本合同一式四份，自双方签章并经省政府采购中心审核编号后生效。甲方、乙方、…" (read in the file)
    assert (loc.paragraph_index, loc.locator_precision) == (5, "paragraph"), loc.reason


def test_a_lead_in_holding_none_of_the_query_words_does_not_take_the_place_of_the_item_that_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # tika__017091.docx ¶276 "Normally applicants will be notified ... Your application remains active for one
    # year following rating by the Board" answers; ¶275 "What to Expect Next:" holds none of the question's
    # words, and as the list's place took ¶276's words and meaning and won on document order
    loc = replay("How long does my application remain active following rating by the Board?", monkeypatch)
    assert loc.paragraph_index == 276, (loc.paragraph_index, loc.reason)


def test_an_unmarked_list_ends_where_a_paragraph_leads_in_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # the chatchat 编制说明: ¶48 "理由：……强调了经验反馈要素对设计要素的输入：" is followed by the quote ¶49, then
    # ¶50 "经验反馈要素为设计要素提供的反馈信息包括（不限于）：" with its own Word list (¶51-55); ¶50 is the place
    # asked for, and was folded into ¶48's "list" of the six paragraphs after it
    loc = replay("经验反馈能给设计审查提供哪些信息", monkeypatch)
    assert loc.paragraph_index == 50, (loc.paragraph_index, loc.reason)
    from mnote_kr.citations.locate.leadin import lead_in_items
    from mnote_kr.citations.locate.textdoc import TextDocument, TextParagraph

    # a form's label lines, each ending with a colon, are no list of the line before them
    form = TextDocument([TextParagraph(index=i, text=t) for i, t in enumerate(
        ["Bring:", "a towel", "Address:", "Phone:", "Date:"])])
    assert [p.text for p in lead_in_items(form, form.paragraphs[0])] == ["a towel"]
    assert lead_in_items(form, form.paragraphs[2]) == []
