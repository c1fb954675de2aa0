"""A table-of-contents line ending in a tab and "N/A" (no page number) is a TOC entry, never a heading.

nc17b: every body paragraph of tika__018367.docx (a DOJ budget submission) was headed "Organizational Chart
N/A": its table of contents lists sections without a page as "Organizational Chart<tab>N/A", and the file
gives that line outline level 0. A TOC line was known by a page number (or roman numeral) after its tab or
leader; "N/A" stands where the number would.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_docx_locator.reader import parse_docx_bytes

REPORT = Path(__file__).resolve().parent / "data" / "corpus" / "docx" / "tika__018367.docx"


def test_a_toc_line_ending_in_na_is_no_heading() -> None:
    doc = parse_docx_bytes(REPORT.read_bytes())
    na = [p for p in doc.paragraphs if p.text.rstrip().endswith("\tN/A")]
    assert len(na) >= 10
    assert all(p.in_toc and p.heading_level == 0 for p in na), [(p.index, p.text) for p in na if not p.in_toc]
    paths = {" > ".join(p.heading_path) for p in doc.paragraphs}
    assert not any("N/A" in path for path in paths), sorted(path for path in paths if "N/A" in path)[:3]
    body = next(p for p in doc.paragraphs if p.text.startswith("On October 5, 1990, Congress passed"))
    # round 28: under no contents line's words, nor under the contents' title ("Table of Contents"), which heads
    # the contents only (``contents``): the file styles no other heading, so the body's path is empty
    assert not any("Organizational Chart" in h or h == "Table of Contents" for h in body.heading_path), \
        body.heading_path
