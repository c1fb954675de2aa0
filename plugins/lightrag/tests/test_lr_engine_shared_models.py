"""A workspace's server uses the managed engine's one offline model service (real lightrag-server).

Each workspace of the managed engine runs its own ``lightrag-server``; it used to spawn its own
model service too (e5 loaded once per workspace: ~320 MB idle, ~1 GB while ingesting). Now it uses
the shared engine's when that one runs the same embedder, and a workspace server never outlives the
model service it uses: a crash of the shared engine is one clear error, and the next start of the
engine brings the workspace back (docs/workspaces.md).
"""

from __future__ import annotations

import os
import signal
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from mnote_kr_testkit.engine import seed_tiktoken
from mnote_kr_testkit.waiting import wait_until

from mnote_kr.app.host import Host
from mnote_kr.cli.main import cli
from mnote_kr.core.config import load_config
from mnote_kr.errors import ProviderError
from mnote_kr_lightrag.client.workspaces import lightrag_workspace
from mnote_kr_lightrag.engine import managed
from mnote_kr_lightrag.engine.procs import MARKERS, is_our_process

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]


def _model_services_under(base: Path) -> list[int]:
    """PIDs of live offline model services whose working directory is under ``base`` (ours only)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if MARKERS["models"] in cmd and cwd.is_relative_to(base) and is_our_process(int(entry.name), "models"):
            found.append(int(entry.name))
    return found


def _host(root: Path, text: str) -> Host:
    root.mkdir(parents=True, exist_ok=True)
    (root / "notes.md").write_text(text, encoding="utf-8")
    config = load_config(root)
    config["providers"] = {"lightrag": {}}  # no URL: the managed engine decides
    return Host(root, config=config)


def _gone(pid: int, role: str) -> bool:
    return not is_our_process(pid, role)


def test_workspace_engine_uses_the_shared_model_service_and_never_outlives_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path / "home"
    monkeypatch.setenv("MNOTE_KR_HOME", str(base))
    seed_tiktoken(base / "cache")
    state = base / "state"
    shared = managed.start_engine(data_dir=base / "data", state_dir=state, cache_dir=base / "cache", wait_s=180)
    try:
        token = uuid.uuid4().hex[:10]
        host = _host(tmp_path / "ws", f"# Pump {token}\n\nThe bilge pump {token} runs every 6 hours.\n")
        report = host.ingest(["notes.md"], wait=True, wait_s=300)
        assert [i.status for i in report.items] == ["processed"], report.items
        own_dir = managed.workspace_state_dir(state, lightrag_workspace(host.context()))
        own = managed.engine_status(own_dir)
        assert own is not None and own.healthy
        # one model service for the engine and its workspace: the shared engine's
        assert "models" not in own.pids and own.shared_models_pid == shared.pids["models"]
        assert own.models_url == shared.models_url
        assert _model_services_under(base) == [shared.pids["models"]]
        hits = host.search(f"bilge pump {token}", mode="naive").results
        assert hits and hits[0].source_root_relative_path == "notes.md"
        shown = CliRunner().invoke(cli, ["--workspace", str(host.root), "engine", "status"])
        assert shown.exit_code == 0 and f"its own server at {own.url} (on the engine's model service)" in shown.output

        # The shared engine crashes (both processes killed, no 'engine stop'): the workspace's next
        # search is one clear error, and its server, left without a model service, is stopped.
        for role in ("server", "models"):
            os.kill(shared.pids[role], signal.SIGKILL)
        wait_until(lambda: _gone(shared.pids["server"], "server") and _gone(shared.pids["models"], "models"),
                   timeout_s=30, what="the killed engine's processes")
        with pytest.raises(ProviderError) as err:
            host.search(f"bilge pump {token}", mode="naive")
        assert "died" in str(err.value) and "\n" not in str(err.value)
        wait_until(lambda: _gone(own.pids["server"], "server"), timeout_s=60,
                   what="the workspace's server outlived the model service it used")
        assert managed.engine_status(own_dir) is None

        # The engine started again: the workspace's server comes back on the new model service.
        again = managed.start_engine(data_dir=base / "data", state_dir=state, cache_dir=base / "cache", wait_s=180)
        hits = host.search(f"bilge pump {token}", mode="naive").results
        assert hits and hits[0].source_root_relative_path == "notes.md"
        back = managed.engine_status(own_dir)
        assert back is not None and back.shared_models_pid == again.pids["models"] and "models" not in back.pids
        assert _model_services_under(base) == [again.pids["models"]]

        # Only the shared model service crashes: the workspace's server, which used it, is restarted
        # with a model service of its own (as before sharing), and its search works.
        os.kill(again.pids["models"], signal.SIGKILL)
        wait_until(lambda: _gone(again.pids["models"], "models"), timeout_s=30, what="the killed model service")
        hits = host.search(f"bilge pump {token}", mode="naive").results
        assert hits and hits[0].source_root_relative_path == "notes.md"
        alone = managed.engine_status(own_dir)
        assert alone is not None and alone.shared_models_pid is None and alone.pids["server"] != back.pids["server"]
        assert _gone(back.pids["server"], "server") and _model_services_under(base) == [alone.pids["models"]]

        # 'engine stop' stops everything: the shared server, the workspace's server and its model service.
        stopped = managed.stop_engine(state)
        assert set(stopped) == {again.pids["server"], alone.pids["server"], alone.pids["models"]}
        assert _model_services_under(base) == []
    finally:
        managed.stop_engine(state)


def test_model_service_of_another_embedder_is_not_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared engine's service is used only when it runs exactly the embedder this start would."""
    from mnote_kr_lightrag.engine import embedders, modelservice, modelshare

    with modelservice.running(embedder="hashing") as srv:
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        shared = managed.EngineInfo(url="http://127.0.0.1:9", api_key="k", input_dir="", working_dir="",
                                    pids={"server": 1, "models": os.getpid()}, offline_models=True,
                                    models_url=url, models_key=srv.api_key)
        monkeypatch.setattr(modelshare, "is_our_process", lambda pid, role: pid == os.getpid())
        assert modelshare.usable(shared, embedders.spec("hashing")) == (url, srv.api_key, os.getpid())
        assert modelshare.usable(shared, embedders.spec(embedders.DEFAULT_EMBEDDER)) is None  # another embedder
        gone = managed.EngineInfo(**{**{f: getattr(shared, f) for f in shared.__struct_fields__},
                                     "pids": {"server": 1, "models": os.getpid() + 1}})
        assert modelshare.usable(gone, embedders.spec("hashing")) is None  # its process is not ours / gone
    assert modelshare.usable(shared, embedders.spec("hashing")) is None  # not answering
    assert modelshare.usable(None, embedders.spec("hashing")) is None


