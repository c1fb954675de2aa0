"""Unreadable text layers: the detector (``unreadable_layer``) on every page of the corpus PDFs.

Each page's text layer as PDFium reads it (the text the OCR plugin judges) is measured by
``layer_quality``: the suspect share (control, private-use and Latin-1 mojibake characters) and the
readable share (CJK characters, words of three letters or more). Printed: the pages flagged, the
pages with the highest suspect share, and the margins of the two thresholds. The known garbled
pages (``GARBLED``) must be flagged and no other page may be; the exit code says whether that holds.

    .venv/bin/python benchmarks/text_layers.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import pypdfium2 as pdfium
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.cleaning.textlayer import MIN_CHARS, READABLE_SHARE, SUSPECT_SHARE, layer_quality

#: Pages whose text layer a font without a usable Unicode map garbles (checked by eye on the render).
GARBLED = {("mineru__garbled_formula.pdf", 1)}
#: Pages partly garbled, with enough readable prose that their layer is kept (the sidebar of p.3).
PARTLY = {("docling__redp5110_sampled.pdf", 3)}
DEMO = Path(__file__).resolve().parent.parent / "plugins/lightrag/mnote_kr_lightrag/demo_data"


def main() -> int:
    files = sorted((CORPUS / "pdf").glob("*.pdf")) + sorted(DEMO.rglob("*.pdf"))
    rows = []
    for path in files:
        pdf = pdfium.PdfDocument(str(path))
        try:
            for i in range(len(pdf)):
                q = layer_quality(pdf[i].get_textpage().get_text_range())
                rows.append((path.name, i + 1, q))
        finally:
            pdf.close()
    judged = [r for r in rows if r[2].chars >= MIN_CHARS]
    flagged = {(name, page) for name, page, q in judged if q.unreadable}
    print(f"{len(files)} PDFs, {len(rows)} pages, {len(judged)} with a text layer of {MIN_CHARS}+ characters")
    print(f"thresholds: suspect >= {SUSPECT_SHARE:.2f} and readable < {READABLE_SHARE:.2f}\n")
    print("highest suspect share:")
    for name, page, q in sorted(judged, key=lambda r: -r[2].suspect)[:8]:
        tag = "FLAGGED" if (name, page) in flagged else ""
        mark = " (garbled)" if (name, page) in GARBLED else " (partly garbled)" if (name, page) in PARTLY else ""
        print(f"  {name[:44]:<44} p.{page:<3} chars {q.chars:>5}  suspect {q.suspect:.3f}  readable {q.readable:.3f}"
              f"  {tag}{mark}")
    clean = [q for name, page, q in judged if (name, page) not in GARBLED | PARTLY]
    garbled = [q for name, page, q in judged if (name, page) in GARBLED]
    worst = max(q.suspect for q in clean)
    print(f"\nclean pages: {len(clean)}, flagged {sum(q.unreadable for q in clean)}; "
          f"highest suspect {worst:.3f} ({SUSPECT_SHARE / worst:.1f}x below the threshold)")
    for q in garbled:
        print(f"garbled page: suspect {q.suspect:.3f} ({q.suspect / SUSPECT_SHARE:.1f}x the threshold), "
              f"readable {q.readable:.3f} (threshold {READABLE_SHARE:.2f}); flagged {q.unreadable}")
    for name, page, q in judged:
        if (name, page) in PARTLY:
            print(f"partly garbled {name} p.{page}: suspect {q.suspect:.3f}, readable {q.readable:.3f}: "
                  f"flagged {q.unreadable} (its prose is readable: the layer is kept)")
    ok = flagged == GARBLED
    print("\nOK: exactly the garbled pages are flagged" if ok else f"\nFAIL: flagged {sorted(flagged)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
