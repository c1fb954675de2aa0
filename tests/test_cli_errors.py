"""Every ``mnote-kr`` error is one line: ``Error: <message> (<hint>)``, exit 1 (runtime) or 2 (usage).

The real CLI runs as a subprocess; stderr never holds a Python traceback, and a failed
command changes nothing it should not (registry entries, source files).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import random
import re
import shutil
import socket
import stat
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from mnote_kr_testkit.data import CORPUS as CORPUS_DIR
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from tests.cli_helpers import cli_env

REPO = Path(__file__).resolve().parents[1]
BAD = CORPUS_DIR / "bad"
ERROR_LINE = re.compile(r"^Error: \S.* \([^()]*\S[^()]*\)$")




class Cli:
    """``mnote-kr`` in one workspace (the cwd) with its own home."""

    def __init__(self, ws: Path, *, url: str | None = None, input_dir: str | None = None,
                 api_key: str | None = None) -> None:
        self.ws, self.home, self.api_key = ws, ws.parent / (ws.name + "-home"), api_key
        self.cwd = ws  # where the command runs (a subfolder for paths with '..')
        (ws / ".mnote").mkdir(parents=True, exist_ok=True)
        self.home.mkdir(exist_ok=True)
        if url:
            (ws / ".mnote" / "config.toml").write_text(
                f'[providers.lightrag]\nurl = "{url}"\ninput_dir = "{input_dir or ws / "inputs"}"\n', encoding="utf-8")

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run([sys.executable, "-m", "mnote_kr", *args], cwd=self.cwd,
                              env=cli_env(self.home, self.api_key), capture_output=True, text=True,
                              encoding="utf-8", timeout=120)
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    def ok(self, *args: str) -> Any:  # noqa: ANN401
        proc = self.run(*args)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout) if "--json" in args else proc.stdout

    def fails(self, *args: str, code: int) -> str:
        """Run, expect exit ``code`` and exactly one ``Error: ... (hint)`` line on stderr, the last; return it.
        Before it only progress may stand (a line a slow machine's 3.5 s of silence lets through, such as
        ``hashed kb/n.md``): no second error, warning or traceback."""
        proc = self.run(*args)
        lines = proc.stderr.splitlines()
        assert proc.returncode == code, (proc.returncode, proc.stderr)
        assert lines and ERROR_LINE.match(lines[-1]), proc.stderr
        assert not [x for x in lines[:-1] if re.match(r"(?i)\s*(error|warning|traceback)\b", x)], proc.stderr
        return lines[-1]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends: nothing listens there


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def registry_bytes(cli: Cli) -> bytes | None:
    path = cli.ws / ".mnote" / "index" / "lightrag-source-registry.msgpack"
    return path.read_bytes() if path.exists() else None


# ----------------------------------------------------------------------------- paths


def test_paths_leaving_the_workspace_are_usage_errors_and_register_nothing(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws", url=f"http://127.0.0.1:{closed_port()}")
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "private.md"
    secret.write_text("# Private\n\nNot part of any knowledge base.\n", encoding="utf-8")
    digest = sha(secret)
    (cli.ws / "kb").mkdir()
    (cli.ws / "kb" / "escape").symlink_to(outside, target_is_directory=True)
    (cli.ws / "kb" / "private-link.md").symlink_to(secret)
    before = registry_bytes(cli)

    line = cli.fails("ingest", "../outside/private.md", code=2)
    assert "outside the workspace" in line and "../outside/private.md" in line
    assert "outside the workspace" in cli.fails("ingest", "kb/../../outside", code=2)
    line = cli.fails("ingest", str(secret), code=2)
    assert "outside the workspace" in line
    line = cli.fails("ingest", "kb/escape/private.md", code=2)
    assert "symlink leads outside the workspace" in line
    assert "symlink leads outside" in cli.fails("ingest", "kb/private-link.md", "--json", code=2)
    assert "outside the workspace" in cli.fails("roots", "add", str(outside), code=2)
    assert "outside the workspace" in cli.fails("search", "private", "--scope", "../outside", code=2)
    assert "outside the workspace" in cli.fails("search", "private", "--scope", "../outside", "--json", code=2)
    assert "outside the workspace" in cli.fails("delete", "../outside/private.md", code=2)
    assert "outside the workspace" in cli.fails("roots", "add", "kb/../..", code=2)
    assert ".mnote folder" in cli.fails("ingest", ".mnote/config.toml", code=2)
    assert "No such file or folder" in cli.fails("ingest", "kb/absent.md", code=2)

    assert registry_bytes(cli) == before  # nothing registered, nothing queued
    assert sha(secret) == digest and sorted(p.name for p in outside.iterdir()) == ["private.md"]


def test_dotdot_paths_that_stay_inside_the_workspace_work_from_a_subfolder(tmp_path: Path) -> None:
    """A shell user in ``kb/decks`` types ``../notes.md``: it resolves inside the workspace, so the CLI
    takes it (HTTP and MCP still refuse any '..'); one leaving the workspace stays refused."""
    url = f"http://127.0.0.1:{closed_port()}"
    cli = Cli(tmp_path / "ws", url=url)
    (cli.ws / "kb" / "decks").mkdir(parents=True)
    note = cli.ws / "kb" / "notes.md"
    note.write_text(f"# Notes {uuid.uuid4().hex}\n\nThe quartz oscillator drifts.\n", encoding="utf-8")
    digest = sha(note)
    cli.cwd = cli.ws / "kb" / "decks"

    cli.ok("roots", "add", "..")
    assert [r["rootRelativePath"] for r in cli.ok("roots", "list", "--json")["indexedRoots"]] == ["kb"]
    line = cli.fails("ingest", "../notes.md", code=1)  # taken; the provider is down, so it is queued
    assert "1 file(s) queued" in line
    assert cli.ok("status", "--json")["registry"]["waiting"][0]["sourcePath"] == "kb/notes.md"
    for args in (("search", "quartz oscillator", "--scope", "../notes.md"),  # the plain path without click
                 ("search", "quartz oscillator", "--scope", "..", "--top-k", "3", "--no-rerank", "--json"),
                 ("ask", "quartz oscillator", "--scope", "../../kb")):
        assert "not reachable" in cli.fails(*args, code=1), args  # the scope was taken: the provider was asked
    line = cli.fails("ingest", "../../../outside.md", code=2)
    assert "outside the workspace" in line and "../../../outside.md" in line
    assert "outside the workspace" in cli.fails("search", "quartz oscillator", "--scope", "../../..", code=2)
    assert sha(note) == digest


# ----------------------------------------------------------------------------- usage


def test_usage_mistakes_are_one_line_with_exit_code_2(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws", url=f"http://127.0.0.1:{closed_port()}")
    assert "The query is empty" in cli.fails("search", "", code=2)
    assert "The query is empty" in cli.fails("search", "   ", "--json", code=2)
    assert "The query is empty" in cli.fails("ask", " \t ", code=2)
    # LightRAG's minimum, said by mnote-kr before the provider answers with its raw validation text
    for short in ("a", "ab", "电"):
        line = cli.fails("search", short, code=2)
        assert line.startswith("Error: The query is too short") and "Validation error" not in line, line
    assert "Missing argument 'QUERY'" in cli.fails("search", code=2)
    assert "mnote-kr search --help" in cli.fails("search", "x", "--mode", "psychic", code=2)
    assert "No such option" in cli.fails("status", "--jsn", code=2)
    assert "No such command" in cli.fails("serch", "x", code=2)
    assert "Give a FILE or --batch" in cli.fails("locate", "--evidence", "x", code=2)
    assert "No such file" in cli.fails("locate", "missing.pdf", "--evidence", "x", code=2)
    assert "Unknown secret" in cli.fails("secrets", "get", "github-token", code=2)
    assert "Give a citation ID" in cli.fails("open", "  ", code=2)


def test_search_and_ask_outside_a_knowledge_base_fail_with_one_line_and_contact_nothing(tmp_path: Path) -> None:
    # A newcomer ran 'mnote-kr search anything' in an empty folder: a new LightRAG workspace server
    # started (4 s), then "No citable results: nothing is ingested yet" with exit 0.
    # The provider here is a closed port: contacting it would say "not reachable" instead.
    home, folder = tmp_path / "home", tmp_path / "x"
    folder.mkdir()
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        f'[providers.lightrag]\nurl = "http://127.0.0.1:{closed_port()}"\n', encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mnote_kr", *args], cwd=folder, env=cli_env(home, None),
                              capture_output=True, text=True, encoding="utf-8", timeout=120)

    for args in (["search", "anything"], ["search", "anything", "--json"], ["ask", "anything"],
                 ["-w", str(folder), "search", "anything", "--scope", "."]):
        proc = run(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert ("not a knowledge base" in json.loads(proc.stdout)["error"]["message"] if "--json" in args
                else proc.stdout == ""), (args, proc.stdout)
        line, = proc.stderr.splitlines()
        assert ERROR_LINE.match(line), line
        assert f"{folder} is not a knowledge base" in line and "mnote-kr roots add" in line, line
    assert not (folder / ".mnote").exists()
    status = run("status")  # still works anywhere, and says why search would not
    assert status.returncode == 0 and "Roots:     none" in status.stdout, status.stderr
    # a folder with a root is a knowledge base: search goes on and meets the (closed) provider
    (folder / "docs").mkdir()
    assert run("roots", "add", "docs").returncode == 0
    proc = run("search", "anything")
    assert proc.returncode == 1 and "not reachable" in proc.stderr and "not a knowledge base" not in proc.stderr
    assert "Roots:     docs (recursive)" in run("status").stdout.splitlines()  # names it, no "none"


def test_unknown_citation_id_is_not_found(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws", url=f"http://127.0.0.1:{closed_port()}")
    line = cli.fails("open", "[zz9q]", code=1)
    assert "Unknown citation [zz9q]" in line and "mnote-kr search" in line
    assert "Unknown citation [zz9q]" in cli.fails("open", "zz9q", "--json", code=1)
    # not an ID at all: the caller's mistake (exit 2), as the viewer's and the API's bad_request say
    for bad in ("hello world", "[]", "a3z1]]"):
        line = cli.fails("open", bad, code=2)
        assert line.startswith(f"Error: Not a citation ID: {bad!r}") and "[a3z1]" in line, line


# ----------------------------------------------------------------------------- provider down, wrong key


def test_lightrag_down_status_still_reports_and_ingest_queues_with_one_line(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    cli = Cli(tmp_path / "ws", url=url)
    (cli.ws / "kb").mkdir()
    note = cli.ws / "kb" / "later.md"
    note.write_text(f"# Later {uuid.uuid4().hex}\n\nThe quartz oscillator drifts.\n", encoding="utf-8")
    digest = sha(note)
    cli.ok("roots", "add", "kb")

    line = cli.fails("ingest", "kb", code=1)
    assert "not reachable" in line and url in line and "1 file(s) queued" in line and "mnote-kr sync" in line
    line = cli.fails("ingest", "kb", "--json", "--force", code=1)
    assert "not reachable" in line

    human = cli.run("status")
    assert human.returncode == 0 and human.stderr == ""
    assert "Registry:  1 entries" in human.stdout and "DOWN" in human.stdout and url in human.stdout
    assert "Waiting:   1 queued action(s)" in human.stdout
    status = cli.ok("status", "--json")
    assert status["provider"]["reachable"] is False and "not reachable" in status["provider"]["error"]
    assert status["registry"]["byStatus"] == {"pending": 1}
    assert status["registry"]["waiting"][0]["sourcePath"] == "kb/later.md"
    assert status["registry"]["waiting"][0]["action"] == "ingest"

    assert "not reachable" in cli.fails("search", "quartz oscillator", code=1)
    assert "not reachable" in cli.fails("ask", "quartz oscillator", "--json", code=1)
    assert cli.ok("roots", "list", "--json")["indexedRoots"][0]["rootRelativePath"] == "kb"  # still usable
    assert sha(note) == digest


def test_a_json_command_that_fails_prints_one_error_object_a_script_can_read(tmp_path: Path) -> None:
    """nc21c problem 3: 'search --json' while LightRAG could not answer printed nothing on stdout, only the
    stderr line: a script got no JSON. Now a failing --json command prints one object, the HTTP API's error
    shape, with the words of the stderr line; a command that printed its own report adds none."""
    url = f"http://127.0.0.1:{closed_port()}"
    cli = Cli(tmp_path / "ws", url=url)
    (cli.ws / "kb").mkdir()
    note = cli.ws / "kb" / "n.md"
    note.write_text("# Quartz\n\nThe quartz oscillator drifts.\n", encoding="utf-8")
    digest = sha(note)
    cli.ok("roots", "add", "kb")
    for args, code, kind in ((["search", "quartz oscillator", "--json"], 1, "provider_unavailable"),
                             (["--workspace", str(cli.ws), "search", "quartz oscillator", "--json"], 1,
                              "provider_unavailable"),
                             (["ask", "quartz oscillator", "--json"], 1, "provider_unavailable"),
                             (["search", "", "--json"], 2, "usage"),
                             (["status", "--jsn", "--json"], 2, "usage")):
        proc = cli.run(*args)
        assert proc.returncode == code, (args, proc.stderr)
        line, = proc.stderr.splitlines()
        error = json.loads(proc.stdout)["error"]
        assert error["code"] == kind, (args, error)
        assert line == f"Error: {error['message']} ({error['hint']})", (args, line, error)
    assert "not reachable" in json.loads(cli.run("search", "quartz oscillator", "--json").stdout)["error"]["message"]
    proc = cli.run("search", "--", "--json")  # a query, not the flag: no JSON
    assert proc.returncode == 1 and proc.stdout == "", proc.stdout
    proc = cli.run("ingest", "kb", "--json")
    assert proc.returncode == 1 and "not reachable" in json.loads(proc.stdout)["error"]["message"], proc.stdout
    assert sha(note) == digest


def test_a_json_command_that_printed_its_report_and_fails_adds_no_second_object(
        capsys: pytest.CaptureFixture[str]) -> None:
    from mnote_kr.cli import boundary
    from mnote_kr.errors import IngestFailedError

    def ingest_like() -> None:  # ingest and sync print their report, then fail naming the first file
        boundary.emit_json({"items": [{"sourcePath": "kb/a.md", "status": "failed"}]})
        raise IngestFailedError("1 of 1 file(s) failed to index: kb/a.md")

    assert boundary.guarded(ingest_like, lambda: "mnote-kr ingest", as_json=True) == 1
    out = capsys.readouterr()
    assert json.loads(out.out) == {"items": [{"sourcePath": "kb/a.md", "status": "failed"}]}
    assert out.err.startswith("Error: 1 of 1 file(s) failed to index: kb/a.md")


@pytest.mark.integration
def test_wrong_api_key_is_one_line_and_never_echoed(tmp_path: Path, lightrag_engine: Any) -> None:  # noqa: F811
    wrong = "wrong-" + uuid.uuid4().hex
    cli = Cli(tmp_path / "ws", url=lightrag_engine.url, input_dir=lightrag_engine.input_dir, api_key=wrong)
    (cli.ws / "kb").mkdir()
    (cli.ws / "kb" / "n.md").write_text(f"# N {uuid.uuid4().hex}\n\nThe nickel anode.\n", encoding="utf-8")
    outputs: list[str] = []
    for args in (("search", "nickel anode"), ("ask", "nickel anode", "--json"), ("ingest", "kb")):
        line = cli.fails(*args, code=1)
        assert "rejected the API key" in line, line
        outputs.append(line)
    status = cli.run("status")
    assert status.returncode == 0 and "Problem:   " in status.stdout and "rejected the API key" in status.stdout
    status_json = cli.run("status", "--json")
    assert json.loads(status_json.stdout)["provider"]["error"].startswith("LightRAG at ")
    outputs += [status.stdout, status.stderr, status_json.stdout, status_json.stderr]
    assert not any(wrong in text for text in outputs)
    assert not any(lightrag_engine.api_key in text for text in outputs)


# ----------------------------------------------------------------------------- registry


def test_corrupt_registry_names_the_file_and_restore_recovers(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws", url=f"http://127.0.0.1:{closed_port()}")
    (cli.ws / "papers").mkdir()
    (cli.ws / "books").mkdir()
    cli.ok("roots", "add", "papers", "--json")
    cli.ok("roots", "add", "books", "--json")  # the previous generation now holds "papers" only
    registry = cli.ws / ".mnote" / "index" / "lightrag-source-registry.msgpack"
    registry.write_bytes(b'{"version": 2, "entries": [{"sourceId": ')
    for args in (("status",), ("roots", "list", "--json"), ("ingest", "papers")):
        line = cli.fails(*args, code=1)
        assert str(registry) in line and "previous generation" in line and "registry restore" in line
    out = cli.ok("registry", "restore")
    assert "Restored" in out and str(registry) in out
    assert [r["rootRelativePath"] for r in cli.ok("roots", "list", "--json")["indexedRoots"]] == ["papers"]
    assert registry.with_name(registry.name + ".corrupt").read_bytes().startswith(b'{"version": 2, "entries"')


def _registry_with_a_previous_generation(tmp_path: Path) -> tuple[Cli, Path]:
    """A workspace whose registry was saved twice (so ``.prev`` exists), and the registry's path."""
    cli = Cli(tmp_path / "ws", url=f"http://127.0.0.1:{closed_port()}")
    (cli.ws / "papers").mkdir()
    cli.ok("roots", "add", "papers", "--json")
    cli.ok("roots", "add", "papers", "--json")  # a second save: the previous generation exists
    registry = cli.ws / ".mnote" / "index" / "lightrag-source-registry.msgpack"
    return cli, registry


