"""One budget for the whole path: a file over its reader's budget is refused before the
provider sees it, recorded ``refused`` with the limit named, cited nowhere, and said in one line.

The provider here is the in-process ``FakeProvider`` (it records what it is sent); the real
LightRAG engine's side (its document list and memory) is in ``test_budget_integration.py``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import msgspec
import pytest
from mnote_kr_testkit.docx_docs import DocxBuilder, big_xml_docx
from mnote_kr_testkit.fakes import fake_host
from mnote_kr_testkit.pdfs import many_pages_pdf

from mnote_kr.citations.render.statustext import render_status
from mnote_kr.core.registry_format import decode_json, encode_json
from mnote_kr.core.registry_tags import entry_tag, is_citable_tag, tag_status
from mnote_kr_docx_locator import safezip as docx_zip
from tests.test_cli_errors import Cli, closed_port


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_docx_over_the_default_xml_part_budget_is_refused_before_the_provider_sees_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    big = ws / "docs" / "big.docx"
    big.write_bytes(big_xml_docx(docx_zip.MAX_PART_BYTES + (4 << 20)))  # the real default limit, just over
    small = ws / "docs" / "small.docx"
    doc = DocxBuilder()
    doc.heading("Notes", 1)
    doc.para("An ordinary short note.")
    small.write_bytes(doc.build())
    before = {p: _sha(p) for p in (big, small)}
    host, provider = fake_host(ws)

    report = host.ingest(["docs"])

    items = {i.source_path: i for i in report.items}
    assert items["docs/big.docx"].status == "refused"
    reason = items["docs/big.docx"].reason or ""
    assert "word/document.xml" in reason and "64 MiB" in reason, reason  # the limit, named
    assert items["docs/small.docx"].status == "processed"
    assert "docs/big.docx" not in provider.ingested and "docs/small.docx" in provider.ingested
    entry = host.registry().entries["docs/big.docx"]
    assert entry.status == "refused" and entry.last_error == reason and not entry.light_rag_doc_id
    status = host.status()
    assert status["registry"]["byStatus"] == {"processed": 1, "refused": 1}
    assert status["registry"]["refused"] == [{"sourcePath": "docs/big.docx", "reason": reason}]
    assert f"Refused:   docs/big.docx: {reason}" in render_status(status)
    # Cited nowhere: the provider never had it, and the registry does not offer it as citable.
    assert not is_citable_tag(entry_tag(entry))
    found = host.search("what does big.docx say about the report")
    assert all(c.source_root_relative_path != "docs/big.docx" for c in found.results)
    assert [(n.source_path, n.status, n.reason) for n in found.not_indexed] == [("docs/big.docx", "refused", reason)]
    # Unchanged, it stays refused without another check or send; the sources are untouched.
    again = host.ingest(["docs/big.docx"])
    assert [(i.status, i.reason) for i in again.items] == [("refused", reason)]
    assert "docs/big.docx" not in provider.ingested
    assert {p: _sha(p) for p in (big, small)} == before


def test_refused_status_survives_a_save_and_load_with_its_own_tag(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # A smaller limit for speed: the reader's budget is a module constant, read when checked.
    monkeypatch.setattr(docx_zip, "MAX_PART_BYTES", 1 << 20)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.docx").write_bytes(big_xml_docx(2 << 20))
    host, provider = fake_host(ws)
    host.ingest(["a.docx"])
    assert "a.docx" not in provider.ingested
    reg = host.store.load()
    tags = dict(reg.entries.tag_counts())
    assert [tag_status(t) for t in tags] == ["refused"]
    assert reg.notes(lambda tag: True)[0][1].last_error.startswith("DOCX too large for the locator: word/document.xml")
    # Stored as a failed entry of kind "refused": a reader from before the status (whose decoder
    # knows only these nine) reads a failed entry instead of calling the registry corrupt.
    previous = {"pending", "submitted", "processing", "processed", "failed", "duplicate", "stale",
                "delete_submitted", "delete_completed"}
    chunks = msgspec.msgpack.decode(msgspec.msgpack.decode(host.store.path.read_bytes())[-1])
    stored = [m for chunk in chunks for m in chunk[0]]
    assert [(m["status"], m["kind"]) for m in stored] == [("failed", "refused")]
    assert {m["status"] for m in stored} <= previous
    exported = msgspec.json.decode(encode_json(host.store.load().snapshot()))
    assert [(e["status"], e["kind"]) for e in exported["entries"]] == [("failed", "refused")]
    assert decode_json(encode_json(host.store.load().snapshot()), host.store.path).entries[0].status == "refused"
    # prune drops a refused record, like a failed one
    assert host.prune() == ["a.docx"]


def test_pdf_over_the_page_budget_is_refused_with_the_page_limit_and_one_at_it_is_sent(tmp_path: Path) -> None:
    from mnote_kr_pdf_bbox import budget

    ws = tmp_path / "ws"
    ws.mkdir()
    manual = ws / "manual.pdf"
    manual.write_bytes(many_pages_pdf(5000))
    (ws / "long.pdf").write_bytes(many_pages_pdf(budget.MAX_PAGES))
    digest = _sha(manual)
    host, provider = fake_host(ws)
    items = {i.source_path: i for i in host.ingest(["manual.pdf", "long.pdf"]).items}
    assert items["manual.pdf"].status == "refused"
    assert f"5000 pages, limit {budget.MAX_PAGES} pages" in (items["manual.pdf"].reason or "")
    assert provider.ingested == ["long.pdf"] and items["long.pdf"].status == "processed"
    assert _sha(manual) == digest


def test_cli_says_refused_in_one_line_with_the_limit_and_status_json_lists_it(tmp_path: Path) -> None:
    # The provider is down: a refused file never needs it (nothing is queued for it either).
    cli = Cli(tmp_path / "ws", url=f"http://127.0.0.1:{closed_port()}")
    big = cli.ws / "big.docx"
    big.write_bytes(big_xml_docx(docx_zip.MAX_PART_BYTES + (4 << 20)))
    digest = _sha(big)

    out = cli.ok("ingest", "big.docx")
    lines = [ln for ln in out.splitlines() if "big.docx" in ln]
    assert len(lines) == 1 and lines[0].startswith("refused ") and "limit" in lines[0] and "64 MiB" in lines[0]
    status = cli.ok("status", "--json")
    assert status["registry"]["byStatus"] == {"refused": 1}
    [refused] = status["registry"]["refused"]
    assert refused["sourcePath"] == "big.docx" and "XML part size 64 MiB" in refused["reason"]
    assert status["registry"]["waiting"] == []  # nothing queued for the provider
    assert _sha(big) == digest


def test_text_over_the_index_budget_is_refused_naming_max_index_chars(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    doc = DocxBuilder()
    for i in range(400):
        doc.para(f"Paragraph {i} of a long but ordinary report on turbine blade icing and heating.")
    (ws / "long.docx").write_bytes(doc.build())
    (ws / "long.md").write_text("\n\n".join(f"Line {i} of the field notes on blade heating." for i in range(800)),
                                encoding="utf-8")
    (ws / "short.md").write_text("# Short\n\nA few words.\n", encoding="utf-8")
    host, provider = fake_host(ws)
    host.config["max_index_chars"] = 20_000  # the docx holds ~31,000 characters, the notes ~37,000

    items = {i.source_path: i for i in host.ingest(["long.docx", "long.md", "short.md"]).items}

    assert {k: v.status for k, v in items.items()} == {"long.docx": "refused", "long.md": "refused",
                                                        "short.md": "processed"}
    for rel in ("long.docx", "long.md"):
        assert "limit 20000: max_index_chars" in (items[rel].reason or ""), items[rel].reason
    assert provider.ingested == ["short.md"]
    host.config["max_index_chars"] = 8_000_000  # the default: both are sent once it allows them
    again = {i.source_path: i.status for i in host.ingest(["long.docx", "long.md"], force=True).items}
    assert again == {"long.docx": "processed", "long.md": "processed"}
