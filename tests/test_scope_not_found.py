"""A search scoped to a path that exists nowhere says so, with the path to check (not "search a wider folder")."""

from __future__ import annotations

from pathlib import Path

from mnote_kr.app.host import Host
from mnote_kr.citations.map.notindexed import absent_scope as _absent
from mnote_kr.citations.render.noresults import why_no_results
from mnote_kr.core.config import load_config
from mnote_kr.core.registry import Registry
from mnote_kr.models import RegistrySnapshot, SourceEntry


def _reg(*rels: str) -> Registry:
    return Registry(RegistrySnapshot(entries=[
        SourceEntry(source_id=r, source_path="/x/" + r, source_root_relative_path=r, status="processed")
        for r in rels]))


def test_a_mistyped_scope_is_named_with_its_fix() -> None:
    live = _reg("docs/a.pdf")
    why = why_no_results(live, {"outOfScope": 3}, True, ["nonexistent.pdf"])
    assert why["reason"] == "scope_not_found"
    assert "no such file or folder: nonexistent.pdf" in why["message"] and "check the path" in why["message"]
    assert "wider folder" not in why["message"]
    # passages found outside a scope that exists: the wider folder is still the fix
    assert "wider folder" in why_no_results(live, {"outOfScope": 3}, True, [])["message"]
    many = why_no_results(live, {}, True, ["a", "b", "c", "d", "e"])
    assert "a, b, c and 2 more" in many["message"]


def test_only_a_scope_that_exists_nowhere_is_absent(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.pdf").write_bytes(b"%PDF-1.4")
    (ws / "notes").mkdir()
    config = load_config(ws)
    config["providers"] = {"lightrag": {"url": "http://127.0.0.1:9"}}
    host = Host(ws, config=config)
    reg = _reg("docs/a.pdf", "gone/old.md")
    assert _absent(host, reg, ["nonexistent.pdf"]) == ["nonexistent.pdf"]
    assert _absent(host, reg, ["nonexistent.pdf", "docs/typo"]) == ["nonexistent.pdf", "docs/typo"]
    assert _absent(host, reg, ["nonexistent.pdf", "docs"]) == []  # one of them was searched
    assert _absent(host, reg, ["notes"]) == []  # on disk, nothing indexed: another reason says so
    assert _absent(host, reg, ["gone"]) == []  # in the index, deleted on disk: stale, not mistyped
    assert _absent(host, reg, []) == []
