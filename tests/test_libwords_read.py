"""Every citable file's words are the library's (``caches.libwords``), whatever reader gave its text, and a word a
passage found holds is never "in no file" (``weakmore.library_lacks``, ``noresults.library_common``): nc23c
problem 1, "increase Lisinopril dose" over a library with a scanned report read by OCR, weak though its first
citation was an exact box on "Lisinopril", the counts holding none of the scan's words."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write
from mnote_kr_testkit.scans import GeneratedScan, mixed_pdf, render

from mnote_kr import hookimpl
from mnote_kr.citations.caches import libwords
from mnote_kr.citations.rank.ranking import terms
from mnote_kr.citations.render.noresults import weak_reason
from mnote_kr.context import ProviderContext
from mnote_kr.models import EntryUpdate, SourceFile
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
    assert "(dose, glacier, melt) are in no file" in reason and "passages found hold only Lisinopril" in reason


def test_a_held_word_the_counts_miss_weighs_as_a_word_one_file_holds() -> None:
    lib = _library_without_the_scan()
    assert lib.held_idf("lisinopril") == lib.idf("rainfall")  # one file holds "rainfall"
    assert lib.held_idf("report") == lib.idf("report")  # a counted word weighs what its counts say
    assert lib.idf("lisinopril") > lib.held_idf("lisinopril")


class ReadingProvider(FakeProvider):
    """The fake provider reading each PDF as the real one does before sending it: with its scanned pages recognised
    (``ProviderContext.recognize_text``; ``mnote_kr_lightrag.client.recognized.pages_text``)."""

    @hookimpl
    def ingest(self, ctx: ProviderContext, sources: list[SourceFile], force: bool) -> list[EntryUpdate]:
        for src in sources:
            if src.rel_path.endswith(".pdf"):
                ctx.recognize_text(src.path)
        return super().ingest(ctx, sources, force)


def _scan(lines: list[str]) -> GeneratedScan:
    return render(lines, dpi=150, pt=14, page_inches=(6.0, 2.2), margin_inches=0.4, line_spacing=2.0)


def _term(word: str) -> str:
    (t,) = terms(word)
    return t


def test_words_read_by_ocr_and_by_a_reader_whose_places_are_not_embedded_are_the_library_s(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scanned letter (no text layer), a report whose second page is a scan, and a deck too large to embed (its
    limit lowered to none): every one's words are counted, and no file is changed."""
    import mnote_kr_pptx_locator

    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(mnote_kr_pptx_locator, "MEANING_PLACES", 0)
    kb = tmp_path / "ws" / "kb"
    kb.mkdir(parents=True)
    mixed_pdf(kb / "letter.pdf", [_scan(["Dear resident,", "The ferry timetable changes in May."])])
    mixed_pdf(kb / "report.pdf", [["Annual report of the port", "Chapter one: the quays."],
                                  _scan(["Increase Lisinopril to 20 mg daily", "Recorded by the clerk."])])
    shutil.copy2(CORPUS / "pptx" / "docling__powerpoint_sample.pptx", kb / "deck.pptx")  # "A rectangle shape ..."
    write(kb / "notes.md", "Minutes of the harbour board.\n")
    before = digest_tree(kb)
    host, _ = fake_host(tmp_path / "ws", ReadingProvider(delete_status="delete_completed"))
    host.roots_add("kb")
    host.ingest(["kb"])
    lib = libwords.load(host.workspace.index_dir)
    assert lib is not None
    assert lib.files == 4
    words = {w: lib.df.get(_term(w), 0) for w in ("ferry", "timetable", "lisinopril", "clerk", "quays", "rectangle",
                                                  "harbour")}
    assert words == {"ferry": 1, "timetable": 1, "lisinopril": 1, "clerk": 1, "quays": 1, "rectangle": 1,
                     "harbour": 1}
    assert digest_tree(kb) == before