def test_a_busy_shared_model_service_is_still_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the engine ingests, every handler thread of its model service may be embedding (two servers
    send 16 requests at once): its ``/health`` then waits behind them, or the full queue answers 503. A
    workspace starting then must still use that service (the engine's record names its embedder), not
    load a second copy of the model (~1 GB while ingesting) for the rest of its server's life."""
    import threading

    import httpx

    from mnote_kr_lightrag.engine import embedders, modelservice, modelshare

    with modelservice.running(embedder="hashing") as srv:
        url = f"http://127.0.0.1:{srv.server_address[1]}"
        hashing = embedders.spec("hashing")
        shared = managed.EngineInfo(url="http://127.0.0.1:9", api_key="k", input_dir="", working_dir="",
                                    pids={"server": 1, "models": os.getpid()}, offline_models=True,
                                    models_url=url, models_key=srv.api_key, embedder=hashing.record())
        monkeypatch.setattr(modelshare, "is_our_process", lambda pid, role: pid == os.getpid())
        release, inside = threading.Event(), []
        real = srv.embed_batch

        def slow(texts):  # noqa: ANN001, ANN202 - a forward pass that takes as long as the test needs
            inside.append(1)
            release.wait(120)
            return real(texts)

        srv.embed_batch = slow
        workers = modelservice.LIMITS.max_workers

        def embed() -> None:
            with httpx.Client(trust_env=False, timeout=180, headers=modelservice.auth_headers(srv.api_key)) as c:
                c.post(f"{url}/v1/embeddings", json={"input": ["bilge pump"]})

        senders = [threading.Thread(target=embed, daemon=True) for _ in range(workers)]
        for t in senders:
            t.start()
        try:
            wait_until(lambda: len(inside) == workers, timeout_s=60, what="every handler thread embedding")
            assert modelshare.usable(shared, hashing) == (url, srv.api_key, os.getpid())
            # busy, and the engine's record names another embedder: not shared
            assert modelshare.usable(shared, embedders.spec(embedders.DEFAULT_EMBEDDER)) is None
        finally:
            release.set()
            for t in senders:
                t.join(timeout=60)
