"""The renamed-file tests' set-up on the managed engine (``test_rename_integration``,
``test_rename_takeover_integration``): a workspace of two corpus DOCX, indexed as a user indexes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mnote_kr_testkit.data import CORPUS

from mnote_kr.app.host import Host
from mnote_kr.core.config import load_config
from mnote_kr.sync.watch import reconcile_and_apply
from mnote_kr_lightrag.engine.managed import EngineInfo

DOCX = CORPUS / "docx" / "kotaemon__dummy.docx"
OTHER = CORPUS / "docx" / "weknora__issue_2634_vertical_merge.docx"
QUERY = "事務認証者の適格要件"  # words of kotaemon__dummy.docx only


def indexed_docs(tmp_path: Path, engine: EngineInfo, monkeypatch: pytest.MonkeyPatch) -> Host:
    """``tmp_path/docs`` holding copies of ``DOCX`` and ``OTHER``, after 'mnote-kr roots add .' and
    'mnote-kr ingest . --wait': both processed, on the managed engine (one LightRAG namespace and
    server for this workspace, as a user runs it), so the DOCX's bytes are indexed once per test."""
    monkeypatch.setenv("MNOTE_KR_HOME", str(Path(engine.working_dir).parents[2]))
    root = tmp_path / "docs"
    root.mkdir()
    shutil.copyfile(DOCX, root / "kotaemon__dummy.docx")
    shutil.copyfile(OTHER, root / "other.docx")
    config = load_config(root)
    config["providers"] = {"lightrag": {}}
    host = Host(root, config=config)
    host.roots_add(root)
    report = host.ingest(["."], wait=True, wait_s=300)
    assert {i.source_path: i.status for i in report.items} == {"kotaemon__dummy.docx": "processed",
                                                               "other.docx": "processed"}
    return host


def cited(host: Host) -> set[str]:
    """Which files the search for the DOCX's words cites (other.docx may come up weakly: not asked)."""
    return {c.source_root_relative_path for c in host.search(QUERY, mode="naive").results} - {"other.docx"}


def sync(host: Host, wait_s: float = 0.0) -> dict:
    """'mnote-kr sync [--wait N]': reconcile with the disk, then follow the provider's work."""
    return {"reconcile": reconcile_and_apply(host), "provider": host.sync(wait_s=wait_s)}
