"""One search read through the surfaces a person or an agent uses: helpers the surface tests share (and the
start-up of ``mnote-kr mcp`` and of a host on the real engine, which the MCP and engine tests share)."""

from __future__ import annotations

import copy
import hashlib
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from mnote_kr_testkit.data import CORPUS
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.app.host import Host
from mnote_kr.cli.main import main
from mnote_kr.cli.reports import Ctx, search_report
from mnote_kr.hookspecs import hookimpl
from mnote_kr.models import (
    MappedReference,
    ProviderQueryResult,
    ProviderReference,
    QueryRequest,
    SidecarBlock,
    SidecarPosition,
    SourceEntry,
)
from mnote_kr.server.app import ApiServer
from mnote_kr.viewer import web
from tests.cli_helpers import cli_env

if TYPE_CHECKING:
    from mnote_kr_lightrag.engine.managed import EngineInfo

#: The first line an MCP client sends.
MCP_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}


class BlockProvider(FakeProvider):
    """The fake provider, each chunk mapped with a block (as LightRAG's sidecar gives one): the
    pipeline then keeps the paragraph the text locator finds instead of capping it at the file.
    ``positions(entry)``: the block's sidecar positions (none here)."""

    def positions(self, entry: SourceEntry) -> list[SidecarPosition]:
        return []

    @hookimpl
    def map_reference(self, ctx: Any, reference: ProviderReference, entries: dict[str, SourceEntry],
                      query: str) -> MappedReference | None:
        entry = entries.get(reference.file_path)
        if entry is None:
            return None
        block = SidecarBlock(blockid=f"b-{reference.chunk_id}", content=reference.content or "",
                             positions=self.positions(entry))
        return MappedReference(reference=reference, entry=entry, block=block)



class OnePassage(BlockProvider):
    """The fake provider returning each file as one passage (``texts``: the whole text it was given)."""

    @hookimpl
    def query(self, ctx: Any, request: QueryRequest) -> ProviderQueryResult:
        refs = [ProviderReference(provider="fake", file_path=name, reference_id=str(k + 1), chunk_id=f"chunk-{k}",
                                  doc_id=f"doc-{name}", content=text, rank=k)
                for k, (name, text) in enumerate(sorted(self.texts.items()))]
        return ProviderQueryResult(provider="fake", references=refs, answer=None)


def one_passage_host(tmp_path: Path, source: Path, chunk: str) -> tuple[Host, Path]:
    """A fake host that indexed a copy of ``source`` and answers every search with ``chunk`` (LightRAG's passage,
    not the file's whole text), and the copy's path; the meaning and pipeline memos cleared first."""
    from mnote_kr_testkit.fakes import fake_host

    from mnote_kr.citations import pipeline
    from mnote_kr.citations.rank import meaning

    meaning._memo.clear()
    pipeline.clear_memos()
    docs = tmp_path / "ws" / "docs"
    docs.mkdir(parents=True)
    shutil.copyfile(source, docs / source.name)
    provider = OnePassage(delete_status="delete_completed")
    h, _ = fake_host(tmp_path / "ws", provider)
    h.roots_add(docs)
    h.ingest([docs], wait=True)
    for name in provider.texts:
        provider.texts[name] = chunk
    return h, docs / source.name


def note_host(tmp_path: Path, rel: str, text: str) -> tuple[Host, Path]:
    """A fake host whose workspace (``tmp_path/ws``) has indexed the note ``rel`` holding ``text``, its folder a root;
    and the note's path (a test checks its bytes unchanged)."""
    note = tmp_path / "ws" / rel
    note.parent.mkdir(parents=True)
    note.write_text(text, encoding="utf-8")
    host, _ = fake_host(tmp_path / "ws")
    host.roots_add(note.parent)
    host.ingest([note.parent])
    return host, note


class HostObj:
    """What the CLI's commands take from click's context: the workspace's host."""

    def __init__(self, host: Host) -> None:
        self._host = host

    def host(self, progress: bool = False) -> Host:  # noqa: ARG002  (the CLI's progress writer: none here)
        return self._host

    def paths(self, raws: tuple[str, ...]) -> tuple[str, ...]:
        return Ctx.paths(self, raws)  # type: ignore[arg-type]  # the CLI's own reading of typed paths


def changed_note_host(tmp_path: Path, root: Any) -> tuple[Host, Path]:
    """A workspace whose root ``root`` (an ``IndexedRoot`` named "kb") holds kb/a.md, recorded as indexed, and then
    changed on disk (the provider unreachable): what sync makes of a changed file."""
    import hashlib

    from mnote_kr.core.config import load_config
    from mnote_kr.models import SourceEntry

    ws = tmp_path / "ws"
    (ws / "kb").mkdir(parents=True)
    note = ws / "kb" / "a.md"
    note.write_text("The zeppelin hangar.", encoding="utf-8")
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": "http://127.0.0.1:9"}}
    host = Host(ws, config=config)
    st = note.stat()
    with host.store.transaction() as reg:
        reg.roots["kb"] = root
        reg.put(SourceEntry(source_id="kb/a.md", source_path=str(note), source_root_relative_path="kb/a.md",
                            status="processed", size=st.st_size, mtime_ns=st.st_mtime_ns,
                            source_hash="sha256:" + hashlib.sha256(note.read_bytes()).hexdigest()))
    note.write_text("The zeppelin hangar, and the quokka enclosure.", encoding="utf-8")
    return host, note


