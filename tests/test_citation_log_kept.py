"""An ID the latest search issued stays in the citation log, however often the log has rotated since its
first record was written.

The log rotates (past ``CITATION_LOG_MAX_BYTES`` it becomes the previous generation, and the generation
before that goes). An ID issued again by a later search must be known to another process after the
generation holding its first line is gone, with the latest search's record (the results a user just
left: its query and quote), so ``mnote-kr open ID`` never says "Unknown citation" for an ID the search
just before printed.
"""

from __future__ import annotations

import msgspec
import pytest

from mnote_kr.app.host import Host
from mnote_kr.citations.caches import citecache
from mnote_kr.citations.render import openplan
from tests.test_pipeline_unit import citation, host  # noqa: F401  (the fixture)


def _fresh_process() -> None:
    """Another CLI process: only the log on disk knows the IDs."""
    citecache._memory.clear()
    citecache._written.clear()


def _rotate_once(host: Host, start: int) -> None:  # noqa: F811
    """Other searches' citations, one line each, until the log has rotated once."""
    previous = citecache.previous_path(citecache.log_path(host))
    before = previous.stat().st_ino if previous.exists() else None
    for i in range(start, start + 50):
        citecache.remember(host, [citation(f"[f{i:03d}]")])
        if previous.exists() and previous.stat().st_ino != before:
            return
    pytest.fail("the log never rotated")


def test_an_id_reissued_after_a_rotation_survives_the_next_rotation(
        host: Host, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    one_line = len(msgspec.json.encode(citation("[f000]"))) + 1
    monkeypatch.setattr(citecache, "CITATION_LOG_MAX_BYTES", 4 * one_line)
    path = citecache.log_path(host)
    citecache.remember(host, [citation("[keep]", "first search")])
    _rotate_once(host, 0)  # [keep]'s record is in the previous generation now
    assert "[keep]" in citecache._read_lines(citecache.previous_path(path))
    _fresh_process()
    citecache.remember(host, [citation("[keep]", "the latest search")])  # the same place, claim and version
    _fresh_process()
    _rotate_once(host, 100)  # the generation that held [keep]'s first line goes
    _fresh_process()
    found = openplan.find_citation(host, "[keep]")
    assert found is not None, "an ID the latest search printed is unknown to another process"
    assert found.display_quote == "the latest search"
