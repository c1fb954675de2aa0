"""The built-in Markdown / plain-text locator (``mnote_kr.default_plugins.text_locator``)."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.data import SAMPLES as SAMPLES_DIR

from mnote_kr.default_plugins import text_locator
from mnote_kr.default_plugins.text_locator import (
    clear_cache,
    load_text,
    locate,
    locator_extensions,
    split_paragraphs,
)
from mnote_kr.errors import DocumentError
from mnote_kr.models import LocateRequest, SidecarBlock, SidecarPosition
from mnote_kr.plugins import load_plugins

REPO = Path(__file__).resolve().parents[1]
SAMPLES = SAMPLES_DIR

NOTES = """# 电解液配方

本文记录电解液配方的试验过程，以及每一步的结论。

N-甲基吡咯烷酮 (NMP) 是常用的极性溶剂，涂布后需要在烘箱中除去。

## 胺类

吡咯烷 是一种环状仲胺，本项目用它合成新的电解液添加剂，
添加量为千分之五。

```bash
# install the toolchain

make build
```

## Results

The cells kept 92% of their capacity after 500 cycles at 45 degrees.
"""


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


def _write(tmp_path: Path, text: str | bytes, name: str = "notes.md") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _loc(path: Path, evidence: str, query: str = "", block: SidecarBlock | None = None):
    return locate(LocateRequest(file=str(path), evidence=evidence, query=query, block=block))


def test_markdown_paragraphs_headings_and_code_fence_split_as_documented() -> None:
    paras = split_paragraphs(NOTES, markdown=True)
    texts = [p.text for p in paras]
    assert texts[0] == "# 电解液配方"
    assert texts[4].startswith("吡咯烷 是一种") and texts[4].endswith("添加量为千分之五。")
    assert texts[5] == "```bash\n# install the toolchain\n\nmake build\n```"  # one paragraph, no heading inside
    assert [p.heading_level for p in paras] == [1, 0, 0, 2, 0, 0, 2, 0]
    assert paras[4].heading_path == ("电解液配方", "胺类")
    assert paras[7].heading_path == ("电解液配方", "Results")
    # .txt: blank lines only, '#' lines are text
    plain = split_paragraphs("# not a heading\nstill the same paragraph\n\nnext", markdown=False)
    assert [p.text for p in plain] == ["# not a heading\nstill the same paragraph", "next"]
    assert [p.heading_level for p in plain] == [0, 0]


def test_setext_heading_and_front_matter() -> None:
    paras = split_paragraphs("---\ntitle: x\n---\n\nTitle\n=====\nbody text here\n", markdown=True)
    assert [(p.text, p.heading_level) for p in paras] == [
        ("---\ntitle: x\n---", 0),
        ("Title\n=====", 1),
        ("body text here", 0),
    ]
    assert paras[2].heading_path == ("Title",)


def test_markdown_locator_finds_cjk_paragraph_with_highlight_in_file_text(tmp_path: Path) -> None:
    path = _write(tmp_path, NOTES)
    loc = _loc(path, "吡咯烷 是一种环状仲胺，本项目用它合成新的电解液添加剂", "吡咯烷")
    assert (loc.locator_precision, loc.locator_degraded, loc.paragraph_index) == ("paragraph", False, 4)
    assert loc.locator_plugin == "text_locator"
    text = load_text(path).paragraphs[4].text
    assert loc.highlight is not None
    assert text[loc.highlight.start : loc.highlight.end].startswith("吡咯烷 是一种环状仲胺")
    en = _loc(path, "kept 92% of their capacity after 500 cycles", "capacity")
    assert en.paragraph_index == 7 and en.highlight is not None


def test_highlight_offsets_are_characters_of_the_file_text_with_crlf(tmp_path: Path) -> None:
    path = _write(tmp_path, NOTES.replace("\n", "\r\n").encode("utf-8"))
    loc = _loc(path, "添加量为千分之五", "千分之五")
    assert loc.paragraph_index == 4 and loc.highlight is not None
    raw = path.read_bytes().decode("utf-8")
    para = load_text(path).paragraphs[4].text
    assert para in raw and "\r\n" in para
    assert "千分之五" in para[loc.highlight.start : loc.highlight.end]


def test_evidence_from_another_document_gives_file_locator(tmp_path: Path) -> None:
    path = _write(tmp_path, NOTES)
    loc = _loc(path, "量子点发光二极管的外量子效率在本工作中提高到百分之二十。", "量子点")
    assert (loc.locator_precision, loc.locator_degraded, loc.paragraph_index, loc.highlight) == (
        "file",
        True,
        None,
        None,
    )


def test_heading_anchor_of_sidecar_block_scopes_to_its_section(tmp_path: Path) -> None:
    same = "每批样品在八十度下干燥十二小时，然后称重并记录在表格中。"
    text = f"# 方法\n\n{same}\n\n# 附录 A\n\n{same}\n\n# 附录 B\n\n其他内容。\n"
    path = _write(tmp_path, text)
    assert _loc(path, same).paragraph_index == 1  # without a block: the first copy
    block = SidecarBlock(
        blockid="b-appendix",
        content=f"# 附录 A\n\n{same}",
        heading="附录 A",
        level=1,
        positions=[SidecarPosition(type="heading", anchor="附录 A")],
    )
    loc = _loc(path, same, block=block)
    assert (loc.locator_precision, loc.paragraph_index, loc.block_id) == ("paragraph", 3, "b-appendix")
    assert "heading section" in (loc.reason or "")


def test_real_lightrag_markdown_sidecar_block(tmp_path: Path) -> None:
    src = SAMPLES / "inputs_used" / "notes.md"
    blocks = (SAMPLES / "sidecars" / "notes.md.parsed" / "notes.blocks.jsonl").read_text(encoding="utf-8")
    rows = [msgspec.json.decode(line) for line in blocks.splitlines() if line.strip()]
    row = next(r for r in rows if r.get("heading") == "中文部分")
    block = msgspec.convert(row, SidecarBlock)
    before = src.read_bytes()
    loc = _loc(src, "西风原型机由隼能源公司设计，测试地点在奥胡斯。", "奥胡斯", block=block)
    assert (loc.locator_precision, loc.paragraph_index, loc.block_id) == ("paragraph", 3, row["blockid"])
    assert src.read_bytes() == before


def test_invalid_utf8_is_decoded_with_replacement_and_still_located(tmp_path: Path) -> None:
    data = b"first paragraph \xff\xfe broken bytes here\n\nthe second paragraph talks about wind turbines\n"
    path = _write(tmp_path, data, name="bad.txt")
    doc = load_text(path)
    assert "\ufffd" in doc.paragraphs[0].text
    loc = _loc(path, "the second paragraph talks about wind turbines", "turbines")
    assert (loc.locator_precision, loc.paragraph_index) == ("paragraph", 1)


def test_huge_file_is_refused_with_document_error(tmp_path: Path) -> None:
    path = tmp_path / "huge.md"
    with path.open("wb") as fh:
        fh.truncate(text_locator.MAX_FILE_BYTES + 1)
    with pytest.raises(DocumentError, match="too large"):
        _loc(path, "anything at all", "x")


def test_missing_file_is_a_document_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="cannot read"):
        _loc(tmp_path / "gone.md", "anything", "x")


def test_cache_reuses_parse_until_file_changes(tmp_path: Path) -> None:
    path = _write(tmp_path, NOTES)
    first = load_text(path)
    assert load_text(path) is first
    assert text_locator.stats == {"parses": 1, "hits": 1}
    path.write_text(NOTES + "\nA new closing paragraph about separators.\n", encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    second = load_text(path)
    assert second is not first and len(second.paragraphs) == len(first.paragraphs) + 1
    assert text_locator.stats["parses"] == 2


def test_other_suffixes_are_not_handled() -> None:
    assert locator_extensions() == [".md", ".markdown", ".txt"]
    assert locate(LocateRequest(file="/nowhere/x.docx", evidence="e", query="q")) is None


def test_host_routes_markdown_and_text_to_the_builtin(tmp_path: Path) -> None:
    plugins = load_plugins({"provider": "lightrag", "locators": {}, "disabled_plugins": []})
    assert plugins.locator_plugin(".md") == "text_locator"
    assert plugins.locator_plugin(".TXT") == "text_locator"
    path = _write(tmp_path, NOTES, name="notes.markdown")
    loc = plugins.locate(LocateRequest(file=str(path), evidence="添加量为千分之五", query="千分之五"))
    assert (loc.locator_plugin, loc.paragraph_index) == ("text_locator", 4)


def test_markdown_query_standing_alone_wins_over_longer_word_in_same_evidence(tmp_path: Path) -> None:
    paras = [
        "N-甲基吡咯烷酮 (NMP) 是常用的极性溶剂，涂布后需要在烘箱中除去。",
        "N-甲基吗啉 可作为碱使用，但本项目没有采用。",
        "## 胺类",
        "吡咯烷 是一种环状仲胺，本项目用它合成新的电解液添加剂，添加量为千分之五。",
    ]
    path = _write(tmp_path, "# 溶剂与胺\n\n" + "\n\n".join(paras) + "\n")
    # the evidence as the cleaning step gives it: heading marks gone, one paragraph a line
    evidence = "\n".join(p.lstrip("# ") for p in paras)
    loc = _loc(path, evidence, "吡咯烷")
    assert (loc.locator_precision, loc.paragraph_index) == ("paragraph", 4)
    assert loc.highlight is not None and loc.highlight.start == 0


TYPEWRITER = """# Word processing

