"""``mnote-kr registry export/import`` (the JSON form of the packed registry), through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli_errors import Cli, closed_port


def test_registry_export_and_import_through_the_cli(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws", url=f"http://127.0.0.1:{closed_port()}")
    (cli.ws / "papers").mkdir()
    (cli.ws / "books").mkdir()
    cli.ok("roots", "add", "papers", "--json")
    cli.ok("roots", "add", "books", "--json")
    exported = json.loads(cli.ok("registry", "export"))
    assert exported["version"] == 2 and exported["entries"] == []
    assert [r["rootRelativePath"] for r in exported["indexedRoots"]] == ["books", "papers"]
    target = tmp_path / "export.json"
    assert str(target) in cli.ok("registry", "export", "--output", str(target))
    assert json.loads(target.read_text(encoding="utf-8")) == exported
    target_bytes = target.read_bytes()
    assert "already exists" in cli.fails("registry", "export", "-o", str(target), code=2)
    assert target.read_bytes() == target_bytes  # never overwritten

    cli.ok("roots", "remove", "books", "--json")
    assert [r["rootRelativePath"] for r in cli.ok("roots", "list", "--json")["indexedRoots"]] == ["papers"]
    out = cli.ok("registry", "import", str(target))
    assert "Imported 0 entries and 2 indexed roots" in out
    assert [r["rootRelativePath"] for r in cli.ok("roots", "list", "--json")["indexedRoots"]] == ["books", "papers"]

    bad = tmp_path / "bad.json"
    bad.write_text("this is not a registry", encoding="utf-8")
    line = cli.fails("registry", "import", str(bad), code=1)
    assert str(bad) in line and "registry export" in line
    assert "Cannot read" in cli.fails("registry", "import", str(tmp_path / "absent.json"), code=2)
    assert [r["rootRelativePath"] for r in cli.ok("roots", "list", "--json")["indexedRoots"]] == ["books", "papers"]


def test_commands_that_do_not_need_the_registry_do_not_read_it(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws", url=f"http://127.0.0.1:{closed_port()}")
    (cli.ws / "papers").mkdir()
    cli.ok("roots", "add", "papers", "--json")
    registry = cli.ws / ".mnote" / "index" / "lightrag-source-registry.msgpack"
    registry.write_bytes(b"\x99 damaged")  # any command that decodes it fails
    assert "lightrag-source-registry.msgpack" in cli.fails("status", code=1)  # (the damage is visible)
    assert "plugins" in cli.ok("plugins", "--json")
    note = cli.ws / "note.md"
    note.write_text("# Title\n\nThe registry is not needed to locate this sentence.\n", encoding="utf-8")
    located = cli.ok("locate", str(note), "--evidence", "not needed to locate this sentence", "--json")
    assert located["locatorPrecision"] in ("paragraph", "file")
    assert registry.read_bytes() == b"\x99 damaged"
