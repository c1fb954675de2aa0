"""A Markdown or text note's highlight lands on the list item or sentence that answers (``locate.units``).

A tight list ("- a\\n- b\\n- c", no blank lines) and a note of one sentence a line are one paragraph each; the
citation's highlight was the first bullet (or "1." alone) and claimed exact while the third answered (nc20b).
The host's real pipeline runs (the testkit's in-process provider hands it each note's own text, as a chunk
quoting the whole note), then the viewer's page of the citation.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mnote_kr_testkit.fakes import fake_host

from mnote_kr.default_plugins.text_locator import clear_cache, load_text, locate
from mnote_kr.models import Citation, LocateRequest
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web, webpages

BULLETS = ("# 读书笔记：跟踪编译（TraceMonkey）\n\n"
           "- 导师建议我把 TraceMonkey 论文作为 JIT 课程报告的主要参考文献。\n"
           "- 我的理解：跟踪树（trace tree）只记录热循环里真正执行的路径，类型不稳定时会退出跟踪。\n"
           "- 组会汇报时间定在十二月十八日下午三点，地点是信息楼 305 会议室。\n")
ROOM = "组会汇报时间定在十二月十八日下午三点，地点是信息楼 305 会议室。"
SENTENCES = ("# 实验记录：表格结构识别\n\n"
             "本周复现 TableFormer，在 PubTabNet 上只跑了 2000 张图片的子集。\n"
             "我的 TEDS 分数是 91.3，比论文报告的数字低一些，原因可能是训练轮数不够。\n"
             "下一步：换成 OTSL 序列表示再比较一次。\n")
SCORE = "我的 TEDS 分数是 91.3，比论文报告的数字低一些，原因可能是训练轮数不够。"
NUMBERED = ("# 待办：水文论文阅读\n\n"
            "1. 精读 Journal of Hydrology 那篇文章的方法部分。\n"
            "2. 记住：我的实验用的流域面积是 1520 平方公里（自己的数据，不是论文里的）。\n"
            "3. 向王老师借用气象站的降水数据，截止日期是一月五日。\n")
PLAIN = ("Lab log, week 12\n\n"
         "Calibrated the flow meter against the reference tank on Monday.\n"
         "The pump ran at 1450 rpm during the whole test.\n"
         "Next week the valve seals will be replaced.\n")


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    clear_cache()
    yield
    clear_cache()


def _workspace(tmp_path: Path, notes: dict[str, str]):
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    for name, text in notes.items():
        (ws / "notes" / name).write_text(text, encoding="utf-8")
    host, _ = fake_host(ws)
    host.roots_add(ws / "notes")
    host.ingest([ws / "notes"])
    return ws, host


def _cited(host, query: str, name: str) -> Citation:
    results = host.search(query, top_k=10).results
    return next(c for c in results if c.source_root_relative_path == f"notes/{name}")


def _marked(path: Path, c: Citation) -> str:
    loc = c.locator
    assert loc.paragraph_index is not None and loc.highlight is not None, loc
    para = load_text(path).paragraphs[loc.paragraph_index].text
    return para[loc.highlight.start:loc.highlight.end]


def _digest(ws: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted((ws / "notes").iterdir())}


def test_a_tight_bullet_list_marks_the_answering_item_exactly_and_the_viewer_shows_it(tmp_path: Path) -> None:
    ws, host = _workspace(tmp_path, {"reading.md": BULLETS, "lab.md": SENTENCES})
    before = _digest(ws)
    c = _cited(host, "组会汇报在哪个会议室？", "reading.md")
    assert _marked(ws / "notes" / "reading.md", c) == ROOM
    assert c.locator.locator_precision == "paragraph" and not c.locator.locator_degraded, c.locator.reason
    with ApiServer(host, write_token_file=False) as server, \
            httpx.Client(base_url=server.url, timeout=30) as client:
        assert client.get(web.entry_url(server)).status_code == 303
        page = client.get(webpages.view_url(c.citation_id))
    assert page.status_code == 200, page.text
    marks = re.findall(r'<mark class="hl"[^>]*>(.*?)</mark>', page.text, re.S)
    assert [html.unescape(m) for m in marks] == [ROOM]
    assert _digest(ws) == before  # the notes are read, never written


def test_a_note_of_one_sentence_a_line_marks_the_sentence_that_answers(tmp_path: Path) -> None:
    ws, host = _workspace(tmp_path, {"lab.md": SENTENCES, "reading.md": BULLETS})
    c = _cited(host, "我复现的 TEDS 分数是多少？", "lab.md")
    assert _marked(ws / "notes" / "lab.md", c) == SCORE
    assert not c.locator.locator_degraded, c.locator.reason


def test_a_numbered_list_never_marks_its_marker_and_an_item_lacking_the_asked_words_is_approximate(
        tmp_path: Path) -> None:
    ws, host = _workspace(tmp_path, {"todo.md": NUMBERED, "reading.md": BULLETS})
    path = ws / "notes" / "todo.md"
    query = "水文论文用了哪几个国家的多少个流域的数据？"
    # the locator hook the host calls, with the chunk quoting the whole note (a LightRAG sidecar confirms the
    # paragraph; the testkit's provider writes none, so the host makes an approximate paragraph the file)
    loc = locate(LocateRequest(file=str(path), evidence=NUMBERED, query=query, passage=NUMBERED))
    assert loc.paragraph_index == 1 and loc.highlight is not None
    para = load_text(path).paragraphs[1].text
    # the item holding most of the query's words, without its "2." marker
    item = "记住：我的实验用的流域面积是 1520 平方公里（自己的数据，不是论文里的）。"
    assert para[loc.highlight.start:loc.highlight.end] == item
    # the note holds no word for 国家 (countries): it does not answer, whatever it shares
    assert loc.locator_degraded and "国家" in loc.reason, loc.reason
    assert _cited(host, query, "todo.md").locator.locator_degraded


def test_a_plain_text_paragraph_marks_its_answering_line(tmp_path: Path) -> None:
    ws, host = _workspace(tmp_path, {"log.txt": PLAIN, "reading.md": BULLETS})
    c = _cited(host, "At what rpm did the pump run during the test?", "log.txt")
    # a block of one-line entries is a paragraph per line (text_locator._entries): the answering line is the place,
    # marked by the matcher's span as a one-sentence paragraph is (units: its words, not the full stop)
    assert load_text(ws / "notes" / "log.txt").paragraphs[c.locator.paragraph_index or 0].text == (
        "The pump ran at 1450 rpm during the whole test.")
    assert _marked(ws / "notes" / "log.txt", c) == "The pump ran at 1450 rpm during the whole test"
    assert not c.locator.locator_degraded, c.locator.reason
