"""DOCX files LightRAG's own parser fails on are indexed through the text mnote-kr reads from them,
and their citations land in the original file's paragraphs (real lightrag-server)."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.citations.render.statustext import render_status
from mnote_kr.core.config import load_config

pytestmark = pytest.mark.integration

# LightRAG 1.5.7 fails on each: Strict OOXML, a macro-free template's content type, a parser bug.
FILES = {
    "docling__Strict.docx": "Some text",
    "poi__stress014.docx": "Journal of Integrated Science",
    "unstructured__tables-with-incomplete-rows.docx": "rows is missing cells",
}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _workspace(tmp_path: Path, engine: Any, monkeypatch: pytest.MonkeyPatch,
               names: Iterable[str]) -> tuple[Path, Host, dict[str, str]]:
    """A workspace on the shared engine whose ``docs`` holds copies of the corpus DOCX ``names``; its
    host and the copies' sha256."""
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", engine.api_key)
    ws = tmp_path / "kb"
    (ws / "docs").mkdir(parents=True)
    for name in names:
        shutil.copyfile(CORPUS / "docx" / name, ws / "docs" / name)
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": engine.url, "input_dir": engine.input_dir}}
    return ws, Host(ws, config=config), {name: _sha(ws / "docs" / name) for name in names}


def test_docx_lightrag_cannot_parse_is_indexed_as_text_and_cited_in_place(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    ws, host, before = _workspace(tmp_path, lightrag_engine, monkeypatch, FILES)

    report = host.ingest(["docs"], wait=True, wait_s=240)
    statuses = {item.source_path: item.status for item in report.items}
    assert statuses == {f"docs/{name}": "processed" for name in FILES}, \
        [(i.source_path, i.reason) for i in report.items]

    reg = host.registry()
    for name in FILES:
        entry = reg.entries[f"docs/{name}"]
        assert entry.kind == "text_fallback" and entry.light_rag_file_path.endswith(".docx.md")
        note = entry.last_error or ""
        assert "LightRAG's parser could not read it" in note
        # Indexed: nothing is left to do, so the note gives no advice, and it names no link.
        assert "--force" not in note and "save as" not in note and "the file'" not in note, note
        # what LightRAG's parser met, in words (nc27a): no python-docx or Python error text
        assert "no relationship" not in note and "internal error" not in note and "object" not in note, note
    assert "Strict Open XML" in (reg.entries["docs/docling__Strict.docx"].last_error or "")
    assert "XML comments" in (reg.entries["docs/unstructured__tables-with-incomplete-rows.docx"].last_error or "")
    status = host.status()
    assert {f["sourcePath"] for f in status["registry"]["fallbacks"]} == {f"docs/{n}" for n in FILES}
    text = render_status(status)
    assert text.count("Fallback:  docs/") == 3
    # LightRAG's failed rows of the originals are gone: no failed or unmapped documents left over.
    assert not status["provider"]["unmapped"], status["provider"]["unmapped"]
    assert not status["provider"]["documentsByStatus"].get("failed"), status["provider"]["documentsByStatus"]

    result = host.search("Journal of Integrated Science and Technology manuscript title")
    hits = [c for c in result.results if c.source_root_relative_path == "docs/poi__stress014.docx"]
    assert hits, [c.source_root_relative_path for c in result.results]
    cited = hits[0]
    assert cited.source_path.endswith("poi__stress014.docx")  # the user's file, not the wrapper
    assert cited.locator_precision == "paragraph" and cited.locator.paragraph_index is not None
    assert "read by mnote-kr" not in cited.display_quote  # the wrapper's own first line is not the user's text
    from mnote_kr_docx_locator import load_docx

    para = load_docx(ws / "docs" / "poi__stress014.docx").paragraphs[cited.locator.paragraph_index]
    assert any(w in para.text for w in ("Journal", "manuscript", "Title"))
    assert {name: _sha(ws / "docs" / name) for name in FILES} == before  # never touched


def test_ingest_wait_fails_naming_each_unreadable_file_with_advice_that_fits(
        tmp_path: Path, lightrag_engine) -> None:  # noqa: F811, ANN001
    import re
    import subprocess
    import sys

    from tests.cli_helpers import cli_env

    ws = tmp_path / "kb"
    (ws / "docs").mkdir(parents=True)
    (ws / ".mnote").mkdir()
    (ws / ".mnote" / "config.toml").write_text(  # OCR off, as a user may set it: nothing reads the scan
        f'disabled_plugins = ["ocr"]\n[providers.lightrag]\nurl = "{lightrag_engine.url}"\n'
        f'input_dir = "{lightrag_engine.input_dir}"\n',
        encoding="utf-8")
    (ws / "docs" / "b.docx").write_bytes((CORPUS / "docx" / "tika__017091.docx").read_bytes()[:20000])
    shutil.copyfile(CORPUS / "pdf" / "mineru__scanned.pdf", ws / "docs" / "scan.pdf")
    env = cli_env(tmp_path / "home", lightrag_engine.api_key)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mnote_kr", *args], cwd=ws, env=env, capture_output=True,
                              text=True, encoding="utf-8", timeout=300)

    proc = run("ingest", "docs", "--wait", "--timeout", "240")
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    errors = [ln for ln in proc.stderr.strip().splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1 and proc.stderr.strip().splitlines()[-1] == errors[0], proc.stderr  # one line, last
    line = errors[0]
    assert line.startswith("Error: 2 of 2 file(s) failed to index: docs/")
    human = proc.stdout + run("status").stdout
    for text in (line, human):
        assert not re.search(r"\.[0-9a-f]{8}-[0-9a-f]{8}\.", text), text  # no link names
        assert not re.search(r"\bdoc-[0-9a-f]{32}\b", text), text  # no doc ids
        assert "{'" not in text and "Re-upload" not in text
    status = run("status").stdout
    failed = {ln[len("Failed:    "):].split(": ", 1)[0]: ln for ln in status.splitlines() if ln.startswith("Failed:")}
    assert set(failed) == {"docs/scan.pdf", "docs/b.docx"}, status
    assert "no text layer" in failed["docs/scan.pdf"] and "OCR" in failed["docs/scan.pdf"]
    assert "damaged" in failed["docs/b.docx"]  # a truncated file: no "save as" advice
    # Sent without waiting, then followed by sync: the failure is named there too, and sync exits 1.
    broken = (CORPUS / "docx" / "tika__017091.docx").read_bytes()[:30000]
    (ws / "docs" / "c.docx").write_bytes(broken)
    assert run("ingest", "docs/c.docx").returncode == 0
    proc = run("sync", "--wait", "240")
    assert (ws / "docs" / "c.docx").read_bytes() == broken  # the failed file is left as it was
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: 1 file(s) failed to index: docs/c.docx, its reason above"), proc.stderr
    named = [ln for ln in proc.stdout.splitlines() if ln.startswith("failed:")]
    assert len(named) == 1 and "docs/c.docx" in named[0] and "damaged" in named[0], proc.stdout


# LightRAG 1.5.7 processes each, but reads only a sliver of its text: the body of the job
# announcement sits in layout tables, the kindergarten procedure in text boxes.
THIN = {"tika__017097.docx": "insure that all application materials are RECEIVED",
        "docling__textbox.docx": "Infectious Disease Reporting Procedure"}


def test_docx_lightrag_reads_only_a_sliver_of_is_indexed_as_text_and_cited_in_place(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    ws, host, before = _workspace(tmp_path, lightrag_engine, monkeypatch, THIN)

    report = host.ingest(["docs"], wait=True, wait_s=240)
    assert {i.source_path: i.status for i in report.items} == {f"docs/{n}": "processed" for n in THIN}
    for name in THIN:
        entry = host.registry().entries[f"docs/{name}"]
        assert entry.kind == "text_fallback" and entry.light_rag_file_path.endswith(".docx.md")
        assert "LightRAG's parser read only" in (entry.last_error or ""), entry.last_error
    # LightRAG's rows of the thin readings are gone (the engine is shared: other tests' rows may show)
    unmapped = host.status()["provider"]["unmapped"]
    assert not [u for u in unmapped if any(Path(n).stem in u["filePath"] for n in THIN)], unmapped
    # a sentence deep in the body LightRAG had left out is found and cited at its paragraph
    result = host.search("by what time must all application materials be received on the closing date")
    hits = [c for c in result.results if c.source_root_relative_path == "docs/tika__017097.docx"]
    assert hits, [c.source_root_relative_path for c in result.results]
    from mnote_kr_docx_locator import load_docx

    paragraphs = load_docx(ws / "docs" / "tika__017097.docx").paragraphs
    places = [hits[0].locator, *(a.locator for a in hits[0].alternatives)]
    assert any(p.paragraph_index is not None and THIN["tika__017097.docx"] in paragraphs[p.paragraph_index].text
               for p in places), [(p.paragraph_index, hits[0].display_quote) for p in places]
    assert {name: _sha(ws / "docs" / name) for name in THIN} == before  # never touched
