"""Locate cases with known answers, shared by the tests and ``benchmarks/pdf_locate.py``.

Generated cases come from ``mnote_kr_testkit.pdfs``: random passages laid out in two columns drawn
row by row, with hyphenated line breaks, fi/fl ligatures, short query words that
also hide inside longer words earlier on the page, a rotated and cropped page, and a
page with no text layer. Corpus cases take Docling's ground truth (page + box) for its
PDFs, and for the others evidence as pypdf extracts it (what LightRAG's legacy engine
sees), with the true box from PDFium's tight character boxes.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from mnote_kr_pdf_bbox.model import load_document
from mnote_kr_pdf_bbox.pdftext import compact_with_map, fold_char, read_document
from mnote_kr_testkit.pdfs import Drawn, PdfBuilder, display_transform, displayed_box, text_width, union

WORDS = (
    "battery cell anode cathode charge voltage membrane channel lithium sample measured "
    "capacity cycle energy density thermal stable layer surface coating electrolyte solid "
    "polymer ceramic current report method result figure table value increase decrease "
    "pressure contact interface diffusion barrier material structure analysis effect "
    "field office profile reflow flight workflow specific efficient defined"
).split()
SHORT = ["ion", "cat", "other", "here", "ran"]  # each hides in a longer word below
HIDERS = "question cation another therefore membrane".split()


@dataclass
class Case:
    """One locate request with its expected answer (``box`` None: no box allowed)."""

    name: str
    kind: str  # generated | corpus | scanned | foreign
    file: str
    evidence: str
    query: str
    page: int | None
    box: tuple[float, float, float, float] | None


def _lines_for(rng: random.Random, width: float, size: float, n_words: int) -> tuple[list[str], str]:
    """Break random words into lines of ``width``; returns drawn lines and the plain evidence."""
    words = [rng.choice(WORDS) for _ in range(n_words)]
    words.insert(rng.randrange(1, n_words), rng.choice(SHORT))
    plain = " ".join(words) + "."
    lines: list[str] = []
    cur = ""
    for i, w in enumerate(words):
        w_draw = w.replace("fi", "\ufb01").replace("fl", "\ufb02")
        cand = (cur + " " + w_draw).strip()
        if text_width(cand, size) <= width:
            cur = cand
            continue
        if len(w) >= 7 and i % 2 == 0:  # hyphenate: "exam-" / "ple"
            head = w_draw[: len(w_draw) // 2]
            lines.append((cur + " " + head + "-").strip())
            cur = w_draw[len(w_draw) // 2 :]
        else:
            lines.append(cur)
            cur = w_draw
    lines.append(cur + ".")
    return lines, plain


def generated_pdf(path: Path, seed: int = 7) -> list[Case]:
    """Write a 4-page test PDF to ``path`` and return its cases."""
    rng = random.Random(seed)
    b = PdfBuilder()
    cases: list[Case] = []
    size, lead = 9.0, 12.0

    def passage(page: int, x: float, y: float, width: float, name: str) -> tuple[list[Drawn], float, str]:
        lines, plain = _lines_for(rng, width, size, rng.randint(14, 26))
        drawn = [b.text(page, x, y - i * lead, t, size) for i, t in enumerate(lines)]
        return drawn, y - len(lines) * lead - lead, plain

    def add_case(name: str, drawn: list[Drawn], plain: str) -> None:
        q = next((w for w in SHORT if re.search(rf"\b{w}\b", plain)), "")
        cases.append(Case(name, "generated", str(path), plain, q, drawn[0].page, union([d.box for d in drawn])))

    # page 1: a hider line, then two columns drawn row by row
    p1 = b.add_page()
    b.text(p1, 72, 750, "A " + " ".join(HIDERS) + " heading line for the whole page.", 11)
    cols: list[list[tuple[list[str], str]]] = [[], []]
    for c in range(2):
        for _ in range(5):
            cols[c].append(_lines_for(rng, 220, size, rng.randint(14, 24)))
    ys = [720.0, 720.0]
    rows: list[tuple[int, float, str]] = []
    spans: list[tuple[int, int, int, str]] = []
    for c in range(2):
        for lines, plain in cols[c]:
            start = len([r for r in rows if r[0] == c])
            for t in lines:
                rows.append((c, ys[c], t))
                ys[c] -= lead
            ys[c] -= lead
            spans.append((c, start, start + len(lines), plain))
    # interleave: left row, right row, ... like producers that draw line by line
    by_col = [[r for r in rows if r[0] == c] for c in range(2)]
    drawn_col: list[list[Drawn]] = [[], []]
    for i in range(max(len(by_col[0]), len(by_col[1]))):
        for c in range(2):
            if i < len(by_col[c]):
                _, y, t = by_col[c][i]
                drawn_col[c].append(b.text(p1, 72 if c == 0 else 330, y, t, size))
    for k, (c, s, e, plain) in enumerate(spans):
        add_case(f"gen-2col-{c}-{k}", drawn_col[c][s:e], plain)
    # page 2: one column
    p2 = b.add_page()
    y = 740.0
    for k in range(6):
        drawn, y, plain = passage(p2, 72, y, 460, f"gen-1col-{k}")
        add_case(f"gen-1col-{k}", drawn, plain)
    # page 3: rotated 90 degrees with an offset crop box
    p3 = b.add_page(rotate=90, cropbox=(36, 48, 580, 760))
    y = 700.0
    for k in range(5):
        drawn, y, plain = passage(p3, 80, y, 420, f"gen-rot-{k}")
        add_case(f"gen-rot-{k}", drawn, plain)
    # page 4: a "scan": an image and no text layer
    p4 = b.add_page()
    b.image_block(p4, (60, 60, 550, 730))
    _, scan_plain = _lines_for(rng, 400, size, 20)
    cases.append(Case("gen-scanned-page", "scanned", str(path), scan_plain, "", None, None))
    for k in range(4):
        _, foreign = _lines_for(random.Random(1000 + k), 400, size, 22)
        cases.append(Case(f"gen-foreign-{k}", "foreign", str(path), foreign, "", None, None))
    path.write_bytes(b.build())
    return cases


# --------------------------------------------------------------------------- corpus

DOCLING = ["2305.03393v1-pg9", "amt_handbook_sample", "code_and_formula", "multi_page", "redp5110_sampled"]
PYPDF = [
    "chatchat__1.pdf", "mineru__test_rearch_report.pdf", "weknora__WeKnora.pdf",
    "pdfplumber__issue-982-example.pdf", "pdfminer__naacl06-shinyama.pdf", "unstructured__multi-column-2p.pdf",
]
SCANNED = ["mineru__scanned.pdf", "docling__ocr_test.pdf", "markitdown__MEDRPT-2024-PAT-3847_medical_report_scan.pdf"]


def _query_from(text: str, rng: random.Random) -> str:
    words = [w for w in re.findall(r"[A-Za-z]{4,}", text)]
    if words:
        return rng.choice(words)
    cjk = re.findall(r"[\u4e00-\u9fff]{2,}", text)
    return rng.choice(cjk)[:2] if cjk else ""


def docling_cases(corpus: Path, per_doc: int = 12, seed: int = 3) -> list[Case]:
    """Docling's own page + box for paragraphs of its PDFs (bottom-left converted)."""
    rng = random.Random(seed)
    out: list[Case] = []
    for stem in DOCLING:
        gt = json.loads((corpus / "groundtruth" / "docling" / f"docling__{stem}.json").read_text("utf-8"))
        items = [
            t for t in gt["texts"]
            if t.get("label") in {"text", "paragraph", "list_item", "caption"}
            and len(t.get("text", "")) >= 60 and len(t.get("prov", [])) == 1
        ]
        rng.shuffle(items)
        doc = read_document(corpus / "pdf" / f"docling__{stem}.pdf")
        items = [t for t in items if _unique(doc.stream.compact, t["text"])]
        for t in items[:per_doc]:
            prov = t["prov"][0]
            h = gt["pages"][str(prov["page_no"])]["size"]["height"]
            bb = prov["bbox"]
            box = (bb["l"], h - bb["t"], bb["r"], h - bb["b"])
            out.append(Case(f"docling-{stem}-{t['self_ref'].split('/')[-1]}", "corpus",
                            str(corpus / "pdf" / f"docling__{stem}.pdf"), t["text"],
                            _query_from(t["text"], rng), prov["page_no"], box))
    return out


