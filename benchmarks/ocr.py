"""OCR accuracy and speed: the OCR plugin against the plain RapidOCR call on the same pages.

Labels never come from the plugin:

* **generated scans** (``mnote_kr_testkit.scans``): lines drawn by Pillow in Noto Sans CJK at
  150-300 dpi, English and Chinese, some turned by +-2 degrees, some with salt-and-pepper noise;
  the text is what was drawn and each line's box is the box Pillow reports (turned with the page);
* **rasterised text PDFs**: a PDF drawn with known line boxes (``mnote_kr_testkit.pdfs``,
  Helvetica metrics), rendered by PDFium at 200 dpi and saved as an image-only PDF; boxes in points;
* **corpus scans**: ``docling__ocr_test.pdf`` against Docling's own OCR ground truth (text only),
  and the MEDRPT scan and the Vicksburg sample for speed (no text truth: their characters are
  only counted).

Reported per group: character accuracy (1 - edit distance / truth length, spaces left out: the
recogniser's word spacing is reported apart), the share of phrase queries (2-4 words or 4-8
Chinese characters of one line) whose cited box has IoU >= 0.5 with the line's true box, and
pages per second of the plugin (fresh, no cache: header check, rendering, downscale, recognition,
reading order) against the plain ``RapidOCR()(image)`` call on the same page image, measured in the
same run with the same threads, after one untimed call on each page (onnxruntime's first run on a
new input size costs extra, and would fall on whichever went first). Targets: >= 95%
characters on clean 300 dpi English, >= 90% Chinese, >= 90% boxes.

    .venv/bin/python benchmarks/ocr.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from mnote_kr_testkit.data import CORPUS as CORPUS_DIR
from mnote_kr_testkit.pdfs import PdfBuilder
from mnote_kr_testkit.scans import iou, render

EN = ["Quarterly maintenance report for the northern pumping station",
      "The inspection found corrosion on three of the intake valves",
      "Replacement parts were ordered from the regional supplier",
      "Flow rates returned to normal after the filters were cleaned",
      "Night shift operators logged two brief power interruptions",
      "A new alarm threshold was agreed with the safety officer",
      "Budget for the coming year includes a backup generator",
      "Residents reported no change in water pressure this month"]
ZH = ["本季度北部泵站的维护报告如下",
      "检查发现三个进水阀门出现腐蚀",
      "替换零件已向区域供应商订购",
      "清洗过滤器后流量恢复正常",
      "夜班操作员记录了两次短暂停电",
      "与安全主管商定了新的报警阈值",
      "明年预算包括一台备用发电机",
      "居民反映本月水压没有变化"]


@dataclass
class Case:
    group: str
    path: Path
    truth_text: str | None  # None: no text truth (speed only)
    truth_lines: list[tuple[int, str, list[float]]] = field(default_factory=list)  # page, text, box
    page_images: list = field(default_factory=list)  # the images the plain baseline reads


def _squeeze(text: str) -> str:
    return "".join(ch for ch in text if not ch.isspace())


def _edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def char_accuracy(got: str, truth: str) -> float:
    g, t = _squeeze(got), _squeeze(truth)
    return max(0.0, 1.0 - _edit_distance(g, t) / max(1, len(t)))


def _phrases(text: str, rng: random.Random) -> list[str]:
    if any("\u4e00" <= ch <= "\u9fff" for ch in text):
        n = rng.randint(4, min(8, len(text)))
        at = rng.randint(0, len(text) - n)
        return [text[at:at + n]]
    words = text.split()
    n = rng.randint(2, min(4, len(words)))
    at = rng.randint(0, len(words) - n)
    return [" ".join(words[at:at + n])]


def build_cases(work: Path, quick: bool) -> list[Case]:
    import pypdfium2 as pdfium

    cases: list[Case] = []

    def scan_case(group: str, name: str, lines: list[str], **kw: object) -> None:
        page = render(lines, **kw)  # type: ignore[arg-type]
        path = page.save(work / name)
        cases.append(Case(group, path, "\n".join(lines), [(1, ln.text, ln.box) for ln in page.lines], [page.image]))

    short = (8.27, 4.6)
    scan_case("clean 300 dpi, English", "en300.png", EN, dpi=300, page_inches=short)
    scan_case("clean 300 dpi, Chinese", "zh300.png", ZH, dpi=300, page_inches=short)
    if not quick:
        scan_case("150 dpi, English", "en150.png", EN, dpi=150, page_inches=short)
        scan_case("200 dpi, Chinese", "zh200.png", ZH, dpi=200, page_inches=short)
        scan_case("rotated +2 deg, English 300 dpi", "en_rot.png", EN, dpi=300, page_inches=short, rotate_deg=2.0)
        scan_case("rotated -2 deg, Chinese 300 dpi", "zh_rot.png", ZH, dpi=300, page_inches=short, rotate_deg=-2.0)
        scan_case("noise 2%, English 200 dpi", "en_noise.png", EN, dpi=200, page_inches=short, noise=0.02, seed=3)
        scan_case("noise 2%, Chinese 200 dpi", "zh_noise.png", ZH, dpi=200, page_inches=short, noise=0.02, seed=4)
    # a text PDF drawn with known boxes, rasterised to an image-only PDF
    b = PdfBuilder()
    b.add_page(612, 360)
    drawn = [b.text(1, 54, 320 - 28 * i, line, size=12) for i, line in enumerate(EN[:6])]
    text_pdf = work / "text.pdf"
    text_pdf.write_bytes(b.build())
    pdf = pdfium.PdfDocument(str(text_pdf))
    image = pdf[0].render(scale=200 / 72).to_pil().convert("RGB")
    pdf.close()
    raster = work / "rasterised.pdf"
    image.save(raster, "PDF", resolution=200.0)
    cases.append(Case("text PDF rasterised at 200 dpi", raster, "\n".join(d.text for d in drawn),
                      [(1, d.text, list(d.box)) for d in drawn], [image]))
    # corpus scans
    truth_md = CORPUS_DIR / "groundtruth" / "docling" / "docling__ocr_test.tesseract.full_page.md"
    ocr_test = CORPUS_DIR / "pdf" / "docling__ocr_test.pdf"
    if ocr_test.exists() and truth_md.exists():
        cases.append(Case("corpus: docling__ocr_test.pdf (Docling truth)", ocr_test, truth_md.read_text("utf-8"),
                          page_images=_pdf_images(ocr_test)))
    if not quick:
        for name in ("markitdown__MEDRPT-2024-PAT-3847_medical_report_scan.pdf",):
            path = CORPUS_DIR / "pdf" / name
            if path.exists():
                cases.append(Case(f"corpus: {name} (speed only)", path, None, page_images=_pdf_images(path)))
    return cases


def _pdf_images(path: Path) -> list:
    """The page images the plugin recognises, rendered the same way (its dpi and pixel budget)."""
    import math

    import pypdfium2 as pdfium
    from mnote_kr_ocr import budget

    s = budget.settings()
    pdf = pdfium.PdfDocument(str(path))
    out = []
    for page in pdf:
        w, h = page.get_size()
        scale = s.dpi / 72.0
        if w * h * scale * scale > s.max_pixels:
            scale = math.sqrt(s.max_pixels / (w * h))
        out.append(page.render(scale=scale).to_pil().convert("RGB"))
    pdf.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two scans, the rasterised PDF and one corpus file")
    args = parser.parse_args()
    import numpy as np
    from mnote_kr_ocr import scan as ocr_scan
    from mnote_kr_ocr.locating import locate_in

    from mnote_kr.models import LocateRequest

    with tempfile.TemporaryDirectory(prefix="mnote-ocr-bench-") as tmp:
        work = Path(tmp)
        os.environ["MNOTE_KR_HOME"] = str(work / "home")  # a fresh cache: every page is recognised
        cases = build_cases(work, args.quick)
        ocr_scan._rapid()(np.asarray(cases[0].page_images[0]))  # load and warm every model before timing
        rng = random.Random(30)
        print(f"{'group':52} {'chars':>7} {'base ch':>7} {'boxes':>9} {'pages':>5} {'plugin s':>8} {'plain s':>8}"
              f" {'ratio':>6}")
        totals = {"plugin": 0.0, "plain": 0.0, "pages": 0}
        hits = tries = 0
        for case in cases:
            for im in case.page_images:  # onnxruntime's first run on a new page size costs extra: untimed
                ocr_scan._rapid()(np.asarray(im))
            t0 = time.perf_counter()
            result = ocr_scan.scan(str(case.path))
            t_plugin = time.perf_counter() - t0
            base_texts = []
            t0 = time.perf_counter()
            for im in case.page_images:
                res, _ = ocr_scan._rapid()(np.asarray(im))
                base_texts.append("\n".join(str(r[1]) for r in res or []))
            t_plain = time.perf_counter() - t0
            got = result.markdown()
            got_plain = "\n".join(line for line in got.splitlines() if not line.startswith("## Page "))
            chars = f"{char_accuracy(got_plain, case.truth_text):.1%}" if case.truth_text else "-"
            base = f"{char_accuracy(chr(10).join(base_texts), case.truth_text):.1%}" if case.truth_text else "-"
            right = n = 0
            for page, text, box in case.truth_lines:
                for phrase in _phrases(text, rng):
                    loc = locate_in(result, LocateRequest(file=str(case.path), evidence=got, query=phrase), "ocr")
                    n += 1
                    right += int(loc.page == page and loc.bbox is not None and iou(loc.bbox, box) >= 0.5)
            hits, tries = hits + right, tries + n
            pages = len(case.page_images)
            totals["plugin"] += t_plugin
            totals["plain"] += t_plain
            totals["pages"] += pages
            boxes = f"{right}/{n}" if n else "-"
            print(f"{case.group[:52]:52} {chars:>7} {base:>7} {boxes:>9} {pages:>5} {t_plugin:8.2f} {t_plain:8.2f}"
                  f" {t_plugin / t_plain:6.2f}")
        print(f"\nboxes right (IoU >= 0.5, right page): {hits}/{tries} = {hits / max(1, tries):.1%}")
        print(f"pages/second: plugin {totals['pages'] / totals['plugin']:.3f}, plain RapidOCR call "
              f"{totals['pages'] / totals['plain']:.3f}; plugin time / plain time = "
              f"{totals['plugin'] / totals['plain']:.2f} (same run, {ocr_scan.budget.settings().threads} threads, "
              f"load {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
