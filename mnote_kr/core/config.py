"""Configuration: user ``config.toml`` (platformdirs) merged with ``<workspace>/.mnote/config.toml``.

Keys (all optional)::

    provider = "lightrag"                 # which provider plugin answers provider hooks
    max_files_per_call = 200              # watcher/reconcile batch size (every file is still taken)
    disabled_plugins = ["some_plugin"]    # also MNOTE_KR_DISABLE_PLUGINS=a,b
    [locators]                            # per extension, which locator plugin runs
    ".pdf" = "pdf_bbox"
    [query]                               # how deep the provider retrieves (not how many
    retrieval_top_k = 20                  #   citations come back: that is --top-k / topK)
    retrieval_chunk_top_k = 20            # chunks retrieved; raised to --top-k when that is larger
    [rerank]                              # your reranker (mnote_kr.citations.rank.rerank): each file's
    host = "http://127.0.0.1:8000/rerank" #   places in its order; key: secret rerank-api-key
    model = "BAAI/bge-reranker-v2-m3"
    [providers.lightrag]                  # the provider's own section, passed to it as is
    url = "http://127.0.0.1:9621"
    env_file = "~/lightrag/.env"
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mnote_kr.core import paths
from mnote_kr.errors import ConfigError

DEFAULTS: dict[str, Any] = {
    "provider": "lightrag",
    "max_files_per_call": 200,
    "ingest_batch_files": 200,
    # The most text one file may send to the provider (characters as its reader extracts them): the
    # text of about 3,000 ordinary pages, the PDF page limit; docs/budgets.md has what it costs the engine.
    "max_index_chars": 8_000_000,
    "disabled_plugins": [],
    "locators": {},
    "providers": {},
}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``over`` laid on it, table by table: a new dict all the way down, so a caller
    that changes a table of its config never changes ``DEFAULTS`` (or the next load) with it."""
    out: dict[str, Any] = {}
    for key, value in base.items():
        out[key] = _merge(value, {}) if isinstance(value, dict) else list(value) if isinstance(value, list) else value
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"Cannot read configuration file {path}: {exc.strerror}") from exc
    import tomllib  # only when there is a file: most commands run without one

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Invalid configuration file {path}: {exc}", hint="fix the TOML syntax") from exc


def load_config(workspace_root: Path | None = None) -> dict[str, Any]:
    """The effective configuration for a workspace."""
    config = _merge(DEFAULTS, _read(paths.config_dir() / "config.toml"))
    if workspace_root is not None:
        config = _merge(config, _read(workspace_root / ".mnote" / "config.toml"))
    env_disabled = os.environ.get("MNOTE_KR_DISABLE_PLUGINS", "")
    extra = [name.strip() for name in env_disabled.split(",") if name.strip()]
    config["disabled_plugins"] = sorted(set(config.get("disabled_plugins", [])) | set(extra))
    if not isinstance(config.get("locators"), dict):
        raise ConfigError("'locators' must be a table of extension = plugin name")
    config["locators"] = {_norm_ext(k): v for k, v in config["locators"].items()}
    for key in ("max_files_per_call", "ingest_batch_files", "max_index_chars"):
        try:
            config[key] = int(config[key])
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"'{key}' must be an integer") from exc
        if config[key] < 1:
            raise ConfigError(f"'{key}' must be at least 1")
    return config


def _norm_ext(ext: str) -> str:
    ext = ext.strip().lower()
    return ext if ext.startswith(".") else "." + ext
