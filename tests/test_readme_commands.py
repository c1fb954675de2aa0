"""Every command the README shows runs as the README says.

The README's command blocks are read (indented code blocks; ``#`` comments and comment-only
continuation lines dropped, ``&&`` chains kept whole). Each command is either run here, in a fresh
``MNOTE_KR_HOME`` in a new folder of its own (``cd ~/papers``), against the session's real
LightRAG engine, or named with the test that already runs it where running it again would only
repeat an expensive one (the demo, the whole suite, a second managed engine, a browser).
A command added to the README fails :func:`test_every_readme_command_is_run_here_or_by_a_named_test`
until it is given one of the two.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)
from mnote_kr_testkit.waiting import wait_until

from tests.cli_helpers import cli_env, turbine_pdf

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

#: Run by :func:`test_the_readme_session_runs_against_a_real_engine`, in this order.
RUN_HERE = (
    "cd ~/papers",
    "mnote-kr roots add .",
    "mnote-kr ingest . --wait",
    'mnote-kr search "blade heating" --json',
    'mnote-kr search "blade heating"',
    'mnote-kr ask "what limits cell B2?"',
    'mnote-kr open "[a3z1]" --json',
    "mnote-kr watch",
    "mnote-kr status",
    "mnote-kr registry export -o reg.json",
)

#: Commands another test already runs for real, and where.
COVERED_ELSEWHERE = {
    "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && .venv/bin/mnote-kr demo":
        "tests/test_demo.py (the demo, offline, in a fresh home); the install is what CI runs",
    "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && .venv/bin/python -m pytest":
        "the suite itself (.ci/run)",
    "mnote-kr engine start":
        "plugins/lightrag/tests/test_lr_engine.py and the demo start the managed engine; here the session's "
        "engine stands in for it (a second engine per test costs a minute of start-up)",
    "mnote-kr engine reembed":
        "plugins/lightrag/tests/test_lr_storage.py::test_lr_an_engine_built_with_nanovectordb_keeps_its_index_until_reembed",
    'mnote-kr open "[a3z1]" --show':
        "tests/test_viewer_show.py (a browser stand-in; here it would open one)",
}


def readme_commands(text: str) -> list[str]:
    """The commands of ``text``'s indented code blocks, comments dropped, in order."""
    out: list[str] = []
    fenced = False
    previous_blank = True
    in_block = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.startswith("    ") and (in_block or previous_blank):
            in_block = True
            words = shlex.split(line, comments=True)
            if words:
                out.append(" ".join(w if w == "&&" or re.fullmatch(r"[\w@%+=:,./~-]+", w) else f'"{w}"'
                                    for w in words))
        elif line.strip():
            in_block = False
        previous_blank = not line.strip()
    return out


def test_the_readme_parser_reads_blocks_and_drops_comments() -> None:
    text = ("Intro:\n\n    mnote-kr status          # a comment\n                             # a continuation\n"
            "    a && b 'two words'\n\nProse with    four spaces inside.\n```\n    fenced --not-read\n```\n")
    assert readme_commands(text) == ["mnote-kr status", 'a && b "two words"']


def test_every_readme_command_is_run_here_or_by_a_named_test() -> None:
    found = readme_commands(README.read_text(encoding="utf-8"))
    assert len(found) == len(set(found)), found
    assert sorted(found) == sorted([*RUN_HERE, *COVERED_ELSEWHERE])


def _argv(command: str) -> list[str]:
    words = shlex.split(command)
    assert words[0] == "mnote-kr", command
    return [sys.executable, "-m", "mnote_kr", *words[1:]]


