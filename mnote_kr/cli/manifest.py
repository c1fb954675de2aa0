"""The plugin commands' names and help, kept on disk so ``mnote-kr --help`` lists them without
loading a single plugin (entry-point discovery and plugin imports cost more than the rest of
``--help`` together).

The manifest is written whenever the plugins really register their commands, and trusted only
while nothing that decides those commands changed: the import path's directories (installing,
upgrading or removing a distribution changes its site directory), the files of the modules that
define the commands, the user configuration file (``disabled_plugins``) and
``MNOTE_KR_DISABLE_PLUGINS``. A torn, foreign or outdated manifest is ignored and rewritten;
running any plugin command always loads the plugins themselves.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from mnote_kr.core import paths
from mnote_kr.core.atomic import write_atomic
from mnote_kr.entrypoints import install_key
from mnote_kr.entrypoints import stat_key as _stat

VERSION = 1
NAME = "cli-commands.json"


def _key() -> dict[str, Any]:
    """What decides which plugin commands exist, cheaply (a few ``stat`` calls)."""
    return {
        "install": install_key(),
        "config": _stat(paths.config_dir() / "config.toml"),
        "disabled": os.environ.get("MNOTE_KR_DISABLE_PLUGINS", ""),
    }


def _file() -> Path:
    return paths.cache_dir() / NAME


def read() -> list[dict[str, Any]] | None:
    """The cached plugin commands (name, help, short_help, hidden), or None when not trustworthy."""
    try:
        data = json.loads(_file().read_text(encoding="utf-8"))
        if data.get("version") != VERSION or data.get("key") != _key():
            return None
        if any(_stat(f) != s for f, s in data["files"].items()):
            return None
        commands = data["commands"]
        if not all(isinstance(c, dict) and isinstance(c.get("name"), str) for c in commands):
            return None
        return list(commands)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # missing, torn or foreign: rebuilt by loading the plugins


def write(commands: dict[str, Any]) -> None:
    """Record the plugin-provided click commands (best effort: a read-only cache only costs speed)."""
    rows: list[dict[str, Any]] = []
    files: dict[str, list[int] | None] = {}
    for name, cmd in sorted(commands.items()):
        rows.append({"name": name, "help": cmd.help, "short_help": cmd.short_help, "hidden": bool(cmd.hidden)})
        module = sys.modules.get(getattr(cmd.callback, "__module__", "") or "")
        source = getattr(module, "__file__", None)
        if source:
            files[source] = _stat(source)
    payload = {"version": VERSION, "key": _key(), "files": files, "commands": rows}
    target = _file()
    try:
        write_atomic(target, json.dumps(payload))  # readers see the old or the new manifest, never half of one
    except OSError:
        pass
