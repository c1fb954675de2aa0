"""Secrets: environment first, then keyring. Values never reach output, logs or errors.

Resolution order for ``lightrag-api-key`` (the connector's own variable must
win over LightRAG's, and LightRAG's ``.env`` is what its server actually uses):

1. ``MNOTE_KR_LIGHTRAG_API_KEY``
2. ``LIGHTRAG_API_KEY`` inside LightRAG's ``.env`` file, when its path is configured
   (``[providers.lightrag] env_file``)
3. ``LIGHTRAG_API_KEY`` in the environment
4. the system keyring (service ``mnote-kr``)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from mnote_kr.errors import MnoteKrError, UsageError

SERVICE = "mnote-kr"


class SecretSpec(NamedTuple):  # immutable; a NamedTuple costs a fresh process a sixth of a frozen dataclass
    name: str
    env: str  # the connector's own variable, checked first
    dotenv_key: str | None = None  # key inside a configured .env file
    fallback_env: str | None = None  # the upstream tool's own variable


SECRETS: dict[str, SecretSpec] = {
    "lightrag-api-key": SecretSpec(
        "lightrag-api-key", "MNOTE_KR_LIGHTRAG_API_KEY", "LIGHTRAG_API_KEY", "LIGHTRAG_API_KEY"
    ),
    "mineru-token": SecretSpec("mineru-token", "MNOTE_KR_MINERU_TOKEN", "MINERU_API_TOKEN", "MINERU_API_TOKEN"),
    # The [rerank] endpoint's key (mnote_kr.citations.rank.rerank); LightRAG's .env names it RERANK_BINDING_API_KEY.
    "rerank-api-key": SecretSpec("rerank-api-key", "MNOTE_KR_RERANK_API_KEY", "RERANK_BINDING_API_KEY",
                                 "RERANK_BINDING_API_KEY"),
}


def spec_for(name: str) -> SecretSpec:
    try:
        return SECRETS[name]
    except KeyError:
        raise UsageError(f"Unknown secret {name!r}", hint="known secrets: " + ", ".join(sorted(SECRETS))) from None


def read_dotenv(path: Path, key: str) -> str | None:
    """The value of ``key`` in a ``.env`` file (KEY=value, optional quotes, # comments)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        if line.startswith("export "):
            line = line[7:].lstrip()
        k, _, v = line.partition("=")
        if k.strip() != key:
            continue
        v = v.strip()
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
            v = v[1:-1]
        else:
            v = v.split(" #", 1)[0].strip()
        return v or None
    return None


def _keyring():
    import keyring  # imported lazily: backend discovery is slow and may fail

    return keyring


def resolve_secret(name: str, *, dotenv_path: str | Path | None = None) -> tuple[str | None, str | None]:
    """(value, where it came from) for a secret; (None, None) when unset."""
    spec = spec_for(name)
    value = os.environ.get(spec.env)
    if value:
        return value, f"environment variable {spec.env}"
    if dotenv_path and spec.dotenv_key:
        value = read_dotenv(Path(dotenv_path).expanduser(), spec.dotenv_key)
        if value:
            return value, f"{dotenv_path} ({spec.dotenv_key})"
    if spec.fallback_env:
        value = os.environ.get(spec.fallback_env)
        if value:
            return value, f"environment variable {spec.fallback_env}"
    try:
        value = _keyring().get_password(SERVICE, name)
    except Exception:  # noqa: BLE001 - any keyring backend failure means "not available"
        value = None
    if value:
        return value, "keyring"
    return None, None


def set_secret(name: str, value: str) -> None:
    spec_for(name)
    if not value:
        raise UsageError("Refusing to store an empty secret")
    try:
        _keyring().set_password(SERVICE, name, value)
    except Exception as exc:  # noqa: BLE001
        raise MnoteKrError(
            f"No usable system keyring ({type(exc).__name__})",
            hint=f"set {spec_for(name).env} in the environment instead",
        ) from None


def delete_secret(name: str) -> bool:
    spec_for(name)
    kr = _keyring()
    try:
        kr.delete_password(SERVICE, name)
    except kr.errors.PasswordDeleteError:
        return False
    except Exception as exc:  # noqa: BLE001
        raise MnoteKrError(f"No usable system keyring ({type(exc).__name__})") from None
    return True