@pytest.mark.integration
def test_the_readme_session_runs_against_a_real_engine(tmp_path: Path, lightrag_engine) -> None:  # noqa: F811
    home, papers = tmp_path / "home", tmp_path / "papers"
    home.mkdir()
    papers.mkdir()
    # What 'engine start' would give this folder: a LightRAG to talk to (the session's, see above).
    config = home / "config"
    config.mkdir()
    (config / "config.toml").write_text(
        f'[providers.lightrag]\nurl = "{lightrag_engine.url}"\ninput_dir = "{lightrag_engine.input_dir}"\n',
        encoding="utf-8")
    (papers / "icing.pdf").write_bytes(turbine_pdf(os.urandom(5).hex()))
    before = (papers / "icing.pdf").read_bytes()
    env = cli_env(home, lightrag_engine.api_key)
    out: dict[str, str] = {}
    citation_id = ""
    for command in RUN_HERE:
        if command == "cd ~/papers":
            continue  # every command runs in the folder
        argv = _argv(command.replace("[a3z1]", citation_id))
        if command == "mnote-kr watch":
            out[command] = _watch_until_it_follows_a_new_file(argv, papers, env)
            continue
        proc = subprocess.run(argv, cwd=papers, env=env, capture_output=True, text=True, encoding="utf-8",
                              timeout=300)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, f"{command}\n{proc.stdout}\n{proc.stderr}"
        out[command] = proc.stdout
        if command == 'mnote-kr search "blade heating"':  # the same search, as cards: the best one whole
            assert f"{citation_id} icing.pdf\n    located: " in proc.stdout and "quote:" in proc.stdout, proc.stdout
        elif command.startswith("mnote-kr search"):
            hits = json.loads(proc.stdout)["results"]
            assert hits and hits[0]["sourceRootRelativePath"] == "icing.pdf", proc.stdout
            assert "blade heating" in hits[0]["displayQuote"].lower()
            citation_id = hits[0]["citationId"]
    opened = json.loads(out['mnote-kr open "[a3z1]" --json'])
    assert opened["citationId"] == citation_id and opened["resourceKind"] == "pdf", opened
    assert Path(opened["resourcePath"]) == papers / "icing.pdf" and opened["locator"]["page"] == 1, opened
    assert "2 entries (2 indexed)" in out["mnote-kr status"]  # the PDF, and the note watch followed
    exported = json.loads((papers / "reg.json").read_text(encoding="utf-8"))
    assert {e["sourceRootRelativePath"] for e in exported["entries"]} >= {"icing.pdf", "later.md"}
    assert (papers / "icing.pdf").read_bytes() == before


def _watch_until_it_follows_a_new_file(argv: list[str], papers: Path, env: dict[str, str]) -> str:
    """Run ``watch``, add a note, wait until watch says it ingested it, then Ctrl-C it.

    Started as a script's background job starts it: with SIGINT ignored (the bare-clone run, itself
    started in the background, hung here until watch set its own handler). Both pipes are read while
    it runs. Should it not stop, SIGABRT makes Python's fault handler write every thread's stack to
    stderr, and the failure shows where it hung."""
    proc = subprocess.Popen(argv, cwd=papers, env={**env, "PYTHONFAULTHANDLER": "1"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8",
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    lines: list[str] = []
    errors: list[str] = []
    assert proc.stdout is not None and proc.stderr is not None
    readers = [threading.Thread(target=lambda: lines.extend(proc.stdout or ()), daemon=True),
               threading.Thread(target=lambda: errors.extend(proc.stderr or ()), daemon=True)]
    for reader in readers:
        reader.start()
    try:
        # Whether the note lands before the watcher's observer starts or after, it is followed:
        # by its event, or by the start-up reconcile, which ingests new files of a followed root.
        (papers / "later.md").write_text("# Later\n\nWritten while watch runs.\n", encoding="utf-8")
        wait_until(lambda: any("later.md" in line and "ingested" in line for line in lines), timeout_s=180,
                   what=lambda: f"watch never ingested later.md; it printed {lines}")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            proc.wait(timeout=30)
            code = None
        for reader in readers:
            reader.join(10)
        for stream in (proc.stdout, proc.stderr):
            stream.close()
    assert code is not None, f"watch did not stop within 60 s of Ctrl-C; it printed {lines}; " \
                             f"its threads: {''.join(errors)[-6000:]}"
    err = "".join(errors)
    assert code == 0 and "stopping\n" in lines and "Traceback" not in err, (code, lines, err)
    return "".join(lines)
