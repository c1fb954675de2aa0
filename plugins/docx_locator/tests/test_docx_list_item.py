"""A which-question whose answer is a list item labelled with the asked words cites that item, not the lead-in
announcing the list.

The real engine's case (nc17c, q13) on the chatchat standard (part 6): "实际状态评价中需要重点关注哪些电气设备？"
matched paragraph 110, the lead-in "…确定评价需重点关注的设备：", claimed exact; the answer is paragraph 115,
"电气设备：发电机、变压器、…". The evidence and chunk are the ones the engine returned.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

DOC = Path(__file__).resolve().parents[3] / "tests" / "data" / "corpus" / "docx" / \
    "chatchat__核电厂定期安全审查指南 第6部分：构筑物、系统和部件的实际状态-（征求意见稿）.docx"
_LIST = ("上述关注的系统包含数量众多的设备、部件，按照如下原则筛选、确定评价需重点关注的设备：\na) 与安全相关的设备；\n"
         "b) 非安全相关的设备，其失效间接影响安全相关的系统和设备执行其安全功能。\n依据设备的特性，将其分为以下几类：\n"
         "a) 机械设备：容器（储罐）、泵、热交换器、阀门、管道、过滤器、节流孔板等；\n"
         "b) 电气设备：发电机、变压器、电动机、电缆及附件、配电盘、电气贯穿件、整流装置、逆变装置、蓄电池等；\n"
         "c) 仪控设备：模拟量传感器、开关量传感器、核测量探测器、开关、继电器、仪控电源、仪控板件等。\n"
         "评价需重点关注的构筑物范围见5.2.2节。\n确定重点关注的构筑物、设备范围后，应关注“重要”的部件。")
EVIDENCE = "5.4 需评价的构筑物、设备\n" + _LIST
PASSAGE = ("评价过程中，核电厂可根据电厂具体需要进行调整。\n\n### 5.4　 需评价的构筑物、设备\n" + _LIST
           + "“重要”指的是其失效影响构筑物、设备执行其功能。\n\n### 5.5　 评价要点\n"
           "构筑物、系统和设备实际状态要素的评价要点包括：")
ITEM = "电气设备：发电机、变压器、电动机、电缆及附件、配电盘、电气贯穿件、整流装置、逆变装置、蓄电池等；"


@pytest.fixture(scope="module")
def plugins():  # type: ignore[no-untyped-def]
    return load_plugins(None)


def _locate(plugins, query: str):  # type: ignore[no-untyped-def]
    return plugins.locate(LocateRequest(file=str(DOC), evidence=EVIDENCE, query=query, passage=PASSAGE))


def test_a_which_question_cites_the_list_item_labelled_with_what_it_asks(plugins) -> None:  # type: ignore[no-untyped-def]
    from mnote_kr.citations import pipeline

    before = hashlib.sha256(DOC.read_bytes()).digest()
    query = "实际状态评价中需要重点关注哪些电气设备？"
    loc = _locate(plugins, query)
    assert (loc.locator_precision, loc.paragraph_index, loc.locator_degraded) == ("paragraph", 115, False), loc.reason
    assert loc.place_text == ITEM
    shown, _ = pipeline._place_quote(plugins, loc, PASSAGE, query)
    assert shown.lstrip("b) ").startswith("电气设备：发电机") and "机械设备" not in shown, shown
    assert hashlib.sha256(DOC.read_bytes()).digest() == before


def test_a_which_question_the_lead_in_answers_keeps_the_lead_in(plugins) -> None:  # type: ignore[no-untyped-def]
    """"哪些设备" asks what the lead-in's criteria list: no item's label (机械设备, 电气设备, 仪控设备) is asked."""
    loc = _locate(plugins, "评价需要重点关注哪些设备？")
    assert loc.paragraph_index == 110, loc.reason


def test_a_question_asking_no_which_keeps_the_lead_in(plugins) -> None:  # type: ignore[no-untyped-def]
    loc = _locate(plugins, "实际状态评价中需要重点关注的电气设备")
    assert loc.paragraph_index == 110, loc.reason
