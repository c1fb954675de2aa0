"""Two workspaces on one managed engine (real lightrag-server, offline models).

The same file sits in both. Deleting, changing or re-ingesting it in one leaves the other's
search results, status and registry unchanged; a workspace with much more matching content does
not crowd the other's results out. Each workspace gets its own LightRAG namespace and server,
started on demand (docs/workspaces.md).
"""

from __future__ import annotations

import hashlib
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

import msgspec
import pytest
from mnote_kr_testkit.engine import lightrag_engine  # noqa: F401  (session fixture)

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config

pytestmark = pytest.mark.integration


def _host(root: Path) -> Host:
    root.mkdir(parents=True, exist_ok=True)
    config = load_config(root)
    config["providers"] = {"lightrag": {}}  # no URL: the managed engine decides
    return Host(root, config=config)


def _view(host: Host, query: str) -> dict[str, Any]:
    """What a user of ``host`` sees: search hits, registry entries, status counts."""
    hits = host.search(query, top_k=10, mode="naive").results
    status = host.status()
    return {
        "hits": [(c.citation_id, c.source_root_relative_path, c.display_quote) for c in hits],
        "entries": msgspec.to_builtins(dict(host.registry().entries)),  # a Mapping, decoded lazily
        "registry": status["registry"]["byStatus"],
        "documents": status["provider"].get("documentsByStatus"),
        "unmapped": status["provider"].get("unmapped"),
    }


