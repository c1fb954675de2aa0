"""An OCR citation's quote reads as text: the recognised lines joined (Chinese with no space, Latin with one), and
run on to the end of the sentence its last line leaves unfinished, its box growing with it (nc26a Q4, Q8, Q13: a
``\\n`` inside the displayQuote, "…不是飘忽不", "…它说明在")."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.core.config import load_config
from mnote_kr.models import LocateRequest
from mnote_kr.plugins import Plugins, load_plugins

DATA = Path(__file__).parent / "data"


@pytest.fixture
def plugins() -> Plugins:
    return load_plugins(load_config(None))


@pytest.fixture(autouse=True)
def _forget_recognitions() -> Iterator[None]:
    """The recorded recognitions put in the process's memo (``scan._memo``, keyed by content) are not left to later
    tests, which would find the corpus PDF recognised without recognising it (and say nothing)."""
    from mnote_kr_ocr import scan

    yield
    scan._memo.clear()


def _recorded(tmp_path: Path, name: str, record: str) -> tuple[Path, object]:
    """The corpus PDF ``name`` copied to ``tmp_path`` with its recorded recognition kept as the cache's record."""
    from mnote_kr_ocr import scan
    from mnote_kr_ocr.scan import Scan

    source = CORPUS / "pdf" / name
    path = tmp_path / name
    shutil.copy2(source, path)
    data = (DATA / record).read_bytes()
    scan._store().put(scan._key(hashlib.sha256(path.read_bytes()).hexdigest()), data)
    scan._memo.clear()
    return path, Scan.from_json(data)


def test_a_scanned_quote_reads_as_sentences_and_its_box_grows_with_them(plugins: Plugins, tmp_path: Path) -> None:
    """Page 2 of the scanned Capital (mineru__scanned.pdf, recognised by the pinned RapidOCR at ingest): a query of
    the paragraph's line "我们再拿两种商品…" was quoted as three raw lines ending "…这个等式说明什么呢？它说明在"
    (nc26a Q13). Now the lines are one text, without line breaks, run on over the next line and a half to "…有一种共
    同的东西。"; the box covers those lines, the last one only as far as the quote reads it (the margin note "14（Ⅱ)"
    printed on that line's end is not boxed)."""
    path, record = _recorded(tmp_path, "mineru__scanned.pdf", "scanned_recognised.json")
    page = record.pages[1]  # type: ignore[attr-defined]
    text = record.markdown()  # type: ignore[attr-defined]
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query="我们再拿两种商品"))
    assert loc.locator_plugin == "ocr" and loc.page == 2, loc
    assert loc.quote == ("我们再拿两种商品例奶小麦和铁来说。不管二者的交换比例怎样，总是可以用一个等式"
                         "来表示：一定量的小麦等于若干量的铁，如1夸特小麦=a公斤铁。这个等式说明什么呢？它"
                         "说明在两种不同的物里面，即在1夸特小麦和a公斤铁里面，有一种共同的东西。"), loc.quote
    quoted = range(8, 13)
    left, widest = min(page.lines[k].box[0] for k in quoted), max(page.lines[k].box[2] for k in range(8, 12))
    assert loc.bbox == [round(left, 2), round(page.lines[8].box[1], 2), round(widest, 2),
                        round(page.lines[12].box[3], 2)], loc.bbox
    assert widest < page.lines[12].box[2]  # the margin note at line 12's end is not the quote's
    assert [(r.page, r.bbox) for r in loc.rects] == [(2, loc.bbox)], loc
    assert path.read_bytes() == (CORPUS / "pdf" / path.name).read_bytes()


def test_a_sentence_cut_by_a_margin_note_runs_on_below_it(plugins: Plugins, tmp_path: Path) -> None:
    """Page 1: the line "物的有用性使物成为使用价值。（4）但这种有用性不是飘忽不" ends its recognised paragraph,
    since the margin note "14 ( I)" beside it started a paragraph of its own and the line below ("定的。它决定
    于…") another (nc26a Q4's quote, "…不是飘忽不"). The sentence goes on in the line set right below it in the
    same column: the quote ends "…不是飘忽不定的。", boxed over both lines, the second only as far as "定的。"."""
    path, record = _recorded(tmp_path, "mineru__scanned.pdf", "scanned_recognised.json")
    page = record.pages[0]  # type: ignore[attr-defined]
    text = record.markdown()  # type: ignore[attr-defined]
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query="物的有用性使物成为使用价值"))
    assert loc.quote == "物的有用性使物成为使用价值。（4）但这种有用性不是飘忽不定的。", loc.quote
    above, below = page.lines[6].box, page.lines[7].box
    assert loc.bbox is not None and loc.bbox[1] == round(above[1], 2) and loc.bbox[3] == round(below[3], 2), loc
    assert loc.bbox[0] == round(below[0], 2) and loc.bbox[2] == round(above[2], 2), loc


def test_a_lead_in_ending_its_block_is_quoted_as_one_line_of_text(plugins: Plugins, tmp_path: Path) -> None:
    """garbled_formula.pdf (its text layer unreadable, read by OCR): "本题中“调整平移+归纳”的方法…第1天 / 第3题："
    ends its block with a colon before a formula: quoted as one text (nc26a Q8 had a ``\\n`` inside), not run into the
    formula or the next problem."""
    path, record = _recorded(tmp_path, "mineru__garbled_formula.pdf", "garbled_formula_recognised.json")
    text = record.markdown()  # type: ignore[attr-defined]
    loc = plugins.locate(LocateRequest(file=str(path), evidence=text, passage=text, query="调整平移+归纳"))
    assert loc.quote == "本题中“调整平移+归纳”的方法也可以用来解决2009年集训队测试第1天第3题：", loc.quote
    page = record.pages[0]  # type: ignore[attr-defined]
    assert loc.bbox is not None and loc.bbox[3] == round(page.lines[51].box[3], 2), loc


@pytest.mark.parametrize(("lines", "joined"), [
    (["Docling bundles PDF document conversion to", "JSON and Markdown"], "Docling bundles PDF document conversion to "
                                                                         "JSON and Markdown"),
    (["不管二者的交换比例", "怎样，总是"], "不管二者的交换比例怎样，总是"),
    (["the exam-", "ple shows"], "the example shows"),
    (["FAA-", "approved parts"], "FAA-approved parts"),
    (["worth表示使用价值，用", "valu表示"], "worth表示使用价值，用valu表示"),
])
def test_recognised_lines_join_as_text(lines: list[str], joined: str) -> None:
    from mnote_kr_ocr.wraps import join_lines

    assert join_lines(lines) == joined