def cli_search(host: Host, query: str, as_json: bool) -> str:
    """``mnote-kr search QUERY [--json]``'s output, through the command's own report."""
    out = io.StringIO()
    with redirect_stdout(out):
        search_report(HostObj(host), as_json, query=query, scope=(), top_k=10, mode="mix",  # type: ignore[arg-type]
                      rerank=None)
    return out.getvalue()


@contextmanager
def api(host: Host) -> Iterator[tuple[ApiServer, httpx.Client]]:
    """The HTTP API on loopback and a client holding its token."""
    with ApiServer(host, write_token_file=False) as server, httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {server.token}"}, timeout=30) as client:
        yield server, client


def web_page(server: ApiServer, path: str) -> str:
    """A page of the web UI as a signed-in browser gets it (200 asserted)."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        client.get(web.entry_url(server))  # the token URL sets the session cookie
        response = client.get(path)
        assert response.status_code == 200, response.text
        return response.text


class KB:
    """A workspace of two Markdown files behind a fake provider, driven through ``mnote-kr`` (``main``)."""

    def __init__(self, host: Host, provider: Any, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN401
        self.host, self.provider, self.ws, self.capsys = host, provider, host.root, capsys

    def run(self, *args: str, code: int = 0) -> tuple[str, str]:
        """stdout and stderr of ``mnote-kr ARGS``, which must exit ``code`` and leave the sources as they were."""
        before = digest_tree(self.ws)
        self.capsys.readouterr()
        assert main(list(args)) == code
        assert digest_tree(self.ws) == before, "a command changed a source file"
        out = self.capsys.readouterr()
        return out.out, out.err


def cli_kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        provider: Any) -> KB:  # noqa: ANN401
    ws = tmp_path / "ws"
    ws.mkdir()
    host, _ = fake_host(ws, provider)
    monkeypatch.setattr(Ctx, "host", lambda self, progress=False: host)
    write(ws / "kb" / "a.md", "# A\n\nThe amber lamp glows.\n")
    write(ws / "kb" / "b.md", "# B\n\nThe blue kettle sings.\n")
    return KB(host, provider, capsys)


def mcp_library(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A workspace with one root of one note, added through the CLI, and the environment ``mnote-kr mcp`` is
    started in (its own home, no keyring)."""
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("A note on glaciers.\n", encoding="utf-8")
    env = cli_env(tmp_path / "home", None)
    added = subprocess.run([sys.executable, "-m", "mnote_kr", "roots", "add", "docs", "--no-follow"], cwd=ws, env=env,
                           capture_output=True, text=True, timeout=120)
    assert added.returncode == 0, added.stderr
    return ws, env


def engine_host(ws: Path, info: EngineInfo, monkeypatch: pytest.MonkeyPatch) -> Host:
    """A host on ``ws`` whose provider is the running engine ``info`` (its URL, folders and API key)."""
    from mnote_kr.core.config import DEFAULTS
    from mnote_kr_lightrag.client import settings as lr_settings

    config = copy.deepcopy(DEFAULTS)
    config["providers"] = {"lightrag": {"url": info.url, "input_dir": info.input_dir,
                                        "working_dir": info.working_dir}}
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", info.api_key)
    lr_settings.clear_cache()
    return Host(ws, config=config)


def own_engine(tmp_path: Path, wait_s: float) -> dict[str, Any]:
    """The keywords of ``start_engine`` for a test's own engine under ``tmp_path / "engine"`` (its tokenizer seeded,
    no download); ``state_dir`` is also what ``stop_engine`` takes."""
    from mnote_kr_testkit.engine import seed_tiktoken

    base = tmp_path / "engine"
    seed_tiktoken(base / "cache")
    return {"data_dir": base / "data", "state_dir": base / "state", "cache_dir": base / "cache", "wait_s": wait_s}


#: The corpus handbook the quote tests read (``test_quote_by_meaning``, ``test_quote_sets``): its ¶519 answers
#: ``HANDBOOK_QUESTION`` ("Which documents may serve as photo identification?", no word of it in the paragraph) in
#: its second sentence, which opens with ``HANDBOOK_ANSWER``.
HANDBOOK = CORPUS / "docx" / "unstructured__handbook-872p.docx"
HANDBOOK_QUESTION = "哪些证件可以作为带照片的身份证明？"
HANDBOOK_ANSWER = "Acceptable forms of picture identification"


def handbook_paragraphs() -> list[str]:
    """Paragraphs 516, 519 and 521 of ``HANDBOOK``, read as the DOCX locator reads them, spaces folded; nothing
    written (the file's digest checked)."""
    from mnote_kr_docx_locator.reader import parse_file

    before = hashlib.sha256(HANDBOOK.read_bytes()).hexdigest()
    paras = parse_file(str(HANDBOOK), os.stat(HANDBOOK)).paragraphs
    assert hashlib.sha256(HANDBOOK.read_bytes()).hexdigest() == before
    out = [" ".join(paras[i].text.split()) for i in (516, 519, 521)]
    assert out[1].startswith("Any document used to confirm") and HANDBOOK_ANSWER in out[1]
    return out
