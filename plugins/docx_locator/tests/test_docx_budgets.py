"""Budgets: whatever the file, locating in it ends fast, in bounded memory, with one clear error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mnote_kr_testkit.docx_docs import DocxBuilder, big_xml_docx, nested_tables_docx

from mnote_kr.errors import DocumentError
from mnote_kr_docx_locator import reader, safezip

#: A refusal costs at most this many times the CPU of the same command answering a one-page
#: DOCX, measured in the same session (a loaded machine slows both alike; CPU seconds are not
#: the wait for a core): refusals measure ~1x; parsing the 200 MB part before refusing it, ~8x.
CPU_RATIO = 5
LIMIT_RSS = 500 * 1024 * 1024


# A small wrapper runs the CLI and reports its child's CPU seconds and peak RSS: measured
# straight from this process, the child's ru_maxrss would start at this test process's own size
# (Linux keeps the larger of the forked image and the exec'd one), which a long session makes large.
_MEASURE = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
err = proc.stderr.read().decode("utf-8", "replace")
_pid, status, usage = os.wait4(proc.pid, 0)
print(repr((os.waitstatus_to_exitcode(status), err, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)))
"""


@pytest.fixture(scope="module")
def one_page_cpu(tmp_path_factory: pytest.TempPathFactory) -> float:
    """CPU seconds of the same command locating in a one-paragraph DOCX it reads (best of three)."""
    tmp = tmp_path_factory.mktemp("baseline")
    b = DocxBuilder()
    b.para("deep")
    path = tmp / "one.docx"
    path.write_bytes(b.build())
    runs = [_measured(path, tmp) for _ in range(3)]
    assert all(code == 0 for code, *_ in runs), runs[0]
    return min(cpu for _, _, cpu, _ in runs)


def _measured(path: Path, tmp_path: Path) -> tuple[int, str, float, int]:
    """Run the locate CLI in a child and return (exit code, stderr, CPU seconds, peak RSS bytes)."""
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, sys.executable, "-m", "mnote_kr", "locate", str(path),
         "--evidence", "deep", "--query", "deep", "--json"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    code, err, cpu, rss = eval(out.stdout)  # noqa: S307 - our own repr() of a tuple
    return code, err, cpu, rss


def test_docx_with_200_mb_of_xml_inside_the_ratio_limit_is_refused_fast_and_small(tmp_path, one_page_cpu):
    path = tmp_path / "big.docx"
    path.write_bytes(big_xml_docx(200 * 1024 * 1024))
    before = path.read_bytes()
    code, err, cpu, rss = _measured(path, tmp_path)
    assert cpu < CPU_RATIO * one_page_cpu and rss < LIMIT_RSS, (cpu, one_page_cpu, rss)
    assert code == 1 and err.count("\n") == 1 and err.startswith("Error: ")
    assert "big.docx" in err and "over its limit (XML part size 64 MiB)" in err
    # the cause is a limit, not a broken file (an earlier message called it "broken, encrypted")
    assert "is not broken" in err and "split it" in err and "broken, encrypted" not in err
    assert path.read_bytes() == before


def test_docx_with_1500_nested_tables_is_refused_without_recursion(tmp_path, one_page_cpu):
    path = tmp_path / "nested.docx"
    path.write_bytes(nested_tables_docx(1500))
    code, err, cpu, rss = _measured(path, tmp_path)
    assert cpu < CPU_RATIO * one_page_cpu and rss < LIMIT_RSS, (cpu, one_page_cpu, rss)
    assert code == 1 and err.count("\n") == 1 and err.startswith("Error: ")
    assert "nested.docx" in err and "limit" in err and "Recursion" not in err
    # what the document does, not lxml's advice to the programmer (XML_PARSE_HUGE)
    assert "nests too deeply" in err and "XML_PARSE_HUGE" not in err and "broken, encrypted" not in err


def test_walk_depth_budget_names_the_limit_below_libxml2s_own(tmp_path, monkeypatch):
    # 150 nested tables (~450 elements deep) stay under libxml2's limit when it is raised;
    # the walk itself is a loop and stops at MAX_DEPTH with a clear error
    monkeypatch.setattr(
        safezip, "_PARSER", safezip.etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    )
    deep = rf"nests too deeply: elements nested more than {reader.MAX_DEPTH} levels deep, the locator's limit"
    with pytest.raises(DocumentError, match=deep):
        reader.parse_docx_bytes(nested_tables_docx(150), "deep.docx")
    # a moderately nested real-world shape still reads
    doc = reader.parse_docx_bytes(nested_tables_docx(20), "ok.docx")
    assert doc.paragraphs[-1].text == "deep" and doc.paragraphs[-1].in_table


def test_paragraph_budget_is_one_clear_error(tmp_path, monkeypatch):
    b = DocxBuilder()
    for i in range(30):
        b.para(f"paragraph {i}")
    monkeypatch.setattr(reader, "MAX_PARAGRAPHS", 20)
    with pytest.raises(DocumentError, match=r"more than 20 paragraphs, the limit: many\.docx"):
        reader.parse_docx_bytes(b.build(), "many.docx")
