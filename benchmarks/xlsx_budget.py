"""What the XLSX locator's ``check_budget`` costs before a workbook is sent, against openpyxl reading it.

Two workbooks: the largest corpus workbook (``tests/data/corpus/xlsx``, and ``/work/shared/corpus/xlsx``
when present), and a generated sheet of 1,000,001 cells (a header and formatted empty cells,
``mnote_kr_testkit.workbooks.styled_empty_cells``), one past the locator's cell limit. For each, the
median of ``--runs`` timings of:

* ``check_budget``: the plugin's hook (zip directory, then the sheets' XML counted while streaming);
* openpyxl's read-only load (``load_workbook(read_only=True)``: the workbook part and styles, no cell);
* the same load and a walk of every sheet's rows (what reading the cells in streaming mode costs).

Printed: each time and check_budget's ratio to each baseline, and the check's answer.

    .venv/bin/python benchmarks/xlsx_budget.py [--runs 3] [FILE.xlsx ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPORA = (REPO / "tests" / "data" / "corpus" / "xlsx", Path("/work/shared/corpus/xlsx"))


def timed(fn: Callable[[], object], runs: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def read_only_load(path: Path) -> None:
    from openpyxl import load_workbook

    load_workbook(path, read_only=True, data_only=True).close()


def read_only_walk(path: Path) -> int:
    from openpyxl import load_workbook

    wb = load_workbook(path, read_only=True, data_only=True)
    cells = sum(len(row) for ws in wb.worksheets if hasattr(ws, "iter_rows") for row in ws.iter_rows())
    wb.close()
    return cells


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from mnote_kr_testkit.workbooks import styled_empty_cells

    from mnote_kr_xlsx_locator import check_budget
    from mnote_kr_xlsx_locator.reader import MAX_XML_CELLS

    files = list(args.files)
    if not files:
        found = [p for d in CORPORA if d.is_dir() for p in (*d.glob("*.xlsx"), *d.glob("*.xlsm"))]
        files.append(max(found, key=lambda p: p.stat().st_size))
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        files.append(styled_empty_cells(Path(tmp) / "filled.xlsx", MAX_XML_CELLS + 1))
        print(f"generated {files[-1].name} ({MAX_XML_CELLS + 1:,} cells) in {time.perf_counter() - start:.1f} s")
        for path in files:
            check, answer = timed(lambda p=path: check_budget(str(p)), args.runs)
            load, _ = timed(lambda p=path: read_only_load(p), args.runs)
            walk, cells = timed(lambda p=path: read_only_walk(p), args.runs)
            print(f"{path.name} ({path.stat().st_size / 1024:,.0f} KB): check_budget {check * 1000:,.1f} ms; "
                  f"openpyxl read-only load {load * 1000:,.1f} ms (check / load {check / load:.2f}); "
                  f"load and walk of {cells:,} cells {walk * 1000:,.1f} ms (check / walk {check / walk:.3f})")
            print(f"  check_budget: {answer or 'within budget'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
