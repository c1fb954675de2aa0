"""Value questions about English PDF tables: is the first place the row holding the value, not the caption?

Seventeen questions a reader would ask about tables of English PDFs of the test corpus that no held-out set
uses (``mineru__demo3.pdf``'s seven tables, captions under them; ``docling__2305.03393v1-pg9.pdf``'s Table 1,
caption over it; the NICS checks table, no caption; ``mineru__demo1.pdf``'s tables, turned on their page),
written with the row each asks about from the PDF's text before the locator was run. Two controls ask what a
table shows: the caption answers. The evidence is the page's whole text as the PDF gives it (a chunk that
holds the table and the prose around it), the query the question.

Right = the place is on the expected page, its quote holds every piece of the expected row, none of the
pieces of the rows next to it (``absent``), and is no longer than a row (250 characters); a control is right
when its quote opens with the caption, claimed exact. Each question runs twice in the same process: today's rule
(``tablerows.CAPTIONS = False``) and the new one (``True``); ``--embed`` first embeds each file's blocks as
ingest does (the engine's situation: blocks placed by meaning too).

    .venv/bin/python benchmarks/pdf_table_rows.py [--embed]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mnote_kr_testkit.data import CORPUS

from mnote_kr.models import LocateRequest

PDF = CORPUS / "pdf"
D3, OTSL, NICS, D1 = "mineru__demo3.pdf", "docling__2305.03393v1-pg9.pdf", \
    "pdfplumber__nics-background-checks-2015-11.pdf", "mineru__demo1.pdf"

# (file, page, question, pieces of the expected row, pieces of other rows that must be absent)
QUESTIONS: list[tuple[str, int, str, list[str], list[str]]] = [
    (D3, 5, "What is the ALL accuracy of TABLEFORMERLARGE inter on the SQA test set before perturbation?",
     ["TABLEFORMERLARGE inter", "72.4", "47.5"], ["TAPASLARGE inter"]),
    (D3, 5, "What is the prediction variation percentage of TAPASLARGE after perturbation on SQA?",
     ["TAPASLARGE", "60.5", "15.1%"], ["70.3", "inter"]),
    (D3, 6, "What is the TABFACT test accuracy of TAPASBASE inter?", ["TAPASBASE inter", "78.4", "77.9"], ["79.7 80"]),
    (D3, 6, "What denotation accuracy does TABLEFORMERLARGE inter-sqa get on the WTQ test set?",
     ["TABLEFORMERLARGE inter-sqa", "52.6"], ["50.4"]),
    (D3, 7, "How many parameters does TAPASLARGE have?", ["TAPASLARGE", "340 M"], ["110 M"]),
    (D3, 7, "Which TABLEFORMER variant has the highest rc-gp accuracy on the SQA development set?",
     ["TABLEFORMERBASE", "62.2", "61.9"], ["TAPASBASE-SAT", "45.2"]),
    (D3, 8, "What is the VP of TAPASBASE 8p in Table 6?", ["TAPASBASE 8p", "7.2%"], ["8.1%"]),
    (D3, 8, "What is the ALL accuracy when the Same Row attention bias is removed?", ["Same Row", "32.1", "2.8"],
     ["Same Column"]),
    (D3, 8, "Which attention bias ablation has the lowest SEQ accuracy?", ["Same Row", "32.1", "2.8"], ["Same Column"]),
    (OTSL, 1, "What is the inference time of OTSL with 6 encoder and 6 decoder layers?", ["OTSL", "0.965", "2.73"],
     ["5.39"]),
    (OTSL, 1, "What is the mAP of HTML with 4 encoder layers and 2 decoder layers?", ["HTML", "0.944", "0.824"],
     ["1.22"]),
    (NICS, 1, "How many permit checks did Kentucky have in November 2015?", ["Kentucky", "264,140"], ["Kansas"]),
    (NICS, 1, "What were the total NICS firearm checks in Florida?", ["Florida", "103,532"], ["Georgia"]),
    (D1, 5, "What is the mean annual rainfall at Glendhu 2?", ["Glendhu 2", "1282"], ["Cathedral"]),
    (D1, 5, "What is the BFI of the Redhill catchment?", ["Redhill", "866", "0.39"], ["Pine Ck"]),
    (D1, 8, "What is Thalf at the 10th percentile for Glendhu 2?", ["Glendhu 2", "19.59"], ["Stewarts"]),
    (D1, 5, "Which catchment has the largest area?", ["Traralgon", "8700"], ["Redhill"]),
]
# questions about a table, not a value in it: the caption answers
CONTROLS: list[tuple[str, int, str, str]] = [
    (D3, 6, "Which table gives the denotation accuracy on WTQ?", "Table 3:"),
    (OTSL, 1, "What does the table about HPO in OTSL and HTML show?", "Table 1."),
]


def _page_text(path: Path, page: int) -> str:
    import pypdfium2

    return pypdfium2.PdfDocument(str(path))[page - 1].get_textpage().get_text_range().replace("\r", "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embed", action="store_true", help="embed each file's blocks first, as ingest does")
    args = ap.parse_args()
    os.environ["MNOTE_KR_LOCATE_CACHE"] = "0"
    import mnote_kr_pdf_bbox
    from mnote_kr.citations.rank import meaning
    from mnote_kr.plugins import load_plugins
    from mnote_kr_pdf_bbox import tablerows

    pm = load_plugins(None)
    if args.embed:
        for name in sorted({q[0] for q in QUESTIONS}):
            mnote_kr_pdf_bbox.prepare_locate(str(PDF / name))
        meaning.embed_queued(lambda line: None)

    def locate(name: str, page: int, query: str):  # noqa: ANN202 - a Locator
        mnote_kr_pdf_bbox.clear_cache()
        ev = _page_text(PDF / name, page)
        return pm.locate(LocateRequest(file=str(PDF / name), evidence=ev, passage=ev, query=query))

    rule = tablerows.CAPTIONS
    right = {False: 0, True: 0}
    exact_caption = {False: 0, True: 0}  # value questions whose place is a caption claimed exact
    controls = {False: 0, True: 0}
    rows = []
    for name, page, query, want, absent in QUESTIONS:
        marks = []
        for new in (False, True):
            tablerows.CAPTIONS = new
            loc = locate(name, page, query)
            text = loc.place_text or ""
            ok = loc.page == page and all(s in text for s in want) and not any(s in text for s in absent) \
                and len(text) <= 250
            right[new] += ok
            exact_caption[new] += text.startswith("Table") and not loc.locator_degraded
            marks.append(("right" if ok else "wrong") + (" (approx)" if loc.locator_degraded else ""))
        rows.append(f"  {marks[0]:<15} {marks[1]:<15} {name[:22]:<22} p{page} {query[:70]}")
    for name, page, query, opens in CONTROLS:
        for new in (False, True):
            tablerows.CAPTIONS = new
            loc = locate(name, page, query)
            controls[new] += loc.page == page and (loc.place_text or "").startswith(opens) and not loc.locator_degraded
    tablerows.CAPTIONS = rule
    print(f"English PDF table value questions ({len(QUESTIONS)}; evidence = the page's text; "
          f"{'blocks embedded' if args.embed else 'words only, no vectors'})")
    print(f"  {'today':<15} {'new':<15}")
    print("\n".join(rows))
    n = len(QUESTIONS)
    print(f"first place on the asked row: today {right[False]}/{n}, new {right[True]}/{n} "
          f"(ratio {right[True] / max(right[False], 1):.2f})")
    print(f"a caption cited exact for a value question: today {exact_caption[False]}, new {exact_caption[True]}")
    print(f"a question about a table still on its caption, exact: today {controls[False]}/{len(CONTROLS)}, "
          f"new {controls[True]}/{len(CONTROLS)}")


if __name__ == "__main__":
    sys.exit(main())
