"""The weak flag in a small or one-language library (``render.weakmore``), replayed on the searches of
``benchmarks/offtopic_small.json`` recorded through a managed engine (``tests/data/ranking/weak_small.json``: every
place the weak rule read, with its library's file count and the counts of the query's words). The off-topic ones are
the newcomers' (nc23b problem 1, nc23a problem 6); each answerable one was asked over the same library."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from mnote_kr.citations.caches import libwords
from mnote_kr.citations.render import weakmore
from mnote_kr.citations.render.noresults import weak_reason
from mnote_kr.models import Citation
from tests.test_weak_variants import place, recorded_place

RECORDED = json.loads((Path(__file__).parent / "data" / "ranking" / "weak_small.json").read_text(encoding="utf-8"))


def search(key: str) -> tuple[list[Citation], str, libwords.LibraryWords]:
    """The recorded search ``key``: its places in the provider's order, its query and its library's word counts."""
    s = RECORDED["searches"][key]
    cites = [recorded_place(c, RECORDED["chunks"][c["chunk"]]) for c in s["read"]]
    return cites, s["q"], libwords.LibraryWords.counts(s["files"], dict(s["df"]))


@pytest.mark.parametrize("key, words, answered", [
    # 学校的年度报告表 over five Chinese files, two holding 报告; 微型固态硬盘的连续读取速度是多少？ over the same files
    # (stress009 alone holds 连续 and 读取, and its place stands out in meaning)
    ("sm_off02", "(报告)", "sm_zh01"),
    # 数据寿命超过10年 once stress009, the file about it, was deleted; 合同一式几份？ over the same files
    ("sm_off03", "(年, 数据)", "sm_zh02"),
])
def test_a_short_query_of_a_small_library_s_common_words_whose_first_place_does_not_stand_out_is_weak(
        key: str, words: str, answered: str) -> None:
    cites, query, lib = search(key)
    assert weak_reason(cites, query) is None  # its words cleared it, and no rule read a small library's counts
    reason = weak_reason(cites, query, lambda: lib)
    assert reason is not None and reason.startswith("in this small library") and words in reason
    cites, query, lib = search(answered)
    assert weak_reason(cites, query, lambda: lib) is None


def test_the_small_library_rule_needs_the_first_place_no_closer_than_the_rest_and_a_small_library() -> None:
    cites, query, lib = search("sm_off02")
    assert weak_reason(cites, query, lambda: lib) is not None
    first = cites[0].locator.meaning_score
    assert first is not None
    close = msgspec.structs.replace(cites[0].locator, meaning_score=first + weakmore.SMALL_GAP + 0.01)
    assert weak_reason([msgspec.structs.replace(cites[0], locator=close), *cites[1:]], query, lambda: lib) is None
    # the same counts in a library of two files judge nothing
    assert weak_reason(cites, query, lambda: libwords.LibraryWords.counts(2, lib.df)) is None


def test_most_of_an_english_query_s_words_in_no_file_is_weak_and_an_answer_in_the_same_paper_is_not() -> None:
    cites, query, lib = search("sm_off04")  # "pine plantations, glacier melt, Himalayas": demo1 is on pine plantations
    assert weak_reason(cites, query, lambda: lib) is not None
    assert "(glacier, Himalayas, melt) are in no file" in (weak_reason(cites, query, lambda: lib) or "")
    cites, query, lib = search("sm_en02")  # how does afforestation change the number of zero flow days?
    assert weak_reason(cites, query, lambda: lib) is None
    # with one of those words held by a file, fewer than half are missing: its words clear it again
    cites, query, lib = search("sm_off04")
    held = weak_reason(cites, query, lambda: libwords.LibraryWords.counts(lib.files, {**lib.df, "melt": 1})) or ""
    assert "are in no file" not in held
    # (Himalayas, a name no file holds, still says it weak: ``weakabsent.name_absent``)
    assert held.startswith("the query asks about Himalayas, which no file")


def test_an_english_query_over_chinese_files_saying_none_of_its_words_is_weak() -> None:
    cites, query, _ = search("sm_off01")  # Knowles v. Mirzayance over the Chinese standards: every passage Chinese
    reason = weak_reason(cites, query)
    assert reason is not None and "another script" in reason
    # an English question they answer says its words in Chinese there (定期安全评价 "periodic safety review")
    cites, query, _ = search("sm_en01")
    assert weak_reason(cites, query) is None


def test_words_held_only_by_a_reference_list_do_not_clear_a_query() -> None:
    entry = place("r1", "Fahey, B., Jackson, R., 1997. Hydrological impacts of converting native forests and "
                       "grasslands to pine plantations, South Island, New Zealand. Agric. For. Meteorol. 84, 69-82.",
                 "kb/paper.pdf", lexical=0.18, apparatus=-0.3)
    other = place("r2", "Streamflow was gauged at ten catchments.", "kb/paper.pdf")
    query = "pine plantations on glacier melt in the Himalayas"
    reason = weak_reason([entry, other], query)
    assert reason is not None and "only in lists of sources" in reason
    # held by a passage that is no list of sources, they clear it
    body = msgspec.structs.replace(entry, diagnostics=msgspec.structs.replace(
        entry.diagnostics, score_parts={"provider": 1.0, "lexical": 0.18}))
    assert weak_reason([body, other], query) is None
    # a query about the references themselves is answered there
    assert weak_reason([entry, other], "which reference is on pine plantations, glacier melt, Himalayas") is None
