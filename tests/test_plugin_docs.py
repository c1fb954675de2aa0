"""docs/plugins.md, a plugin author's guide, against the code it describes: every hook in its table, every
bundled plugin named, and the hook docstrings pointing a plugin only at what ``mnote_kr.plugin_api`` offers."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from mnote_kr import hookspecs, plugin_api

REPO = Path(__file__).resolve().parents[1]
GUIDE = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")


def _hookspecs() -> dict[str, object]:
    marker = f"{hookspecs.PROJECT_NAME}_spec"
    return {name: fn for name, fn in vars(hookspecs).items() if inspect.isfunction(fn) and hasattr(fn, marker)}


def test_the_hooks_table_lists_every_hookspec_with_its_arguments() -> None:
    table = GUIDE[GUIDE.index("## The hooks"):]
    rows = dict(re.findall(r"^\| `(\w+)\(([^)]*)\)` \|", table, re.M))
    specs = _hookspecs()
    assert len(specs) > 20
    assert sorted(set(specs) - set(rows)) == []
    assert sorted(set(rows) - set(specs)) == []
    for name, args in rows.items():
        wanted = [p for p in inspect.signature(specs[name]).parameters]  # type: ignore[arg-type]
        assert [a.strip() for a in args.split(",") if a.strip()] == wanted, name


def test_the_guide_names_every_bundled_plugin() -> None:
    # packages, not an editable install's .egg-info
    bundled = sorted(p.name for p in REPO.glob("plugins/*/mnote_kr_*") if (p / "__init__.py").is_file())
    opening = GUIDE[:GUIDE.index("## The plugin API")]
    assert len(bundled) == 6
    assert [b for b in bundled if f"`{b}`" not in opening] == []
    assert "the six bundled plugins" in opening


def test_hook_docstrings_point_plugins_at_the_plugin_api_for_classes() -> None:
    named = re.findall(r"``(mnote_kr(?:\.\w+)*)\.([A-Z]\w*)``", inspect.getsource(hookspecs))
    assert ("mnote_kr.plugin_api", "Persist") in named  # prepare_locate's cache
    outside = sorted({f"{m}.{n}" for m, n in named if m != "mnote_kr.plugin_api"})
    assert outside == []
    assert [n for _, n in named if n not in plugin_api.__all__] == []
