"""``mnote-kr demo --json``: offline end to end in a fresh home on a Python-only machine (no Node or
npm on the PATH, every outward socket refused), and nothing left running after it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from mnote_kr_testkit.offline import python_only_env

import mnote_kr_lightrag
from mnote_kr_lightrag.engine.tiktoken_cache import ENCODINGS, REQUIRED, is_valid
from tests.cli_helpers import cli_env

pytestmark = pytest.mark.integration

SAMPLES = Path(mnote_kr_lightrag.__file__).resolve().parent / "demo_data"
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def docx_paragraphs(path: Path) -> list[str]:
    """The text of every ``w:p`` under ``w:body`` in document order, table cells included, a ``w:p``
    nested in another one (a text box) skipped: ``paragraphIndex`` as the design states it, read
    from the XML here rather than by the locator's reader."""
    body = ElementTree.fromstring(zipfile.ZipFile(path).read("word/document.xml")).find(f"{_W}body")
    assert body is not None

    def walk(el: ElementTree.Element) -> Iterator[ElementTree.Element]:
        for child in el:
            if child.tag == f"{_W}p":
                yield child
            else:
                yield from walk(child)

    return ["".join(t.text or "" for t in p.iter(f"{_W}t")) for p in walk(body)]


def answering_places() -> dict[str, tuple[str, int]]:
    """For each demo question, the sample file and the paragraph that answers it, labelled from the
    samples' own text: the one sentence holding the question's words."""
    docx = docx_paragraphs(SAMPLES / "field-notes" / "aurora-battery-report.docx")
    md = [b.strip() for b in (SAMPLES / "field-notes" / "solvent-handling.md").read_text("utf-8").split("\n\n")]
    report, notes = "samples/field-notes/aurora-battery-report.docx", "samples/field-notes/solvent-handling.md"
    return {
        "capacity of cell B2": (report, docx.index("Cell B2 kept the highest capacity of 4100 mAh but lasted only "
                                                   "650 cycles.")),
        "吡咯烷": (report, next(i for i, t in enumerate(docx) if t.startswith("吡咯烷"))),
        "morpholine storage": (notes, md.index("Morpholine (吗啉) is stored in the ventilated cabinet next to the "
                                               "fume hood.")),
    }

def processes_under(folder: Path) -> list[tuple[int, str]]:
    """Live processes whose working directory or command line lies in ``folder`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            state = next((line for line in (entry / "status").read_text().splitlines() if line.startswith("State:")),
                         "")
        except OSError:
            continue
        if "zombie" in state:
            continue
        if cwd.startswith(str(folder)) or str(folder) in cmdline:
            found.append((int(entry.name), cmdline))
    return found


@pytest.mark.timeout(240)
def test_demo_json_on_a_python_only_offline_machine_cites_docx_pdf_and_markdown_then_stops_its_engine(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    net = tmp_path / "net"
    env = python_only_env(cli_env(home, None), net)
    assert not any(shutil.which(tool, path=env["PATH"]) for tool in ("npm", "node", "nodejs"))
    proc = subprocess.run([sys.executable, "-m", "mnote_kr", "demo", "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    out = json.loads(proc.stdout)

    # The guard ran in the CLI, the model service and the LightRAG server, and nothing reached out:
    # tiktoken's o200k_base came from the installed wheel into this fresh home's cache.
    armed = (net / "armed.log").read_text(encoding="utf-8")
    for process in ("mnote_kr demo", "mnote_kr_lightrag.engine.modelservice", "mnote_kr_lightrag.engine.guard"):
        assert process in armed, armed
    assert not (net / "refused.log").exists(), (net / "refused.log").read_text(encoding="utf-8")
    assert is_valid(home / "cache" / "tiktoken", REQUIRED), sorted((home / "cache").rglob("*"))
    assert (home / "cache" / "tiktoken" / ENCODINGS[REQUIRED][0]).is_file()

    items = {Path(i["sourcePath"]).suffix: i for i in out["ingest"]["items"]}
    assert set(items) == {".docx", ".pdf", ".md"} and {i["status"] for i in items.values()} == {"processed"}
    assert out["searches"] and all(s["schema"] == "mnote.knowledge_rag.search_results.v1" for s in out["searches"])
    citations = [c for s in out["searches"] for c in s["results"]]
    by_type: dict[str, list[dict]] = {}
    for c in citations:
        by_type.setdefault(Path(c["sourceRootRelativePath"]).suffix, []).append(c)
        assert c["sourceRootRelativePath"].startswith("samples/")
    assert by_type.get(".docx"), "no DOCX citation"
    assert by_type.get(".md"), "no Markdown citation"
    pdf_boxes = [c for c in by_type.get(".pdf", []) if c["locatorPrecision"] == "bbox"]
    assert pdf_boxes, "no PDF citation with a box"
    loc = pdf_boxes[0]["locator"]
    assert loc["page"] >= 1 and len(loc["bbox"]) == 4 and loc["bboxUnit"] == "pt"
    assert f"p.{loc['page']}" in pdf_boxes[0]["citationMarkdown"]
    assert any(c["locatorPrecision"] == "paragraph" and c["locator"]["paragraphIndex"] is not None
               for c in by_type[".docx"])
    # each question's citation of the file that answers it lands on the answering paragraph (the
    # first search cited "Table 1 lists the measured capacity..." next to "Cell B2 kept the highest
    # capacity..."), as an exact place (the Markdown answer to "morpholine storage", "... is stored
    # ...", was said approximate while "stored" did not meet "storage")
    for query, (rel, index) in answering_places().items():
        search = next(s for s in out["searches"] if s["query"] == query)
        cited = [c for c in search["results"] if c["sourceRootRelativePath"] == rel]
        assert cited, (query, [c["sourceRootRelativePath"] for c in search["results"]])
        got = (cited[0]["locatorPrecision"], cited[0]["locator"]["paragraphIndex"], cited[0]["locatorDegraded"])
        assert got == ("paragraph", index, False), (query, cited[0]["displayQuote"], cited[0]["locator"].get("reason"))

    # the demo workspace is gone and no engine process of this home survives
    assert not Path(out["workspace"]).exists()
    status = subprocess.run([sys.executable, "-m", "mnote_kr", "engine", "status", "--json"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert status.returncode == 0 and json.loads(status.stdout) == {"running": False}
    assert not (home / "state" / "engine.json").exists()
    assert processes_under(home) == []
