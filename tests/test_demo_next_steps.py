"""The demo ends with what to run next, the README's "Use" commands (nc30a: "Demo finished" and nothing after it)."""

from __future__ import annotations

import re
from pathlib import Path

from mnote_kr_lightrag.commands import NEXT_STEPS, demo_finished_text

README = Path(__file__).resolve().parents[1] / "README.md"


def _use_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Use\n", 1)[1].split("\n## ", 1)[0]
    # each command line of the section: its indented command, without the comment after it
    return [re.split(r"\s{2,}#", line.strip(), maxsplit=1)[0].strip()
            for line in section.splitlines() if line.startswith("    ") and line.strip()
            and not line.strip().startswith("#")]


def test_the_demo_ends_with_the_commands_that_index_your_own_folder() -> None:
    text = demo_finished_text()
    lines = text.strip().splitlines()
    assert lines[0].startswith("Demo finished:")
    at = [text.index(cmd) for cmd, _ in NEXT_STEPS]
    assert at == sorted(at)  # in the order they are run
    assert "mnote-kr roots add ." in text and "mnote-kr ingest . --wait" in text and "mnote-kr engine start" in text
    assert lines[-1].strip().startswith("mnote-kr search")  # it ends on what to run, nothing after


def test_the_readme_use_section_gives_the_demo_s_next_commands_in_the_same_order() -> None:
    used = _use_commands()
    for cmd, _ in NEXT_STEPS[:-1]:  # the search's query is the person's own
        assert cmd in used, (cmd, used[:6])
    at = [used.index(cmd) for cmd, _ in NEXT_STEPS[:-1]]
    assert at == sorted(at)
    assert any(u.startswith("mnote-kr search ") for u in used[at[-1]:])
