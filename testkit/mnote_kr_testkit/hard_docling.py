"""Hard PDFs of the corpus: the hard items of Docling's ground truth (list items, captions, footnotes, headings,
table rows) as ``HardCase`` rows, the truth Docling's boxes, never the locator's (the PDFs drawn at known positions
are ``hard_pdfs``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from .hard_pdfs import Box, HardCase, content_words, make_query
from .pdfs import union

HARD_LABELS = {"list_item": "list items", "caption": "captions and legends", "footnote": "footnotes",
               "section_header": "headings"}


def docling_hard_cases(corpus: Path, docs: list[str], seed: int = 13, per_label: int = 6) -> list[HardCase]:
    """Hard items of Docling's ground truth (list items, captions, footnotes, headings, table rows)
    in the corpus PDFs ``docs`` (stems of ``docling__STEM.pdf``): a window of neighbouring items
    as evidence, the query two or three words of the target item."""
    from .pdf_cases import _gt_items

    rng = random.Random(seed)
    out: list[HardCase] = []
    for stem in docs:
        gt = json.loads((corpus / "groundtruth" / "docling" / f"docling__{stem}.json").read_text("utf-8"))
        pdf = str(corpus / "pdf" / f"docling__{stem}.pdf")
        items = _gt_items(gt)
        for label, layout in HARD_LABELS.items():
            targets = [i for i, it in enumerate(items) if it[0] == label and len(content_words(it[1])) >= 2]
            rng.shuffle(targets)
            made = 0
            for ti in targets:
                if made >= per_label:
                    break
                lo, hi = max(0, ti - rng.randint(1, 2)), min(len(items), ti + rng.randint(2, 3))
                win = [(t, p, b) for _, t, p, b in items[lo:hi]]
                q = make_query(rng, [t for t, _, _ in win], ti - lo)
                if q is None:
                    continue
                out.append(HardCase(f"docling-{stem}-{label}-{ti}", layout, pdf, "\n".join(t for t, _, _ in win), q,
                                    items[ti][2], items[ti][3], win, ti - lo))
                made += 1
        for tn, tab in enumerate(gt.get("tables", [])):
            if len(tab.get("prov", [])) != 1:
                continue
            page = tab["prov"][0]["page_no"]
            h = gt["pages"][str(page)]["size"]["height"]
            rows: dict[int, list[tuple[int, str, Box]]] = {}
            for cell in tab["data"]["table_cells"]:
                bb = cell["bbox"]
                box = (bb["l"], bb["t"], bb["r"], bb["b"]) if bb.get("coord_origin") == "TOPLEFT" else \
                    (bb["l"], h - bb["t"], bb["r"], h - bb["b"])
                if cell.get("text", "").strip():
                    rows.setdefault(cell["start_row_offset_idx"], []).append((cell["start_col_offset_idx"],
                                                                               cell["text"], box))
            row_items = [(" ".join(t for _, t, _ in sorted(r)), page, union([b for _, _, b in r]))
                         for _, r in sorted(rows.items())]
            targets = list(range(len(row_items)))
            rng.shuffle(targets)
            made = 0
            for r in targets:
                if made >= per_label:
                    break
                q = make_query(rng, [t for t, _, _ in row_items], r)
                if q is None:
                    continue
                out.append(HardCase(f"docling-{stem}-table{tn}-row{r}", "table", pdf,
                                    "\n".join(t for t, _, _ in row_items), q, page, row_items[r][2], row_items, r))
                made += 1
    return out
