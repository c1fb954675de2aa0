"""Word spaces in recognised text (``spaces``), and garbled lines cited as degraded (``locating.garbled``).

``data/medrpt_rec_frames.json`` holds the recogniser's CTC frames of two lines of the corpus's MEDRPT
scan (page 2), as RapidOCR 1.4.4 produced them: per frame the best class, its probability, and the
blank's and the space's. RapidOCR's own decode of them is the glued text the newcomer saw quoted.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from mnote_kr_ocr import scan
from mnote_kr_ocr.locating import garbled, locate_in
from mnote_kr_ocr.scan import Line, Page, Scan
from mnote_kr_ocr.spaces import SpacedDecode, keep_spaces, spaced_frames
from rapidocr_onnxruntime.ch_ppocr_rec.utils import CTCLabelDecode

from mnote_kr.core.config import load_config
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import load_plugins

RECORDED = json.loads((Path(__file__).parent / "data" / "medrpt_rec_frames.json").read_text(encoding="utf-8"))


def _frames(line: dict) -> tuple[CTCLabelDecode, np.ndarray]:
    """RapidOCR's decoder over the recorded line's characters, and its frames as probabilities
    (blank first, space last, as the engine orders its classes)."""
    alphabet = sorted({c for c, *_ in line["frames"] if c not in ("", " ")})
    decode = CTCLabelDecode(character=list(alphabet))
    index = {c: i for i, c in enumerate(decode.character)}
    preds = np.zeros((1, len(line["frames"]), len(decode.character)), dtype=np.float32)
    for t, (char, best, blank, space) in enumerate(line["frames"]):
        preds[0, t, 0], preds[0, t, -1] = blank, space
        if char:
            preds[0, t, index[char]] = best
    return decode, preds


@pytest.mark.parametrize(("glued", "spaced"), [
    ("FINDINGS:Noacutentracranialhemorrhage,masseffect,ormidline shif.",
     "FINDINGS: No acute ntracranial hemorrhage, mass effect, or midline shif."),
    ("sinuses are clear.Mastoid aircells arewellaerated.", "sinuses are clear. Mastoid air cells are wellaerated."),
])
def test_recorded_scan_line_keeps_its_word_spaces_and_its_confidence(glued: str, spaced: str) -> None:
    line = next(ln for ln in RECORDED["lines"] if ln["text"] == glued)
    decode, preds = _frames(line)
    [(plain, score)] = decode(preds)
    assert plain == glued and score == pytest.approx(line["score"])  # the engine's own reading, replayed
    [(text, confidence)] = SpacedDecode(decode)(preds)
    assert text == spaced
    assert confidence == score  # the spaces change no confidence
    assert text.replace(" ", "") == glued.replace(" ", "")  # no character lost or replaced


def test_only_blank_frames_with_enough_space_become_spaces() -> None:
    # frames: 'a' (space close behind), blank (space 1/20 of it), blank (space 1/40), 'b'
    preds = np.array([[[0.05, 0.9, 0.0, 0.05], [0.95, 0.0, 0.0, 0.0475], [0.97, 0.0, 0.0, 0.02425],
                       [0.1, 0.0, 0.9, 0.0]]], dtype=np.float32)
    before = preds.copy()
    best = spaced_frames(preds, space=3).argmax(axis=2)[0].tolist()
    assert best == [1, 3, 0, 2]
    assert spaced_frames(preds, space=3, share=1 / 50).argmax(axis=2)[0].tolist() == [1, 3, 3, 2]
    assert np.array_equal(preds, before)  # a copy: the engine's frames untouched


@pytest.mark.parametrize(("plain", "spaced", "kept"), [
    ("Noacute", "No acute", "No acute"),
    ("送到哪条街", "送到 哪 条街", "送到哪条街"),  # Chinese stays unspaced
    ("PDF文件", "PDF 文件", "PDF文件"),
    ("Hypertension（diagnosed", "Hypertension （ diagnosed", "Hypertension （diagnosed"),  # a full-width mark
    ("矛盾①。(7)", "矛盾①。 (7)", "矛盾①。(7)"),
    ("sleeping.No", "sleeping . No", "sleeping. No"),  # none before a closing mark
    ("Appendectomy(2005)", "Appendectomy ( 2005 )", "Appendectomy (2005)"),  # none after an opening one
    ("a b", "a  b", "a b"),
    ("cost2,000and3.5", "cost 2, 000 and 3. 5", "cost 2,000 and 3.5"),  # a number keeps its separators
    ("in2019,2020", "in 2019, 2020", "in 2019,2020"),  # (a list of years loses its gap: the engine's blank)
    ("Total  120mg", "Total 120 mg", "Total  120 mg"),  # the engine's own double space stays, nothing is lost
    ("at10:30on2024/03/15", "at 10: 30 on 2024 / 03 / 15", "at 10:30 on 2024/03/15"),  # a time, a date
    ("BCB-445782,don't", "BCB - 445782, don' t", "BCB-445782, don't"),  # a code, a contraction
    ("12345", "12 345", "12345"),  # a number is never split
    ("abc", "a c", "abc"),  # not the same characters: the plain reading stands
])
def test_added_spaces_only_between_words(plain: str, spaced: str, kept: str) -> None:
    assert keep_spaces(plain, spaced) == kept


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_medrpt_scan_is_indexed_and_quoted_with_word_spaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real engine on the corpus's MEDRPT scan (2 of its 3 pages): the indexed text and the quote
    read as words. Before, they read 'DepartmentofInternalMedicine' and 'FINDINGS:Noacutentracranial
    hemorrhage,masseffect,ormidline shif.'"""
    from mnote_kr_testkit.data import CORPUS

    monkeypatch.setenv("MNOTE_KR_OCR_MAX_PAGES", "2")
    source = CORPUS / "pdf" / "markitdown__MEDRPT-2024-PAT-3847_medical_report_scan.pdf"
    path = tmp_path / source.name
    shutil.copy2(source, path)
    plugins = load_plugins(load_config(None))
    text = plugins.extract_text(str(path)) or ""
    for words in ("Department of Internal Medicine", "Patient presents with persistent headaches",
                  "Regular rate and rhythm, no murmurs or gallops"):
        assert words in text, words
    long_runs = [w for w in text.split() if sum(ch.isalpha() for ch in w) >= 20]
    assert not long_runs, long_runs
    # page 2's lab table is read by rows, its cells left to right (``rows``), not one cell a line
    assert "\nHbA1c | 6.8% | <5.7% | HIGH\n" in text, text
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, query="mass effect or midline shift"))
    assert loc.page == 2 and loc.quote and not loc.locator_degraded, loc
    assert "No acute" in loc.quote and "mass effect, or midline" in loc.quote, loc.quote
    assert _sha(path) == _sha(source)