def test_both_registry_generations_corrupt_says_so_and_never_points_to_a_prev_prev(tmp_path: Path) -> None:
    cli, registry = _registry_with_a_previous_generation(tmp_path)
    prev = registry.with_name(registry.name + ".prev")
    assert prev.exists()
    registry.write_bytes(b'{"version": 2, "entries": [{"sourceId": ')
    prev.write_bytes(b"\x00garbage")
    for args in (("status",), ("registry", "restore")):
        line = cli.fails(*args, code=1)
        assert ".prev.prev" not in line and "registry restore" not in line, line
        assert "previous generation is corrupt too" in line and "ingest" in line, line
    assert registry.read_bytes().startswith(b'{"version": 2') and prev.read_bytes() == b"\x00garbage"
    prev.unlink()  # and with no previous generation at all
    line = cli.fails("registry", "restore", code=1)
    assert "No previous registry generation" in line and "registry restore" not in line, line


# ----------------------------------------------------------------------------- locate: bad inputs


def test_broken_sidecar_given_to_locate_is_one_line(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws")
    doc = cli.ws / "n.rtf"
    doc.write_text("{\\rtf1 The nickel anode.}", encoding="utf-8")
    garbage = tmp_path / "garbage.blocks.jsonl"
    garbage.write_bytes(b'{"type": "meta", "document_name": 7\nnot json at all\n\xff\xfe\x00\n{"blockid": 12}\n')
    line = cli.fails("locate", str(doc), "--evidence", "nickel", "--sidecar", str(garbage), "--json", code=2)
    assert "no readable meta or block rows" in line and "4 malformed line(s) skipped" in line
    assert str(garbage) in line

    partial = tmp_path / "partial.blocks.jsonl"
    partial.write_text('{"type": "meta", "document_name": "n.rtf"}\n{"type": "content", "blockid": "b1", '
                       '"content": "The nickel anode."}\n{broken\n', encoding="utf-8")
    line = cli.fails("locate", str(doc), "--evidence", "nickel", "--sidecar", str(partial), "--block-id", "b9",
                     code=2)
    assert "Block b9 is not in sidecar" in line and "1 malformed line(s) skipped" in line
    assert "Cannot read sidecar" in cli.fails("locate", str(doc), "--evidence", "x", "--sidecar",
                                              str(tmp_path / "absent.jsonl"), code=2)
    # the readable rows of a partly broken sidecar still work
    ok = cli.ok("locate", str(doc), "--evidence", "nickel", "--sidecar", str(partial), "--block-id", "b1", "--json")
    assert ok["locatorPrecision"] == "file" and ok["locatorDegraded"] is True


def test_broken_docx_and_pdf_from_the_corpus_fail_with_one_line_or_degrade_to_file(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws")
    bad = sorted(p for p in BAD.iterdir() if p.suffix in (".docx", ".pdf"))
    assert len(bad) >= 6
    digests = {p: sha(p) for p in bad}
    errors: dict[str, str] = {}
    for path in bad:
        proc = cli.run("locate", str(path), "--evidence", "hello world", "--query", "hello", "--json")
        if proc.returncode == 0:
            loc = json.loads(proc.stdout)
            assert loc["locatorPrecision"] == "file" and loc["locatorDegraded"] is True, (path.name, loc)
            assert proc.stderr == ""
        else:
            errors[path.name] = cli.fails("locate", str(path), "--evidence", "hello world", "--json", code=1)
    # the ones that cannot be opened at all must say so (not silently succeed)
    must_fail = {"poi__truncated62886.docx", "poi__bug53475-password-is-pass.docx", "poi__ExternalEntityInText.docx",
                 "pdfplumber__password-example.pdf", "pdfplumber__empty.pdf"}
    assert must_fail <= set(errors), sorted(errors)
    assert "encrypted" in errors["poi__bug53475-password-is-pass.docx"].lower()
    assert "password" in errors["pdfplumber__password-example.pdf"].lower()
    assert "entit" in errors["poi__ExternalEntityInText.docx"].lower()
    # a batch carries on past them: one answer per request, errors in place
    batch = tmp_path / "bad.jsonl"
    batch.write_text("".join(json.dumps({"file": str(p), "evidence": "hello", "query": "hello"}) + "\n"
                             for p in bad), encoding="utf-8")
    proc = cli.run("locate", "--batch", str(batch), "--json")
    assert proc.returncode == 0 and proc.stderr == ""
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == len(bad)
    assert {p.name for p, a in zip(bad, answers, strict=True) if "error" in a} == set(errors)
    assert {p: sha(p) for p in bad} == digests  # the corpus is read, never written


def test_unexpected_failure_is_still_one_line(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws")
    (cli.ws / ".mnote" / "config.toml").write_text("provider = [unclosed\n", encoding="utf-8")
    line = cli.fails("status", code=2)
    assert "Invalid configuration file" in line and str(cli.ws / ".mnote" / "config.toml") in line
    shutil.rmtree(cli.ws / ".mnote")
    (cli.ws / ".mnote").write_text("not a folder", encoding="utf-8")  # .mnote exists but is a file
    proc = cli.run("status", "--json")
    assert proc.returncode in (1, 2) and len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("Error: ")


def test_a_bug_becomes_one_line_unless_debugging(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws")
    script = ("import mnote_kr.app.host as h\n"
              "def boom(self):\n    raise RuntimeError('boom\\nsecond line')\n"
              "h.Host.status = boom\n"
              "from mnote_kr.cli import main\nraise SystemExit(main(['status']))\n")
    env = cli_env(cli.home, None)
    proc = subprocess.run([sys.executable, "-c", script], cwd=cli.ws, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == ["Error: unexpected RuntimeError: boom second line (this is a bug: rerun with "
                                        "MNOTE_KR_DEBUG=1 for the traceback and report it)"]
    debug = subprocess.run([sys.executable, "-c", script], cwd=cli.ws, env={**env, "MNOTE_KR_DEBUG": "1"},
                           capture_output=True, text=True, timeout=60)
    assert debug.returncode != 0 and "Traceback" in debug.stderr and "RuntimeError: boom" in debug.stderr


# ----------------------------------------------------------------------------- messages from causes


def test_random_bytes_in_the_registry_are_called_corrupt_not_malformed_json(tmp_path: Path) -> None:
    cli, registry = _registry_with_a_previous_generation(tmp_path)
    noise = bytes(random.Random(27).randrange(256) for _ in range(4096))
    assert not noise.lstrip()[:1] == b"{" and not 0x90 <= noise[0] <= 0x9F
    registry.write_bytes(noise)
    for args in (("status",), ("roots", "list", "--json")):
        line = cli.fails(*args, code=1)
        assert "JSON is malformed" not in line, line
        assert "corrupt or not an mnote-kr registry" in line and str(registry) in line, line
        assert "registry restore" in line, line
    assert registry.read_bytes() == noise  # reported, never replaced


def test_a_full_disk_says_so_with_the_path_and_free_space_not_registry_restore(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mnote_kr.cli.boundary import error_line, guarded
    from mnote_kr.core import registry as registry_module
    from mnote_kr.core.registry import RegistryStore
    from mnote_kr.errors import RegistryError
    from mnote_kr.models import IndexedRoot

    store = RegistryStore(tmp_path / "index")

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(registry_module.os, "fsync", no_space)
    with pytest.raises(RegistryError) as info:
        with store.transaction() as reg:
            reg.roots["papers"] = IndexedRoot(root_relative_path="papers")
    line = error_line(info.value)
    assert "the disk is full" in line and str(store.path) in line and " free on its file system" in line, line
    assert "registry restore" not in line and "nothing was lost" in line, line
    assert not store.path.exists() and list(store.index_dir.glob("*.tmp")) == []  # nothing half-written

    def full(path: str) -> None:  # any other write the disk refuses: one line, not "this is a bug"
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

    lines: list[str] = []
    monkeypatch.setattr("mnote_kr.cli.boundary.echo", lambda text, err=False: lines.append(text))
    assert guarded(lambda: full(str(tmp_path / "out.json")), lambda: "mnote-kr x") == 1
    assert len(lines) == 1 and lines[0].startswith("Error: Cannot write ") and "the disk is full" in lines[0]
    assert str(tmp_path / "out.json") in lines[0] and "bug" not in lines[0]


def test_what_the_command_line_writes_is_private_and_the_users_files_keep_their_modes(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "ws")
    papers = cli.ws / "papers"
    papers.mkdir()
    (papers / "a.md").write_text("# A\n\nshared note\n", encoding="utf-8")
    (papers / "a.md").chmod(0o644)
    papers.chmod(0o755)
    cli.ok("roots", "add", "papers", "--json")
    index = cli.ws / ".mnote" / "index"
    written = [p for p in index.rglob("*") if p.is_file()]
    assert written and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in written), \
        [(p.name, oct(p.stat().st_mode)) for p in written]
    assert stat.S_IMODE(index.stat().st_mode) == 0o700
    assert stat.S_IMODE((papers / "a.md").stat().st_mode) == 0o644 and stat.S_IMODE(papers.stat().st_mode) == 0o755
