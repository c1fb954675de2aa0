"""What a newcomer reads from the command line: ``ingest`` of a folder indexed already says what it
did, not every file it left alone; and the help of every command that prints places says how its
text counts paragraphs against ``--json``'s ``paragraphIndex``. The commands run in process
(``main``) on a host whose provider is the in-process ``FakeProvider``; the sources are checked
byte for byte after every command."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import digest_tree, write

from mnote_kr.app.host import Host
from mnote_kr.cli.main import main
from mnote_kr.cli.reports import Ctx

REPO = Path(__file__).resolve().parents[1]


class KB:
    def __init__(self, host: Host, capsys: pytest.CaptureFixture[str]) -> None:
        self.host, self.ws, self.capsys = host, host.root, capsys

    def run(self, *args: str, code: int = 0) -> str:
        before = digest_tree(self.ws)
        self.capsys.readouterr()
        assert main(list(args)) == code
        assert digest_tree(self.ws) == before, "a command changed a source file"
        return self.capsys.readouterr().out

    def json(self, *args: str) -> Any:  # noqa: ANN401
        return json.loads(self.run(*args, "--json"))


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[KB]:
    ws = tmp_path / "ws"
    ws.mkdir()
    host, _ = fake_host(ws, FakeProvider())
    monkeypatch.setattr(Ctx, "host", lambda self, progress=False: host)
    yield KB(host, capsys)


def test_ingest_again_sums_up_the_unchanged_files_and_json_still_lists_each(kb: KB) -> None:
    names = [f"kb/note-{i:02d}.md" for i in range(12)]
    for i, rel in enumerate(names):
        write(kb.ws / rel, f"note {i}\n")
    first = kb.run("ingest", "kb")
    assert all(rel in first for rel in names)  # sent: each named
    write(kb.ws / "kb" / "new.md", "a new note\n")

    again = kb.run("ingest", "kb")
    lines = again.splitlines()
    # the unchanged are not listed; the one line summing up the files not placed by meaning yet may name an example
    words_only = [line for line in lines if "not placed by meaning yet" in line]
    assert len(words_only) <= 1, lines
    assert [line for line in lines if any(rel in line for rel in names) and line not in words_only] == []
    assert any(line.split()[-1] == "kb/new.md" for line in lines)  # what was sent still is
    summary = [line for line in lines if "unchanged" in line]
    assert len(summary) == 1 and " 12 " in summary[0] and "--json" in summary[0], lines
    assert len(lines) <= 4, lines  # new.md, the summary, the counts

    report = kb.json("ingest", "kb")  # --json keeps every file
    listed = {i["sourcePath"]: i["status"] for i in report["items"]}
    assert listed == {**dict.fromkeys(names, "already_registered"), "kb/new.md": "already_registered"}
    assert report["counts"] == {"already_registered": 13}

    one = kb.run("ingest", "kb/new.md")  # a single unchanged file is named, not summed up
    assert any("kb/new.md" in line and "already_registered" in line for line in one.splitlines()), one


@pytest.mark.parametrize("command", [["search"], ["ask"], ["open"], ["locate"]])
def test_every_command_printing_paragraphs_says_text_counts_from_1_and_json_from_0(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Text says "paragraph 15" where --json says ``paragraphIndex`` 14: the help says so."""
    assert main([*command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "paragraphIndex" in text and "from 0" in text and "from 1" in text, text


def test_the_readme_says_how_plain_and_json_count_paragraphs() -> None:
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "paragraphIndex" in readme
    at = readme.index("paragraphIndex")
    assert "from 0" in readme[at - 200:at + 200] and "from 1" in readme[at - 200:at + 200]
