"""Question cases for the DOCX locator benchmark, labelled from the DOCX XML itself.

The labels do not come from the code under test: each document's ``word/document.xml``
is read here with lxml alone, its ``w:p`` under ``w:body`` numbered as ``paragraphIndex`` counts
(document order, table cells included, a ``w:p`` inside another ``w:p`` skipped), and a
paragraph's text is its own ``w:t`` text. A case is:

* evidence: a window of 3 to 6 whole neighbouring non-empty paragraphs (a LightRAG
  chunk);
* query: 2 to 4 content words of the target paragraph in any order, sometimes inside a
  question, with at least one word also present in another paragraph of the window
  and the target the only paragraph of the window that holds them all;
* expected: the target's index (or any paragraph with the same text).

Two baselines are computed from the same labels: the first paragraph of the evidence,
and the evidence paragraph that holds the most query words (first on ties).
"""

from __future__ import annotations

import random
import re
import zipfile
from pathlib import Path

from lxml import etree

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_\u3040-\u9fff\uac00-\ud7af]{4,}(?![^\W\d_])")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")
_STOP = frozenset(
    "this that with from have were been their there which about would could should these those what when "
    "where while other into also than then them they will shall each such only more most some very over "
    "under between after before being does used using upon make made many much must here your through "
    "because during against within without above below again further once both same just like well even "
    "still yet among across along around toward towards whose whom onto per via".split()
)
_QUESTIONS_EN = ("what about {}?", "which part mentions {}?", "where does it say {}", "{}", "{}", "tell me {}")
_QUESTIONS_ZH = ("{}是什么？", "关于{}的内容", "{}", "{}", "哪里提到{}？")


def xml_paragraphs(path: Path) -> list[tuple[str, bool]]:
    """``(text, is a TOC line)`` of the body paragraphs in ``paragraphIndex`` order, from the XML alone.

    Text is the paragraph's own ``w:t`` text, with ``w:tab`` as a tab and ``w:br``/``w:cr``
    as a line break; a TOC line has a ``TOC…`` paragraph style or a ``_Toc`` hyperlink.
    """
    with zipfile.ZipFile(path) as zf:
        root = etree.fromstring(zf.read("word/document.xml"), etree.XMLParser(huge_tree=True, resolve_entities=False))
    body = root.find(W + "body")
    out: list[tuple[str, bool]] = []
    if body is None:
        return out
    for p in body.iter(W + "p"):
        if any(a.tag == W + "p" for a in p.iterancestors()):
            continue
        parts = []
        for t in p.iter(W + "t", W + "tab", W + "br", W + "cr"):
            owner = next(a for a in t.iterancestors() if a.tag == W + "p")
            if owner is not p:
                continue
            if t.tag == W + "t":
                parts.append(t.text or "")
            else:
                parts.append("\t" if t.tag == W + "tab" else "\n")
        style = p.find(f"{W}pPr/{W}pStyle")
        toc = style is not None and (style.get(W + "val") or "").lower().startswith("toc")
        toc = toc or any((h.get(W + "anchor") or "").startswith("_Toc") for h in p.iter(W + "hyperlink"))
        out.append(("".join(parts), toc))
    return out


def _terms(text: str) -> list[str]:
    """Candidate query words of a paragraph: Latin words of 4+ letters, CJK 2-3 character pieces."""
    words = [w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP]
    for run in _CJK_RUN.findall(text):
        for i in range(0, len(run) - 1, 2):
            words.append(run[i : i + 2 + (i % 3 == 0 and i + 3 <= len(run))])
    return list(dict.fromkeys(words))


def _holds(text: str, word: str) -> bool:
    low = text.lower()
    if _WORD.fullmatch(word):
        return re.search(rf"(?<![^\W\d_]){re.escape(word)}(?![^\W\d_])", low) is not None
    return word in low


def question_cases(corpus: Path, rng: random.Random, per_doc: int = 12) -> list[dict]:
    """Question cases over every corpus DOCX whose XML this module can read."""
    cases: list[dict] = []
    for path in sorted(corpus.glob("*.docx")):
        try:
            rows = xml_paragraphs(path)
        except (KeyError, zipfile.BadZipFile, etree.XMLSyntaxError):
            continue
        paras = [t for t, _ in rows]
        # a window of contents lines names the body elsewhere: DESIGN cites the body, not
        # the contents, so such windows have no single right answer and are left out
        toc = {i for i, (_, is_toc) in enumerate(rows) if is_toc}
        nonempty = [i for i, t in enumerate(paras) if t.strip()]
        made = 0
        order = [k for k in range(len(nonempty)) if len(paras[nonempty[k]].strip()) >= 30]
        rng.shuffle(order)
        for k in order:
            if made >= per_doc:
                break
            target = nonempty[k]
            size = rng.randint(3, 6)
            lo = max(0, min(k - rng.randint(0, size - 1), len(nonempty) - size))
            window = nonempty[lo : lo + size]
            if target not in window or len(window) < 3 or toc & set(window):
                continue
            others = [i for i in window if i != target]
            words = _terms(paras[target])
            shared = [w for w in words if any(_holds(paras[i], w) for i in others)]
            if not shared or len(words) < 2:
                continue
            n = rng.randint(2, min(4, len(words)))
            pick = [rng.choice(shared)]
            rest = [w for w in words if w != pick[0]]
            pick += rng.sample(rest, min(n - 1, len(rest)))
            if any(all(_holds(paras[i], w) for w in pick) for i in others):
                continue  # the window would not single out the target
            rng.shuffle(pick)
            cjk = _CJK_RUN.match(pick[0]) is not None
            query = rng.choice(_QUESTIONS_ZH if cjk else _QUESTIONS_EN).format(
                (" " if not cjk or rng.random() < 0.5 else "").join(pick)
            )
            same = [i for i, t in enumerate(paras) if t == paras[target]]
            first = window[0]
            counts = [(sum(_holds(paras[i], w) for w in pick), -pos) for pos, i in enumerate(window)]
            most = window[-max(counts)[1]]
            cases.append(
                {
                    "kind": "question",
                    "file": str(path),
                    "evidence": "\n".join(paras[i] for i in window),
                    "query": query,
                    "expected": same,
                    "baseline_first": first,
                    "baseline_most": most,
                }
            )
            made += 1
    return cases