# Lines of the MEDRPT scan's page 1 as recognised (points): the insurance row's policy field came
# out as CJK junk at 0.77, above the confidence floor (0.75).
MEDRPT_PAGE_1 = [
    ("Jonathan Michael Harrison", [104.4, 133.6, 189.4, 142.9], 0.986),
    ("Insurance:", [216.0, 158.8, 249.8, 166.3], 0.97),
    ("BlueCross BlueShield", [278.6, 158.8, 345.6, 167.0], 0.994),
    ("到e Bu8hie MPolicy #BCB-R4578lumber", [105.5, 169.9, 263.9, 178.6], 0.766),
    ("BCB-445782", [278.6, 170.6, 319.3, 178.9], 0.998),
    ("Hypertension（diagnosed 2019) - controlled with Lisinopril 10mg daily", [27.4, 361.1, 191.9, 370.1], 0.954),
]


def _record(lines: list[tuple[str, list[float], float]]) -> Scan:
    page = Page(number=1, width=408.0, height=528.0, unit="pt", source="ocr",
                lines=[Line(text=t, box=b, score=s) for t, b, s in lines])
    page.paragraphs = scan.paragraphs(page.lines)
    return Scan(pages=[page])


def test_cjk_junk_on_a_page_of_english_is_cited_as_degraded() -> None:
    record = _record(MEDRPT_PAGE_1)
    page = record.pages[0]
    assert [garbled(page, i) for i in range(len(page.lines))] == [False, False, False, True, False, False]
    junk = locate_in(record, LocateRequest(file="scan.pdf", evidence="", query="Policy BCB-R4578"), "ocr")
    assert junk is not None and junk.bbox == [105.5, 169.9, 263.9, 178.6] and junk.locator_degraded
    assert "CJK characters inside Latin words" in (junk.reason or ""), junk.reason
    good = locate_in(record, LocateRequest(file="scan.pdf", evidence="", query="Jonathan Michael Harrison"), "ocr")
    assert good is not None and good.bbox == [104.4, 133.6, 189.4, 142.9] and not good.locator_degraded, good


def test_chinese_page_with_english_words_is_not_junk() -> None:
    record = _record([("扫描件里的PDF文件也能搜索到", [40, 100, 400, 130], 0.95),
                      ("使用RapidOCR识别中文", [40, 140, 400, 170], 0.97)])
    page = record.pages[0]
    assert not any(garbled(page, i) for i in range(len(page.lines)))
    loc = locate_in(record, LocateRequest(file="scan.png", evidence="", query="PDF文件"), "ocr")
    assert loc is not None and not loc.locator_degraded, loc
