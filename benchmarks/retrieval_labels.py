"""Labels of ``benchmarks/retrieval.py``: the eight question sets, the labelled places, a wording check.

Eight sets, all written by reading the documents of ``tests/data/corpus`` (never from mnote-kr's
output):

* ``retrieval_questions.json`` (the "old" set, 64 questions): the set the embedder mix and the
  cosine threshold were chosen on; its ``other`` questions often still share a content word with
  the answering text.
* ``retrieval_heldout.json`` (the "held-out" set, 48 questions, all ``other``): written later and
  tuned on since issue 33. Each asks in synonyms or descriptions; no content word of the
  question occurs in the answering paragraph (:func:`shared_words` checks it: English words
  compared after a crude stemming, Chinese by two-character words).
* ``retrieval_heldout2.json`` (the "heldout2" set, 63 questions: 32 Chinese, 31 English;
  54 other wording, 9 same; 34 on PDF pages, 29 on DOCX paragraphs; 12 files, up to 8 questions
  on a long one): written before any tuning of the ranking by meaning and never used to choose
  anything. Each names its answering place exactly: a DOCX label its ``paragraph`` index (and a
  verbatim ``answer`` snippet of that paragraph); a PDF label its ``page``, a verbatim ``answer``
  snippet and its answering ``block`` as the verbatim ``first`` and ``last`` words of the block
  (a paragraph of one column as printed), which :func:`pdf_block_rect` turns into a rectangle.
* ``retrieval_tune3.json`` (the "tune3" set, 60 questions: 30 Chinese, 42 other wording; 39 on
  PDF blocks, 21 on DOCX paragraphs; 8 files no other set uses): labelled like heldout2, written
  before any tuning on it and then tuned on, so that the ranking is chosen on files it was not
  written around.
* ``retrieval_heldout3.json`` (the "heldout3" set, 60 questions: 30 Chinese, 42 other wording; 24
  on PDF blocks, 36 on DOCX paragraphs; 6 files no other set uses, among them a 65-page French PDF
  and a 988-paragraph journal issue): labelled like heldout2, written before issue 33's seventh
  round tuned anything, and never tuned on (its misses are never printed).
* ``retrieval_tables.json`` (the "tables" set, 38 questions: 21 Chinese, 33 other wording; 27 on PDF
  table cells, 11 on DOCX table cells): questions about what a table's cell holds, written before issue
  33's twelfth round tuned on it (a tuning set). A DOCX label names the cell's paragraph; a PDF label
  its page and the cell's value, no block (a cell's box would miss a row's block by IoU).
* ``retrieval_tune4.json`` (the "tune4" set, 48 questions: 24 Chinese, 24 English; 43 other wording,
  5 same; all on PDF blocks: 28 on a six-page scanned auditor's letter, 17 on a two-column scanned
  magazine page, 3 on a code listing and a formula; 3 files no other set uses): labelled like
  heldout2, written before any tuning on it (issue 33's fourteenth round) to choose a PDF locator
  setting on; a tuning set. Both scans draw their Chinese OCR text in a font the PDF does not embed.
* ``retrieval_tune5.json`` (the "tune5" set, 48 questions asked in another language than their document's:
  30 Chinese over five files no other set uses (Japanese, Persian, Korean, English), 10 English over two
  Chinese files of tune3 and tune4 (other paragraphs and blocks than theirs), 8 in the document's own
  language; 41 other wording; 36 on DOCX paragraphs, 12 on PDF blocks): labelled like heldout2, written
  before any tuning on it (issue 33's twenty-first round) to tune cross-language recall on; a tuning set.

The labelled place is read here with readers of this file's own, not with the locators under
test: a DOCX paragraph is every ``w:p`` under ``w:body`` in order with nested ones skipped (the
``paragraphIndex`` contract of ``mnote_kr.models.Locator``); a PDF page's text comes from pypdf,
and a labelled block's rectangle from pypdfium2's own character boxes (the union of the boxes of
every character from the block's first words to its last words, in PDF points with a top-left
origin on the crop box, the ``Locator.bbox`` frame), not from ``mnote_kr_pdf_bbox``. A page whose CJK
text PDFium cannot read (a font the PDF does not embed, as in tune4's scans) takes its characters and
boxes from pdfminer.six instead, in pdfminer's reading order.
:func:`resolve` gives every label's place and fails unless its snippets name exactly one place.

    .venv/bin/python benchmarks/retrieval_labels.py   # prints every held-out question's overlap
"""

from __future__ import annotations

import functools
import json
import re
import sys
import unicodedata
import zipfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from mnote_kr_testkit.data import CORPUS