The concept of the word processor grew out of typing machines used in offices for decades.

Christopher Latham Sholes received a patent for the typewriter in 1868, with Glidden and Soule.

Typewriters spread through offices, and typists became a profession of their own.

Electronic typewriters later stored a line of text before printing it.
"""


def test_question_query_lands_on_the_paragraph_holding_its_words_not_the_chunk_start(tmp_path: Path) -> None:
    path = _write(tmp_path, TYPEWRITER)
    # a LightRAG chunk: three whole paragraphs; the answer is the second
    evidence = "\n\n".join(TYPEWRITER.split("\n\n")[1:4])
    loc = _loc(path, evidence, "who patented the typewriter")
    assert loc.locator_precision == "paragraph" and loc.paragraph_index == 2
    para = split_paragraphs(TYPEWRITER)[2].text
    assert loc.highlight is not None and "patent" in para[loc.highlight.start : loc.highlight.end]
    assert "query terms" in (loc.locator_reason or "")
    # the same question in Chinese-free words, any order, still lands there
    assert _loc(path, evidence, "typewriter patent Sholes").paragraph_index == 2


def test_semantic_match_is_cited_but_never_presented_as_an_exact_hit(tmp_path: Path) -> None:
    path = _write(tmp_path, TYPEWRITER)
    evidence = "\n\n".join(TYPEWRITER.split("\n\n")[1:4])
    loc = _loc(path, evidence, "history of mechanical writing inventions")
    assert loc.locator_precision == "paragraph" and loc.paragraph_index in (1, 2, 3)
    assert "semantic match" in (loc.locator_reason or "") and "semantic match" in (loc.reason or "")
    assert loc.locator_degraded  # one rule with the PDF's passage box: an approximate place, said so everywhere


FIELD_LOG = """Field log, northern marsh survey
06:10 arrived at the boardwalk, light fog over the reeds
06:45 a bittern boomed twice from the western reedbed
07:20 counted eleven avocets feeding on the mudflat
08:05 the tide gauge read 1.4 metres, rising
08:40 packed up; the boardwalk's third plank is rotten and needs replacing
"""


def test_a_txt_of_one_line_entries_is_placed_by_line(tmp_path: Path) -> None:
    """nc29a: a .txt of single-newline lines (a log) was one paragraph, cited "paragraph 1" exact with the whole
    file as its quote. A block of lines that each start an entry is a paragraph per line; a hard-wrapped paragraph
    (its lines mostly go on in lower case) stays one."""
    assert [p.text for p in split_paragraphs(FIELD_LOG, markdown=False)] == FIELD_LOG.splitlines()
    wrapped = ("The survey of the marsh began at dawn and\nwent on until the tide turned, when the\nboardwalk "
               "became too slippery to walk on\nand the birds had moved to the mudflat.\n")
    assert [p.text for p in split_paragraphs(wrapped, markdown=False)] == [wrapped.rstrip("\n")]
    assert len(split_paragraphs(FIELD_LOG, markdown=True)) == 1  # Markdown keeps its own rules
    path = _write(tmp_path, FIELD_LOG, name="field_log.txt")
    loc = _loc(path, "08:05 the tide gauge read 1.4 metres, rising 08:40 packed up; the boardwalk's third plank is "
                     "rotten and needs replacing", "which plank is rotten")
    assert (loc.locator_precision, loc.paragraph_index) == ("paragraph", 5), loc
    assert "tide gauge" not in (loc.quote or "")


#: A Chinese paragraph hard-wrapped at 20 characters a line (review30 finding 4: Han has no lower case, so every line of
#: it read as an entry of its own and the evidence across lines 1-2 was cited at line 1 alone).
WRAPPED_ZH = ("固态硬盘在断电时依靠板载电容完成缓存数据的写入，保证\n"
              "写入过程中的数据不会丢失，同时控制器会在下次上电时检\n"
              "查映射表的完整性并修复损坏的条目。\n")
#: English hard-wrapped at 40 columns whose lines go on with a name, a figure and a quoted word (no lower case).
WRAPPED_EN = ("The pump was serviced in the spring by\n"
              "Anders Olsen, who replaced the seals and\n"
              "1450 rpm was confirmed as the speed the\n"
              "\"Aurora\" unit ran at through the test.\n")


@pytest.mark.parametrize("text", [WRAPPED_ZH, WRAPPED_EN], ids=["chinese", "names-and-figures"])
def test_a_hard_wrapped_paragraph_without_lower_case_starts_stays_one_paragraph(text: str) -> None:
    """A line filled to the block's wrap column (the next line's first word would not have fitted after it) goes on
    onto the next line, whatever the script: the block is one paragraph, as a lower-case continuation makes one."""
    assert [p.text for p in split_paragraphs(text, markdown=False)] == [text.rstrip("\n")]


def test_wrapped_chinese_evidence_across_two_lines_is_cited_in_its_paragraph(tmp_path: Path) -> None:
    path = _write(tmp_path, WRAPPED_ZH, name="ssd.txt")
    evidence = "固态硬盘在断电时依靠板载电容完成缓存数据的写入，保证写入过程中的数据不会丢失"
    loc = _loc(path, evidence, "断电时数据会丢失吗")
    assert (loc.locator_precision, loc.paragraph_index) == ("paragraph", 0), loc
    assert loc.highlight is not None and loc.highlight.end > WRAPPED_ZH.index("\n"), loc.highlight


@pytest.mark.parametrize("text", [
    FIELD_LOG,
    # a log in Chinese: each line starts an entry (a time), however full its line
    "巡检记录\n06:10 到达一号泵房，压力表读数正常，阀门无渗漏\n"
    "07:20 二号泵房的电机温度偏高，已通知维修班组检查\n08:05 水位计读数为1.4米\n",
    # one sentence a line, the longest first (its break says nothing: it sets the block's width)
    "Calibrated the flow meter against the reference tank on Monday.\nThe pump ran at 1450 rpm during the whole test.\n"
    "Next week the valve seals will be replaced.\n",
], ids=["field-log", "chinese-log", "sentence-a-line"])
def test_lines_ending_short_of_the_wrap_column_are_entries_in_any_script(text: str) -> None:
    assert [p.text for p in split_paragraphs(text, markdown=False)] == text.splitlines()
