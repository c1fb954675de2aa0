"""LightRAG's parsed text of a document it no longer holds leaves ``__parsed__`` (``client/parsedtext.py``); a
folder of a document LightRAG holds, is deleting, or a cited entry records, another workspace's, a legacy name's,
and anything mnote-kr did not name stay, and a link's target (the user's file) is never touched."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from mnote_kr.models import EntryColumns
from mnote_kr_lightrag.client import links, naming, parsedtext
from mnote_kr_lightrag.client.docrows import DocIndex

WS, OTHER = "0a1b2c3d", "9f8e7d6c"
H1, H2 = "sha256:" + "1" * 64, "sha256:" + "2" * 64


def _parsed(input_dir: Path, name: str, text: str, suffix: str = ".parsed") -> Path:
    folder = input_dir / links.PARSED_DIR / f"{name}{suffix}"
    (folder / "x.blocks.assets").mkdir(parents=True)
    (folder / f"{naming.sidecar_stem(name)}.blocks.jsonl").write_text(f'{{"content": "{text}"}}\n', encoding="utf-8")
    (folder / "x.blocks.assets" / "image1.png").write_bytes(b"png")
    return folder


class Prov:
    """What ``sweep`` asks of the provider: its input dir, workspace tag, the registry's columns, a listing."""

    def __init__(self, input_dir: Path, rows: list[dict[str, Any]], cited: dict[str, str]) -> None:
        self.ws, self.said = WS, []
        self._input_dir, self._rows = input_dir, rows
        cols = EntryColumns(list(cited), [naming.doc_id_for(n) for n in cited.values()], list(cited.values()),
                            bytes([1] * len(cited)))
        self.holders = SimpleNamespace(known=True, columns=lambda: cols)
        self.ctx = SimpleNamespace(progress=self.said.append)
        self.listed = 0

    def input_dir(self) -> Path:
        return self._input_dir

    def documents(self) -> DocIndex:
        self.listed += 1
        return DocIndex(self._rows)


def test_only_our_parsed_text_of_documents_gone_is_removed(tmp_path: Path) -> None:
    input_dir = tmp_path / "inputs"
    (input_dir / links.PARSED_DIR).mkdir(parents=True)
    user = tmp_path / "docs" / "report.docx"
    user.parent.mkdir()
    user.write_bytes(b"the user's bytes")
    deleted = naming.link_name("docs/gone.docx", H1, WS)             # deleted: link gone, LightRAG holds none
    old = naming.link_name("docs/report.docx", H1, WS)               # an edit's earlier version: the same
    current = naming.link_name("docs/report.docx", H2, WS)           # processed: its link in __parsed__
    deleting = naming.link_name("docs/slow.docx", H1, WS)            # link gone, LightRAG still deleting it
    renamed = naming.link_name("docs/old-name.docx", H1, WS)         # a move's kept document, cited at the new path
    theirs = naming.link_name("docs/gone.docx", H1, OTHER)           # another workspace's
    legacy = naming.link_name("docs/gone.docx", H2)                  # untagged: whose is not known
    folders = {n: _parsed(input_dir, n, f"text of {n}") for n in (deleted, current, deleting, renamed, theirs, legacy)}
    again = _parsed(input_dir, old, "old text", ".parsed_001")
    os.symlink(user, input_dir / links.PARSED_DIR / current)
    not_ours = input_dir / links.PARSED_DIR / "notes.txt.parsed"
    not_ours.mkdir()
    (input_dir / links.PARSED_DIR / "elsewhere").mkdir()
    aliased = input_dir / links.PARSED_DIR / f"{naming.link_name('docs/x.docx', H1, WS)}.parsed"
    aliased.symlink_to(tmp_path / "docs", target_is_directory=True)  # never followed

    prov = Prov(input_dir, [{"id": naming.doc_id_for(deleting), "file_path": deleting, "status": "processed"}],
                {"docs/new-name.docx": renamed})
    assert parsedtext.sweep(prov) == 2  # type: ignore[arg-type]
    assert not folders[deleted].exists() and not again.exists()
    for kept in (current, deleting, renamed, theirs, legacy):
        assert folders[kept].is_dir(), kept
    assert not_ours.is_dir() and aliased.is_symlink() and (input_dir / links.PARSED_DIR / current).is_symlink()
    assert user.read_bytes() == b"the user's bytes" and sorted(os.listdir(tmp_path / "docs")) == ["report.docx"]
    assert prov.said and "2 deleted or replaced file version(s)" in prov.said[0]

    prov._rows = []  # LightRAG finished deleting: the next sync takes it
    assert parsedtext.sweep(prov) == 1 and not folders[deleting].exists()  # type: ignore[arg-type]
    listed = prov.listed
    assert parsedtext.sweep(prov) == 0 and prov.listed == listed  # nothing to remove: LightRAG is not asked
