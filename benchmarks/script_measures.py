"""The three measures of a text's script, compared: could one serve all three (round 21)?

* ``crossquery.language`` (the LightRAG plugin's translation gate): ``zh`` when CJK characters are a quarter or more
  of the text's letters (CJK characters and Latin letters, one each).
* ``otherscript._amounts`` (a question in the other script than its file's body): CJK characters (kana and hangul
  too) against Latin words of three letters or more with a lower-case one, two units a word.
* ``neutral.han_share`` (e5's language offset, mixed by it): Han characters against Latin runs, one unit each.

Each is read here as ``zh`` at a quarter or more (the gate's threshold), ``en`` with Latin, else None, over the tuning
sets' questions (never the held-out ones) and the in-repo corpus' text cut in 1,200-character chunks (LightRAG's
length) with the recorded LightRAG chunks. Round 21: questions 329 (133 zh), han_share differs from the gate on 1
("rewrite_query 问题改写 preprocess_query": 4 Latin runs to 4 Han, but 27 letters), the amounts on 4 (Korean
questions: hangul counts as CJK there); chunks 2,149 (79 zh), han_share differs on 18 (an English passage under a
Chinese heading), the amounts on 38 (capitals-only text and stray letters are no words there; hangul). So none
can take another's place unchanged: docs/embeddings.md, "Three measures of a text's script".

    PYTHONPATH=... python benchmarks/script_measures.py
"""

from __future__ import annotations

import glob
import json
from pathlib import Path

import docx
import pypdfium2
from mnote_kr_testkit.data import CORPUS, SAMPLES

from mnote_kr.citations.locate.otherscript import _amounts
from mnote_kr.citations.rank.neutral import han_share
from mnote_kr_lightrag.client.crossquery import language

BENCH = Path(__file__).resolve().parent
CHUNK = 1200


def questions() -> list[str]:
    qs: list[str] = []
    for name in ("retrieval_questions", "retrieval_tables", "retrieval_tune3", "retrieval_tune4",
                 "grounding_tune_pdf", "grounding_tune_pdf2"):
        qs += [q["q"] for q in json.loads((BENCH / f"{name}.json").read_text())["questions"]]
    for name in ("offtopic_queries", "offtopic_numbers"):
        qs += [q if isinstance(q, str) else q.get("q") or q.get("query")
               for q in json.loads((BENCH / f"{name}.json").read_text())["queries"]]
    return qs + [c["query"] for c in json.loads((BENCH / "heading_answers.json").read_text())["cases"]]


def chunks() -> list[str]:
    found: set[str] = set()

    def walk(o: object) -> None:
        if isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
        elif isinstance(o, str) and len(o) > 40 and " " in o:
            found.add(o)

    for f in glob.glob(str(SAMPLES / "*.json")) + glob.glob(str(SAMPLES.parent / "*.json")):
        walk(json.loads(Path(f).read_text()))
    texts = []
    for p in sorted(CORPUS.rglob("*.docx")):
        try:
            texts.append("\n".join(par.text for par in docx.Document(str(p)).paragraphs))
        except Exception:  # noqa: BLE001 - a bad-file sample of the corpus
            continue
    for p in sorted(CORPUS.rglob("*.pdf")):
        try:
            pdf = pypdfium2.PdfDocument(str(p))
            texts.append("\n".join(pdf[i].get_textpage().get_text_range() for i in range(min(len(pdf), 30))))
        except Exception:  # noqa: BLE001
            continue
    for text in texts:
        found.update(text[i:i + CHUNK] for i in range(0, len(text), CHUNK) if text[i:i + CHUNK].strip())
    return sorted(found)


def by_han_share(t: str) -> str | None:
    return "zh" if han_share(t) >= 0.25 else "en" if any(c.isascii() and c.isalpha() for c in t) else None


def by_amounts(t: str) -> str | None:
    cjk, latin = _amounts(t)
    return "zh" if cjk and cjk * 4 >= cjk + latin else "en" if latin else None


def main() -> None:
    for name, texts in (("questions", questions()), ("chunks", chunks())):
        gate = [language(t) for t in texts]
        zh = gate.count("zh")
        han = [t for t, g in zip(texts, gate, strict=True) if by_han_share(t) != g]
        amounts = [t for t, g in zip(texts, gate, strict=True) if by_amounts(t) != g]
        print(f"{name}: {len(texts)} ({zh} zh by the gate); han_share differs on {len(han)}, amounts on {len(amounts)}")
        for t in han[:3] + amounts[:3]:
            print(f"    gate {language(t)}, han_share {by_han_share(t)}, amounts {by_amounts(t)}: {t[:70]!r}")


if __name__ == "__main__":
    main()
