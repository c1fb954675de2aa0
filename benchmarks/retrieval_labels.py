"""Labels of ``benchmarks/retrieval.py``: the two question sets, the labelled places, a wording check.

Two sets, both written by reading the documents of ``tests/data/corpus`` (never from mnote-kr's
output):

* ``retrieval_questions.json`` (the "old" set, 64 questions): the set the embedder mix and the
  cosine threshold were chosen on; its ``other`` questions often still share a content word with
  the answering text.
* ``retrieval_heldout.json`` (the "held-out" set, 48 questions, all ``other``): written later and
  never used to choose anything. Each asks in synonyms or descriptions; no content word of the
  question occurs in the answering paragraph (:func:`shared_words` checks it: English words
  compared after a crude stemming, Chinese by two-character words).

The labelled place is read here with readers of this file's own, not with the locators under
test: a DOCX paragraph is every ``w:p`` under ``w:body`` in order with nested ones skipped (the
``paragraphIndex`` contract of ``mnote_kr.models.Locator``); a PDF page's text comes from pypdf.

    .venv/bin/python benchmarks/retrieval_labels.py   # prints every held-out question's overlap
"""

from __future__ import annotations

import functools
import json
import re
import sys
import unicodedata
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from mnote_kr_testkit.data import CORPUS

HERE = Path(__file__).resolve().parent
OLD = HERE / "retrieval_questions.json"
HELDOUT = HERE / "retrieval_heldout.json"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
CJK = "\u3400-\u4dbf\u4e00-\u9fff\u2e80-\u2fdf\uf900-\ufaff"


def load_sets() -> tuple[list[str], dict[str, list[dict[str, Any]]]]:
    """The documents to ingest and the question sets by name (``old``, ``heldout``), set name added."""
    old = json.loads(OLD.read_text(encoding="utf-8"))
    held = json.loads(HELDOUT.read_text(encoding="utf-8"))
    sets = {"old": old["questions"], "heldout": held["questions"]}
    for name, qs in sets.items():
        for q in qs:
            q["set"] = name
    docs = set(old["documents"])
    stray = sorted({q["doc"] for q in held["questions"]} - docs)
    if stray:
        raise SystemExit(f"Error: held-out questions name documents outside the ingested set: {stray}")
    return old["documents"], sets


def corpus_host(ws: Path, files: list[str]) -> Any:
    """A ``Host`` on a new workspace ``ws`` whose root ``docs`` holds copies of the corpus ``files``
    (not yet ingested): the library the retrieval benchmarks search."""
    import shutil

    from mnote_kr.core.host import Host

    (ws / "docs").mkdir(parents=True)
    for rel in files:
        shutil.copyfile(CORPUS / rel, ws / "docs" / Path(rel).name)
    host = Host(ws)
    host.roots_add("docs")
    return host


def norm(text: str) -> str:
    """Folded text without whitespace or hyphens: PDF line breaks and CJK spacing do not matter."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\s\-\u00ad\ufffe]+", "", folded)


@functools.lru_cache(maxsize=64)
def docx_paragraphs(path: Path) -> tuple[str, ...]:
    """The text of every body paragraph (``w:p`` under ``w:body`` in order, nested ones skipped)."""
    with zipfile.ZipFile(path) as zf:
        root = ElementTree.fromstring(zf.read("word/document.xml"))
    body = root.find(f"{W}body")
    paragraphs: list[str] = []

    def walk(node: ElementTree.Element, inside_p: bool) -> None:
        for child in node:
            if child.tag == f"{W}p" and not inside_p:
                paragraphs.append("".join(t.text or "" for t in child.iter(f"{W}t")))
                walk(child, True)
            else:
                walk(child, inside_p)

    if body is not None:
        walk(body, False)
    return tuple(paragraphs)


def docx_paragraph_of(path: Path, snippet: str) -> int | None:
    """Index of the first body paragraph holding ``snippet`` (compared by :func:`norm`)."""
    want = norm(snippet)
    return next((i for i, text in enumerate(docx_paragraphs(path)) if want in norm(text)), None)


@functools.lru_cache(maxsize=256)
def pdf_page_text(path: Path, page: int) -> str:
    """The text layer of one 1-based PDF page, read by pypdf (not pdfium, the locator's reader).

    pypdf decodes the Chinese text of ``chatchat__1.pdf``, where pdfium returns only its Latin
    characters and digits.
    """
    import logging

    import pypdf

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # "Ignoring wrong pointing object" noise
    return pypdf.PdfReader(path).pages[page - 1].extract_text()


def answering_text(label: dict[str, Any], window: int = 300) -> str | None:
    """The labelled paragraph (DOCX) or ``window`` characters either side of the snippet (PDF page)."""
    path = CORPUS / label["doc"]
    if label["doc"].endswith(".docx"):
        i = docx_paragraph_of(path, label["answer"])
        return None if i is None else docx_paragraphs(path)[i]
    text = pdf_page_text(path, label["page"])
    # Positions of the folded, whitespace-free text in the page text, to cut a window around it.
    keep = [(i, c) for i, ch in enumerate(text) for c in norm(ch)]
    flat = "".join(c for _, c in keep)
    at = flat.find(norm(label["answer"]))
    if at < 0:
        return None
    start = keep[at][0]
    end = keep[min(at + len(norm(label["answer"])), len(keep)) - 1][0]
    return text[max(0, start - window): end + window]


_STOP = frozenset(
    """a an the and or but if then of to in on at by for from with about into over under is are was were
    be been being am do does did have has had can could may might must shall should will would what which
    who whom whose when where why how that this these those it its i me my we our you your he him his she
    her they them their there here not no as than so such any all some each more most other one just only
    rather while much many get got also let s out up off down""".split()
)
# Characters that make a two-character CJK sequence a function word, not a topic word.
_CJK_FUNC = frozenset("的了是在和与及或吗呢吧啊么什怎如何哪些个为请一这那其也都就被把对将从到上下中后前能可会要")


def _stem(word: str) -> str:
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ied", "ers", "er", "ed", "es", "s", "ly", "e"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """Stemmed Latin content words and CJK two-character sequences without a function character."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    out: set[str] = set()
    for tok in re.findall(rf"[{CJK}]+|[a-z0-9]+", folded):
        if re.fullmatch(rf"[{CJK}]+", tok):
            out.update(tok[i: i + 2] for i in range(len(tok) - 1)
                       if tok[i] not in _CJK_FUNC and tok[i + 1] not in _CJK_FUNC)
        elif tok not in _STOP and len(tok) > 1:
            out.add(_stem(tok))
    return out


def shared_words(label: dict[str, Any]) -> list[str] | None:
    """Content words of the question that also occur in the answering text (None: place not found)."""
    text = answering_text(label)
    if text is None:
        return None
    return sorted(content_words(label["q"]) & content_words(text))


def main() -> int:
    _, sets = load_sets()
    bad = 0
    for name, qs in sets.items():
        clean = other = 0
        for q in qs:
            other += q["wording"] == "other"
            shared = shared_words(q)
            if shared is None:
                print(f"[{name}] {q['id']}: labelled place NOT FOUND ({q['doc']} p.{q.get('page')} {q['answer']!r})")
                bad += name == "heldout"
            elif shared:
                if name == "heldout":
                    print(f"[{name}] {q['id']}: shares {shared}: {q['q']}")
                    bad += 1
            elif q["wording"] == "other":
                clean += 1
        print(f"[{name}] {clean} of {other} other-wording questions share no content word with the answering text")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
