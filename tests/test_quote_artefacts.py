"""Quotes without the artefacts of a PDF's text layer (nc18a problem 6), read as LightRAG 1.5.7's legacy
PDF parser reads the corpus files (pypdf, page by page).

* A reference's number after its noun's stray full stop ("presented in Table. 2. It is clearly evident",
  docling's paper) ends that sentence; it is no list marker of the next, whose quote began "2. It is".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mnote_kr.citations.cleaning import clean_citation_text
from mnote_kr.citations.cleaning.quote import answer_quote, sentences

CORPUS = Path(__file__).resolve().parent / "data" / "corpus" / "pdf"
OTSL = CORPUS / "docling__2305.03393v1-pg9.pdf"


def lightrag_reads(path: Path, pages: int | None = None) -> str:
    from pypdf import PdfReader

    return "".join(page.extract_text() + "\n" for page in PdfReader(path).pages[:pages])


def _quote(text: str, query: str) -> str:
    return answer_quote(clean_citation_text(text, query).display_quote, query)


@pytest.mark.parametrize(("query", "opening"), [
    ("OTSL outperforms HTML across the board", "It is clearly evident that the model trained on OTSL"),
    ("evident OTSL same TED score as HTML", "It is evident that with OTSL, our model achieves the same TED"),
])
def test_a_tables_number_after_a_stray_full_stop_ends_its_sentence(query: str, opening: str) -> None:
    text = lightrag_reads(OTSL)
    assert "presented in Table. 2. It is clearly evident" in text and "in Table. 1. It is" in text
    assert _quote(text, query).startswith(opening)


def test_a_reference_number_stays_with_its_noun_and_list_markers_still_go_forward() -> None:
    text = "Results are in Table. 2. It is clear. See Section. 3. Steps: 1. Open it. 2. Close the table. 3. Go."
    said = [text[a:b] for a, b in sentences(text)]
    assert said == ["Results are in Table. 2.", "It is clear.", "See Section. 3.", "Steps:",
                    "1. Open it.", "2. Close the table.", "3. Go."]
    # a capital's sentence end before a number that opens the next sentence stays an end
    assert [text[a:b] for text in ["We sat at the Table. 20 guests came."] for a, b in sentences(text)] == [
        "We sat at the Table.", "20 guests came."]
