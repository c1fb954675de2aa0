"""A list item's quote keeps the label Word draws before it ("c)"), even when the chunk it is quoted from opens
at the item's words (nc24c problem 6: behind "a) 机械设备：…", the alternative "仪控设备：…" had lost its "c)").

A DOCX list's labels come from numbering.xml: the paragraph's text has none, LightRAG's parsed text writes them.
A chunk cut right after "c) " holds the item whole, without its label, and a place outside its chunk is quoted in
its own words; the file shows the label, so the quote does."""

from __future__ import annotations

import hashlib

from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.pipeline import _place_quote
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

P6 = next((CORPUS / "docx").glob("chatchat__*第6部分*.docx"))
QUERY = "设备按特性分成哪几类"
ITEM_C = "仪控设备：模拟量传感器、开关量传感器、核测量探测器、开关、继电器、仪控电源、仪控板件等。"
#: the next chunk of P6 as a chunk boundary falls right after "c) ": the item's words, then what follows
CUT = ITEM_C + "评价需重点关注的构筑物范围见5.2.2节。确定重点关注的构筑物、设备范围后，应关注“重要”的部件。"


def test_an_item_quoted_from_a_chunk_opening_at_its_words_keeps_the_label_the_file_shows() -> None:
    before = hashlib.sha256(P6.read_bytes()).digest()
    plugins = load_plugins(None)
    loc = plugins.locate(LocateRequest(file=str(P6), evidence=ITEM_C, query=QUERY))
    assert loc.locator_precision == "paragraph" and loc.place_text == ITEM_C
    # the file's own list: the paragraph is the third item of its list, drawn "c)" by Word
    model = plugins.document_model(str(P6))
    assert model is not None
    items = [p for p in model.paragraphs if p.index in range(loc.paragraph_index - 2, loc.paragraph_index + 1)]
    assert [p.label for p in items] == ["a)", "b)", "c)"]
    quote, _ = _place_quote(plugins, loc, CUT, QUERY, path=str(P6))
    assert quote == "c) " + ITEM_C
    # a place outside the chunk it came with (the file's nearest by meaning, nc24c's "仪控设备" behind the list), quoted
    # in its own words: the chunk is P6's section 5.5, which holds none of it
    other = "5.5 评价要点构筑物、系统和设备实际状态要素的评价要点包括： a) 实际状态和设计文件一致性评价； b) 维修评价；"
    quote, own = _place_quote(plugins, loc, other, QUERY, path=str(P6))
    assert (quote, own) == ("c) " + ITEM_C, ITEM_C)  # the raw quote stays the paragraph's own text
    # a chunk that labels the item itself: labelled once
    quote, _ = _place_quote(plugins, loc, "以下几类： b) 电气设备：发电机等； c) " + CUT, QUERY, path=str(P6))
    assert quote == "c) " + ITEM_C
    assert hashlib.sha256(P6.read_bytes()).digest() == before