def _unique(compact: str, text: str) -> bool:
    """False when the passage's opening also appears elsewhere (ambiguous truth)."""
    head = compact_with_map(text)[0][:60]
    return compact.count(head) <= 1 and (len(head) < 60 or compact.count(head[-40:]) <= 1)


def pypdf_cases(corpus: Path, per_doc: int = 10, seed: int = 5) -> list[Case]:
    """Evidence as pypdf extracts it; truth from PDFium tight boxes of the same characters."""
    import logging

    import pypdf
    import pypdfium2 as pdfium

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # font-encoding chatter, not errors
    rng = random.Random(seed)
    out: list[Case] = []
    for name in PYPDF:
        f = corpus / "pdf" / name
        reader = pypdf.PdfReader(str(f))
        pdoc = pdfium.PdfDocument(str(f))
        doc = read_document(f)
        picked = 0
        tries = 0
        while picked < per_doc and tries < per_doc * 8:
            tries += 1
            pi = rng.randrange(len(reader.pages))
            raw = reader.pages[pi].extract_text() or ""
            lines = [ln for ln in raw.splitlines() if len(compact_with_map(ln)[0]) >= 12]
            if len(lines) < 3:
                continue
            k = rng.randrange(len(lines) - 2)
            ev = "\n".join(lines[k : k + 2])
            cev, _ = compact_with_map(ev)
            page = doc.pages[pi]
            stream, src = compact_with_map(page.text)
            at = stream.find(cev)
            if at < 0 or stream.find(cev, at + 1) >= 0 or len(cev) < 20:
                continue  # extractors disagree or the passage repeats: no trustworthy truth
            shown = display_transform(pdoc[pi])  # PDFium's page transform, not the locator's
            tp = pdoc[pi].get_textpage()
            if tp.count_chars() != len(page.text):
                continue  # the locator read this page with another reader (cidtext): no PDFium truth
            split = len(compact_with_map(lines[k])[0])
            halves: list[list[tuple[float, float, float, float]]] = [[], []]
            for j, ci in enumerate(src[at : at + len(cev)]):
                x0, y0, x1, y1 = tp.get_charbox(ci)
                if x1 > x0 and y1 > y0:
                    halves[j >= split].append(displayed_box(shown, (x0, y0, x1, y1)))
            if not halves[0] or not halves[1]:
                continue
            a, b2 = union(halves[0]), union(halves[1])
            h = max(a[3] - a[1], b2[3] - b2[1])
            if b2[1] - a[3] > 0.8 * h or min(a[2], b2[2]) <= max(a[0], b2[0]):
                continue  # the two lines are separate blocks, not one passage
            boxes = halves[0] + halves[1]
            out.append(Case(f"pypdf-{name[:-4]}-p{pi + 1}-{k}", "corpus", str(f), ev,
                            _query_from(ev, rng), pi + 1, union(boxes)))
            picked += 1
        pdoc.close()
    return out


