"""Questions naming a table's row and its column (a year, 2024E, a month, a fiscal year), in Chinese and English, over
the corpus's PDF, DOCX and XLSX tables (round 25, tables4), written from reading the documents before any run: is
the file's first place, as the host folds its places, the cell (or the row) holding the value asked?

No provider: a file's passages are the ``WINDOW``-character windows of its text (stepping by half) that hold the
question's terms best (BM25), the best first, as LightRAG hands back a file's chunks; each is located with the
question, its places behind (``Locator.runners_up``) cited as the pipeline cites them, and the file's places
folded (``folding.runner_citations``, ``behind_by_meaning``, ``fold_places``), the places' vectors embedded first
as ingest does. Right = the first place's quote holds the value (``answer``); ``exact`` counts the right ones
claimed exact. ``--rule off`` runs the same with ``folding.CELL_LEADS`` off (the rule before round 25).

    .venv/bin/python benchmarks/table_cells.py [--rule off] [--order meaning]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mnote_kr_testkit.data import CORPUS

REPORT = "pdf/mineru__test_rearch_report.pdf"
DUCKS = "xlsx/docling__xlsx_03_chartsheet.xlsx"
SALES = "xlsx/docling__xlsx_02_sample_sales_data.xlsm"
BANGALORE = "docx/khoj__bangalore.docx"
RECA = "docx/tika__018367.docx"
#: (file, question, the value the first place must quote). Written from the documents' text, before any run.
QUESTIONS: list[tuple[str, str, str]] = [
    (REPORT, "高测股份2024年营业收入预测", "5,752"),
    (REPORT, "营业收入 2024E", "5,752"),
    (REPORT, "高测股份2023年净利润预测", "717"),
    (REPORT, "2022E毛利率", "35.0%"),
    (REPORT, "2024年资产负债率预计是多少", "65.3%"),
    (REPORT, "Gaoce revenue forecast for 2023", "5,056"),
    (REPORT, "净利润增长率 2023E", "52.2%"),
    (DUCKS, "How many saltwater ducks were observed in 2022?", "110"),
    (DUCKS, "freshwater ducks 2020", "135"),
    (DUCKS, "2023年的淡水鸭数量", "160"),
    (SALES, "Revenue of Widget C on 2024-01-07", "15000"),
    (BANGALORE, "Bangalore record high temperature in April", "39.2"),
    (BANGALORE, "班加罗尔三月的日平均气温", "26.8"),
    (RECA, "Downwinders claims filed in FY 2006", "999"),
    (RECA, "Pending claims at the beginning of FY 2005", "1,537"),
]
WINDOW = 1200
PASSAGES = 3
#: The order of a file's passages: by the query's words (BM25) or by meaning (e5's cosine, as a vector search).
ORDER = "words"


def _text(path: Path, pm) -> str:  # noqa: ANN001 - the plugin manager
    if path.suffix == ".pdf":
        import pypdfium2 as pdfium

        return "\n".join(p.get_textpage().get_text_range().replace("\r", "") for p in pdfium.PdfDocument(str(path)))
    if path.suffix == ".docx":
        from mnote_kr_docx_locator.cache import load_docx

        return "\n".join(p.text for p in load_docx(path).paragraphs if p.text.strip())
    from mnote_kr_xlsx_locator.reader import load_xlsx

    return load_xlsx(str(path)).markdown()


def _passages(text: str, query: str) -> list[str]:
    from mnote_kr.citations.rank.meaning import embed_texts
    from mnote_kr.citations.rank.ranking import bm25

    windows = [text[lo:lo + WINDOW] for lo in range(0, max(1, len(text) - WINDOW // 2), WINDOW // 2)]
    if ORDER == "meaning":  # LightRAG's vector search: the chunks nearest the question by e5
        vecs = embed_texts([query, *windows])
        scores = [sum(a * b for a, b in zip(vecs[0], v, strict=True)) for v in vecs[1:]]
    else:
        scores = bm25(query, windows)
    return [windows[k] for k in sorted(range(len(windows)), key=lambda k: -scores[k])[:PASSAGES]]


def first_place(pm, doc: str, query: str):  # noqa: ANN001, ANN201 - the plugin manager; the folded Citation
    import msgspec

    from mnote_kr.citations.render import folding
    from mnote_kr.citations.render.claims import not_another_numbered, place_key
    from mnote_kr.models import Citation, CitationDiagnostics, LocateRequest

    path = CORPUS / doc
    mains, runners = [], []
    for k, chunk in enumerate(_passages(_text(path, pm), query)):
        loc = not_another_numbered(pm.locate(LocateRequest(file=str(path), evidence=chunk, passage=chunk,
                                                          query=query)), query)
        bare = msgspec.structs.replace(loc, runners_up=[], place_text=None)
        main = Citation(provider="lightrag", citation_id=f"[p{k}]", source_id=path.name, source_path=str(path),
                        source_root_relative_path="docs/" + path.name, light_rag_doc_id=None,
                        light_rag_file_path=path.name, light_rag_chunk_id=f"chunk-{k}", block_id=None, heading_path=[],
                        raw_quote=chunk, display_quote=loc.quote or loc.place_text or chunk[:200],
                        locator_evidence_text=chunk, quote_source="chunk", search_query=query,
                        locator_precision=loc.locator_precision, locator_degraded=loc.locator_degraded, locator=bare,
                        citation_url="", citation_markdown="", relevance_score=1.0 - 0.1 * k,
                        diagnostics=CitationDiagnostics(quote_source="chunk", raw_reference_mapped=True,
                                                        sidecar_block_mapped=False, display_cleaned=True,
                                                        locator_text_source="chunk"))
        mains.append(main)
        runners.append(folding.runner_citations(main, loc, f"p{k}", set(), ""))
    held: set[str] = set()
    out, behind = [], []
    for m in mains:
        if (key := place_key(m.locator)) and key in held:
            continue
        held.add(key)
        out.append(m)
    for rs in runners:
        for r in rs:
            if place_key(r.locator) not in held:
                held.add(place_key(r.locator))
                behind.append(r)
    shown = folding.fold_places(folding.behind_by_meaning(out + behind))[0][0]
    return shown


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rule", choices=("on", "off"), default="on")
    ap.add_argument("--order", choices=("words", "meaning"), default="words", help="the file's passages' order")
    args = ap.parse_args()
    global ORDER  # noqa: PLW0603 - a module setting, as the folding rules are
    ORDER = args.order
    os.environ["MNOTE_KR_LOCATE_CACHE"] = "0"
    from mnote_kr.citations.rank import meaning
    from mnote_kr.citations.render import folding
    from mnote_kr.plugins import load_plugins

    pm = load_plugins(None)
    for doc in sorted({q[0] for q in QUESTIONS}):
        pm.prepare_locate(str(CORPUS / doc))
    meaning.embed_queued(lambda line: None)
    if hasattr(folding, "CELL_LEADS"):
        folding.CELL_LEADS = args.rule == "on"
    right = exact = 0
    for doc, query, answer in QUESTIONS:
        shown = first_place(pm, doc, query)
        words = " ".join(t for t in (shown.display_quote, shown.locator.place_text) if t)
        ok = answer in words
        right += ok
        exact += ok and not shown.locator_degraded
        print(f"  {'right' if ok else 'wrong':5} {'exact' if not shown.locator_degraded else 'approx':6} "
              f"{Path(doc).name[:24]:24} {query[:44]:44} -> {' '.join(words.split())[:90]}")
    print(f"first place quotes the value: {right}/{len(QUESTIONS)} (exact {exact}); rule {args.rule}, "
          f"passages by {args.order}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