HERE = Path(__file__).resolve().parent
OLD = HERE / "retrieval_questions.json"
HELDOUT = HERE / "retrieval_heldout.json"
HELDOUT2 = HERE / "retrieval_heldout2.json"
TUNE3 = HERE / "retrieval_tune3.json"
TUNE4 = HERE / "retrieval_tune4.json"
TUNE5 = HERE / "retrieval_tune5.json"
HELDOUT3 = HERE / "retrieval_heldout3.json"
TABLES = HERE / "retrieval_tables.json"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
CJK = "\u3400-\u4dbf\u4e00-\u9fff\u2e80-\u2fdf\uf900-\ufaff"


def load_sets() -> tuple[list[str], dict[str, list[dict[str, Any]]]]:
    """The documents to ingest (those of the old set, then those the later sets add) and the
    question sets by name (``old``, ``heldout``, ``heldout2``, ``tune3``, ``heldout3``, ``tables``,
    ``tune4``, ``tune5``), set name added."""
    old = json.loads(OLD.read_text(encoding="utf-8"))
    held = json.loads(HELDOUT.read_text(encoding="utf-8"))
    held2 = json.loads(HELDOUT2.read_text(encoding="utf-8"))
    tune3 = json.loads(TUNE3.read_text(encoding="utf-8"))
    held3 = json.loads(HELDOUT3.read_text(encoding="utf-8"))
    tables = json.loads(TABLES.read_text(encoding="utf-8"))
    tune4 = json.loads(TUNE4.read_text(encoding="utf-8"))
    tune5 = json.loads(TUNE5.read_text(encoding="utf-8"))
    sets = {"old": old["questions"], "heldout": held["questions"], "heldout2": held2["questions"],
            "tune3": tune3["questions"], "heldout3": held3["questions"], "tables": tables["questions"],
            "tune4": tune4["questions"], "tune5": tune5["questions"]}
    for name, qs in sets.items():
        for q in qs:
            q["set"] = name
    mark_cross([q for qs in sets.values() for q in qs])
    documents = list(old["documents"])
    for more in (held2["documents"], tune3["documents"], held3["documents"], tables["documents"], tune4["documents"],
                 tune5["documents"]):
        documents += [d for d in more if d not in documents]
    stray = sorted({q["doc"] for qs in sets.values() for q in qs} - set(documents))
    if stray:
        raise SystemExit(f"Error: questions name documents outside the ingested set: {stray} "
                         "(add them to the set's \"documents\")")
    return documents, sets


def corpus_host(ws: Path, files: list[str]) -> Any:
    """A ``Host`` on a new workspace ``ws`` whose root ``docs`` holds copies of the corpus ``files``
    (not yet ingested): the library the retrieval benchmarks search."""
    import shutil

    from mnote_kr.app.host import Host

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


Rect = tuple[float, float, float, float]


class LabelError(ValueError):
    """A label whose snippets do not name exactly one place in its file."""


