"""``sync`` re-reads the files LightRAG indexed by a reading that changed since: through the real LightRAG
plugin on replayed LightRAG payloads. A scanned PDF indexed from its OCR text before table rows were joined
(``ocr:1``) is sent again and records the OCR reading of now; a workbook linked for LightRAG's parser
(``lightrag:1``) that declares far more rows than it holds, which is now sent as mnote-kr's text, is sent
again as that text; a workbook of honest size linked the same way is not sent, only its reading recorded. Likewise
a deck linked for LightRAG's parser (``lightrag:2``) whose title holds line breaks between words, which that parser
runs together, is sent again as mnote-kr's text with the words apart; a deck without such breaks is only recorded.
The OCR is a stand-in (``recognize_text`` answering a fixed text: the recognition itself is the OCR
plugin's tests'); the workbooks are the corpus's, read by the bundled XLSX plugin. No file is touched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS, SAMPLES
from mnote_kr_testkit.files import digest_tree
from mnote_kr_testkit.replay import URL, Replay

import mnote_kr_lightrag as lightrag_plugin
from mnote_kr.app.host import Host
from mnote_kr.cli.main import main
from mnote_kr.cli.reports import Ctx
from mnote_kr.core.config import load_config
from mnote_kr.core.workspace import source_id_for
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import SourceEntry
from mnote_kr.plugins import load_plugins
from mnote_kr_lightrag.client import mapping, naming, readings, settings

SCAN = "kb/scan.pdf"
INFLATED = "kb/inflated.xlsx"
NORMAL = "kb/normal.xlsx"
GLUED = "kb/glued.pptx"
PLAIN = "kb/plain.pptx"
ROW = "HbA1c | 6.8% | <5.7% | HIGH"


class Recognizer:
    """An OCR plugin's answer for the scanned PDF: its one page recognised, a table row read as one line."""

    @hookimpl(tryfirst=True)
    def recognize_text(self, path: str, progress: Any = None) -> str | None:
        return f"## Page 1\n\n{ROW}\n" if path.endswith("scan.pdf") else None

    @hookimpl(tryfirst=True)
    def recognized_pages(self, path: str) -> tuple[int, int] | None:
        return (1, 1) if path.endswith("scan.pdf") else None


def _listing(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"documents": rows, "pagination": {"page": 1, "page_size": 200, "total_count": len(rows),
                                              "total_pages": 1, "has_next": False, "has_prev": False},
            "status_counts": {"all": len(rows)}}


