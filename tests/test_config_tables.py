"""The loaded configuration is the caller's own: changing one of its tables changes no later load.

Found by ``benchmarks/retrieval.py``: a variant that set ``providers.lightrag.rank_passages`` on
its config changed ``DEFAULTS`` through the shared nested table, so every later variant (and, in a
long-running process, every later search) ran with that setting."""

from __future__ import annotations

from pathlib import Path

from mnote_kr.core.config import DEFAULTS, load_config


def test_changing_a_loaded_table_leaves_the_defaults_and_the_next_load_alone(tmp_path: Path) -> None:
    before = repr(DEFAULTS)
    first = load_config(tmp_path)
    tables = [k for k, v in first.items() if isinstance(v, dict)]
    assert tables, "the defaults have nested tables"
    for key in tables:
        first[key]["planted"] = {"x": 1}
        for value in first[key].values():
            if isinstance(value, dict):
                value["planted"] = 2
    lists = [k for k, v in first.items() if isinstance(v, list)]
    for key in lists:
        first[key].append("planted")
    again = load_config(tmp_path)
    assert "planted" not in repr(again)
    assert repr(DEFAULTS) == before


def test_a_workspace_file_still_overrides_one_key_of_a_table(tmp_path: Path) -> None:
    (tmp_path / ".mnote").mkdir()
    (tmp_path / ".mnote" / "config.toml").write_text("[providers.lightrag]\nrank_passages = true\n", encoding="utf-8")
    config = load_config(tmp_path)
    assert config["providers"]["lightrag"]["rank_passages"] is True
    assert set(config["providers"]) == set(DEFAULTS["providers"]) | {"lightrag"}
    assert "rank_passages" not in repr(load_config(tmp_path / "other"))
    assert "rank_passages" not in repr(DEFAULTS)
