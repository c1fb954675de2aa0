"""Secret resolution order and the promise that values are never shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mnote_kr.core.keys import delete_secret, read_dotenv, resolve_secret, set_secret
from mnote_kr.errors import UsageError


def test_resolution_order_env_then_dotenv_then_lightrag_env_then_keyring(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("# LightRAG\nexport LIGHTRAG_API_KEY='from-dotenv'  \nOTHER=1\n")
    set_secret("lightrag-api-key", "from-keyring")
    assert resolve_secret("lightrag-api-key") == ("from-keyring", "keyring")
    monkeypatch.setenv("LIGHTRAG_API_KEY", "from-lightrag-env")
    assert resolve_secret("lightrag-api-key")[0] == "from-lightrag-env"
    assert resolve_secret("lightrag-api-key", dotenv_path=dotenv)[0] == "from-dotenv"
    monkeypatch.setenv("MNOTE_KR_LIGHTRAG_API_KEY", "from-own-env")
    value, source = resolve_secret("lightrag-api-key", dotenv_path=dotenv)
    assert value == "from-own-env" and source == "environment variable MNOTE_KR_LIGHTRAG_API_KEY"


def test_dotenv_parsing_handles_quotes_comments_and_missing_files(tmp_path: Path) -> None:
    f = tmp_path / ".env"
    f.write_text('A="x y"\nB=plain # trailing\n#C=no\n')
    assert read_dotenv(f, "A") == "x y" and read_dotenv(f, "B") == "plain" and read_dotenv(f, "C") is None
    assert read_dotenv(tmp_path / "missing.env", "A") is None


def test_unknown_secret_name_is_a_usage_error_and_delete_reports_absence() -> None:
    with pytest.raises(UsageError, match="Unknown secret"):
        resolve_secret("aws-root-password")
    assert delete_secret("mineru-token") is False
    set_secret("mineru-token", "t0k")
    assert delete_secret("mineru-token") is True


def test_cli_secrets_get_never_prints_the_value(tmp_path: Path) -> None:
    value = "sk-very-secret-4242"
    env = {**os.environ, "MNOTE_KR_HOME": str(tmp_path / "home"), "MNOTE_KR_LIGHTRAG_API_KEY": value}
    out = subprocess.run([sys.executable, "-m", "mnote_kr", "secrets", "get", "lightrag-api-key", "--json"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert json.loads(out.stdout) == {"name": "lightrag-api-key", "set": True,
                                      "source": "environment variable MNOTE_KR_LIGHTRAG_API_KEY"}
    assert value not in out.stdout + out.stderr
