"""Exact claims on Chinese questions over files that lack some of their words (cjkwords.ASKED_WORDS).

Replays the tuning sets' Chinese questions without the engine: each question is located in every
Chinese file of the sets (PDF and DOCX), in the chunk of that file sharing the most of the question's
bigrams (as a provider would return it), and every exact place (the primary and the runners-up) is
counted, and counted right when it is the question's own file and its quote holds the labelled answer.
Both settings of ``cjkwords.ASKED_WORDS`` in one run. Tuning sets only (never the held-out ones).

    PYTHONPATH=... python benchmarks/cjk_absent_words.py [-v] [question ids]

Round 19 (105 Chinese questions x 24 files): ASKED_WORDS False 284 exact claims, 29 right, 243 exact primaries on
another file; True 40 exact claims, 25 right, 9 on another file. The 4 right claims lost (t4_zh01, t4_zh16,
tb_zh04, zh19) are paraphrases whose answering place lacks words the question asks (消遣, 准备金): approximate.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

SETS = ["retrieval_questions.json", "retrieval_tune3.json", "retrieval_tune4.json", "retrieval_tables.json"]
CHUNK = 1200


def _bigrams(text: str) -> set[str]:
    return {text[i:i + 2] for i in range(len(text) - 1) if all("\u4e00" <= c <= "\u9fff" for c in text[i:i + 2])}


def _chunks(path: Path) -> list[tuple[int | None, str]]:
    if path.suffix == ".pdf":
        import pypdf

        logging.getLogger("pypdf").setLevel(logging.ERROR)
        return [(i + 1, p.extract_text() or "") for i, p in enumerate(pypdf.PdfReader(str(path)).pages)]
    import docx

    text = "\n".join(p.text for p in docx.Document(str(path)).paragraphs if p.text.strip())
    return [(None, text[i:i + CHUNK]) for i in range(0, max(len(text), 1), CHUNK // 2)]


def main() -> None:
    from mnote_kr_testkit.data import CORPUS

    import mnote_kr_docx_locator
    import mnote_kr_pdf_bbox
    from mnote_kr.citations.cleaning import clean_citation_text
    from mnote_kr.citations.text import cjkwords
    from mnote_kr.models import LocateRequest

    bench = Path(__file__).parent
    only = [a for a in sys.argv[1:] if not a.startswith("-")]
    questions = [q for s in SETS for q in json.loads((bench / s).read_text("utf-8"))["questions"]
                 if q.get("lang") == "zh"]
    files = sorted({q["doc"] for q in questions})
    questions = [q for q in questions if not only or q["id"] in only]
    chunks = {f: _chunks(CORPUS / f) for f in files}
    results = {}
    for asked in (False, True):
        cjkwords.ASKED_WORDS = asked
        mnote_kr_pdf_bbox.clear_cache()
        mnote_kr_docx_locator.clear_cache()
        claims = right = own_exact = 0
        wrong_files: list[str] = []
        rights: set[str] = set()
        for q in questions:
            qb = _bigrams(q["q"])
            for f in files:
                page, chunk = max(chunks[f], key=lambda c: len(qb & _bigrams(c[1])))
                if f == q["doc"] and page is not None:
                    page, chunk = q["page"], chunks[f][q["page"] - 1][1]
                ev = clean_citation_text(chunk, q["q"]).locator_evidence_text
                mod = mnote_kr_pdf_bbox if f.endswith(".pdf") else mnote_kr_docx_locator
                loc = mod.locate(LocateRequest(file=str(CORPUS / f), evidence=ev, query=q["q"], passage=chunk))
                if loc is None:
                    continue
                for place in [loc, *(loc.runners_up or [])]:
                    if place.locator_degraded or place.locator_precision == "file":
                        continue
                    claims += 1
                    quote = "".join((place.place_text or "").split())
                    ok = f == q["doc"] and "".join(q["answer"].split()) in quote
                    right += ok
                    if ok:
                        rights.add(q["id"])
                    own_exact += f == q["doc"] and place is loc
                    if f != q["doc"] and place is loc:
                        wrong_files.append(f"{q['id']} -> {f}: {quote[:40]}")
        results[asked] = (claims, right, own_exact, wrong_files, rights)
        print(f"ASKED_WORDS={asked}: {len(questions)} questions x {len(files)} files: {claims} exact claims, "
              f"{right} right (quote holds the answer), {own_exact} exact primaries on the question's own file, "
              f"{len(wrong_files)} exact primaries on another file", flush=True)
    if "-v" in sys.argv:
        for asked, (_, _, _, wrong, _) in results.items():
            print(f"-- another file, exact, ASKED_WORDS={asked}:")
            print("\n".join(wrong))
        print("right only without:", sorted(results[False][4] - results[True][4]))
        print("right only with:", sorted(results[True][4] - results[False][4]))


if __name__ == "__main__":
    main()
