"""Workspace safety: nothing outside the workspace is ever reachable through a path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnote_kr.core.workspace import Workspace, find_workspace, under
from mnote_kr.errors import PathNotAllowedError, UsageError


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "kb"
    (root / "papers" / "deep").mkdir(parents=True)
    (root / "papers" / "a.pdf").write_bytes(b"%PDF-1.4 a")
    (root / "papers" / "deep" / "b.md").write_text("# b")
    (tmp_path / "outside.txt").write_text("secret")
    return Workspace(root)


def test_relative_and_absolute_paths_inside_resolve_to_posix_relative(ws: Workspace) -> None:
    assert ws.resolve("papers/a.pdf", base=ws.root)[1] == "papers/a.pdf"
    assert ws.resolve(str(ws.root / "papers" / "deep" / "b.md"))[1] == "papers/deep/b.md"


@pytest.mark.parametrize(
    "bad", ["../outside.txt", "papers/../../outside.txt", "papers/../a.pdf", "/etc/passwd", "a\x00b", ""]
)
def test_traversal_absolute_escape_nul_and_empty_are_refused(ws: Workspace, bad: str) -> None:
    with pytest.raises(PathNotAllowedError):
        ws.resolve(bad, base=ws.root)


def test_symlink_leaving_the_root_is_refused_anywhere_on_the_path(ws: Workspace, tmp_path: Path) -> None:
    os.symlink(tmp_path / "outside.txt", ws.root / "papers" / "link.txt")
    os.symlink(tmp_path, ws.root / "escape_dir")
    with pytest.raises(PathNotAllowedError, match="symlink"):
        ws.resolve("papers/link.txt", base=ws.root)
    with pytest.raises(PathNotAllowedError, match="symlink"):
        ws.resolve("escape_dir/outside.txt", base=ws.root)


def test_the_mnote_folder_itself_is_not_a_source(ws: Workspace) -> None:
    (ws.root / ".mnote").mkdir()
    with pytest.raises(PathNotAllowedError, match=".mnote"):
        ws.resolve(".mnote/index/x.json", base=ws.root)


SEGMENTS = st.sampled_from(["..", ".", "papers", "deep", "a.pdf", "escape_dir", "link.txt", "", "~", "/", "x y", "..."])


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(parts=st.lists(SEGMENTS, min_size=1, max_size=6), absolute=st.booleans())
def test_property_any_accepted_path_really_lies_inside_the_workspace(ws: Workspace, tmp_path: Path, parts: list[str],
                                                                   absolute: bool) -> None:
    if not (ws.root / "escape_dir").exists():
        os.symlink(tmp_path, ws.root / "escape_dir")
    raw = "/".join(parts)
    if absolute:
        raw = str(ws.root) + "/" + raw
    try:
        abs_path, rel = ws.resolve(raw, base=ws.root)
    except PathNotAllowedError:
        return
    assert ".." not in Path(raw).parts
    assert abs_path.resolve().is_relative_to(ws.root)
    assert (ws.root / rel).resolve() == abs_path.resolve()


def test_expansion_skips_tool_folders_applies_excludes_and_reports_limit(ws: Workspace) -> None:
    for skip in (".git", "node_modules", "__parsed__", ".mnote", ".venv", "target"):
        (ws.root / skip).mkdir()
        (ws.root / skip / "x.md").write_text("x")
    for i in range(5):
        (ws.root / "papers" / f"n{i}.txt").write_text(str(i))
    (ws.root / "papers" / "draft.tmp").write_text("t")
    exp = ws.expand(["."], exclude=["*.tmp"], limit=4, base=ws.root)
    rels = [rel for _, rel in exp.files]
    assert len(rels) == 4
    assert not any(r.split("/")[0] in {".git", "node_modules", "__parsed__", ".mnote", ".venv", "target"} for r in rels)
    reasons = {s.path: s.reason for s in exp.skipped}
    assert "excluded" in reasons["papers/draft.tmp"]
    assert sum("limit of 4" in r for r in reasons.values()) == 3  # 7 files minus the 4 taken


def test_expansion_skips_symlinked_file_leaving_root_with_reason(ws: Workspace, tmp_path: Path) -> None:
    os.symlink(tmp_path / "outside.txt", ws.root / "papers" / "sneaky.txt")
    exp = ws.expand(["papers"], base=ws.root)
    assert "papers/sneaky.txt" not in [rel for _, rel in exp.files]
    assert any(s.path == "papers/sneaky.txt" and "outside" in s.reason for s in exp.skipped)


def test_expansion_passes_over_a_symlink_loop_with_a_reason(ws: Workspace) -> None:
    """A newcomer's loop (loop1 -> loop2 -> loop1) made the whole ingest fail with an "unexpected OSError"."""
    os.symlink("loop2", ws.root / "papers" / "loop1")
    os.symlink("loop1", ws.root / "papers" / "loop2")
    exp = ws.expand(["papers"], base=ws.root)
    assert sorted(rel for _, rel in exp.files) == ["papers/a.pdf", "papers/deep/b.md"]
    assert {s.path: s.reason for s in exp.skipped} == {
        "papers/loop1": "symlink to a folder, broken or in a loop: not followed",
        "papers/loop2": "symlink to a folder, broken or in a loop: not followed"}


def test_missing_path_is_a_usage_error(ws: Workspace) -> None:
    with pytest.raises(UsageError, match="No such file"):
        ws.expand(["papers/nope.pdf"], base=ws.root)


def test_find_workspace_walks_up_to_the_nearest_mnote(tmp_path: Path) -> None:
    (tmp_path / "kb" / ".mnote").mkdir(parents=True)
    (tmp_path / "kb" / "a" / "b").mkdir(parents=True)
    assert find_workspace(tmp_path / "kb" / "a" / "b") == (tmp_path / "kb").resolve()
    assert find_workspace(tmp_path) == tmp_path.resolve()


@pytest.mark.parametrize(("rel", "scope", "inside"), [
    ("kb/a.md", "", True),  # the whole workspace
    ("kb/a.md", "kb", True),
    ("kb/a.md", "kb/a.md", True),  # a file is its own scope
    ("kb/sub/a.md", "kb", True),
    ("kbx/a.md", "kb", False),  # a folder's name is not a prefix of another's
    ("kb", "kb/a.md", False),
])
def test_under_says_whether_a_path_is_a_scope_or_inside_it(rel: str, scope: str, inside: bool) -> None:
    """The one test of a path against a scope that the search's scope, its notIndexed, the files being
    re-indexed and the skipped files all use."""
    assert under(rel, scope) is inside
