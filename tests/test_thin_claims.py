"""A place is not exact on a number or on its file's own name alone, whichever locator chose it
(``thinclaims.without_thin_claim``, the host's rule).

nc25c (round 25): "TraceMonkey在哪些基准测试上因为递归而没有加速？" was "exact box, p.4" on "i=5. TraceMonkey calls
T16 ...", which holds of the question only "TraceMonkey", the subject the file is named for; the answer, p.11's bullet
on recursion, came behind it. "营业收入 2024E" and "高测股份2024年营业收入预测是多少？" listed the duck workbook's row
"Year: 2024; Freshwater Ducks: 180" as exact on the year alone. The chunks are LightRAG's own, as nc25c's index held
them (the PDF's chunk 10, the workbook's chunk 0)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.citations.render.thinclaims import without_thin_claim
from mnote_kr.models import Locator
from tests.surfaces import one_passage_host

PDF = CORPUS / "pdf" / "pdfjs__tracemonkey.pdf"
XLSX = CORPUS / "xlsx" / "docling__xlsx_05_table_with_title.xlsx"
RECURSION = "TraceMonkey在哪些基准测试上因为递归而没有加速？"
#: LightRAG's chunk 10 of the PDF (p.4, the nested-loop walk-through), as nc25c's index held it.
PDF_CHUNK = (
    "compiled trace, so TraceMonkey attempts to nest the\n"
    "inner loop inside the current trace. The ﬁrst step is to call the inner\n"
    "trace as a subroutine. This executes the loop on line 4 to completion\n"
    "and then returns to the recorder. TraceMonkey veriﬁes that the call\n"
    "was successful and then records the call to the inner trace as part of\n"
    "the current trace. Recording continues until execution reaches line\n"
    "1, and at which point TraceMonkey ﬁnishes and compiles a trace\n"
    "for the outer loop, T16.\n"
    "i=4. On this iteration, TraceMonkey calls T16. Because i=4, the\n"
    "if statement on line 2 is taken. This branch was not taken in the\n"
    "original trace, so this causes T16 to fail a guard and take a side exit.\n"
    "The exit is not yet hot, so TraceMonkey returns to the interpreter,\n"
    "which executes the continue statement.\n"
    "i=5. TraceMonkey calls T16, which in turn calls the nested trace\n"
    "T45. T16 loops back to its own header, starting the next iteration\n"
    "without ever returning to the monitor.\n"
    "i=6. On this iteration, the side exit on line 2 is taken again. This\n"
    "time, the side exit becomes hot, so a trace T23,1 is recorded that\n"
    "covers line 3 and returns to the loop header. Thus, the end of T23,1\n"
    "jumps directly to the start of T16. The side exit is patched so that\n"
    "on future iterations, it jumps directly to T23,1.\n"
    "At this point, TraceMonkey has compiled enough traces to cover\n"
    "the entire nested loop structure, so the rest of the program runs\n"
    "entirely as native code.\n"
    "3. Trace Trees\n"
    "In this section, we describe traces, trace trees, and how they are\n"
    "formed at run time. Although our techniques apply to any dynamic\n"
    "language interpreter, we will describe them assuming a")
#: LightRAG's chunk 0 of the workbook, as nc25c's index held it.
XLSX_CHUNK = (
    "==================== Sheet: Duck Observations ====================\n"
    "\n"
    "\tNumber of freshwater ducks per year\t\t\t\n"
    "\n"
    "\tYear\tFreshwater Ducks\t\t\n"
    "\t2019\t120\t\t\n"
    "\t2020\t135\t\t\n"
    "\t2021\t150\t\t\n"
    "\t2022\t170\t\t\n"
    "\t2023\t160\t\t\n"
    "\t2024\t180\t\t\n"
    "====================")


def _places(host: Any, query: str) -> list[Any]:
    return [p for c in host.search(query, top_k=5).results for p in (c, *c.alternatives)]


def _sha(path: Path) -> bytes:
    return hashlib.sha256(path.read_bytes()).digest()


def test_a_pdf_block_holding_only_the_files_name_is_not_exact(tmp_path: Path) -> None:
    host, path = one_passage_host(tmp_path, PDF, PDF_CHUNK)
    before = _sha(path)
    places = _places(host, RECURSION)
    walk = [p for p in places if (p.display_quote or "").startswith("i=5. TraceMonkey calls T16")]
    assert walk, [p.display_quote for p in places]  # the walk-through is still offered
    assert all(p.locator_degraded for p in walk)  # but not as an exact answer
    assert "file's name" in (walk[0].locator.reason or "")
    assert "recursion" in (places[0].display_quote or "")  # the recursion bullet, nearer by meaning, leads
    # a question holding more of the place's words than the name keeps its exact place
    exact = [p for p in _places(host, "TraceMonkey nested trace T45") if not p.locator_degraded]
    assert any("T45" in (p.display_quote or "") for p in exact)
    assert _sha(path) == before


@pytest.mark.parametrize("query", ["营业收入 2024E", "高测股份2024年营业收入预测是多少？"])
def test_a_row_holding_only_the_questions_year_is_not_exact(tmp_path: Path, query: str) -> None:
    host, path = one_passage_host(tmp_path, XLSX, XLSX_CHUNK)
    before = _sha(path)
    places = _places(host, query)
    year = [p for p in places if "2024" in (p.display_quote or "")]
    assert year, [p.display_quote for p in places]
    assert all(p.locator_degraded for p in places)  # no row of ducks answers a revenue forecast
    assert "a number" in (year[0].locator.reason or "")
    # a question naming the row's words beside its year keeps the cell exact
    (first, *_) = _places(host, "How many freshwater ducks were counted in 2022?")
    assert not first.locator_degraded
    assert "170" in (first.display_quote or "")
    assert _sha(path) == before


def _loc(precision: str, words: str, **where: Any) -> Locator:
    return Locator(locator_precision=precision, locator_degraded=False, place_text=words, reason="placed", **where)


@pytest.mark.parametrize(("loc", "name"), [
    (_loc("bbox", "In 2024 the plant was rebuilt.", page=3), "plant.pdf"),
    (_loc("paragraph", "Revenue rose in 2024.", paragraph_index=4), "annual.docx"),
    (_loc("slide", "2024", slide=2), "deck.pptx"),
    (_loc("cell", "Year: 2024; Freshwater Ducks: 180", sheet="S", range="B10:C10"), "ducks.xlsx"),
])
def test_one_rule_for_every_locator_a_year_alone(loc: Locator, name: str) -> None:
    judged = without_thin_claim(loc, "operating margin forecast 2024", name)
    assert judged.locator_degraded
    assert "a number" in (judged.reason or "")
    kept = without_thin_claim(loc, "2024", name)  # a question asking only the year keeps the place
    assert not kept.locator_degraded
    # a page the question names is no word of it: its number does not count against the place
    assert not without_thin_claim(loc, "what does page 2024 say about operating margins", name).locator_degraded


def test_runner_ups_are_judged_alike() -> None:
    runner = _loc("bbox", "TraceMonkey calls T16.", page=4)
    loc = _loc("bbox", "TraceMonkey does not trace recursion.", page=11, runners_up=[runner])
    judged = without_thin_claim(loc, "why is TraceMonkey slow on recursion", "docs/pdfjs__tracemonkey.pdf")
    assert not judged.locator_degraded  # "recursion" is more than the name
    assert judged.runners_up[0].locator_degraded
    assert "file's name" in (judged.runners_up[0].reason or "")
