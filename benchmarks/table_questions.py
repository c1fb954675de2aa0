"""Questions naming a table or figure by its number ("what does table 3 show?", "Fig. 4", "表 7.6"), written from
reading the repo's PDFs and DOCX before the rule (round 23), over the locators and the host's ranking. No provider:
each question's chunk of the file that answers is the window of that file (``WINDOW`` characters of its text,
stepping by half) holding the query's terms best (BM25), placed 4th; another file's best window is placed first.
Reports the place (page or paragraph, and the place starting with the label's caption), whether the answering
file comes first, and how many citations are claimed exact on a place naming another number of the same kind.

    .venv/bin/python benchmarks/table_questions.py
"""

from __future__ import annotations

import re
from pathlib import Path

from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.rank.ranking import Candidate, bm25, relevance, where
from mnote_kr.models import LocateRequest

PDF, DOCX = CORPUS / "pdf", CORPUS / "docx"
#: (file that answers, question, page (PDF, 1-based) or paragraph index (DOCX), the caption the place starts with,
#: the file whose best window competes, placed first). Labelled from the documents' text, before any run.
QUESTIONS = [
    (PDF / "mineru__demo1.pdf", "what does table 3 show?", 6, "Table 3", PDF / "pdfminer__naacl06-shinyama.pdf"),
    (PDF / "mineru__demo1.pdf", "What is in Fig. 4?", 8, "Fig. 4", PDF / "pdfjs__tracemonkey.pdf"),
    (PDF / "pdfminer__naacl06-shinyama.pdf", "what does Table 3 report?", 7, "Table 3", PDF / "mineru__demo3.pdf"),
    (PDF / "pdfminer__naacl06-shinyama.pdf", "what is shown in figure 4?", 4, "Figure 4", PDF / "mineru__demo1.pdf"),
    (PDF / "pdfjs__tracemonkey.pdf", "What does Figure 9 show?", 8, "Figure 9", PDF / "pdfminer__naacl06-shinyama.pdf"),
    (PDF / "docling__redp5110_sampled.pdf", "what is in table 3-1?", 11, "Table 3-1", PDF / "mineru__demo3.pdf"),
    (PDF / "pdfplumber__issue-336-example.pdf", "表 7.6 是什么", 1, "表 7.6", PDF / "chatchat__1.pdf"),
    (DOCX / "mineru__docx_01.docx", "what does Table 1 contain?", 445, "Table 1", PDF / "mineru__demo3.pdf"),
]
WINDOW = 1200
_OTHER_NUMBER = re.compile(r"\b(?:table|fig\.?|figure)\s*(\d+(?:[.-]\d+)?)|[表图]\s*(\d+(?:[.-]\d+)?)", re.I)


def _text(path: Path) -> str:
    if path.suffix == ".pdf":
        import pypdfium2 as pdfium  # noqa: PLC0415 - only here

        pdf = pdfium.PdfDocument(str(path))
        return "\n".join(page.get_textpage().get_text_range() for page in pdf)
    from mnote_kr_docx_locator.cache import load_docx  # noqa: PLC0415

    return "\n".join(p.text for p in load_docx(path).paragraphs if p.text.strip())


def _best_window(path: Path, query: str) -> str:
    text = _text(path)
    windows = [text[lo:lo + WINDOW] for lo in range(0, max(1, len(text) - WINDOW // 2), WINDOW // 2)]
    scores = bm25(query, windows)
    return windows[max(range(len(windows)), key=scores.__getitem__)]


def _locate(path: Path, evidence: str, query: str):
    if path.suffix == ".pdf":
        from mnote_kr_pdf_bbox import locate  # noqa: PLC0415
    else:
        from mnote_kr_docx_locator import locate  # noqa: PLC0415
    return locate(LocateRequest(file=str(path), evidence=evidence, query=query, passage=evidence))


def _candidate(rank: int, path: Path, query: str):
    chunk = _best_window(path, query)
    loc = _locate(path, chunk, query)
    place = loc.place_text or ""
    if not place and loc.paragraph_index is not None:
        from mnote_kr_docx_locator.cache import load_docx  # noqa: PLC0415

        place = load_docx(path).paragraphs[loc.paragraph_index].text
    return Candidate(rank, path.name, chunk, tuple(loc.place_headings or ()), **where(loc), place=place), loc, place


def main() -> None:
    places = files = wrong_exact = 0
    for path, query, want, caption, other in QUESTIONS:
        right, loc, place = _candidate(3, path, query)
        wrong, _, _ = _candidate(0, other, query)
        scored = relevance(query, [wrong, right], 8)
        first = scored[1][0] > scored[0][0]
        at = loc.page if path.suffix == ".pdf" else loc.paragraph_index
        placed = at == want and " ".join(place.split()).startswith(caption)
        asked = caption.split()[-1]
        named = [a or b for a, b in _OTHER_NUMBER.findall(" ".join(place.split())[:40])]
        wrong_claim = bool(named) and asked not in named and not loc.locator_degraded
        places += placed
        files += first
        wrong_exact += wrong_claim
        print(f"{'Y' if first else 'N'} file  {'Y' if placed else 'N'} place {at} (want {want} {caption!r})  "
              f"{'exact' if not loc.locator_degraded else 'approx'}{' WRONG-NUMBER' if wrong_claim else ''}  "
              f"{query}  | {' '.join(place.split())[:60]!r}")
    print(f"right file first {files}/{len(QUESTIONS)}, place {places}/{len(QUESTIONS)}, "
          f"exact on another number {wrong_exact}")


if __name__ == "__main__":
    main()
