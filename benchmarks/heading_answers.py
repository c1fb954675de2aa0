"""First places of questions answered under a heading (``heading_answers.json``), before and after in one run.

The cases were written by reading the PDFs' blocks before any locator run: a question about a heading's or a
mind-map label's topic, the block under it answering (``expect``: a piece of its words), and phrases that are a
heading's own words (``expect``: the heading, the whole place). The provider's chunk is the pages' text as
pypdf reads them (LightRAG's reader), the evidence the host's window of it around the query
(``clean_citation_text``), the passage the chunk. Each case runs with ``underhead.GIVE_WAY`` off (before) and
on (after), by words alone and, with ``--meaning``, with the PDFs' blocks embedded by the host's e5 model.
No engine runs.

    .venv/bin/python benchmarks/heading_answers.py [--meaning]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus" / "pdf"
CASES = json.loads((Path(__file__).with_suffix(".json")).read_text("utf-8"))["cases"]


def _letters(text: str) -> str:
    import unicodedata

    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def _chunk(file: Path, pages: list[int]) -> str:
    import pypdf

    reader = pypdf.PdfReader(str(file))
    return "\n".join(reader.pages[p - 1].extract_text() for p in pages)


def _right(case: dict, place: str) -> bool:
    got, want = _letters(place), _letters(case["expect"])
    return got == want if case["kind"] == "phrase" else want in got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--meaning", action="store_true", help="embed the PDFs' blocks (the host's e5 model) too")
    args = ap.parse_args()
    os.environ["MNOTE_KR_HOME"] = tempfile.mkdtemp(prefix="mnote-bench-heading-")
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    import mnote_kr_pdf_bbox
    from mnote_kr.citations.cleaning import clean_citation_text
    from mnote_kr.citations.rank import meaning
    from mnote_kr.models import LocateRequest
    from mnote_kr_pdf_bbox import answer, underhead

    modes = [("words", False)] + ([("meaning", True)] if args.meaning else [])
    if args.meaning:
        for f in sorted({c["file"] for c in CASES}):
            mnote_kr_pdf_bbox.prepare_locate(str(CORPUS / f))
        meaning.embed_queued(lambda line: None)
    for mode, by_meaning in modes:
        answer.BY_MEANING = by_meaning
        tally = {(kind, variant): [0, 0, 0, 0] for kind in ("question", "phrase") for variant in ("before", "after")}
        for case in CASES:
            file = CORPUS / case["file"]
            chunk = _chunk(file, case["pages"])
            evidence = clean_citation_text(chunk, case["query"]).locator_evidence_text
            row = []
            for variant, on in (("before", False), ("after", True)):
                underhead.GIVE_WAY = on
                mnote_kr_pdf_bbox.clear_cache()
                loc = mnote_kr_pdf_bbox.locate(LocateRequest(file=str(file), evidence=evidence, query=case["query"],
                                                             passage=chunk))
                ok = _right(case, loc.place_text or "")
                t = tally[(case["kind"], variant)]
                t[0] += ok
                t[1] += ok and not loc.locator_degraded
                t[2] += 1
                t[3] += not ok and not loc.locator_degraded
                row.append(f"{variant}: {'right' if ok else 'WRONG'} {'approx' if loc.locator_degraded else 'exact'}"
                           f" {' '.join((loc.place_text or '').split())[:40]!r}")
            print(f"[{mode}] {case['kind']:8} {case['query'][:44]:46} | " + " | ".join(row))
        for (kind, variant), (right, exact, n, wrong) in tally.items():
            print(f"[{mode}] {kind:8} {variant:6}: first place right {right}/{n}, right and exact {exact}/{n}, "
                  f"wrong but exact {wrong}/{n}")
    underhead.GIVE_WAY = True
    answer.BY_MEANING = True


if __name__ == "__main__":
    main()
