"""Questions that name a numbered section or clause of two Chinese nuclear-safety standards (Part 1 numbers its
clauses in their text, Part 12 in Word's heading numbers), written from reading the files before the rule (round
22), over the DOCX locator and the host's ranking. No provider: each question's chunk of the file that answers is
the span written beside it, placed 8th (nc21b's Part 1 was); the other standard's chunk is its eight paragraphs
holding the question's terms best (BM25), placed first. Reports the place (the paragraph that answers) and the
right file first; run it before and after a change with the same data.

    .venv/bin/python benchmarks/section_questions.py
"""

from __future__ import annotations

from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.rank.ranking import Candidate, bm25, relevance, where
from mnote_kr.models import LocateRequest
from mnote_kr_docx_locator import locate
from mnote_kr_docx_locator.cache import load_docx

PART1 = CORPUS / "docx" / "chatchat__核电厂定期安全审查指南 第1部分：通用要求（征求意见稿）.docx"
PART12 = CORPUS / "docx" / "chatchat__核电厂定期安全评价 第12部分：设计（征求意见稿20230317）.docx"
#: (file that answers, its chunk's paragraphs, question, the paragraph that answers)
QUESTIONS = [
    (PART1, (118, 125), "What does section 5.3.2 say about plants with similar designs?", 124),
    (PART1, (118, 125), "第5.3.2条关于设计相近的核电厂是怎么规定的？", 124),
    (PART1, (118, 125), "5.3.2节说了什么？", 124),
    (PART1, (126, 135), "What does clause 5.4.1 say about who is responsible for the PSR?", 127),
    (PART1, (110, 117), "According to 5.2.1, how often is a PSR carried out?", 111),
    (PART12, (164, 190), "What does section 6.3.2.3 say about design modification review?", 183),
    (PART12, (213, 223), "第6.3.3.3节弱项如何处理？", 220),
    (PART1, (161, 180), "6.1.2.2 弱项处置说了什么", 173),
    (PART12, (133, 160), "What does section 6.2.1 say about documents and records?", 139),
    (PART1, (213, 220), "What is in section 7.3?", 219),
]


def _chunk(path, lo: int, hi: int) -> str:
    return "\n".join(p.text for p in load_docx(path).paragraphs[lo:hi + 1] if p.text.strip())


def _best_window(path, query: str) -> tuple[int, int]:
    n = len(load_docx(path).paragraphs)
    spans = [(lo, min(lo + 7, n - 1)) for lo in range(0, n, 4)]
    scores = bm25(query, [_chunk(path, *s) for s in spans])
    return spans[max(range(len(spans)), key=scores.__getitem__)]


def _candidate(rank: int, path, span: tuple[int, int], query: str) -> tuple[Candidate, int | None]:
    evidence = _chunk(path, *span)
    loc = locate(LocateRequest(file=str(path), evidence=evidence, query=query))
    place = load_docx(path).paragraphs[loc.paragraph_index].text if loc.paragraph_index is not None else ""
    return Candidate(rank, path.name, evidence, tuple(loc.place_headings or ()), **where(loc), place=place), \
        loc.paragraph_index


def main() -> None:
    places = files = 0
    for path, span, query, want in QUESTIONS:
        other = PART12 if path == PART1 else PART1
        right, at = _candidate(7, path, span, query)
        wrong, _ = _candidate(0, other, _best_window(other, query), query)
        scored = relevance(query, [wrong, right], 8)
        first = scored[1][0] > scored[0][0]
        places += at == want
        files += first
        print(f"{'Y' if first else 'N'} file  {'Y' if at == want else 'N'} place {at} (want {want})  {query}")
    print(f"right file first {files}/{len(QUESTIONS)}, place {places}/{len(QUESTIONS)}")


if __name__ == "__main__":
    main()
