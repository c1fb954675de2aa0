"""Which words written short with a full stop ``citations.text.abbrev`` lets stand for a query word, over the
corpus text, and how many of them are right (judged by reading each match's context; ``RIGHT`` holds the
judgement).

The text is each corpus file read plainly, roughly as LightRAG 1.5.7 reads it (DOCX paragraphs and table rows
with tabs, PDF text layers, XLSX rows with tabs, PPTX shape text); the files of the held-out benchmark sets are
left out. The words are those of the tuning questions (``retrieval_questions``, ``retrieval_tune3/4``,
``retrieval_tables``, ``offtopic_queries``, ``offtopic_numbers``, ``grounding_tune_pdf*``) and the words the
abbreviation module names. A new match is printed with ``?``: read it and add it to ``RIGHT`` when it is right.

    .venv/bin/python benchmarks/abbreviations.py [--show]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.text.abbrev import abbreviated_at

HERE = Path(__file__).parent
TUNING = ("retrieval_questions.json", "retrieval_tune3.json", "retrieval_tune4.json", "retrieval_tables.json",
          "offtopic_queries.json", "offtopic_numbers.json", "grounding_tune_pdf.json", "grounding_tune_pdf2.json")
#: (abbreviation, word) pairs read as right in every context they were found in (r19).
RIGHT = {("no", "number"), ("no", "numbers"), ("max", "maximum"), ("min", "minimum"), ("temp", "temperature"),
         ("jan", "january"), ("nov", "november"), ("distrib", "distribution"), ("doc", "documents")}


def held_out_files() -> set[str]:
    """The corpus files the held-out sets ask about (only their names are read, to leave them out)."""
    out = set()
    for f in [*HERE.glob("retrieval_heldout*.json"), HERE / "offtopic_heldout.json"]:
        data = json.loads(f.read_text(encoding="utf-8"))
        out |= {q["doc"] for q in (data.get("questions", []) if isinstance(data, dict) else data)
                if isinstance(q, dict) and "doc" in q}
    return out


def read(f: Path) -> str:
    if f.suffix == ".docx":
        import docx
        d = docx.Document(str(f))
        return "\n".join([p.text for p in d.paragraphs]
                         + ["\t".join(c.text for c in r.cells) for t in d.tables for r in t.rows])
    if f.suffix == ".pdf":
        import logging

        import pypdf
        logging.getLogger("pypdf").setLevel(logging.ERROR)
        return "\n".join((p.extract_text() or "") for p in pypdf.PdfReader(str(f)).pages[:200])
    if f.suffix == ".xlsx":
        import openpyxl
        wb = openpyxl.load_workbook(str(f), read_only=True, data_only=True)
        return "\n".join("\t".join("" if v is None else str(v) for v in r)
                         for ws in wb.worksheets for r in ws.iter_rows(values_only=True))
    if f.suffix == ".pptx":
        import pptx
        return "\n".join(sh.text_frame.text for s in pptx.Presentation(str(f)).slides for sh in s.shapes
                         if sh.has_text_frame)
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print every match with its context")
    args = parser.parse_args()
    held = held_out_files()
    words = {"template", "temperature", "maximum", "minimum", "number", "approximately"}
    for name in TUNING:
        raw = (HERE / name).read_text(encoding="utf-8")
        for q in re.findall(r'"(?:q|query|question)"\s*:\s*"([^"]*)"', raw):
            words |= set(re.findall(r"[a-z]+", q.lower()))
    matches, size, files = [], 0, 0
    for f in sorted(p for kind in ("docx", "pdf", "xlsx", "pptx") for p in (CORPUS / kind).glob(f"*.{kind}")):
        if f"{f.parent.name}/{f.name}" in held:
            continue
        try:
            text = read(f)
        except Exception as exc:  # noqa: BLE001 - a file the plain readers cannot open is left out, and said
            print(f"left out {f.name}: {type(exc).__name__}", file=sys.stderr)
            continue
        size += len(text)
        files += 1
        low = text.lower()
        if len(low) != len(text):
            continue
        for w in sorted(words):
            for at in abbreviated_at(low, w, text):
                short = re.match(r"[a-z]+", low[at:]).group(0)
                ctx = text[max(text.rfind("\n", 0, at) + 1, at - 50):at + 50].replace("\n", " ").replace("\t", " | ")
                matches.append((short, w, f.name, ctx))
    right = [m for m in matches if m[:2] in RIGHT]
    print(f"{files} files, {size / 1e6:.1f} M characters of text, {len(words)} query words: "
          f"{len(matches)} matches, {len(right)} right, {len(matches) - len(right)} wrong")
    print("wrong:", collections.Counter(m[:2] for m in matches if m[:2] not in RIGHT).most_common())
    if args.show:
        for m in matches:
            print("+" if m[:2] in RIGHT else "?", f"{m[0]}. -> {m[1]}", m[2], "|", m[3])


if __name__ == "__main__":
    main()
