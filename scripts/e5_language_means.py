"""Compute the language means of e5 that ``mnote_kr.citations.rank.neutral`` takes out (run once;
the output is committed).

    .venv/bin/python scripts/e5_language_means.py

multilingual-e5-small gives every text of a language a common offset: a Chinese question is nearer
an unrelated Chinese passage than the English passage that answers it. The offset of each language
is estimated as the mean vector of ``e5_language_texts.json``: 120 paragraphs on as many subjects,
each written in English and in Chinese for this purpose (no document of the corpus, so no benchmark
set fed the constants). Parallel texts keep the subjects out of the difference between the two
means. Each text is embedded both ways e5 is used: ``query: `` (the engine's chunks and questions,
and the questions matched to places) and ``passage: `` (the places of a file).

Measured before choosing (chunk-sized windows of the benchmark files, the tuning sets' questions,
the answering file among the five nearest): Chinese questions about English files 1 of 24 with raw
e5, 15 with means from corpus files no set uses (2 Chinese financial reports, 4 English files),
24 with these parallel means; questions in the file's own language 136 -> 135 of 148.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEXTS = Path(__file__).resolve().with_name("e5_language_texts.json")
OUT = ROOT / "mnote_kr" / "citations" / "rank" / "e5_language_means.json"


def main() -> int:
    import numpy as np

    from mnote_kr.citations.rank.e5 import E5_SHA256, model

    pairs = json.loads(TEXTS.read_text(encoding="utf-8"))["pairs"]
    record: dict[str, object] = {"model": E5_SHA256, "texts": f"scripts/{TEXTS.name}",
                                 "textsSha256": hashlib.sha256(TEXTS.read_bytes()).hexdigest(), "pairs": len(pairs)}
    for kind, query in (("query", True), ("passage", False)):
        means = {}
        for lang in ("zh", "en"):
            vecs = np.asarray(model().embed([p[lang] for p in pairs], query=query, max_tokens=512))
            means[lang] = [round(float(v), 6) for v in vecs.mean(axis=0)]
        record[kind] = means
    body = json.dumps(record, ensure_ascii=False, indent=1) + "\n"
    OUT.write_text(body, encoding="utf-8")
    digest = hashlib.sha256(body.encode()).hexdigest()[:12]
    print(f"wrote {OUT.relative_to(ROOT)} from {len(pairs)} pairs (sha256 {digest})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