def page_requests(pdf_dir: Path, names: list[str], *, parts: int,
                  question_window: bool) -> list[tuple[str, str, str]]:
    """(file name, evidence, query) as LightRAG's own PDF reading (pypdf) gives a page: every
    ``len(pages) // parts``-th page of each file, its text (up to 4,000 characters) with a phrase
    of two of its words, and a question of two others asked of the same text, or, with
    ``question_window``, of a 480-character window a third of the way into it."""
    import logging

    import pypdf

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    out = []
    for name in names:
        reader = pypdf.PdfReader(str(pdf_dir / name))
        for pi in range(0, len(reader.pages), max(1, len(reader.pages) // parts)):
            text = reader.pages[pi].extract_text() or ""
            words = [w for w in text.split() if len(w) > 4 and w.isalpha()]
            if len(words) < 6:
                continue
            out.append((name, text[:4000], " ".join(words[2:4])))
            asked = text[len(text) // 3 : len(text) // 3 + 480] if question_window else text[:4000]
            out.append((name, asked, f"what is said about {words[-3]} {words[-2]}?"))
    return out


def scanned_cases(corpus: Path) -> list[Case]:
    """Image-only PDFs: evidence from Docling's OCR or a plausible sentence; no box allowed."""
    out = []
    gt = (corpus / "groundtruth" / "docling" / "docling__ocr_test.tesseract.full_page.md").read_text("utf-8")
    ocr = " ".join(gt.split()[:40])
    for name in SCANNED:
        single = name == "docling__ocr_test.pdf"
        ev = ocr if single else "The patient was examined and the report lists the measured values for each test."
        out.append(
            Case(f"scanned-{name[:-4]}", "scanned", str(corpus / "pdf" / name), ev, "", 1 if single else None, None)
        )
    return out


def holds(box: list[float] | tuple[float, ...] | None, truth: tuple[float, float, float, float] | None) -> bool:
    """True when ``box`` lies on ``truth``: their overlap is at least half the smaller one.

    For evidence of two lines, the cited text block is the paragraph holding them (bigger
    than the lines) or, where the lines belong to two paragraphs, one of them."""
    if box is None or truth is None:
        return False
    w = min(box[2], truth[2]) - max(box[0], truth[0])
    h = min(box[3], truth[3]) - max(box[1], truth[1])
    area_t = (truth[2] - truth[0]) * (truth[3] - truth[1])
    area_b = (box[2] - box[0]) * (box[3] - box[1])
    return w > 0 and h > 0 and w * h >= 0.5 * min(area_t, area_b)


def baseline(file: str, query: str) -> tuple[int | None, tuple[float, float, float, float] | None]:
    """The naive locator: first page and line whose text contains the query."""
    doc = load_document(file)
    q = "".join(fold_char(c) for c in query)
    if not q:
        return None, None
    for page in doc.pages:
        for chars in page.order:
            if q in "".join(fold_char(page.text[c]) for c in chars):
                return page.number, page.geometry.display(page.lines[page.line_of[chars[0]]])
    return None, None


# --------------------------------------------------------------------------- question cases

QUESTION_DOCS = DOCLING + ["right_to_left_01"]
_STOPWORDS = frozenset(
    """about above after also among and are because been before being between both but can could did does
    each from further have having here into its itself more most much only other over same should some such
    than that their them then there these they this those through under until very what when where which
    while whom with within would your""".split()
)
_TEMPLATES = ["{q}", "{q}", "what about {q}?", "how does {q} work?", "why {q}", "what is said on {q}?",
              "where is {q} described", "tell me about {q}"]


@dataclass
class QCase:
    """A question over a window of Docling items; ``box`` is the answering item's box.

    ``items`` holds the window's items as ``(text, page, box)`` for the baselines."""

    name: str
    file: str
    evidence: str
    query: str
    page: int
    box: tuple[float, float, float, float]
    items: list[tuple[str, int, tuple[float, float, float, float]]]
    target: int  # index of the answering item in ``items``


def _words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"\b[^\W\d_]{4,}\b", text)]


def _gt_items(gt: dict) -> list[tuple[str, str, int, tuple[float, float, float, float]]]:
    """``(label, text, page, box)`` of the body items in document order, boxes top-left."""
    out = []
    for t in gt["texts"]:
        if t.get("label") in {"page_header", "page_footer"} or len(t.get("prov", [])) != 1 or not t.get("text"):
            continue
        prov = t["prov"][0]
        h = gt["pages"][str(prov["page_no"])]["size"]["height"]
        bb = prov["bbox"]
        out.append((t["label"], t["text"], prov["page_no"], (bb["l"], h - bb["t"], bb["r"], h - bb["b"])))
    return out


def docling_question_cases(corpus: Path, per_doc: int = 16, seed: int = 11) -> list[QCase]:
    """Question cases labelled by Docling's ground truth, independent of the locator.

    Evidence is a window of 3 to 5 whole neighbouring items; the query is 2 to 4 content
    words of the target item in any order, sometimes inside a question, with at least one
    of them also in another item of the window, and no other item holding them all.
    """
    rng = random.Random(seed)
    out: list[QCase] = []
    for stem in QUESTION_DOCS:
        gt = json.loads((corpus / "groundtruth" / "docling" / f"docling__{stem}.json").read_text("utf-8"))
        items = _gt_items(gt)
        targets = [i for i, it in enumerate(items)
                   if it[0] in {"text", "paragraph", "list_item", "caption"} and len(it[1]) >= 60]
        rng.shuffle(targets)
        made = 0
        for ti in targets:
            if made >= per_doc:
                break
            lo = max(0, ti - rng.randint(1, 2))
            hi = min(len(items), ti + rng.randint(1, 3) + 1)
            window = items[lo:hi]
            if len(window) < 3:
                continue
            t = ti - lo
            own = [w for w in dict.fromkeys(_words(window[t][1])) if w not in _STOPWORDS]
            others = [set(_words(it[1])) for k, it in enumerate(window) if k != t]
            shared = [w for w in own if any(w in o for o in others)]
            if not shared or len(own) < 3:
                continue
            k = rng.randint(2, min(4, len(own)))
            pick = [rng.choice(shared)]
            pick += rng.sample([w for w in own if w != pick[0]], k - 1)
            if any(all(w in o for w in pick) for o in others):
                continue  # another item holds every query word: no single right answer
            rng.shuffle(pick)
            query = rng.choice(_TEMPLATES).format(q=" ".join(pick))
            evidence = "\n".join(it[1] for it in window)
            out.append(QCase(f"q-{stem}-{ti}", str(corpus / "pdf" / f"docling__{stem}.pdf"), evidence, query,
                             window[t][2], window[t][3], [(it[1], it[2], it[3]) for it in window], t))
            made += 1
    return out


def baseline_first_item(case: QCase) -> tuple[int, tuple[float, float, float, float]]:
    """Baseline: the first item of the evidence window (its Docling box)."""
    _, page, box = case.items[0]
    return page, box


def baseline_most_words(case: QCase) -> tuple[int, tuple[float, float, float, float]]:
    """Baseline: the window item with the most occurrences of the query's words (first on ties)."""
    q = [w for w in _words(case.query) if w not in _STOPWORDS]
    best = max(range(len(case.items)), key=lambda k: (sum(_words(case.items[k][0]).count(w) for w in q), -k))
    _, page, box = case.items[best]
    return page, box