@functools.lru_cache(maxsize=64)
def pdf_chars(path: Path, page: int) -> tuple[str, tuple[Rect | None, ...]]:
    """One 1-based PDF page as pypdfium2 reads it: the text folded by :func:`norm` one character at
    a time, and for each folded character the box of the character it came from ([x0, y0, x1, y1]
    in PDF points, top-left origin on the crop box clipped to the media box; ``None`` for a
    character without extent). Characters PDFium generates (line breaks, spaces) are left out. A page
    whose CJK text PDFium cannot read (:func:`_unread_cjk`, and pypdf reads clearly more) is read by
    pdfminer.six instead when that reading holds clearly more letters and digits."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    doc = pdfium.PdfDocument(path)
    try:
        pg = doc[page - 1]
        if pg.get_rotation() % 360:
            raise LabelError(f"{path.name} p.{page} is rotated: label an unrotated page")
        crop, media = pg.get_cropbox(), pg.get_mediabox()
        x0, top = max(crop[0], media[0]), min(crop[3], media[3])
        tp = pg.get_textpage()
        flat: list[str] = []
        boxes: list[Rect | None] = []
        for i in range(tp.count_chars()):
            if raw.FPDFText_IsGenerated(tp.raw, i) == 1:
                continue
            ch = chr(raw.FPDFText_GetUnicode(tp.raw, i))
            # PDFium marks a hyphen that breaks a word at a line end with U+0002: dropped, as norm drops "-".
            folded = "" if unicodedata.category(ch) == "Cc" else norm(ch)
            if not folded:
                continue
            left, bottom, right, upper = tp.get_charbox(i)
            box = (left - x0, top - upper, right - x0, top - bottom) if right > left and upper > bottom else None
            flat.extend(folded)
            boxes.extend([box] * len(folded))
        # pdfminer (slow) only where pypdf reads clearly more than PDFium, and only a clearly
        # fuller reading replaces PDFium's
        if _fuller(pdf_page_text(path, page), flat) and _unread_cjk(pg, tp):
            mined = _pdfminer_chars(path, page, (x0, top), (media[0], media[1]))
            if _fuller(mined[0], flat):
                return mined
        return "".join(flat), tuple(boxes)
    finally:
        doc.close()


def _fuller(text: str, than: list[str] | str) -> bool:
    """True when ``text`` holds clearly more letters and digits than ``than``."""
    return sum(c.isalnum() for c in text) > 1.1 * sum(c.isalnum() for c in than) + 8


def _unread_cjk(page: Any, textpage: Any) -> bool:
    """True when at least a tenth of the page's text objects use a font the PDF does not embed and
    gave PDFium no text: CJK text in a non-embedded CID font (``GBK-EUC-H``, ...), which PDFium as
    pypdfium2 ships it cannot map to Unicode nor measure (no characters, no boxes)."""
    import pypdfium2.raw as raw

    unread = total = 0
    for k in range(raw.FPDFPage_CountObjects(page.raw)):
        obj = raw.FPDFPage_GetObject(page.raw, k)
        if raw.FPDFPageObj_GetType(obj) != raw.FPDF_PAGEOBJ_TEXT:
            continue
        total += 1
        font = raw.FPDFTextObj_GetFont(obj)
        # the length counts the UTF-16 terminator: 2 bytes is no text at all
        unread += bool(font) and not raw.FPDFFont_GetIsEmbedded(font) and \
            raw.FPDFTextObj_GetText(obj, textpage.raw, None, 0) <= 2
    return total > 0 and unread >= 0.1 * total


def _pdfminer_chars(path: Path, page: int, origin: tuple[float, float],
                    media: tuple[float, float]) -> tuple[str, tuple[Rect | None, ...]]:
    """:func:`pdf_chars` of a page PDFium cannot read (:func:`_unread_cjk`), read by pdfminer.six
    (its Adobe CMaps and CID widths): its characters in reading order, their boxes moved from
    pdfminer's frame (bottom-left origin on the media box) to ``Locator.bbox``'s (``origin``: the
    left and top edges of the crop box clipped to the media box, in PDF points)."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams, LTChar

    # In pdfminer's reading order, not the content stream's: a scan's OCR layer may draw the lines
    # of two columns in turn. Lines up to a line's height apart share a box, so a column's lines
    # stay together and a paragraph of one column stays one run of characters.
    layout = next(iter(extract_pages(str(path), page_numbers=[page - 1], laparams=LAParams(line_margin=1.0))))
    flat: list[str] = []
    boxes: list[Rect | None] = []
    stack: list[Any] = [layout]
    while stack:  # depth first, children in their order: boxes, their lines, their characters
        item = stack.pop()
        if not isinstance(item, LTChar):
            stack.extend(reversed(list(item)) if hasattr(item, "__iter__") else [])
            continue
        folded = norm(item.get_text()) if not item.get_text().startswith("(cid:") else ""
        if not folded:
            continue
        left, bottom, right, upper = item.bbox
        left, right, bottom, upper = left + media[0], right + media[0], bottom + media[1], upper + media[1]
        box = (left - origin[0], origin[1] - upper, right - origin[0], origin[1] - bottom) \
            if right > left and upper > bottom else None
        flat.extend(folded)
        boxes.extend([box] * len(folded))
    return "".join(flat), tuple(boxes)


def _occurrences(text: str, snippet: str) -> list[int]:
    out, at = [], text.find(snippet)
    while at >= 0:
        out.append(at)
        at = text.find(snippet, at + 1)
    return out


def _one(found: list[Any], what: str) -> Any:
    if len(found) != 1:
        raise LabelError(f"{what} occurs {len(found)} times (a label must name exactly one place)")
    return found[0]


def pdf_block_rect(path: Path, page: int, answer: str, first: str, last: str) -> Rect:
    """The rectangle of a labelled PDF block: the union of the boxes of its characters from the
    block's ``first`` words to its ``last`` words, each found exactly once on the page, with the
    ``answer`` snippet found exactly once in the document, on this page, inside the block."""
    pages = len(pdf_pages(path))
    hits = [(p, at) for p in range(1, pages + 1) for at in _occurrences(pdf_chars(path, p)[0], norm(answer))]
    where = f"{path.name} p.{page}"
    ans_page, ans_at = _one(hits, f"answer {answer!r} in {path.name}")
    if ans_page != page:
        raise LabelError(f"answer {answer!r} is on p.{ans_page} of {path.name}, labelled p.{page}")
    text, boxes = pdf_chars(path, page)
    start = _one(_occurrences(text, norm(first)), f"block start {first!r} on {where}")
    end = _one(_occurrences(text, norm(last)), f"block end {last!r} on {where}") + len(norm(last))
    if not start <= ans_at < ans_at + len(norm(answer)) <= end:
        raise LabelError(f"answer {answer!r} is not inside the block {first!r} .. {last!r} on {where}")
    inside = [b for b in boxes[start:end] if b is not None]
    return (min(b[0] for b in inside), min(b[1] for b in inside), max(b[2] for b in inside), max(b[3] for b in inside))


