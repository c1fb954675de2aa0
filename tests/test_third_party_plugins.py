"""A third party's plugin used through a whole search and ingest, with the in-process fake provider:
the docs' own ``example_lines`` locator (docs/example_plugin) registered as an entry point would be."""

from __future__ import annotations

import hashlib
import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest
from mnote_kr_testkit.fakes import FakeProvider, fake_config

from mnote_kr.app.host import Host
from mnote_kr.hookspecs import hookimpl
from mnote_kr.plugins import load_plugins

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "example_plugin"
LOG = ("12:00 service started\n12:01 cache warmed in 80 ms\n12:05 disk full on /var, writes paused\n"
       "12:06 operator freed 4 GB\n")


@pytest.fixture
def example_lines(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    importlib.invalidate_caches()
    module = importlib.import_module("mnote_kr_example_lines")
    yield module
    sys.modules.pop("mnote_kr_example_lines", None)


def _host(ws: Path, provider: FakeProvider, *extra: tuple[str, object]) -> Host:
    config = fake_config()
    return Host(ws, config=config, plugins=load_plugins(config, extra=[("fake", provider), *extra]))


def test_example_plugin_cites_a_log_line_as_a_paragraph_in_a_search(tmp_path: Path,
                                                                    example_lines: ModuleType) -> None:
    ws = tmp_path / "ws"
    (ws / "logs").mkdir(parents=True)
    log = ws / "logs" / "app.log"
    log.write_text(LOG, encoding="utf-8")
    before = hashlib.sha256(log.read_bytes()).hexdigest()
    host = _host(ws, FakeProvider(), ("example_lines", example_lines))
    host.ingest(["logs"])

    found = host.search("disk full")

    [cite] = [c for c in found.results if c.source_root_relative_path == "logs/app.log"]
    assert (cite.locator_precision, cite.locator_degraded) == ("paragraph", False), cite.locator
    assert cite.locator.locator_plugin == "example_lines" and cite.locator.paragraph_index == 2
    assert hashlib.sha256(log.read_bytes()).hexdigest() == before


def test_the_guides_testing_example_runs_as_written(tmp_path: Path, example_lines: ModuleType) -> None:
    guide = (EXAMPLE.parent / "plugins.md").read_text(encoding="utf-8")
    testing = guide[guide.index("## Testing"):]
    code = testing[testing.index("```python\n") + 10:testing.index("```", testing.index("```python\n") + 10)]
    assert "mnote_kr_testkit.fakes import FakeProvider" in code and "host.search(" in code
    exec(compile(code, "docs/plugins.md#testing", "exec"), {"tmp_path": tmp_path})  # noqa: S102 - the doc's own code


class PsvRows:
    """A third party's reader of a type LightRAG does not take (a newcomer's ``.psv``)."""

    @hookimpl
    def locator_extensions(self) -> list[str]:
        return [".psv"]

    @hookimpl
    def extract_text(self, path: str) -> str | None:
        return Path(path).read_text(encoding="utf-8").replace("|", ", ") if path.endswith(".psv") else None


class LocatesOnly:
    @hookimpl
    def locator_extensions(self) -> list[str]:
        return [".psv", ".only"]


def test_the_host_tells_the_provider_which_types_a_plugin_reads_as_text_never_which_plugin(tmp_path: Path) -> None:
    host = _host(tmp_path, FakeProvider(), ("locates_only", LocatesOnly()), ("psv_rows", PsvRows()))  # psv_rows wins
    ctx = host.context()
    readable = ctx.text_suffixes()
    assert ".psv" in readable and ".only" not in readable  # a locator without extract_text reads no text
    assert {".docx", ".xlsm"} <= readable  # the bundled readers, asked the same way
    (tmp_path / "birds.psv").write_text("name|habitat\nosprey|coasts\n", encoding="utf-8")
    assert ctx.extract_text(str(tmp_path / "birds.psv")) == "name, habitat\nosprey, coasts\n"
    # the configured locator decides: one that reads no text takes the type out
    config = {**fake_config(), "locators": {".psv": "locates_only"}}
    chosen = load_plugins(config, extra=[("fake", FakeProvider()), ("psv_rows", PsvRows()),
                                         ("locates_only", LocatesOnly())])
    assert ".psv" not in chosen.text_suffixes()
