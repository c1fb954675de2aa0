"""What a search says while LightRAG indexes, through the CLI with the real LightRAG provider over recorded
payloads (nc22b problems 2 and 3).

* Piped (``search ... 2>err``), the "LightRAG is indexing" notice never reached stderr: the progress writer
  prints a line without a count only as a heartbeat. On a terminal it was a bar line cut to the width, which the
  results ran into. It is a note now: one whole line on stderr at once, ``--json`` too.
* A file LightRAG had processed a run before the one it indexes now was named "still being indexed": each file
  of an ingest may be a run of its own, and the pipeline status's history tells only the current run's.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from mnote_kr_testkit.files import digest_tree

from mnote_kr.app.host import Host
from mnote_kr.cli import reports
from mnote_kr.cli.main import cli
from tests.test_pipeline_replay import AURORA, NOTES_REL, Env, chunk_of, make_env, query_data

STUDY_REL = "papers/study.pdf"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    """notes.md and study.pdf sent and not followed since (``submitted``); LightRAG indexes slow1.txt (sample
    18), and its documents list (sample 34) has notes.md processed, study.pdf not at all."""
    env = make_env(tmp_path, monkeypatch)
    with env.host.store.transaction() as reg:
        for rel in (NOTES_REL, STUDY_REL):
            reg.put(msgspec.structs.replace(reg.entries[rel], status="submitted"))
    env.replay.sample("GET", "/documents/pipeline_status", "18_pipeline_status_busy_processing.json")
    env.replay.sample("POST", "/documents/paginated", "34_documents_paginated_all.json")
    aurora = chunk_of("40_query_data_mix.json", AURORA)
    env.replay.json("POST", "/query/data", query_data(("1", AURORA, aurora["chunk_id"], aurora["content"])))
    config = env.host.config
    # the CLI's own host, with the CLI's progress writer (made in the command, on CliRunner's piped stderr)
    monkeypatch.setattr(reports.Ctx, "host", lambda self, progress=False: self.__dict__.setdefault(
        "_built", Host(env.ws, config=config, transport=env.replay.transport,
                       progress=reports.progress_writer() if progress else None)))
    return env


def _notice_in(err: str) -> str:
    lines = [line for line in err.splitlines() if "LightRAG is indexing" in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("as_json", [False, True])
def test_a_piped_search_says_at_once_on_stderr_that_lightrag_indexes_and_names_only_unfinished_files(
        env: Env, as_json: bool) -> None:
    before = digest_tree(env.ws)
    out = CliRunner().invoke(cli, ["search", "aurora", "--mode", "naive", *(["--json"] if as_json else [])])
    assert out.exit_code == 0, out.output
    notice = _notice_in(out.stderr)
    assert notice.startswith("note: LightRAG is indexing 1 file: slow1.txt (for ")
    assert notice.endswith("); this search may wait until it has stored its chunks (at most 3m 00s)")
    assert "note: " not in out.stdout  # said on stderr, not among the results
    if as_json:
        body = json.loads(out.stdout)
        named = [n["sourcePath"] for n in body["notIndexed"]]
        assert body["diagnostics"]["indexing"]["said"] == notice.removeprefix("note: ")
        assert body["diagnostics"]["indexing"]["done"] == ["notes.md"]
    else:
        said = [line for line in out.stdout.splitlines() if "still being indexed" in line]
        assert said == [f"1 file(s) still being indexed: {STUDY_REL} (sent, not cited until LightRAG has indexed "
                        "them; search again then; 'mnote-kr sync --wait 60' follows them)"], out.stdout
        named = [STUDY_REL]
    # notes.md was processed a run before slow1.txt's: not named; study.pdf is not processed: named
    assert named == [STUDY_REL]
    assert digest_tree(env.ws) == before  # the user's files untouched

