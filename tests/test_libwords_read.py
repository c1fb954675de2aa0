"""Every citable file's words are the library's (``caches.libwords``), whatever reader gave its text, and a word a
passage found holds is never "in no file" (``weakmore.library_lacks``, ``noresults.library_common``): nc23c
problem 1, "increase Lisinopril dose" over a library with a scanned report read by OCR, weak though its first
citation was an exact box on "Lisinopril", the counts holding none of the scan's words."""

from __future__ import annotations

from mnote_kr.citations.caches import libwords
from mnote_kr.citations.render.noresults import weak_reason
from tests.test_weak_variants import place

#: Lines of the corpus's MEDRPT scan as RapidOCR read them (plugins/ocr/tests/data/medrpt_lines.json, pages 1 and 3).
LISINOPRIL = "1. Lisinopril 10mg-once daily for hypertension"
INCREASE = "- Increase Lisinoprilfrom 10mg to 20mg once daily"


def _library_without_the_scan() -> libwords.LibraryWords:
    """Four files' counts, the scan's words missing from them (as when its reader's text was never counted)."""
    lib = libwords.LibraryWords()
    for i, text in enumerate(["The annual report shows an increase in rainfall.", "Minutes of the harbour board.",
                              "A table of cricket scores and the daily results.", "Notes on pine plantations."]):
        lib.put(f"docs/{i}.md", "", [text])
    return lib


def test_a_word_the_passages_hold_is_never_said_to_be_in_no_file() -> None:
    lib = _library_without_the_scan()
    assert not lib.df.get("lisinopril")
    cites = [place("m1", LISINOPRIL, "scans/medrpt.pdf", lexical=0.3), place("m3", INCREASE, "scans/medrpt.pdf")]
    assert weak_reason(cites, "increase Lisinopril dose", lambda: lib) is None
    # words neither the passages nor the counts hold are still in no file, the held one is not named among them
    reason = weak_reason(cites, "Lisinopril dose, glacier melt", lambda: lib) or ""
    assert "(dose, glacier, melt) are in no file" in reason and "passages found hold only lisinopril" in reason


def test_a_held_word_the_counts_miss_weighs_as_a_word_one_file_holds() -> None:
    lib = _library_without_the_scan()
    assert lib.held_idf("lisinopril") == lib.idf("rainfall")  # one file holds "rainfall"
    assert lib.held_idf("report") == lib.idf("report")  # a counted word weighs what its counts say
    assert lib.idf("lisinopril") > lib.held_idf("lisinopril")