def test_two_workspaces_on_one_managed_engine_never_touch_each_other(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    # MNOTE_KR_HOME = the session engine's home, so both hosts find it as *the* managed engine.
    monkeypatch.setenv("MNOTE_KR_HOME", str(Path(lightrag_engine.working_dir).parents[2]))
    token = uuid.uuid4().hex[:10]
    text = f"# Gearbox {token}\n\nThe gearbox oil of turbine {token} is changed every 4000 hours.\n"
    a, b = _host(tmp_path / "a"), _host(tmp_path / "b")
    for host in (a, b):
        (host.root / "X.md").write_text(text, encoding="utf-8")
    # b holds much more content that matches the same query.
    for i in range(40):
        (b.root / f"log{i:02d}.md").write_text(
            f"# Log {i} {token}\n\nGearbox oil of turbine {token} checked on day {i}; oil changed, "
            f"gearbox {token} inspected, {uuid.uuid4().hex}.\n", encoding="utf-8")
    source_a = hashlib.sha256((a.root / "X.md").read_bytes()).hexdigest()

    report_a = a.ingest(["."], wait=True, wait_s=180)
    report_b = b.ingest(["."], wait=True, wait_s=180)
    assert {i.source_path: i.status for i in report_a.items} == {"X.md": "processed"}
    assert {i.status for i in report_b.items} == {"processed"}, report_b.items  # not a "duplicate" of a's
    assert a.status()["provider"]["url"] != b.status()["provider"]["url"]  # one server per namespace

    query = f"gearbox oil turbine {token}"
    before = _view(a, query)
    assert before["hits"] and {h[1] for h in before["hits"]} == {"X.md"}, before["hits"]
    assert all(Path(c.source_path).is_relative_to(a.root) for c in a.search(query, mode="naive").results)
    assert before["documents"]["processed"] == 1 and before["unmapped"] == []
    b_hits = b.search(query, top_k=10, mode="naive").results
    assert b_hits and all(Path(c.source_path).is_relative_to(b.root) for c in b_hits)

    # changed in b
    (b.root / "X.md").write_text(text + "\nA new paragraph about bearings.\n", encoding="utf-8")
    assert [i.status for i in b.ingest(["X.md"], wait=True, wait_s=120).items] == ["processed"]
    assert _view(a, query) == before
    # re-ingested in b
    assert [i.status for i in b.ingest(["X.md"], force=True, wait=True, wait_s=120).items] == ["processed"]
    assert _view(a, query) == before
    # deleted in b
    b.delete(["X.md"])
    deadline = time.monotonic() + 60
    while b.registry().entries["X.md"].status != "delete_completed" and time.monotonic() < deadline:
        b.sync(wait_s=5)
    assert b.registry().entries["X.md"].status == "delete_completed"
    assert _view(a, query) == before
    assert hashlib.sha256((a.root / "X.md").read_bytes()).hexdigest() == source_a


def test_status_of_a_workspace_with_no_files_does_not_start_its_engine(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811, ANN001
    """Seen by a newcomer: 'status' in a folder with nothing ingested started this workspace's server (~0.5 GB)."""
    from mnote_kr.core import paths
    from mnote_kr_lightrag.client.workspaces import lightrag_workspace
    from mnote_kr_lightrag.engine.managed import engine_status, workspace_state_dir

    monkeypatch.setenv("MNOTE_KR_HOME", str(Path(lightrag_engine.working_dir).parents[2]))
    host = _host(tmp_path / "fresh")
    (host.root / "kb").mkdir()
    (host.root / "kb" / "a.md").write_text(f"# Anchor {uuid.uuid4().hex}\n\nThe anchor chain is 40 m.\n")
    own = workspace_state_dir(paths.state_dir(), lightrag_workspace(host.context()))

    for step in ("empty", "a root, nothing ingested"):
        provider = host.status()["provider"]
        assert provider["reachable"] is False and "starts on the first ingest" in provider["notStarted"], step
        assert engine_status(own) is None, step  # nothing started
        host.roots_add(host.root / "kb")
    assert [i.status for i in host.ingest(["kb"], wait=True, wait_s=120).items] == ["processed"]
    running = engine_status(own)
    assert running is not None and running.healthy  # the first ingest started it
    provider = host.status()["provider"]
    assert provider["reachable"] is True and provider.get("notStarted") is None
    # Every file gone from the registry again: the engine that runs is still reported, not hidden.
    host.delete(["kb"])
    deadline = time.monotonic() + 60
    while host.deletes_waiting() and time.monotonic() < deadline:
        host.sync(wait_s=5)
    (host.root / "kb" / "a.md").unlink()  # this test's own file: a record of a file deleted on disk is pruned
    host.prune()
    assert len(host.registry().entries) == 0
    provider = host.status()["provider"]
    assert provider["reachable"] is True and provider["url"] == running.url


def test_a_tests_own_workspace_server_is_stopped_when_it_ends_and_the_engine_keeps_serving(
        tmp_path: Path, lightrag_engine, monkeypatch: pytest.MonkeyPatch,  # noqa: F811, ANN001
        request: pytest.FixtureRequest) -> None:
    """The suite ran 15+ workspace servers at once (~0.4 GB each) until the session ended."""
    from mnote_kr.core import paths
    from mnote_kr_lightrag.client.workspaces import lightrag_workspace
    from mnote_kr_lightrag.engine.managed import engine_status, stop_engine, workspace_state_dir
    from mnote_kr_lightrag.engine.procs import is_our_process

    monkeypatch.setenv("MNOTE_KR_HOME", str(Path(lightrag_engine.working_dir).parents[2]))
    reaper = request.config.pluginmanager.get_plugin("mnote-kr-workspace-engine-reaper")
    assert reaper is not None  # registered with the session engine: runs after every test
    token = uuid.uuid4().hex[:10]
    hosts = [_host(tmp_path / name) for name in ("mine", "nested/deeper")]
    for host in hosts:
        (host.root / "a.md").write_text(f"# Winch {token}\n\nThe anchor winch {token} pulls 2 t.\n")
        assert [i.status for i in host.ingest(["a.md"], wait=True, wait_s=120).items] == ["processed"]
    own = [engine_status(workspace_state_dir(paths.state_dir(), lightrag_workspace(h.context()))) for h in hosts]
    assert all(o is not None for o in own)
    elsewhere = tmp_path.parent / f"{tmp_path.name}-other"  # not this test's tmp_path: left alone
    kept = _host(elsewhere)
    (kept.root / "a.md").write_text(f"# Winch {token}\n\nThe anchor winch {token} pulls 2 t.\n")
    assert [i.status for i in kept.ingest(["a.md"], wait=True, wait_s=120).items] == ["processed"]

    before = reaper.stopped
    reaper.reap(tmp_path)
    assert reaper.stopped - before == 2
    assert all(not is_our_process(o.pids["server"], "server") for o in own if o is not None)
    # the session engine, its model service and the other workspace's server keep serving
    assert engine_status(Path(lightrag_engine.working_dir).parents[2] / "state") is not None
    assert is_our_process(lightrag_engine.pids["models"], "models")
    assert kept.search(f"anchor winch {token}", mode="naive").results
    hits = hosts[0].search(f"anchor winch {token}", mode="naive").results  # restarts on demand
    assert hits and hits[0].source_root_relative_path == "a.md"
    stop_engine(workspace_state_dir(paths.state_dir(), lightrag_workspace(kept.context())))
    shutil.rmtree(elsewhere, ignore_errors=True)
