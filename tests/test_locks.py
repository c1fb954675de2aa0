"""``core.locks.exclusive``: the light lock the citation cache appends under. It excludes
filelock's own lock on the same file both ways (older processes, and registry code, use
filelock), times out as filelock does, and a search's cache write never imports filelock."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import filelock
import pytest

from mnote_kr.core.locks import exclusive


def test_the_light_lock_and_filelock_exclude_each_other(tmp_path: Path) -> None:
    path = str(tmp_path / "x.lock")
    with filelock.FileLock(path, timeout=1), pytest.raises(filelock.Timeout):
        with exclusive(path, timeout=0.2):
            pass
    with exclusive(path, timeout=1):
        with pytest.raises(filelock.Timeout):
            filelock.FileLock(path, timeout=0.2).acquire()
    with filelock.FileLock(path, timeout=0.2):  # released: free again
        pass


def test_a_waiter_gets_the_lock_when_the_holder_lets_go(tmp_path: Path) -> None:
    path = str(tmp_path / "x.lock")
    order: list[str] = []
    held = threading.Event()

    def holder() -> None:
        with exclusive(path, timeout=1):
            held.set()
            time.sleep(0.3)
            order.append("holder done")

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(5)
    with exclusive(path, timeout=5):
        order.append("waiter in")
    thread.join()
    assert order == ["holder done", "waiter in"]
    assert Path(path).exists()  # left in place: every waiter locks the same file


_PROBE = """
import json, sys
from pathlib import Path
from types import SimpleNamespace
from mnote_kr.citations.caches import citecache
from mnote_kr.models import Citation, CitationDiagnostics, Locator
host = SimpleNamespace(workspace=SimpleNamespace(index_dir=Path(sys.argv[1]), workspace_id="ws-probe",
                                                rel_to_abs=lambda rel: Path(sys.argv[1]) / rel), config={})
loc = Locator(locator_precision="file", locator_degraded=True)
diag = CitationDiagnostics(quote_source="chunk", raw_reference_mapped=True, sidecar_block_mapped=False,
                           display_cleaned=True, locator_text_source="chunk")
c = Citation(provider="lightrag", citation_id="[abcd]", source_id="src-1", source_path="/ws/a.md",
             source_root_relative_path="a.md", light_rag_doc_id=None, light_rag_file_path="a.md",
             light_rag_chunk_id=None, block_id=None, heading_path=[], raw_quote="q", display_quote="q",
             locator_evidence_text="q", quote_source="chunk", search_query="q", locator_precision="file",
             locator_degraded=True, locator=loc, citation_url="u", citation_markdown="m", relevance_score=1.0,
             diagnostics=diag)
citecache.remember(host, [c], SimpleNamespace(entries={}))  # the registry the search built them from
citecache._memory.clear()  # what another process finds: the store on disk
print(json.dumps({"filelock": "filelock" in sys.modules,
                  "kept": list(citecache.load(host))}))
"""


def test_remembering_citations_does_not_import_filelock(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"filelock": False, "kept": ["[abcd]"]}
