"""Helpers the CLI and integration tests share: the CLI's subprocess environment and a small PDF."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mnote_kr_testkit.pdfs import PdfBuilder


def cli_env(home: Path, api_key: str | None) -> dict[str, str]:
    """The subprocess environment: our home, no system keyring, the key only if given."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MNOTE_KR_") and k not in ("LIGHTRAG_API_KEY", "PYTHON_KEYRING_BACKEND")}
    env.update(MNOTE_KR_HOME=str(home), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
               PYTHONIOENCODING="utf-8")
    if api_key is not None:
        env["MNOTE_KR_LIGHTRAG_API_KEY"] = api_key
    return env


def start_serve(home: Path, ws: Path) -> subprocess.Popen[str]:
    """``mnote-kr serve --port 0`` in ``ws`` (created), returned once it says it serves."""
    ws.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([sys.executable, "-m", "mnote_kr", "serve", "--port", "0"], cwd=ws,
                            env=cli_env(home, None), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("Press Ctrl-C"):
            return proc
    proc.wait(timeout=30)
    raise AssertionError(proc.stderr.read() if proc.stderr else "serve did not start")


def turbine_pdf(token: str) -> bytes:
    p = PdfBuilder()
    page = p.add_page()
    lines = ["Wind turbine icing study " + token, "Small wind turbines lose output when ice builds up.",
             "Blade heating kept the power loss below five percent on every turbine.",
             "Unheated blades lost up to forty percent of their output in freezing fog."]
    for i, line in enumerate(lines):
        p.text(page, 72, 720 - 20 * i, line, size=11)
    return p.build()