def _entry(ws: Path, rel: str, reading: str, kind: str) -> SourceEntry:
    import hashlib

    path = ws / rel
    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    name = naming.link_name(rel, sha, naming.workspace_tag(ws))
    if kind == "text_fallback":
        name += ".md"
    st = path.stat()
    return SourceEntry(source_id=source_id_for(rel), source_path=str(path), source_root_relative_path=rel,
                       source_hash="sha256:" + sha, size=st.st_size, mtime_ns=st.st_mtime_ns, status="processed",
                       kind=kind, reading=reading, light_rag_file_path=name, light_rag_doc_id=naming.doc_id_for(name))


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Host, Replay]:
    monkeypatch.setenv("MNOTE_KR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", "replay-key")
    settings.clear_cache()
    mapping._cache.clear()
    lightrag_plugin._input_dirs.clear()
    readings._NOTES_SEEN.clear()
    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    shutil.copyfile(CORPUS / "pdf" / "docling__multi_page.pdf", ws / SCAN)
    shutil.copyfile(CORPUS / "xlsx" / "docling__xlsx_04_inflated.xlsx", ws / INFLATED)
    shutil.copyfile(CORPUS / "xlsx" / "docling__xlsx_05_table_with_title.xlsx", ws / NORMAL)
    shutil.copyfile(CORPUS / "pptx" / "docling__powerpoint_bad_text.pptx", ws / GLUED)
    shutil.copyfile(CORPUS / "pptx" / "docling__powerpoint_with_image.pptx", ws / PLAIN)
    inputs = tmp_path / "inputs"
    (inputs / "__parsed__").mkdir(parents=True)
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": URL, "input_dir": str(inputs), "workspace": ""}}
    replay = Replay(SAMPLES)
    replay.sample("GET", "/health", "02_health_auth.json")
    replay.json("POST", "/documents/paginated", _listing([]))  # (ingest --force's delete: test_lr_provider)
    replay.sample("GET", "/documents/supported_file_types", "05_supported_file_types.json")
    replay.sample("POST", "/documents/scan", "10_scan_started.json")
    plugins = load_plugins(config, extra=[("recognizer", Recognizer())])
    host = Host(ws, config=config, plugins=plugins, transport=replay.transport)
    host.add_root("kb")
    with host.store.transaction() as reg:
        reg.put(_entry(ws, SCAN, "ocr:1", "text_fallback"))
        reg.put(_entry(ws, INFLATED, "lightrag:1", "document"))
        reg.put(_entry(ws, NORMAL, "lightrag:1", "document"))
        reg.put(_entry(ws, GLUED, "lightrag:2", "document"))
        reg.put(_entry(ws, PLAIN, "lightrag:2", "document"))
    monkeypatch.setattr(Ctx, "host", lambda self, progress=False: host)
    return host, replay


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_sync_rereads_an_ocr_text_an_inflated_workbook_and_a_glued_deck_by_their_new_readings_only(
        kb: tuple[Host, Replay], capsys: pytest.CaptureFixture[str], as_json: bool) -> None:
    host, _ = kb
    before = digest_tree(host.root)
    told = host.status()["readings"]["older"]
    assert told["count"] == 5 and SCAN in told["paths"], told  # workbooks and decks: sync checks their structure
    assert "one row" in told["reasons"][SCAN] and "line breaks" in told["reasons"][PLAIN]

    capsys.readouterr()
    if as_json:
        assert main(["sync", "--json"]) == 0
        reread = json.loads(capsys.readouterr().out)["reconcile"]["reread"]
        assert sorted(reread["sent"]["paths"]) == [GLUED, INFLATED, SCAN], reread
        assert "one row" in reread["sent"]["reasons"][SCAN]
        assert "1,048,496 rows" in reread["sent"]["reasons"][INFLATED]
        assert "line breaks inside a text box" in reread["sent"]["reasons"][GLUED]
        assert reread["recorded"] == 2  # the workbook of honest size, the deck without breaks: not sent
    else:
        assert main(["sync"]) == 0
        said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("re-read:")]
        assert len(said) == 3 and any(f"{SCAN} (read again for a scanned table's cells" in x for x in said), said
        assert any(f"{INFLATED} (read again for its cells as mnote-kr reads them" in x for x in said), said
        assert any(f"{GLUED} (read again for the words on either side of its line breaks" in x for x in said), said
    entries = host.registry().entries
    assert entries[SCAN].reading == readings.current(readings.OCR) == "ocr:2"
    assert (entries[INFLATED].reading, entries[INFLATED].kind) == (readings.current(readings.WORKBOOK),
                                                                    "text_fallback")
    assert entries[NORMAL].reading == entries[PLAIN].reading == readings.current(readings.LIGHTRAG) == "lightrag:4"
    assert (entries[GLUED].reading, entries[GLUED].kind) == (readings.current(readings.DECK), "text_fallback")
    # the new text sent in the old one's place: LightRAG indexes the row and the cells
    inputs = Path(host.config["providers"]["lightrag"]["input_dir"])
    texts = {p.name: p.read_text(encoding="utf-8") for p in inputs.glob("*.md")}
    assert len(texts) == 3 and any(ROW in t for t in texts.values()), texts  # the honest workbook stays linked
    assert any("6 | 0 | -6" in t for t in texts.values()), texts
    assert any("X-Library The fully" in t for t in texts.values()), texts  # glued "X-LibraryThe" by LightRAG
    assert digest_tree(host.root) == before  # the user's files are never touched

    # Read once: the recorded workbook is current now (the two sent wait for LightRAG), the next sync sends nothing.
    assert host.status()["readings"]["older"]["count"] == 0
    assert main(["sync", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)["reconcile"]["reread"]
    assert again["sent"]["count"] == 0, again
    assert digest_tree(host.root) == before
