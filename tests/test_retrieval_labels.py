"""The retrieval benchmark's labels and place measures, with no engine (benchmarks/retrieval*.py).

Every label of every question set must name exactly one place in its file, read with the
benchmark's own readers (the DOCX body walk, pypdf page text, pypdfium2 character boxes), never
with the locators under test; the second held-out set must have the shape `benchmarks/retrieval_labels.py`
asks for; place@1 / place@3 / in-view must count what their definitions say.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest
from mnote_kr_testkit.data import CORPUS, REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import retrieval  # noqa: E402
import retrieval_labels as labels  # noqa: E402
import retrieval_times  # noqa: E402

TRACEMONKEY = CORPUS / "pdf" / "pdfjs__tracemonkey.pdf"
# A scanned two-column magazine page: its Chinese OCR text is drawn in a GBK font the PDF does not embed.
MAGAZINE = CORPUS / "pdf" / "mineru__complex_layout.pdf"


def _all_labels() -> list[dict[str, Any]]:
    _, sets = labels.load_sets()
    return [q for qs in sets.values() for q in qs]


@pytest.mark.parametrize("label", _all_labels(), ids=lambda q: f"{q['set']}-{q['id']}")
def test_every_label_names_exactly_one_place(label: dict[str, Any]) -> None:
    place = labels.resolve(label)
    if label["doc"].endswith(".docx"):
        assert len(place["paragraphs"]) == 1 + len(label.get("also", []))
    else:
        assert place["pages"][0] == label["page"]
    if label["set"] in ("heldout2", "tune3", "heldout3", "tune4", "tune5"):
        # The new set states its place outright: a paragraph index, or a page and a block.
        if label["doc"].endswith(".docx"):
            assert place["paragraphs"] == [label["paragraph"]]
        else:
            x0, y0, x1, y1 = place["rect"]
            doc = pdfium.PdfDocument(CORPUS / label["doc"])
            w, h = doc[label["page"] - 1].get_size()
            doc.close()
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h


@pytest.mark.parametrize("name", ["heldout2", "tune3", "heldout3"])
def test_the_block_labelled_sets_have_the_shape_issue_33_asks_for(name: str) -> None:
    files, sets = labels.load_sets()
    qs = sets[name]
    assert len(qs) >= 60
    assert len({q["id"] for q in qs}) == len(qs)
    langs = Counter(q["lang"] for q in qs)
    assert langs["zh"] * 2 >= len(qs) and langs["en"] > 0  # half Chinese
    assert sum(q["wording"] == "other" for q in qs) * 3 >= 2 * len(qs)  # two thirds in other words
    kinds = Counter(Path(q["doc"]).suffix for q in qs)
    assert kinds[".pdf"] >= 20 and kinds[".docx"] >= 20
    assert max(Counter(q["doc"] for q in qs).values()) >= 5  # several per long file
    assert {q["doc"] for q in qs} <= set(files)  # every answering file is ingested
    # Apart from the sets already in use: no question repeated from them.
    older = {q["q"] for other in sets if other != name for q in sets[other]}
    assert not older & {q["q"] for q in qs}


def test_the_tables_set_asks_about_table_cells_by_page_or_paragraph() -> None:
    """The tables set: 30-40 questions, about half Chinese, most in other words, on PDF and DOCX table
    cells; a PDF label names its page and the cell's value, which occurs once on that page (no block:
    a cell's box against a row's block would miss by IoU); no question repeated from another set."""
    files, sets = labels.load_sets()
    qs = sets["tables"]
    assert 30 <= len(qs) <= 40 and len({q["id"] for q in qs}) == len(qs)
    langs = Counter(q["lang"] for q in qs)
    assert abs(langs["zh"] - langs["en"]) <= len(qs) // 5
    assert sum(q["wording"] == "other" for q in qs) * 3 >= 2 * len(qs)
    assert {Path(q["doc"]).suffix for q in qs} == {".pdf", ".docx"} and {q["doc"] for q in qs} <= set(files)
    for q in (q for q in qs if q["doc"].endswith(".pdf")):
        assert "block" not in q
        page = labels.norm(labels.pdf_page_text(CORPUS / q["doc"], q["page"]))
        assert page.count(labels.norm(q["answer"])) == 1, q["id"]
    older = {q["q"] for name in sets if name != "tables" for q in sets[name]}
    assert not older & {q["q"] for q in qs}


def test_the_tune4_set_asks_about_pdf_blocks_of_files_no_other_set_uses() -> None:
    """tune4: 44-50 questions, all labelled with a PDF block, about half Chinese, at least two thirds in
    other words, several on each long file, over files no other set uses; no question repeated."""
    files, sets = labels.load_sets()
    qs = sets["tune4"]
    assert 44 <= len(qs) <= 50 and len({q["id"] for q in qs}) == len(qs)
    langs = Counter(q["lang"] for q in qs)
    assert abs(langs["zh"] - langs["en"]) <= len(qs) // 5
    assert sum(q["wording"] == "other" for q in qs) * 3 >= 2 * len(qs)
    assert all(q["doc"].endswith(".pdf") and set(q["block"]) == {"first", "last"} for q in qs)
    per_file = Counter(q["doc"] for q in qs)
    assert sorted(per_file.values())[-2] >= 10 and set(per_file) <= set(files)
    others = [q for name in sets if name != "tune4" for q in sets[name]]
    # tune5 asks English questions about other blocks of one tune4 scan on purpose (its own test checks the blocks)
    assert not set(per_file) & {q["doc"] for q in others if q["set"] != "tune5"}
    assert not {q["q"] for q in others} & {q["q"] for q in qs}


def _manifest_languages() -> dict[str, str]:
    """Each corpus file's main language, the first of the manifest's ``languages``."""
    import csv

    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8") as f:
        return {row["file"]: row["languages"].split(",")[0] for row in csv.DictReader(f, delimiter="\t")}


def test_the_tune5_set_asks_across_languages_about_places_no_other_set_labels() -> None:
    """tune5: 44-52 questions, most asked in another language than their document's (Chinese about
    non-Chinese files, English about Chinese ones) and in other words sharing no content word with the
    answering text; at least four non-Chinese files no other set uses; its Chinese files only ones the
    tuning sets use (never a held-out set's), asked about at places none of them labels."""
    files, sets = labels.load_sets()
    qs = sets["tune5"]
    assert 44 <= len(qs) <= 52 and len({q["id"] for q in qs}) == len(qs)
    doc_lang = _manifest_languages()
    cross = [q for q in qs if q["lang"] != doc_lang[q["doc"]]]
    assert len(cross) * 4 >= 3 * len(qs)
    assert sum(q["lang"] == "zh" and doc_lang[q["doc"]] != "zh" for q in qs) >= 25
    assert sum(q["lang"] == "en" and doc_lang[q["doc"]] == "zh" for q in qs) >= 8
    other = [q for q in qs if q["wording"] == "other"]
    assert len(other) * 4 >= 3 * len(qs)
    assert [q["id"] for q in other if labels.shared_words(q)] == []
    assert {q["doc"] for q in qs} <= set(files) and max(Counter(q["doc"] for q in qs).values()) >= 8
    foreign = {q["doc"] for q in qs if doc_lang[q["doc"]] != "zh"}
    elsewhere = [q for name in sets if name != "tune5" for q in sets[name]]
    assert len(foreign) >= 4 and not foreign & {q["doc"] for q in elsewhere}
    chinese = {q["doc"] for q in qs} - foreign
    tuning = {"old", "tables", "tune3", "tune4"}
    assert chinese and chinese <= {q["doc"] for q in elsewhere if q["set"] in tuning}
    assert not chinese & {q["doc"] for q in elsewhere if q["set"] not in tuning}
    for q in (q for q in qs if q["doc"] in chinese):
        mine = labels.resolve(q)
        for old in (o for o in elsewhere if o["doc"] == q["doc"]):
            theirs = labels.resolve(old)
            if "rect" in mine and "rect" in theirs:
                assert mine["pages"] != theirs["pages"] or retrieval.iou(mine["rect"], theirs["rect"]) == 0, q["id"]
            else:
                assert mine.get("paragraphs") != theirs.get("paragraphs"), q["id"]
    assert not {q["q"] for q in elsewhere} & {q["q"] for q in qs}


def test_a_page_pdfium_cannot_read_is_read_by_pdfminer_one_column_at_a_time() -> None:
    """PDFium reads none of the magazine page's Chinese (no characters, no boxes); the labels read it
    with pdfminer.six. The OCR layer draws the two columns' lines in turn, so the characters come in
    pdfminer's reading order: a paragraph of the left column is one run, and its rectangle stays in
    that column (the right one starts at x = 271)."""
    text, boxes = labels.pdf_chars(MAGAZINE, 1)
    assert labels.norm("阳阳的身世之谜自此烟消云散。") in text and None not in boxes
    x0, y0, x1, y1 = labels.pdf_block_rect(MAGAZINE, 1, "我当时正在单位忙于应付上级检查",
                                           "一天下大雨，阳阳打电话要我去接他", "我没时间。”")
    assert 40 < x0 < x1 < 265 and 145 < y0 < y1 < 190  # the paragraph's three lines, left column only


def test_a_snippet_in_two_paragraphs_is_refused() -> None:
    # mineru__test.docx repeats this clause in several paragraphs: as a label it names no one place.
    label = {"doc": "docx/mineru__test.docx", "answer": "本合同一式四份，自双方签章并经省政府采购中心审核编号后生效"}
    with pytest.raises(labels.LabelError, match="occurs 3 times"):
        labels.resolve(label)
    with pytest.raises(labels.LabelError, match="labelled 6"):
        labels.resolve({**label, "answer": label["answer"] + "。甲方", "paragraph": 6})


def test_a_block_must_be_one_block_holding_the_answer() -> None:
    ok: dict[str, Any] = {
        "doc": "pdf/pdfjs__tracemonkey.pdf", "page": 10, "answer": "MacBook Pro with 2.2 GHz Core 2 processor",
        "block": {"first": "All experiments were performed on a MacBook Pro", "last": "running MacOS 10.5."}}
    assert labels.resolve(ok)["pages"] == [10]
    with pytest.raises(labels.LabelError, match="block end"):  # "TraceMonkey" occurs many times on the page
        labels.resolve({**ok, "block": {"first": ok["block"]["first"], "last": "TraceMonkey"}})
    with pytest.raises(labels.LabelError, match="not inside the block"):
        labels.resolve({**ok, "answer": "SunSpider consists of 26 short-running"})
    with pytest.raises(labels.LabelError, match="labelled p.9"):
        labels.resolve({**ok, "page": 9})


def test_a_block_rectangle_holds_the_block_and_no_more() -> None:
    """The rectangle, read back through PDFium's bounded-text query (another API than the character
    boxes it was built from), holds exactly the page's text from the block's first to its last words;
    grown by a line above or below, it takes in the neighbouring lines."""
    page, first, last = 10, "All experiments were performed on a MacBook Pro", "running MacOS 10.5."
    x0, y0, x1, y1 = labels.pdf_block_rect(TRACEMONKEY, page, "MacBook Pro", first, last)
    doc = pdfium.PdfDocument(TRACEMONKEY)
    try:
        pg = doc[page - 1]
        top = pg.get_cropbox()[3]
        tp = pg.get_textpage()

        def text_in(ya: float, yb: float) -> str:  # top-left frame -> PDF user space
            return labels.norm(tp.get_text_bounded(x0 - 0.5, top - yb - 0.5, x1 + 0.5, top - ya + 0.5))

        page_text = labels.norm(tp.get_text_range())
        start = page_text.index(labels.norm(first))
        block = page_text[start:page_text.index(labels.norm(last)) + len(labels.norm(last))]
        assert text_in(y0, y1) == block
        assert not text_in(y0 - 12, y1).startswith(block[:20])
        assert not text_in(y0, y1 + 12).endswith(block[-20:])
    finally:
        doc.close()


def _cit(doc: str, **loc: Any) -> dict[str, Any]:
    return {"sourceRootRelativePath": f"docs/{doc}", "locator": loc, "rawQuote": None}


PDF_LABEL = {"id": "p", "set": "heldout2", "lang": "en", "wording": "other", "doc": "pdf/a.pdf", "page": 2,
             "answer": "x"}
PDF_PLACE = {"pages": [2], "rect": [100.0, 100.0, 200.0, 200.0]}
DOCX_LABEL = {"id": "d", "set": "heldout2", "lang": "zh", "wording": "same", "doc": "docx/b.docx", "answer": "y"}
DOCX_PLACE = {"paragraphs": [40]}


def test_pdf_place_is_the_page_and_half_the_block() -> None:
    hit = retrieval.place_hit
    assert hit({"page": 2, "bbox": [100, 100, 200, 200]}, None, PDF_LABEL, PDF_PLACE)
    assert hit({"page": 2, "bbox": [100, 100, 200, 300]}, None, PDF_LABEL, PDF_PLACE)  # IoU 0.5
    assert not hit({"page": 2, "bbox": [100, 100, 200, 301]}, None, PDF_LABEL, PDF_PLACE)  # just under
    assert not hit({"page": 3, "bbox": [100, 100, 200, 200]}, None, PDF_LABEL, PDF_PLACE)
    assert not hit({"page": 2}, None, PDF_LABEL, PDF_PLACE)  # a page without a box is not the block
    assert retrieval.in_view({"page": 2}, PDF_PLACE) and not retrieval.in_view({"page": 1}, PDF_PLACE)


def test_docx_place_is_the_paragraph_and_in_view_two_either_side() -> None:
    assert retrieval.place_hit({"paragraphIndex": 40}, None, DOCX_LABEL, DOCX_PLACE)
    assert not retrieval.place_hit({"paragraphIndex": 41}, None, DOCX_LABEL, DOCX_PLACE)
    assert [retrieval.in_view({"paragraphIndex": i}, DOCX_PLACE) for i in (37, 38, 42, 43)] == [
        False, True, True, False]


def test_measures_over_a_handmade_run() -> None:
    """Two questions. The PDF's file is second in the list; its first citation is off the block, the
    second (the file's second place) on it. The DOCX's file is not cited at all."""
    run = {"results": {
        "p": [_cit("other.pdf", page=1), _cit("a.pdf", page=2, bbox=[0, 0, 50, 50]),
              _cit("a.pdf", page=2, bbox=[100, 100, 200, 200])],
        "d": [_cit("other.pdf", page=1)],
    }}
    out = retrieval.evaluate_places(run, [PDF_LABEL, DOCX_LABEL], {"p": PDF_PLACE, "d": DOCX_PLACE})
    g = out["heldout2"]
    assert g["recall5"] == (0.5, 2) and g["mrr"] == (0.25, 2)
    assert g["place1"] == (0.0, 1) and g["place3"] == (1.0, 1) and g["view"] == (1.0, 1)
    assert out["heldout2-en-other"]["place3"] == (1.0, 1) and "place1" not in out["heldout2-zh-same"]


def test_place3_reads_alternatives_when_the_citation_has_them() -> None:
    """With ``alternatives`` (full locators), the file's first three places are the citation and its
    first two alternatives, whatever other citations of the file follow."""
    first = _cit("b.docx", paragraphIndex=3)
    later = _cit("b.docx", paragraphIndex=40)  # a later citation of the file, not among its places
    first["alternatives"] = [{"locator": {"paragraphIndex": 7}, "relevanceScore": 0.4},
                             {"locator": {"paragraphIndex": 9}, "relevanceScore": 0.3},
                             {"locator": {"paragraphIndex": 40}, "relevanceScore": 0.2}]
    out = retrieval.evaluate_places({"results": {"d": [first, later]}}, [DOCX_LABEL], {"d": DOCX_PLACE})
    assert out["heldout2"]["place3"] == (0.0, 1)
    first["alternatives"][1] = {"locator": {"paragraphIndex": 40}, "relevanceScore": 0.3}
    out = retrieval.evaluate_places({"results": {"d": [first, later]}}, [DOCX_LABEL], {"d": DOCX_PLACE})
    assert out["heldout2"]["place3"] == (1.0, 1)
    del first["alternatives"]  # without the field: the file's first three citations
    out = retrieval.evaluate_places({"results": {"d": [first, later]}}, [DOCX_LABEL], {"d": DOCX_PLACE})
    assert out["heldout2"]["place3"] == (1.0, 1)


def test_search_times_are_the_host_side_per_question_against_the_first_run(capsys: pytest.CaptureFixture[str]) -> None:
    """p95 of the search minus LightRAG's answer, per run, and the difference against the first run."""
    base = {f"q{i}": [100.0 + i, 90.0] for i in range(1, 21)}  # host side 11..30 ms
    slower = {f"q{i}": [100.0 + i + (200.0 if i == 20 else 0.0), 90.0] for i in range(1, 21)}
    retrieval_times.print_times({"new": {"ms": base}, "new-before": {"ms": slower}, "hand": {}})
    out = capsys.readouterr().out
    lines = {line.split("]")[0].strip(" ["): line for line in out.splitlines() if line.strip().startswith("[")}
    assert set(lines) == {"new", "new-before"}  # a run without times is left out
    # p95 of 11..30 interpolated between the 19th and 20th values: 29 + 0.05 x 1
    assert "host side p50 20 p95 29;" in lines["new"] and "vs" not in lines["new"]
    # the 20th value 230 instead of 30: 29 + 0.05 x 201 = 39.05
    assert "host side p50 20 p95 39;" in lines["new-before"] and "p95 vs new: +10" in lines["new-before"]


def test_a_retried_search_keeps_the_answered_attempts_time_and_the_retries_are_printed_beside_the_p95(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Review r29 finding 9: the time of a search asked again is its answered attempt's, not the timeouts' before it
    (30 s each, which made the p95); how many searches were asked again is printed beside the p95."""
    clock = {"t": 0.0}
    tries = {"n": 0}

    class Timeout(Exception):
        pass

    def search() -> str:
        tries["n"] += 1
        if tries["n"] < 3:
            clock["t"] += 30.0  # LightRAG's timeout
            raise Timeout("LightRAG did not answer in time")
        clock["t"] += 0.2
        return "answer"

    said: list[str] = []
    result, ms, retries = retrieval_times.answered(search, tries=3, retry_on=Timeout, on_retry=said.append,
                                                   clock=lambda: clock["t"])
    assert (result, round(ms), retries) == ("answer", 200, 2) and len(said) == 2
    tries["n"] = 0
    with pytest.raises(Timeout):  # the last try's error is raised
        retrieval_times.answered(search, tries=2, retry_on=Timeout, on_retry=said.append, clock=lambda: clock["t"])
    base = {f"q{i}": [100.0 + i, 90.0] for i in range(1, 21)}
    base["q3"] = [103.0, 90.0, 2]  # asked three times
    retrieval_times.print_times({"new": {"ms": base}, "old": {"ms": {"q1": [101.0, 90.0]}}})
    out = capsys.readouterr().out
    assert "whole search p50 110 p95 119 (1 search asked again)" in out
    assert "(0 searches asked again)" in out  # an older dump's [ms, LightRAG ms]: none


def _block_text(label: dict[str, Any]) -> str:
    """A block label's text as pypdfium2 reads it, folded (its first words to its last)."""
    text, _ = labels.pdf_chars(CORPUS / label["doc"], label["page"])
    start = text.index(labels.norm(label["block"]["first"]))
    return text[start:text.index(labels.norm(label["block"]["last"]), start) + len(labels.norm(label["block"]["last"]))]


def _trigrams(text: str) -> set[str]:
    return {text[i:i + 3] for i in range(len(text) - 2)}


def test_grounding_answers_on_a_pdf_block_are_written_from_the_block_alone() -> None:
    """The grounding benchmark's recorded answer for a block label stays inside the block: pypdf's page
    text runs on through a heading, a footnote or the next column, and a sentence cut from it alone
    (tune3's t3_en04 ran on into "2 Pre-training All the models ...") is not one a reader would write."""
    import grounding

    _, sets = grounding.load()
    blocks = [q for name in grounding.TUNING for q in sets[name] if "block" in q]
    assert len(blocks) >= 80
    for q in blocks:
        sentences = grounding.recorded_answer(q)
        assert sentences, q["id"]
        block = _trigrams(_block_text(q))
        for s in sentences:  # (the two PDF readers differ a little: a formula's glyphs, a CJK radical)
            mine = _trigrams(labels.norm(s).rstrip(".。"))
            assert len(mine & block) >= 0.9 * len(mine), (q["id"], s)
    t3_en04 = next(q for q in blocks if q["id"] == "t3_en04")
    assert grounding.recorded_answer(t3_en04) == [
        "Speciﬁcally, row and column orders are randomly perturbed for all tables in the standard test sets."]


def test_grounding_counts_a_box_inside_the_labelled_block_apart() -> None:
    import grounding

    inside = grounding.within
    assert inside({"page": 2, "bbox": [110, 150, 190, 160]}, PDF_PLACE)  # one line of the block
    assert inside({"page": 2, "bbox": [100, 186, 200, 202]}, PDF_PLACE)  # its last points below the block
    assert not inside({"page": 2, "bbox": [100, 190, 200, 215]}, PDF_PLACE)  # most of it below
    assert not inside({"page": 3, "bbox": [110, 150, 190, 160]}, PDF_PLACE)
    assert not inside({"paragraphIndex": 40}, DOCX_PLACE) and not inside({"page": 2}, PDF_PLACE)


def test_a_page_and_snippet_label_reads_the_places_own_quote() -> None:
    """A label of page + snippet (the old sets, tables) is met by the words the place shows: the first
    citation's ``rawQuote`` is the provider's whole passage, so reading it counted any place on the
    passage's page, while alternatives were held to their own quotes."""
    label = {"id": "t", "set": "tables", "lang": "en", "wording": "other", "doc": "pdf/n.pdf", "page": 1,
             "answer": "12,155"}
    place = {"pages": [1]}
    first = _cit("n.pdf", page=1, bbox=[0, 0, 50, 50])
    first["rawQuote"] = "DISCLAIMERS ... Kentucky 264,140 12,155 ..."  # the passage holds the cell
    first["displayQuote"] = "DISCLAIMERS: these statistics represent the number of checks"  # the place does not
    cell = {"locator": {"page": 1, "bbox": [0, 60, 50, 70]}, "displayQuote": "Kentucky, Handgun: 12,155"}
    first["alternatives"] = [cell]
    out = retrieval.evaluate_places({"results": {"t": [first]}}, [label], {"t": place})["tables"]
    assert out["place1"] == (0.0, 1) and out["place3"] == (1.0, 1) and out["view"] == (1.0, 1)
    first["displayQuote"] = "Kentucky, Handgun: 12,155"
    assert retrieval.evaluate_places({"results": {"t": [first]}}, [label], {"t": place})["tables"]["place1"] == (1.0, 1)


def test_a_rerun_miss_sees_every_place_of_its_file_not_only_the_first() -> None:
    """Re-ranked (``rerun``), a saved search keeps one citation per file; a miss is classed over all of the
    file's places: here its second place (another chunk) holds the answer, so the miss is ranking (b), not
    a passage never cited (a)."""
    label = {"id": "m", "set": "tune3", "lang": "en", "wording": "other", "doc": "docx/b.docx",
             "q": "granny flat size", "answer": "no more than 500 square feet"}

    def cit(rank: int, para: int, text: str) -> dict[str, Any]:
        return {**_cit("b.docx", paragraphIndex=para, meaningScore=None), "rawQuote": text,
                "locatorEvidenceText": text, "locatorPrecision": "paragraph", "diagnostics": {"providerRank": rank}}

    first = cit(0, 3, "The granny flat size rules of the city apply.")
    second = cit(1, 40, "A junior unit is no more than 500 square feet in size.")
    run = {"results": {"m": [first]}, "all": {"m": [first, second]}}
    (miss,) = retrieval.evaluate(run, [label], {"m": [40]}, "rerun")["misses"]
    assert miss["ofFile"] == 2 and miss["onPlaceAt"] == 1 and retrieval.miss_class(miss) == "b"