@functools.lru_cache(maxsize=64)
def pdf_pages(path: Path) -> tuple[int, ...]:
    """The 1-based page numbers of a PDF (cached: every label of a file asks)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(path)
    try:
        return tuple(range(1, len(doc) + 1))
    finally:
        doc.close()


def resolve(label: dict[str, Any]) -> dict[str, Any]:
    """The labelled place of a question, read from its file: ``paragraphs`` (DOCX: the paragraph of
    its snippet, then those of its ``also`` snippets) or ``pages`` (PDF) and, for a label with a
    ``block``, the block's ``rect``. Raises :class:`LabelError` unless every snippet names exactly
    one place: a DOCX snippet one paragraph (the stated ``paragraph`` when the label has one), a
    block label one block (:func:`pdf_block_rect`), a PDF label without a block its page (the
    snippet must be on it)."""
    path = CORPUS / label["doc"]
    snippets = [label, *label.get("also", [])]
    if label["doc"].endswith(".docx"):
        paragraphs = []
        for x in snippets:
            want = norm(x["answer"])
            found = [i for i, text in enumerate(docx_paragraphs(path)) if want in norm(text)]
            paragraphs.append(_one(found, f"snippet {x['answer']!r} in {path.name}"))
        if "paragraph" in label and label["paragraph"] != paragraphs[0]:
            raise LabelError(f"snippet {label['answer']!r} is in paragraph {paragraphs[0]} of {path.name}, "
                             f"labelled {label['paragraph']}")
        return {"paragraphs": paragraphs}
    if "block" in label:
        block = label["block"]
        rect = pdf_block_rect(path, label["page"], label["answer"], block["first"], block["last"])
        return {"pages": [label["page"]], "rect": rect}
    # A label without a block names a page (the old sets' place): its snippet must be on it.
    pages = [x.get("page", label["page"]) for x in snippets]
    for x, page in zip(snippets, pages, strict=True):
        if norm(x["answer"]) not in norm(pdf_page_text(path, page)):
            raise LabelError(f"snippet {x['answer']!r} is not on p.{page} of {path.name} (pypdf text)")
    return {"pages": pages}


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


_SCRIPTS = {"cjk": re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"),
            "latin": re.compile(r"[A-Za-z\u00c0-\u024f]"), "hangul": re.compile(r"[\uac00-\ud7af]"),
            "arabic": re.compile(r"[\u0600-\u06ff]")}


def cross_group(label: dict[str, Any], held_out: tuple[str, ...]) -> str:
    """``x-cross`` or ``x-same`` (``xh-`` in the ``held_out`` sets: aggregates only): whether the question's
    script is not its document's (``mark_cross``)."""
    return f"{'xh' if label['set'] in held_out else 'x'}-{'cross' if label.get('cross') else 'same'}"


def print_cross(evals: dict[str, Any], names: list[str]) -> None:
    """recall@5 and MRR of the cross- and same-language groups, as returned -> this tree's ranking re-applied."""
    for group in ("x-cross", "x-same", "xh-cross", "xh-same"):
        gs = {n: evals[n]["groups"].get(group) for n in names}
        if all(gs.values()):
            print(f"{group:18} " + " ".join(
                f"{n}: n {gs[n]['mrr'][1]} r@5 {gs[n]['recall5'][0]:.3f}->{gs[n]['recall5_rerun'][0]:.3f} "
                f"MRR {gs[n]['mrr'][0]:.3f}->{gs[n]['mrr_rerun'][0]:.3f}" for n in names))


def mark_cross(labels: list[dict[str, Any]]) -> None:
    """In place: ``cross`` on each label whose question's script (``lang``: zh CJK, en Latin) is not its
    document's, the script most letters of every answer snippet labelled in that document are in (Han and kana
    one script: a Chinese question shares characters with a Japanese file; Korean and Persian their own)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for q in labels:
        for name, pattern in _SCRIPTS.items():
            counts[q["doc"]][name] += len(pattern.findall(q.get("answer") or ""))
    for q in labels:
        script = counts[q["doc"]].most_common(1)[0][0] if counts[q["doc"]] else "latin"
        q["cross"] = script != ("cjk" if q["lang"] == "zh" else "latin")


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
